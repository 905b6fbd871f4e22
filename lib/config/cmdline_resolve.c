// SPDX-License-Identifier: LGPL-2.1-or-later
/* The command line's second pass (include/cmdline_resolve.h): the value each setting's slot
 * holds, decoded and checked into a vi_config. The targets (root, recovery root, /usr) with
 * systemd's rules for devices not given, the signature, the fail actions and timeout, how the
 * root is mounted; systemd.volatile= and the /usr layout are lib/config/volatile.c's and
 * lib/config/usrcfg.c's. Pure. */
#include "cmdline_resolve.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dminit.h"
#include "hex.h"
#include "params.h"
#include "rootopts.h"
#include "strutil.h"
#include "usrcfg.h"
#include "volatile.h"
#include "vopts.h"

static int copy_value(char *out, size_t size, const struct vi_cmdline_val *s, struct vi_error *err)
{
	char kn[64];

	if (vi_strlcpy_exact(out, size, s->val, s->val_len) == 0)
		return 0;
	vi_sanitize(s->key, s->key_len, kn, sizeof(kn));
	return vi_err(err, "value of '%s' is too long (at most %zu bytes)", kn, size - 1);
}

static int slot_fail(const struct vi_cmdline_val *s, struct vi_error *err, const char *why)
{
	char kn[64], v[80];

	vi_sanitize(s->key, s->key_len, kn, sizeof(kn));
	vi_sanitize(s->val, s->val_len, v, sizeof(v));
	return vi_err(err, "%s=%s: %s", kn, v, why);
}

/* Keep the validator's reason but say which key it was about. */
static int slot_wrap(const struct vi_cmdline_val *s, struct vi_error *err, int r)
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

static int root_hash(struct vi_target *t, const struct vi_cmdline_val *s, struct vi_error *err)
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

static int devspec(struct vi_devspec *d, const struct vi_cmdline_val *s, struct vi_error *err)
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
	const struct vi_cmdline_val *roothash, *data, *hash, *options, *name;
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
		const struct vi_cmdline_val *any = ts->data ? ts->data : ts->hash ? ts->hash :
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
static int resolve_targets(const struct vi_cmdline_val *sl, struct vi_config *c,
			   struct vi_error *err)
{
	const struct vi_cmdline_val *p;
	bool manifest = sl[VI_CS_MANIFEST].set;
	struct target_slots root = { 0 }, rec = { 0 }, usr = { 0 };
	int r;

#define SLOT(i) (sl[i].set ? &sl[i] : NULL)
	root = (struct target_slots){ SLOT(VI_CS_ROOTHASH), SLOT(VI_CS_DATA), SLOT(VI_CS_HASHDEV),
				      SLOT(VI_CS_OPTIONS), SLOT(VI_CS_NAME) };
	rec = (struct target_slots){ SLOT(VI_CS_REC_ROOTHASH), SLOT(VI_CS_REC_DATA),
				     SLOT(VI_CS_REC_HASHDEV), SLOT(VI_CS_REC_OPTIONS),
				     SLOT(VI_CS_REC_NAME) };
	usr = (struct target_slots){ SLOT(VI_CS_USR_ROOTHASH), SLOT(VI_CS_USR_DATA),
				     SLOT(VI_CS_USR_HASHDEV), SLOT(VI_CS_USR_OPTIONS),
				     SLOT(VI_CS_USR_NAME) };
#undef SLOT

	if (sl[VI_CS_ENABLE].set && !sl[VI_CS_ENABLE].b) {
		c->verity_disabled = true;
		for (unsigned i = VI_CS_ROOTHASH; i <= VI_CS_USR_SIG; i++)
			if (sl[i].set)
				return vi_err(err, "systemd.verity=0 together with verity settings");
		if (sl[VI_CS_DMCREATE].set || manifest)
			return vi_err(err, "systemd.verity=0 together with verity settings");
	}

	if (manifest) {
		p = &sl[VI_CS_MANIFEST];
		r = vi_location_check(p->val, p->val_len, err);
		if (r < 0)
			return slot_wrap(p, err, r);
		r = copy_value(c->manifest, sizeof(c->manifest), p, err);
		if (r < 0)
			return r;
	}

