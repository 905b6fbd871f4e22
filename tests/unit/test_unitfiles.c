// SPDX-License-Identifier: LGPL-2.1-or-later
/* dracut's command line as getcmdline() joins a file's lines (lib/config/dracutline.c), and the
 * unit names and values the systemd generator writes (lib/util/unitname.c). The expected lines
 * are what bash's `read -r` loop of dracut-lib.sh gives (tests/cli/generator_test.sh runs the
 * real one against the agent). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "dracutline.h"
#include "unitname.h"

static const char *append(const char *buf, size_t n)
{
	static char part[128];
	size_t len = 0;

	assert_int_equal(vi_dracut_line_append(part, sizeof(part), &len, buf, n), 0);
	assert_int_equal(len, strlen(part));
	return part;
}

#define APPEND(s) append(s, sizeof(s) - 1)

static void test_lines_as_read_reads_them(void **state)
{
	(void)state;
	assert_string_equal(APPEND(""), "");
	assert_string_equal(APPEND("a b\n"), " a b");
	/* blanks and tabs at the ends go, those inside stay, a CR is text */
	assert_string_equal(APPEND(" \ta  b \t\n"), " a  b");
	assert_string_equal(APPEND("a\r\n"), " a\r");
	/* every line a space, an empty line too; backslashes are kept (read -r) */
	assert_string_equal(APPEND("a\n\nb\\\n"), " a  b\\");
	/* a last line without '\n' only when something is left of it */
	assert_string_equal(APPEND("a\nb"), " a b");
	assert_string_equal(APPEND("a\n \t"), " a");
	assert_string_equal(APPEND("\n"), " ");
	/* NUL bytes are not there for read */
	assert_string_equal(APPEND("a\0b\n\0 c"), " ab c");
}

static void test_lines_do_not_overflow(void **state)
{
	char part[8];
	size_t len = 0;

	(void)state;
	assert_int_equal(vi_dracut_line_append(part, sizeof(part), &len, "abc\n", 4), 0);
	assert_string_equal(part, " abc");
	assert_int_equal(vi_dracut_line_append(part, sizeof(part), &len, "xyz\n", 4), -E2BIG);
	assert_string_equal(part, " abc");   /* unchanged */
	assert_int_equal(len, 4);
	assert_int_equal(vi_dracut_line_append(part, sizeof(part), &len, "xy\n", 3), 0);
	assert_string_equal(part, " abc xy");
	assert_int_equal(vi_dracut_line_append(part, sizeof(part), &len, "\n", 1), -E2BIG);
}

/* One call of an escaping function: input, output size, result and, on success, the text. */
struct escape_row {
	const char *in;
	size_t size;
	int r;
	const char *want;
};

#define ESCAPE_OUT 64   /* the largest output size a row gives */

static void escape_rows(int (*escape)(const char *, char *, size_t), const struct escape_row *rows,
			size_t n)
{
	char out[ESCAPE_OUT];

	for (size_t i = 0; i < n; i++) {
		const char *want;
		int r;

		assert_true(rows[i].size <= sizeof(out));
		r = escape(rows[i].in, out, rows[i].size);
		if (r != rows[i].r)
			fail_msg("'%s' into %zu bytes: got %d, want %d", rows[i].in, rows[i].size, r,
				 rows[i].r);
		want = rows[i].want ? rows[i].want : "";
		if (r == 0 && strcmp(out, want) != 0)
			fail_msg("'%s': got '%s', want '%s'", rows[i].in, out, want);
	}
}

static void test_path_escape_as_systemd_escape(void **state)
{
	static const struct escape_row rows[] = {
		/* the values of `systemd-escape --path` */
		{ "/dev/mapper/root", 64, 0, "dev-mapper-root" },
		{ "/dev/mapper/v-root", 64, 0, "dev-mapper-v\\x2droot" },
		{ "/dev/mapper/a.b_c:d", 64, 0, "dev-mapper-a.b_c:d" },
		{ "/.x/a b\\", 64, 0, "\\x2ex-a\\x20b\\x5c" },
		{ "/dev/mapper/.x", 64, 0, "dev-mapper-.x" },
		/* what systemd-escape refuses to escape as a path */
		{ "dev/x", 64, -EINVAL, NULL },
		{ "/", 64, -EINVAL, NULL },
		{ "/dev//x", 64, -EINVAL, NULL },
		{ "/dev/x/", 64, -EINVAL, NULL },
		{ "/dev/../x", 64, -EINVAL, NULL },
		{ "/dev/./x", 64, -EINVAL, NULL },
		{ "/dev/x", 5, -ENOBUFS, NULL },
		{ "/dev/x", 6, 0, "dev-x" },
		{ "/-", 4, -ENOBUFS, NULL },
	};

	(void)state;
	escape_rows(vi_unit_path_escape, rows, sizeof(rows) / sizeof(rows[0]));
}

static void test_value_escape(void **state)
{
	static const struct escape_row rows[] = {
		{ "noatime,data=ordered", 32, 0, "noatime,data=ordered" },
		{ "context=x%Qy", 32, 0, "context=x%%Qy" },
		{ "", 32, 0, "" },
		/* what would end, continue or reopen the line */
		{ "a\nExecStart=/bin/sh", 32, -EINVAL, NULL },
		{ "a\\", 32, -EINVAL, NULL },
		{ "a\x7f", 32, -EINVAL, NULL },
		{ " a", 32, -EINVAL, NULL },
		{ "\"a", 32, -EINVAL, NULL },
		{ "%%", 4, -ENOBUFS, NULL },
		{ "%", 3, 0, "%%" },
		{ "", 0, -ENOBUFS, NULL },
	};

	(void)state;
	escape_rows(vi_unit_value_escape, rows, sizeof(rows) / sizeof(rows[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_as_read_reads_them),
		cmocka_unit_test(test_lines_do_not_overflow),
		cmocka_unit_test(test_path_escape_as_systemd_escape),
		cmocka_unit_test(test_value_escape),
	};
	return cmocka_run_group_tests_name("unitfiles", tests, NULL, NULL);
}
