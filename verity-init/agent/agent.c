// SPDX-License-Identifier: LGPL-2.1-or-later
/* The agent's core, shared by its two runtimes (PID 1 in pid1-boot.c, dracut in
 * dracut-mode.c): the configuration pipeline with its log lines, the one place a failure is
 * recorded, the status file, and the set-up of one target (lib/boot/activate.c) with its log
 * lines. Declared in agent.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "digest.h"
#include "efivars.h"
#include "params.h"
#include "policy.h"
#include "status.h"

/* The failure's log line: the one record of it (docs/design.md, the failure value). */
void vi_agent_log_failure(struct agent *a)
{
	char line[sizeof(a->failure.context) + sizeof(a->failure.reason.msg) + 2];

	vi_failure_log_line(&a->failure, line, sizeof(line));
	vi_kmsg_log(&a->log, KMSG_ERR, "%s", line);
}

/* The one place the agent records a failure: the value, then its log line. */
int vi_agent_fail(struct agent *a, enum vi_stage stage, const struct vi_target *t, int r,
		const char *context, const struct vi_error *reason)
{
	vi_failure_set(&a->failure, stage, t, r, context, reason);
	vi_agent_log_failure(a);
	return r;
}

/* A step of one target refused: "NAME: STAGE failed: REASON". */
int vi_agent_fail_target(struct agent *a, enum vi_stage stage, const struct vi_target *t, int r,
			 const struct vi_error *reason)
{
	char context[sizeof(a->failure.context)];

	snprintf(context, sizeof(context), "%s: %s failed", t->name, vi_stage_name(stage));
	return vi_agent_fail(a, stage, t, r, context, reason);
}

/* The configuration pipeline, the same for every mode (lib/boot/plan.c): the command line
 * (--cmdline STRING or /proc/cmdline), the initramfs policy and, when a root is to be set up
 * (boot), the signature step. Then its notes; a refusal is the caller's to log or print. */
int vi_agent_configure(struct agent *a, const char *cmdline, bool boot,
		       struct vi_failure *ret_refusal)
{
	const struct agent_policy_file *pf = &a->pid1.policy_file;
	const struct vi_plan_input in = {
		.cmdline = cmdline,
		.pid1 = a->pid1.init_argv != NULL,
		.policy_path = VI_POLICY_FILE,
		.policy_read = pf->read ? &pf->policy : NULL,
		.policy_read_r = pf->r,
		.policy_read_err = &pf->err,
		.boot = boot,
		.kernel_guard_missing = a->pid1.kernel_guard_missing,
		.keyring_open = a->keyring_open,
		.rootfd = AT_FDCWD,
		.efivars_dir = VI_EFIVARS_DIR,
	};
	const struct vi_plan *p = &a->plan;
	const struct vi_trust_result *tr = &p->trust;
	char line[VI_PLAN_MANIFEST_LINE_MAX];
	struct vi_failure refusal;
	int r;

	a->cmdline = cmdline;
	/* systemd mounts it early; PID 1 and dracut's shell init do not */
	if (!a->efivarfs_tried) {
		a->efivarfs_tried = true;
		r = vi_efivarfs_mount(VI_EFI_DIR);
		if (r < 0)
			vi_kmsg_log(&a->log, KMSG_INFO, "efivarfs not mounted: %s", strerror(-r));
	}
	r = vi_plan_build(&in, &a->plan, &refusal);
	if (r < 0 && ret_refusal)
		*ret_refusal = refusal;

	if (!p->refused && p->cfg.shell_dropped)
		vi_kmsg_log(&a->log, KMSG_WARNING,
			 "fail action shell dropped: the initramfs policy does not allow a shell");
	a->time.wait_ms += tr->wait_ms;
	if (tr->recovery_dropped)
		vi_kmsg_log(&a->log, KMSG_WARNING, "recovery root disabled: %s", tr->recovery_note);
	if (r < 0)
		return r;
	if (vi_plan_manifest_line(p, p->cfg.root.name, line, sizeof(line)))
		vi_kmsg_log(&a->log, KMSG_INFO, "%s", line);
	if (tr->root_sig.serial > 0)
		vi_kmsg_log(&a->log, KMSG_INFO, "%s: root hash signature (%zu bytes) passed to the "
			 "kernel as key %s (%llu us)", p->cfg.root.name, tr->root_sig.len,
			 p->cfg.root.sig_key_desc, (unsigned long long)tr->root_sig.own_us);
	return 0;
}

/* The status file, from the failure value (lib/boot/status.c). In the dracut runtime a
 * failure the file holds already came first (another step of the boot found it): its
 * name, root hash, stage and reason stay, as PID 1 keeps its first failure in memory. */
