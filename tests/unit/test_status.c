// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/status.c: key=value lines, values sanitized, written atomically into a new directory. */
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

#include "status.h"

static void test_write(void **state)
{
	char top[] = "/tmp/vi-status-XXXXXX", dir[300], path[320], buf[1024] = "";
	struct verity_err err = { "" };
	struct vi_status st = {
		.result = "failed",
		.name = "root",
		.root_hash = "abcd",
		.stage = "superblock",
		.reason = "bad\nreason=forged\x1b",
		.action = "recovery",
		.booted = NULL,
	};
	FILE *f;
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(dir, sizeof(dir), "%s/verity-init", top);
	assert_int_equal(vi_status_write(dir, &st, &err), 0);
	snprintf(path, sizeof(path), "%s/status", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_string_equal(buf, "result=failed\nname=root\nroothash=abcd\nstage=superblock\n"
				 "reason=bad?reason=forged?\naction=recovery\nbooted=\n");
	/* rewriting replaces the file; no temporary file stays behind */
	st.result = "ok";
	assert_int_equal(vi_status_write(dir, &st, &err), 0);
	snprintf(path, sizeof(path), "%s/status.tmp", dir);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "rm -rf '%s'", top);
	assert_int_equal(system(path), 0);
	/* an unwritable place is an error with a reason */
	assert_true(vi_status_write("/proc/vi-no-such/dir", &st, &err) < 0);
	assert_non_null(strstr(err.msg, "/proc/vi-no-such"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
