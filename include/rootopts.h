/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rootfstype= and rootflags= for a verity root: which filesystems, which mount options. */
#ifndef VERITY_ROOTOPTS_H
#define VERITY_ROOTOPTS_H

#include <stddef.h>

#include "err.h"

/* NULL-terminated: the single-device block filesystems a verity root can be. */
extern const char *const vi_root_fs_types[];

/* Split rootflags= ("noatime,errors=remount-ro") into mount(2) flags and the filesystem's own
 * data string. MS_RDONLY is always set. Refused (-EINVAL), by key whatever the value: "rw" (a
 * verity root is read-only; the kernel reads "rw=x" in the data as "rw"), "noexec" (init could
 * not run), and a mount flag word with a value ("sync=1").
 * Options naming a second device (journal_dev=, journal_path=, logdev=, rtdev=, device=,
 * fsid=, domain_id=) are refused (-EPERM): it would not be verified. Pure. */
int vi_rootflags_parse(const char *rootflags, unsigned long *ret_flags, char *data,
		       size_t data_size, struct vi_error *err);

/* Is every type of a rootfstype= comma list one a verity root can be (a single-device block
 * filesystem; not btrfs, f2fs, tmpfs, nfs, overlay...)? -EINVAL with err set if not. Pure. */
int vi_rootfstype_check(const char *list, struct vi_error *err);

#endif
