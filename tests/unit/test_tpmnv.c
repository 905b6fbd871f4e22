// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/boot/tpmnv.c: the rollback floor's NV counter commands byte for byte, their responses
 * parsed and refused, the check that an index is the floor's, the index syntax, and the
 * policy keys slot_floor= and slot_floor_nv=. Against a real (emulated) TPM:
 * tests/vm/slot_tpm_floor_test.sh. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "policy.h"
#include "tpm.h"
#include "tpmnv.h"

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

static int policy(struct vi_policy *p, const char *text, struct vi_error *err)
{
	return vi_policy_parse(text, strlen(text), p, err);
}

static void test_index_syntax_and_policy(void **state)
{
	struct vi_policy p;
	struct vi_error err = { "" };
	uint32_t u = 0;
	static const char *const bad[] = {
		"0x01400000", "0x00ffffff", "0x0100564A", "0x0100564", "0x010056490", "01005649",
		"0X01005649", "0x01 05649", "", "tpm",
	};

	(void)state;
	assert_int_equal(vi_tpm_nv_index_parse("0x01005649", 10, &u), 0);
	assert_int_equal(u, VI_TPM_FLOOR_NV_DEFAULT);
	assert_int_equal(vi_tpm_nv_index_parse("0x013fffff", 10, &u), 0);
	assert_int_equal(u, VI_TPM_NV_OWNER_LAST);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(vi_tpm_nv_index_parse(bad[i], strlen(bad[i]), &u), -EINVAL);

	vi_policy_init(&p);
	assert_false(p.slot_floor_tpm);
	assert_int_equal(p.slot_floor_nv, VI_TPM_FLOOR_NV_DEFAULT);
	assert_int_equal(policy(&p, "slots=a,b\nslot_floor=tpm\nslot_floor_nv=0x01000001\n",
				&err), 0);
	assert_true(p.slot_floor_tpm);
	assert_int_equal(p.slot_floor_nv, 0x01000001u);
	assert_int_equal(policy(&p, "slot_floor=store\n", &err), 0);
	assert_false(p.slot_floor_tpm);
	assert_int_equal(policy(&p, "slot_floor=yes\n", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "slot_floor: not store or tpm"));
	assert_int_equal(policy(&p, "slot_floor_nv=0x01c00002\n", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "owner's range (0x01000000 to 0x013fffff)"));
}

/* The device path: a FIFO answers with the command itself, whose "response code" is the
 * command code. NV_ReadPublic's code (0x169) is no "no such index": refused, nothing defined. */
static void test_floor_read_reports_the_tpms_refusal(void **state)
{
	char top[] = "/tmp/vi-tpmnv-XXXXXX", p[128];
	struct vi_error err = { "" };
	struct vi_tpm_floor f;
	uint64_t v = 9;
	uint32_t rc;

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(p, sizeof(p), "%s/tpmrm0", top);
	assert_int_equal(vi_tpm_floor_read(p, VI_TPM_FLOOR_NV_DEFAULT, true, &f, &err), -ENODEV);
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(vi_tpm_floor_read(p, VI_TPM_FLOOR_NV_DEFAULT, true, &f, &err), -EIO);
	assert_non_null(strstr(err.msg, "reading TPM NV index 0x01005649: TPM refused the "
			       "command: response code 0x00000169"));
	assert_int_equal(vi_tpm_floor_raise(p, VI_TPM_FLOOR_NV_DEFAULT, 5, 100, &v, &err), -EIO);
	/* a raise reads the index's public area first, as at boot */
	assert_non_null(strstr(err.msg, "reading TPM NV index 0x01005649: TPM refused the "
			       "command: response code 0x00000169"));
	rc = 0;
	assert_int_equal(vi_tpm_floor_lock(p, VI_TPM_FLOOR_NV_DEFAULT, &rc, &err), -EIO);
	assert_int_equal(rc, 0x138);
	assert_string_equal(err.msg, "write-locking TPM NV counter 0x01005649: TPM refused the "
			    "command: response code 0x00000138");
	unlink(p);
	rmdir(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_bytes),
		cmocka_unit_test(test_public_parse),
		cmocka_unit_test(test_floor_check_refuses_other_indexes),
		cmocka_unit_test(test_read_parse),
		cmocka_unit_test(test_index_syntax_and_policy),
		cmocka_unit_test(test_floor_read_reports_the_tpms_refusal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
