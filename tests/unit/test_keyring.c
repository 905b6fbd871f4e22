// SPDX-License-Identifier: LGPL-2.1-or-later
/* The keyring side of kernel-verified signatures: the DER sanity check, and a real add_key /
 * keyctl round trip in the session keyring (what the agent does before loading the table). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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
#define LINE_DMV "3c0ffee0 I------     1 perm 1f0b0000     0     0 keyring   .dm-verity: empty"

static int one_line(const char *l, int32_t *serial, unsigned *links)
{
	return vi_proc_keys_line(l, strlen(l), ".dm-verity", serial, links);
}

static void test_proc_keys_line(void **state)
{
	int32_t serial = 0;
	unsigned links = 9;

	(void)state;
	assert_int_equal(one_line(LINE_DMV, &serial, &links), 0);
	assert_int_equal(serial, 0x3c0ffee0);
	assert_int_equal(links, 0);
	assert_int_equal(one_line("44444444 I--Q---     1 perm 1f0b0000     0     0 keyring   .dm-verity: 2",
			      &serial, &links), 0);
	assert_int_equal(serial, 0x44444444);
	assert_int_equal(links, 2);
	serial = 7;
	/* not uid 0, not a keyring, another name, a link count that is no number */
	assert_int_equal(one_line("11111111 I------     1 perm 1f0b0000  1000  1000 keyring   .dm-verity: empty",
			      &serial, NULL), -ENOENT);
	assert_int_equal(one_line("22222222 I------     1 perm 0b0b0000     0     0 user      .dm-verity: 5",
			      &serial, NULL), -ENOENT);
	assert_int_equal(one_line("33333333 I------     1 perm 1f0b0000     0     0 keyring   .dm-verity-x: empty",
			      &serial, NULL), -ENOENT);
	assert_int_equal(one_line("3c0ffee0 I------     1 perm 1f0b0000     0     0 keyring   .dm-verity: 2x",
			      &serial, NULL), -ENOENT);
	/* revoked, dead, negative, invalidated, not instantiated: no live keyring */
	assert_int_equal(one_line("3c0ffee0 IR-----     1 perm 1f0b0000     0     0 keyring   .dm-verity: empty",
			      &serial, NULL), -ENOENT);
	assert_int_equal(one_line("3c0ffee0 I-D----     1 perm 1f0b0000     0     0 keyring   .dm-verity: empty",
			      &serial, NULL), -ENOENT);
	assert_int_equal(one_line("3c0ffee0 I----N-     1 perm 1f0b0000     0     0 keyring   .dm-verity: empty",
			      &serial, NULL), -ENOENT);
	assert_int_equal(one_line("3c0ffee0 I-----i     1 perm 1f0b0000     0     0 keyring   .dm-verity: empty",
			      &serial, NULL), -ENOENT);
	assert_int_equal(one_line("3c0ffee0 -------     1 perm 1f0b0000     0     0 keyring   .dm-verity: empty",
			      &serial, NULL), -ENOENT);
	/* a cut line, an upper-case or non-positive serial, a blank first, a NUL inside */
	assert_int_equal(one_line("3c0ffee0 I------     1 perm 1f0b0000     0     0 keyring   .dm-verity",
			      &serial, NULL), -ENOENT);
	assert_int_equal(one_line("3C0FFEE0 I------     1 perm 1f0b0000     0     0 keyring   .dm-verity: empty",
			      &serial, NULL), -ENOENT);
	assert_int_equal(one_line("80000000 I------     1 perm 1f0b0000     0     0 keyring   .dm-verity: empty",
			      &serial, NULL), -ENOENT);
	assert_int_equal(one_line(" 3c0ffee0 I------     1 perm 1f0b0000     0     0 keyring   .dm-verity: empty",
			      &serial, NULL), -ENOENT);
	assert_int_equal(vi_proc_keys_line(LINE_DMV "\0", sizeof(LINE_DMV), ".dm-verity", &serial,
					   NULL), -ENOENT);
	assert_int_equal(serial, 7);
	assert_int_equal(vi_proc_keys_line("", 0, ".dm-verity", &serial, NULL), -ENOENT);
	assert_int_equal(vi_proc_keys_line(LINE_DMV, 10, "a b", &serial, NULL), -EINVAL);
	assert_int_equal(vi_proc_keys_line(LINE_DMV, 10, "", &serial, NULL), -EINVAL);
}

struct seal_fixture {
	char dir[32];
	char keys[64], certs[64], param[64];
	long keyring;
	struct vi_dmverity_paths paths;
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A keyring of the test's own ("vi-unit-keyring": user space cannot name one ".dm-verity"),
 * a /proc/keys naming it after `before` bytes of other keys' lines, a certificate directory. */
static bool seal_setup(struct seal_fixture *fx, size_t before)
{
	char line[160];
	FILE *f;

	if (geteuid() != 0)
		return false;   /* KEYCTL_DESCRIBE says the owner: the kernel's keyring is uid 0's */
	fx->keyring = syscall(SYS_add_key, "keyring", "vi-unit-keyring", NULL, 0,
			      KEY_SPEC_SESSION_KEYRING);
	if (fx->keyring < 0 && (errno == ENOSYS || errno == EACCES || errno == EPERM))
		return false;
	assert_true(fx->keyring > 0);
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/vi-keyring-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->keys, sizeof(fx->keys), "%s/keys", fx->dir);
	snprintf(fx->certs, sizeof(fx->certs), "%s/certs", fx->dir);
	snprintf(fx->param, sizeof(fx->param), "%s/keyring_unsealed", fx->dir);
	f = fopen(fx->keys, "w");
	assert_non_null(f);
	/* the .blacklist keyring's keys, one a dbx hash: many under Secure Boot */
	for (size_t n = 0; n < before; n += 128)
		fprintf(f, "%08zx I------     1 perm 1f010000     0     0 blacklist bin:%0*d\n",
			0x10000 + n / 128, 80, 0);
	snprintf(line, sizeof(line), "%08lx I------     1 perm 3f0b0000     0     0 keyring   "
		 "vi-unit-keyring: empty\n", (unsigned long)fx->keyring);
	fputs(line, f);
	fclose(f);
	assert_int_equal(mkdir(fx->certs, 0700), 0);
	fx->paths = (struct vi_dmverity_paths){ fx->keys, fx->certs, fx->param, "vi-unit-keyring" };
	return true;
}

