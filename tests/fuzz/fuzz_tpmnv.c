// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: what the TPM answers to the rollback floor's NV commands
 * (vi_tpm_nv_public_parse, vi_tpm_nv_read_parse, vi_tpm_nv_floor_check) and the NV index syntax
 * of the policy and the status file (vi_tpm_nv_index_parse). Input: the response bytes; the
 * same bytes as the index text. Oracles besides the sanitizers:
 *  - each parser returns 0, -EPROTO or -EIO; 0 only for a response whose size field is its
 *    length, whose code is 0 and whose tag is the command's (NV_ReadPublic without sessions,
 *    NV_Read with); -EIO reports a non-zero code; outputs are untouched on failure;
 *  - a value read is the 8 bytes after the parameter size and the buffer's size;
 *  - the floor check passes only an index with exactly the floor's attributes (written and
 *    write-locked or not), never one without TPMA_NV_WRITE_STCLEAR;
 *  - an index parsed is "0x" + 8 lower-case hex digits in the owner's range. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tpmnv.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vi_tpm_nv_public pub, untouched;
	struct vi_error err = { "" };
	uint64_t v = 0x5a5a5a5a5a5a5a5aull;
	uint32_t rc = 1, u = 7, attrs;
	int r;

	memset(&pub, 0xa5, sizeof(pub));
	untouched = pub;
	r = vi_tpm_nv_public_parse(data, size, &rc, &pub, &err);
	CHECK(r == 0 || r == -EPROTO || r == -EIO);
	CHECK(memchr(err.msg, '\0', sizeof(err.msg)));
	if (r == 0) {
		CHECK(size >= 10 && be32(data + 2) == size && rc == 0);
		CHECK(data[0] == 0x80 && data[1] == 0x01);
		r = vi_tpm_nv_floor_check(&pub, pub.index, &err);
		CHECK(r == 0 || r == -EPERM);
		attrs = pub.attrs & ~(VI_TPMA_NV_WRITTEN | VI_TPMA_NV_WRITELOCKED);
		if (r == 0)
			CHECK(attrs == VI_TPM_FLOOR_ATTRS && pub.data_size == 8 && !pub.policy_size);
		/* an index that cannot be write-locked is never taken for the floor */
		if (!(attrs & VI_TPMA_NV_WRITE_STCLEAR))
			CHECK(r == -EPERM);
	} else {
		CHECK(!memcmp(&pub, &untouched, sizeof(pub)));
		if (r == -EIO)
			CHECK(rc != 0);
	}

	r = vi_tpm_nv_read_parse(data, size, &rc, &v, &err);
	CHECK(r == 0 || r == -EPROTO || r == -EIO);
	if (r == 0) {
		CHECK(size >= 29 && be32(data + 2) == size && rc == 0);
		CHECK(data[0] == 0x80 && data[1] == 0x02);
		CHECK(v == ((uint64_t)be32(data + 16) << 32 | be32(data + 20)));
	} else {
		CHECK(v == 0x5a5a5a5a5a5a5a5aull);
	}

	r = vi_tpm_nv_index_parse((const char *)data, size, &u);
	CHECK(r == 0 || r == -EINVAL);
	if (r == 0) {
		CHECK(size == 10 && data[0] == '0' && data[1] == 'x');
		for (size_t i = 2; i < 10; i++)
			CHECK((data[i] >= '0' && data[i] <= '9') || (data[i] >= 'a' && data[i] <= 'f'));
		CHECK(u >= VI_TPM_NV_OWNER_FIRST && u <= VI_TPM_NV_OWNER_LAST);
	} else {
		CHECK(u == 7);
	}
	return 0;
}
