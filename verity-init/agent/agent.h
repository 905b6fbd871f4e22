/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent's state and the steps its two runtimes share: PID 1 of a standalone initramfs
 * (pid1-boot.c) and the dracut runtime (dracut-mode.c). Both walk the same fail list
 * (fallback.c); they differ in how recovery, a shell and the last resort are done. */
#ifndef VERITY_AGENT_H
#define VERITY_AGENT_H
#include <stdbool.h>
#include <stdint.h>

#include "activate.h"
#include "failure.h"
#include "ipe.h"
#include "kmsg.h"
#include "managedio.h"
#include "mountroot.h"
#include "plan.h"
#include "slot-boot.h"
#include "status.h"   /* the result= and action= words */

/* The agent's timings (ms) for PID 1's line before exec: its own time per step, and the time
 * that is not its own. */
struct agent_timings {
	uint64_t start_ms;        /* PID 1 started (CLOCK_MONOTONIC) */
	uint64_t early_mounts_ms; /* own: the API filesystems and the kernel log */
	uint64_t setup_ms;        /* own: the configuration pipeline and the targets' set-up */
	uint64_t mount_ms;        /* own: mount and init read */
	uint64_t switch_ms;       /* own: the switch */
	uint64_t wait_ms;         /* waiting for devices */
	uint64_t modules_ms;      /* in finit_module (the kernel's module init) */
};

/* The initramfs policy as PID 1 reads it, once, before the modules (their forced parameters);
 * the configuration pipeline takes this copy instead of reading the file again. */
struct agent_policy_file {
	bool read;                /* read already (PID 1); false: the pipeline reads it */
	int r;                    /* what reading it returned, */
	struct vi_error err;      /* and why, when that failed */
	struct vi_policy policy;
};

/* What only PID 1 has: the kernel's hand-over for init and its own steps' state. */
struct agent_pid1 {
	int init_argc;             /* the kernel's arguments for init ("single", after --) */
	char **init_argv;          /* NULL: not PID 1 */
	char **init_envp;          /* the kernel's environment, for init (not for us) */
	struct agent_policy_file policy_file;
	bool kernel_guard_missing; /* the policy forces dm_verity.require_signatures; it is off */
	bool certs_present;        /* the image carries certificates for the .dm-verity keyring */
	struct vi_fs_loader fs_loader; /* a filesystem's modules before its mount */
	uint32_t fs_modules_tried; /* bit i: vi_root_fs_types[i]'s list was loaded */
	bool devkmsg_restore;      /* we lifted /dev/kmsg rate limiting: put it back */
	struct vi_ipe_policy ipe;  /* the policy's IPE policy, read before the switch */
	bool switched;             /* the switch got past its checks, the initramfs is gone */
};

/* Whether a shell may open in the fallback, as far as the TPM is concerned. */
struct agent_fallback_tpm {
	bool measured;             /* the TPM recorded the fallback, or need not */
	char unmeasured[320];      /* why a shell must not open when it did not */
};

/* Managed recovery after the switch (policy managed=yes; managed-boot.c, include/managed.h):
 * how the last boot ended, read once per boot, and what this boot makes of it. */
struct agent_managed {
	bool read;                 /* the pstore records and the variable were read */
	struct vi_pstore_scan scan;
	bool have_last;            /* the variable was there and decoded */
	struct vi_managed_record last;
	bool degraded;             /* the root boots with I/O errors for bad blocks */
	char trace[128];           /* whether a dm-verity end reaches the next boot (status file's
	                            * managed_trace=); "" until the root is committed */
	bool unmeasured;           /* the degraded event was not extended: no other event
	                            * follows it (the PCR must not reach a normal boot's value) */
	bool no_reboot;            /* a reboot would come back to the same degraded root: refused
	                            * (its last degraded boot did not come up), or this boot could
	                            * not be counted; the fail list neither reboots nor panics
	                            * (VI_MANAGED_NO_REBOOT in the run directory for the dracut
	                            * runtime's later processes) */
};

#define VI_MANAGED_NO_REBOOT "managed-no-reboot"

/* The dracut runtime's own state (dracut-mode.c). */
struct dracut_state;

struct agent {
	struct vi_kmsg log;
	struct vi_plan plan;       /* what to boot and how to fail (lib/boot/plan.c) */
	struct vi_failure failure; /* the failure being handled (the first one, during recovery) */
	struct vi_slot_boot slots; /* A/B boot (policy slots=): slot-boot.c */
	struct agent_fallback_tpm fallback;
	struct agent_managed managed;
	const char *status_dir;    /* VI_STATUS_DIR (the dracut runtime's tests name another) */
	const char *cmdline;       /* --cmdline (the dracut runtime), NULL: /proc/cmdline only */
	bool efivarfs_tried;       /* vi_agent_configure mounted efivarfs (or could not) */
	bool keyring_open;         /* the kernel's .dm-verity keyring could not be sealed */
	struct agent_timings time;
	struct agent_pid1 pid1;    /* PID 1 only */
	struct dracut_state *dracut; /* the dracut runtime only; there a failure the status file
	                              * holds already is the boot's first (another process found
	                              * it): its reason is kept */
};