	if (sl[VI_CS_DMCREATE].set) {
		p = &sl[VI_CS_DMCREATE];
		for (unsigned i = VI_CS_ROOTHASH; i <= VI_CS_NAME; i++)
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
static int resolve_signature(const struct vi_cmdline_val *sl, struct vi_config *c,
			     struct vi_error *err)
{
	const struct vi_cmdline_val *p;
	int r;

	if (sl[VI_CS_SIG].set) {
		p = &sl[VI_CS_SIG];
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
static int resolve_fallback(const struct vi_cmdline_val *sl, struct vi_config *c,
			    struct vi_error *err)
{
	const struct vi_cmdline_val *p;
	int r;

	if (sl[VI_CS_REQSIG].set)
		c->require_signature = sl[VI_CS_REQSIG].b;
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

	if (sl[VI_CS_FAIL].set) {
		p = &sl[VI_CS_FAIL];
		r = vi_fail_list_parse(p->val, p->val_len, c->fail, err);
		if (r < 0)
			return slot_wrap(p, err, r);
		c->fail_given = true;
		for (unsigned i = 0; i < VI_MAX_FAIL; i++)
			if (c->fail[i] == VI_FAIL_RECOVERY && !c->recovery.enabled)
				return vi_err(err, "verity.fail=recovery but no "
					      "verity.recovery.roothash= is given");
	}
	if (sl[VI_CS_TIMEOUT].set) {
		uint64_t t;
		size_t n;

		p = &sl[VI_CS_TIMEOUT];
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
static int resolve_mount(const struct vi_cmdline_val *sl, struct vi_config *c, struct vi_error *err)
{
	const struct vi_cmdline_val *p;
	int r;

	if (sl[VI_CS_ROOT].set) {
		r = copy_value(c->root_dev, sizeof(c->root_dev), &sl[VI_CS_ROOT], err);
		if (r < 0)
			return r;
	}
	if (sl[VI_CS_ROOTFSTYPE].set) {
		p = &sl[VI_CS_ROOTFSTYPE];
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
	if (sl[VI_CS_ROOTFLAGS].set) {
		unsigned long flags;
		char data[VI_MAX_PATH];

		p = &sl[VI_CS_ROOTFLAGS];
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
	if (sl[VI_CS_INIT].set) {
		p = &sl[VI_CS_INIT];
		r = vi_init_path_check(p->val, p->val_len, err);
		if (r < 0)
			return slot_wrap(p, err, r);
		r = copy_value(c->init, sizeof(c->init), p, err);
		if (r < 0)
			return r;
		c->init_given = true;
	}
	c->ro = sl[VI_CS_RO].set;
	c->rw = sl[VI_CS_RW].set;
	c->shell_requested = sl[VI_CS_SHELL].set;
	if (c->shell_requested)
		vi_sanitize(sl[VI_CS_SHELL].key, sl[VI_CS_SHELL].key_len, c->shell_key,
			    sizeof(c->shell_key));
	resolve_root_dev(c);
	return 0;
}

/* systemd.volatile=, verity.volatile=: lib/config/volatile.c. */
static int resolve_volatile(const struct vi_cmdline_val *sl, struct vi_config *c,
			    struct vi_error *err)
{
	const struct vi_cmdline_val *s = &sl[VI_CS_VOLATILE], *o = &sl[VI_CS_VI_VOLATILE];
	const struct vi_volatile_word sd = { s->set, s->key, s->key_len, s->val, s->val_len },
				      ours = { o->set, o->key, o->key_len, o->val, o->val_len };

	return vi_volatile_resolve(&sd, &ours, &c->volatile_mode, err);
}

/* mount.usr*=, verity.usr.sig= and the layout: lib/config/usrcfg.c. */
static int resolve_usr(const struct vi_cmdline_val *sl, struct vi_config *c, struct vi_error *err)
{
#define W(i) { sl[i].set, sl[i].key, sl[i].key_len, sl[i].val, sl[i].val_len }
	const struct vi_usr_words w = {
		W(VI_CS_MOUNT_USR), W(VI_CS_USRFSTYPE), W(VI_CS_USRFLAGS), W(VI_CS_USR_SIG),
	};
#undef W

	return vi_usr_resolve(&w, c, err);
}

int vi_cmdline_resolve(const struct vi_cmdline_val *sl, struct vi_config *c, struct vi_error *err)
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
