/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Switching from the initramfs to the mounted root, as util-linux switch_root and klibc
 * run-init do: check first, then move the API filesystems, free the initramfs, move the new
 * root over / and chroot into it. The caller execs init. */
#ifndef VERITY_SWITCHROOT_H
#define VERITY_SWITCHROOT_H

#include <sys/types.h>

#include "superblock.h"

/* Delete everything below the directory dirfd that lives on device dev, without crossing into
 * other mounts (their mount point directories stay). The fd stays open. Returns 0 or the first
 * error (and keeps deleting). */
int vi_rm_tree(int dirfd, dev_t dev);

/* Checks (newroot is a different filesystem, / is ramfs or tmpfs) before anything is changed;
 * -EINVAL with err set when one fails, nothing touched. Then: /dev /proc /sys /run moved into
 * newroot (detached when newroot lacks the directory), newroot moved onto /, chroot, chdir /,
 * the old initramfs contents deleted. After a failure past the checks the system is half
 * switched: the caller can only reboot, power off or panic. */
int vi_switch_root(const char *newroot, struct verity_err *err);

#endif
