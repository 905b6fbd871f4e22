// SPDX-License-Identifier: LGPL-2.1-or-later
/* The agent's dracut runtime: everything the dracut module's hooks hand over. The shell keeps
 * what only dracut can do (its hooks, emergency_shell, udev, root= and rflags, its own reading
 * of rd.break / rd.shell); the agent sets the root up, writes the status file and walks the
 * fail list with the walker PID 1 uses (fallback.c). Its answer, on stdout, one KEY=VALUE a
 * line (the values of RESULT, ACTION and NEXT are words; REASON is quoted for sh), which the
 * module reads as it reads `parse --shell`, without eval (vi_answer in verity-init-lib.sh):
 *
 *   VERITY_RESULT=ok|recovery|failed   exit 0: a root is ready under the mapping name (ok:
 *                                      the root, recovery: the recovery root in its place)
 *   VERITY_ACTION=none|recovery|shell|panic
 *   VERITY_NEXT=N                      exit 3 (shell): open dracut's emergency shell, then
 *                                      run the same command with --resume N
 *   VERITY_REASON='...'                the failure this process found
 *   exit 1: nothing took effect, not even the panic: never go on.
 *
 * Commands (docs/verity-init.8; pre-pivot in dracut-prepivot.c):
 *   setup --fallback                   set the root up and record its mappings
 *                                      (dracut-maprec.c); on failure the fail list
 *   fail --reason getarg|shell-asked|shell-unit [--unit UNIT]
 *                                      a refusal only the hooks see; no recovery root then
 *   before-shell --unit OPENER         a shell dracut or systemd opens: exit 0 once
 *                                      "dm-verity-fallback:shell" is in the PCR; else the
 *                                      fail list without shell and recovery root
 *   pre-pivot --newroot DIR [--init PATH] [--other-init] [--systemd]
 *                                      the mappings must be the ones setup recorded, DIR
 *                                      the mapping, and its init must read; else DIR is
 *                                      unmounted, the mapping removed, the fail list
 *   pre-pivot --newroot DIR --systemd --saved-cmdline
 *                                      the same from verity-init-pre-pivot.service, on the
 *                                      line setup saved, init= and real_init= / rd.distroinit=
 *                                      read from it as dracut's getarg reads them; a shell in
 *                                      the fail list is opened by exec'ing DRACUT_SHELL_HELPER
 * and for each: --cmdline S (dracut's getcmdline), --resume N, and the test stand-ins
 * --rundir DIR, --kmsg FILE, --sysrq FILE (a file other than the kernel's trigger: the
 * emergency actions are only written there, reboot(2) is not called, nothing waits). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "dm.h"
#include "dracut-layout.h"
#include "dracut-maprec.h"
#include "dracut-mode.h"
#include "dracut-saved.h"
#include "failactions.h"
#include "maprec.h"
#include "mountroot.h"
#include "strutil.h"

#define SYSRQ_TRIGGER  "/proc/sysrq-trigger"
#define ACTION_WAIT_S  10u    /* an emergency action's time to take effect before the next */
#define RECOVERY_MARK  "recovery-tried"

/* The kernel's emergency action c (b reboot, o power off, c panic), then its time to act. */
static void sysrq(struct agent *a, char c)
{
	const struct dracut_state *d = a->dracut;
	char rec[2] = { c, '\n' };
	int fd = open(d->sysrq, O_WRONLY | O_APPEND | O_CLOEXEC | (d->test_sysrq ? O_CREAT : 0),
		      0644);

	if (fd < 0 || write(fd, rec, sizeof(rec)) != (ssize_t)sizeof(rec))
		vi_kmsg_log(&a->log, KMSG_ERR, "sysrq %c failed: %s", c, strerror(errno));
	if (fd >= 0)
		close(fd);
	if (!d->test_sysrq)
		sleep(ACTION_WAIT_S);
}

/* Remove the mapping NAME if there is one; 0 when it is gone. */
int vi_dracut_remove_mapping(struct agent *a, const char *name)
{
	struct vi_error err = { "" };
	bool exists = false;
	dev_t devno;

	int r = vi_dm_exists(name, &exists, &devno, &err);

	if (r == 0 && !exists)
		return 0;
	if (r == 0)
		r = vi_dm_remove(name, &err);
	if (r < 0)
		vi_kmsg_log(&a->log, KMSG_ERR, "%s", err.msg);
	return r;
}

