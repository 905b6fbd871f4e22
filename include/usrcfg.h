/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A verified /usr on the command line: mount.usr=, mount.usrfstype=, mount.usrflags=,
 * verity.usr.sig=, and the layout the root and /usr make together (docs/cmdline.md, /usr).
 * The /usr target's own keys (usrhash=, verity.usr.*) are read by lib/config/cmdline.c and
 * resolved by lib/config/cmdline_resolve.c as the root's are, Discoverable Partitions included.
 * Pure parsing. */
#ifndef VERITY_USRCFG_H
#define VERITY_USRCFG_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "err.h"

/* One key of the command line: set, and its value as written. */
struct vi_usr_word {
	bool set;
	const char *key;
	size_t key_len;
	const char *val;
	size_t val_len;
};

struct vi_usr_words {
	struct vi_usr_word mount_usr, fstype, flags, sig;
};

/*
 * After the targets, root=, rw and systemd.volatile= are resolved into c: the words w into c,
 * and c->layout. Refused (-EINVAL, err says why):
 *   mount.usr*= without a verified /usr (an unverified /usr under a verified init), mount.usr=
 *   naming anything but the mapping /dev/mapper/NAME, a rootfstype/rootflags rule broken;
 *   verity.usr.sig= without usrhash= or naming another signature than root-hash-signature=;
 *   systemd.volatile=yes (or root=tmpfs) without a verified /usr or with a verified root;
 *   a verified /usr with neither a verified root, a tmpfs root nor a root= partition;
 *   overlay with a separate /usr; the /usr mapping named as the root or recovery one;
 *   verity.require_signature without a /usr signature.
 * Whether the policy consents to an unverified root= (VI_LAYOUT_WRITABLE_USR) is
 * vi_policy_check's.
 */
int vi_usr_resolve(const struct vi_usr_words *w, struct vi_config *c, struct vi_error *err);

/* "root", "root+usr", "tmpfs+usr", "writable+usr". */
const char *vi_layout_name(enum vi_layout l);

#endif
