// SPDX-License-Identifier: LGPL-2.1-or-later
/* The configuration pipeline (lib/boot/plan.c) and the failure value (lib/boot/failure.c): what each mode
 * gets from the same function, and what applies when a step refuses. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "failure.h"
#include "plan.h"

#define H  "4f8b2d0e1c7a9b3d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5"
#define H2 "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define ROOT "roothash=" H " verity.data=/dev/vda verity.hash=/dev/vdb "
#define RECOVERY "verity.recovery.roothash=" H2 " verity.recovery.data=/dev/vdc " \
		 "verity.recovery.hash=/dev/vdd "

static char dir[64];
static char policy_path[96];
static struct vi_plan plan;
static struct vi_failure failure;

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_plan.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(policy_path, sizeof(policy_path), "%s/verity-init.conf", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(policy_path);
	rmdir(dir);
	return 0;
}

static void policy(const char *text)
{
	FILE *f = fopen(policy_path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* vi_plan_build over cmdline; rootfd AT_FDCWD is never used: no manifest, no signature. */
static int build(const char *cmdline, bool boot, bool pid1, bool guard_missing)
{
	const struct vi_plan_input in = {
		.cmdline = cmdline,
		.pid1 = pid1,
		.policy_path = policy_path,
		.boot = boot,
		.kernel_guard_missing = guard_missing,
		.rootfd = AT_FDCWD,
	};

	int r;

	memset(&failure, 0, sizeof(failure));
	r = vi_plan_build(&in, &plan, &failure);
	if (getenv("TEST_PLAN_DEBUG"))   /* what a failing assertion is about */
		fprintf(stderr, "build '%s': %d %s: %s\n", cmdline, r, failure.context,
			failure.reason.msg);
	return r;
}

static void assert_line(const char *want)
{
	char line[512];

	vi_failure_log_line(&failure, line, sizeof(line));
	assert_string_equal(line, want);
}

/* parse: steps 1-2 only, the policy's defaults filled in, nothing of the trust step */
static void test_parse_mode(void **state)
{
	(void)state;
	policy("fail=reboot\ntimeout=7\n");
	assert_int_equal(build(ROOT RECOVERY, false, false, false), 0);
	assert_false(failure.set);
	assert_false(plan.refused);
	assert_false(plan.trusted);
	assert_true(plan.cfg.root.enabled);
	assert_true(plan.recovery_allowed);
	assert_int_equal(plan.cfg.fail[0], VI_FAIL_REBOOT);
	assert_int_equal(plan.cfg.timeout_s, 7);
	/* our keys after "--": init's arguments to the kernel, settings to dracut and systemd,
	 * refused in every mode */
	assert_int_equal(build("-- " ROOT, false, true, false), -EINVAL);
	assert_int_equal(build("-- " ROOT, false, false, false), -EINVAL);
	/* dracut's shell switches mean nothing to PID 1 */
	assert_int_equal(build(ROOT "rd.break", false, true, false), 0);
	assert_false(plan.cfg.shell_requested);
}

/* a refused command line: nothing of it is used, the policy's fail actions still are */
static void test_cmdline_refused(void **state)
{
	(void)state;
	policy("fail=reboot\n");
	assert_int_equal(build(ROOT RECOVERY "verity.fail=recovery,bogus", true, true, false),
			 -EINVAL);
	assert_true(failure.set);
	assert_true(plan.refused);
	assert_false(plan.trusted);
	assert_int_equal(failure.stage, VI_STAGE_CONFIG);
	assert_ptr_equal(failure.target, &plan.cfg.root);
	assert_int_equal(failure.error, -EINVAL);
	assert_string_equal(failure.context, "command line refused");
	assert_false(plan.cfg.root.enabled);
	assert_false(plan.recovery_allowed);
	assert_int_equal(plan.cfg.fail[0], VI_FAIL_REBOOT);
	assert_int_equal(plan.cfg.fail[1], VI_FAIL_NONE);
}

/* a command line the policy refuses: the defaults again, with the policy's fail actions */
static void test_policy_refused(void **state)
{
	(void)state;
	policy("require_signature=yes\nfail=poweroff\n");
	assert_int_equal(build(ROOT RECOVERY "verity.fail=recovery", false, false, false), -EPERM);
	assert_true(plan.refused);
	assert_string_equal(failure.context, "policy");
	assert_non_null(strstr(failure.reason.msg, "a signed root hash is required"));
	assert_false(plan.cfg.root.enabled);
	assert_false(plan.recovery_allowed);
	assert_int_equal(plan.cfg.fail[0], VI_FAIL_POWEROFF);
	assert_line("policy: a signed root hash is required but no signature (verity.sig=, "
		    "root-hash-signature=) or verity.manifest= is given");
	/* "shell" is dropped, not refused, without allow_shell */
	policy("");
	assert_int_equal(build(ROOT "verity.fail=shell,reboot", false, false, false), 0);
	assert_true(plan.cfg.shell_dropped);
	assert_int_equal(plan.cfg.fail[0], VI_FAIL_REBOOT);
}

