// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the signed manifest (include/manifest.h). The parser runs before the
 * signature is checked only in tests, but it must hold on any bytes: the agent reads the file
 * from a disk. Oracles besides the sanitizers:
 *  - *ret untouched on failure;
 *  - an accepted manifest formats canonically, and the canonical text parses to a manifest that
 *    formats to the same bytes (a fixpoint: no two texts the signer could confuse);
 *  - the accepted manifest applies to a target the command line left empty. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "manifest.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vi_manifest m, m2, before;
	static char out[VI_MANIFEST_MAX * 2], again[VI_MANIFEST_MAX * 2];
	static struct vi_config cfg;
	struct vi_error err;
	size_t n, n2;
	int r;

	memset(&m, 0xa5, sizeof(m));
	memcpy(&before, &m, sizeof(m));
	memset(&err, 0x55, sizeof(err));
	r = vi_manifest_parse((const char *)data, size, &m, &err);
	if (r < 0) {
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		CHECK(memcmp(&m, &before, sizeof(m)) == 0);
		CHECK(size <= VI_MANIFEST_MAX || r == -E2BIG);
		return 0;
	}
	CHECK(size <= VI_MANIFEST_MAX);
	CHECK(m.version >= 1);
	CHECK(m.root_hash_len == vi_digest_size(m.params.hash_name));

	CHECK(vi_manifest_format(&m, out, sizeof(out), &n, &err) == 0);
	CHECK(n == strlen(out));
	CHECK(vi_manifest_parse(out, n, &m2, &err) == 0);
	CHECK(vi_manifest_format(&m2, again, sizeof(again), &n2, &err) == 0);
	CHECK(n2 == n && memcmp(out, again, n) == 0);

	vi_config_init(&cfg);
	CHECK(vi_manifest_apply(&m, &cfg.root, &err) == 0);
	CHECK(cfg.root.enabled);
	CHECK(cfg.root.root_hash_len == m.root_hash_len);
	CHECK(memcmp(cfg.root.root_hash, m.root_hash, m.root_hash_len) == 0);
	return 0;
}
