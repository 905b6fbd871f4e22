// SPDX-License-Identifier: LGPL-2.1-or-later
/* Kernel command line -> struct vi_config. docs/cmdline.md is the user-facing reference.
 *
 * Two passes over the words:
 *  1. collect: every key we know (under any of its names) goes to one slot. A setting may be
 *     repeated, under any of its names, only with the same value: roothash= X and
 *     verity.roothash= Y with X != Y is refused, never mixed. The kernel's own keys root=,
 *     rootfstype=, rootflags=, init= follow the kernel: the last one wins.
 *  2. resolve: slots are decoded and checked into a local vi_config, which is copied to the
 *     caller only when everything is valid.
 * No I/O here: the agent reads /proc/cmdline and hands the buffer in (fuzzers do the same). */
#include "cmdtoken.h"
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base64.h"
#include "cmdsplit.h"
#include "dminit.h"
#include "hex.h"
#include "params.h"
#include "rootopts.h"
#include "strutil.h"
#include "usrcfg.h"
#include "volatile.h"
#include "vopts.h"

static void target_init(struct vi_target *t, const char *name)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->superblock = true;
	t->dm_minor = -1;
}

void vi_config_init(struct vi_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	target_init(&cfg->root, VI_DEFAULT_NAME);
	target_init(&cfg->recovery, VI_DEFAULT_RECOVERY_NAME);
	target_init(&cfg->usr, VI_DEFAULT_USR_NAME);
	cfg->fail[0] = VI_FAIL_PANIC;
	cfg->timeout_s = VI_DEFAULT_TIMEOUT_S;
	snprintf(cfg->init, sizeof(cfg->init), "%s", VI_DEFAULT_INIT);
}

/* ---- keys ------------------------------------------------------------------------------------ */

enum slot {
	S_ROOTHASH, S_DATA, S_HASHDEV, S_OPTIONS, S_NAME,
	S_REC_ROOTHASH, S_REC_DATA, S_REC_HASHDEV, S_REC_OPTIONS, S_REC_NAME,
	S_USR_ROOTHASH, S_USR_DATA, S_USR_HASHDEV, S_USR_OPTIONS, S_USR_NAME, S_USR_SIG,
	S_MOUNT_USR, S_USRFSTYPE, S_USRFLAGS, S_RW,
	S_ENABLE, S_FAIL, S_TIMEOUT, S_SIG, S_MANIFEST, S_REQSIG, S_DMCREATE,
	S_ROOT, S_ROOTFSTYPE, S_ROOTFLAGS, S_INIT, S_RO,
	S_EXTRA_MOUNT,
	S_OTHER_INIT,
	S_SHELL,
	S_VOLATILE, S_VI_VOLATILE,
	S__MAX
};

enum {
	K_RD    = 1u << 0,   /* also accepted with an "rd." prefix */
	K_BOOL  = 1u << 1,   /* boolean; the bare key means yes */
	K_LAST  = 1u << 2,   /* kernel key: the last occurrence wins */
	K_FLAG  = 1u << 3,   /* bare word only ("ro") */
	K_CASEI = 1u << 4,   /* repeats compared case-insensitively (hex) */
	K_BARE  = 1u << 5,   /* the bare key has a meaning of its own (lib/config/volatile.c) */
};

struct key {
	const char *name;
	enum slot slot;
	unsigned flags;
};