/* The configuration pipeline (lib/boot/plan.c) with its notes logged: a->plan built anew,
 * whole, from the command line (cmdline, NULL: /proc/cmdline), the initramfs policy (PID 1's
 * copy, a->pid1.policy_file, when it read it) and, with boot, the signature step. A refusal is
 * returned, not logged (the caller logs it, or prints it: `parse`), and recorded in
 * *ret_refusal; NULL: not recorded, the failure being handled stays the one reported. */
int vi_agent_configure(struct agent *a, const char *cmdline, bool boot,
		       struct vi_failure *ret_refusal);
/* Steps 1-6 for one target, with their log lines; a failure is recorded and logged. */
int vi_agent_activate(struct agent *a, const struct vi_target *t, struct vi_activation *act);
/* The one place a failure is recorded: the value (stage, target, errno, CONTEXT: REASON), then
 * its log line. Returns r. */
int vi_agent_fail(struct agent *a, enum vi_stage stage, const struct vi_target *t, int r,
		  const char *context, const struct vi_error *reason);
/* Record and log a failure of target t at stage: "NAME: STAGE failed: REASON". */
int vi_agent_fail_target(struct agent *a, enum vi_stage stage, const struct vi_target *t, int r,
			 const struct vi_error *reason);
/* The one log record of a->failure. */
void vi_agent_log_failure(struct agent *a);
/* A marker NAME in the run directory (a->status_dir, made when missing): what one process of
 * the boot tells the later ones (the dracut runtime runs several). 0, or -errno (-EEXIST with
 * exclusive when it is there already). */
int vi_agent_run_mark(struct agent *a, const char *name, bool exclusive);
bool vi_agent_run_marked(const struct agent *a, const char *name);
/* After t is set up and verified: systemd's own veritysetup stands down for its mapping in the
 * booted system (a drop-in in /run; lib/boot/status.c), one log line when it cannot. */
void vi_agent_veritysetup_standdown(struct agent *a, const struct vi_target *t);
/* The status file, from a->failure (lib/boot/status.c): result VI_STATUS_RESULT_*, action
 * VI_STATUS_ACTION_* or the fail action taken. */
void vi_agent_write_status(struct agent *a, const char *result, const char *action,
			   const struct vi_target *booted);

/* Measure t into the policy's PCR (include/measure.h), before the switch. Without a TPM, or
 * when the extend fails, one log line and 0 unless the policy says require_tpm=yes: then the
 * failure is recorded (stage measure) and returned. */
int vi_agent_measure(struct agent *a, const struct vi_target *t);
/* A degraded root (managed recovery) before its own event: "dm-verity-degraded:NAME:ROOTHASH",
 * so the PCR never reaches a normal boot's value; a failure as vi_agent_measure's. */
int vi_agent_measure_degraded(struct agent *a, const struct vi_target *t);
/* r (from a TPM command) means a machine without a TPM: no TPM device, and no TPM the firmware
 * announces (one it announces but the kernel does not show is a driver left out, e.g. with
 * module_blacklist=, not a machine without one). */
bool vi_agent_no_tpm(int r);
/* Before any fail action: "dm-verity-fallback:STAGE" into the same PCR, so that no shell or
 * other root runs with the PCR at (or able to reach) a good boot's value. False, with the
 * reason in a->fallback.unmeasured, when that did not work and the policy requires the TPM, a
 * TPM device is there, the firmware announces a TPM or the command line may hide one
 * (include/tpmhint.h): whoever had the shell could load the driver and replay a good event. */
bool vi_agent_measure_fallback(struct agent *a);
/* The same with "dm-verity-fallback:WHAT": "shell" for a shell the initramfs opens outside the
 * fail list (dracut's breakpoints and emergency shell, systemd's shell units). */
bool vi_agent_measure_fallback_as(struct agent *a, const char *what);
/* fallback ops' shell_refused: a keyring left open (a->keyring_open), or a->fallback.measured
 * false (see above), refuses the shell. */
const char *vi_agent_shell_refused(struct agent *a);
/* dm-verity's own keyring (Linux 7.0; include/keyring.h): the initramfs's certificates
 * (VI_CERTS_DIR) added, then the keyring sealed, before any device is read; one log line.
 * A keyring that cannot be sealed sets a->keyring_open, which the configuration refuses. */
void vi_agent_seal_dmverity_keyring(struct agent *a);
/* The policy's signed IPE policy (ipe_policy=): read before the switch, while the initramfs is
 * there; activated after it, right before init is executed, when no fallback is left for the
 * policy to deny. A failure is recorded (stage ipe) and returned. */
