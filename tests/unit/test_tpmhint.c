// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/boot/tpmhint.c: the command-line words that may hide a TPM, the kernel log records that
 * name the firmware's EFI TPM tables, the scan of a log, and the decision over a firmware tree.
 * The agent's refusal of the shell is tested with real firmware in tests/vm/tpm_shell_test.sh. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "helpers.h"
#include "tpmhint.h"

static bool hides(const char *cl, char *word, size_t size)
{
	return vi_tpm_cmdline_hides(cl, strlen(cl), word, size);
}

static void test_cmdline_words_that_hide_a_tpm(void **state)
{
	static const char *const yes[] = {
		"acpi=off", "quiet acpi=ht", "acpi_rsdp=0xf0000",
		"module_blacklist=tpm_tis", "module_blacklist=nouveau,tpm_crb",
		"modprobe.blacklist=TPM_TIS_SPI", "rd.driver.blacklist=tpm_tis_i2c_cr50",
		"initcall_blacklist=init_tis", "initcall_blacklist=crb_acpi_driver_init",
		"initcall_blacklist=foo,tpm_init", "\"module_blacklist=tpm_tis\"",
		"root=/dev/vda acpi=force acpi=off",
		/* the kernel reads '-' as '_' in its parameters' names */
		"initcall-blacklist=init_tis,crb_acpi_driver_init", "module-blacklist=tpm_tis",
		"acpi-rsdp=0xf0000", "module-blacklist=x,tpm-crb",
		/* dracut's older spelling; dracut and kmod read past "--" too */
		"rdblacklist=tpm_tis", "quiet -- rd.driver.blacklist=tpm_tis",
		"quiet -- modprobe.blacklist=tpm_crb", "-- rdblacklist=tpm_tis",
	};
	static const char *const no[] = {
		"", "acpi=force", "acpi=noirq", "acpi", "module_blacklist=nouveau,e1000",
		"initcall_blacklist=", "initcall_blacklist", "xacpi=off", "tpm_tis.interrupts=0",
		"quiet -- acpi=off module_blacklist=tpm_tis", "module_blacklistx=tpm_tis",
		"quiet -- module-blacklist=tpm_tis initcall_blacklist=init_tis",
		"rd.driver-blacklist=tpm_tis", "rdblacklist=e1000",
	};
	char word[96];

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		word[0] = '\0';
		if (!hides(yes[i], word, sizeof(word)))
			fail_msg("not seen as hiding a TPM: %s", yes[i]);
		assert_true(word[0]);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (hides(no[i], word, sizeof(word)))
			fail_msg("seen as hiding a TPM: %s", no[i]);
	/* the word as the kernel reads it, sanitized for the log line */
	assert_true(hides("quiet \"module_blacklist=tpm_tis\" x", word, sizeof(word)));
	assert_string_equal(word, "module_blacklist=tpm_tis");
	assert_true(hides("initcall_blacklist=init_tis,\x1b[2J", word, sizeof(word)));
	assert_string_equal(word, "initcall_blacklist=init_tis,\\x1b[2J");
	/* a small buffer: shortened, still terminated */
	assert_true(hides("acpi=off", word, 4));
	assert_int_equal(strlen(word), 3);
}

static int rec(const char *s, uint64_t *seq)
{
	return vi_kmsg_record_tpm(s, strlen(s), seq);
}

