// SPDX-License-Identifier: LGPL-2.1-or-later
/* The keyring side of kernel-verified signatures: the DER sanity check, and a real add_key /
 * keyctl round trip in the session keyring (what the agent does before loading the table). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include <linux/keyctl.h>

#include "keyring.h"
#include "prockeys.h"

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

/* Lines as security/keys/proc.c prints them (a 7.x kernel in an initramfs, dm_verity loaded) */
static const char proc_keys[] =
	"0a1b2c3d I--Q---     1 perm 1f3f0000     0 65534 keyring   _uid_ses.0: 1\n"
	"11111111 I------     1 perm 1f0b0000  1000  1000 keyring   .dm-verity: empty\n"
	"22222222 I------     1 perm 0b0b0000     0     0 user      .dm-verity: 5\n"
	"33333333 I------     1 perm 1f0b0000     0     0 keyring   .dm-verity-x: empty\n"
	"3c0ffee0 I------     1 perm 1f0b0000     0     0 keyring   .dm-verity: empty\n"
	"44444444 I------     1 perm 1f0b0000     0     0 keyring   .dm-verity: 2\n";

static void test_proc_keys_find(void **state)
{
	int32_t serial = 0;
	unsigned links = 9;

	(void)state;
	/* not uid 0, not a keyring, another name: skipped; the first match wins */
	assert_int_equal(vi_proc_keys_find_keyring(proc_keys, sizeof(proc_keys) - 1, ".dm-verity",
						   &serial, &links), 0);
	assert_int_equal(serial, 0x3c0ffee0);
	assert_int_equal(links, 0);
	assert_int_equal(vi_proc_keys_find_keyring(proc_keys + 379, sizeof(proc_keys) - 380,
						   ".dm-verity", &serial, &links), 0);
	assert_int_equal(serial, 0x44444444);
	assert_int_equal(links, 2);
	/* a link count that is not a number: not such a line */
	assert_int_equal(vi_proc_keys_find_keyring("3c0ffee0 I------     1 perm 1f0b0000     0 "
						   "    0 keyring   .dm-verity: 2x\n", 76,
						   ".dm-verity", &serial, NULL), -ENOENT);
	assert_int_equal(vi_proc_keys_find_keyring(proc_keys, sizeof(proc_keys) - 1, ".platform",
						   &serial, NULL), -ENOENT);
	/* a cut line, a serial that is not 8 hex digits or not positive, a NUL inside: no match */
	assert_int_equal(vi_proc_keys_find_keyring("3c0ffee0 I------     1 perm 1f0b0000     0 "
						   "    0 keyring   .dm-verity", 77, ".dm-verity",
						   &serial, NULL), -ENOENT);
	assert_int_equal(vi_proc_keys_find_keyring("3C0FFEE0 I------     1 perm 1f0b0000     0 "
						   "    0 keyring   .dm-verity: empty\n", 79,
						   ".dm-verity", &serial, NULL), -ENOENT);
	assert_int_equal(vi_proc_keys_find_keyring("80000000 I------     1 perm 1f0b0000     0 "
						   "    0 keyring   .dm-verity: empty\n", 79,
						   ".dm-verity", &serial, NULL), -ENOENT);
	assert_int_equal(vi_proc_keys_find_keyring("3c0ffee0 I------     1 perm 1f0b0000     0 "
						   "    0 keyring\0  .dm-verity: empty\n", 79,
						   ".dm-verity", &serial, NULL), -ENOENT);
	assert_int_equal(vi_proc_keys_find_keyring("", 0, ".dm-verity", &serial, NULL), -ENOENT);
	assert_int_equal(vi_proc_keys_find_keyring(proc_keys, 10, "a b", &serial, NULL), -EINVAL);
	assert_int_equal(vi_proc_keys_find_keyring(proc_keys, 10, "", &serial, NULL), -EINVAL);
}

/* The sealing for real, on a keyring of our own that a /proc/keys of the test's names as
 * ".dm-verity" (user space cannot name a keyring with a '.'): a file that is no certificate is
 * named and refused, the keyring is sealed, and after that it takes no key. */
static void test_seal(void **state)
{
	char dir[] = "/tmp/vi-keyring-XXXXXX", path[96], certs[128];
	struct vi_dmverity_keyring k;
	struct vi_error err = { "" };
	long keyring, key;
	FILE *f;

	(void)state;
	keyring = syscall(SYS_add_key, "keyring", "vi-unit-keyring", NULL, 0,
			  KEY_SPEC_SESSION_KEYRING);
	if (keyring < 0 && (errno == ENOSYS || errno == EACCES || errno == EPERM))
		skip();
	assert_true(keyring > 0);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/keys", dir);
	snprintf(certs, sizeof(certs), "%s/certs", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%08lx I------     1 perm 3f0b0000     0     0 keyring   .dm-verity: empty\n",
		(unsigned long)keyring);
	fclose(f);
	assert_int_equal(mkdir(certs, 0700), 0);
	snprintf(path, sizeof(path), "%s/certs/maker.der", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("-----BEGIN CERTIFICATE-----\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/certs/notes.txt", dir);   /* not a *.der: not looked at */
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/keys", dir);
	assert_true(vi_certs_present(certs));
	assert_int_equal(vi_dmverity_keyring_seal(path, certs, &k, &err), 0);
	assert_int_equal(k.serial, (int32_t)keyring);
	assert_int_equal(k.certs, 1);
	assert_int_equal(k.added, 0);
	assert_false(k.sealed_before);
	assert_string_equal(k.refused, "maker.der: not a DER X.509 certificate");
	/* sealed: no key goes in any more, and sealing again finds it sealed */
	key = syscall(SYS_add_key, "user", "vi-unit-late", "x", 1, keyring);
	assert_true(key < 0 && errno == EPERM);
	assert_int_equal(vi_dmverity_keyring_seal(path, certs, &k, &err), 0);
	assert_true(k.sealed_before);
	syscall(SYS_keyctl, KEYCTL_UNLINK, keyring, KEY_SPEC_SESSION_KEYRING);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_p7s_check),
		cmocka_unit_test(test_desc),
		cmocka_unit_test(test_add_read_remove),
		cmocka_unit_test(test_proc_keys_find),
		cmocka_unit_test(test_seal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
