// SPDX-License-Identifier: LGPL-2.1-or-later
/* The agent's configuration pipeline (include/plan.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "efivars.h"
#include "fileio.h"
#include "keyring.h"
#include "plan.h"
#include "strutil.h"
#include "trust.h"

/* Step 1: the command line given, or /proc/cmdline. *ret_context names the source of a
 * refusal for the log line. */
static int parse_cmdline(const struct vi_plan_input *in, struct vi_config *cfg,
			 const char **ret_context, struct vi_error *err)
{
	/* PID 1 reads the kernel's parameters (after "--" come its init's arguments); parse and
	 * setup answer for dracut, whose getarg reads every word */
	unsigned flags = in->pid1 ? 0 : VI_CMDLINE_PAST_DASHDASH;
	const size_t size = VI_MAX_CMDLINE + 2;   /* one byte more than allowed: -E2BIG */
	char *buf;
	int r;

	*ret_context = "command line refused";
	if (in->cmdline)
		return vi_cmdline_parse(in->cmdline, flags, cfg, err);
	buf = malloc(size);
	if (!buf) {
		vi_err(err, "out of memory reading /proc/cmdline");
		return -ENOMEM;
	}
	r = vi_fileio_read_text_at(AT_FDCWD, "/proc/cmdline", buf, size);
	if (r < 0) {
		*ret_context = "";
		vi_err(err, "cannot read /proc/cmdline: %s", strerror(-r));
	} else {
		r = vi_cmdline_parse(buf, flags, cfg, err);
	}
	free(buf);
	return r;
}

/* The initramfs policy, read once per plan: from the caller's copy when it has read it. */
static int load_policy(const struct vi_plan_input *in, struct vi_policy *ret,
		       struct vi_error *err)
{
	if (!in->policy_read)
		return vi_policy_load(in->policy_path, ret, err);
	if (in->policy_read_r < 0) {
		if (in->policy_read_err)
			*err = *in->policy_read_err;
		return in->policy_read_r;
	}
	*ret = *in->policy_read;
	return 0;
}

/* Step 2. A refused command line is not used at all, not even its fallback list or its
 * recovery root: back to the defaults, with only the policy's own fail actions. */
static int apply_policy(const struct vi_plan_input *in, struct vi_plan *plan,
			struct vi_error *err)
{
	struct vi_error ignored;
	bool policy_ok;
	int r;

	r = load_policy(in, &plan->policy, err);
	policy_ok = r >= 0;
	if (policy_ok)
		r = vi_policy_apply(&plan->policy, &plan->cfg, err);
	if (r < 0) {
		vi_config_init(&plan->cfg);
		if (policy_ok)
			vi_policy_apply(&plan->policy, &plan->cfg, &ignored);
		else
			vi_policy_init(&plan->policy);   /* unreadable policy: strictest defaults */
	}
	return r;
}

/* Step 3 for A/B boot: each slot's root hash, devices and version come from the manifest
 * stored with the slot, verified with the initramfs's keys (the command line names no root:
 * vi_policy_check). Without keys no slot could ever verify: refused before the store is touched
 * (a configuration error must not mark every slot bad). */
static int slots_check(const struct vi_plan_input *in, struct vi_error *err)
{
	struct vi_keyset *keys;
	int r;

	keys = malloc(sizeof(*keys));
	if (!keys)
		return vi_errno(err, -ENOMEM, "out of memory");
	r = vi_keys_load(in->rootfd, VI_KEYS_DIR, keys, err);
	free(keys);
	if (r < 0)
		vi_err_wrap(err, r, "A/B slots (policy slots=) need the manifest keys: ");
	return r;
}

/* Step 3: what PID 1 and `setup` need before anything is read from a device. */
static int boot_check(const struct vi_plan_input *in, const struct vi_config *cfg, bool slots,
		      struct vi_error *err)
{
	if (in->kernel_guard_missing) {
		vi_err(err, "policy require_signature=kernel, but dm_verity.require_signatures is "
		       "not Y (built in or loaded before the agent: dm_verity.require_signatures=1 "
		       "on the command line)");
		return -EPERM;
	}
	if (cfg->verity_disabled) {
		vi_err(err, "verity disabled on the command line: no unverified root is mounted");
		return -EPERM;
	}
	if (cfg->usr.enabled && cfg->layout == VI_LAYOUT_WRITABLE_USR && !in->pid1) {
		vi_err(err, "a verified /usr under an unverified root= partition is booted by the "
		       "standalone agent (PID 1) only; under dracut: a verified root (roothash=) "
		       "or a tmpfs root (systemd.volatile=yes)");
		return -EOPNOTSUPP;
	}
	if (slots)
		return slots_check(in, err);
	if (!cfg->root.enabled && !cfg->usr.enabled) {
		vi_err(err, "no root hash on the command line (roothash= or verity.roothash=)");
		return -ENOENT;
	}
	return 0;
}

