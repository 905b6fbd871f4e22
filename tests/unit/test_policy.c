// SPDX-License-Identifier: LGPL-2.1-or-later
/* The initramfs policy file: parsing, loading, and what it lets the command line do. */
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

#include "cmdline.h"
#include "config.h"
#include "helpers.h"
#include "policy.h"

#define H  "4f8b2d0e1c7a9b3d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5"
#define H2 "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define ROOT "roothash=" H " verity.data=/dev/vda verity.hash=/dev/vdb "

static struct vi_policy pol;
static struct vi_config cfg;
static struct vi_error err;

static void pok(const char *text)
{
	memset(&err, 0, sizeof(err));
	ut_verdict(text, vi_policy_parse(text, strlen(text), &pol, &err), &err, 0, NULL);
}

/* Refused with a reason containing want, and pol untouched. */
static void pbad(const char *text, const char *want)
{
	struct vi_policy before;

	memset(&pol, 0x3c, sizeof(pol));
	before = pol;
	ut_verdict(text, vi_policy_parse(text, strlen(text), &pol, &err), &err, -EINVAL, want);
	assert_memory_equal(&pol, &before, sizeof(pol));
}

/* apply(policy text, command line) must give r; with r < 0 the reason contains want. */
static void apply(const char *policy, const char *cmdline, int want_r, const char *want)
{
	ut_policy_apply(policy, cmdline, &pol, &cfg, want_r, want);
}

/* A run of apply() of one shape: each row's failure names its policy and command line. */
struct apply_row {
	const char *policy, *cmdline;
	int r;
	const char *why;
};

static void apply_rows(const struct apply_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		apply(rows[i].policy, rows[i].cmdline, rows[i].r, rows[i].why);
}

/* A run of pbad(): text and the reason's part. */
struct refusal {
	const char *text, *why;
};

static void pbad_rows(const struct refusal *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pbad(rows[i].text, rows[i].why);
}

static void test_parse(void **state)
{
	(void)state;
	pok("");
	assert_false(pol.allow_shell);
	assert_int_equal(pol.allow_weak, 0);
	assert_false(pol.fail_set);
	assert_false(pol.timeout_set);
	assert_false(pol.require_signature);
	assert_int_equal(pol.min_version, 0);
	assert_int_equal(pol.fail[0], VI_FAIL_PANIC);

	pok("# verity-init policy\n"
	    "\n"
	    "fail=recovery,reboot\n"
	    "  timeout = 12  \r\n"
	    "\tallow_shell=yes\n"
	    "allow_weak=ignore-zero-blocks,check-at-most-once,no-superblock,"
	    "data-blocks-below-superblock,ignore-corruption,verity-off\n"
	    "require_signature=true\n"
	    "min_version=18446744073709551615\n"
	    "   # indented comment\n"
	    "fail=recovery,reboot");   /* repeated identically, no final newline */
	assert_true(pol.fail_set);
	assert_int_equal(pol.fail[0], VI_FAIL_RECOVERY);
	assert_int_equal(pol.fail[1], VI_FAIL_REBOOT);
	assert_int_equal(pol.fail[2], VI_FAIL_NONE);
	assert_true(pol.timeout_set);
	assert_int_equal(pol.timeout_s, 12);
	assert_true(pol.allow_shell);
	assert_int_equal(pol.allow_weak, VI_WEAK_IGNORE_ZERO_BLOCKS | VI_WEAK_CHECK_AT_MOST_ONCE |
			 VI_WEAK_NO_SUPERBLOCK | VI_WEAK_DATA_BLOCKS_BELOW_SB |
			 VI_WEAK_IGNORE_CORRUPTION | VI_WEAK_VERITY_OFF);
	assert_true(vi_policy_allows(&pol, VI_WEAK_NO_SUPERBLOCK));
	assert_false(vi_policy_allows(&pol, 0));
	assert_true(pol.require_signature);
	assert_true(pol.min_version == UINT64_MAX);

	pok("allow_weak=none\nallow_shell=no\n");
	assert_int_equal(pol.allow_weak, 0);
	assert_false(vi_policy_allows(&pol, VI_WEAK_IGNORE_ZERO_BLOCKS));
	pok("allow_weak=\n");
	assert_int_equal(pol.allow_weak, 0);
	assert_string_equal(vi_weak_name(VI_WEAK_DATA_BLOCKS_BELOW_SB),
			    "data-blocks-below-superblock");
	assert_null(vi_weak_name(3));
}

