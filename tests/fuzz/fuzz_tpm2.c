// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: what the TPM answers, through every response parser of lib/format/tpm2.c
 * (vi_tpm_response_check, vi_tpm_event_digests, vi_tpm_nv_public_parse and on its result
 * vi_tpm_nv_floor_check and vi_tpm_nvpcr_check, vi_tpm_nv_read_parse, vi_tpm_plain_response_check,
 * vi_tpm_policy_session_parse), and the NV index syntax of the policy and the
 * status file (vi_tpm_nv_index_parse). Input: the response bytes; the same bytes as the index
 * text. Oracles besides the sanitizers:
 *  - one header for every parser: each returns 0, -EPROTO or -EIO; -EIO from one is -EIO from
 *    all, with the same response code, non-zero, and a code is reported only with -EIO; 0 only
 *    for a response whose size field is its length;
 *  - the tag is the command's: the response check and NV_Read pass only a response with
 *    sessions, NV_ReadPublic only one without; outputs are untouched on failure;
 *  - digests are taken only from an answer the check accepts, 1 to VI_TPM_MAX_BANKS of them,
 *    each of a known algorithm, none twice, and the list fills the parameters exactly;
 *  - a value read is the 8 bytes after the parameter size and the buffer's size, from an answer
 *    the check accepts;
 *  - the floor check passes only an index with exactly the floor's attributes (written and
 *    write-locked or not), never one without TPMA_NV_WRITE_STCLEAR;
 *  - a public area keeps its policy and a name that ends the response (at most 66 bytes); the
 *    NvPCR check takes (1 or 0) only systemd's NvPCR attributes, sha256, 32 bytes, a 32-byte
 *    policy, and says 1 only for the agent's policy;
 *  - a bare success is exactly the 10-byte header without sessions; a session is a policy
 *    session's handle (0x03......) from an answer without sessions whose nonce ends it;
 *  - an index parsed is "0x" + 8 lower-case hex digits in the owner's range. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tpm2.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A parser's result: its code is reported with -EIO and only then; 0 and -EIO need a header
 * whose size field is the length. */
static void check_result(int r, uint32_t rc, const uint8_t *data, size_t size)
{
	CHECK(r == 0 || r == -EPROTO || r == -EIO);
	CHECK((r == -EIO) == (rc != 0));
	if (r != -EPROTO)
		CHECK(size >= 10 && be32(data + 2) == size);
}

static int digests(const uint8_t *data, size_t size, int checked)
{
	struct vi_tpm_digest ds[VI_TPM_MAX_BANKS];
	struct vi_error err = { "" };
	size_t n = 99, used = 4;
	int r = vi_tpm_event_digests(data, size, ds, &n, &err);

	CHECK(r == 0 ? checked == 0 : n == 0);
	CHECK(memchr(err.msg, '\0', sizeof(err.msg)));
	if (r == 0) {
		CHECK(n >= 1 && n <= VI_TPM_MAX_BANKS);
		for (size_t i = 0; i < n; i++) {
			CHECK(vi_tpm_alg_name(ds[i].alg));
			used += 2 + vi_tpm_alg_size(ds[i].alg);
			for (size_t j = 0; j < i; j++)
				CHECK(ds[j].alg != ds[i].alg);
		}
		CHECK(be32(data + 10) == used);
	}
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vi_tpm_nv_public pub, untouched;
	struct vi_error err = { "" };
	uint64_t v = 0x5a5a5a5a5a5a5a5aull;
	uint32_t rc_check = 1, rc_public = 1, rc_read = 1, rc_plain = 1, rc_session = 1, u = 7;
	uint32_t attrs, session = 0x5a5a5a5a;
	int r_check, r_digests, r_public, r_read, r_plain, r_session, r;

	r_check = vi_tpm_response_check(data, size, &rc_check, &err);
	check_result(r_check, rc_check, data, size);
	CHECK(memchr(err.msg, '\0', sizeof(err.msg)));
	if (r_check == 0)
		CHECK(data[0] == 0x80 && data[1] == 0x02);

	r_digests = digests(data, size, r_check);

	memset(&pub, 0xa5, sizeof(pub));
	untouched = pub;
	r_public = vi_tpm_nv_public_parse(data, size, &rc_public, &pub, &err);
	check_result(r_public, rc_public, data, size);
	if (r_public == 0) {
		CHECK(data[0] == 0x80 && data[1] == 0x01);
		r = vi_tpm_nv_floor_check(&pub, pub.index, &err);
		CHECK(r == 0 || r == -EPERM);
		attrs = pub.attrs & ~(VI_TPMA_NV_WRITTEN | VI_TPMA_NV_WRITELOCKED);
		if (r == 0)
			CHECK(attrs == VI_TPM_FLOOR_ATTRS && pub.data_size == 8 && !pub.policy_size);
		/* an index that cannot be write-locked is never taken for the floor */
		if (!(attrs & VI_TPMA_NV_WRITE_STCLEAR))
			CHECK(r == -EPERM);
		CHECK(pub.name_size <= sizeof(pub.name) && pub.policy_size <= sizeof(pub.policy));
		CHECK(size == 10u + 2u + 14u + pub.policy_size + 2u + pub.name_size);
		CHECK(!memcmp(pub.policy, data + 24, pub.policy_size));
		CHECK(!memcmp(pub.name, data + size - pub.name_size, pub.name_size));
		r = vi_tpm_nvpcr_check(&pub, pub.index, &err);
		CHECK(r == 1 || r == 0 || r == -EPERM);
		if (r >= 0)
			CHECK((pub.attrs & ~VI_TPMA_NV_WRITTEN) == VI_TPM_NVPCR_ATTRS &&
			      pub.name_alg == VI_TPM_ALG_SHA256 && pub.data_size == 32 &&
			      pub.policy_size == 32);
		if (r == 1)
			CHECK(!memcmp(pub.policy, vi_tpm_nvpcr_policy()->policy, 32));
	} else {
		CHECK(!memcmp(&pub, &untouched, sizeof(pub)));
	}

	r_read = vi_tpm_nv_read_parse(data, size, &rc_read, &v, &err);
	check_result(r_read, rc_read, data, size);
	if (r_read == 0) {
		CHECK(size >= 29 && r_check == 0);
		CHECK(v == ((uint64_t)be32(data + 16) << 32 | be32(data + 20)));
	} else {
		CHECK(v == 0x5a5a5a5a5a5a5a5aull);
	}

	r_plain = vi_tpm_plain_response_check(data, size, &rc_plain, &err);
	check_result(r_plain, rc_plain, data, size);
	if (r_plain == 0)
		CHECK(size == 10 && data[0] == 0x80 && data[1] == 0x01);

	r_session = vi_tpm_policy_session_parse(data, size, &rc_session, &session, &err);
	check_result(r_session, rc_session, data, size);
	if (r_session == 0)
		CHECK(data[0] == 0x80 && data[1] == 0x01 && size >= 16 && session >> 24 == 0x03 &&
		      session == be32(data + 10) && size == 16u + (data[14] << 8 | data[15]));
	else
		CHECK(session == 0x5a5a5a5a);

	/* the header is read once, the same way, for every command */
	CHECK((r_check == -EIO) == (r_public == -EIO) && (r_check == -EIO) == (r_read == -EIO) &&
	      (r_check == -EIO) == (r_digests == -EIO) && (r_check == -EIO) == (r_plain == -EIO) &&
	      (r_check == -EIO) == (r_session == -EIO));
	CHECK(rc_check == rc_public && rc_check == rc_read && rc_check == rc_plain &&
	      rc_check == rc_session);

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