int vi_agent_read_ipe(struct agent *a, const struct vi_target *t);
int vi_agent_activate_ipe(struct agent *a, const struct vi_target *t);

/* Managed recovery (policy managed=yes, else these do nothing): read how the last boot ended
 * (the pstore records, consumed; the agent's EFI variable), once per boot, with one log line. */
void vi_agent_managed_read(struct agent *a);
/* Without slots, before the targets are set up: degraded when the last boot of the root (of
 * the verified /usr under a tmpfs root) ended on dm-verity, or it booted degraded before with
 * the same root hash: the tables of the root and /usr then say nothing for a bad block (I/O
 * errors, no restart, no panic, never ignore_corruption), and the boot is counted in the
 * variable before anything of it runs. A degraded root whose last degraded boot was never
 * confirmed (`verity-init managed mark-good`) is refused: the failure recorded (stage managed)
 * and returned, a->managed.no_reboot set. */
int vi_agent_managed_boot(struct agent *a);
/* The dracut runtime's processes after `setup --fallback`: a->managed.no_reboot from the run
 * directory. */
void vi_agent_managed_no_reboot_read(struct agent *a);
/* `verity-init managed mark-good [--efivars DIR] [--status-dir DIR]` on the running system:
 * argv[0] is "managed". 0 when confirmed or nothing to confirm; 1 when the variable cannot be
 * read or written, or the running root is not the degraded one; 2: usage. */
int vi_managed_cmd_main(int argc, char **argv);
/* Right before the switch, for each target t measured: for the root (the /usr under a tmpfs
 * root) the variable written when its root hash or state changed (a degraded boot's was written
 * by vi_agent_managed_boot), and a degraded boot measured
 * as such ("dm-verity-degraded:NAME:ROOTHASH", before the target's own event). A failure of the
 * measurement is returned as vi_agent_measure's. */
int vi_agent_managed_commit(struct agent *a, const struct vi_target *t);

#ifndef VERITY_INIT_VERSION
#define VERITY_INIT_VERSION "0.1"
#endif

/* PID 1 (pid1-boot.c): argv and the environment are the kernel's, for init. The boot of the
 * root (or of an A/B slot), and on failure the fail list; returns only when PID 1 is to exit. */
int vi_pid1_main(struct agent *a, int argc, char **argv);

/* PID 1's first steps (pid1-early.c): the API filesystems and console; the kernel log's rate
 * limit lifted for the agent's run and put back before init; the modules, with the policy read
 * once (a->pid1.policy_file) for their forced parameters. vi_pid1_load_modules also sets
 * a->pid1.fs_loader: each filesystem type's own modules (VI_FS_MODULES_DIR/TYPE), loaded once,
 * the first time a mount of that type is tried. */
void vi_pid1_mount_api(struct agent *a);
void vi_pid1_devkmsg_unlimit(struct agent *a);
void vi_pid1_devkmsg_restore(struct agent *a);
void vi_pid1_load_modules(struct agent *a);

/* How a fail list walk ended (fallback.c). */
enum vi_fallback_end {
	VI_FALLBACK_RECOVERED, /* the recovery root took the failed root's place */
	VI_FALLBACK_SHELL,     /* the caller opens a shell, then resumes at *ret_next (dracut) */
	VI_FALLBACK_PANIC,     /* nothing took effect: the caller's last resort */
};

/* What differs between the runtimes; each returns only when the action did not take effect
 * (its reason logged), so that the walk goes on with the next one. */
struct vi_fallback_ops {
	/* 0: the recovery root took the root's place; negative: go on */
	int (*recovery)(struct agent *a);
	/* why a shell the policy allows is not opened after all, or NULL (may be NULL itself) */
	const char *(*shell_refused)(struct agent *a);
	/* PID 1 executes the shell (returns false when it could not); dracut returns true: the
	 * walk stops, the caller opens dracut's shell */
	bool (*shell)(struct agent *a);
	/* reboot or power off (VI_FAIL_REBOOT, VI_FAIL_POWEROFF) */
	void (*power)(struct agent *a, enum vi_fail_action act);
};

/* Walk the plan's fail list from entry first: status file and log line per action, each
 * action through ops; shell only where the policy allows one. */
enum vi_fallback_end vi_fallback_walk(struct agent *a, const struct vi_fallback_ops *ops,
				      unsigned first, unsigned *ret_next);

/* The dracut runtime (dracut-mode.c): `setup --fallback`, `fail`, `before-shell`,
 * `pre-pivot`; argv[0] is the verb. Returns the exit code. */
int vi_dracut_main(struct agent *a, int argc, char **argv);
/* `check-init`: the mapping and its init, nothing else (dracut-prepivot.c); argv[0] is the verb.
 * The exit code, or -EINVAL for a usage error. */
int vi_dracut_check_init(int argc, char **argv);
#endif
