// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/modules.c: the list format (comments, blank lines, blanks around paths), a missing list,
 * and a failing line that is named while the rest is still tried. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "modules.h"

static void test_missing_list_is_fine(void **state)
{
	struct verity_err err = { "" };
	unsigned loaded = 9, skipped = 9;

	(void)state;
	assert_int_equal(vi_modules_load("/nonexistent/verity-init/modules", &loaded, &skipped,
					 &err), 0);
	assert_int_equal(loaded, 0);
	assert_int_equal(skipped, 0);
}

static void test_failures_named(void **state)
{
	char list[] = "/tmp/vi-modules-XXXXXX";
	struct verity_err err = { "" };
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
	r = vi_modules_load(list, &loaded, &skipped, &err);
	unlink(list);
	assert_int_equal(r, -ENOENT);
	assert_int_equal(loaded, 0);
	assert_non_null(strstr(err.msg, "/nonexistent/first.ko"));
	assert_null(strstr(err.msg, "second"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_list_is_fine),
		cmocka_unit_test(test_failures_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
