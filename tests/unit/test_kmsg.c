// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/util/kmsg.c: one record per line, control characters neutralized, long messages cut visibly. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "kmsg.h"

static void test_format(void **state)
{
	char out[128];
	size_t n;

	(void)state;
	n = vi_kmsg_format(out, sizeof(out), KMSG_ERR, 1, "root: preflight failed");
	assert_string_equal(out, "<3>verity-init[1]: root: preflight failed\n");
	assert_int_equal(n, strlen(out));
	/* a label from a disk cannot start a second record or carry escapes */
	vi_kmsg_format(out, sizeof(out), KMSG_INFO, 42, "label=x\n<0>forged\x1b[2J");
	assert_string_equal(out, "<6>verity-init[42]: label=x?<0>forged?[2J\n");
	/* out of range priority becomes ERR */
	vi_kmsg_format(out, sizeof(out), 99, 1, "m");
	assert_string_equal(out, "<3>verity-init[1]: m\n");
}

static void test_cut(void **state)
{
	char out[32], msg[100];

	(void)state;
	memset(msg, 'a', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	vi_kmsg_format(out, sizeof(out), KMSG_INFO, 1, msg);
	assert_int_equal(strlen(out), sizeof(out) - 1);
	assert_string_equal(out + strlen(out) - 4, "...\n");
	assert_int_equal(vi_kmsg_format(out, 8, KMSG_INFO, 1, "x"), 0);
}

/* Without /dev/kmsg the record goes to the fallback fd, without the <prio> prefix. */
static void test_fallback(void **state)
{
	struct vi_kmsg k = KMSG_INIT;
	char buf[256] = "";
	int p[2];
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(p), 0);
	k.fallback_fd = p[1];
	k.pid = 7;
	vi_kmsg_log(&k, KMSG_INFO, "info");
	vi_kmsg_log(&k, KMSG_ERR, "value %d", 5);
	vi_kmsg_log(&k, KMSG_DEBUG, "dropped"); /* above max_prio */
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	assert_true(n > 0);
	assert_string_equal(buf, "verity-init[7]: info\nverity-init[7]: value 5\n");
}

/* A record before vi_kmsg_open (PID 1 logs while mounting /dev) carries our pid, not 0. */
static void test_pid_before_open(void **state)
{
	struct vi_kmsg k = KMSG_INIT;
	char buf[256] = "", want[64];
	int p[2];
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(p), 0);
	k.fallback_fd = p[1];
	vi_kmsg_log(&k, KMSG_ERR, "early");
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	assert_true(n > 0);
	snprintf(want, sizeof(want), "verity-init[%d]: early\n", (int)getpid());
	assert_string_equal(buf, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_fallback),
		cmocka_unit_test(test_pid_before_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
