// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/boot/modules.c: the list format (comments, blank lines, blanks around paths), a missing list,
 * a failing line that is named while the rest is still tried; module names from file names;
 * the parameter string built from modprobe.d, the command line and forced words; reading a
 * modprobe.d directory. */
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

#include "cmdtoken.h"
#include "config.h"
#include "helpers.h"
#include "modules.h"

static void test_missing_list_is_fine(void **state)
{
	struct vi_error err = { "" };
	unsigned loaded = 9, skipped = 9;

	(void)state;
	assert_int_equal(vi_modules_load("/nonexistent/verity-init/modules", NULL, &loaded,
					 &skipped, &err), 0);
	assert_int_equal(loaded, 0);
	assert_int_equal(skipped, 0);
}

static void write_file(const char *path, const char *text)
{
	if (ut_write_file(path, text, strlen(text), 0644) < 0)
		fail_msg("writing %s: %s", path, strerror(errno));
}

static void test_failures_named(void **state)
{
	char list[] = "/tmp/vi-modules-XXXXXX";
	struct vi_error err = { "" };
	unsigned loaded = 9, skipped = 9;
	FILE *f;
	int fd, r;

	(void)state;
	fd = mkstemp(list);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	/* comments and blank lines are skipped; both paths are tried, the first failure named */
	fputs("# dm first\n\n   /nonexistent/first.ko  \n/nonexistent/second.ko\n", f);
	fclose(f);
	r = vi_modules_load(list, NULL, &loaded, &skipped, &err);
	unlink(list);
	assert_int_equal(r, -ENOENT);
	assert_int_equal(loaded, 0);
	assert_non_null(strstr(err.msg, "/nonexistent/first.ko"));
	assert_null(strstr(err.msg, "second"));
}

/* ---- module names ------------------------------------------------------------------------ */

static void name_is(const char *path, const char *want)
{
	struct vi_error err = { "" };
	char out[VI_MODULE_NAME_MAX + 1];

	assert_int_equal(vi_module_name(path, out, sizeof(out), &err), 0);
	assert_string_equal(out, want);
}