static void test_kmsg_records_naming_the_efi_tpm_tables(void **state)
{
	uint64_t seq = 99;

	(void)state;
	/* as the 6.1 kernel prints it under OVMF with a TPM */
	assert_int_equal(rec("6,1,0,-;efi: TPMFinalLog=0x1f7f6000 SMBIOS=0x1f520000 ACPI=0x1f77d000 "
			     "ACPI 2.0=0x1f77d014 MEMATTR=0x1df76118 TPMEventLog=0x1f770018 \n", &seq), 1);
	assert_int_equal(seq, 1);
	assert_int_equal(rec("6,7,0,-,caller=T0;efi: SMBIOS=0x1 TPMEventLog=0x2\n", &seq), 1);
	assert_int_equal(seq, 7);
	/* no TPM table, another prefix, no space before it, a continuation line, userspace */
	assert_int_equal(rec("6,0,0,-;efi: EFI v2.70 by EDK II\n", &seq), 0);
	assert_int_equal(seq, 0);
	assert_int_equal(rec("6,2,0,-;xefi: TPMEventLog=0x2\n", &seq), 0);
	assert_int_equal(rec("6,2,0,-;efi: SMBIOS=0x1,TPMEventLog=0x2\n", &seq), 0);
	assert_int_equal(rec("6,2,0,-;efi: SMBIOS=0x1\n TPMEventLog=0x2\n", &seq), 0);
	assert_int_equal(rec("14,3,0,-;efi: TPMEventLog=0x2\n", &seq), 0);
	assert_int_equal(rec("6,4,0,-;efi: TPMEventLog", &seq), 0);
	/* not records */
	seq = 42;
	assert_int_equal(rec("", &seq), -EINVAL);
	assert_int_equal(rec("6,1,0;efi: TPMEventLog=1", &seq), -EINVAL);
	assert_int_equal(rec("6,x,0,-;efi: TPMEventLog=1", &seq), -EINVAL);
	assert_int_equal(rec("6,-1,0,-;efi: TPMEventLog=1", &seq), -EINVAL);
	assert_int_equal(rec("6,1,0,-", &seq), -EINVAL);
	assert_int_equal(rec("6,99999999999999999999,0,-;efi: TPMEventLog=1", &seq), -EINVAL);
	assert_int_equal(seq, 42);
}

/* records on a seqpacket socket: one read(2), one record, as /dev/kmsg gives them */
static int scan(const char *const *records, size_t n, bool *announced, bool *complete)
{
	int sv[2], r;

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sv), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(write(sv[1], records[i], strlen(records[i])),
				 (ssize_t)strlen(records[i]));
	r = vi_kmsg_scan_tpm(sv[0], announced, complete);
	close(sv[0]);
	close(sv[1]);
	return r;
}

static void test_kmsg_scan(void **state)
{
	static const char *const full[] = {
		"5,0,0,-;Linux version 6.1.0\n", "6,1,0,-;efi: EFI v2.70 by EDK II\n",
		"6,2,0,-;efi: TPMFinalLog=0x1 SMBIOS=0x2\n", "6,3,0,-;ACPI: TPM2 0x1\n",
	};
	static const char *const plain[] = {
		"5,0,0,-;Linux version 6.1.0\n", "6,1,0,-;efi: EFI v2.70 by EDK II\n",
	};
	static const char *const wrapped[] = {
		"6,7910,0,-;loop0: detected capacity change\n", "6,7911,0,-;x\n",
	};
	static const char *const gap[] = {
		"5,0,0,-;Linux version\n", "6,2,0,-;efi: TPMEventLog=0x1\n",
	};
	static const char *const bad[] = { "5,0,0,-;Linux version\n", "garbage" };
	bool a = false, c = false;

	(void)state;
	assert_int_equal(scan(full, 4, &a, &c), 0);
	assert_true(a);
	assert_true(c);
	assert_int_equal(scan(plain, 2, &a, &c), 0);
	assert_false(a);
	assert_true(c);
	assert_int_equal(scan(wrapped, 2, &a, &c), 0);
	assert_false(a);
	assert_false(c);
	assert_int_equal(scan(gap, 2, &a, &c), 0);
	assert_true(a);
	assert_false(c);
	assert_int_equal(scan(NULL, 0, &a, &c), 0);
	assert_false(a);
	assert_false(c);
	/* a malformed record: an error, outputs untouched */
	a = c = true;
	assert_int_equal(scan(bad, 2, &a, &c), -EINVAL);
	assert_true(a);
	assert_true(c);
}

struct tree {
	char dir[64];
	char kmsg[96];
};