static void test_parse_rejections(void **state)
{
	static const struct refusal rows[] = {
		{ "allow_shel=yes\n", "line 1: unknown key 'allow_shel'" },
		{ "\n\nfail\n", "line 3: expected key=value" },
		{ "fail=panic\nfail=reboot\n", "line 2: 'fail' given twice with different values" },
		{ "fail=explode\n", "line 1: fail action" },
		{ "fail=\n", "empty fail action list" },
		{ "timeout=x\n", "timeout" },
		{ "timeout=3601\n", "timeout" },
		{ "allow_shell=sometimes\n", "allow_shell" },
		{ "allow_weak=ignore-zero-blocks,everything\n", "unknown option 'everything'" },
		{ "allow_weak=ignore_zero_blocks\n", "unknown option" },
		{ "require_signature=2\n", "require_signature" },
		{ "min_version=-1\n", "min_version" },
		{ "min_version=18446744073709551616\n", "min_version" },
		{ "init=sbin/init\n", "line 1: init: path 'sbin/init': not an absolute path" },
		{ "init=\n", "init: path" },
		{ "init=/run/init\n", "init: path '/run/init': under /dev, /proc, /sys or /run" },
		{ "init=/sbin/init\ninit=/bin/sh\n", "line 2: 'init' given twice" },
		{ "allow_shell=y\x01s\n", "control characters" },
	};
	char *big;

	(void)state;
	pbad_rows(rows, UT_ARRAY_SIZE(rows));
	assert_int_equal(vi_policy_parse("a\0b", 3, &pol, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "NUL"));
	big = malloc(VI_POLICY_MAX_SIZE + 2);
	assert_non_null(big);
	memset(big, '#', VI_POLICY_MAX_SIZE + 1);
	big[VI_POLICY_MAX_SIZE + 1] = '\0';
	assert_int_equal(vi_policy_parse(big, VI_POLICY_MAX_SIZE + 1, &pol, &err), -E2BIG);
	big[VI_POLICY_MAX_LINE + 1] = '\0';
	pbad(big, "longer than 1024");
	free(big);
}

static void test_load(void **state)
{
	char path[] = "/tmp/test_policy_XXXXXX";
	const char text[] = "allow_shell=yes\nmin_version=7\n";
	int fd;

	(void)state;
	/* No file: the strictest defaults. */
	memset(&pol, 0x7f, sizeof(pol));
	assert_int_equal(vi_policy_load("/nonexistent/verity-init.conf", &pol, &err), 0);
	assert_false(pol.allow_shell);
	assert_int_equal(pol.allow_weak, 0);
	assert_false(pol.require_signature);

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	assert_int_equal(vi_policy_load(path, &pol, &err), 0);
	assert_true(pol.allow_shell);
	assert_int_equal(pol.min_version, 7);
	/* a bad file is refused with the line */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x=1\n", 4), 4);
	close(fd);
	assert_int_equal(vi_policy_load(path, &pol, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "unknown key"));
	unlink(path);
	/* a directory cannot be read */
	assert_true(vi_policy_load("/", &pol, &err) < 0);
}

static void test_weakening(void **state)
{
	static const struct apply_row rows[] = {
		{ "", ROOT, 0, NULL },
		{ "", ROOT "verity.options=ignore-corruption", -EPERM,
		  "'ignore-corruption' weakens" },
		{ "", ROOT "verity.options=check-at-most-once", -EPERM, "'check-at-most-once'" },
		{ "", ROOT "verity.options=ignore-zero-blocks", -EPERM, "'ignore-zero-blocks'" },
		{ "", ROOT "verity.options=superblock=false,data-blocks=8,salt=-", -EPERM,
		  "'no-superblock'" },
		{ "", "dm-mod.create=\"v,,,ro,0 8 verity 1 /dev/vda /dev/vdb 4096 4096 1 1 sha256 "
		  H " -\"", -EPERM, "'no-superblock'" },
		{ "", "systemd.verity=0", -EPERM, "'verity-off'" },
		{ "", ROOT "verity.recovery.roothash=" H2 " verity.recovery.options=ignore-zero-"
		  "blocks", -EPERM, "recovery root: 'ignore-zero-blocks'" },
		/* allowed ones pass, others still refused */
		{ "allow_weak=ignore-corruption", ROOT "verity.options=ignore-corruption", 0,
		  NULL },
		{ "allow_weak=check-at-most-once,ignore-zero-blocks",
		  ROOT "verity.options=check-at-most-once,ignore-zero-blocks", 0, NULL },
		{ "allow_weak=check-at-most-once",
		  ROOT "verity.options=check-at-most-once,ignore-zero-blocks", -EPERM,
		  "'ignore-zero-blocks'" },
		{ "allow_weak=no-superblock", ROOT "verity.options=superblock=false,data-blocks=8,"
		  "salt=-", 0, NULL },
		{ "allow_weak=verity-off", "systemd.verity=0", 0, NULL },
		/* restart/panic policies are not weakening */
		{ "", ROOT "verity.options=panic-on-corruption,restart-on-error", 0, NULL },
	};

	(void)state;
	apply_rows(rows, UT_ARRAY_SIZE(rows));
}

