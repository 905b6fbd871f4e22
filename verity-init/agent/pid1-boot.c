// SPDX-License-Identifier: LGPL-2.1-or-later
/* PID 1's boot (the agent as /init; pid1-early.c has its first steps): the configuration
 * pipeline, the root (or an A/B slot, slot-boot.c) set up, mounted read-only on NEWROOT, its
 * init read, measured, switched to and executed, with the time of each step logged; on any
 * failure the status file and the verity.fail= actions (fallback.c), with PID 1's own recovery,
 * shell and power-off. Declared in agent.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <unistd.h>

#include "agent.h"
#include "clock.h"
#include "dm.h"
#include "mountroot.h"
#include "overlay.h"
#include "policy.h"
#include "strutil.h"
#include "switchroot.h"
#include "usr-boot.h"
#include "usrmount.h"

#define NEWROOT "/sysroot"
#define VI_MAX_INIT_ARGS 32   /* the kernel passes at most MAX_INIT_ARGS (32) */

/* Undo mount_and_check: the overlay (systemd.volatile=overlay) and the mapping's mount. */
static void unmount_root(void)
{
	umount2(NEWROOT "/usr", MNT_DETACH);   /* a verified /usr, if there is one */
	vi_overlay_unmount(NEWROOT, VI_OVERLAY_DIR);
	umount2(NEWROOT, MNT_DETACH);
}

/* systemd.volatile=overlay: a tmpfs over the verified root, and init read again through it,
 * from the verified layer (lib/boot/overlay.c). */