static const struct key keys[] = {
	{ "roothash",                     S_ROOTHASH,     K_RD | K_CASEI },
	{ "systemd.verity",               S_ENABLE,       K_RD | K_BOOL },
	{ "systemd.verity_root_data",     S_DATA,         K_RD },
	{ "systemd.verity_root_hash",     S_HASHDEV,      K_RD },
	{ "systemd.verity_root_options",  S_OPTIONS,      K_RD },
	/* /usr: lib/config/usrcfg.c */
	{ "usrhash",                      S_USR_ROOTHASH, K_RD | K_CASEI },
	{ "systemd.verity_usr_data",      S_USR_DATA,     K_RD },
	{ "systemd.verity_usr_hash",      S_USR_HASHDEV,  K_RD },
	{ "systemd.verity_usr_options",   S_USR_OPTIONS,  K_RD },
	{ "verity.usr.roothash",          S_USR_ROOTHASH, K_RD | K_CASEI },
	{ "verity.usr.data",              S_USR_DATA,     K_RD },
	{ "verity.usr.hash",              S_USR_HASHDEV,  K_RD },
	{ "verity.usr.options",           S_USR_OPTIONS,  K_RD },
	{ "verity.usr.name",              S_USR_NAME,     K_RD },
	{ "verity.usr.sig",               S_USR_SIG,      K_RD },
	/* systemd-fstab-generator mounts these into the new root: only the verified mapping */
	{ "mount.usr",                    S_MOUNT_USR,    K_RD },
	{ "mount.usrfstype",              S_USRFSTYPE,    K_RD },
	{ "mount.usrflags",               S_USRFLAGS,     K_RD },
	{ "systemd.mount-extra",          S_EXTRA_MOUNT,  K_RD },
	/* memory pages written to and read back from an unverified device */
	{ "systemd.swap-extra",           S_EXTRA_MOUNT,  K_RD },
	/* dracut's: a fallback root and an xfs log device, both unverified */
	{ "rootfallback",                 S_EXTRA_MOUNT,  0 },
	{ "root.journaldev",              S_EXTRA_MOUNT,  0 },
	/* dracut runs these before init=: an init that nobody checked */
	{ "real_init",                    S_OTHER_INIT,   0 },
	{ "rd.distroinit",                S_OTHER_INIT,   0 },
	/* dracut's root shells: allowed only by the initramfs policy (vi_policy_check) */
	{ "rd.break",                     S_SHELL,        0 },
	{ "rdbreak",                      S_SHELL,        0 },
	{ "rd.shell",                     S_SHELL,        K_BOOL },
	{ "rdshell",                      S_SHELL,        0 },
	{ "verity.roothash",              S_ROOTHASH,     K_RD | K_CASEI },
	{ "verity.data",                  S_DATA,         K_RD },
	{ "verity.hash",                  S_HASHDEV,      K_RD },
	{ "verity.options",               S_OPTIONS,      K_RD },
	{ "verity.name",                  S_NAME,         K_RD },
	{ "verity.fail",                  S_FAIL,         K_RD },
	{ "verity.timeout",               S_TIMEOUT,      K_RD },
	{ "verity.sig",                   S_SIG,          K_RD },
	{ "verity.manifest",              S_MANIFEST,     K_RD },
	{ "verity.require_signature",     S_REQSIG,       K_RD | K_BOOL },
	/* systemd's has no "rd." form: its initramfs and the root read the same key */
	{ "systemd.volatile",             S_VOLATILE,     K_BARE },
	{ "verity.volatile",              S_VI_VOLATILE,  K_RD | K_BARE },
	{ "verity.recovery.roothash",     S_REC_ROOTHASH, K_RD | K_CASEI },
	{ "verity.recovery.data",         S_REC_DATA,     K_RD },
	{ "verity.recovery.hash",         S_REC_HASHDEV,  K_RD },
	{ "verity.recovery.options",      S_REC_OPTIONS,  K_RD },
	{ "verity.recovery.name",         S_REC_NAME,     K_RD },
	{ "dm-mod.create",                S_DMCREATE,     0 },
	{ "root",                         S_ROOT,         K_LAST },
	{ "rootfstype",                   S_ROOTFSTYPE,   K_LAST },
	{ "rootflags",                    S_ROOTFLAGS,    K_LAST },
	{ "init",                         S_INIT,         K_LAST },
	{ "ro",                           S_RO,           K_FLAG },
	{ "rw",                           S_RW,           K_FLAG },
};

struct slotval {
	bool set;
	const char *key;     /* as written, for messages */
	size_t key_len;
	const char *val;
	size_t val_len;
	bool b;              /* K_BOOL slots */
};

struct cmdline_state {
	struct slotval slots[S__MAX];
	bool past_dashdash;                      /* words after "--": init's arguments */
	char env[VI_MAX_ENV][VI_MAX_ENV_NAME];
	unsigned env_count;
	bool handover;
	char handover_key[48];
};

static const struct key *find_key(const char *k, size_t n)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (vi_key_eq(k, n, keys[i].name))
			return &keys[i];
	if (n > 3 && memcmp(k, "rd.", 3) == 0)
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if ((keys[i].flags & K_RD) && vi_key_eq(k + 3, n - 3, keys[i].name))
				return &keys[i];
	return NULL;
}

/* Keys in our namespaces must be known: a typo must not silently drop a security setting. */
static bool our_namespace(const char *k, size_t n)
{
	if (n > 3 && memcmp(k, "rd.", 3) == 0) {
		k += 3;
		n -= 3;
	}
	return vi_has_prefix(k, n, "verity.") || (n > 14 && vi_key_eq(k, 15, "systemd.verity_"));
}

static bool same_value(const struct slotval *a, const char *v, size_t n, bool casei)
{
	if (!a->val || !v)
		return a->val == v;
	if (a->val_len != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char x = a->val[i], y = v[i];

		if (casei && x >= 'A' && x <= 'Z')
			x = (char)(x - 'A' + 'a');
		if (casei && y >= 'A' && y <= 'Z')
			y = (char)(y - 'A' + 'a');
		if (x != y)
			return false;
	}
	return true;
}

/* ---- what the command line hands to the booted system ----------------------------------- */

static int env_add(struct cmdline_state *st, const char *name, size_t n, struct vi_error *err)
{
	for (unsigned i = 0; i < st->env_count; i++)
		if (vi_str_eq(name, n, st->env[i]))
			return 0;
	if (st->env_count == VI_MAX_ENV)
		return vi_err(err, "more than %u environment words on the command line", VI_MAX_ENV);
	memcpy(st->env[st->env_count], name, n);
	st->env[st->env_count][n] = '\0';
	st->env_count++;
	return 0;
}

