// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: veritytab option strings (systemd.verity_root_options=, verity.options=;
 * untrusted: the command line may be edited by whoever sits at the bootloader), and the path /
 * device-spec checks the command-line parser shares. Oracle besides the sanitizers: what
 * vi_vopts_format writes for an accepted string parses again and formats to the same text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "vopts.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fresh(struct vi_target *t)
{
	static struct vi_config cfg;

	vi_config_init(&cfg);
	*t = cfg.root;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	static char out[8192], again[8192];
	struct vi_target t, t2;
	struct vi_error err;

	(void)vi_abspath_check(s, size, &err);
	(void)vi_location_check(s, size, &err);
	(void)vi_devspec_check(s, size, false, &err);
	(void)vi_devspec_check(s, size, true, &err);

	fresh(&t);
	memset(&err, 0x55, sizeof(err));
	if (vi_vopts_parse(s, size, &t, &err) < 0) {
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		return 0;
	}
	CHECK(t.params.salt_size <= VERITY_MAX_SALT);
	CHECK(memchr(t.params.hash_name, '\0', sizeof(t.params.hash_name)) != NULL);
	CHECK(memchr(t.sig_path, '\0', sizeof(t.sig_path)) != NULL);
	CHECK(memchr(t.fec.spec, '\0', sizeof(t.fec.spec)) != NULL);

	CHECK(vi_vopts_format(&t, out, sizeof(out)) == 0);
	fresh(&t2);
	CHECK(vi_vopts_parse(out, strlen(out), &t2, &err) == 0);
	CHECK(vi_vopts_format(&t2, again, sizeof(again)) == 0);
	CHECK(strcmp(out, again) == 0);
	return 0;
}
