// SPDX-License-Identifier: LGPL-2.1-or-later
/* Kernel command line -> struct vi_config. docs/cmdline.md is the user-facing reference.
 *
 * Two passes over the words:
 *  1. collect: every key we know (under any of its names) goes to one slot. A setting may be
 *     repeated, under any of its names, only with the same value: roothash= X and
 *     verity.roothash= Y with X != Y is refused, never mixed. The kernel's own keys root=,
 *     rootfstype=, rootflags=, init= follow the kernel: the last one wins.
 *     Along the way, what the line hands to the booted system (environment words, switches
 *     that start a shell): lib/config/cmdline_handover.c.
 *  2. resolve: slots are decoded and checked into a local vi_config, which is copied to the
 *     caller only when everything is valid (lib/config/cmdline_resolve.c).
 * No I/O here: the agent reads /proc/cmdline and hands the buffer in (fuzzers do the same). */
#include "cmdline.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmdline_handover.h"
#include "cmdline_resolve.h"
#include "cmdsplit.h"
#include "cmdtoken.h"
#include "strutil.h"

/* ---- keys ------------------------------------------------------------------------------------ */

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
	enum vi_cmdline_slot slot;
	unsigned flags;
};

static const struct key keys[] = {
	{ "roothash",                     VI_CS_ROOTHASH,     K_RD | K_CASEI },
	{ "systemd.verity",               VI_CS_ENABLE,       K_RD | K_BOOL },
	{ "systemd.verity_root_data",     VI_CS_DATA,         K_RD },
	{ "systemd.verity_root_hash",     VI_CS_HASHDEV,      K_RD },
	{ "systemd.verity_root_options",  VI_CS_OPTIONS,      K_RD },
	/* /usr: lib/config/usrcfg.c */
	{ "usrhash",                      VI_CS_USR_ROOTHASH, K_RD | K_CASEI },
	{ "systemd.verity_usr_data",      VI_CS_USR_DATA,     K_RD },
	{ "systemd.verity_usr_hash",      VI_CS_USR_HASHDEV,  K_RD },
	{ "systemd.verity_usr_options",   VI_CS_USR_OPTIONS,  K_RD },
	{ "verity.usr.roothash",          VI_CS_USR_ROOTHASH, K_RD | K_CASEI },
	{ "verity.usr.data",              VI_CS_USR_DATA,     K_RD },
	{ "verity.usr.hash",              VI_CS_USR_HASHDEV,  K_RD },
	{ "verity.usr.options",           VI_CS_USR_OPTIONS,  K_RD },
	{ "verity.usr.name",              VI_CS_USR_NAME,     K_RD },
	{ "verity.usr.sig",               VI_CS_USR_SIG,      K_RD },
	/* systemd-fstab-generator mounts these into the new root: only the verified mapping */
	{ "mount.usr",                    VI_CS_MOUNT_USR,    K_RD },
	{ "mount.usrfstype",              VI_CS_USRFSTYPE,    K_RD },
	{ "mount.usrflags",               VI_CS_USRFLAGS,     K_RD },
	{ "systemd.mount-extra",          VI_CS_EXTRA_MOUNT,  K_RD },
	/* memory pages written to and read back from an unverified device */
	{ "systemd.swap-extra",           VI_CS_EXTRA_MOUNT,  K_RD },
	/* dracut's: a fallback root and an xfs log device, both unverified */
	{ "rootfallback",                 VI_CS_EXTRA_MOUNT,  0 },
	{ "root.journaldev",              VI_CS_EXTRA_MOUNT,  0 },
	/* dracut runs these before init=: an init that nobody checked */
	{ "real_init",                    VI_CS_OTHER_INIT,   0 },
	{ "rd.distroinit",                VI_CS_OTHER_INIT,   0 },
	/* dracut's root shells: allowed only by the initramfs policy (vi_policy_check) */
	{ "rd.break",                     VI_CS_SHELL,        0 },
	{ "rdbreak",                      VI_CS_SHELL,        0 },
	{ "rd.shell",                     VI_CS_SHELL,        K_BOOL },
	{ "rdshell",                      VI_CS_SHELL,        0 },
	{ "verity.roothash",              VI_CS_ROOTHASH,     K_RD | K_CASEI },
	{ "verity.data",                  VI_CS_DATA,         K_RD },
	{ "verity.hash",                  VI_CS_HASHDEV,      K_RD },
	{ "verity.options",               VI_CS_OPTIONS,      K_RD },
	{ "verity.name",                  VI_CS_NAME,         K_RD },
	{ "verity.fail",                  VI_CS_FAIL,         K_RD },
	{ "verity.timeout",               VI_CS_TIMEOUT,      K_RD },
	{ "verity.sig",                   VI_CS_SIG,          K_RD },
	{ "verity.manifest",              VI_CS_MANIFEST,     K_RD },
	{ "verity.require_signature",     VI_CS_REQSIG,       K_RD | K_BOOL },
	/* systemd's has no "rd." form: its initramfs and the root read the same key */
	{ "systemd.volatile",             VI_CS_VOLATILE,     K_BARE },
	{ "verity.volatile",              VI_CS_VI_VOLATILE,  K_RD | K_BARE },
	{ "verity.recovery.roothash",     VI_CS_REC_ROOTHASH, K_RD | K_CASEI },
	{ "verity.recovery.data",         VI_CS_REC_DATA,     K_RD },
	{ "verity.recovery.hash",         VI_CS_REC_HASHDEV,  K_RD },
	{ "verity.recovery.options",      VI_CS_REC_OPTIONS,  K_RD },
	{ "verity.recovery.name",         VI_CS_REC_NAME,     K_RD },
	{ "dm-mod.create",                VI_CS_DMCREATE,     0 },
	{ "root",                         VI_CS_ROOT,         K_LAST },
	{ "rootfstype",                   VI_CS_ROOTFSTYPE,   K_LAST },
	{ "rootflags",                    VI_CS_ROOTFLAGS,    K_LAST },
	{ "init",                         VI_CS_INIT,         K_LAST },
	{ "ro",                           VI_CS_RO,           K_FLAG },
	{ "rw",                           VI_CS_RW,           K_FLAG },
};

