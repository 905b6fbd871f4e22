// SPDX-License-Identifier: LGPL-2.1-or-later
/* The command line as the kernel, dracut's getarg and systemd split it (lib/config/cmdsplit.c), and
 * vi_cmdline_split_check (and systemd's ConditionKernelCommandLine=): attack lines that hide a key from one reader are refused, ordinary
 * lines on which every reader agrees are accepted. The expected words of the real programs are
 * checked by tests/cli/cmdsplit_oracle_test.sh. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cmdsplit.h"
#include "config.h"

static struct vi_error err;

static void ok(const char *line)
{
	memset(&err, 0, sizeof(err));
	if (vi_cmdline_split_check(line, strlen(line), &err) != 0)
		fail_msg("refused '%s': %s", line, err.msg);
}

static void bad(const char *line, const char *want)
{
	int r;

	memset(&err, 0, sizeof(err));
	r = vi_cmdline_split_check(line, strlen(line), &err);
	if (r != -EINVAL)
		fail_msg("'%s': got %d, want -EINVAL", line, r);
	if (!strstr(err.msg, want))
		fail_msg("'%s': reason '%s' lacks '%s'", line, err.msg, want);
}

/* ---- splitting ---- */

static struct vi_split_word wbuf[VI_SPLIT__READERS][64];
static char tbuf[VI_SPLIT__READERS][512];

/* Split line with reader rd; expect the words "key" or "key=value" in want (NULL-terminated),
 * where a word shown as "key=" has an empty value. */
static struct vi_split split_as(enum vi_split_reader rd, const char *line, size_t len)
{
	struct vi_split s = {
		.words = wbuf[rd], .max_words = 64, .text = tbuf[rd], .text_size = sizeof(tbuf[rd]),
	};

	assert_int_equal(vi_split_line(rd, line, len, &s), 0);
	return s;
}

static void words_are(enum vi_split_reader rd, const char *line, size_t len,
		      const char *const *want)
{
	struct vi_split s = split_as(rd, line, len);
	size_t n = 0;

	for (size_t i = 0; i < s.n_words; i++) {
		char got[256];
		const struct vi_split_word *w = &s.words[i];

		/* dracut's first word is the empty one before getcmdline's leading blanks */
		if (rd == VI_SPLIT_DRACUT && i == 0 && w->key_len == 0 && !w->val)
			continue;
		snprintf(got, sizeof(got), "%.*s%s%.*s", (int)w->key_len, w->key, w->val ? "=" : "",
			 (int)w->val_len, w->val ? w->val : "");
		if (!want[n]) {
			fail_msg("%s: '%s': extra word '%s'", vi_split_reader_name(rd), line, got);
			return;
		}
		if (strcmp(got, want[n]) != 0)
			fail_msg("%s: '%s': word %zu is '%s', want '%s'", vi_split_reader_name(rd),
				 line, n, got, want[n]);
		n++;
	}
	if (want[n])
		fail_msg("%s: '%s': missing word '%s'", vi_split_reader_name(rd), line, want[n]);
}

#define WORDS(rd, line, ...) \
	words_are(rd, line, strlen(line), (const char *const[]){ __VA_ARGS__, NULL })
#define NO_WORDS(rd, line) words_are(rd, line, strlen(line), (const char *const[]){ NULL })

