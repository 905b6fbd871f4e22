// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/boot/status.c: key=value lines, values sanitized, written atomically into a new directory. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "helpers.h"
#include "status.h"

static void test_write(void **state)
{
	char top[] = "/tmp/vi-status-XXXXXX", dir[300], path[320], buf[1024] = "";
	struct vi_error err = { "" };
	struct vi_status st = {
		.result = "failed",
		.name = "root",
		.root_hash = "abcd",
		.stage = "superblock",
		.reason = "bad\nreason=forged\x1b",
		.action = "recovery",
		.booted = NULL,
	};

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(dir, sizeof(dir), "%s/verity-init", top);
	assert_int_equal(vi_status_write(dir, &st, &err), 0);
	ut_path(path, sizeof(path), dir, "status");
	ut_read_file(path, buf, sizeof(buf));
	assert_string_equal(buf, "result=failed\nname=root\nroothash=abcd\nstage=superblock\n"
				 "reason=bad?reason=forged?\naction=recovery\nbooted=\n");
	/* rewriting replaces the file; no temporary file stays behind */
	st.result = "ok";
	assert_int_equal(vi_status_write(dir, &st, &err), 0);
	snprintf(path, sizeof(path), "%s/status.tmp", dir);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(ut_rm_tree(top), 0);
	/* an unwritable place is an error with a reason */
	assert_true(vi_status_write("/proc/vi-no-such/dir", &st, &err) < 0);
	assert_non_null(strstr(err.msg, "/proc/vi-no-such"));
}

/* Reading it back (the dracut runtime keeps a boot's first failure): the known keys, the last of
 * a repeat, "" for a key absent or a line without '='; and what vi_status_write wrote. */
static void test_read(void **state)
{
	char text[] = "result=failed\nname=root\nreason=first\nnoise\nreason=a=b\n=x\nbooted=\n"
		      "unknown=1";
	char top[] = "/tmp/vi-status-XXXXXX", buf[VI_STATUS_MAX];
	struct vi_error err = { "" };
	struct vi_status st, back;

	(void)state;
	vi_status_parse(text, &st);
	assert_string_equal(st.result, "failed");
	assert_string_equal(st.name, "root");
	assert_string_equal(st.reason, "a=b");
	assert_string_equal(st.root_hash, "");
	assert_string_equal(st.booted, "");
	assert_string_equal(st.action, "");
	assert_non_null(mkdtemp(top));
	assert_null(st.slot);
	assert_null(st.store);
	assert_null(st.on_corruption);
	assert_null(st.managed);
	st = (struct vi_status){ .result = "failed", .name = "root", .root_hash = "abcd",
				 .stage = "init", .reason = "reading init failed",
				 .action = "recovery", .booted = "cdcd", .slot = "b",
				 .on_corruption = "eio", .managed = "degraded" };
	assert_int_equal(vi_status_write(top, &st, &err), 0);
	assert_int_equal(vi_status_read(top, buf, sizeof(buf), &back), 0);
	assert_string_equal(back.result, "failed");
	assert_string_equal(back.root_hash, "abcd");
	assert_string_equal(back.stage, "init");
	assert_string_equal(back.reason, "reading init failed");
	assert_string_equal(back.action, "recovery");
	assert_string_equal(back.booted, "cdcd");
	assert_string_equal(back.slot, "b");
	assert_null(back.store);
	assert_string_equal(back.on_corruption, "eio");
	assert_string_equal(back.managed, "degraded");
	assert_int_equal(ut_rm_tree(top), 0);
	assert_true(vi_status_read(top, buf, sizeof(buf), &back) < 0);
}

/* The status of a boot comes from the failure value: the failed target's name and hash, the
 * stage and reason; booted= the root finally set up. */
static void test_from_failure(void **state)
{
	struct vi_target root = { .name = "root", .root_hash = { 0xab, 0xcd }, .root_hash_len = 2 };
	struct vi_target rec = { .name = "recovery", .root_hash = { 0x01 }, .root_hash_len = 1 };
	struct vi_error e = { "top hash block mismatch" };
	struct vi_status_hashes h;
	struct vi_failure f;
	struct vi_status st;

	(void)state;
	/* no failure: a good boot */
	memset(&f, 0, sizeof(f));
	vi_status_from_failure("ok", "none", &f, &root, &h, &st);
	assert_string_equal(st.name, "root");
	assert_string_equal(st.root_hash, "abcd");
	assert_string_equal(st.stage, "");
	assert_string_equal(st.reason, "");
	assert_string_equal(st.booted, "abcd");
	/* the root failed, the recovery root booted: the file describes the first failure */
	vi_failure_set(&f, VI_STAGE_PREFLIGHT, &root, -EPERM, "root: preflight failed", &e);
	vi_status_from_failure("failed", "recovery", &f, &rec, &h, &st);
	assert_string_equal(st.result, "failed");
	assert_string_equal(st.action, "recovery");
	assert_string_equal(st.name, "root");
	assert_string_equal(st.root_hash, "abcd");
	assert_string_equal(st.stage, "preflight");
	assert_string_equal(st.reason, "top hash block mismatch");
	assert_string_equal(st.booted, "01");
	/* nothing booted, no failure value at all */
	vi_status_from_failure("failed", "panic", NULL, NULL, &h, &st);
	assert_string_equal(st.name, "");
	assert_string_equal(st.root_hash, "");
	assert_string_equal(st.booted, "");
}

