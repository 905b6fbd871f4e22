/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Switching from the initramfs to the mounted root, as util-linux switch_root and klibc
 * run-init do: check first, then move the API filesystems into the new root, move the new root
 * over / and chroot into it, then free the initramfs through a descriptor of the old root. The
 * caller execs init. */
#ifndef VERITY_SWITCHROOT_H
#define VERITY_SWITCHROOT_H

#include <stdbool.h>
#include <sys/types.h>

#include "err.h"

/* Delete everything below the directory dirfd (on device dev), without crossing into other
 * mounts: a directory on another device stays with all it holds, a file that is a mount point
 * stays (unlinkat refuses it). The fd stays open. Returns 0 or the first error (and keeps
 * deleting). */
int vi_rm_tree(int dirfd, dev_t dev);

/* What vi_switch_root did, for the caller to act on and log. */
struct vi_switch_result {
	bool committed;             /* past the checks: mounts were moved. false: nothing was
	                             * changed, the caller can still clean up and fall back */
	struct vi_error warning;  /* "" or one line of what went wrong without stopping the
	                             * switch: an API filesystem not moved (detached), initramfs
	                             * files not deleted */
};

/* Checks (newroot is a different filesystem, / is ramfs or tmpfs, / can be opened) before
 * anything is changed; -EINVAL (or -errno) with err set and ret->committed false when one
 * fails, nothing touched. Then (ret->committed true): /dev /proc /sys /run moved into newroot
 * (detached when newroot lacks the directory), newroot moved onto /, chroot, chdir /, the old
 * initramfs contents deleted through a descriptor of the old root. After a failure past the
 * checks the system is half switched: the caller can only reboot, power off or panic. Library
 * code: problems that do not stop the switch are reported in ret->warning, not logged. */
int vi_switch_root(const char *newroot, struct vi_switch_result *ret, struct vi_error *err);

/* Mark every descriptor >= first close-on-exec, so the next program (init, a shell) gets none
 * of ours: libdevmapper opens /dev/mapper/control without O_CLOEXEC. close_range(2), or on
 * kernels before 5.11 one fcntl per descriptor listed in /proc/self/fd (without /proc: every
 * descriptor up to RLIMIT_NOFILE, at most 65536). Descriptors stay open until the exec, so
 * logging goes on. -errno with err set when one could not be marked. */
int vi_fds_cloexec(int first, struct vi_error *err);

#endif