static void test_kernel_split(void **state)
{
	struct vi_split s;

	(void)state;
	WORDS(VI_SPLIT_KERNEL, "x='\"' init=/bin/sh '\"'", "x='\"' init=/bin/sh '\"'");
	WORDS(VI_SPLIT_KERNEL, "\"init=/bin/sh\"", "init=/bin/sh");
	WORDS(VI_SPLIT_KERNEL, "init=\"/bin/sh\" a=x\"y z\"w", "init=/bin/sh", "a=x\"y z\"w");
	WORDS(VI_SPLIT_KERNEL, "root=LABEL='my root'", "root=LABEL='my", "root'");
	WORDS(VI_SPLIT_KERNEL, "=init=/bin/sh \"=\" \"a=\"", "=init=/bin/sh", "=", "a=");
	WORDS(VI_SPLIT_KERNEL, "a\\ b", "a\\", "b");
	WORDS(VI_SPLIT_KERNEL, "a\xa0" "b\vc\fd", "a", "b", "c", "d");
	NO_WORDS(VI_SPLIT_KERNEL, "  \t ");

	/* "--" ends the parameters: what follows is for init */
	s = split_as(VI_SPLIT_KERNEL, "a -- init=/x", 12);
	assert_int_equal(s.n_words, 3);
	assert_int_equal(s.words[0].flags, 0);
	assert_int_equal(s.words[1].flags, VI_SPLIT_W_DASHDASH);
	assert_int_equal(s.words[2].flags, VI_SPLIT_W_INITARG);

	/* a lone quote at the end: next_arg() indexes with (unsigned)0 - 1 */
	s = split_as(VI_SPLIT_KERNEL, "a \"", 3);
	assert_true(s.flags & VI_SPLIT_FAILS);
	assert_true(s.flags & VI_SPLIT_OPEN_QUOTE);
	s = split_as(VI_SPLIT_KERNEL, "a \"b", 4);
	assert_false(s.flags & VI_SPLIT_FAILS);
	assert_true(s.flags & VI_SPLIT_OPEN_QUOTE);

	/* the kernel's C string ends at a NUL */
	words_are(VI_SPLIT_KERNEL, "a b\0c", 5, (const char *const[]){ "a", "b", NULL });
}

static void test_dracut_split(void **state)
{
	struct vi_split s;

	(void)state;
	WORDS(VI_SPLIT_DRACUT, "x='\"' init=/bin/sh '\"'", "x='\"' init=/bin/sh '\"'");
	WORDS(VI_SPLIT_DRACUT, "a -- init=/x", "a", "--", "init=/x");
	/* getcmdline joins the lines, dropping the blanks at their ends */
	WORDS(VI_SPLIT_DRACUT, "root=\"/dev/a  \n\t b\"", "root=/dev/a b");
	WORDS(VI_SPLIT_DRACUT, "a\xa0" "b", "a", "b");

	s = split_as(VI_SPLIT_DRACUT, "quiet rd.shell=0 \"", 18);
	assert_true(s.flags & VI_SPLIT_FAILS);
	s = split_as(VI_SPLIT_DRACUT, "\"", 1);
	assert_true(s.flags & VI_SPLIT_FAILS);
	s = split_as(VI_SPLIT_DRACUT, "rd.shell=0 x=\"", 14);
	assert_false(s.flags & VI_SPLIT_FAILS);
	assert_true(s.flags & VI_SPLIT_OPEN_QUOTE);
}

