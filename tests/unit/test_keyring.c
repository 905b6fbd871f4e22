// SPDX-License-Identifier: LGPL-2.1-or-later
/* The keyring side of kernel-verified signatures: the DER sanity check, and a real add_key /
 * keyctl round trip in the session keyring (what the agent does before loading the table). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include <linux/keyctl.h>

#include "keyring.h"

static void test_p7s_check(void **state)
{
	struct vi_error err = { "" };
	uint8_t buf[300] = { 0x30, 0x03, 1, 2, 3 };

	(void)state;
	assert_int_equal(vi_p7s_check(buf, 5, &err), 0);
	assert_int_equal(vi_p7s_check(buf, 6, &err), -EINVAL);          /* trailing byte */
	assert_int_equal(vi_p7s_check(buf, 4, &err), -EINVAL);          /* truncated */
	buf[1] = 0x81;
	buf[2] = 200;
	assert_int_equal(vi_p7s_check(buf, 203, &err), 0);
	buf[1] = 0x82;
	buf[2] = 0x01;
	buf[3] = 0x00;
	assert_int_equal(vi_p7s_check(buf, 260, &err), 0);
	buf[1] = 0x83;                                                  /* > 64 KiB form */
	assert_int_equal(vi_p7s_check(buf, 260, &err), -EINVAL);
	assert_int_equal(vi_p7s_check((const uint8_t *)"-----BEGIN PKCS7-----", 21, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not DER"));
	assert_int_equal(vi_p7s_check(buf, 0, &err), -EINVAL);
	assert_int_equal(vi_p7s_check(buf, VI_P7S_MAX + 1, &err), -EINVAL);
}

static void test_desc(void **state)
{
	char out[32];

	(void)state;
	assert_int_equal(vi_keyring_desc("root", out, sizeof(out)), 0);
	assert_string_equal(out, "verity-init:root");
	assert_int_equal(vi_keyring_desc("a-very-long-mapping-name-indeed", out, sizeof(out)),
			 -ENAMETOOLONG);
}

static void test_add_read_remove(void **state)
{
	static const uint8_t payload[] = { 0x30, 0x02, 0xab, 0xcd };
	struct vi_error err = { "" };
	uint8_t back[16];
	int32_t serial;
	long n;

	(void)state;
	serial = vi_keyring_add("verity-init:unit-test", payload, sizeof(payload), &err);
	if (serial == -ENOSYS || serial == -EACCES || serial == -EPERM)
		skip();   /* keyrings unavailable in this sandbox */
	assert_true(serial > 0);
	/* the kernel finds it by description, as dm-verity's request_key() will */
	n = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, "user",
		    "verity-init:unit-test", 0);
	assert_int_equal(n, serial);
	n = syscall(SYS_keyctl, KEYCTL_READ, serial, back, sizeof(back));
	assert_int_equal(n, sizeof(payload));
	assert_memory_equal(back, payload, sizeof(payload));
	assert_int_equal(vi_keyring_remove(serial), 0);
	n = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, "user",
		    "verity-init:unit-test", 0);
	assert_true(n < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_p7s_check),
		cmocka_unit_test(test_desc),
		cmocka_unit_test(test_add_read_remove),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