void vi_agent_write_status(struct agent *a, const char *result, const char *action,
			   const struct vi_target *booted)
{
	struct vi_status_hashes hashes;
	struct vi_error err;
	struct vi_status st, old;
	char text[VI_STATUS_MAX];

	vi_status_from_failure(result, action, &a->failure, booted, &hashes, &st);
	if (a->dracut && strcmp(result, VI_STATUS_RESULT_OK) &&
	    vi_status_read(a->status_dir, text, sizeof(text), &old) == 0 &&
	    !strcmp(old.result, VI_STATUS_RESULT_FAILED)) {
		st.name = old.name;
		st.root_hash = old.root_hash;
		st.stage = old.stage;
		st.reason = old.reason;
	}
	if (a->slots.store) {
		vi_status_set_slot(&st, a->slots.slot, a->slots.store);
		vi_status_set_skipped(&st, a->slots.skipped);
		st.floor_nv = a->slots.floor_nv;
		st.full_read = a->plan.policy.slot_full_read ? "yes" : NULL;
	}
	if (booted && booted != &a->plan.cfg.recovery && a->plan.cfg.usr.enabled)
		vi_status_set_usr(&st, &a->plan.cfg.usr, &hashes);
	if (booted)
		st.on_corruption = vi_corruption_word(booted->opts.corruption, VI_SPELL_MANIFEST);
	if (a->plan.policy.managed)
		st.managed = a->managed.degraded ? "degraded" : "normal";
	if (a->plan.policy.managed && a->managed.trace[0])
		st.managed_trace = a->managed.trace;
	if (vi_status_write(a->status_dir, &st, &err) < 0)
		vi_kmsg_log(&a->log, KMSG_WARNING, "%s", err.msg);
}

struct wait_note_ctx {
	struct agent *a;
	const struct vi_target *t;
};

/* One line when the devices are not all there at the first look: a late device is the usual
 * reason for a slow boot, and the record says which one the agent waits for. */
static void log_waiting(void *ctx, const char *missing, unsigned timeout_ms)
{
	const struct wait_note_ctx *c = ctx;

	vi_kmsg_log(&c->a->log, KMSG_NOTICE, "%s: waiting up to %u s: %s", c->t->name,
		 timeout_ms / 1000u, missing);
}

/* Steps 1-6 for one target (lib/boot/activate.c), with its log lines. */
int vi_agent_activate(struct agent *a, const struct vi_target *t, struct vi_activation *act)
{
	struct vi_error err = { "" };
	struct wait_note_ctx note = { a, t };
	int r;
	const struct vi_activate_opts o = {
		.timeout_ms = a->plan.cfg.timeout_s * 1000u,
		.ops = &vi_digest_afalg_ops,
		.allow_fewer_data_blocks =
			vi_policy_allows(&a->plan.policy, VI_WEAK_DATA_BLOCKS_BELOW_SB),
		.wait_note = { log_waiting, &note },
	};

	r = vi_activate(t, &o, act, &err);
	/* the last target of this boot: /usr comes after the root */
	if (t == &a->plan.cfg.recovery ||
	    (!a->plan.recovery_allowed && (t == &a->plan.cfg.usr || !a->plan.cfg.usr.enabled)))
		vi_plan_release_keys(&a->plan);   /* tables loaded: the kernel has its copies */
	a->time.wait_ms += act->wait_ms;
	if (act->preflight_skipped)
		vi_kmsg_log(&a->log, KMSG_WARNING,
			 "%s: pre-flight root hash check skipped: %s; the kernel still verifies "
			 "every block", t->name, act->preflight_note.msg);
	if (r < 0) {
		vi_agent_fail_target(a, act->stage, t, r, &err);
		if (act->stage == VI_STAGE_ACTIVATE && act->table[0])
			vi_kmsg_log(&a->log, KMSG_INFO, "%s: refused table: %s", t->name, act->table);
		return r;
	}
	vi_kmsg_log(&a->log, KMSG_INFO, "%s: %s verified (data %s, hash %s)%s, status V", t->name,
		 act->node, act->data_name, act->hash_name,
		 act->reused ? ", existing identical mapping reused" : "");
	return 0;
}

void vi_agent_veritysetup_standdown(struct agent *a, const struct vi_target *t)
{
	struct vi_error err = { "" };
	char dir[300];

	/* a test's run directory keeps the drop-in too, away from the host's systemd */
	if (strcmp(a->status_dir, VI_STATUS_DIR))
		snprintf(dir, sizeof(dir), "%.250s/" VI_SYSTEMD_RUNTIME_SUBDIR, a->status_dir);
	else
		snprintf(dir, sizeof(dir), "%s", VI_SYSTEMD_RUNTIME_UNITS);
	if (vi_status_veritysetup_standdown(dir, t->name, &err) < 0)
		vi_kmsg_log(&a->log, KMSG_NOTICE, "%s: systemd's veritysetup is not told to stand "
			    "down: %s", t->name, err.msg);
}

int vi_agent_run_mark(struct agent *a, const char *name, bool exclusive)
{
	char path[512];
	int fd;

	if (mkdir(a->status_dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%.400s/%s", a->status_dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (exclusive ? O_EXCL : 0),
		  0644);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

bool vi_agent_run_marked(const struct agent *a, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%.400s/%s", a->status_dir, name);
	return access(path, F_OK) == 0;
}
