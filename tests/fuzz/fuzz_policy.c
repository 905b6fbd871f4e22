// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the initramfs policy file (/etc/verity-init.conf). It is trusted content,
 * but a parser in PID 1 must still hold on any bytes (a truncated or corrupted initramfs). The
 * parsed policy is then applied to two fixed command lines. Oracles besides the sanitizers:
 *  - *ret untouched on failure;
 *  - after a successful apply, "shell" is in the fail list only if the policy allows it, the
 *    list is never empty, and a weakening option survives only if the policy allows it. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "config.h"
#include "policy.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

#define RH "cf1ab396eaaa516d4d1be3ae8f98c6c2af54c3dba09acd8cb56c82fdd36bf712"

static const char *const cmdlines[] = {
	"verity.roothash=" RH " verity.data=/dev/vda verity.options=hash-offset=81920",
	"verity.roothash=" RH " verity.data=/dev/vda "
	"verity.options=hash-offset=81920,ignore-zero-blocks,check-at-most-once "
	"verity.fail=shell,reboot",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_apply(const struct vi_policy *p, const char *cmdline)
{
	static struct vi_config cfg;
	const struct vi_verity_opts *o = &cfg.root.opts;
	struct vi_error err;
	bool has_shell = false;
	int r;

	static struct vi_config before, defaults;

	/* the defaults a refused command line falls back to: every policy completes them */
	vi_config_init(&defaults);
	CHECK(vi_policy_apply(p, &defaults, &err) == 0);
	CHECK(defaults.fail[0] != VI_FAIL_NONE);

	CHECK(vi_cmdline_parse(cmdline, 0, &cfg, &err) == 0);
	before = cfg;
	r = vi_policy_apply(p, &cfg, &err);
	if (r < 0) {
		CHECK(r == -EPERM || r == -EINVAL);
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		CHECK(memcmp(&before, &cfg, sizeof(cfg)) == 0);   /* all or nothing */
		return;
	}
	CHECK(cfg.fail[0] != VI_FAIL_NONE);
	for (unsigned i = 0; i < VI_MAX_FAIL && cfg.fail[i] != VI_FAIL_NONE; i++)
		has_shell |= cfg.fail[i] == VI_FAIL_SHELL;
	CHECK(!has_shell || p->allow_shell);
	CHECK(!o->ignore_zero_blocks || vi_policy_allows(p, VI_WEAK_IGNORE_ZERO_BLOCKS));
	CHECK(!o->check_at_most_once || vi_policy_allows(p, VI_WEAK_CHECK_AT_MOST_ONCE));
	CHECK(o->corruption != VI_CORRUPT_IGNORE || vi_policy_allows(p, VI_WEAK_IGNORE_CORRUPTION));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vi_policy p, before;
	struct vi_error err;
	int r;

	memset(&p, 0xa5, sizeof(p));
	memcpy(&before, &p, sizeof(p));
	memset(&err, 0x55, sizeof(err));
	r = vi_policy_parse((const char *)data, size, &p, &err);
	if (r < 0) {
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		CHECK(memcmp(&p, &before, sizeof(p)) == 0);
		return 0;
	}
	CHECK(size <= VI_POLICY_MAX_SIZE);
	for (size_t i = 0; i < sizeof(cmdlines) / sizeof(cmdlines[0]); i++)
		check_apply(&p, cmdlines[i]);
	return 0;
}
