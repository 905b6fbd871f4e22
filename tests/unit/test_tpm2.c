// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/format/tpm2.c: the PCR_Event command and the rollback floor's NV counter commands byte for
 * byte, their responses parsed and refused (the response check, the digests the TPM answers, an
 * NV index's public area and a counter's value), the check that an index is the floor's; systemd's
 * verity NvPCR: its write policy's digests, NV_DefineSpace, NV_UndefineSpace, StartAuthSession,
 * PolicyNvWritten, PolicyOR and NV_Extend byte for byte, their answers, the NvPCR check. Against
 * a real (emulated) TPM: tests/vm/tpm_measure_test.sh and tests/vm/slot_tpm_floor_test.sh. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "digest.h"
#include "tpm2.h"

static void test_event_command_bytes(void **state)
{
	static const uint8_t head[] = {
		0x80, 0x02, 0, 0, 0, 32,                /* TPM_ST_SESSIONS, size */
		0x00, 0x00, 0x01, 0x3c,                 /* TPM_CC_PCR_Event */
		0x00, 0x00, 0x00, 0x0e,                 /* PCR 14 */
		0x00, 0x00, 0x00, 0x09,                 /* authorization size */
		0x40, 0x00, 0x00, 0x09, 0, 0, 0, 0, 0,  /* TPM_RS_PW, no nonce, no password */
		0x00, 0x03, 'a', 'b', 'c',              /* TPM2B_EVENT */
	};
	static char big[VI_TPM_EVENT_MAX + 1];
	uint8_t buf[VI_TPM_CMD_MAX];
	struct vi_error err = { "" };

	(void)state;
	assert_int_equal(vi_tpm_event_command(14, "abc", 3, buf, sizeof(buf), &err), 32);
	assert_memory_equal(buf, head, sizeof(head));
	memset(big, 'x', sizeof(big));
	assert_int_equal(vi_tpm_event_command(14, big, VI_TPM_EVENT_MAX, buf, sizeof(buf), &err),
			 (int)sizeof(buf));
	/* refusals */
	assert_int_equal(vi_tpm_event_command(14, big, sizeof(big), buf, sizeof(buf), &err),
			 -ENOBUFS);
	assert_int_equal(vi_tpm_event_command(24, "abc", 3, buf, sizeof(buf), &err), -EINVAL);
	assert_int_equal(vi_tpm_event_command(14, "", 0, buf, sizeof(buf), &err), -EINVAL);
	assert_int_equal(vi_tpm_event_command(14, "abc", 3, buf, 31, &err), -ENOBUFS);
}

/* A PCR_Event answer: header, parameter size, the digest list, the password session's answer. */
static size_t event_response(uint8_t *p, const uint16_t *algs, size_t n, uint32_t extra)
{
	size_t len = 14 + 4, params;

	memcpy(p, (const uint8_t[]){ 0x80, 0x02, 0, 0, 0, 0, 0, 0, 0, 0 }, 10);
	p[14] = p[15] = p[16] = 0;
	p[17] = (uint8_t)n;
	for (size_t i = 0; i < n; i++) {
		p[len] = (uint8_t)(algs[i] >> 8);
		p[len + 1] = (uint8_t)algs[i];
		memset(p + len + 2, (int)(0x10 + i), vi_tpm_alg_size(algs[i]) ?
		       vi_tpm_alg_size(algs[i]) : 32);
		len += 2 + (vi_tpm_alg_size(algs[i]) ? vi_tpm_alg_size(algs[i]) : 32);
	}
	params = len - 14 + extra;
	p[10] = 0;
	p[11] = 0;
	p[12] = (uint8_t)(params >> 8);
	p[13] = (uint8_t)params;
	memset(p + len, 0, extra);
	len += extra;
	memcpy(p + len, (const uint8_t[]){ 0, 0, 1, 0, 0 }, 5);
	len += 5;
	p[4] = (uint8_t)(len >> 8);
	p[5] = (uint8_t)len;
	return len;
}