static void test_systemd_split(void **state)
{
	struct vi_split s;

	(void)state;
	WORDS(VI_SPLIT_SYSTEMD, "x='\"' init=/bin/sh '\"'", "x=\"", "init=/bin/sh", "\"");
	WORDS(VI_SPLIT_SYSTEMD, "x=\"' init=/bin/sh '\"", "x=' init=/bin/sh '");
	WORDS(VI_SPLIT_SYSTEMD, "root=LABEL='my root' init=/bin/\"sh\"", "root=LABEL=my root",
	      "init=/bin/sh");
	/* EXTRACT_RETAIN_ESCAPE: a backslash is an ordinary byte, it escapes nothing */
	WORDS(VI_SPLIT_SYSTEMD, "root=/dev/a\\ b c=\\\"d e\"", "root=/dev/a\\", "b", "c=\\d e");
	/* only space, \t, \n, \r separate */
	WORDS(VI_SPLIT_SYSTEMD, "a\xa0" "b\vc d\te", "a\xa0" "b\vc", "d", "e");
	WORDS(VI_SPLIT_SYSTEMD, "'' \"\" a", "", "", "a");
	/* "--" is a word like any other */
	WORDS(VI_SPLIT_SYSTEMD, "a -- init=/x", "a", "--", "init=/x");

	/* read_one_line_file(): the rest after \n or \r is not read */
	s = split_as(VI_SPLIT_SYSTEMD, "a b\rinit=/x", 11);
	assert_true(s.flags & VI_SPLIT_CUT);
	WORDS(VI_SPLIT_SYSTEMD, "a b\rinit=/x", "a", "b");
	WORDS(VI_SPLIT_SYSTEMD, "a\nb", "a");

	/* EXTRACT_RELAX: a quote left open runs to the end */
	s = split_as(VI_SPLIT_SYSTEMD, "a='b c", 6);
	assert_true(s.flags & VI_SPLIT_OPEN_QUOTE);
	assert_int_equal(s.open_quote, '\'');
	WORDS(VI_SPLIT_SYSTEMD, "a='b c", "a=b c");

	/* ConditionKernelCommandLine=: a backslash takes the next byte, in quotes too */
	WORDS(VI_SPLIT_SYSTEMD_CONDITION, "root=/dev/a\\ b c=\\\"d e\" f='\\'' g\\",
	      "root=/dev/a b", "c=\"d", "e f=''' g");
	WORDS(VI_SPLIT_SYSTEMD_CONDITION, "x='\"' init=/bin/sh '\"'", "x=\"", "init=/bin/sh", "\"");

	/* rd. words are marked, not stripped */
	s = split_as(VI_SPLIT_SYSTEMD, "rd.shell=0 shell", 16);
	assert_int_equal(s.n_words, 2);
	assert_int_equal(s.words[0].flags, VI_SPLIT_W_RD);
	assert_int_equal(s.words[0].key_len, 8);
	assert_int_equal(s.words[1].flags, 0);
}

static void test_storage(void **state)
{
	struct vi_split_word w[2];
	char t[64];
	struct vi_split s = { .words = w, .max_words = 2, .text = t, .text_size = sizeof(t) };

	(void)state;
	for (int rd = 0; rd < VI_SPLIT__READERS; rd++)
		assert_int_equal(vi_split_line((enum vi_split_reader)rd, "a b c", 5, &s), -ENOBUFS);
	s.max_words = 2;
	s.text_size = 3;
	assert_int_equal(vi_split_kernel("abcd", 4, &s), -ENOBUFS);
	assert_int_equal(vi_split_line((enum vi_split_reader)7, "a", 1, &s), -EINVAL);
	assert_null(vi_split_reader_name((enum vi_split_reader)7));
	assert_string_equal(vi_split_reader_name(VI_SPLIT_SYSTEMD), "systemd");
	assert_string_equal(vi_split_reader_name(VI_SPLIT_SYSTEMD_CONDITION),
			    "systemd's ConditionKernelCommandLine=");
}

/* ---- which keys matter ---- */

static bool matters(const char *k)
{
	return vi_split_key_matters(k, strlen(k));
}