static void test_fail_and_defaults(void **state)
{
	static const struct apply_row dracut_shells[] = {
		{ "", ROOT "rd.break=pre-pivot", -EPERM, "'rd.break' opens a root shell" },
		{ "", ROOT "rd.break", -EPERM, "'rd.break' opens a root shell" },
		{ "", ROOT "rdbreak", -EPERM, "'rdbreak'" },
		{ "", ROOT "rd.shell", -EPERM, "'rd.shell' opens a root shell" },
		{ "", ROOT "rd.shell=0 rd.shell=1", -EPERM, "'rd.shell'" },
		{ "", ROOT "rdshell=yes", -EPERM, "'rdshell'" },
		{ "", ROOT "rd.shell=false", -EPERM, "'rd.shell' opens a root shell" },
		{ "", ROOT "rd.shell=n", -EPERM, "'rd.shell'" },
		{ "", ROOT "rd.shell=Off", -EPERM, "'rd.shell'" },
		{ "", ROOT "rdshell=0", -EPERM, "'rdshell'" },
	};

	(void)state;
	/* A command line alone never opens a shell. */
	apply("", ROOT "verity.fail=shell,reboot", 0, NULL);
	assert_int_equal(cfg.fail[0], VI_FAIL_REBOOT);
	assert_int_equal(cfg.fail[1], VI_FAIL_NONE);
	assert_true(cfg.shell_dropped);
	apply("", ROOT "verity.fail=shell", 0, NULL);
	assert_int_equal(cfg.fail[0], VI_FAIL_PANIC);
	assert_int_equal(cfg.fail[1], VI_FAIL_NONE);
	apply("allow_shell=yes", ROOT "verity.fail=shell,reboot", 0, NULL);
	assert_int_equal(cfg.fail[0], VI_FAIL_SHELL);
	assert_false(cfg.shell_dropped);
	/* vi_policy_check alone refuses a shell that apply would have dropped */
	pok("");
	ut_cmdline(ROOT "verity.fail=shell", &cfg);
	assert_int_equal(vi_policy_check(&cfg, &pol, &err), -EPERM);
	assert_non_null(strstr(err.msg, "'shell' is not allowed"));
	/* dracut's shells from the command line: only with the policy's allow_shell */
	apply_rows(dracut_shells, UT_ARRAY_SIZE(dracut_shells));
	apply("", ROOT "rd.shell=0", 0, NULL);
	assert_false(cfg.shell_allowed);
	apply("allow_shell=yes", ROOT "rd.break=pre-pivot rd.shell", 0, NULL);
	assert_true(cfg.shell_allowed);

	/* Policy defaults fill what the command line left out, never override it. */
	apply("fail=reboot,poweroff\ntimeout=5", ROOT, 0, NULL);
	assert_int_equal(cfg.fail[0], VI_FAIL_REBOOT);
	assert_int_equal(cfg.fail[1], VI_FAIL_POWEROFF);
	assert_int_equal(cfg.timeout_s, 5);
	apply("fail=reboot\ntimeout=5", ROOT "verity.fail=poweroff verity.timeout=9", 0, NULL);
	assert_int_equal(cfg.fail[0], VI_FAIL_POWEROFF);
	assert_int_equal(cfg.timeout_s, 9);
	/* a policy default "recovery" without a recovery root is dropped, with it kept */
	apply("fail=recovery,reboot", ROOT, 0, NULL);
	assert_int_equal(cfg.fail[0], VI_FAIL_REBOOT);
	assert_int_equal(cfg.fail[1], VI_FAIL_NONE);
	apply("fail=recovery,reboot", ROOT "verity.recovery.roothash=" H2, 0, NULL);
	assert_int_equal(cfg.fail[0], VI_FAIL_RECOVERY);
	assert_int_equal(cfg.fail[1], VI_FAIL_REBOOT);
	apply("fail=recovery,shell", ROOT, 0, NULL);
	assert_int_equal(cfg.fail[0], VI_FAIL_PANIC);
}