int vi_plan_build(const struct vi_plan_input *in, struct vi_plan *plan,
		  struct vi_failure *ret_failure)
{
	struct vi_error err = { "" };
	const char *context = "";
	int r;

	memset(plan, 0, sizeof(*plan));
	vi_config_init(&plan->cfg);
	vi_policy_init(&plan->policy);

	r = parse_cmdline(in, &plan->cfg, &context, &err);
	/* systemd would read more words than the ones just checked */
	if (r == 0 && in->efivars_dir)
		r = vi_efi_options_check(in->efivars_dir, &err);
	if (r < 0) {
		struct vi_error ignored;

		/* cfg holds the defaults: the policy's fail actions still apply */
		if (load_policy(in, &plan->policy, &ignored) == 0)
			vi_policy_apply(&plan->policy, &plan->cfg, &ignored);
		plan->refused = true;
		return vi_failure_set(ret_failure, VI_STAGE_CONFIG, &plan->cfg.root, r, context,
				      &err);
	}
	/* dracut's shell switches (rd.break, rd.shell) mean nothing to PID 1, which opens a shell
	 * only as a fail action the policy allows: nothing to refuse there */
	if (in->pid1)
		plan->cfg.shell_requested = false;
	r = apply_policy(in, plan, &err);
	plan->refused = r < 0;
	if (r < 0)
		return vi_failure_set(ret_failure, VI_STAGE_CONFIG, &plan->cfg.root, r, "policy",
				      &err);
	plan->slots = plan->policy.slot_count > 0;
	/* whatever the command: no root, no recovery root, no shell (the fallback's
	 * shell_refused) while a key added later would be trusted */
	if (in->keyring_open) {
		plan->refused = true;
		vi_err(&err, "the kernel's " VI_DMVERITY_KEYRING " keyring could not be sealed: a "
		       "key added to it later would be trusted");
		return vi_failure_set(ret_failure, VI_STAGE_CONFIG, &plan->cfg.root, -EPERM, "",
				      &err);
	}
	plan->recovery_allowed = plan->cfg.recovery.enabled;
	if (!in->boot)
		return 0;

	r = boot_check(in, &plan->cfg, plan->slots, &err);
	if (r < 0)
		return vi_failure_set(ret_failure, VI_STAGE_CONFIG, &plan->cfg.root, r, "", &err);

	/* Step 4: the recovery root's signature is checked whatever happens to the root's */
	r = vi_plan_trust(plan, in->rootfd, &err);
	if (r < 0)
		return vi_failure_set(ret_failure, VI_STAGE_CONFIG, &plan->cfg.root, r,
				      plan->cfg.root.name, &err);
	return 0;
}

int vi_plan_trust(struct vi_plan *plan, int rootfd, struct vi_error *err)
{
	const struct vi_trust_ctx ctx = {
		.rootfd = rootfd,
		.min_version = plan->policy.min_version,
		.timeout_ms = plan->cfg.timeout_s * 1000u,
	};
	int r;

	/* the keys of an earlier step (the slot set up before) go before the step replaces
	 * the result that holds them */
	vi_plan_release_keys(plan);
	r = vi_trust_setup(&plan->cfg, &ctx, &plan->trust, err);
	plan->trusted = true;
	plan->recovery_allowed = plan->cfg.recovery.enabled && !plan->trust.recovery_dropped;
	return r;
}

bool vi_plan_manifest_line(const struct vi_plan *plan, const char *who, char *buf, size_t size)
{
	const struct vi_trust_result *tr = &plan->trust;

	if (!tr->manifest)
		return false;
	snprintf(buf, size, "%s: signed manifest version %llu from %s verified with key %s (%s)",
		 who, (unsigned long long)tr->version, tr->source, tr->key_id, tr->key_file);
	return true;
}

void vi_plan_release_keys(struct vi_plan *plan)
{
	vi_trust_release(&plan->trust);
}
