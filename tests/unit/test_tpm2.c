// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/format/tpm2.c: the PCR_Event command and the rollback floor's NV counter commands byte for
 * byte, their responses parsed and refused (the response check, the digests the TPM answers, an
 * NV index's public area and a counter's value), the check that an index is the floor's. Against
 * a real (emulated) TPM: tests/vm/tpm_measure_test.sh and tests/vm/slot_tpm_floor_test.sh. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

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
	const struct vi_tpm_nv_public ok = { VI_TPM_FLOOR_NV_DEFAULT, VI_TPM_ALG_SHA256,
					     VI_TPM_FLOOR_ATTRS, 0, 8 };
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
