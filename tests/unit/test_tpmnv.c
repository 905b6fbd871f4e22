// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/boot/tpmnv.c: the rollback floor's NV counter on a device that refuses every command, the
 * index syntax and the policy keys slot_floor= and slot_floor_nv= (the commands' bytes and their
 * responses: test_tpm2.c). Against a real (emulated) TPM: tests/vm/slot_tpm_floor_test.sh. */
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
#include "tpm2.h"
#include "tpmnv.h"

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
		cmocka_unit_test(test_index_syntax_and_policy),
		cmocka_unit_test(test_floor_read_reports_the_tpms_refusal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