static void tree_make(struct tree *t, bool acpi_tpm2, bool efi, const char *log)
{
	char p[160];

	snprintf(t->dir, sizeof(t->dir), "/tmp/vi-tpmhint-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->kmsg, sizeof(t->kmsg), "%s/kmsg", t->dir);
	if (acpi_tpm2) {
		snprintf(p, sizeof(p), "%s/acpi", t->dir);
		assert_int_equal(mkdir(p, 0755), 0);
		snprintf(p, sizeof(p), "%s/acpi/tables", t->dir);
		assert_int_equal(mkdir(p, 0755), 0);
		snprintf(p, sizeof(p), "%s/acpi/tables/TPM2", t->dir);
		close(open(p, O_CREAT | O_WRONLY, 0400));
	}
	if (efi) {
		snprintf(p, sizeof(p), "%s/efi", t->dir);
		assert_int_equal(mkdir(p, 0755), 0);
	}
	if (log) {
		FILE *f = fopen(t->kmsg, "w");

		assert_non_null(f);
		fputs(log, f);
		fclose(f);
	}
}

static void tree_remove(struct tree *t)
{
	assert_int_equal(ut_rm_tree(t->dir), 0);
}

static void test_hint_from_firmware_and_command_line(void **state)
{
	struct vi_tpm_hint h;
	struct tree t;

	(void)state;
	/* nothing announces or hides a TPM: a machine without one */
	tree_make(&t, false, false, NULL);
	vi_tpm_hint_read(t.dir, t.kmsg, "root=/dev/vda quiet", &h);
	assert_false(h.announced);
	assert_false(h.may_be_hidden);
	assert_string_equal(h.why, "");
	/* the command line alone */
	vi_tpm_hint_read(t.dir, t.kmsg, "quiet acpi=off", &h);
	assert_false(h.announced);
	assert_true(h.may_be_hidden);
	assert_string_equal(h.why, "the command line may hide one: acpi=off");
	tree_remove(&t);

	/* the ACPI table; the reason names the first source */
	tree_make(&t, true, false, NULL);
	vi_tpm_hint_read(t.dir, t.kmsg, "initcall_blacklist=init_tis", &h);
	assert_true(h.announced);
	assert_true(h.may_be_hidden);
	assert_string_equal(h.why, "the firmware announces one: ACPI TPM2 table");
	tree_remove(&t);

	/* an EFI boot: the log names the TPM tables (one read of a file: one record) */
	tree_make(&t, false, true, "6,0,0,-;efi: TPMFinalLog=0x1 TPMEventLog=0x2\n");
	vi_tpm_hint_read(t.dir, t.kmsg, "", &h);
	assert_true(h.announced);
	assert_false(h.may_be_hidden);
	assert_string_equal(h.why, "the firmware announces one: EFI TPM event log in the kernel log");
	tree_remove(&t);

	/* an EFI boot whose log starts with its first record and names no TPM table */
	tree_make(&t, false, true, "5,0,0,-;Linux version 6.1.0\n");
	vi_tpm_hint_read(t.dir, t.kmsg, NULL, &h);
	assert_false(h.announced);
	assert_false(h.may_be_hidden);
	tree_remove(&t);

	/* an EFI boot whose log lost its start, or cannot be read: cannot tell */
	tree_make(&t, false, true, "6,4000,0,-;something late\n");
	vi_tpm_hint_read(t.dir, t.kmsg, NULL, &h);
	assert_false(h.announced);
	assert_true(h.may_be_hidden);
	assert_non_null(strstr(h.why, "does not reach back to its first records"));
	tree_remove(&t);
	tree_make(&t, false, true, NULL);
	vi_tpm_hint_read(t.dir, t.kmsg, NULL, &h);
	assert_true(h.may_be_hidden);
	tree_remove(&t);

	/* without EFI the log is not read: nothing there to lose */
	tree_make(&t, false, false, "6,4000,0,-;something late\n");
	vi_tpm_hint_read(t.dir, t.kmsg, NULL, &h);
	assert_false(h.may_be_hidden);
	tree_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmdline_words_that_hide_a_tpm),
		cmocka_unit_test(test_kmsg_records_naming_the_efi_tpm_tables),
		cmocka_unit_test(test_kmsg_scan),
		cmocka_unit_test(test_hint_from_firmware_and_command_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