bool vi_dracut_recovery_marked(const struct agent *a)
{
	return vi_agent_run_marked(a, RECOVERY_MARK);
}

/* After the mapping's set-up: mount it on newroot and read its init (pre-pivot only). */
static int mount_recovery(struct agent *a, const struct vi_target *t,
			  const struct vi_activation *act)
{
	const struct dracut_state *d = a->dracut;
	const struct vi_config *cfg = &a->plan.cfg;
	struct vi_error err = { "" };
	char type[VI_MAX_FSTYPE];
	int r;

	/* dracut's kernel loads drivers itself (request_module through modprobe) */
	r = vi_mount_root(act->node, act->devno, d->newroot, cfg->rootfstype, cfg->rootflags, NULL,
			  type, sizeof(type), &err);
	if (r < 0)
		return vi_agent_fail_target(a, VI_STAGE_MOUNT, t, r, &err);
	r = vi_init_check(d->newroot, cfg->init, act->devno, NULL, &err);
	if (r < 0) {
		vi_dracut_umount_tree(d->newroot);
		return vi_agent_fail_target(a, VI_STAGE_INIT, t, r, &err);
	}
	return 0;
}

/* `recovery`: the recovery root under the root's mapping name, so that the root= dracut waits
 * for (and mounts) is the recovery root; in pre-pivot also mounted and its init read. */
static int dracut_recovery(struct agent *a)
{
	const struct dracut_state *d = a->dracut;
	struct vi_config *cfg = &a->plan.cfg;
	const struct vi_failure first = a->failure;
	struct vi_activation act;
	const char *skip = NULL;
	int r;

	if (!a->plan.recovery_allowed)
		skip = "no recovery root configured";
	else if (d->no_recovery)
		skip = d->no_recovery;
	else if (d->newroot && d->systemd)
		skip = "not available under systemd once /sysroot is mounted";
	else if (cfg->usr.enabled && cfg->layout == VI_LAYOUT_TMPFS_USR)
		skip = "not available with a tmpfs root (dracut waits for the /usr mapping)";
	/* once per boot: a second failure must not loop */
	else if ((r = vi_agent_run_mark(a, RECOVERY_MARK, true)) == -EEXIST)
		skip = "already tried in this boot";
	else if (r < 0)
		skip = "cannot record the attempt in the run directory";
	if (skip) {
		vi_kmsg_log(&a->log, KMSG_WARNING, "fallback recovery: %s", skip);
		return -ENOENT;
	}
	/* /usr goes with the root only, never with a recovery root */
	if (vi_dracut_remove_mapping(a, cfg->root.name) < 0 ||
	    (cfg->usr.enabled && vi_dracut_remove_mapping(a, cfg->usr.name) < 0))
		return -EBUSY;
	vi_maprec_remove(a->status_dir);
	snprintf(cfg->recovery.name, sizeof(cfg->recovery.name), "%s", cfg->root.name);
	vi_agent_write_status(a, VI_STATUS_RESULT_FAILED, VI_STATUS_ACTION_RECOVERY, NULL);
	vi_kmsg_log(&a->log, KMSG_NOTICE, "fallback: setting up the recovery root as %s",
		 cfg->recovery.name);
	r = vi_agent_activate(a, &cfg->recovery, &act);
	if (r == 0)
		r = vi_agent_measure(a, &cfg->recovery);
	if (r == 0 && d->newroot) {
		r = mount_recovery(a, &cfg->recovery, &act);
		if (r < 0)
			vi_dracut_remove_mapping(a, cfg->recovery.name);
	}
	if (r == 0) {
		const char *name = cfg->recovery.name;

		r = vi_dracut_record_mappings(a, &cfg->recovery, &name, 1);
		if (r < 0 && d->newroot)
			vi_dracut_umount_tree(d->newroot);
		if (r < 0)
			vi_dracut_remove_mapping(a, cfg->recovery.name);
	}
	a->failure = first;   /* the status file describes the first failure */
	if (r < 0)
		return r;
	vi_agent_write_status(a, VI_STATUS_RESULT_FAILED, VI_STATUS_ACTION_RECOVERY,
			      &cfg->recovery);
	vi_kmsg_log(&a->log, KMSG_NOTICE, "booting the recovery root");
	return 0;
}