static void test_key_matters(void **state)
{
	static const char *const yes[] = {
		"init", "root", "rootflags", "rootfstype", "ro", "rw", "rdinit", "resume",
		"roothash", "usrhash", "mount.usr", "mount.usrflags", "mount.usrfstype",
		"systemd.mount-extra", "systemd.verity_root_data", "systemd.unit", "systemd.setenv",
		"rootfallback", "root.journaldev", "real_init", "real-init", "rd.distroinit",
		"rd.break", "rdbreak", "rd.shell", "rdshell", "rd.anything", "verity.roothash",
		"verity.x", "dm-mod.create", "dm_mod.create", "dm-verity.require_signatures",
		"dm_verity.x", "ipe.enforce", "lsm", "security", "lockdown", "module.sig_enforce",
		"module.sig-enforce", "emergency", "rescue", "single", "s", "S", "-s", "-b", "b",
		"1", "2", "3", "4", "5", "--", "LD_PRELOAD", "PATH", "_", "BLKID_CONF", "A1",
	};
	static const char *const no[] = {
		"quiet", "splash", "console", "BOOT_IMAGE.x", "dyndbg", "x", "", "inits", "initrd",
		"rootwait", "6", "0", "Ld_PRELOAD", "1A", "mount.us", "rd", "systemd", "lsm.x",
		"verity", "a.rd.b",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!matters(yes[i]))
			fail_msg("'%s' should matter", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (matters(no[i]))
			fail_msg("'%s' should not matter", no[i]);
}

/* ---- the check ---- */

static void test_attacks(void **state)
{
	(void)state;
	/* init= inside a kernel word, but a word of its own to systemd */
	bad("x='\"' init=/bin/sh '\"'", "'init' is read differently by systemd (quotes: ' ");
	bad("quiet x='\"' mount.usr=/dev/sdb1 '\"' ro", "'mount.usr' is read differently by systemd");
	bad("x='\"' rd.break '\"'", "'rd.break' is read differently by systemd");
	bad("x='\"' root=/dev/sdb1 '\"' root=/dev/mapper/root", "'root' is read differently");
	bad("x='\"' systemd.mount-extra=/dev/sdb:/usr '\"'", "'systemd.mount-extra'");
	bad("x='\"' LD_PRELOAD=/tmp/x.so '\"'", "'LD_PRELOAD'");
	bad("x='\"' emergency '\"'", "'emergency'");
	/* the other way round: a value of a key that matters swallows words for systemd */
	bad("root=LABEL='my root'", "'root' is read differently by systemd");
	bad("init='/bin/sh' ", "'init' is read differently by systemd");
	/* quotes in the middle of a word: systemd removes them, the kernel keeps them */
	bad("init=/bin/\"sh\"", "'init' is read differently by systemd (quotes: systemd removes");
	bad("ro\"\"", "'ro' is read differently by systemd");
	bad("r\"o\"ot=/dev/sdb", "'root' is read differently by systemd");
	/* blanks only the kernel splits at */
	bad("quiet\xa0init=/bin/sh", "'init' is read differently by systemd (blanks");
	bad("root=/dev/mapper/root\vinit=/bin/sh", "is read differently by systemd (blanks");
	/* a line break hides the rest from systemd, and is a blank to dracut */
	bad("quiet\rinit=/bin/sh", "'init' is read differently by systemd (line break");
	bad("quiet\ninit=/bin/sh", "'init' is read differently by systemd (line break");
	bad("x=\"a\n b\" init=/x", "unbalanced double quote for systemd");
	/* backslashes: ConditionKernelCommandLine= (dracut's rd.break= units) unescapes them */
	bad("init=/bin/a\\ b", "is read differently by systemd's ConditionKernelCommandLine= "
	    "(backslash");
	/* the conditions ask for keys: a value that loses a backslash there (udev's \xHH escapes
	 * in device names) is no disagreement */
	ok("root=/dev/mapper/root\\");
	ok("verity.data=/dev/disk/by-partlabel/a\\x20b");
	bad("x=\\' rd.break=pre-mount x=\\'", "'rd.break' is read differently by systemd (quotes");
	bad("x=a\\ rd.break=pre-mount", "'rd.break' is read differently by systemd's Condition");
	bad("x=\\\"", "unbalanced double quote");
	bad("x=\\\"\"", "unbalanced double quote once systemd's ConditionKernelCommandLine=");
	/* settings after "--" are arguments for init to the kernel */
	bad("quiet -- init=/bin/sh", "'init' after '--' is an argument for init");
	bad("quiet -- rd.break", "'rd.break' after '--'");
	bad("quiet -- single", "'single' after '--'");
	/* the same key, one more time for systemd than for the kernel */
	bad("init=/sbin/init x='\"' init=/bin/sh '\"'", "'init' is read differently by systemd");
}

static void test_unbalanced(void **state)
{
	(void)state;
	bad("quiet rd.shell=0 \"", "unbalanced double quote (dracut's getarg would crash and its "
	    "rd.shell=0 be lost)");
	bad("\"", "dracut's getarg would crash");
	bad("rd.shell=0 \t\"", "dracut's getarg would crash");
	bad("rd.shell=0 x=\"", "unbalanced double quote (the kernel reads the rest");
	bad("a\"b rd.shell=0", "unbalanced double quote");
	bad("init=/sbin/init it's", "unbalanced single quote (systemd reads the rest");
	bad("'\"' \"", "unbalanced");
	bad("root=/dev/x'", "unbalanced single quote");
	bad("quiet foo=\"a\n b\"", "unbalanced double quote for systemd");
}

static void test_agreeing(void **state)
{
	(void)state;
	ok("");
	ok("   ");
	ok("BOOT_IMAGE=/vmlinuz-6.1.0-57-amd64 root=UUID=6c5a1f0e-8d8b-4f7e-9a7e-1b2c3d4e5f60 ro "
	   "quiet");
	ok("BOOT_IMAGE=/boot/vmlinuz-6.1.0-57-amd64 root=/dev/mapper/root ro quiet splash "
	   "roothash=4f8b2d0e1c7a9b3d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5 "
	   "systemd.verity_root_data=PARTLABEL=root systemd.verity_root_hash=PARTLABEL=hash\n");
	ok("dyndbg=\"file foo.c +p\" quiet");
	ok("systemd.setenv=\"FOO=bar baz\"");
	ok("\"systemd.setenv=FOO=bar baz\"");
	ok("verity.data=\"LABEL=my root\"");
	/* quoted from end to end: every reader strips the same quotes */
	ok("\"init=/bin/sh\"");
	ok("init=\"/bin/sh\"");
	/* double quotes around single ones: no reader sees init= */
	ok("x=\"' init=/bin/sh '\"");
	/* differences in words that matter to nobody */
	ok("quiet foo='a b' bar=x\"y\"z");
	ok("quiet foo=\"a\tb\" root=/dev/mapper/root\n");
	ok("console=ttyS0\xa0quiet");
	ok("root=/dev/mapper/root quiet\rsplash");
	/* backslashes: literal to every reader but ConditionKernelCommandLine=, fine where that
	 * reads the same */
	ok("quiet foo=a\\ c dyndbg=\\x");
	/* "--" itself, read alike, with words for init that matter to nobody */
	ok("root=/dev/mapper/root -- --verbose foo=bar");
	/* the same word repeated is fine: every reader sees it twice */
	ok("init=/sbin/init init=/lib/systemd/systemd");
}

static void test_limits(void **state)
{
	static char line[VI_MAX_CMDLINE + 2];

	(void)state;
	memset(line, 'a', sizeof(line));
	memset(&err, 0, sizeof(err));
	assert_int_equal(vi_cmdline_split_check(line, VI_MAX_CMDLINE + 1, &err), -E2BIG);
	/* the worst case for the word count: one-byte words that all matter */
	for (size_t i = 0; i < VI_MAX_CMDLINE; i++)
		line[i] = i % 2 ? ' ' : '1';
	assert_int_equal(vi_cmdline_split_check(line, VI_MAX_CMDLINE, NULL), 0);
	for (size_t i = 0; i < VI_MAX_CMDLINE; i++)
		line[i] = i % 2 ? '\n' : '"';
	assert_int_equal(vi_cmdline_split_check(line, VI_MAX_CMDLINE, NULL), -EINVAL);
	memset(&err, 0, sizeof(err));
	assert_int_equal(vi_cmdline_split_check("a\0init=/x", 9, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "NUL"));
}

/* The key in a message is sanitized: a control byte or a non-ASCII one cannot reach a log raw. */
static void test_message_sanitized(void **state)
{
	(void)state;
	bad("x='\"' rd.\x1b[2J\xff '\"'", "'rd.\\x1b[2J\\xff' is read differently");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_split),
		cmocka_unit_test(test_dracut_split),
		cmocka_unit_test(test_systemd_split),
		cmocka_unit_test(test_storage),
		cmocka_unit_test(test_key_matters),
		cmocka_unit_test(test_attacks),
		cmocka_unit_test(test_unbalanced),
		cmocka_unit_test(test_agreeing),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_message_sanitized),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