static void handover(struct cmdline_state *st, const struct vi_cmdline_tok *t)
{
	if (st->handover)
		return;
	st->handover = true;
	vi_sanitize(t->key, t->key_len, st->handover_key, sizeof(st->handover_key));
}

static bool val_is(const struct vi_cmdline_tok *t, const char *v)
{
	return t->val && vi_str_eq(t->val, t->val_len, v);
}

/* systemd's parse_boolean() false words; anything else (a typo included) counts as on. */
static bool systemd_false(const struct vi_cmdline_tok *t)
{
	static const char *const no[] = { "0", "no", "n", "false", "f", "off" };

	if (!t->val)
		return false;
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (vi_key_eq(t->val, t->val_len, no[i]))
			return true;
	return false;
}

static bool ends_with_n(const char *s, size_t n, const char *suffix)
{
	size_t m = strlen(suffix);

	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/*
 * Switches of systemd (in the initramfs with an "rd." prefix, in the booted system without),
 * the kernel and dracut that hand control to a shell or to code no signature covers. The root
 * hash covers the root's blocks, not what these start: refused unless the initramfs policy
 * allows a shell (docs/security.md lists each, and those out of the agent's hands).
 */
static int collect_handover(const struct vi_cmdline_tok *t, struct cmdline_state *st,
			    struct vi_error *err)
{
	static const char *const runlevel_shells[] = {
		"emergency", "-b", "rescue", "single", "s", "S", "-s", "1",
	};
	const char *k = t->key;
	size_t n = t->key_len;

	if (!t->val) {
		for (size_t i = 0; i < sizeof(runlevel_shells) / sizeof(runlevel_shells[0]); i++)
			if (vi_str_eq(k, n, runlevel_shells[i]))
				handover(st, t);
		/* the initramfs's systemd reads these two with the "rd." prefix (a value is
		 * dracut's rd.emergency= action instead) */
		if (vi_str_eq(k, n, "rd.emergency") || vi_str_eq(k, n, "rd.rescue"))
			handover(st, t);
	}
	/* Words starting with "-" reach init as arguments, and systemd as PID 1 reads its own
	 * options there: --unit=debug-shell.service, --crash-shell, --confirm-spawn. */
	if (n > 1 && k[0] == '-' && !(n == 2 && k[1] == '-'))
		handover(st, t);
	if (n > 3 && memcmp(k, "rd.", 3) == 0) {
		k += 3;
		n -= 3;
	}
	if (vi_key_eq(k, n, "systemd.debug_shell") || vi_key_eq(k, n, "systemd.crash_shell") ||
	    /* whoever is at the console skips or fails units one by one */
	    vi_key_eq(k, n, "systemd.confirm_spawn")) {
		if (!systemd_false(t))
			handover(st, t);
	} else if (vi_key_eq(k, n, "systemd.wants") || vi_key_eq(k, n, "systemd.mask") ||
		   vi_key_eq(k, n, "systemd.run") || vi_key_eq(k, n, "resume") ||
		   /* credentials reach the booted system's units: a root password, tmpfiles */
		   vi_key_eq(k, n, "systemd.set_credential") ||
		   vi_key_eq(k, n, "systemd.set_credential_binary") ||
		   /* runs a program as root whenever a process crashes */
		   vi_key_eq(k, n, "systemd.early_core_pattern")) {
		handover(st, t);
	} else if (vi_key_eq(k, n, "systemd.unit")) {
		/* a target to boot into, never a service, and not the ones that are shells */
		if (!t->val || !ends_with_n(t->val, t->val_len, ".target") ||
		    val_is(t, "emergency.target") || val_is(t, "rescue.target") ||
		    val_is(t, "runlevel1.target"))
			handover(st, t);
	} else if (vi_key_eq(k, n, "systemd.setenv") && t->val) {
		const char *eq = memchr(t->val, '=', t->val_len);
		size_t vn = eq ? (size_t)(eq - t->val) : t->val_len;

		/* every service of the booted system gets it: the same names as init's */
		if (vi_env_name(t->val, vn))
			return env_add(st, t->val, vn, err);
	}
	return 0;
}

/* Letters, digits, '_' and '-' (the kernel reads '-' in a parameter name as '_'). */
static bool plain_name(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-'))
			return false;
	return n > 0;
}

static int collect(const struct vi_cmdline_tok *t, struct cmdline_state *st,
		   struct vi_error *err)
{
	const struct key *k = find_key(t->key, t->key_len);
	struct slotval *slots = st->slots;
	struct slotval *s;
	char kn[64];
	bool b = false;
	int r;

	vi_sanitize(t->key, t->key_len, kn, sizeof(kn));
	/* NAME=value without a dot before "--": the kernel makes it init's environment, and that of
	 * every hook dracut's shell init runs. bash imports a function from any variable named
	 * BASH_FUNC_name%% (or BASH_FUNC_name()), so such a word would replace the module's own
	 * shell functions: a name no program takes as a variable is refused. */
	if (t->val && !st->past_dashdash && !memchr(t->key, '.', t->key_len) &&
	    (vi_has_prefix(t->key, t->key_len, "BASH_FUNC_") || !plain_name(t->key, t->key_len)))
		return vi_err(err, "%s=: reaches init's environment under a name no program takes as "
			      "a variable (a shell would import it as a function)", kn);
	if (t->val && !st->past_dashdash && vi_env_name(t->key, t->key_len)) {
		r = env_add(st, t->key, t->key_len, err);
		if (r < 0)
			return r;
		/* init and every shell read TERM: a terminal name, nothing a shell interprets */
		if (vi_str_eq(t->key, t->key_len, "TERM"))
			for (size_t i = 0; i < t->val_len; i++) {
				char c = t->val[i];

				if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '+' ||
				      c == '-'))
					return vi_err(err, "TERM=: not a terminal name");
			}
	}
	r = collect_handover(t, st, err);
	if (r < 0)
		return r;
	if (!k) {
		if (our_namespace(t->key, t->key_len))
			return vi_err(err, "unknown key '%s'", kn);
		return 0;   /* not ours: the kernel's or another program's */
	}
	if (k->slot == S_EXTRA_MOUNT)
		return vi_err(err, "'%s' would mount an unverified filesystem in or as the root; a "
			      "separate /usr is not verified either: keep it on the verified root", kn);
	if (k->slot == S_OTHER_INIT)
		return vi_err(err, "'%s' would start an init that verity-init does not check; "
			      "use init=", kn);
	if (k->slot == S_SHELL) {
		/*
		 * Read as dracut's getargbool does, not as our booleans: only an exact "0", "no"
		 * or "off" after rd.shell= is off ("false", "N" open the shell); rdshell,
		 * rd.break and rdbreak open it with any value. Any word that turns it on counts.
		 */
		b = !(t->val && (k->flags & K_BOOL) &&
		      (vi_key_eq(t->val, t->val_len, "0") || vi_key_eq(t->val, t->val_len, "no") ||
		       vi_key_eq(t->val, t->val_len, "off")));
		if (b && !slots[S_SHELL].set) {
			slots[S_SHELL].set = true;
			slots[S_SHELL].key = t->key;
			slots[S_SHELL].key_len = t->key_len;
		}
		return 0;
	}
	if (k->flags & K_FLAG) {
		if (t->val)
			return 0;   /* "ro=..." is not the kernel's "ro" either */
	} else if (!t->val && !(k->flags & (K_BOOL | K_BARE))) {
		return vi_err(err, "'%s' needs a value (%s=...)", kn, kn);
	}
	if (t->val) {
		if (!vi_str_printable(t->val, t->val_len))
			return vi_err(err, "value of '%s' contains control characters", kn);
		if (t->val_len == 0 && !(k->flags & K_LAST))
			return vi_err(err, "'%s=' has an empty value", kn);
		if (t->val_len > VI_MAX_CMDLINE)
			return vi_err(err, "value of '%s' is too long", kn);
		if ((k->flags & K_BOOL) && vi_parse_bool(t->val, t->val_len, &b) < 0)
			return vi_err(err, "'%s' needs a boolean (yes/no, 1/0, true/false, on/off)",
				      kn);
	} else {
		b = true;
	}

	s = &slots[k->slot];
	if (s->set && !(k->flags & (K_LAST | K_FLAG))) {
		bool same = (k->flags & K_BOOL) ? s->b == b
						: same_value(s, t->val, t->val_len, k->flags & K_CASEI);

		if (!same) {
			char prev[64];

			vi_sanitize(s->key, s->key_len, prev, sizeof(prev));
			return vi_err(err, "'%s' and '%s' give different values; refusing to guess",
				      prev, kn);
		}
		return 0;
	}
	s->set = true;
	s->key = t->key;
	s->key_len = t->key_len;
	s->val = t->val;
	s->val_len = t->val_len;
	s->b = b;
	return 0;
}

