/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Mounting the verified root read-only and checking its init before we commit to it. */
#ifndef VERITY_MOUNTROOT_H
#define VERITY_MOUNTROOT_H

#include <stddef.h>
#include <sys/types.h>

#include "superblock.h"
#include "rootopts.h"

/* Mount source on target read-only. fstype: a rootfstype= list, each tried in turn; empty:
 * probe with libblkid. Afterwards the mounted filesystem must be on device expect (the
 * mapping), else it is unmounted and -EXDEV returned. The type used is written to ret_type. */
int vi_mount_root(const char *source, dev_t expect, const char *target, const char *fstype,
		  const char *rootflags, char *ret_type, size_t type_size, struct verity_err *err);

/* Check that init (an absolute path inside root, symlinks resolved inside root) is a regular
 * executable file, and read it to the end once: dm-verity checks blocks when they are read,
 * so a corrupted init fails here (-EIO) while a fallback is still possible, not at exec.
 * expect (0: not checked): root and init must both be on this device (-EXDEV), so init cannot
 * come from another filesystem mounted inside the root. */
int vi_init_check(const char *root, const char *init, dev_t expect, struct verity_err *err);

/* The system's code directories (/usr, /bin, /sbin, /lib, /lib64, symlinks resolved inside
 * root) that exist must be on device expect: a /usr mounted from elsewhere would put
 * unverified libraries and programs under the verified init (-EXDEV). */
int vi_root_dirs_check(const char *root, dev_t expect, struct verity_err *err);

#endif
