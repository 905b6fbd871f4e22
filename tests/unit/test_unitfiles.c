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

static void test_path_escape_as_systemd_escape(void **state)
{
	char out[64];

	(void)state;
	/* the values of `systemd-escape --path` */
	assert_int_equal(vi_unit_path_escape("/dev/mapper/root", out, sizeof(out)), 0);
	assert_string_equal(out, "dev-mapper-root");
	assert_int_equal(vi_unit_path_escape("/dev/mapper/v-root", out, sizeof(out)), 0);
	assert_string_equal(out, "dev-mapper-v\\x2droot");
	assert_int_equal(vi_unit_path_escape("/dev/mapper/a.b_c:d", out, sizeof(out)), 0);
	assert_string_equal(out, "dev-mapper-a.b_c:d");
	assert_int_equal(vi_unit_path_escape("/.x/a b\\", out, sizeof(out)), 0);
	assert_string_equal(out, "\\x2ex-a\\x20b\\x5c");
	assert_int_equal(vi_unit_path_escape("/dev/mapper/.x", out, sizeof(out)), 0);
	assert_string_equal(out, "dev-mapper-.x");
	/* what systemd-escape refuses to escape as a path */
	assert_int_equal(vi_unit_path_escape("dev/x", out, sizeof(out)), -EINVAL);
	assert_int_equal(vi_unit_path_escape("/", out, sizeof(out)), -EINVAL);
	assert_int_equal(vi_unit_path_escape("/dev//x", out, sizeof(out)), -EINVAL);
	assert_int_equal(vi_unit_path_escape("/dev/x/", out, sizeof(out)), -EINVAL);
	assert_int_equal(vi_unit_path_escape("/dev/../x", out, sizeof(out)), -EINVAL);
	assert_int_equal(vi_unit_path_escape("/dev/./x", out, sizeof(out)), -EINVAL);
	assert_int_equal(vi_unit_path_escape("/dev/x", out, 5), -ENOBUFS);
	assert_int_equal(vi_unit_path_escape("/dev/x", out, 6), 0);
	assert_int_equal(vi_unit_path_escape("/-", out, 4), -ENOBUFS);
}

static void test_value_escape(void **state)
{
	char out[32];

	(void)state;
	assert_int_equal(vi_unit_value_escape("noatime,data=ordered", out, sizeof(out)), 0);
	assert_string_equal(out, "noatime,data=ordered");
	assert_int_equal(vi_unit_value_escape("context=x%Qy", out, sizeof(out)), 0);
	assert_string_equal(out, "context=x%%Qy");
	assert_int_equal(vi_unit_value_escape("", out, sizeof(out)), 0);
	assert_string_equal(out, "");
	/* what would end, continue or reopen the line */
	assert_int_equal(vi_unit_value_escape("a\nExecStart=/bin/sh", out, sizeof(out)), -EINVAL);
	assert_int_equal(vi_unit_value_escape("a\\", out, sizeof(out)), -EINVAL);
	assert_int_equal(vi_unit_value_escape("a\x7f", out, sizeof(out)), -EINVAL);
	assert_int_equal(vi_unit_value_escape(" a", out, sizeof(out)), -EINVAL);
	assert_int_equal(vi_unit_value_escape("\"a", out, sizeof(out)), -EINVAL);
	assert_int_equal(vi_unit_value_escape("%%", out, 4), -ENOBUFS);
	assert_int_equal(vi_unit_value_escape("%", out, 3), 0);
	assert_int_equal(vi_unit_value_escape("", out, 0), -ENOBUFS);
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