/* ---- resolve ------------------------------------------------------------------------------- */

static int copy_value(char *out, size_t size, const struct slotval *s, struct vi_error *err)
{
	char kn[64];

	if (vi_strlcpy_exact(out, size, s->val, s->val_len) == 0)
		return 0;
	vi_sanitize(s->key, s->key_len, kn, sizeof(kn));
	return vi_err(err, "value of '%s' is too long (at most %zu bytes)", kn, size - 1);
}

static int slot_fail(const struct slotval *s, struct vi_error *err, const char *why)
{
	char kn[64], v[80];

	vi_sanitize(s->key, s->key_len, kn, sizeof(kn));
	vi_sanitize(s->val, s->val_len, v, sizeof(v));
	return vi_err(err, "%s=%s: %s", kn, v, why);
}

/* Keep the validator's reason but say which key it was about. */
static int slot_wrap(const struct slotval *s, struct vi_error *err, int r)
{
	char kn[64], why[sizeof(err->msg)];

	if (!err)
		return r;
	vi_sanitize(s->key, s->key_len, kn, sizeof(kn));
	snprintf(why, sizeof(why), "%s", err->msg);
	vi_err(err, "%s: %s", kn, why);
	return r;
}

static bool digest_len_known(size_t len)
{
	static const unsigned sizes[] = { 20, 28, 32, 48, 64 };   /* sha1 .. sha512 */

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (sizes[i] == len)
			return true;
	return false;
}

