// SPDX-License-Identifier: LGPL-2.1-or-later
/* A verified /usr: its mount keys, its signature and the layout (include/usrcfg.h). */
#include "usrcfg.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "params.h"
#include "rootopts.h"
#include "strutil.h"

const char *vi_layout_name(enum vi_layout l)
{
	switch (l) {
	case VI_LAYOUT_ROOT_USR:
		return "root+usr";
	case VI_LAYOUT_TMPFS_USR:
		return "tmpfs+usr";
	case VI_LAYOUT_WRITABLE_USR:
		return "writable+usr";
	case VI_LAYOUT_ROOT:
		break;
	}
	return "root";
}

static const char *key_name(const struct vi_usr_word *w, char *buf, size_t size)
{
	vi_sanitize(w->key, w->key_len, buf, size);
	return buf;
}

/* "WHAT: the validator's reason" */
static int wrap(struct vi_error *err, int r, const char *what)
{
	char why[sizeof(err->msg)];

	snprintf(why, sizeof(why), "%s", err->msg);
	vi_err(err, "%s: %s", what, why);
	return r;
}

static int copy_word(char *out, size_t size, const struct vi_usr_word *w, struct vi_error *err)
{
	char kn[64];

	if (vi_strlcpy_exact(out, size, w->val, w->val_len) == 0)
		return 0;
	return vi_err(err, "value of '%s' is too long (at most %zu bytes)",
		      key_name(w, kn, sizeof(kn)), size - 1);
}

/* mount.usr= may only name the mapping (systemd's default with usrhash=); mount.usrfstype=
 * and mount.usrflags= follow rootfstype= and rootflags=. */
static int mount_words(const struct vi_usr_words *w, struct vi_config *c, struct vi_error *err)
{
	char want[VI_MAX_NAME + 16], kn[64], data[VI_MAX_PATH];
	unsigned long flags;
	int r;

	snprintf(want, sizeof(want), "/dev/mapper/%s", c->usr.name);
	if (w->mount_usr.set) {
		if (!vi_str_eq(w->mount_usr.val, w->mount_usr.val_len, want))
			return vi_err(err, "'%s' must name the verified mapping %s: another device "
				      "would be mounted on /usr unverified",
				      key_name(&w->mount_usr, kn, sizeof(kn)), want);
		snprintf(c->usr_dev, sizeof(c->usr_dev), "%s", want);
	}
	if (w->fstype.set) {
		r = copy_word(c->usrfstype, sizeof(c->usrfstype), &w->fstype, err);
		if (r < 0)
			return r;
		r = vi_rootfstype_check(c->usrfstype, err);
		if (r < 0)
			return wrap(err, r, key_name(&w->fstype, kn, sizeof(kn)));
	}
	if (w->flags.set) {
		if (memchr(w->flags.val, '\\', w->flags.val_len))
			return vi_err(err, "%s: a backslash is not allowed in mount options",
				      key_name(&w->flags, kn, sizeof(kn)));
		r = copy_word(c->usrflags, sizeof(c->usrflags), &w->flags, err);
		if (r < 0)
			return r;
		r = vi_rootflags_parse(c->usrflags, &flags, data, sizeof(data), err);
		if (r < 0)
			return wrap(err, r, key_name(&w->flags, kn, sizeof(kn)));
	}
	return 0;
}

/* verity.usr.sig=: the same as root-hash-signature= in systemd.verity_usr_options=. */
static int usr_signature(const struct vi_usr_word *s, struct vi_target *t, struct vi_error *err)
{
	char why[sizeof(err->msg)];
	int r;

	if (!s->set)
		return 0;
	if (!t->enabled)
		return vi_err(err, "verity.usr.sig= given without a root hash for /usr (usrhash=)");
	r = vi_sig_location_check(s->val, s->val_len, err);
	if (r < 0) {
		snprintf(why, sizeof(why), "%s", err->msg);
		return vi_err(err, "verity.usr.sig: %s", why);
	}
	if (t->sig_path[0] && !vi_str_eq(s->val, s->val_len, t->sig_path))
		return vi_err(err, "verity.usr.sig= and root-hash-signature= in the /usr options "
			      "name different signatures");
	return copy_word(t->sig_path, sizeof(t->sig_path), s, err);
}

