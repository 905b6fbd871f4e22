/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent's configuration pipeline: one function, vi_plan_build, turns the kernel command
 * line, the initramfs policy and (when a root is to be set up) the signature step into the
 * plan the agent follows. PID 1, `setup` and `parse` all call it; they differ only in its
 * input (docs/design.md, "The configuration pipeline and the failure value").
 *
 *   1. command line   vi_cmdline_parse; refused: the defaults, and the policy's fail actions
 *   2. policy         vi_policy_load + vi_policy_apply: fail actions and timeout defaults,
 *                     "shell" dropped unless allowed, refusals; refused: the defaults again
 *   3. something to boot (in->boot): a root hash and verity not switched off; the kernel
 *                     enforcing signatures when the policy forces it
 *   4. trust (in->boot): vi_plan_trust, the signed manifest merged into cfg.root, signature
 *                     keys in the keyring; whether the recovery root may still be booted.
 *                     A/B boot (policy slots=): the initramfs must hold manifest keys, and the
 *                     root's step 4 is left to the slot boot (that the command line names no
 *                     root, recovery root or /usr is step 2's: vi_policy_check)
 *
 * A refusal at any step is *ret_failure (stage config, target the root) and the return value;
 * the plan then still holds what applies instead. Nothing is logged: the agent logs the
 * failure and the notes (shell_dropped, trust.recovery_note, trust.manifest). */
#ifndef VERITY_PLAN_H
#define VERITY_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "failure.h"
#include "policy.h"
#include "trust.h"

struct vi_plan_input {
	const char *cmdline;        /* the command line; NULL: read /proc/cmdline */
	bool pid1;                  /* the kernel's init: words after "--" are init's, dracut's
	                             * shell switches (rd.break, rd.shell) mean nothing */
	const char *policy_path;    /* VI_POLICY_FILE */
	const struct vi_policy *policy_read; /* the policy read from policy_path already (PID 1
	                             * needs it before loading modules), or NULL: read it here */
	int policy_read_r;          /* with policy_read: what reading it returned, */
	const struct vi_error *policy_read_err; /* and why, when that was an error */
	bool boot;                  /* a root is to be set up: steps 3 and 4 (`parse`: false) */
	bool kernel_guard_missing;  /* the policy forces dm_verity.require_signatures=Y and the
	                             * kernel does not have it */
	bool keyring_open;          /* the kernel's .dm-verity keyring could not be sealed */
	int rootfd;                 /* the initramfs root for keys and manifest files */
	const char *efivars_dir;    /* VI_EFIVARS_DIR: a SystemdOptions variable there refuses the
	                             * command line (efivars.h); NULL: not looked at */
};

struct vi_plan {
	struct vi_config cfg;       /* what to boot: the command line (the defaults when it was
	                             * refused) completed by the policy and the signed manifest */
	struct vi_policy policy;    /* the initramfs policy (the strictest defaults when it was
	                             * unreadable) */
	bool trusted;               /* step 4 ran: trust holds its outcome */
	struct vi_trust_result trust; /* manifest, signature keys in the keyring, recovery note */
	bool refused;               /* step 1 or 2 refused: cfg is the defaults plus the policy's
	                             * fail actions, nothing of the command line is used */
	bool recovery_allowed;      /* the recovery root is configured and passed step 4 */
	bool slots;                 /* A/B boot (policy slots=): step 4 for the root is the slot
	                             * boot's, per slot (verity-init/agent/slot-boot.c); cfg.root holds
	                             * only what the command line gave (name, options) */
};

/* Build plan from in (steps above). 0, or the refusal's negative errno with *ret_failure set
 * (untouched on success); plan is complete either way. */
int vi_plan_build(const struct vi_plan_input *in, struct vi_plan *plan,
		  struct vi_failure *ret_failure);

/* Step 4, the trust decision, for the plan's root as plan->cfg holds it: the signature step
 * (vi_trust_setup, keys and manifests under rootfd, the policy's min_version, the command line's
 * device timeout) after the keys of an earlier step were released; plan->trust its outcome,
 * plan->recovery_allowed whether the fallback may boot the recovery root. vi_plan_build runs it
 * for the command line's root, the A/B boot step once per slot (cfg.root: the slot's layout).
 * 0 or the step's negative errno (err says why). */
int vi_plan_trust(struct vi_plan *plan, int rootfd, struct vi_error *err);

/* The log line of a verified signed manifest: "WHO: signed manifest version N from SOURCE
 * verified with key ID (FILE)" into buf (cut to fit); false, buf untouched, when step 4 merged
 * none. */
#define VI_PLAN_MANIFEST_LINE_MAX (VI_MAX_PATH + 256u)
bool vi_plan_manifest_line(const struct vi_plan *plan, const char *who, char *buf, size_t size);

/* After the tables are loaded: drop the signature keys from the keyring (vi_trust_release).
 * Safe to call more than once. */
void vi_plan_release_keys(struct vi_plan *plan);

#endif
