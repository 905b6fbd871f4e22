// SPDX-License-Identifier: LGPL-2.1-or-later
/* What the initramfs policy allows of a configuration (include/policy.h): the check of the
 * command line's choices against the policy, and the policy's completion of the configuration
 * (fail list, timeout, the shell). The file's grammar and reader are policy.c. */
#include "policy.h"

#include <errno.h>
#include <string.h>

#include "params.h"
#include "strutil.h"

/* A signature the kernel checks when the table is loaded: not a manifest, which the agent
 * checks in userspace. */
static bool kernel_signature(const struct vi_target *t)
{
	return !t->enabled || t->sig_path[0] || t->sig_key_desc[0];
}

static int refuse(struct vi_error *err, const char *what, uint32_t weak)
{
	vi_err(err, "%s: '%s' weakens verification and the initramfs policy (%s allow_weak=) "
	       "does not allow it", what, vi_weak_name(weak), VI_POLICY_FILE);
	return -EPERM;
}

static int check_target(const struct vi_target *t, const char *what, const struct vi_policy *p,
			struct vi_error *err)
{
	if (!t->enabled)
		return 0;
	if (t->opts.corruption == VI_CORRUPT_IGNORE &&
	    !vi_policy_allows(p, VI_WEAK_IGNORE_CORRUPTION))
		return refuse(err, what, VI_WEAK_IGNORE_CORRUPTION);
	if (t->opts.check_at_most_once && !vi_policy_allows(p, VI_WEAK_CHECK_AT_MOST_ONCE))
		return refuse(err, what, VI_WEAK_CHECK_AT_MOST_ONCE);
	if (t->opts.ignore_zero_blocks && !vi_policy_allows(p, VI_WEAK_IGNORE_ZERO_BLOCKS))
		return refuse(err, what, VI_WEAK_IGNORE_ZERO_BLOCKS);
	/* Without a superblock every parameter comes from the command line. */
	if (!t->superblock && !vi_policy_allows(p, VI_WEAK_NO_SUPERBLOCK))
		return refuse(err, what, VI_WEAK_NO_SUPERBLOCK);
	return 0;
}

/* What the command line hands to the booted system: init=, a hand-over switch, environment
 * names, a shell asked for. */
static int check_handover(const struct vi_config *cfg, const struct vi_policy *p,
			  struct vi_error *err)
{
	/* init= is not covered by the root hash or a signature: init=/bin/sh on the verified root
	 * would be a shell */
	if (p->init[0] && cfg->init_given && strcmp(cfg->init, p->init)) {
		char v[80];

		vi_sanitize(cfg->init, strlen(cfg->init), v, sizeof(v));
		vi_err(err, "init=%s: the initramfs policy allows only init=%s (or none: %s)", v,
		       p->init, VI_DEFAULT_INIT);
		return -EPERM;
	}
	if (cfg->handover_requested && !p->allow_shell) {
		vi_err(err, "'%s' hands control to a shell or to code no signature covers: the "
		       "initramfs policy does not allow it (allow_shell=yes would)",
		       cfg->handover_key);
		return -EPERM;
	}
	for (unsigned i = 0; i < cfg->env_count; i++) {
		const char *name = cfg->env_names[i];

		if (vi_policy_env_allowed(p, name, strlen(name)))
			continue;
		vi_err(err, "'%s=' sets the environment of the booted system: %s", name,
		       vi_env_name_forbidden(name, strlen(name))
			       ? "never allowed from the command line"
			       : "not in the initramfs policy's init_env=");
		return -EPERM;
	}
	if (cfg->shell_requested && !p->allow_shell) {
		vi_err(err, "'%s' opens a root shell in the initramfs: the initramfs policy does not "
		       "allow it (allow_shell=yes would)", cfg->shell_key);
		return -EPERM;
	}
	return 0;
}

/* The policy's version floor needs the root's manifest, and leaves no room for a /usr or a
 * recovery root, which cannot carry one. */