static void seal_teardown(struct seal_fixture *fx)
{
	char cmd[64];

	syscall(SYS_keyctl, KEYCTL_UNLINK, fx->keyring, KEY_SPEC_SESSION_KEYRING);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", fx->dir);
	assert_int_equal(system(cmd), 0);
}

/* The sealing for real: a file that is no certificate is named and refused, the keyring is
 * found past 64 KiB of other keys, sealed, and after that it takes no key. */
static void test_seal(void **state)
{
	struct seal_fixture fx;
	struct vi_dmverity_keyring k;
	struct vi_error err = { "" };
	char path[96];
	long key;

	(void)state;
	if (!seal_setup(&fx, 70000))
		skip();
	snprintf(path, sizeof(path), "%s/maker.der", fx.certs);
	write_file(path, "-----BEGIN CERTIFICATE-----\n");
	snprintf(path, sizeof(path), "%s/notes.txt", fx.certs);   /* not a *.der: not looked at */
	write_file(path, "");
	assert_true(vi_certs_present(fx.certs));
	assert_int_equal(vi_dmverity_keyring_seal(&fx.paths, &k, &err), 0);
	assert_int_equal(k.serial, (int32_t)fx.keyring);
	assert_int_equal(k.certs, 1);
	assert_int_equal(k.added, 0);
	assert_true(k.sealed);
	assert_false(k.sealed_before);
	assert_string_equal(k.refused, "maker.der: not a DER X.509 certificate");
	/* sealed: no key goes in any more, and sealing again finds it sealed */
	key = syscall(SYS_add_key, "user", "vi-unit-late", "x", 1, fx.keyring);
	assert_true(key < 0 && errno == EPERM);
	assert_int_equal(vi_dmverity_keyring_seal(&fx.paths, &k, &err), 0);
	assert_true(k.sealed_before);
	seal_teardown(&fx);
}

/* More certificates than the agent takes: an error, and the keyring sealed all the same. */
static void test_seal_after_an_error(void **state)
{
	struct seal_fixture fx;
	struct vi_dmverity_keyring k;
	struct vi_error err = { "" };
	char path[96];
	long key;

	(void)state;
	if (!seal_setup(&fx, 0))
		skip();
	for (unsigned i = 0; i <= VI_CERTS_MAX; i++) {
		snprintf(path, sizeof(path), "%s/c%02u.der", fx.certs, i);
		write_file(path, "x");
	}
	assert_int_equal(vi_dmverity_keyring_seal(&fx.paths, &k, &err), -E2BIG);
	assert_true(k.sealed);
	key = syscall(SYS_add_key, "user", "vi-unit-late", "x", 1, fx.keyring);
	assert_true(key < 0 && errno == EPERM);
	seal_teardown(&fx);
}

/* A line another key's description forged (its serial is not a keyring of that name), no
 * /proc/keys at all, a dm_verity with the keyring parameter but no keyring shown. */
static void test_find_refusals(void **state)
{
	struct seal_fixture fx;
	struct vi_dmverity_keyring k;
	struct vi_error err = { "" };
	char text[320];
	long decoy;

	(void)state;
	if (!seal_setup(&fx, 0))
		skip();
	decoy = syscall(SYS_add_key, "keyring", "vi-unit-decoy", NULL, 0, KEY_SPEC_SESSION_KEYRING);
	assert_true(decoy > 0);
	snprintf(text, sizeof(text), "%08lx I------     1 perm 3f0b0000     0     0 keyring   "
		 "vi-unit-keyring: empty\n", (unsigned long)decoy);
	write_file(fx.keys, text);
	assert_int_equal(vi_dmverity_keyring_seal(&fx.paths, &k, &err), 0);
	assert_int_equal(k.serial, 0);   /* the decoy is not taken for the keyring */
	assert_int_equal(syscall(SYS_add_key, "user", "vi-unit-late", "x", 1, decoy) > 0, 1);
	write_file(fx.param, "N\n");
	assert_int_equal(vi_dmverity_keyring_seal(&fx.paths, &k, &err), -ENOKEY);
	assert_false(k.sealed);
	unlink(fx.param);
	unlink(fx.keys);
	assert_int_equal(vi_dmverity_keyring_seal(&fx.paths, &k, &err), 0);
	assert_int_equal(k.serial, 0);
	syscall(SYS_keyctl, KEYCTL_UNLINK, decoy, KEY_SPEC_SESSION_KEYRING);
	seal_teardown(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_p7s_check),
		cmocka_unit_test(test_desc),
		cmocka_unit_test(test_add_read_remove),
		cmocka_unit_test(test_proc_keys_line),
		cmocka_unit_test(test_seal),
		cmocka_unit_test(test_seal_after_an_error),
		cmocka_unit_test(test_find_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
