// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: systemd's Discoverable Partitions verity-signature JSON (read from a
 * partition: untrusted). Oracles besides the sanitizers: the size cap holds, and an accepted
 * object has a root hash of 16..64 bytes (matched against the configured one later) and a
 * non-empty signature that fits its buffer. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dps_sig.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vi_dps_sig s;
	struct vi_error err;
	int r;

	memset(&err, 0x55, sizeof(err));
	r = vi_dps_sig_parse((const char *)data, size, &s, &err);
	if (r < 0) {
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		if (size > VI_DPS_SIG_MAX)
			CHECK(r == -E2BIG);
		return 0;
	}
	CHECK(size <= VI_DPS_SIG_MAX);
	CHECK(s.root_hash_len >= 16 && s.root_hash_len <= VERITY_MAX_DIGEST);
	CHECK(s.sig_len > 0 && s.sig_len <= sizeof(s.sig));
	return 0;
}
