/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The dracut runtime's pre-pivot checks of the layouts beyond the verified root alone
 * (verity-init/agent/dracut-layout.c): a verified /usr (root+usr, tmpfs+usr) and
 * systemd.volatile=overlay, each mounted as far as dracut does not, init read through the
 * final layout. */
#ifndef VERITY_DRACUT_LAYOUT_H
#define VERITY_DRACUT_LAYOUT_H
#include <stdbool.h>
#include <sys/types.h>

#include "activate.h"
#include "config.h"
#include "err.h"
#include "mountroot.h"

struct vi_dracut_check {
	enum vi_stage stage;    /* a refusal: the stage (mount, init) */
	bool usr;               /* a refusal: of the /usr target (else of the root) */
	bool usr_mounted;       /* /usr was mounted already (systemd's sysroot-usr.mount) */
	struct vi_error err;    /* a refusal: why */
	char what[256];         /* success: the layout read through, for the log line */
};

/* Unmount dir and everything mounted inside it, the innermost first; what stays busy is
 * detached. */
void vi_dracut_umount_tree(const char *dir);

/* name is a dm verity target the kernel has verified so far (status V); its devno. */
int vi_dracut_mapping_check(const char *name, dev_t *ret_devno, struct vi_error *err);

/* at most this many programs besides init for vi_dracut_layout_check */
#define VI_DRACUT_ALSO_MAX 2

/* A program the new root's PID 1 is to run (init, the service manager), before it is read:
 * path resolved inside root must not pass through root's /dev, /proc, /sys or /run, which the
 * switch replaces with the initramfs's own filesystems, and nothing under dracut finds the file
 * again after the switch (-EXDEV; a walk that cannot be done: its -errno). 1 when path exists
 * there, 0 when it does not (a dangling link, a missing directory). */
int vi_dracut_program_path(const char *root, const char *path, struct vi_error *err);

/* The layout of cfg (a verified /usr, or systemd.volatile=overlay) on newroot, completed where
 * dracut did not mount it, and init read completely through it, then each program of also
 * (NULL-terminated, at most VI_DRACUT_ALSO_MAX, may be NULL) that the layout has (the service
 * manager systemd's switch-root runs). On a refusal what was mounted here may stay: the caller
 * unmounts newroot's tree. */
int vi_dracut_layout_check(const struct vi_config *cfg, const char *newroot, const char *init,
			   const char *const *also, struct vi_dracut_check *c);
#endif