/* root= of an unverified, writable root: a device spec the agent can look up. */
static int writable_root(struct vi_config *c, struct vi_error *err)
{
	char spec[VI_MAX_PATH], what[128], v[64];
	size_t n = 0, len = strlen(c->root_dev);
	int r;

	vi_sanitize(c->root_dev, len, v, sizeof(v));
	snprintf(what, sizeof(what), "root=%s: the unverified root must be a block device", v);
	r = vi_devspec_chars_check("root", c->root_dev, len, err);
	if (r < 0)
		return wrap(err, r, what);
	if (vi_devspec_normalize(c->root_dev, len, spec, sizeof(spec), &n) < 0)
		return vi_err(err, "%s: " VI_DEVSPEC_LINK_ERR, what);
	r = vi_devspec_check(spec, n, false, err);
	if (r < 0)
		return wrap(err, r, what);
	memcpy(c->root_dev, spec, n + 1);
	c->layout = VI_LAYOUT_WRITABLE_USR;
	return 0;
}

static int layout(struct vi_config *c, struct vi_error *err)
{
	bool tmpfs = c->volatile_mode == VI_VOLATILE_YES || !strcmp(c->root_dev, "tmpfs");

	if (!c->usr.enabled) {
		if (c->volatile_mode == VI_VOLATILE_YES)
			return vi_err(err, "a tmpfs root (systemd.volatile=yes) needs a verified "
				      "/usr (usrhash=): use overlay or state for a verified root");
		c->layout = VI_LAYOUT_ROOT;
		return 0;
	}
	if (c->volatile_mode == VI_VOLATILE_OVERLAY)
		return vi_err(err, "systemd.volatile=overlay with a separate verified /usr is not "
			      "supported: use state, or yes without a root hash");
	if (c->root.enabled) {
		if (tmpfs)
			return vi_err(err, "a tmpfs root (systemd.volatile=yes, root=tmpfs) together "
				      "with a verified root: give one of them");
		c->layout = VI_LAYOUT_ROOT_USR;
		return 0;
	}
	if (tmpfs) {
		if (c->volatile_mode == VI_VOLATILE_STATE)
			return vi_err(err, "root=tmpfs with systemd.volatile=state: the whole root "
				      "is a tmpfs already (systemd.volatile=yes)");
		c->layout = VI_LAYOUT_TMPFS_USR;
		return 0;
	}
	if (!c->root_dev[0])
		return vi_err(err, "a verified /usr needs a root: a verified one (roothash=), a "
			      "tmpfs (systemd.volatile=yes), or root=DEVICE where the initramfs "
			      "policy says allow_unverified_root=yes");
	return writable_root(c, err);
}

int vi_usr_resolve(const struct vi_usr_words *w, struct vi_config *c, struct vi_error *err)
{
	const struct vi_usr_word *any = w->mount_usr.set ? &w->mount_usr :
					w->fstype.set ? &w->fstype :
					w->flags.set ? &w->flags : NULL;
	char kn[64];
	int r;

	if (any && !c->usr.enabled)
		return vi_err(err, "'%s' would mount an unverified /usr under the verified init: "
			      "give its root hash (usrhash=) or keep /usr on the verified root",
			      key_name(any, kn, sizeof(kn)));
	r = mount_words(w, c, err);
	if (r == 0)
		r = usr_signature(&w->sig, &c->usr, err);
	if (r < 0)
		return r;
	if (c->usr.enabled && (!strcmp(c->usr.name, c->root.name) ||
			       !strcmp(c->usr.name, c->recovery.name)))
		return vi_err(err, "the /usr mapping needs a name other than '%s'", c->usr.name);
	if (c->require_signature && !vi_target_has_signature(c, &c->usr))
		return vi_err(err, "verity.require_signature is set but /usr has no signature "
			      "(verity.usr.sig=, root-hash-signature= in its options)");
	return layout(c, err);
}
