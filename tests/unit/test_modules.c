// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/boot/modules.c: the list format (comments, blank lines, blanks around paths), a missing list,
 * a failing line that is named while the rest is still tried; module names from file names;
 * the parameter string built from modprobe.d, the command line and forced words; reading a
 * modprobe.d directory; compressed module files: the flag their name gives and the kernel's
 * refusal to decompress one, seen through a seccomp filter that answers finit_module. */
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

#include "cmdtoken.h"
#include "config.h"
#include "deny_syscall.h"
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

/* ---- compressed module files ------------------------------------------------------------- */

/* The file's name decides, as in kmod: the three formats the kernel can decompress get the
 * flag, everything else is handed over as it is. */
static void test_compression_by_name(void **state)
{
	static const struct {
		const char *path, *comp;
	} rows[] = {
		{ "/lib/modules/6.12.118+deb12-amd64/kernel/drivers/md/dm-verity.ko.xz", "xz" },
		{ "/usr/lib/modules/7.3.4/kernel/fs/ext4/ext4.ko.zst", "zstd" },
		{ "crc16.ko.gz", "gzip" },
		{ "/lib/modules/6.1.0-57-amd64/kernel/drivers/md/dm-verity.ko", NULL },
		{ "/x/dm-verity.ko.bz2", NULL },
		{ "/x/dm-verity.xz", NULL },
		{ "/x/dm-verity.ko.xz.orig", NULL },
		{ "/x/dm-verity.ko.zstd", NULL },
		{ "/x/dm-verity.ko.XZ", NULL },
		{ ".ko.xz", NULL },
		{ "", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *got = vi_module_compression(rows[i].path);
		int flags = vi_module_finit_flags(rows[i].path);

		if ((got == NULL) != (rows[i].comp == NULL) ||
		    (got && strcmp(got, rows[i].comp) != 0))
			fail_msg("%s: compression %s, want %s", rows[i].path, OR_NONE(got),
				 OR_NONE(rows[i].comp));
		if (flags != (rows[i].comp ? 4 : 0))
			fail_msg("%s: finit_module flags %d", rows[i].path, flags);
	}
}

/* Which failures of finit_module mean the kernel cannot decompress the file (kernel/module/
 * main.c and decompress.c), and the reason given. */
static void test_decompress_refusal(void **state)
{
	static const struct {
		const char *comp;
		int r;
		const char *kernel_comp, *why;   /* why NULL: not a refusal of the decompression */
	} rows[] = {
		/* 5.17 and later without CONFIG_MODULE_DECOMPRESS */
		{ "xz", -EOPNOTSUPP, NULL, "xz-compressed, and this kernel cannot decompress modules "
					   "(built without CONFIG_MODULE_DECOMPRESS)" },
		/* before 5.17 the flag itself is unknown */
		{ "xz", -EINVAL, NULL, "xz-compressed, and this kernel cannot decompress modules (no "
				       "CONFIG_MODULE_DECOMPRESS, or before 5.17)" },
		/* the decompressor of another format finds no magic */
		{ "zstd", -EINVAL, "xz", "zstd-compressed, and this kernel decompresses xz modules "
					 "only" },
		{ "xz", -EINVAL, "gzip", "xz-compressed, and this kernel decompresses gzip modules "
					 "only" },
		/* the kernel decompresses xz: EINVAL is a parameter (or a damaged file) */
		{ "xz", -EINVAL, "xz", NULL },
		{ "gzip", -EINVAL, "gzip", NULL },
		/* not about decompression at all */
		{ "xz", -ENOEXEC, NULL, NULL },
		{ "xz", -ENOENT, "xz", NULL },
		{ "xz", -EPERM, NULL, NULL },
		{ "xz", 0, NULL, NULL },
		/* a plain file never is */
		{ NULL, -EOPNOTSUPP, NULL, NULL },
		{ NULL, -EINVAL, NULL, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct vi_error err = { "" };
		bool got = vi_module_decompress_refused(rows[i].comp, rows[i].r, rows[i].kernel_comp,
							&err);

		if (got != (rows[i].why != NULL) || (got && strcmp(err.msg, rows[i].why) != 0))
			fail_msg("%s file, error %d, kernel decompresses %s: got %s '%s', want %s",
				 OR_NONE(rows[i].comp), rows[i].r, OR_NONE(rows[i].kernel_comp),
				 got ? "refused" : "not refused", err.msg, OR_NONE(rows[i].why));
	}
}

/* The kernel's answers to finit_module in this process, by its flags argument (a seccomp filter:
 * run in a child): MODULE_INIT_COMPRESSED_FILE (4) gives with_flag, anything else without; 0 is
 * success. The flags are the third argument's low word (little-endian). 0, or -errno when
 * seccomp is unavailable. */
static int fake_finit(unsigned with_flag, unsigned without)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_finit_module, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 4, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | with_flag),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | without),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	return seccomp_install(f, sizeof(f) / sizeof(f[0]));
}

static char comp_dir[] = "/tmp/vi-modcomp-XXXXXX";

/* A list of empty module files named NAMES (one a line) in comp_dir; its path in list. */
static void comp_list(const char *names, char *list, size_t size)
{
	char text[1024] = "", path[256];
	const char *p = names;

	while (*p) {
		size_t n = strcspn(p, "\n");

		snprintf(path, sizeof(path), "%s/%.*s", comp_dir, (int)n, p);
		write_file(path, "");
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s\n", path);
		p += n + (p[n] == '\n');
	}
	snprintf(list, size, "%s/modules", comp_dir);
	write_file(list, text);
}