/* init= is not covered by the root hash or a signature (init=/bin/sh on the verified root is a
 * shell): the policy's init= is the only one the command line may give. */
static void test_init(void **state)
{
	(void)state;
	pok("");
	assert_string_equal(pol.init, "");
	pok("init = /usr/lib/systemd/systemd\n");
	assert_string_equal(pol.init, "/usr/lib/systemd/systemd");
	/* no policy init=: any init= the parser accepts */
	apply("", ROOT "init=/bin/sh", 0, NULL);
	assert_string_equal(cfg.init, "/bin/sh");
	/* absent or equal */
	apply("init=/usr/lib/systemd/systemd", ROOT, 0, NULL);
	assert_string_equal(cfg.init, "/sbin/init");   /* not a default: the kernel's and dracut's */
	apply("init=/usr/lib/systemd/systemd", ROOT "init=/usr/lib/systemd/systemd", 0, NULL);
	apply("init=/usr/lib/systemd/systemd", ROOT "init=/bin/sh", -EPERM,
	      "init=/bin/sh: the initramfs policy allows only init=/usr/lib/systemd/systemd");
	/* the kernel's rule: the last init= is the one compared */
	apply("init=/sbin/init", ROOT "init=/sbin/init init=/bin/sh", -EPERM, "init=/bin/sh");
	apply("init=/sbin/init", ROOT "init=/bin/sh init=/sbin/init", 0, NULL);
	/* even the default spelled out must match */
	apply("init=/lib/systemd/systemd", ROOT "init=/sbin/init", -EPERM, "allows only");
}

static void test_signature(void **state)
{
	(void)state;
	apply("require_signature=yes", ROOT, -EPERM, "signed root hash is required");
	assert_false(cfg.require_signature);   /* a refusal applies nothing of the policy */
	apply("require_signature=yes", ROOT "verity.require_signature=no", -EPERM,
	      "signed root hash is required");
	apply("require_signature=yes", ROOT "verity.sig=/etc/verity-init/roothash.p7s", 0, NULL);
	apply("require_signature=yes", ROOT "verity.manifest=/etc/verity-init/manifest", 0, NULL);
	apply("require_signature=yes", ROOT "verity.sig=/r.p7s verity.recovery.roothash=" H2,
	      -EPERM, "recovery root has no root-hash-signature");
	apply("require_signature=yes", ROOT "verity.sig=/r.p7s verity.recovery.roothash=" H2
	      " verity.recovery.options=root-hash-signature=/q.p7s", 0, NULL);
	apply("require_signature=no", ROOT, 0, NULL);
	assert_false(cfg.require_signature);
}

/* The kernel hands every upper-case NAME=value word to init as its environment, and
 * systemd.setenv= gives one to every service: only TERM, BOOT_IMAGE and the policy's init_env=
 * names, never one that loads code. */
