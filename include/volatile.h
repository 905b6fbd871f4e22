/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* systemd.volatile= / verity.volatile=: what is writable over the verified root (docs/cmdline.md).
 * Pure parsing (lib/config/volatile.c); the overlay itself is mounted by lib/boot/overlay.c. */
#ifndef VERITY_VOLATILE_H
#define VERITY_VOLATILE_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

enum vi_volatile {
	VI_VOLATILE_NO = 0,   /* the verified root as it is, read-only (default) */
	VI_VOLATILE_YES,      /* tmpfs root, the verified /usr on it (lib/config/usrcfg.c) */
	VI_VOLATILE_STATE,    /* the verified root read-only; the root's systemd puts a tmpfs on /var */
	VI_VOLATILE_OVERLAY,  /* overlayfs: the verified root below, a tmpfs above (the agent) */
};

/* One occurrence of a volatile key: set, and its value (val NULL: the bare key). */
struct vi_volatile_word {
	bool set;
	const char *key;
	size_t key_len;
	const char *val;
	size_t val_len;
};

/*
 * systemd's grammar (volatile_mode_from_string):
 *   KEY            yes (the bare key)
 *   KEY=BOOL       systemd's boolean words, any case: 1 yes y true t on / 0 no n false f off
 *   KEY=state | KEY=overlay   exactly these words
 * Anything else is -EINVAL (systemd stops the boot on it too).
 */
int vi_volatile_parse(const char *val, size_t len, enum vi_volatile *ret, struct vi_error *err);

/*
 * The mode from systemd.volatile= (sd) and verity.volatile= (ours), each possibly unset: both
 * given must mean the same mode. Refused (-EINVAL, err says why): state from verity.volatile= alone (the root's
 * systemd, which puts the tmpfs on /var, reads systemd.volatile= only).
 */
int vi_volatile_resolve(const struct vi_volatile_word *sd, const struct vi_volatile_word *ours,
			enum vi_volatile *ret, struct vi_error *err);

/* "no", "yes", "state", "overlay". */
const char *vi_volatile_name(enum vi_volatile m);

#endif