static void name_refused(const char *path)
{
	struct vi_error err = { "" };
	char out[VI_MODULE_NAME_MAX + 1];

	assert_int_equal(vi_module_name(path, out, sizeof(out), &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not a module file name"));
}

static void test_module_name(void **state)
{
	struct vi_error err = { "" };
	char small[4];

	(void)state;
	name_is("/lib/modules/6.1.0-57-amd64/kernel/drivers/md/dm-verity.ko", "dm_verity");
	name_is("dm-mod.ko.xz", "dm_mod");
	name_is("/x/crc32c-intel.ko.zst", "crc32c_intel");
	name_is("/x/ext4.ko.gz", "ext4");
	name_refused("/x/dm-verity.o");
	name_refused("/x/.ko");
	name_refused("/x/a.b.ko");
	name_refused("/x/a b.ko");
	name_refused("/x/-a.ko");
	name_refused("/x/dm\x01verity.ko");
	name_refused("/x/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.ko"); /* 56 */
	assert_int_equal(vi_module_name("/x/ext4.ko", small, sizeof(small), &err), -ENAMETOOLONG);
}

/* ---- the parameter string ------------------------------------------------------------------- */

static int build(const char *module, const char *conf, const char *cmdline, const char *forced,
		 char *out, size_t out_size, struct vi_error *err)
{
	memset(out, 'Z', out_size);
	return vi_modparams_build(module, conf, conf ? strlen(conf) : 0, cmdline,
				  cmdline ? strlen(cmdline) : 0, forced, out, out_size, err);
}

#define OR_NONE(s) ((s) ? (s) : "(none)")

/* The failures name every input: a row of a table is found by them. */
static void params_are(const char *module, const char *conf, const char *cmdline,
		       const char *forced, const char *want)
{
	struct vi_error err = { "" };
	char out[VI_MODPARAMS_MAX];
	int r = build(module, conf, cmdline, forced, out, sizeof(out), &err);

	if (r != 0 || strcmp(out, want) != 0)
		fail_msg("%s, conf '%s', cmdline '%s', forced '%s': got %d '%s' (%s), want '%s'",
			 module, OR_NONE(conf), OR_NONE(cmdline), OR_NONE(forced), r,
			 r == 0 ? out : "", err.msg, want);
}

static void params_refused(const char *module, const char *conf, const char *cmdline,
			   const char *forced, int want_r, const char *want_msg)
{
	struct vi_error err = { "" };
	char out[VI_MODPARAMS_MAX];
	int r = build(module, conf, cmdline, forced, out, sizeof(out), &err);

	if (r != want_r || strcmp(out, "") != 0 || !strstr(err.msg, want_msg))
		fail_msg("%s, conf '%s', cmdline '%s', forced '%s': got %d, output '%.*s', reason "
			 "'%s'; want %d, no output, a reason with '%s'", module, OR_NONE(conf),
			 OR_NONE(cmdline), OR_NONE(forced), r, (int)strnlen(out, sizeof(out)), out,
			 err.msg, want_r, want_msg);
}

/* A run of params_refused() with -EINVAL: module, conf, cmdline, forced, the reason's part. */
struct refusal {
	const char *module, *conf, *cmdline, *forced, *why;
};

static void refused_rows(const struct refusal *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		params_refused(rows[i].module, rows[i].conf, rows[i].cmdline, rows[i].forced,
			       -EINVAL, rows[i].why);
}

static void test_cmdline_words_of_this_module(void **state)
{
	static const char cl[] =
		"BOOT_IMAGE=/vmlinuz quiet dm_verity.prefetch_cluster=0 dm_mod.use_blk_mq=1 "
		"dm-verity.require-signatures=1 dm_verity.flag root=/dev/mapper/root "
		"dm_verityx.a=1 dm.b=1 verity.roothash=00 dm_verity=1";

	(void)state;
	/* names compare with '-' and '_' equal, the parameter name is passed as written */
	params_are("dm_verity", NULL, cl, NULL,
		   "prefetch_cluster=0 require-signatures=1 flag");
	params_are("dm-verity", NULL, cl, NULL,
		   "prefetch_cluster=0 require-signatures=1 flag");
	params_are("dm_mod", NULL, cl, NULL, "use_blk_mq=1");
	params_are("ext4", NULL, cl, NULL, "");
	params_are("ext4", NULL, NULL, NULL, "");
	params_are("ext4", NULL, "", "", "");
	/* after a bare "--" the words are init's */
	params_are("dm_verity", NULL, "dm_verity.a=1 -- dm_verity.b=2", NULL, "a=1");
	params_are("dm_verity", NULL, "dm_verity.a=1 \"--\" dm_verity.b=2", NULL, "a=1");
	/* a word of ours that is not a parameter name */
	params_refused("dm_verity", NULL, "dm_verity.=1", NULL, -EINVAL, "not a parameter name");
	params_refused("dm_verity", NULL, "dm_verity.a.b=1", NULL, -EINVAL,
		       "'a.b' (command line): not a parameter name");
	params_refused("dm_verity", NULL, "dm_verity.-x=1", NULL, -EINVAL, "not a parameter name");
}

static void test_cmdline_quoted_values(void **state)
{
	(void)state;
	/* values as the kernel reads them, written back so that it reads the same again */
	params_are("m", NULL, "m.a=\"x y\" \"m.b=c d\" m.c=\"\" m.d= m.e=\"plain\"", NULL,
		   "a=\"x y\" b=\"c d\" c= d= e=plain");
	/* inner quotes stay, as in the kernel's next_arg() */
	params_are("m", NULL, "m.d=e\"f g\"h m.q=a\"b\"", NULL, "d=e\"f g\"h q=a\"b\"");
	params_are("m", NULL, "m.eq=a=b=c", NULL, "eq=a=b=c");
	/* the kernel's isspace() has 0xa0: such a value is quoted too */
	params_are("m", NULL, "m.nb=\"a\xa0" "b\"", NULL, "nb=\"a\xa0" "b\"");
	/* a value cannot become a second parameter: it stays one quoted value */
	params_are("dm_verity", NULL, "dm_verity.x=\"1 require_signatures=0\"", NULL,
		   "x=\"1 require_signatures=0\"");
	/* a value with an odd quote would swallow the next word: refused */
	params_refused("m", NULL, "m.e=\"a\"b c\"", NULL, -EINVAL,
		       "would not read the value back unchanged");
}

static void test_conf_options_lines(void **state)
{
	static const char conf[] =
		"# options dm_verity commented=1\n"
		"options dm_verity a=1\tb=\"x y\"\n"
		"options dm-verity c=2 \\\n"
		"  d=3\n"
		"options dm_mod e=4\n"
		"  options dm_verity f=5\n"
		"\toptions\tdm_verity\tg=6\n"
		"#options dm_verity swallowed=1 \\\n"
		"options dm_verity swallowed=2\n"
		"blacklist dm_verity\n"
		"install dm_verity /bin/true\n"
		"softdep dm_verity pre: dm_mod\n"
		"options dm_verity\n"
		"optionsdm_verity x=1\n"
		"options dm_verity_x y=1\n"
		"options dm_mod # a comment is no comment here, but not dm_verity's business\n"
		"options dm_verity last=\"t\tab\"";

	(void)state;
	params_are("dm_verity", conf, NULL, NULL, "a=1 b=\"x y\" c=2 d=3 f=5 g=6 last=\"t ab\"");
	params_are("dm_mod", "options dm_mod e=4\n", NULL, NULL, "e=4");
	params_are("dm_verity", "options dm_verity a=1\r\noptions dm_verity b=2\n", NULL, NULL,
		   "a=1 b=2");
}

static void test_conf_refusals(void **state)
{
	static const struct refusal rows[] = {
		/* modprobe would hand "#", "why" to the kernel as parameters */
		{ "dm_verity", "options dm_verity a=1 # why\n", NULL, NULL,
		  "'#' (modprobe.d): not a parameter name" },
		{ "dm_verity", "options dm_verity a=x\\y\n", NULL, NULL, "backslash" },
		{ "dm_verity", "options dm_verity a=1 -- b=2\n", NULL, NULL,
		  "would end the module's parameters" },
		{ "dm_verity", "options dm_verity a=\"x\ry\"\n", NULL, NULL, "control byte" },
		{ "dm_verity", "options dm_verity a=\"x\x01y\"\n", NULL, NULL, "control byte" },
		{ "dm_verity", "options dm_verity dm_verity.a=1\n", NULL, NULL, "not a parameter name" },
	};

	(void)state;
	refused_rows(rows, sizeof(rows) / sizeof(rows[0]));
}

static void test_forced_last_and_strict(void **state)
{
	static const struct refusal forced[] = {
		{ "ext4", NULL, NULL, "dm_verityrequire_signatures=1", "not MODULE.PARAM[=value]" },
		{ "ext4", NULL, NULL, "dm_verity.require_signatures=1 --", "not a parameter" },
		{ "ext4", NULL, NULL, ".x=1", "not MODULE.PARAM[=value]" },
		{ "ext4", NULL, NULL, "dm_verity.=1", "not a parameter name" },
		{ "ext4", NULL, NULL, "dm_verity.a=\"\x7f\"", "control byte" },
	};

	(void)state;
	/* config, then command line, then forced: the kernel applies the last one */
	params_are("dm_verity", "options dm_verity require_signatures=0\n",
		   "dm_verity.require_signatures=0",
		   "dm_verity.require_signatures=1 dm_mod.x=1",
		   "require_signatures=0 require_signatures=0 require_signatures=1");
	params_are("dm_mod", NULL, NULL, "dm_verity.require_signatures=1 dm_mod.x=\"a b\"",
		   "x=\"a b\"");
	/* forced words come from the policy: a malformed one is an error for every module */
	refused_rows(forced, sizeof(forced) / sizeof(forced[0]));
}

static void test_control_bytes_refused(void **state)
{
	struct vi_error err = { "" };
	char out[64];
	static const char nul[] = "dm_verity.a=1\0dm_verity.b=2";

	(void)state;
	params_refused("dm_verity", NULL, "dm_verity.a=\"x\x01y\"", NULL, -EINVAL,
		       "control byte in the value");
	params_refused("dm_verity", NULL, "dm_verity.a=x\x7fy", NULL, -EINVAL, "control byte");
	params_refused("dm_verity", NULL, "dm_verity.a=\"x\ty\"", NULL, -EINVAL, "control byte");
	/* another module's words are not looked at */
	params_are("dm_verity", NULL, "ext4.a=\"\x01\" dm_verity.b=1", NULL, "b=1");
	/* the message shows the name escaped */
	params_refused("dm_verity", NULL, "dm_verity.a\x1b" "b=1", NULL, -EINVAL, "a\\x1bb");
	/* a NUL inside the given length */
	assert_int_equal(vi_modparams_build("dm_verity", NULL, 0, nul, sizeof(nul) - 1, NULL, out,
					    sizeof(out), &err), -EINVAL);
	assert_non_null(strstr(err.msg, "NUL"));
}

static void test_limits(void **state)
{
	struct vi_error err = { "" };
	char out[VI_MODPARAMS_MAX], *cl;
	size_t n = 0;

	(void)state;
	/* exactly fits (NUL included), one byte less does not; nothing is cut */
	assert_int_equal(build("m", NULL, "m.a=1 m.b=2", NULL, out, 8, &err), 0);
	assert_string_equal(out, "a=1 b=2");
	assert_int_equal(build("m", NULL, "m.a=1 m.b=2", NULL, out, 7, &err), -E2BIG);
	assert_string_equal(out, "");
	assert_int_equal(build("m", NULL, "m.a=1", NULL, out, 1, &err), -E2BIG);
	assert_int_equal(vi_modparams_build("m", NULL, 0, NULL, 0, NULL, out, 0, &err), -EINVAL);

	cl = malloc(8192);
	assert_non_null(cl);
	/* more words than VI_MODPARAMS_MAX_WORDS */
	for (unsigned i = 0; i <= VI_MODPARAMS_MAX_WORDS; i++)
		n += (size_t)sprintf(cl + n, "m.p%u=1 ", i);
	assert_int_equal(build("m", NULL, cl, NULL, out, sizeof(out), &err), -E2BIG);
	assert_non_null(strstr(err.msg, "more than"));
	/* one word fewer is fine */
	*strstr(cl, "m.p64=1") = '\0';
	assert_int_equal(build("m", NULL, cl, NULL, out, sizeof(out), &err), 0);
	/* a command line over VI_MAX_CMDLINE */
	memset(cl, 'a', VI_MAX_CMDLINE + 1);
	cl[VI_MAX_CMDLINE + 1] = '\0';
	assert_int_equal(build("m", NULL, cl, NULL, out, sizeof(out), &err), -E2BIG);
	/* the longest command-line word fits; a forced word after it does not */
	memcpy(cl, "m.a=", 4);
	cl[VI_MAX_CMDLINE] = '\0';
	assert_int_equal(build("m", NULL, cl, NULL, out, sizeof(out), &err), 0);
	assert_int_equal(strlen(out), VI_MAX_CMDLINE - 2);
	assert_int_equal(build("m", NULL, cl, "m.b=1", out, sizeof(out), &err), -E2BIG);
	assert_non_null(strstr(err.msg, "parameters longer than 4095 bytes"));
	/* a modprobe.d line longer than the whole string may be */
	memcpy(cl, "options m a=", 12);
	memset(cl + 12, 'a', VI_MODPARAMS_MAX + 100 - 12);
	cl[VI_MODPARAMS_MAX + 100] = '\0';
	assert_int_equal(build("m", cl, NULL, NULL, out, sizeof(out), &err), -E2BIG);
	assert_non_null(strstr(err.msg, "value too long"));
	/* longer than the line buffer: refused as a whole, not read in pieces */
	memset(cl + 12, 'a', 8192 - 12);
	assert_int_equal(vi_modparams_build("m", cl, 8192, NULL, 0, NULL, out, sizeof(out), &err),
			 -E2BIG);
	assert_non_null(strstr(err.msg, "options line longer than"));
	/* ... which does not matter for another module's line */
	assert_int_equal(vi_modparams_build("n", cl, 8192, NULL, 0, NULL, out, sizeof(out), &err),
			 0);
	free(cl);
	/* a parameter name of 65 bytes */
	params_refused("m", NULL,
		       "m.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=1", NULL,
		       -EINVAL, "not a parameter name");
	/* module names */
	params_refused("", NULL, NULL, NULL, -EINVAL, "not a module name");
	params_refused("a.b", NULL, NULL, NULL, -EINVAL, "not a module name");
	assert_int_equal(vi_modparams_build(NULL, NULL, 0, NULL, 0, NULL, out, sizeof(out), &err),
			 -EINVAL);
}

/* Every output word reads back, with the kernel's tokenizer, as one parameter of the module. */
static void test_output_reads_back_word_by_word(void **state)
{
	struct vi_error err = { "" };
	char out[VI_MODPARAMS_MAX];
	struct vi_cmdline_tok t;
	size_t pos = 0;
	unsigned words = 0;
	int r;

	(void)state;
	assert_int_equal(build("m", "options m c=\"3 4\" d\n", "m.a=\"1 2\" x.y=\"m.z=1\" m.b=",
			       "m.e=\"5 m.f=6\"", out, sizeof(out), &err), 0);
	while ((r = vi_cmdline_next(out, strlen(out), &pos, &t)) == 1) {
		assert_null(memchr(t.key, '.', t.key_len));
		words++;
	}
	assert_int_equal(r, 0);
	assert_int_equal(words, 5);
}

/* ---- modprobe.d directory and the loader ------------------------------------------------------ */

static void test_conf_read(void **state)
{
	char dir[] = "/tmp/vi-modprobe-XXXXXX", path[256];
	struct vi_error err = { "" };
	char *buf = NULL;
	size_t len = 9;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(vi_modprobe_conf_read("/nonexistent/modprobe.d", &buf, &len, &err), 0);
	assert_null(buf);
	assert_int_equal(len, 0);
	snprintf(path, sizeof(path), "%s/b.conf", dir);
	write_file(path, "options m b=1 \\");
	snprintf(path, sizeof(path), "%s/a.conf", dir);
	write_file(path, "options m a=1\n");
	snprintf(path, sizeof(path), "%s/.hidden.conf", dir);
	write_file(path, "options m hidden=1\n");
	snprintf(path, sizeof(path), "%s/c.txt", dir);
	write_file(path, "options m txt=1\n");
	snprintf(path, sizeof(path), "%s/d.conf", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/e.conf", dir);
	write_file(path, "options m e=1\n");
	assert_int_equal(vi_modprobe_conf_read(dir, &buf, &len, &err), 0);
	assert_non_null(buf);
	/* name order; the trailing backslash of b.conf does not reach into e.conf */
	assert_int_equal(len, strlen("options m a=1\n\n\noptions m b=1 \\\n\noptions m e=1\n\n\n"));
	assert_memory_equal(buf, "options m a=1\n\n\noptions m b=1 \\\n\noptions m e=1\n\n\n", len);
	{
		char out[64];

		assert_int_equal(vi_modparams_build("m", buf, len, NULL, 0, NULL, out, sizeof(out),
						    &err), 0);
		assert_string_equal(out, "a=1 b=1 e=1");
	}
	free(buf);
	/* more than VI_MODPROBE_CONF_FILES files */
	for (unsigned i = 0; i < VI_MODPROBE_CONF_FILES; i++) {
		snprintf(path, sizeof(path), "%s/n%03u.conf", dir, i);
		write_file(path, "\n");
	}
	assert_int_equal(vi_modprobe_conf_read(dir, &buf, &len, &err), -E2BIG);
	assert_null(buf);
	assert_non_null(strstr(err.msg, "*.conf files"));
	for (unsigned i = 0; i < VI_MODPROBE_CONF_FILES; i++) {
		snprintf(path, sizeof(path), "%s/n%03u.conf", dir, i);
		unlink(path);
	}
	/* more than VI_MODPROBE_CONF_MAX bytes */
	snprintf(path, sizeof(path), "%s/big.conf", dir);
	assert_int_equal(truncate(path, 0) == 0 || errno == ENOENT, 1);
	write_file(path, "");
	assert_int_equal(truncate(path, VI_MODPROBE_CONF_MAX), 0);
	assert_int_equal(vi_modprobe_conf_read(dir, &buf, &len, &err), -E2BIG);
	assert_non_null(strstr(err.msg, "bytes"));
	unlink(path);
	/* not a directory */
	snprintf(path, sizeof(path), "%s/e.conf", dir);
	assert_int_equal(vi_modprobe_conf_read(path, &buf, &len, &err), -ENOTDIR);
	assert_int_equal(ut_rm_tree(dir), 0);
}

/* Without root no module loads; what can be seen: a module whose forced words are refused is
 * never handed to the kernel, and an unreadable modprobe directory is reported while every
 * module is still tried. */
static void test_loader_parameter_failures(void **state)
{
	char dir[] = "/tmp/vi-modload-XXXXXX", list[256], ko[256];
	struct vi_modload_params mp = { 0 };
	struct vi_error err = { "" };
	unsigned loaded = 9, skipped = 9;
	char text[600];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(ko, sizeof(ko), "%s/dm-verity.ko", dir);
	write_file(ko, "");
	snprintf(list, sizeof(list), "%s/modules", dir);
	snprintf(text, sizeof(text), "%s\n/nonexistent/second.ko\n", ko);
	write_file(list, text);

	mp.cmdline = "dm_verity.a=1";
	mp.cmdline_len = strlen(mp.cmdline);
	mp.forced = "dm_verityrequire_signatures=1";
	assert_int_equal(vi_modules_load(list, &mp, &loaded, &skipped, &err), -EINVAL);
	assert_int_equal(loaded, 0);
	assert_non_null(strstr(err.msg, "module dm_verity not loaded"));
	assert_non_null(strstr(err.msg, "not MODULE.PARAM[=value]"));

	mp.forced = NULL;
	mp.modprobe_dir = ko;   /* not a directory */
	snprintf(text, sizeof(text), "/nonexistent/first.ko\n");
	write_file(list, text);
	assert_int_equal(vi_modules_load(list, &mp, &loaded, &skipped, &err), -ENOTDIR);
	assert_non_null(strstr(err.msg, "cannot read"));

	/* a list entry that is no module file name, with parameters asked for */
	snprintf(text, sizeof(text), "%s\n", list);
	write_file(list, text);
	mp.modprobe_dir = NULL;
	assert_int_equal(vi_modules_load(list, &mp, &loaded, &skipped, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not a module file name"));
	assert_int_equal(ut_rm_tree(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_list_is_fine),
		cmocka_unit_test(test_failures_named),
		cmocka_unit_test(test_module_name),
		cmocka_unit_test(test_cmdline_words_of_this_module),
		cmocka_unit_test(test_cmdline_quoted_values),
		cmocka_unit_test(test_conf_options_lines),
		cmocka_unit_test(test_conf_refusals),
		cmocka_unit_test(test_forced_last_and_strict),
		cmocka_unit_test(test_control_bytes_refused),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_output_reads_back_word_by_word),
		cmocka_unit_test(test_conf_read),
		cmocka_unit_test(test_loader_parameter_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