static int check_version_floor(const struct vi_config *cfg, const struct vi_policy *p,
			       struct vi_error *err)
{
	/* A version floor means nothing for a root whose signature carries no version (a PKCS#7
	 * root hash signature signs the hash alone): the root must come with its manifest. */
	if ((p->require_manifest || p->min_version > 0) && cfg->root.enabled && !cfg->manifest[0]) {
		vi_err(err, "the initramfs policy %s: the root needs a signed manifest "
		       "(verity.manifest=); a root hash signature carries no version",
		       p->min_version > 0 ? "has a version floor (min_version=)"
					  : "requires a manifest (require_manifest=yes)");
		return -EPERM;
	}
	if ((p->require_manifest || p->min_version > 0) && cfg->usr.enabled) {
		vi_err(err, "the initramfs policy %s, and a signed manifest covers the root only: "
		       "no verified /usr under this policy",
		       p->min_version > 0 ? "has a version floor (min_version=)"
					  : "requires a manifest (require_manifest=yes)");
		return -EPERM;
	}
	if ((p->require_manifest || p->min_version > 0) && cfg->recovery.enabled) {
		vi_err(err, "the initramfs policy %s, and a recovery root cannot carry a manifest: "
		       "no recovery root under this policy",
		       p->min_version > 0 ? "has a version floor (min_version=)"
					  : "requires a manifest (require_manifest=yes)");
		return -EPERM;
	}
	return 0;
}

/* Every target signed as the policy (or verity.require_signature) asks: by the kernel, or at
 * all. */
static int check_signatures(const struct vi_config *cfg, const struct vi_policy *p,
			    struct vi_error *err)
{
	if (p->require_kernel_signature) {
		if (!kernel_signature(&cfg->root)) {
			vi_err(err, "the initramfs policy requires a signature the kernel checks "
			       "(require_signature=kernel): verity.sig= or root-hash-signature=; a "
			       "manifest alone is checked by the agent");
			return -EPERM;
		}
		if (!kernel_signature(&cfg->recovery)) {
			vi_err(err, "the initramfs policy requires a signature the kernel checks "
			       "(require_signature=kernel), and the recovery root has none");
			return -EPERM;
		}
		if (!kernel_signature(&cfg->usr)) {
			vi_err(err, "the initramfs policy requires a signature the kernel checks "
			       "(require_signature=kernel), and /usr has none (verity.usr.sig=)");
			return -EPERM;
		}
	}
	if (cfg->require_signature || p->require_signature) {
		if (!vi_target_has_signature(cfg, &cfg->root)) {
			vi_err(err, "a signed root hash is required but no signature (verity.sig=, "
			       "root-hash-signature=) or verity.manifest= is given");
			return -EPERM;
		}
		if (!vi_target_has_signature(cfg, &cfg->recovery)) {
			vi_err(err, "a signed root hash is required but the recovery root has no "
			       "root-hash-signature=");
			return -EPERM;
		}
		if (!vi_target_has_signature(cfg, &cfg->usr)) {
			vi_err(err, "a signed root hash is required but /usr has no signature "
			       "(verity.usr.sig=, root-hash-signature= in its options)");
			return -EPERM;
		}
	}
	return 0;
}

/* A/B boot (slots=): every root the agent may boot comes from a slot's signed manifest, read
 * with the initramfs's keys and held to the store's and the TPM's floor. The command line adds
 * none: not the root (roothash=, the systemd.verity_root_* keys, dm-mod.create=, a DPS root
 * derived from a root hash, verity.manifest=), not a recovery root (verity.recovery.*), not a
 * verified /usr under or beside the slot's root (usrhash=, verity.usr.*; mount.usr= needs one,
 * and so do systemd.volatile=yes and root=tmpfs), nor a boot without verity (systemd.verity=0,
 * which would leave root= to dracut). A recovery system is a slot of its own. This is
 * the one place the rule is decided: PID 1, dracut's setup and generator and `parse` all come
 * through here. */
static int check_slots(const struct vi_config *cfg, const struct vi_policy *p,
		       struct vi_error *err)
{
	const char *what = NULL;