static int root_hash(struct vi_target *t, const struct slotval *s, struct vi_error *err)
{
	size_t len = 0;
	int r = vi_hex_decode(s->val, s->val_len, t->root_hash, sizeof(t->root_hash), &len);

	if (r == -ENOBUFS)
		return slot_fail(s, err, "longer than any supported digest (64 bytes)");
	if (r < 0)
		return slot_fail(s, err, "not hex (an even number of digits 0-9, a-f)");
	if (!digest_len_known(len))
		return slot_fail(s, err, "length is not a digest size (20, 28, 32, 48 or 64 bytes)");
	t->root_hash_len = (unsigned)len;
	return 0;
}

static int devspec(struct vi_devspec *d, const struct slotval *s, struct vi_error *err)
{
	char spec[sizeof(d->spec)];
	size_t n = 0;
	int r = vi_devspec_chars_check("device", s->val, s->val_len, err);

	if (r < 0)
		return slot_wrap(s, err, r);
	r = vi_devspec_normalize(s->val, s->val_len, spec, sizeof(spec), &n);
	if (r < 0)
		return slot_wrap(s, err, vi_err_value(err, "device", s->val, s->val_len,
						r == -ENAMETOOLONG ? "too long"
								   : VI_DEVSPEC_LINK_ERR));
	r = vi_devspec_check(spec, n, false, err);
	if (r < 0)
		return slot_wrap(s, err, r);
	memcpy(d->spec, spec, n + 1);
	return 0;
}

static void partuuid_spec(struct vi_devspec *d, const uint8_t id[16])
{
	char u[VERITY_UUID_STR_LEN + 1];

	vi_uuid_format(id, u);
	snprintf(d->spec, sizeof(d->spec), "PARTUUID=%s", u);
}

/* Fill what superblock=false leaves open with veritysetup's defaults, insist on the two that
 * have no sane default, and validate the complete set. */
static int no_superblock(struct vi_target *t, const char *what, struct vi_error *err)
{
	struct vi_params *p = &t->params;
	struct vi_error e;
	int r;

	/* data-blocks= left out: the whole data device, measured at setup (as systemd and
	 * veritysetup do), or up to hash-offset= when the tree is on the data device */
	if (!(t->given & VI_GIVEN_SALT))
		return vi_err(err, "%s: superblock=false needs salt= (hex, or '-' for none)", what);
	vi_params_fill_defaults(p, t->given);
	p->no_superblock = true;
	if (t->given & VI_GIVEN_DATA_BLOCKS) {
		if (vi_params_validate(p, &e) < 0)
			return vi_err(err, "%s: %s", what, e.msg);
	} else {
		/* everything but the size, which only the device can tell */
		p->data_blocks = 1;
		r = vi_params_validate(p, &e);
		p->data_blocks = 0;
		if (r < 0)
			return vi_err(err, "%s: %s", what, e.msg);
	}
	return 0;
}

struct target_slots {
	const struct slotval *roothash, *data, *hash, *options, *name;
};