/* The parameters every load below asks for (so the parameter fallbacks are in the path) */
static const struct vi_modload_params comp_mp = { "dm_verity.prefetch_cluster=0", 28, NULL, NULL };

/* A kernel that decompresses: Debian's files load as shipped, the flag given to each of them;
 * a plain .ko is loaded without it. */
static int compressed_loaded_child(void)
{
	struct vi_error err = { "" };
	unsigned loaded = 0, skipped = 0;
	char list[300];
	int r;

	if (fake_finit(0, ENOEXEC) < 0)
		return SKIP_CHILD;
	comp_list("dm-mod.ko.xz\ndm-verity.ko.xz\ncrc32c.ko.zst\next4.ko.gz", list, sizeof(list));
	r = vi_modules_load(list, &comp_mp, &loaded, &skipped, &err);
	CHILD_CHECK(1, r == 0 && loaded == 4, "compressed files: got %d, %u loaded (%s)", r, loaded,
		    err.msg);
	r = vi_modules_load(list, NULL, &loaded, &skipped, &err);
	CHILD_CHECK(2, r == 0 && loaded == 4, "without parameters: got %d, %u loaded (%s)", r,
		    loaded, err.msg);
	return 0;
}

static int plain_loaded_child(void)
{
	struct vi_error err = { "" };
	unsigned loaded = 0, skipped = 0;
	char list[300];
	int r;

	/* the kernel's decompressor refuses what is not its format */
	if (fake_finit(EINVAL, 0) < 0)
		return SKIP_CHILD;
	comp_list("dm-mod.ko\ndm-verity.ko", list, sizeof(list));
	r = vi_modules_load(list, &comp_mp, &loaded, &skipped, &err);
	CHILD_CHECK(1, r == 0 && loaded == 2, "plain files: got %d, %u loaded (%s)", r, loaded,
		    err.msg);
	return 0;
}

/* A kernel built without CONFIG_MODULE_DECOMPRESS: one reason, naming the module and why; the
 * rest of the list is still tried. */
static int no_decompress_child(void)
{
	struct vi_error err = { "" };
	unsigned loaded = 0, skipped = 0;
	char list[300];
	int r;

	if (fake_finit(EOPNOTSUPP, ENOEXEC) < 0)
		return SKIP_CHILD;
	comp_list("dm-mod.ko.xz\ndm-verity.ko.xz", list, sizeof(list));
	r = vi_modules_load(list, &comp_mp, &loaded, &skipped, &err);
	CHILD_CHECK(1, r == -EOPNOTSUPP && loaded == 0, "got %d, %u loaded (%s)", r, loaded, err.msg);
	CHILD_CHECK(2, strcmp(err.msg, "module dm-mod.ko.xz not loaded: xz-compressed, and this "
			      "kernel cannot decompress modules (built without "
			      "CONFIG_MODULE_DECOMPRESS)") == 0, "reason: %s", err.msg);
	r = vi_modules_load(list, NULL, &loaded, &skipped, &err);
	CHILD_CHECK(3, r == -EOPNOTSUPP && strstr(err.msg, "module dm-mod.ko.xz not loaded: xz-"),
		    "without parameters: got %d (%s)", r, err.msg);
	return 0;
}

/* EINVAL for the flag: a kernel older than 5.17, or one that decompresses another format (what
 * this host's VI_MODULE_COMPRESSION_SYSFS says decides which reason; none when it is zstd). */
static int other_format_child(void)
{
	struct vi_error err = { "" };
	unsigned loaded = 0, skipped = 0;
	char list[300], host[16] = "", want[192];
	FILE *f = fopen(VI_MODULE_COMPRESSION_SYSFS, "re");
	int r;

	if (f) {
		if (!fgets(host, sizeof(host), f))
			host[0] = '\0';
		host[strcspn(host, "\n")] = '\0';
		fclose(f);
	}
	if (!strcmp(host, "zstd") || fake_finit(EINVAL, ENOEXEC) < 0)
		return SKIP_CHILD;
	if (f)
		snprintf(want, sizeof(want), "module crc32c.ko.zst not loaded: zstd-compressed, and "
			 "this kernel decompresses %s modules only", host);
	else
		snprintf(want, sizeof(want), "module crc32c.ko.zst not loaded: zstd-compressed, and "
			 "this kernel cannot decompress modules (no CONFIG_MODULE_DECOMPRESS, or "
			 "before 5.17)");
	comp_list("crc32c.ko.zst", list, sizeof(list));
	r = vi_modules_load(list, &comp_mp, &loaded, &skipped, &err);
	CHILD_CHECK(1, r == -EINVAL && loaded == 0, "got %d, %u loaded (%s)", r, loaded, err.msg);
	CHILD_CHECK(2, strcmp(err.msg, want) == 0, "reason: '%s', want '%s'", err.msg, want);
	return 0;
}

static void test_compressed_modules_loaded_by_the_kernel(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(comp_dir));
	ut_run_child(compressed_loaded_child);
	ut_run_child(plain_loaded_child);
	ut_run_child(no_decompress_child);
	ut_run_child(other_format_child);
	assert_int_equal(ut_rm_tree(comp_dir), 0);
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
		cmocka_unit_test(test_compression_by_name),
		cmocka_unit_test(test_decompress_refusal),
		cmocka_unit_test(test_compressed_modules_loaded_by_the_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
