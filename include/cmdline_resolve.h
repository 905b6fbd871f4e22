/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kernel command line's settings between vi_cmdline_parse's two passes: the first
 * (lib/config/cmdline.c) puts each key it knows, under any of its names, into the slot of its
 * setting; the second (lib/config/cmdline_resolve.c) decodes and checks the slots into a
 * vi_config. Pure. */
#ifndef VERITY_CMDLINE_RESOLVE_H
#define VERITY_CMDLINE_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "err.h"

/* One slot per command-line setting (CS); the keys that fill each are cmdline.c's keys[]. The
 * order counts: ROOTHASH..NAME are the root's keys, ROOTHASH..USR_SIG all the targets'. */
enum vi_cmdline_slot {
	VI_CS_ROOTHASH, VI_CS_DATA, VI_CS_HASHDEV, VI_CS_OPTIONS, VI_CS_NAME,
	VI_CS_REC_ROOTHASH, VI_CS_REC_DATA, VI_CS_REC_HASHDEV, VI_CS_REC_OPTIONS, VI_CS_REC_NAME,
	VI_CS_USR_ROOTHASH, VI_CS_USR_DATA, VI_CS_USR_HASHDEV, VI_CS_USR_OPTIONS, VI_CS_USR_NAME,
	VI_CS_USR_SIG,
	VI_CS_MOUNT_USR, VI_CS_USRFSTYPE, VI_CS_USRFLAGS, VI_CS_RW,
	VI_CS_ENABLE, VI_CS_FAIL, VI_CS_TIMEOUT, VI_CS_SIG, VI_CS_MANIFEST, VI_CS_REQSIG,
	VI_CS_DMCREATE,
	VI_CS_ROOT, VI_CS_ROOTFSTYPE, VI_CS_ROOTFLAGS, VI_CS_INIT, VI_CS_RO,
	VI_CS_EXTRA_MOUNT,
	VI_CS_OTHER_INIT,
	VI_CS_SHELL,
	VI_CS_VOLATILE, VI_CS_VI_VOLATILE,
	VI_CS__MAX
};

/* What a slot holds: the key as written (for messages) and its value, pointers into the line. */
struct vi_cmdline_val {
	bool set;
	const char *key;
	size_t key_len;
	const char *val;     /* NULL: the bare key */
	size_t val_len;
	bool b;              /* boolean settings: the value read */
};

/*
 * The slots sl[VI_CS__MAX] into c (vi_config_init'ed): the targets (systemd.verity=,
 * verity.manifest=, dm-mod.create= or the root's keys; the recovery root's; the /usr's), the
 * root's signature, the fail actions and timeout, how the root is mounted, systemd.volatile=
 * and the /usr layout. 0, or -EINVAL (or a validator's errno) with err naming the key; c is then
 * half-filled and not to be used.
 */
int vi_cmdline_resolve(const struct vi_cmdline_val *sl, struct vi_config *c, struct vi_error *err);

#endif