static int resolve_target(struct vi_target *t, const struct target_slots *ts, bool manifest,
			  const char *what, struct vi_error *err)
{
	int r;

	if (ts->name) {
		r = vi_name_check(ts->name->val, ts->name->val_len, err);
		if (r < 0)
			return slot_wrap(ts->name, err, r);
		r = copy_value(t->name, sizeof(t->name), ts->name, err);
		if (r < 0)
			return r;
	}
	if (!ts->roothash && !manifest) {
		const struct slotval *any = ts->data ? ts->data : ts->hash ? ts->hash :
					    ts->options ? ts->options : ts->name;
		char kn[64];

		if (!any)
			return 0;   /* not configured */
		vi_sanitize(any->key, any->key_len, kn, sizeof(kn));
		return vi_err(err, "'%s' given without a root hash for the %s", kn, what);
	}
	t->enabled = true;
	if (ts->options) {
		r = vi_vopts_parse(ts->options->val, ts->options->val_len, t, err);
		if (r < 0)
			return slot_wrap(ts->options, err, r);
	}
	if (ts->roothash) {
		r = root_hash(t, ts->roothash, err);
		if (r < 0)
			return r;
	}
	if (ts->data) {
		r = devspec(&t->data, ts->data, err);
		if (r < 0)
			return r;
	}
	if (ts->hash) {
		r = devspec(&t->hash, ts->hash, err);
		if (r < 0)
			return r;
	}
	if (!t->superblock && !manifest) {
		r = no_superblock(t, what, err);
		if (r < 0)
			return r;
	}
	if (t->root_hash_len) {
		unsigned ds = (t->given & VI_GIVEN_HASH_NAME) || !t->superblock ?
			      vi_digest_size(t->params.hash_name) : 0;

		if (ds && ds != t->root_hash_len)
			return vi_err(err, "%s: root hash has %u bytes but %s digests have %u",
				      what, t->root_hash_len, t->params.hash_name, ds);
	}
	if (manifest)
		return 0;   /* devices and offsets may come from the manifest */
	if (!ts->data || (!ts->hash && !(t->given & VI_GIVEN_HASH_OFFSET))) {
		/* systemd's rule (Discoverable Partitions): a device not given is the partition
		 * whose PARTUUID is the first (data) or last (hash) 128 bits of the root hash. With
		 * hash-offset= and no hash device, the tree is on the data device instead. */
		if (t->root_hash_len < 16)
			return vi_err(err, "%s: no %s device given and a %u-byte root hash is too "
				      "short to derive its partition UUID from (needs 16)",
				      what, ts->data ? "hash" : "data", t->root_hash_len);
		t->data_derived = !ts->data;
		t->hash_derived = !ts->hash;
		if (t->data_derived)
			partuuid_spec(&t->data, t->root_hash);
		if (t->hash_derived)
			partuuid_spec(&t->hash, t->root_hash + t->root_hash_len - 16);
		t->discovered = true;
	}
	/* one of them given (both derived differ but for a root hash made of two equal halves) */
	if ((ts->data || ts->hash) && strcmp(t->hash.spec, t->data.spec) == 0 &&
	    !(t->given & VI_GIVEN_HASH_OFFSET))
		return vi_err(err, "%s: the hash tree is on the data device, so hash-offset= is "
			      "needed (or give a hash device)", what);
	return 0;
}

/* root= may only name the mapping; anything else (a boot loader's default root=UUID=..., which
 * would also match the unverified data device) is ignored and flagged, never mounted. */
static void resolve_root_dev(struct vi_config *c)
{
	char want[VI_MAX_PATH + 16];
	size_t n = strlen(c->root_dev);
	uint32_t minor;

	if (!c->root.enabled || n == 0)
		return;
	snprintf(want, sizeof(want), "/dev/mapper/%s", c->root.name);
	if (strcmp(c->root_dev, want) == 0)
		return;
	if (c->root.from_dm_create && n > 8 && memcmp(c->root_dev, "/dev/dm-", 8) == 0 &&
	    vi_parse_u32(c->root_dev + 8, n - 8, &minor) == 0)
		return;
	c->root_dev_ignored = true;
}

/* systemd.verity=, verity.manifest=, dm-mod.create= or the root's keys, the recovery root's. */
static int resolve_targets(const struct slotval *sl, struct vi_config *c, struct vi_error *err)
{
	const struct slotval *p;
	bool manifest = sl[S_MANIFEST].set;
	struct target_slots root = { 0 }, rec = { 0 }, usr = { 0 };
	int r;

#define SLOT(i) (sl[i].set ? &sl[i] : NULL)
	root = (struct target_slots){ SLOT(S_ROOTHASH), SLOT(S_DATA), SLOT(S_HASHDEV),
				      SLOT(S_OPTIONS), SLOT(S_NAME) };
	rec = (struct target_slots){ SLOT(S_REC_ROOTHASH), SLOT(S_REC_DATA), SLOT(S_REC_HASHDEV),
				     SLOT(S_REC_OPTIONS), SLOT(S_REC_NAME) };
	usr = (struct target_slots){ SLOT(S_USR_ROOTHASH), SLOT(S_USR_DATA), SLOT(S_USR_HASHDEV),
				     SLOT(S_USR_OPTIONS), SLOT(S_USR_NAME) };
#undef SLOT

	if (sl[S_ENABLE].set && !sl[S_ENABLE].b) {
		c->verity_disabled = true;
		for (unsigned i = S_ROOTHASH; i <= S_USR_SIG; i++)
			if (sl[i].set)
				return vi_err(err, "systemd.verity=0 together with verity settings");
		if (sl[S_DMCREATE].set || manifest)
			return vi_err(err, "systemd.verity=0 together with verity settings");
	}

	if (manifest) {
		p = &sl[S_MANIFEST];
		r = vi_location_check(p->val, p->val_len, err);
		if (r < 0)
			return slot_wrap(p, err, r);
		r = copy_value(c->manifest, sizeof(c->manifest), p, err);
		if (r < 0)
			return r;
	}

	if (sl[S_DMCREATE].set) {
		p = &sl[S_DMCREATE];
		for (unsigned i = S_ROOTHASH; i <= S_NAME; i++)
			if (sl[i].set) {
				char kn[64];

				vi_sanitize(sl[i].key, sl[i].key_len, kn, sizeof(kn));
				return vi_err(err, "dm-mod.create= describes the root completely; "
					      "'%s' cannot be combined with it", kn);
			}
		r = vi_dm_create_parse(p->val, p->val_len, &c->root, err);
		if (r < 0)
			return slot_wrap(p, err, r);
	} else {
		r = resolve_target(&c->root, &root, manifest, "verity root", err);
		if (r < 0)
			return r;
	}
	r = resolve_target(&c->recovery, &rec, false, "recovery root", err);
	if (r < 0)
		return r;
	r = resolve_target(&c->usr, &usr, false, "verified /usr", err);
	if (r < 0)
		return r;
	if (c->recovery.enabled && strcmp(c->recovery.name, c->root.name) == 0)
		return vi_err(err, "the recovery mapping needs a name other than '%s'", c->root.name);
	return 0;
}