	if (p->slot_count == 0)
		return 0;
	if (cfg->verity_disabled)
		what = "a root without verity (systemd.verity=0), whatever allow_weak= says";
	else if (cfg->root.enabled || cfg->manifest[0])
		what = "a root (roothash=, verity.manifest=, dm-mod.create=)";
	else if (cfg->recovery.enabled)
		what = "a recovery root (verity.recovery.*; a recovery system is a slot of its own)";
	else if (cfg->usr.enabled || cfg->layout != VI_LAYOUT_ROOT)
		what = "a verified /usr (usrhash=, verity.usr.*)";
	if (!what)
		return 0;
	vi_err(err, "the initramfs policy boots A/B slots (slots=): every root comes from a slot's "
	       "signed manifest, the command line may not name %s", what);
	return -EPERM;
}

int vi_policy_check(const struct vi_config *cfg, const struct vi_policy *p,
		    struct vi_error *err)
{
	int r;

	r = check_slots(cfg, p, err);
	if (r < 0)
		return r;
	if (cfg->verity_disabled && !vi_policy_allows(p, VI_WEAK_VERITY_OFF))
		return refuse(err, "systemd.verity=0", VI_WEAK_VERITY_OFF);
	r = check_target(&cfg->root, "verity root", p, err);
	if (r < 0)
		return r;
	r = check_target(&cfg->recovery, "recovery root", p, err);
	if (r < 0)
		return r;
	r = check_target(&cfg->usr, "verified /usr", p, err);
	if (r < 0)
		return r;
	/* /etc, the units and ld.so.preload then belong to whoever can write that partition */
	if (cfg->layout == VI_LAYOUT_WRITABLE_USR && !p->allow_unverified_root) {
		vi_err(err, "root=%.64s is not verified, only /usr: its /etc, units and "
		       "ld.so.preload are not checked; the initramfs policy does not allow it "
		       "(allow_unverified_root=yes would)", cfg->root_dev);
		return -EPERM;
	}
	for (unsigned i = 0; i < VI_MAX_FAIL && cfg->fail[i] != VI_FAIL_NONE; i++)
		if (cfg->fail[i] == VI_FAIL_SHELL && !p->allow_shell) {
			vi_err(err, "fail action 'shell' is not allowed by the initramfs policy");
			return -EPERM;
		}
	r = check_handover(cfg, p, err);
	if (r < 0)
		return r;
	r = check_version_floor(cfg, p, err);
	if (r < 0)
		return r;
	return check_signatures(cfg, p, err);
}

int vi_policy_apply(const struct vi_policy *p, struct vi_config *cfg, struct vi_error *err)
{
	enum vi_fail_action out[VI_MAX_FAIL] = { VI_FAIL_NONE };
	struct vi_config next = *cfg;   /* applied whole or not at all */
	unsigned n = 0;
	int r;

	if (!next.fail_given && p->fail_set)
		memcpy(next.fail, p->fail, sizeof(next.fail));
	if (!next.timeout_given && p->timeout_set)
		next.timeout_s = p->timeout_s;
	if (p->require_signature)
		next.require_signature = true;
	next.verity_off_allowed = vi_policy_allows(p, VI_WEAK_VERITY_OFF);
	next.shell_allowed = p->allow_shell;
	for (unsigned i = 0; i < VI_MAX_FAIL && next.fail[i] != VI_FAIL_NONE; i++) {
		if (next.fail[i] == VI_FAIL_SHELL && !p->allow_shell) {
			next.shell_dropped = true;
			continue;
		}
		/* Only a policy default can get here without a recovery root: the command-line
		 * parser already refuses verity.fail=recovery without one. */
		if (next.fail[i] == VI_FAIL_RECOVERY && !next.recovery.enabled)
			continue;
		out[n++] = next.fail[i];
	}
	if (n == 0)
		out[0] = VI_FAIL_PANIC;
	memcpy(next.fail, out, sizeof(out));
	r = vi_policy_check(&next, p, err);
	if (r < 0)
		return r;
	*cfg = next;
	return 0;
}