static void test_event_response_digests(void **state)
{
	static const uint16_t four[] = { VI_TPM_ALG_SHA1, VI_TPM_ALG_SHA256, VI_TPM_ALG_SHA384,
					 VI_TPM_ALG_SHA512 };
	static const uint16_t twice[] = { VI_TPM_ALG_SHA256, VI_TPM_ALG_SHA256 };
	static const uint16_t unknown[] = { VI_TPM_ALG_SHA256, 0x0099 };
	static const uint16_t sm3[] = { VI_TPM_ALG_SM3_256 };
	struct vi_tpm_digest d[VI_TPM_MAX_BANKS];
	struct vi_error err = { "" };
	uint8_t rsp[1024];
	size_t len, n = 9;

	(void)state;
	len = event_response(rsp, four, 4, 0);
	assert_int_equal(vi_tpm_event_digests(rsp, len, d, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_int_equal(d[0].alg, VI_TPM_ALG_SHA1);
	assert_int_equal(d[3].alg, VI_TPM_ALG_SHA512);
	assert_int_equal(d[1].value[31], 0x11);
	assert_int_equal(d[3].value[63], 0x13);
	/* an SM3 bank is the TPM's to hash: it is logged like the others */
	len = event_response(rsp, sm3, 1, 0);
	assert_int_equal(vi_tpm_event_digests(rsp, len, d, &n, &err), 0);
	assert_string_equal(vi_tpm_alg_name(d[0].alg), "sm3_256");
	/* malformed: one algorithm twice, one of unknown size, bytes after the list, the list cut
	 * short, no digest at all, a parameter size past the session's answer */
	len = event_response(rsp, twice, 2, 0);
	assert_int_equal(vi_tpm_event_digests(rsp, len, d, &n, &err), -EPROTO);
	assert_int_equal(n, 0);
	len = event_response(rsp, unknown, 2, 0);
	assert_int_equal(vi_tpm_event_digests(rsp, len, d, &n, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "0x0099"));
	len = event_response(rsp, four, 2, 1);
	assert_int_equal(vi_tpm_event_digests(rsp, len, d, &n, &err), -EPROTO);
	len = event_response(rsp, four, 2, 0);
	rsp[17] = 3;
	assert_int_equal(vi_tpm_event_digests(rsp, len, d, &n, &err), -EPROTO);
	len = event_response(rsp, four, 0, 0);
	assert_int_equal(vi_tpm_event_digests(rsp, len, d, &n, &err), -EPROTO);
	len = event_response(rsp, four, 1, 0);
	rsp[13] += 3;
	assert_int_equal(vi_tpm_event_digests(rsp, len, d, &n, &err), -EPROTO);
	/* an error code is the response check's */
	len = event_response(rsp, four, 1, 0);
	rsp[9] = 0x22;
	assert_int_equal(vi_tpm_event_digests(rsp, len, d, &n, &err), -EIO);
}

static void test_response_check(void **state)
{
	uint8_t ok[] = { 0x80, 0x02, 0, 0, 0, 19, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0 };
	uint8_t bad[] = { 0x80, 0x01, 0, 0, 0, 10, 0, 0, 0x09, 0x22 };
	struct vi_error err = { "" };
	uint32_t rc = 7;

	(void)state;
	assert_int_equal(vi_tpm_response_check(ok, sizeof(ok), &rc, &err), 0);
	assert_int_equal(rc, 0);
	assert_int_equal(vi_tpm_response_check(bad, sizeof(bad), &rc, &err), -EIO);
	assert_int_equal(rc, 0x922);
	assert_non_null(strstr(err.msg, "0x00000922"));
	/* success must carry the session's answer: a bare 10-byte "success", or one tagged as
	 * without sessions, is not an answer to this command */
	{
		uint8_t bare[] = { 0x80, 0x02, 0, 0, 0, 10, 0, 0, 0, 0 };
		uint8_t nosess[] = { 0x80, 0x01, 0, 0, 0, 19, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0 };

		assert_int_equal(vi_tpm_response_check(bare, sizeof(bare), &rc, &err), -EPROTO);
		assert_int_equal(vi_tpm_response_check(nosess, sizeof(nosess), &rc, &err), -EPROTO);
	}
	/* malformed: short, size field not the length, unknown tag */
	assert_int_equal(vi_tpm_response_check(ok, 9, &rc, &err), -EPROTO);
	assert_int_equal(vi_tpm_response_check(ok, sizeof(ok) - 1, &rc, &err), -EPROTO);
	ok[1] = 0x03;
	assert_int_equal(vi_tpm_response_check(ok, sizeof(ok), &rc, &err), -EPROTO);
}

#define IDX 0x01, 0x00, 0x56, 0x49   /* VI_TPM_FLOOR_NV_DEFAULT */
#define PW_SESSION 0x00, 0x00, 0x00, 0x09, 0x40, 0x00, 0x00, 0x09, 0, 0, 0, 0, 0

static void test_command_bytes(void **state)
{
	static const uint8_t read_public[] = {
		0x80, 0x01, 0, 0, 0, 14, 0x00, 0x00, 0x01, 0x69, IDX,
	};
	static const uint8_t read[] = {
		0x80, 0x02, 0, 0, 0, 35, 0x00, 0x00, 0x01, 0x4e,
		IDX, IDX,                /* authHandle: the index itself, then the index */
		PW_SESSION,
		0x00, 0x08, 0x00, 0x00,  /* 8 bytes from offset 0 */
	};
	static const uint8_t increment[] = {
		0x80, 0x02, 0, 0, 0, 31, 0x00, 0x00, 0x01, 0x34, IDX, IDX, PW_SESSION,
	};
	static const uint8_t define[] = {
		0x80, 0x02, 0, 0, 0, 45, 0x00, 0x00, 0x01, 0x2a,
		0x40, 0x00, 0x00, 0x01,  /* TPM_RH_OWNER */
		PW_SESSION,
		0x00, 0x00,              /* the index's authValue: empty */
		0x00, 0x0e, IDX,         /* TPM2B_NV_PUBLIC of 14 bytes */
		0x00, 0x0b,              /* nameAlg sha256 */
		0x02, 0x04, 0x40, 0x14,  /* NO_DA | AUTHREAD | WRITE_STCLEAR | TPM_NT_COUNTER |
		                          * AUTHWRITE */
		0x00, 0x00,              /* no authPolicy */
		0x00, 0x08,              /* dataSize */
	};
	static const uint8_t write_lock[] = {
		0x80, 0x02, 0, 0, 0, 31, 0x00, 0x00, 0x01, 0x38,
		IDX, IDX,                /* authHandle: the index itself (AUTHWRITE), the index */
		PW_SESSION,
	};
	uint8_t buf[VI_TPM_NV_CMD_MAX];
	struct vi_error err = { "" };

	(void)state;
	assert_int_equal(vi_tpm_nv_write_lock_command(VI_TPM_FLOOR_NV_DEFAULT, buf, sizeof(buf),
						      &err), sizeof(write_lock));
	assert_memory_equal(buf, write_lock, sizeof(write_lock));
	assert_int_equal(vi_tpm_nv_write_lock_command(VI_TPM_FLOOR_NV_DEFAULT, buf, 30, &err),
			 -ENOBUFS);
	assert_int_equal(vi_tpm_nv_read_public_command(VI_TPM_FLOOR_NV_DEFAULT, buf, sizeof(buf),
						       &err), sizeof(read_public));
	assert_memory_equal(buf, read_public, sizeof(read_public));
	assert_int_equal(vi_tpm_nv_read_command(VI_TPM_FLOOR_NV_DEFAULT, buf, sizeof(buf), &err),
			 sizeof(read));
	assert_memory_equal(buf, read, sizeof(read));
	assert_int_equal(vi_tpm_nv_increment_command(VI_TPM_FLOOR_NV_DEFAULT, buf, sizeof(buf),
						     &err), sizeof(increment));
	assert_memory_equal(buf, increment, sizeof(increment));
	assert_int_equal(vi_tpm_nv_define_floor_command(VI_TPM_FLOOR_NV_DEFAULT, buf, sizeof(buf),
							&err), sizeof(define));
	assert_memory_equal(buf, define, sizeof(define));
	/* no room */
	assert_int_equal(vi_tpm_nv_define_floor_command(VI_TPM_FLOOR_NV_DEFAULT, buf, 44, &err),
			 -ENOBUFS);
	assert_int_equal(vi_tpm_nv_read_command(VI_TPM_FLOOR_NV_DEFAULT, buf, 34, &err), -ENOBUFS);
	assert_int_equal(vi_tpm_nv_read_public_command(VI_TPM_FLOOR_NV_DEFAULT, buf, 13, &err),
			 -ENOBUFS);
}

/* NV_ReadPublic's answer for the floor's counter, already incremented (TPMA_NV_WRITTEN). */
static const uint8_t public_ok[] = {
	0x80, 0x01, 0, 0, 0, 62, 0, 0, 0, 0,
	0x00, 0x0e, IDX, 0x00, 0x0b, 0x22, 0x04, 0x40, 0x14, 0x00, 0x00, 0x00, 0x08,
	0x00, 0x22, 0x00, 0x0b,
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
};

static void test_public_parse(void **state)
{
	struct vi_tpm_nv_public pub = { 0 };
	struct vi_error err = { "" };
	uint8_t b[sizeof(public_ok) + 1];
	uint32_t rc = 7;

	(void)state;
	assert_int_equal(vi_tpm_nv_public_parse(public_ok, sizeof(public_ok), &rc, &pub, &err), 0);
	assert_int_equal(rc, 0);
	assert_int_equal(pub.index, VI_TPM_FLOOR_NV_DEFAULT);
	assert_int_equal(pub.name_alg, VI_TPM_ALG_SHA256);
	assert_int_equal(pub.attrs, VI_TPM_FLOOR_ATTRS | VI_TPMA_NV_WRITTEN);
	assert_int_equal(pub.data_size, 8);
	assert_int_equal(vi_tpm_nv_floor_check(&pub, VI_TPM_FLOOR_NV_DEFAULT, &err), 0);
	/* write-locked in this boot (TPMA_NV_WRITELOCKED): still the floor's */
	memcpy(b, public_ok, sizeof(public_ok));
	b[20] |= 0x08;
	assert_int_equal(vi_tpm_nv_public_parse(b, sizeof(public_ok), &rc, &pub, &err), 0);
	assert_int_equal(pub.attrs, 0x22044814u);
	assert_int_equal(vi_tpm_nv_floor_check(&pub, VI_TPM_FLOOR_NV_DEFAULT, &err), 0);

	/* an index that does not exist: TPM_RC_HANDLE for handle 1 */
	{
		static const uint8_t none[] = { 0x80, 0x01, 0, 0, 0, 10, 0, 0, 0x01, 0x8b };

		assert_int_equal(vi_tpm_nv_public_parse(none, sizeof(none), &rc, &pub, &err), -EIO);
		assert_int_equal(rc, 0x18b);
		assert_true(vi_tpm_rc_no_index(rc));
		assert_false(vi_tpm_rc_no_index(0x14a));
		assert_false(vi_tpm_rc_no_index(0x1cb));   /* TPM_RC_VALUE for a parameter */
		assert_false(vi_tpm_rc_no_index(0x98b));   /* TPM_RC_HANDLE for session 1 */
		assert_false(vi_tpm_rc_no_index(0x922));   /* TPM_RC_RETRY */
	}
	/* one byte more, one less, the name's size off by one, the public area's size off by
	 * one, a policy larger than any digest, the tag of a command with sessions */
	memcpy(b, public_ok, sizeof(public_ok));
	b[5] = sizeof(b);
	b[sizeof(public_ok)] = 0;
	assert_int_equal(vi_tpm_nv_public_parse(b, sizeof(b), &rc, &pub, &err), -EPROTO);
	memcpy(b, public_ok, sizeof(public_ok));
	b[5]--;
	assert_int_equal(vi_tpm_nv_public_parse(b, sizeof(public_ok) - 1, &rc, &pub, &err),
			 -EPROTO);
	memcpy(b, public_ok, sizeof(public_ok));
	b[27]++;
	assert_int_equal(vi_tpm_nv_public_parse(b, sizeof(public_ok), &rc, &pub, &err), -EPROTO);
	memcpy(b, public_ok, sizeof(public_ok));
	b[11]--;
	assert_int_equal(vi_tpm_nv_public_parse(b, sizeof(public_ok), &rc, &pub, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "says it has 13"));
	memcpy(b, public_ok, sizeof(public_ok));
	b[22] = 0x41;
	assert_int_equal(vi_tpm_nv_public_parse(b, sizeof(public_ok), &rc, &pub, &err), -EPROTO);
	memcpy(b, public_ok, sizeof(public_ok));
	b[1] = 0x02;
	assert_int_equal(vi_tpm_nv_public_parse(b, sizeof(public_ok), &rc, &pub, &err), -EPROTO);
	assert_int_equal(vi_tpm_nv_public_parse(public_ok, 9, &rc, &pub, &err), -EPROTO);
}

static void test_floor_check_refuses_other_indexes(void **state)
{
	const struct vi_tpm_nv_public ok = { .index = VI_TPM_FLOOR_NV_DEFAULT,
					     .name_alg = VI_TPM_ALG_SHA256,
					     .attrs = VI_TPM_FLOOR_ATTRS, .data_size = 8 };
	struct vi_tpm_nv_public p;
	struct vi_error err = { "" };

	(void)state;
	assert_int_equal(vi_tpm_nv_floor_check(&ok, VI_TPM_FLOOR_NV_DEFAULT, &err), 0);
	assert_int_equal(VI_TPM_FLOOR_ATTRS, 0x02044014u);
	/* the floor's counter as defined before it could be locked: the running system could
	 * raise it; refused with how to define it again */
	p = ok;
	p.attrs = 0x02040014u | VI_TPMA_NV_WRITTEN;
	assert_int_equal(vi_tpm_nv_floor_check(&p, VI_TPM_FLOOR_NV_DEFAULT, &err), -EPERM);
	assert_string_equal(err.msg, "TPM NV counter 0x01005649 cannot be write-locked "
			    "(attributes 0x22040014): undefine it (tpm2_nvundefine 0x01005649 -C "
			    "o), the next boot defines it again");
	/* written and locked: the floor's */
	p = ok;
	p.attrs |= VI_TPMA_NV_WRITTEN | VI_TPMA_NV_WRITELOCKED;
	assert_int_equal(vi_tpm_nv_floor_check(&p, VI_TPM_FLOOR_NV_DEFAULT, &err), 0);
	/* an ordinary index (type 0) whoever knows its password can write downwards */
	p = ok;
	p.attrs &= ~VI_TPMA_NV_TPM_NT_COUNTER;
	assert_int_equal(vi_tpm_nv_floor_check(&p, VI_TPM_FLOOR_NV_DEFAULT, &err), -EPERM);
	assert_non_null(strstr(err.msg, "is not a counter (type 0)"));
	/* a counter with the platform's or a policy's say over it, or another shape */
	p = ok;
	p.attrs |= 0x40000000u;   /* TPMA_NV_PLATFORMCREATE */
	assert_int_equal(vi_tpm_nv_floor_check(&p, VI_TPM_FLOOR_NV_DEFAULT, &err), -EPERM);
	assert_non_null(strstr(err.msg, "is not the floor's"));
	p = ok;
	p.attrs |= 0x00000400u;   /* TPMA_NV_POLICY_DELETE */
	assert_int_equal(vi_tpm_nv_floor_check(&p, VI_TPM_FLOOR_NV_DEFAULT, &err), -EPERM);
	p = ok;
	p.policy_size = 32;
	assert_int_equal(vi_tpm_nv_floor_check(&p, VI_TPM_FLOOR_NV_DEFAULT, &err), -EPERM);
	p = ok;
	p.name_alg = VI_TPM_ALG_SHA1;
	assert_int_equal(vi_tpm_nv_floor_check(&p, VI_TPM_FLOOR_NV_DEFAULT, &err), -EPERM);
	assert_int_equal(vi_tpm_nv_floor_check(&ok, 0x01000001u, &err), -EPERM);
	assert_non_null(strstr(err.msg, "answered for NV index 0x01005649, not 0x01000001"));
}

static void test_read_parse(void **state)
{
	static const uint8_t ok[] = {
		0x80, 0x02, 0, 0, 0, 29, 0, 0, 0, 0,
		0, 0, 0, 10, 0x00, 0x08, 0, 0, 0, 1, 0, 0, 0, 2,
		0x00, 0x00, 0x01, 0x00, 0x00,   /* session: no nonce, continueSession, no hmac */
	};
	static const uint8_t uninitialized[] = { 0x80, 0x02, 0, 0, 0, 10, 0, 0, 0x01, 0x4a };
	struct vi_error err = { "" };
	uint8_t b[sizeof(ok)];
	uint64_t v = 0;
	uint32_t rc;

	(void)state;
	assert_int_equal(vi_tpm_nv_read_parse(ok, sizeof(ok), &rc, &v, &err), 0);
	assert_true(v == 0x0000000100000002ull);
	assert_int_equal(vi_tpm_nv_read_parse(uninitialized, sizeof(uninitialized), &rc, &v, &err),
			 -EIO);
	assert_int_equal(rc, VI_TPM_RC_NV_UNINITIALIZED);
	/* 4 data bytes where a counter has 8; the session cut short; a nonce that runs past
	 * the end; the tag of a command without sessions */
	memcpy(b, ok, sizeof(ok));
	b[15] = 4;
	assert_int_equal(vi_tpm_nv_read_parse(b, sizeof(b), &rc, &v, &err), -EPROTO);
	memcpy(b, ok, sizeof(ok));
	b[5] = 28;
	assert_int_equal(vi_tpm_nv_read_parse(b, 28, &rc, &v, &err), -EPROTO);
	memcpy(b, ok, sizeof(ok));
	b[25] = 1;
	assert_int_equal(vi_tpm_nv_read_parse(b, sizeof(b), &rc, &v, &err), -EPROTO);
	memcpy(b, ok, sizeof(ok));
	b[1] = 0x01;
	assert_int_equal(vi_tpm_nv_read_parse(b, sizeof(b), &rc, &v, &err), -EPROTO);
	assert_true(v == 0x0000000100000002ull);   /* untouched on failure */
}

/* One header for every response: an error code, a size field that is not the length, an unknown
 * tag are the same refusal, whatever the command. */
static void test_one_header_for_every_response(void **state)
{
	static const uint8_t refused[] = { 0x80, 0x01, 0, 0, 0, 10, 0, 0, 0x09, 0x22 };
	static const uint8_t bad[][10] = {
		{ 0x80, 0x02, 0, 0, 0, 11, 0, 0, 0, 0 },   /* says 11 bytes */
		{ 0x80, 0x03, 0, 0, 0, 10, 0, 0, 0, 0 },   /* no such tag */
	};
	struct vi_tpm_nv_public pub = { 0 };
	struct vi_tpm_digest d[VI_TPM_MAX_BANKS];
	struct vi_error err = { "" };
	uint64_t v = 0;
	uint32_t rc;
	size_t n;

	(void)state;
	rc = 0;
	assert_int_equal(vi_tpm_response_check(refused, sizeof(refused), &rc, &err), -EIO);
	assert_int_equal(rc, 0x922);
	assert_int_equal(vi_tpm_event_digests(refused, sizeof(refused), d, &n, &err), -EIO);
	assert_string_equal(err.msg, "TPM refused the command: response code 0x00000922");
	rc = 0;
	assert_int_equal(vi_tpm_nv_public_parse(refused, sizeof(refused), &rc, &pub, &err), -EIO);
	assert_int_equal(rc, 0x922);
	rc = 0;
	assert_int_equal(vi_tpm_nv_read_parse(refused, sizeof(refused), &rc, &v, &err), -EIO);
	assert_int_equal(rc, 0x922);
	assert_string_equal(err.msg, "TPM refused the command: response code 0x00000922");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char msg[sizeof(err.msg)];

		assert_int_equal(vi_tpm_response_check(bad[i], 10, &rc, &err), -EPROTO);
		assert_int_equal(rc, 0);
		memcpy(msg, err.msg, sizeof(msg));
		assert_int_equal(vi_tpm_event_digests(bad[i], 10, d, &n, &err), -EPROTO);
		assert_string_equal(err.msg, msg);
		assert_int_equal(vi_tpm_nv_public_parse(bad[i], 10, &rc, &pub, &err), -EPROTO);
		assert_string_equal(err.msg, msg);
		assert_int_equal(vi_tpm_nv_read_parse(bad[i], 10, &rc, &v, &err), -EPROTO);
		assert_string_equal(err.msg, msg);
		assert_int_equal(rc, 0);
	}
}


/* SHA-256 of the n bytes at p, OpenSSL's. */
static void sha256(const void *p, size_t n, uint8_t out[32])
{
	struct vi_digest_ctx *c = NULL;

	assert_int_equal(vi_digest_openssl_ops.new_ctx("sha256", &c), 0);
	assert_int_equal(vi_digest_openssl_ops.update(c, p, n), 0);
	assert_int_equal(vi_digest_openssl_ops.final(c, out, 32), 0);
	vi_digest_openssl_ops.free(c);
}

/* The policy digests recomputed (Part 3: PolicyNvWritten extends the session's digest with its
 * command code and writtenSet, PolicyOR resets it and extends with the code and the branches),
 * and held against what systemd 262 logs for its own ("PolicyNvWritten calculated digest:
 * f7887d15...", and its PolicyOR of its PolicyAuthorize branch 6b6ad3b5... and that one:
 * 349c99bc..., the authPolicy of the index it defined). */
static void test_nvpcr_policy_digests(void **state)
{
	static const uint8_t sd_written[32] = {
		0xf7, 0x88, 0x7d, 0x15, 0x8a, 0xe8, 0xd3, 0x8b, 0xe0, 0xac, 0x53, 0x19, 0xf3, 0x7a,
		0x9e, 0x07, 0x61, 0x8b, 0xf5, 0x48, 0x85, 0x45, 0x3c, 0x7a, 0x54, 0xdd, 0xb0, 0xc6,
		0xa6, 0x19, 0x3b, 0xeb };
	static const uint8_t sd_branch0[32] = {
		0x6b, 0x6a, 0xd3, 0xb5, 0x03, 0xa1, 0x6b, 0x36, 0xc6, 0x54, 0x54, 0xdf, 0x5c, 0xb5,
		0xe3, 0xcd, 0xd0, 0x01, 0x1e, 0x03, 0xcc, 0x7f, 0x3d, 0x3e, 0x93, 0xf4, 0x7a, 0xc3,
		0x1f, 0x5d, 0x31, 0x9b };
	static const uint8_t sd_policy[32] = {
		0x34, 0x9c, 0x99, 0xbc, 0xab, 0x86, 0x71, 0x39, 0x0d, 0x95, 0xa7, 0xa8, 0x8e, 0x45,
		0x5b, 0x4c, 0xc5, 0x5f, 0xe9, 0x37, 0x67, 0x25, 0x9a, 0x3e, 0xce, 0x98, 0x33, 0xe7,
		0x02, 0x30, 0x48, 0x27 };
	const struct vi_tpm_nvpcr_policy *p = vi_tpm_nvpcr_policy();
	uint8_t in[32 + 4 + 64] = { 0 }, d[32];

	(void)state;
	memcpy(in + 32, (const uint8_t[]){ 0x00, 0x00, 0x01, 0x8f, 0x01 }, 5);
	sha256(in, 37, d);
	assert_memory_equal(d, p->written, 32);
	assert_memory_equal(d, sd_written, 32);
	in[36] = 0x00;
	sha256(in, 37, d);
	assert_memory_equal(d, p->first, 32);
	memcpy(in + 32, (const uint8_t[]){ 0x00, 0x00, 0x01, 0x71 }, 4);
	memcpy(in + 36, p->first, 32);
	memcpy(in + 68, p->written, 32);
	sha256(in, sizeof(in), d);
	assert_memory_equal(d, p->policy, 32);
	/* the same OR over systemd's own first branch gives its index's policy */
	memcpy(in + 36, sd_branch0, 32);
	sha256(in, sizeof(in), d);
	assert_memory_equal(d, sd_policy, 32);
}

/* Each command as the agent sent it to swtpm, byte for byte (answered TPM_RC_SUCCESS there,
 * tests/vm/tpm_measure_test.sh). */
static void test_nvpcr_command_bytes(void **state)
{
	const struct vi_tpm_nvpcr_policy *p = vi_tpm_nvpcr_policy();
	static const uint8_t define_head[] = {
		0x80, 0x02, 0, 0, 0, 0x4d, 0x00, 0x00, 0x01, 0x2a,   /* 77 bytes, NV_DefineSpace */
		0x40, 0x00, 0x00, 0x01,                     /* TPM_RH_OWNER */
		0x00, 0x00, 0x00, 0x09, 0x40, 0x00, 0x00, 0x09, 0, 0, 0, 0, 0,
		0x00, 0x00,                                 /* TPM2B_AUTH: empty */
		0x00, 0x2e,                                 /* TPM2B_NV_PUBLIC: 46 bytes */
		0x01, 0xd1, 0x02, 0x02, 0x00, 0x0b,         /* 0x01d10202, sha256 */
		0x0c, 0x06, 0x00, 0x48,                     /* systemd's NvPCR attributes */
		0x00, 0x20,                                 /* authPolicy: 32 bytes ... */
	};
	static const uint8_t undefine[] = {
		0x80, 0x02, 0, 0, 0, 0x1f, 0x00, 0x00, 0x01, 0x22, 0x40, 0x00, 0x00, 0x01,
		0x01, 0xd1, 0x02, 0x02, 0x00, 0x00, 0x00, 0x09, 0x40, 0x00, 0x00, 0x09, 0, 0, 0, 0,
		0 };
	static const uint8_t nonce[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	static const uint8_t session[] = {
		0x80, 0x01, 0, 0, 0, 0x2b, 0x00, 0x00, 0x01, 0x76,
		0x40, 0x00, 0x00, 0x07, 0x40, 0x00, 0x00, 0x07,   /* tpmKey, bind: TPM_RH_NULL */
		0x00, 0x10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
		0x00, 0x00,                                 /* encryptedSalt */
		0x01,                                       /* TPM_SE_POLICY */
		0x00, 0x10,                                 /* symmetric: TPM_ALG_NULL */
		0x00, 0x0b };                               /* authHash: sha256 */
	static const uint8_t written[] = {
		0x80, 0x01, 0, 0, 0, 0x0f, 0x00, 0x00, 0x01, 0x8f, 0x03, 0x00, 0x00, 0x00, 0x01 };
	static const uint8_t or_head[] = {
		0x80, 0x01, 0, 0, 0, 0x56, 0x00, 0x00, 0x01, 0x71, 0x03, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x02, 0x00, 0x20 };
	static const uint8_t extend_head[] = {
		0x80, 0x02, 0, 0, 0, 0x41, 0x00, 0x00, 0x01, 0x36,
		0x01, 0xd1, 0x02, 0x02, 0x01, 0xd1, 0x02, 0x02,   /* authHandle, nvIndex */
		0x00, 0x00, 0x00, 0x09, 0x03, 0x00, 0x00, 0x00,   /* the policy session */
		0x00, 0x00, 0x00, 0x00, 0x00,               /* no nonce, attributes 0, no hmac */
		0x00, 0x20 };
	uint8_t buf[VI_TPM_NV_CMD_MAX], data[64];
	struct vi_error err = { "" };

	(void)state;
	assert_int_equal(vi_tpm_nv_define_nvpcr_command(VI_TPM_NVPCR_VERITY, buf, sizeof(buf), &err),
			 77);
	assert_memory_equal(buf, define_head, sizeof(define_head));
	assert_memory_equal(buf + sizeof(define_head), p->policy, 32);
	assert_int_equal(buf[75] << 8 | buf[76], 32);   /* dataSize */
	assert_int_equal(vi_tpm_nv_define_nvpcr_command(VI_TPM_NVPCR_VERITY, buf, 76, &err),
			 -ENOBUFS);
	assert_int_equal(vi_tpm_nv_undefine_command(VI_TPM_NVPCR_VERITY, buf, sizeof(buf), &err),
			 (int)sizeof(undefine));
	assert_memory_equal(buf, undefine, sizeof(undefine));
	assert_int_equal(vi_tpm_policy_session_command(nonce, buf, sizeof(buf), &err),
			 (int)sizeof(session));
	assert_memory_equal(buf, session, sizeof(session));
	assert_int_equal(vi_tpm_policy_nv_written_command(0x03000000, true, buf, sizeof(buf), &err),
			 (int)sizeof(written));
	assert_memory_equal(buf, written, sizeof(written));
	assert_int_equal(vi_tpm_policy_nv_written_command(0x03000000, false, buf, sizeof(buf),
							  &err), (int)sizeof(written));
	assert_int_equal(buf[14], 0);
	assert_int_equal(vi_tpm_policy_or_nvpcr_command(0x03000000, NULL, buf, sizeof(buf), &err),
			 86);
	assert_memory_equal(buf, or_head, sizeof(or_head));
	assert_memory_equal(buf + 20, p->first, 32);
	assert_int_equal(buf[52] << 8 | buf[53], 32);
	assert_memory_equal(buf + 54, p->written, 32);
	/* systemd's index: its own first branch */
	memset(data, 0x6b, 32);
	assert_int_equal(vi_tpm_policy_or_nvpcr_command(0x03000000, data, buf, sizeof(buf), &err),
			 86);
	assert_memory_equal(buf, or_head, sizeof(or_head));
	assert_memory_equal(buf + 20, data, 32);
	assert_memory_equal(buf + 54, p->written, 32);
	memset(data, 0x11, sizeof(data));
	assert_int_equal(vi_tpm_nv_extend_command(VI_TPM_NVPCR_VERITY, 0x03000000, data, 32, buf,
						  sizeof(buf), &err), 65);
	assert_memory_equal(buf, extend_head, sizeof(extend_head));
	assert_memory_equal(buf + 33, data, 32);
	/* refusals */
	assert_int_equal(vi_tpm_nv_extend_command(VI_TPM_NVPCR_VERITY, 0x03000000, data, 0, buf,
						  sizeof(buf), &err), -EINVAL);
	assert_int_equal(vi_tpm_nv_extend_command(VI_TPM_NVPCR_VERITY, 0x03000000, data, 65, buf,
						  sizeof(buf), &err), -EINVAL);
	assert_int_equal(vi_tpm_nv_extend_command(VI_TPM_NVPCR_VERITY, 0x03000000, data, 32, buf,
						  64, &err), -ENOBUFS);
	assert_int_equal(vi_tpm_policy_or_nvpcr_command(0x03000000, NULL, buf, 85, &err), -ENOBUFS);
}

/* StartAuthSession's answer and the bare success of the policy commands, as swtpm gave them. */
static void test_policy_answers(void **state)
{
	static const uint8_t session[] = {
		0x80, 0x01, 0, 0, 0, 0x20, 0, 0, 0, 0, 0x03, 0x00, 0x00, 0x00,
		0x00, 0x10, 0xaf, 0x26, 0x56, 0xd8, 0x7d, 0xb0, 0x34, 0xd6, 0x4c, 0x9e, 0x96, 0x03,
		0x26, 0xcd, 0xb6, 0x61 };
	static const uint8_t plain[] = { 0x80, 0x01, 0, 0, 0, 0x0a, 0, 0, 0, 0 };
	static const uint8_t refused[] = { 0x80, 0x01, 0, 0, 0, 0x0a, 0, 0, 0x09, 0x9d };
	uint8_t b[64];
	struct vi_error err = { "" };
	uint32_t s = 7, rc = 1;

	(void)state;
	assert_int_equal(vi_tpm_policy_session_parse(session, sizeof(session), &rc, &s, &err), 0);
	assert_int_equal(s, 0x03000000);
	assert_int_equal(rc, 0);
	/* a nonce cut short, bytes after it, an HMAC session's handle, the sessions tag */
	memcpy(b, session, sizeof(session));
	b[5] = 0x1f;
	assert_int_equal(vi_tpm_policy_session_parse(b, 31, &rc, &s, &err), -EPROTO);
	b[5] = 0x21;
	b[32] = 0;
	assert_int_equal(vi_tpm_policy_session_parse(b, 33, &rc, &s, &err), -EPROTO);
	memcpy(b, session, sizeof(session));
	b[10] = 0x02;
	assert_int_equal(vi_tpm_policy_session_parse(b, sizeof(session), &rc, &s, &err), -EPROTO);
	memcpy(b, session, sizeof(session));
	b[1] = 0x02;
	assert_int_equal(vi_tpm_policy_session_parse(b, sizeof(session), &rc, &s, &err), -EPROTO);
	assert_int_equal(s, 0x03000000);
	assert_int_equal(vi_tpm_policy_session_parse(refused, sizeof(refused), &rc, &s, &err), -EIO);
	assert_int_equal(rc, 0x99d);

	assert_int_equal(vi_tpm_plain_response_check(plain, sizeof(plain), &rc, &err), 0);
	assert_int_equal(rc, 0);
	assert_int_equal(vi_tpm_plain_response_check(refused, sizeof(refused), &rc, &err), -EIO);
	assert_int_equal(rc, 0x99d);
	assert_int_equal(vi_tpm_plain_response_check(session, sizeof(session), &rc, &err), -EPROTO);
	memcpy(b, plain, sizeof(plain));
	b[1] = 0x02;
	assert_int_equal(vi_tpm_plain_response_check(b, sizeof(plain), &rc, &err), -EPROTO);
}

/* NV_ReadPublic of the NvPCR as swtpm answered after its first write: the policy and the name
 * are kept; the check tells the agent's NvPCR from systemd's and from other indexes. */
static void test_nvpcr_public_and_check(void **state)
{
	static const uint8_t rsp[] = {
		0x80, 0x01, 0, 0, 0, 0x5e, 0, 0, 0, 0,
		0x00, 0x2e, 0x01, 0xd1, 0x02, 0x02, 0x00, 0x0b, 0x2c, 0x06, 0x00, 0x48, 0x00, 0x20,
		0x45, 0xe0, 0xba, 0x58, 0xe5, 0xa0, 0x65, 0x5e, 0x57, 0x39, 0x12, 0x57, 0x0d, 0xd5,
		0x37, 0x76, 0x91, 0xc0, 0x0e, 0x1c, 0x52, 0x3c, 0xf7, 0x81, 0xa7, 0xff, 0x79, 0x4a,
		0x85, 0x43, 0x40, 0xcd, 0x00, 0x20,
		0x00, 0x22, 0x00, 0x0b, 0xa7, 0xe7, 0xb4, 0x7e, 0x7b, 0x10, 0xed, 0xaf, 0x0a, 0x04,
		0x56, 0x39, 0x76, 0xdb, 0x82, 0xe3, 0x23, 0x66, 0xdc, 0xe8, 0x4e, 0xa8, 0x57, 0x47,
		0x2c, 0xf5, 0x84, 0xe0, 0xe1, 0x94, 0x9a, 0x1e };
	struct vi_tpm_nv_public pub, other;
	struct vi_error err = { "" };
	uint32_t rc = 1;
	uint8_t b[sizeof(rsp) + 80];

	(void)state;
	assert_int_equal(vi_tpm_nv_public_parse(rsp, sizeof(rsp), &rc, &pub, &err), 0);
	assert_int_equal(pub.attrs, 0x2c060048u);
	assert_int_equal(pub.policy_size, 32);
	assert_memory_equal(pub.policy, vi_tpm_nvpcr_policy()->policy, 32);
	assert_int_equal(pub.name_size, 34);
	assert_memory_equal(pub.name, rsp + 60, 34);
	assert_int_equal(vi_tpm_nvpcr_check(&pub, VI_TPM_NVPCR_VERITY, &err), 1);
	/* systemd's NvPCR: another policy */
	other = pub;
	other.policy[0] ^= 1;
	assert_int_equal(vi_tpm_nvpcr_check(&other, VI_TPM_NVPCR_VERITY, &err), 0);
	/* not an NvPCR: another type, a writable-by-password index, another size, index, policy
	 * size or name algorithm */
	other = pub;
	other.attrs |= VI_TPMA_NV_AUTHWRITE;
	assert_int_equal(vi_tpm_nvpcr_check(&other, VI_TPM_NVPCR_VERITY, &err), -EPERM);
	assert_non_null(strstr(err.msg, "is not an NvPCR"));
	other = pub;
	other.attrs = (other.attrs & ~0xf0u) | VI_TPMA_NV_TPM_NT_COUNTER;
	assert_int_equal(vi_tpm_nvpcr_check(&other, VI_TPM_NVPCR_VERITY, &err), -EPERM);
	other = pub;
	other.data_size = 48;
	assert_int_equal(vi_tpm_nvpcr_check(&other, VI_TPM_NVPCR_VERITY, &err), -EPERM);
	other = pub;
	other.policy_size = 0;
	assert_int_equal(vi_tpm_nvpcr_check(&other, VI_TPM_NVPCR_VERITY, &err), -EPERM);
	other = pub;
	other.name_alg = VI_TPM_ALG_SHA1;
	assert_int_equal(vi_tpm_nvpcr_check(&other, VI_TPM_NVPCR_VERITY, &err), -EPERM);
	assert_int_equal(vi_tpm_nvpcr_check(&pub, VI_TPM_NVPCR_VERITY + 1, &err), -EPERM);
	/* a name longer than any TPM2B_NAME, or not ending the response */
	memcpy(b, rsp, sizeof(rsp));
	b[5] = (uint8_t)(sizeof(rsp) + 1);
	b[sizeof(rsp)] = 0;
	assert_int_equal(vi_tpm_nv_public_parse(b, sizeof(rsp) + 1, &rc, &other, &err), -EPROTO);
	memcpy(b, rsp, sizeof(rsp));
	b[59] = 67;
	memset(b + 60, 0, 67);
	b[5] = (uint8_t)(60 + 67);
	assert_int_equal(vi_tpm_nv_public_parse(b, 60 + 67, &rc, &other, &err), -EPROTO);
	b[59] = 66;
	b[5] = (uint8_t)(60 + 66);
	assert_int_equal(vi_tpm_nv_public_parse(b, 60 + 66, &rc, &other, &err), 0);
	assert_int_equal(other.name_size, 66);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_command_bytes),
		cmocka_unit_test(test_response_check),
		cmocka_unit_test(test_event_response_digests),
		cmocka_unit_test(test_command_bytes),
		cmocka_unit_test(test_public_parse),
		cmocka_unit_test(test_floor_check_refuses_other_indexes),
		cmocka_unit_test(test_read_parse),
		cmocka_unit_test(test_one_header_for_every_response),
		cmocka_unit_test(test_nvpcr_policy_digests),
		cmocka_unit_test(test_nvpcr_command_bytes),
		cmocka_unit_test(test_policy_answers),
		cmocka_unit_test(test_nvpcr_public_and_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