/* PID 1 and setup: something to boot, before any device is read */
static void test_boot_checks(void **state)
{
	(void)state;
	policy("");
	assert_int_equal(build("quiet", true, true, false), -ENOENT);
	assert_false(plan.refused);
	assert_false(plan.trusted);
	assert_line("no root hash on the command line (roothash= or verity.roothash=)");
	policy("allow_weak=verity-off\n");
	assert_int_equal(build("systemd.verity=0", true, true, false), -EPERM);
	assert_non_null(strstr(failure.reason.msg, "verity disabled on the command line"));
	policy("");
	assert_int_equal(build(ROOT, true, true, true), -EPERM);
	assert_non_null(strstr(failure.reason.msg, "dm_verity.require_signatures is not Y"));
	/* parse does not ask */
	assert_int_equal(build("quiet", false, false, true), 0);
	/* nothing to sign: the trust step runs and has nothing to do */
	assert_int_equal(build(ROOT RECOVERY, true, true, false), 0);
	assert_false(failure.set);
	assert_true(plan.trusted);
	assert_false(plan.trust.manifest);
	assert_true(plan.recovery_allowed);
	vi_plan_release_keys(&plan);
}

/* Step 4 on its own, as the A/B boot step runs it per slot: it replaces the plan's trust
 * outcome; the manifest's log line, one text for the root and for a slot. */
static void test_trust_step(void **state)
{
	char line[VI_PLAN_MANIFEST_LINE_MAX] = "untouched";

	(void)state;
	policy("");
	assert_int_equal(build(ROOT RECOVERY, false, true, false), 0);
	assert_false(plan.trusted);
	/* nothing to sign: nothing to do, the recovery root stays allowed */
	assert_int_equal(vi_plan_trust(&plan, AT_FDCWD, &failure.reason), 0);
	assert_true(plan.trusted);
	assert_true(plan.recovery_allowed);
	assert_false(vi_plan_manifest_line(&plan, "root", line, sizeof(line)));
	assert_string_equal(line, "untouched");
	/* the outcome of a step that merged a manifest, as the signature step leaves it */
	plan.trust.manifest = true;
	plan.trust.version = 7;
	snprintf(plan.trust.source, sizeof(plan.trust.source), "%s",
		 "PARTLABEL=root-b-verity (after the hash tree)");
	snprintf(plan.trust.key_id, sizeof(plan.trust.key_id), "%s", "0123456789ABCDEF");
	snprintf(plan.trust.key_file, sizeof(plan.trust.key_file), "%s", "test.pub");
	assert_true(vi_plan_manifest_line(&plan, "slot b", line, sizeof(line)));
	assert_string_equal(line, "slot b: signed manifest version 7 from PARTLABEL=root-b-verity "
			    "(after the hash tree) verified with key 0123456789ABCDEF (test.pub)");
	/* the next slot's step replaces that outcome whole, the recovery decision with it */
	plan.trust.recovery_dropped = true;
	plan.recovery_allowed = false;
	assert_int_equal(vi_plan_trust(&plan, AT_FDCWD, &failure.reason), 0);
	assert_false(plan.trust.manifest);
	assert_true(plan.recovery_allowed);
	vi_plan_release_keys(&plan);
}

/* The failure value: the last vi_failure_set wins, the log line is context + reason. */
static void test_failure_value(void **state)
{
	struct vi_target t = { .name = "root" };
	struct vi_error e = { "top hash block mismatch" };
	struct vi_failure f;

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(vi_failure_set(&f, VI_STAGE_CONFIG, NULL, -EPERM, "policy", &e), -EPERM);
	assert_int_equal(vi_failure_set(&f, VI_STAGE_PREFLIGHT, &t, -EPERM, "root: preflight failed",
					&e), -EPERM);
	failure = f;
	assert_true(failure.set);
	assert_int_equal(failure.stage, VI_STAGE_PREFLIGHT);
	assert_ptr_equal(failure.target, &t);
	assert_line("root: preflight failed: top hash block mismatch");
	/* no context: the reason alone; no reason: empty; a non-negative error is not success */
	assert_int_equal(vi_failure_set(&failure, VI_STAGE_SWITCH, &t, 0, NULL, NULL), -EINVAL);
	assert_line("");
	assert_string_equal(failure.reason.msg, "");
}

/* a policy the caller has read already (PID 1, for the modules' parameters) is the one used:
 * the file is not read again, and its reading's error is the plan's */
static void test_policy_read_by_the_caller(void **state)
{
	struct vi_policy pre;
	struct vi_error perr = { "" };
	struct vi_plan_input in = {
		.cmdline = ROOT, .pid1 = true, .policy_path = policy_path, .boot = false,
		.rootfd = AT_FDCWD,
	};

	(void)state;
	policy("fail=reboot\n");
	assert_int_equal(vi_policy_load(policy_path, &pre, &perr), 0);
	policy("fail=poweroff\n");   /* changed on disk after the caller read it */
	in.policy_read = &pre;
	in.policy_read_r = 0;
	memset(&failure, 0, sizeof(failure));
	assert_int_equal(vi_plan_build(&in, &plan, &failure), 0);
	assert_int_equal(plan.cfg.fail[0], VI_FAIL_REBOOT);
	/* the caller's reading failed: refused with its reason, the strictest defaults apply */
	snprintf(perr.msg, sizeof(perr.msg), "policy line 1: unknown key 'x'");
	in.policy_read_r = -EINVAL;
	in.policy_read_err = &perr;
	assert_int_equal(vi_plan_build(&in, &plan, &failure), -EINVAL);
	assert_true(plan.refused);
	assert_line("policy: policy line 1: unknown key 'x'");
	assert_int_equal(plan.cfg.fail[0], VI_FAIL_PANIC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_mode),
		cmocka_unit_test(test_cmdline_refused),
		cmocka_unit_test(test_policy_refused),
		cmocka_unit_test(test_boot_checks),
		cmocka_unit_test(test_trust_step),
		cmocka_unit_test(test_failure_value),
		cmocka_unit_test(test_policy_read_by_the_caller),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