static void test_environment(void **state)
{
	static const struct apply_row rows[] = {
		{ "", ROOT "LD_PRELOAD=/dev/sdb", -EPERM,
		  "'LD_PRELOAD=' sets the environment of the "
		  "booted system: never allowed" },
		{ "", ROOT "GCONV_PATH=/dev/sdb", -EPERM, "'GCONV_PATH='" },
		{ "", ROOT "LOCPATH=/dev/sdb", -EPERM, "'LOCPATH='" },
		{ "", ROOT "MALLOC_CHECK_=3", -EPERM, "'MALLOC_CHECK_='" },
		{ "", ROOT "GLIBC_TUNABLES=x", -EPERM, "'GLIBC_TUNABLES='" },
		{ "", ROOT "\"SYSTEMD_PROC_CMDLINE=init=/bin/sh\"", -EPERM,
		  "'SYSTEMD_PROC_CMDLINE='" },
		{ "", ROOT "PATH=/dev/shm", -EPERM, "'PATH='" },
		{ "", ROOT "BASH_ENV=/dev/sdb", -EPERM, "'BASH_ENV='" },
		{ "", ROOT "FOO=bar", -EPERM,
		  "'FOO=' sets the environment of the booted system: not in "
		  "the initramfs policy's init_env=" },
		{ "init_env=FOO,LANG", ROOT "FOO=bar LANG=C.UTF-8", 0, NULL },
		{ "init_env=FOO", ROOT "systemd.setenv=FOO=1", 0, NULL },
		{ "init_env=FOO", ROOT "systemd.setenv=LD_PRELOAD=/dev/sdb", -EPERM,
		  "'LD_PRELOAD='" },
		{ "init_env=FOO", ROOT "rd.systemd.setenv=BAR=1", -EPERM, "'BAR='" },
	};

	(void)state;
	apply("", ROOT "BOOT_IMAGE=/vmlinuz TERM=vt100 quiet lowercase=1", 0, NULL);
	assert_int_equal(vi_cmdline_parse(ROOT "TERM=$(x)", 0, &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "TERM=: not a terminal name"));
	assert_int_equal(cfg.env_count, 2);
	apply_rows(rows, UT_ARRAY_SIZE(rows));
	/* init's arguments after "--" are not its environment (and an upper-case name there is
	 * refused by the parser: systemd would read it as a setting) */
	apply("", ROOT "-- foo=bar", 0, NULL);
	assert_int_equal(cfg.env_count, 0);
	pbad("init_env=LD_PRELOAD", "init_env: 'LD_PRELOAD' loads code");
	pbad("init_env=LANG,SYSTEMD_LOG_LEVEL", "'SYSTEMD_LOG_LEVEL'");
	pbad("init_env=lang", "not an environment name");
	pbad("init_env=A,,B", "not an environment name");
}