/* verity.sig=: the root's signature, the same as a root-hash-signature= in its options. */
static int resolve_signature(const struct slotval *sl, struct vi_config *c,
			     struct vi_error *err)
{
	const struct slotval *p;
	int r;

	if (sl[S_SIG].set) {
		p = &sl[S_SIG];
		r = vi_sig_location_check(p->val, p->val_len, err);
		if (r < 0)
			return slot_wrap(p, err, r);
		if (c->root.sig_path[0] && (strlen(c->root.sig_path) != p->val_len ||
					    memcmp(c->root.sig_path, p->val, p->val_len) != 0))
			return vi_err(err, "verity.sig= and root-hash-signature= name different "
				      "signatures");
		if (c->root.sig_key_desc[0])
			return vi_err(err, "verity.sig= together with dm-mod.create= "
				      "root_hash_sig_key_desc");
		r = copy_value(c->root.sig_path, sizeof(c->root.sig_path), p, err);
		if (r < 0)
			return r;
		if (!c->root.enabled)
			return vi_err(err, "verity.sig= given without a root hash");
	}
	return 0;
}

/* verity.require_signature=, verity.fail=, verity.timeout=. */
static int resolve_fallback(const struct slotval *sl, struct vi_config *c,
			    struct vi_error *err)
{
	const struct slotval *p;
	int r;

	if (sl[S_REQSIG].set)
		c->require_signature = sl[S_REQSIG].b;
	if (c->require_signature) {
		if (!vi_target_has_signature(c, &c->root))
			return vi_err(err, "verity.require_signature is set but no signature "
				      "(verity.sig=, root-hash-signature=) or verity.manifest= is "
				      "given");
		/* Otherwise an unsigned recovery root would be one failed root away. */
		if (!vi_target_has_signature(c, &c->recovery))
			return vi_err(err, "verity.require_signature is set but the recovery root "
				      "has no root-hash-signature= in verity.recovery.options=");
	}

	if (sl[S_FAIL].set) {
		p = &sl[S_FAIL];
		r = vi_fail_list_parse(p->val, p->val_len, c->fail, err);
		if (r < 0)
			return slot_wrap(p, err, r);
		c->fail_given = true;
		for (unsigned i = 0; i < VI_MAX_FAIL; i++)
			if (c->fail[i] == VI_FAIL_RECOVERY && !c->recovery.enabled)
				return vi_err(err, "verity.fail=recovery but no "
					      "verity.recovery.roothash= is given");
	}
	if (sl[S_TIMEOUT].set) {
		uint64_t t;
		size_t n;

		p = &sl[S_TIMEOUT];
		n = p->val_len;
		if (n > 1 && p->val[n - 1] == 's')
			n--;
		if (vi_parse_u64(p->val, n, &t) < 0 || t > VI_MAX_TIMEOUT_S)
			return slot_fail(p, err, "not a number of seconds between 0 and 3600");
		c->timeout_s = (unsigned)t;
		c->timeout_given = true;
	}
	return 0;
}

/* root=, rootfstype=, rootflags=, init=, ro and the shell switches: how the root is mounted
 * and what runs on it. */
static int resolve_mount(const struct slotval *sl, struct vi_config *c, struct vi_error *err)
{
	const struct slotval *p;
	int r;

	if (sl[S_ROOT].set) {
		r = copy_value(c->root_dev, sizeof(c->root_dev), &sl[S_ROOT], err);
		if (r < 0)
			return r;
	}
	if (sl[S_ROOTFSTYPE].set) {
		p = &sl[S_ROOTFSTYPE];
		for (size_t i = 0; i < p->val_len; i++) {
			char ch = p->val[i];

			if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			      (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-' ||
			      ch == ','))
				return slot_fail(p, err, "not a filesystem type (list)");
		}
		r = copy_value(c->rootfstype, sizeof(c->rootfstype), p, err);
		if (r < 0)
			return r;
		r = vi_rootfstype_check(c->rootfstype, err);
		if (r < 0)
			return r;
	}
	if (sl[S_ROOTFLAGS].set) {
		unsigned long flags;
		char data[VI_MAX_PATH];

		p = &sl[S_ROOTFLAGS];
		/* the dracut module writes them into a unit file, where a backslash continues or
		 * escapes; no mount option of a block filesystem needs one */
		if (memchr(p->val, '\\', p->val_len))
			return slot_fail(p, err, "a backslash is not allowed in mount options");
		r = copy_value(c->rootflags, sizeof(c->rootflags), p, err);
		if (r < 0)
			return r;
		/* refused early (rw, a second device) so dracut's own mount never sees them */
		r = vi_rootflags_parse(c->rootflags, &flags, data, sizeof(data), err);
		if (r < 0)
			return r;
	}
	if (sl[S_INIT].set) {
		p = &sl[S_INIT];
		r = vi_init_path_check(p->val, p->val_len, err);
		if (r < 0)
			return slot_wrap(p, err, r);
		r = copy_value(c->init, sizeof(c->init), p, err);
		if (r < 0)
			return r;
		c->init_given = true;
	}
	c->ro = sl[S_RO].set;
	c->rw = sl[S_RW].set;
	c->shell_requested = sl[S_SHELL].set;
	if (c->shell_requested)
		vi_sanitize(sl[S_SHELL].key, sl[S_SHELL].key_len, c->shell_key, sizeof(c->shell_key));
	resolve_root_dev(c);
	return 0;
}