struct cmdline_state {
	struct vi_cmdline_val slots[VI_CS__MAX];
	bool past_dashdash;                      /* words after "--": init's arguments */
	struct vi_cmdline_handover handover;
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

static bool same_value(const struct vi_cmdline_val *a, const char *v, size_t n, bool casei)
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

static int collect(const struct vi_cmdline_tok *t, struct cmdline_state *st,
		   struct vi_error *err)
{
	const struct key *k = find_key(t->key, t->key_len);
	struct vi_cmdline_val *slots = st->slots;
	struct vi_cmdline_val *s;
	char kn[64];
	bool b = false;
	int r;

	vi_sanitize(t->key, t->key_len, kn, sizeof(kn));
	/* NAME=value before "--": the kernel makes it init's environment */
	if (t->val && !st->past_dashdash) {
		r = vi_cmdline_env_word(t, &st->handover, err);
		if (r < 0)
			return r;
	}
	r = vi_cmdline_handover_word(t, &st->handover, err);
	if (r < 0)
		return r;
	if (!k) {
		if (our_namespace(t->key, t->key_len))
			return vi_err(err, "unknown key '%s'", kn);
		return 0;   /* not ours: the kernel's or another program's */
	}
	if (k->slot == VI_CS_EXTRA_MOUNT)
		return vi_err(err, "'%s' would mount an unverified filesystem in or as the root; a "
			      "separate /usr is not verified either: keep it on the verified root", kn);
	if (k->slot == VI_CS_OTHER_INIT)
		return vi_err(err, "'%s' would start an init that verity-init does not check; "
			      "use init=", kn);
	if (k->slot == VI_CS_SHELL) {
		/*
		 * Read as dracut's getargbool does, not as our booleans: only an exact "0", "no"
		 * or "off" after rd.shell= is off ("false", "N" open the shell); rdshell,
		 * rd.break and rdbreak open it with any value. Any word that turns it on counts.
		 */
		b = !(t->val && (k->flags & K_BOOL) &&
		      (vi_key_eq(t->val, t->val_len, "0") || vi_key_eq(t->val, t->val_len, "no") ||
		       vi_key_eq(t->val, t->val_len, "off")));
		if (b && !slots[VI_CS_SHELL].set) {
			slots[VI_CS_SHELL].set = true;
			slots[VI_CS_SHELL].key = t->key;
			slots[VI_CS_SHELL].key_len = t->key_len;
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
			r = vi_cmdline_handover_word(&tok, &st.handover, err);
		else
			r = collect(&tok, &st, err);
		if (r < 0)
			return r;
	}
	vi_config_init(&c);
	r = vi_cmdline_resolve(st.slots, &c, err);
	if (r < 0)
		return r;
	memcpy(c.env_names, st.handover.env, sizeof(c.env_names));
	c.env_count = st.handover.env_count;
	c.handover_requested = st.handover.handover;
	memcpy(c.handover_key, st.handover.handover_key, sizeof(c.handover_key));
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