/* `shell`: dracut's emergency shell is the hook's to open. */
static bool dracut_shell(struct agent *a)
{
	(void)a;
	return true;
}

/* Not PID 1, but root in the initramfs: reboot(2) works; the kernel's sysrq is the fallback. */
static void dracut_power(struct agent *a, enum vi_fail_action act)
{
	const struct dracut_state *d = a->dracut;

	if (!d->test_sysrq) {
		sync();
		reboot(act == VI_FAIL_REBOOT ? RB_AUTOBOOT : RB_POWER_OFF);
		vi_kmsg_log(&a->log, KMSG_ERR, "%s failed: %s", vi_fail_action_name(act),
			 strerror(errno));
	}
	sysrq(a, act == VI_FAIL_REBOOT ? 'b' : 'o');
}

int vi_dracut_answer(struct agent *a, const char *result, const char *action, unsigned next,
		     int code)
{
	printf("VERITY_RESULT=%s\nVERITY_ACTION=%s\n", result, action);
	if (next)
		printf("VERITY_NEXT=%u\n", next);
	if (a->failure.set) {
		fputs("VERITY_REASON=", stdout);
		vi_shell_quote(stdout, a->failure.reason.msg);
		fputc('\n', stdout);
	}
	fflush(stdout);
	return code;
}

/* Walk the fail list from entry first. Not PID 1: the last resort is the kernel's panic. */
int vi_dracut_walk(struct agent *a, unsigned first)
{
	static const struct vi_fallback_ops ops = { dracut_recovery, vi_agent_shell_refused,
						    dracut_shell, dracut_power };
	unsigned next;

	vi_agent_managed_no_reboot_read(a);
	/* the fallback is measured once, by the walk that starts the list; a resumed walk comes
	 * after a shell that walk allowed */
	a->fallback.measured = first == 0 ? vi_agent_measure_fallback(a) : true;
	switch (vi_fallback_walk(a, &ops, first, &next)) {
	case VI_FALLBACK_RECOVERED:
		return vi_dracut_answer(a, "recovery", "recovery", 0, EXIT_SUCCESS);
	case VI_FALLBACK_SHELL:
		a->dracut->shell_next = next;
		return vi_dracut_answer(a, "failed", "shell", next, EXIT_SHELL);
	case VI_FALLBACK_PANIC:
		break;
	}
	sync();
	sysrq(a, 'c');
	return vi_dracut_answer(a, "failed", "panic", 0, EXIT_FAILURE);
}

/* An IPE policy that denies execution from anything but the signed root would deny dracut's own
 * programs and hooks, which run after the root is set up: the policy asks for what this
 * runtime cannot give, so the boot does not go on without it. */
static int ipe_refused(struct agent *a)
{
	struct vi_error err;

	vi_err(&err, "ipe_policy= needs the standalone agent as /init: under dracut the policy "
	       "would deny dracut's own programs before its last hooks have run");
	return vi_agent_fail_target(a, VI_STAGE_IPE, &a->plan.cfg.root, -EOPNOTSUPP, &err);
}

/* The root's mapping and a verified /usr's (either may be all there is), recorded for pre-pivot,
 * each measured; on a failure none of them stays (but a mapping found already set up), nor a
 * record. */
static int setup_targets(struct agent *a)
{
	const struct vi_config *cfg = &a->plan.cfg;
	/* read only after activation; the analyzer cannot tell */
	struct vi_activation act = { 0 }, uact = { 0 };
	const char *names[2];
	unsigned n = 0;
	bool root_up = false, usr_up = false;
	int r = 0;

	if (cfg->root.enabled) {
		r = vi_agent_activate(a, &cfg->root, &act);
		root_up = r == 0 && !act.reused;
	}
	if (r == 0 && cfg->usr.enabled) {
		r = vi_agent_activate(a, &cfg->usr, &uact);
		usr_up = r == 0 && !uact.reused;
	}
	if (cfg->root.enabled)
		names[n++] = cfg->root.name;
	if (cfg->usr.enabled)
		names[n++] = cfg->usr.name;
	if (r == 0)
		r = vi_dracut_record_mappings(a, cfg->root.enabled ? &cfg->root : &cfg->usr, names,
						n);
	if (r == 0 && cfg->root.enabled)
		r = vi_agent_managed_commit(a, &cfg->root);
	if (r == 0 && cfg->root.enabled)
		r = vi_agent_measure(a, &cfg->root);
	if (r == 0 && cfg->usr.enabled && !cfg->root.enabled)
		r = vi_agent_managed_commit(a, &cfg->usr);
	if (r == 0 && cfg->usr.enabled)
		r = vi_agent_measure(a, &cfg->usr);
	if (r == 0 && cfg->root.enabled)
		vi_agent_veritysetup_standdown(a, &cfg->root);
	if (r == 0 && cfg->usr.enabled)
		vi_agent_veritysetup_standdown(a, &cfg->usr);
	if (r < 0)
		vi_maprec_remove(a->status_dir);
	if (r < 0 && usr_up)
		vi_dracut_remove_mapping(a, cfg->usr.name);
	if (r < 0 && root_up)
		vi_dracut_remove_mapping(a, cfg->root.name);
	return r;
}