/* systemd.volatile=, verity.volatile=: lib/config/volatile.c. */
static int resolve_volatile(const struct slotval *sl, struct vi_config *c, struct vi_error *err)
{
	const struct slotval *s = &sl[S_VOLATILE], *o = &sl[S_VI_VOLATILE];
	const struct vi_volatile_word sd = { s->set, s->key, s->key_len, s->val, s->val_len },
				      ours = { o->set, o->key, o->key_len, o->val, o->val_len };

	return vi_volatile_resolve(&sd, &ours, &c->volatile_mode, err);
}

/* mount.usr*=, verity.usr.sig= and the layout: lib/config/usrcfg.c. */
static int resolve_usr(const struct slotval *sl, struct vi_config *c, struct vi_error *err)
{
#define W(i) { sl[i].set, sl[i].key, sl[i].key_len, sl[i].val, sl[i].val_len }
	const struct vi_usr_words w = {
		W(S_MOUNT_USR), W(S_USRFSTYPE), W(S_USRFLAGS), W(S_USR_SIG),
	};
#undef W

	return vi_usr_resolve(&w, c, err);
}

static int resolve(const struct slotval *sl, struct vi_config *c, struct vi_error *err)
{
	int r;

	r = resolve_targets(sl, c, err);
	if (r == 0)
		r = resolve_signature(sl, c, err);
	if (r == 0)
		r = resolve_fallback(sl, c, err);
	if (r == 0)
		r = resolve_mount(sl, c, err);
	if (r == 0)
		r = resolve_volatile(sl, c, err);
	if (r == 0)
		r = resolve_usr(sl, c, err);
	return r;
}

int vi_cmdline_parse_buf(const char *buf, size_t len, unsigned flags, struct vi_config *cfg,
			 struct vi_error *err)
{
	struct cmdline_state st;
	struct vi_cmdline_tok tok;
	struct vi_config c;
	size_t pos = 0;
	int r;

	memset(&st, 0, sizeof(st));
	if (len > VI_MAX_CMDLINE) {
		vi_err(err, "command line longer than %u bytes", VI_MAX_CMDLINE);
		return -E2BIG;
	}
	if (len && memchr(buf, '\0', len))
		return vi_err(err, "command line contains a NUL byte");
	/* the kernel, dracut and systemd each split the line their own way: a line on which they
	 * disagree about a key that matters is refused, so what is checked here is what runs */
	r = vi_cmdline_split_check(buf, len, err);
	if (r < 0)
		return r;
	while ((r = vi_cmdline_next(buf, len, &pos, &tok)) > 0) {
		if (r == 2) {
			st.past_dashdash = true;
			continue;
		}
		/* After "--" the words are init's arguments, not the kernel's parameters; but
		 * systemd reads its runlevel words (and dracut every key) there too */
		if (st.past_dashdash && !(flags & VI_CMDLINE_PAST_DASHDASH))
			r = collect_handover(&tok, &st, err);
		else
			r = collect(&tok, &st, err);
		if (r < 0)
			return r;
	}
	vi_config_init(&c);
	r = resolve(st.slots, &c, err);
	if (r < 0)
		return r;
	memcpy(c.env_names, st.env, sizeof(c.env_names));
	c.env_count = st.env_count;
	c.handover_requested = st.handover;
	memcpy(c.handover_key, st.handover_key, sizeof(c.handover_key));
	*cfg = c;
	return 0;
}

int vi_cmdline_parse(const char *cmdline, unsigned flags, struct vi_config *cfg,
		     struct vi_error *err)
{
	size_t len;

	if (!cmdline)
		return vi_err(err, "no command line");
	/* Look one byte past the limit so an oversized line is refused, not cut. */
	len = strnlen(cmdline, VI_MAX_CMDLINE + 1);
	return vi_cmdline_parse_buf(cmdline, len, flags, cfg, err);
}