static int stack_overlay(struct agent *a, const struct vi_target *t,
			 const struct vi_activation *act, struct vi_file_id *init_id)
{
	const struct vi_file_id lower = *init_id;
	struct vi_error err = { "" };
	int r, lowerfd = open(NEWROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (lowerfd < 0) {
		r = -errno;
		vi_errno(&err, r, "cannot open " NEWROOT ": %s", strerror(-r));
		return vi_agent_fail_target(a, VI_STAGE_MOUNT, t, r, &err);
	}
	r = vi_overlay_mount(NEWROOT, VI_OVERLAY_DIR, &err);
	if (r < 0) {
		close(lowerfd);
		return vi_agent_fail_target(a, VI_STAGE_MOUNT, t, r, &err);
	}
	r = vi_overlay_init_check(NEWROOT, VI_OVERLAY_DIR, lowerfd, a->plan.cfg.init, act->devno,
				  &lower, init_id, &err);
	close(lowerfd);
	if (r < 0) {
		vi_overlay_unmount(NEWROOT, VI_OVERLAY_DIR);
		return vi_agent_fail_target(a, VI_STAGE_INIT, t, r, &err);
	}
	vi_kmsg_log(&a->log, KMSG_INFO, "%s: overlay on " NEWROOT ": %s below, tmpfs "
		 VI_OVERLAY_DIR "/upper above (not verified, lost at power-off); init %s read "
		 "through it from the verified root", t->name, act->node, a->plan.cfg.init);
	return 0;
}

/* root= naming another device never mounts it: only the verified mapping is used (the
 * configuration decided what root= means; `parse` prints the same decision). */
static void warn_root_dev(struct agent *a, const struct vi_target *t,
			  const struct vi_activation *act)
{
	const struct vi_config *cfg = &a->plan.cfg;

	if (t == &cfg->root && cfg->root_dev_ignored)
		vi_kmsg_log(&a->log, KMSG_WARNING, "root=%s ignored: mounting %s", cfg->root_dev,
			 act->node);
}

/* Mount the mapping on NEWROOT and read its init completely (step 7, before switching), through
 * the overlay with systemd.volatile=overlay; *ret_init names the file read, to be found again
 * at exec. */
static int mount_and_check(struct agent *a, const struct vi_target *t,
			   const struct vi_activation *act, struct vi_file_id *ret_init)
{
	const struct vi_config *cfg = &a->plan.cfg;
	struct vi_error err = { "" };
	char type[VI_MAX_FSTYPE];
	int r;

	warn_root_dev(a, t, act);
	r = vi_mount_root(act->node, act->devno, NEWROOT, cfg->rootfstype, cfg->rootflags,
			  &a->pid1.fs_loader, type, sizeof(type), &err);
	if (r < 0)
		return vi_agent_fail_target(a, VI_STAGE_MOUNT, t, r, &err);
	r = vi_init_check(NEWROOT, cfg->init, act->devno, ret_init, &err);
	if (r < 0) {
		umount2(NEWROOT, MNT_DETACH);
		return vi_agent_fail_target(a, VI_STAGE_INIT, t, r, &err);
	}
	vi_kmsg_log(&a->log, KMSG_INFO, "%s: mounted %s read-only on " NEWROOT " (%s), init %s read",
		 t->name, act->node, type, cfg->init);
	if (cfg->volatile_mode == VI_VOLATILE_OVERLAY) {
		r = stack_overlay(a, t, act, ret_init);
		if (r < 0)
			umount2(NEWROOT, MNT_DETACH);
	}
	return r;
}

/* The environment of init and of the fallback shell: what the kernel gives init by default
 * (HOME=/, TERM=linux), the command line's TERM, and the names the initramfs policy lists
 * (init_env=). Every other NAME=value word of the command line is in the kernel's environment
 * too, and would reach the verified system's PID 1 (LD_PRELOAD=/dev/sdb maps a preload straight
 * from a block device): those stay behind. */
static void init_environment(const struct agent *a, char **env, size_t size)
{
	static char home[] = "HOME=/", term[] = "TERM=linux";
	size_t n = 0;

	env[n++] = home;
	env[n++] = term;
	for (char **e = a->pid1.init_envp; e && *e && n + 1 < size; e++) {
		const char *eq = strchr(*e, '=');
		size_t len = eq ? (size_t)(eq - *e) : 0;

		if (!eq || !vi_policy_env_allowed(&a->plan.policy, *e, len) ||
		    !vi_str_printable(eq + 1, strlen(eq + 1)) || strlen(eq + 1) >= VI_MAX_PATH)
			continue;
		if (len == 4 && !memcmp(*e, "TERM", 4)) {
			env[1] = *e;
			continue;
		}
		env[n++] = *e;
	}
	env[n] = NULL;
}

/* The next program (init, the fallback shell) gets fds 0-2 only: libdevmapper's control fd
 * has no O_CLOEXEC. Ours (/dev/kmsg) are O_CLOEXEC and stay usable until the exec. */
static void hand_over_fds(struct agent *a)
{
	struct vi_error err = { "" };

	vi_dm_release();
	if (vi_fds_cloexec(3, &err) < 0)
		vi_kmsg_log(&a->log, KMSG_WARNING, "%s", err.msg);
}

/* Switch to NEWROOT and exec init (checked before as init_id). loader_usr: the device of the
 * verified /usr under a root nobody verified, whose loader check is made again (0: none).
 * Returns only on failure; *ret_switched tells whether the switch got past its checks (the
 * initramfs is then gone). */
static int switch_and_exec(struct agent *a, const struct vi_target *t,
			   const struct vi_file_id *init_id, dev_t loader_usr, bool *ret_switched)
{
	const char *init = a->plan.cfg.init;
	struct vi_error err = { "" };
	struct vi_switch_result sw;
	char *argv[VI_MAX_INIT_ARGS + 2] = { a->plan.cfg.init };
	char *envp[VI_MAX_ENV + 3];
	uint64_t t0 = vi_now_ms(), total;
	int r, n = 1;

	/* the kernel hands init its arguments through us: pass them on (runlevels, "single") */
	for (int i = 1; i < a->pid1.init_argc && n <= VI_MAX_INIT_ARGS; i++)
		argv[n++] = a->pid1.init_argv[i];
	argv[n] = NULL;

	r = vi_switch_root(NEWROOT, &sw, &err);
	a->time.switch_ms = vi_now_ms() - t0;
	*ret_switched = sw.committed;
	if (sw.warning.msg[0])
		vi_kmsg_log(&a->log, KMSG_WARNING, "switch root: %s", sw.warning.msg);
	if (r < 0)
		return vi_agent_fail(a, VI_STAGE_SWITCH, t, r, "switch root failed", &err);
	/* init was checked before /dev, /proc, /sys and /run were moved on top of the root */
	r = vi_init_same(init, init_id, &err);
	if (r < 0)
		return vi_agent_fail(a, VI_STAGE_SWITCH, t, r, "", &err);
	/* what the loader reads from a root nobody verified, again as the loader will see it:
	 * before the switch a link through the root's own /proc or /dev read what the root put
	 * there, now it is the kernel's (a /proc/self/... link leads elsewhere) */
	if (loader_usr) {
		r = vi_usr_loader_check("/", init, loader_usr, &err);
		if (r < 0) {
			vi_err_wrap(&err, r, "the loader's files again after the switch: ");
			return vi_agent_fail_target(a, VI_STAGE_SWITCH, t, r, &err);
		}
	}
	r = vi_agent_activate_ipe(a, t);
	if (r < 0)
		return r;
	total = vi_now_ms() - a->time.start_ms;
	vi_kmsg_log(&a->log, KMSG_NOTICE,
		 "exec %s (agent time %llu ms: %llu ms module loading, %llu ms device wait, "
		 "%llu ms own = %llu early mounts + %llu set-up + %llu mount and init read + "
		 "%llu switch + rest)",
		 init, (unsigned long long)total, (unsigned long long)a->time.modules_ms,
		 (unsigned long long)a->time.wait_ms,
		 (unsigned long long)(total - a->time.wait_ms - a->time.modules_ms),
		 (unsigned long long)a->time.early_mounts_ms, (unsigned long long)a->time.setup_ms,
		 (unsigned long long)a->time.mount_ms, (unsigned long long)a->time.switch_ms);
	vi_pid1_devkmsg_restore(a);
	init_environment(a, envp, sizeof(envp) / sizeof(envp[0]));
	hand_over_fds(a);
	execve(init, argv, envp);
	r = -errno;
	snprintf(err.msg, sizeof(err.msg), "exec %.100s failed: %s", init, strerror(-r));
	return vi_agent_fail(a, VI_STAGE_SWITCH, t, r, "", &err);
}

/* Boot one target: activate, mount, check init, switch, exec. Returns only on failure;
 * *ret_switched tells whether the initramfs is already gone (no more recovery then). */
static int boot_target(struct agent *a, const struct vi_target *t, const char *result,
		       const char *action, bool *ret_switched)
{
	const struct vi_target *usr = &a->plan.cfg.usr;
	/* /usr goes with the root only, never with a recovery root */
	bool with_usr = t == &a->plan.cfg.root && usr->enabled;
	struct vi_activation act = { 0 }, uact = { 0 };
	struct vi_file_id init_id;
	struct vi_error ignored;
	uint64_t t0 = vi_now_ms(), w0 = a->time.wait_ms, m0;
	int r = 0;

	*ret_switched = false;
	if (t->enabled)
		r = vi_agent_activate(a, t, &act);
	if (r < 0)
		return r;
	if (with_usr) {
		r = vi_agent_activate(a, usr, &uact);
		if (r < 0)
			goto out_remove;
	}
	a->time.setup_ms += vi_now_ms() - t0 - (a->time.wait_ms - w0);
	t0 = vi_now_ms();
	m0 = a->time.modules_ms;
	if (with_usr && t->enabled)
		warn_root_dev(a, t, &act);
	r = with_usr ? vi_usr_boot_mount(a, NEWROOT, t, &act, &uact, &init_id)
		     : mount_and_check(a, t, &act, &init_id);
	/* the filesystem's modules loaded before its mount count as module loading */
	a->time.mount_ms = vi_now_ms() - t0 - (a->time.modules_ms - m0);
	if (r < 0)
		goto out_remove;
	r = vi_agent_read_ipe(a, t);
	if (r < 0)
		goto out_umount;
	if (t->enabled)
		r = vi_agent_managed_commit(a, t);
	if (r == 0 && t->enabled)
		r = vi_agent_measure(a, t);
	if (r == 0 && with_usr && !t->enabled)
		r = vi_agent_managed_commit(a, usr);
	if (r == 0 && with_usr)
		r = vi_agent_measure(a, usr);
	if (r < 0)
		goto out_umount;
	vi_agent_write_status(a, result, action, t->enabled ? t : usr);
	if (t->enabled)
		vi_agent_veritysetup_standdown(a, t);
	if (with_usr)
		vi_agent_veritysetup_standdown(a, usr);
	r = switch_and_exec(a, t->enabled ? t : usr, &init_id,
			    with_usr && !t->enabled ? uact.devno : 0, ret_switched);
	if (*ret_switched)
		return r;
	/* refused by the switch's own checks, nothing moved: undo as after a failed init check,
	 * so the recovery root can use NEWROOT */
out_umount:
	unmount_root();
out_remove:
	if (with_usr && uact.node[0] && !uact.reused)
		vi_dm_remove(usr->name, &ignored);
	if (t->enabled && !act.reused)
		vi_dm_remove(t->name, &ignored);
	return r;
}

/* The recovery root, with the same checks. Returns only when it could not be booted; the status
 * file keeps describing the first failure (the one the recovery system needs to know). */
static void try_recovery(struct agent *a, bool *switched)
{
	const struct vi_failure first = a->failure;

	vi_agent_write_status(a, VI_STATUS_RESULT_FAILED, VI_STATUS_ACTION_RECOVERY, NULL);
	a->time.setup_ms = 0;   /* the recovery root's own set-up time */
	vi_kmsg_log(&a->log, KMSG_NOTICE, "fallback: booting the recovery root %s",
		 a->plan.cfg.recovery.name);
	boot_target(a, &a->plan.cfg.recovery, VI_STATUS_RESULT_FAILED, VI_STATUS_ACTION_RECOVERY,
		    switched);
	a->failure = first;
}

/* PID 1's recovery: the recovery root booted in place of the failed one (switched: the
 * initramfs is gone, nothing left to boot from). */
static int pid1_recovery(struct agent *a)
{
	if (a->pid1.switched || !a->plan.recovery_allowed) {
		vi_kmsg_log(&a->log, KMSG_WARNING, "fallback recovery: %s",
			 a->pid1.switched ? "initramfs already freed" : "no recovery root configured");
		return -ENOENT;
	}
	try_recovery(a, &a->pid1.switched);
	return -EIO;   /* boot_target returns only when the recovery root was refused */
}

static bool pid1_shell(struct agent *a)
{
	char *envp[VI_MAX_ENV + 3];

	init_environment(a, envp, sizeof(envp) / sizeof(envp[0]));
	hand_over_fds(a);
	execle("/bin/sh", "sh", (char *)NULL, envp);
	vi_kmsg_log(&a->log, KMSG_ERR, "exec /bin/sh failed: %s", strerror(errno));
	return false;
}

static void pid1_power(struct agent *a, enum vi_fail_action act)
{
	sync();
	reboot(act == VI_FAIL_REBOOT ? RB_AUTOBOOT : RB_POWER_OFF);
	vi_kmsg_log(&a->log, KMSG_ERR, "%s failed: %s", vi_fail_action_name(act), strerror(errno));
}

static int boot_slot_target(void *ctx, const struct vi_target *t, bool *ret_switched)
{
	return boot_target(ctx, t, VI_STATUS_RESULT_OK, VI_STATUS_ACTION_NONE, ret_switched);
}

/* A/B boot (policy slots=): the slots in turn, each through boot_target (slot-boot.c). */
static void boot_slot(struct agent *a, bool *switched)
{
	a->slots.log = &a->log;
	a->slots.plan = &a->plan;
	a->slots.failure = &a->failure;
	a->slots.wait_ms = &a->time.wait_ms;
	a->slots.boot = boot_slot_target;
	a->slots.ctx = a;
	a->slots.crash_end = a->managed.scan.end;
	vi_slot_boot_run(&a->slots, switched);
}

static void fallback(struct agent *a, bool switched)
{
	static const struct vi_fallback_ops ops = { pid1_recovery, vi_agent_shell_refused,
						    pid1_shell, pid1_power };
	unsigned next;

	a->pid1.switched = switched;
	a->fallback.measured = vi_agent_measure_fallback(a);
	vi_fallback_walk(a, &ops, 0, &next);
	sync();
	/* PID 1 exiting is the kernel's panic ("Attempted to kill init"); the reason is logged. */
	exit(EXIT_FAILURE);
}

static int run_pid1(struct agent *a)
{
	bool switched = false;
	uint64_t t0, w0;
	int r;

	a->time.start_ms = vi_now_ms();
	vi_pid1_mount_api(a);
	vi_pid1_devkmsg_unlimit(a);
	vi_kmsg_open(&a->log, 2);
	a->time.early_mounts_ms = vi_now_ms() - a->time.start_ms;
	vi_kmsg_log(&a->log, KMSG_NOTICE, "verity-init " VERITY_INIT_VERSION " start (t=%llu ms)",
		 (unsigned long long)a->time.start_ms);
	vi_pid1_load_modules(a);
	vi_agent_seal_dmverity_keyring(a);
	vi_dm_init(VI_DM_NODES_SELF);

	t0 = vi_now_ms();
	w0 = a->time.wait_ms;
	r = vi_agent_configure(a, NULL, true, &a->failure);
	if (r < 0)
		vi_agent_log_failure(a);
	/* the signature step is part of the set-up time, its device wait is not */
	a->time.setup_ms = vi_now_ms() - t0 - (a->time.wait_ms - w0);
	if (r == 0)
		vi_agent_managed_read(a);
	if (r == 0 && a->plan.slots) {
		boot_slot(a, &switched);
	} else if (r == 0 && vi_agent_managed_boot(a) == 0) {
		boot_target(a, &a->plan.cfg.root, VI_STATUS_RESULT_OK, VI_STATUS_ACTION_NONE,
			    &switched);
	}
	fallback(a, switched);
	return EXIT_FAILURE;
}


int vi_pid1_main(struct agent *a, int argc, char **argv)
{
	/* Every command line word NAME=value without a dot is in our environment, and libblkid
	 * and libdevmapper read some (BLKID_CONF, DM_DISABLE_UDEV, ...): the kernel's environment
	 * is init's, the agent runs with none. */
	static char *no_env[] = { NULL };

	a->pid1.init_envp = environ;
	environ = no_env;
	a->pid1.init_argc = argc;
	a->pid1.init_argv = argv;
	return run_pid1(a);
}