/* A/B slots: slot t (the root; no /usr with slots) set up by setup_targets, dracut mounts it. */
static int setup_slot(void *ctx, const struct vi_target *t, bool *ret_switched)
{
	(void)t;
	*ret_switched = false;
	return setup_targets(ctx);
}

/* For the systemd flavour's pre-pivot unit, which has no dracut shell to build the line with. A
 * failure is logged here and refused there (no line: no check, the fail list). */
static void save_cmdline(struct agent *a, const char *cmdline)
{
	struct vi_error err = { "" };

	if (cmdline && vi_dracut_save_cmdline(a->status_dir, cmdline, &err) < 0)
		vi_kmsg_log(&a->log, KMSG_ERR, "%s", err.msg);
}

/* `setup --fallback`: the initqueue job (shell init) and verity-init-setup.service. A/B slots:
 * PID 1's slot step (slot-boot.c); a slot that fails before dracut mounts it is set aside for
 * the next one in the same run. */
static int dracut_setup(struct agent *a, const struct dracut_args *o)
{
	const struct vi_config *cfg = &a->plan.cfg;
	bool switched;
	int r;

	if (!o->fallback)
		return -EINVAL;
	/* resumed after the shell: the list goes on, no failure of this process to report */
	r = vi_agent_configure(a, o->cmdline, true, o->resume < 0 ? &a->failure : NULL);
	if (o->resume >= 0)
		return vi_dracut_walk(a, (unsigned)o->resume);
	save_cmdline(a, o->cmdline);
	if (r == 0)
		vi_agent_managed_read(a);
	if (r < 0) {
		vi_agent_log_failure(a);
	} else if (a->plan.policy.ipe_policy[0]) {
		r = ipe_refused(a);
	} else if (a->plan.slots) {
		a->slots = (struct vi_slot_boot){ .log = &a->log, .plan = &a->plan,
			.failure = &a->failure, .wait_ms = &a->time.wait_ms, .boot = setup_slot,
			.ctx = a, .crash_end = a->managed.scan.end };
		r = vi_slot_boot_run(&a->slots, &switched);
	} else {
		r = vi_agent_managed_boot(a);
		if (r == 0)
			r = setup_targets(a);
	}
	if (r < 0)
		return vi_dracut_walk(a, 0);
	vi_agent_write_status(a, VI_STATUS_RESULT_OK, VI_STATUS_ACTION_NONE,
			      cfg->root.enabled ? &cfg->root : &cfg->usr);
	return vi_dracut_answer(a, "ok", "none", 0, EXIT_SUCCESS);
}

static const struct {
	const char *code;
	const char *no_recovery;  /* the line stays dracut's: a recovery boot would meet it too */
	const char *reason;       /* when the agent accepted the line */
} fail_reasons[] = {
	{ "getarg", "dracut cannot parse the command line",
	  "dracut's command-line parser (dracut-getarg) fails on this command line" },
	{ "shell-asked", "the command line asks dracut for a shell (rd.break / rd.shell)",
	  "the command line asks dracut for a shell (rd.break / rd.shell) and the initramfs "
	  "policy allows none" },
	{ "shell-unit", "a shell was asked for on the command line",
	  "would open a shell in the initramfs and the initramfs policy allows none" },
};