/* Switches that hand control to a shell or to unverified code: only with allow_shell=yes. */
static void test_handover(void **state)
{
	static const char *const lines[] = {
		"systemd.debug_shell", "rd.systemd.debug_shell=1", "systemd.debug_shell=tty3",
		"systemd.crash_shell", "rd.systemd.crash_shell=yes",
		"systemd.unit=emergency.target", "rd.systemd.unit=rescue.target",
		"systemd.unit=runlevel1.target", "systemd.unit=debug-shell.service",
		"systemd.wants=debug-shell.service", "rd.systemd.wants=x.service",
		"systemd.mask=verity-init-setup.service", "rd.systemd.run=/bin/sh",
		"systemd.run=/bin/sh", "resume=/dev/vdc", "rd.resume=UUID=1",
		"emergency", "rescue", "single", "s", "S", "-s", "-b", "1",
		"systemd.set_credential=passwd.hashed-password.root:x",
		"systemd.set_credential_binary=tmpfiles.extra:eA==",
		"systemd.early_core_pattern=/bin/sh", "systemd.confirm_spawn=1",
		"rd.systemd.confirm_spawn", "rd.emergency", "rd.rescue", "--unit=debug-shell.service",
		"--crash-shell", "--confirm-spawn",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		char line[256];

		snprintf(line, sizeof(line), ROOT "%s", lines[i]);
		apply("", line, -EPERM, "hands control to a shell");
		apply("allow_shell=yes", line, 0, NULL);
	}
	/* systemd reads its runlevel words past "--" too: the parser refuses them there */
	assert_int_equal(vi_cmdline_parse(ROOT "-- single", 0, &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'single' after '--'"));
	/* dracut's own rd.emergency= action is no shell */
	apply("", ROOT "rd.emergency=reboot", 0, NULL);
	apply("", ROOT "systemd.debug_shell=0 systemd.crash_shell=no systemd.unit=multi-user.target "
	      "rd.systemd.unit=initrd.target 2 3 5 single-user", 0, NULL);
}

/* A version floor needs a version: the root must come with its manifest, and a recovery root
 * (which cannot carry one) is refused. */
static void test_version_floor_needs_manifest(void **state)
{
	static const struct apply_row rows[] = {
		{ "min_version=3", ROOT "verity.sig=/etc/roothash.p7s", -EPERM,
		  "has a version floor (min_version=): the root needs a signed manifest" },
		{ "require_manifest=yes", ROOT, -EPERM,
		  "requires a manifest (require_manifest=yes)" },
		{ "min_version=3", "verity.manifest=PARTLABEL=m", 0, NULL },
		{ "min_version=3", "verity.manifest=PARTLABEL=m verity.recovery.roothash=" H2 " "
		  "verity.recovery.data=/dev/vdc verity.recovery.hash=/dev/vdd", -EPERM,
		  "a recovery root cannot carry a manifest" },
		{ "min_version=0", ROOT, 0, NULL },
	};

	(void)state;
	apply_rows(rows, UT_ARRAY_SIZE(rows));
	pbad("require_manifest=maybe", "require_manifest: not yes or no");
}

/* require_signature=kernel: only signatures the kernel checks; the module parameter is forced. */
static void test_kernel_signature(void **state)
{
	(void)state;
	apply("require_signature=kernel", ROOT "verity.sig=/etc/roothash.p7s", 0, NULL);
	assert_string_equal(vi_policy_forced_modparams(&pol), "dm_verity.require_signatures=1");
	apply("require_signature=kernel", "verity.manifest=PARTLABEL=m", -EPERM,
	      "requires a signature the kernel checks (require_signature=kernel)");
	apply("require_signature=kernel", ROOT "verity.sig=/etc/roothash.p7s verity.recovery.roothash="
	      H2 " verity.recovery.data=/dev/vdc verity.recovery.hash=/dev/vdd", -EPERM,
	      "the recovery root has none");
	apply("require_signature=yes", "verity.manifest=PARTLABEL=m", 0, NULL);
	assert_null(vi_policy_forced_modparams(&pol));
	pbad("require_signature=kernels", "not yes, no or kernel");
}

static void test_tpm_and_ipe(void **state)
{
	static const struct refusal rows[] = {
		{ "tpm_pcr=7", "PCRs (8-15)" },
		{ "tpm_pcr=16", "PCRs (8-15)" },
		{ "tpm_pcr=17", "PCRs (8-15)" },
		{ "tpm_pcr=23", "PCRs (8-15)" },
		{ "tpm_pcr=x", "PCRs (8-15)" },
		{ "require_tpm=maybe", "require_tpm: not yes or no" },
		{ "managed=restart", "managed: not yes or no" },
		{ "ipe_policy=relative.p7s", "ipe_policy:" },
		{ "ipe_policy=/etc/../x", "ipe_policy:" },
		{ "tpm_measure=nvpcr14", "tpm_measure: not pcr, nvpcr or both" },
		{ "tpm_measure=", "tpm_measure: not pcr, nvpcr or both" },
		{ "tpm_measure=PCR", "tpm_measure: not pcr, nvpcr or both" },
	};

	(void)state;
	pok("");
	assert_false(pol.require_tpm);
	assert_false(pol.managed);
	assert_int_equal(pol.tpm_pcr, 14);
	assert_int_equal(pol.tpm_measure, VI_TPM_MEASURE_PCR);
	pok("tpm_measure=nvpcr");
	assert_int_equal(pol.tpm_measure, VI_TPM_MEASURE_NVPCR);
	pok("tpm_measure=both");
	assert_int_equal(pol.tpm_measure, VI_TPM_MEASURE_PCR | VI_TPM_MEASURE_NVPCR);
	pok("tpm_measure=pcr");
	assert_int_equal(pol.tpm_measure, VI_TPM_MEASURE_PCR);
	assert_string_equal(pol.ipe_policy, "");
	pok("require_tpm=yes\ntpm_pcr=15\nipe_policy=/etc/verity-init/ipe.p7s");
	assert_true(pol.require_tpm);
	assert_int_equal(pol.tpm_pcr, 15);
	assert_string_equal(pol.ipe_policy, "/etc/verity-init/ipe.p7s");
	pok("ipe_policy=none");
	assert_string_equal(pol.ipe_policy, "");
	pok("managed=yes");
	assert_true(pol.managed);
	/* the operating system's static PCRs only: not the firmware's, not the resettable or
	 * dynamic-launch ones */
	pbad_rows(rows, UT_ARRAY_SIZE(rows));
}

/* slot_full_read=: mark-good's full read of the running slot, off unless yes */
static void test_slot_full_read(void **state)
{
	(void)state;
	pok("");
	assert_false(pol.slot_full_read);
	pok("slots=a,b\nslot_full_read=yes");
	assert_true(pol.slot_full_read);
	pok("slot_full_read=no");
	assert_false(pol.slot_full_read);
	pbad("slot_full_read=always", "slot_full_read: not yes or no");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slot_full_read),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_rejections),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_weakening),
		cmocka_unit_test(test_fail_and_defaults),
		cmocka_unit_test(test_signature),
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_environment),
		cmocka_unit_test(test_handover),
		cmocka_unit_test(test_version_floor_needs_manifest),
		cmocka_unit_test(test_kernel_signature),
		cmocka_unit_test(test_tpm_and_ipe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