/* What a boot came to, written with the agent's words and read back: a recovery root is not a
 * failed boot, and neither is the root that booted. */
static void test_outcome_round_trip(void **state)
{
	struct vi_target root = { .name = "root", .root_hash = { 0xab }, .root_hash_len = 1 };
	struct vi_target rec = { .name = "root", .root_hash = { 0x01 }, .root_hash_len = 1 };
	static const struct {
		const char *result, *action;
		bool failed, booted;
		enum vi_boot_outcome outcome;
	} boots[] = {
		{ VI_STATUS_RESULT_OK, VI_STATUS_ACTION_NONE, false, true, VI_BOOT_BOOTED },
		{ VI_STATUS_RESULT_FAILED, VI_STATUS_ACTION_RECOVERY, true, true, VI_BOOT_RECOVERY },
		/* dracut's record before the recovery root is set up */
		{ VI_STATUS_RESULT_FAILED, VI_STATUS_ACTION_RECOVERY, true, false, VI_BOOT_RECOVERY },
		{ VI_STATUS_RESULT_FAILED, "panic", true, false, VI_BOOT_FAILED },
		{ VI_STATUS_RESULT_FAILED, "shell", true, false, VI_BOOT_FAILED },
		{ VI_STATUS_RESULT_FAILED, VI_STATUS_ACTION_NONE, true, false, VI_BOOT_FAILED },
	};
	char top[] = "/tmp/vi-status-XXXXXX", buf[VI_STATUS_MAX];
	struct vi_error e = { "init not found" }, err = { "" };
	struct vi_status_hashes h;
	struct vi_status st, back;
	struct vi_failure f;

	(void)state;
	assert_non_null(mkdtemp(top));
	for (size_t i = 0; i < sizeof(boots) / sizeof(boots[0]); i++) {
		memset(&f, 0, sizeof(f));
		if (boots[i].failed)
			vi_failure_set(&f, VI_STAGE_INIT, &root, -ENOENT, "root", &e);
		vi_status_from_failure(boots[i].result, boots[i].action, &f,
				       boots[i].booted ? (boots[i].failed ? &rec : &root) : NULL,
				       &h, &st);
		assert_int_equal(vi_status_write(top, &st, &err), 0);
		assert_int_equal(vi_status_read(top, buf, sizeof(buf), &back), 0);
		assert_int_equal(vi_status_outcome(&back), boots[i].outcome);
	}
	/* what no agent writes says nothing ran */
	memset(&back, 0, sizeof(back));
	assert_int_equal(vi_status_outcome(&back), VI_BOOT_FAILED);
	back.result = "recovery";
	assert_int_equal(vi_status_outcome(&back), VI_BOOT_FAILED);
	assert_int_equal(ut_rm_tree(top), 0);
}

/* A/B boots: slot= and store= only after vi_status_set_slot, values sanitized like the rest. */
static void test_slot_lines(void **state)
{
	char top[] = "/tmp/vi-status-XXXXXX", path[320], buf[1024] = "";
	struct vi_error err = { "" };
	struct vi_status st = { .result = "ok", .action = "none" };

	(void)state;
	assert_non_null(mkdtemp(top));
	vi_status_set_slot(&st, "b", "/dev/disk/by-partlabel/verity-slots\n");
	assert_int_equal(vi_status_write(top, &st, &err), 0);
	ut_path(path, sizeof(path), top, "status");
	ut_read_file(path, buf, sizeof(buf));
	assert_string_equal(buf, "result=ok\nname=\nroothash=\nstage=\nreason=\naction=none\n"
				 "booted=\nslot=b\nstore=/dev/disk/by-partlabel/verity-slots?\n");
	assert_int_equal(ut_rm_tree(top), 0);
}

/* systemd's veritysetup told to stand down for a mapping: the drop-in, its parents made; names
 * that would need systemd's escaping refused, nothing written. */
static void test_veritysetup_standdown(void **state)
{
	char dir[] = "/tmp/test_standdown.XXXXXX", units[300], path[400], buf[512];
	struct vi_error err;
	ssize_t n;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(units, sizeof(units), "%s/run/systemd/system.control", dir);
	assert_int_equal(vi_status_veritysetup_standdown(units, "root", &err), 0);
	snprintf(path, sizeof(path), "%s/systemd-veritysetup@root.service.d/50-verity-init.conf",
		 units);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(strstr(buf, "\n[Unit]\nConditionPathExists=!/dev/mapper/root\n"));
	/* again: the same file, no error */
	assert_int_equal(vi_status_veritysetup_standdown(units, "root", &err), 0);
	assert_int_equal(vi_status_veritysetup_standdown(units, "my-root", &err), -EINVAL);
	assert_int_equal(vi_status_veritysetup_standdown(units, "a/../b", &err), -EINVAL);
	assert_int_equal(vi_status_veritysetup_standdown(units, "", &err), -EINVAL);
	assert_int_equal(vi_status_veritysetup_standdown(units, "x\nConditionHost=y", &err),
			 -EINVAL);
	snprintf(path, sizeof(path), "%s/systemd-veritysetup@my-root.service.d", units);
	assert_int_equal(access(path, F_OK), -1);
	/* /run/systemd/system itself would say that systemd is PID 1 (sd_booted) */
	snprintf(path, sizeof(path), "%s/run/systemd/system", dir);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_from_failure),
		cmocka_unit_test(test_outcome_round_trip),
		cmocka_unit_test(test_slot_lines),
		cmocka_unit_test(test_veritysetup_standdown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