/* A unit's name as the generator's drop-ins pass it: [A-Za-z0-9@._-], 1 to 64 bytes. */
static bool unit_name_ok(const char *unit)
{
	size_t n = unit ? strlen(unit) : 0;

	return n > 0 && n <= 64 &&
	       strspn(unit, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@._-") == n;
}

/* `before-shell --unit OPENER`: a shell the initramfs opens outside the agent's fail list
 * (dracut's rd.break breakpoints and emergency shell, systemd's emergency, rescue and debug
 * shells) opens only after "dm-verity-fallback:shell" went into the PCR, so that no shell runs
 * with the PCR at a good boot's value, which setup may have extended already. Exit 0: the shell
 * may open. Otherwise it is refused (the policy allows none, the line is refused, or the TPM did
 * not record the event where one is or may be) and the fail list runs without its shell and
 * recovery root (the shell would come back with the same line). */
static int dracut_before_shell(struct agent *a, const struct dracut_args *o)
{
	struct dracut_state *d = a->dracut;
	const char *unit = o->unit;
	struct vi_error why = { "" };
	enum vi_fail_action *fail = a->plan.cfg.fail;
	unsigned n = 0;
	int r;

	if (!unit || o->reason || o->fallback || o->resume >= 0 || !unit_name_ok(unit))
		return -EINVAL;
	r = vi_agent_configure(a, o->cmdline, false, &a->failure);
	if (r == 0 && a->plan.policy.allow_shell) {
		if (vi_agent_measure_fallback_as(a, "shell")) {
			vi_kmsg_log(&a->log, KMSG_NOTICE, "%s: the shell may open", unit);
			return EXIT_SUCCESS;
		}
		vi_err(&why, "%s would open a shell: %s", unit, a->fallback.unmeasured);
	} else {
		vi_err(&why, "%s would open a shell: %s", unit, r < 0 ?
		       a->failure.reason.msg : "the initramfs policy allows none");
	}
	vi_failure_set(&a->failure, VI_STAGE_CONFIG, &a->plan.cfg.root, -EPERM, "", &why);
	d->no_recovery = "a shell was asked for";
	for (unsigned i = 0; i < VI_MAX_FAIL && fail[i] != VI_FAIL_NONE; i++)
		if (fail[i] != VI_FAIL_SHELL)
			fail[n++] = fail[i];
	for (unsigned i = n; i < VI_MAX_FAIL; i++)
		fail[i] = VI_FAIL_NONE;
	vi_agent_log_failure(a);
	return vi_dracut_walk(a, 0);
}

/* `fail --reason CODE`: what only the hooks see. A refused line is the failure itself. */
static int dracut_fail(struct agent *a, const struct dracut_args *o)
{
	struct dracut_state *d = a->dracut;
	const char *code = o->reason, *unit = o->unit;
	struct vi_error why = { "" };
	size_t i, n = sizeof(fail_reasons) / sizeof(fail_reasons[0]);
	int r;

	if (!code || o->fallback)
		return -EINVAL;
	for (i = 0; i < n && strcmp(code, fail_reasons[i].code); i++)
		;
	if (i == n || (!strcmp(code, "shell-unit") && !unit_name_ok(unit)))
		return -EINVAL;
	d->no_recovery = fail_reasons[i].no_recovery;
	r = vi_agent_configure(a, o->cmdline, false, o->resume < 0 ? &a->failure : NULL);
	if (o->resume >= 0)
		return vi_dracut_walk(a, (unsigned)o->resume);
	if (!strcmp(code, "shell-unit")) {
		vi_err(&why, "%s %s%s%s%s", unit, fail_reasons[i].reason,
		       r < 0 ? " (command line refused: " : "", r < 0 ? a->failure.reason.msg : "",
		       r < 0 ? ")" : "");
		vi_failure_set(&a->failure, VI_STAGE_CONFIG, &a->plan.cfg.root, -EPERM, "", &why);
	} else if (r == 0) {
		vi_err(&why, "%s", fail_reasons[i].reason);
		vi_failure_set(&a->failure, VI_STAGE_CONFIG, &a->plan.cfg.root, -EPERM, "", &why);
	}
	vi_agent_log_failure(a);
	return vi_dracut_walk(a, 0);
}

static int usage_error(void)
{
	fputs("Usage: verity-init setup --fallback [OPTIONS]\n"
	      "       verity-init fail --reason getarg|shell-asked|shell-unit [--unit UNIT] "
	      "[OPTIONS]\n"
	      "       verity-init before-shell --unit OPENER [OPTIONS]\n"
	      "       verity-init pre-pivot --newroot DIR [--init PATH] [--other-init] "
	      "[--systemd] [OPTIONS]\n"
	      "       verity-init pre-pivot --newroot DIR --systemd --saved-cmdline [OPTIONS]\n"
	      "OPTIONS: --cmdline S, --resume N, --rundir DIR, --kmsg FILE, --sysrq FILE\n",
	      stderr);
	return 2;
}

/* The verbs: each returns the exit code, or a negative errno for a usage error. */
static const struct dracut_verb {
	const char *name;
	int (*run)(struct agent *a, const struct dracut_args *o);
} dracut_verbs[] = {
	{ "setup", dracut_setup },
	{ "fail", dracut_fail },
	{ "before-shell", dracut_before_shell },
	{ "pre-pivot", vi_dracut_pre_pivot },
};

/* The options after the verb into o and d (a->status_dir for --rundir). 0, or -EINVAL. */
static int parse_args(struct agent *a, struct dracut_state *d, int argc, char **argv,
		      struct dracut_args *o)
{
	for (int i = 1; i < argc; i++) {
		const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;
		long n;

		if (!strcmp(opt, "--fallback")) {
			o->fallback = true;
			continue;
		}
		if (!strcmp(opt, "--other-init")) {
			d->other_init = true;
			continue;
		}
		if (!strcmp(opt, "--systemd")) {
			d->systemd = true;
			continue;
		}
		if (!strcmp(opt, "--saved-cmdline")) {
			d->saved_cmdline = true;
			continue;
		}
		if (!val)
			return -EINVAL;
		i++;
		if (!strcmp(opt, "--cmdline")) {
			o->cmdline = val;
		} else if (!strcmp(opt, "--rundir")) {
			a->status_dir = val;
		} else if (!strcmp(opt, "--kmsg")) {
			o->kmsg = val;
		} else if (!strcmp(opt, "--sysrq")) {
			d->sysrq = val;
		} else if (!strcmp(opt, "--newroot")) {
			d->newroot = val;
		} else if (!strcmp(opt, "--init")) {
			d->init = val;
		} else if (!strcmp(opt, "--reason")) {
			o->reason = val;
		} else if (!strcmp(opt, "--unit")) {
			o->unit = val;
		} else if (!strcmp(opt, "--resume")) {
			n = strtol(val, &end, 10);
			if (*end || end == val || n < 0 || n > VI_MAX_FAIL)
				return -EINVAL;
			o->resume = (int)n;
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

/* The kernel log: --kmsg's file (a test's), else /dev/kmsg, else stderr. */
static void open_log(struct agent *a, const char *kmsg, bool test)
{
	if (kmsg) {
		a->log.fd = open(kmsg, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY |
				 (test ? O_CREAT : 0), 0644);
		a->log.fallback_fd = 2;
		a->log.pid = getpid();
	}
	if (a->log.fd < 0)
		vi_kmsg_open(&a->log, 2);
}

int vi_dracut_main(struct agent *a, int argc, char **argv)
{
	/* the runtime's state lives as long as the agent */
	/* zero-initialised: its buffers stay out of the binary's data */
	static struct dracut_state d;
	struct dracut_args o = { .resume = -1 };
	int r;

	d.sysrq = SYSRQ_TRIGGER;
	if (parse_args(a, &d, argc, argv, &o) < 0)
		return usage_error();
	d.test_sysrq = strcmp(d.sysrq, SYSRQ_TRIGGER) != 0;
	a->dracut = &d;
	open_log(a, o.kmsg, d.test_sysrq);
	/* whichever command runs first (setup, or a refusal before it): the keyring is sealed
	 * before a device is read and before any shell (the hooks load dm_verity first) */
	if (!d.test_sysrq)
		vi_agent_seal_dmverity_keyring(a);
	vi_dm_init(access("/run/udev/control", F_OK) == 0 ? VI_DM_NODES_UDEV : VI_DM_NODES_SELF);
	for (size_t i = 0; i < sizeof(dracut_verbs) / sizeof(dracut_verbs[0]); i++) {
		if (strcmp(argv[0], dracut_verbs[i].name))
			continue;
		r = dracut_verbs[i].run(a, &o);
		return r < 0 ? usage_error() : r;
	}
	return usage_error();
}

