/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* systemd.volatile=overlay: the verified root as the lower layer of an overlayfs whose upper layer
 * is a new tmpfs, as systemd-volatile-root does in systemd's initramfs (lib/boot/overlay.c). */
#ifndef VERITY_OVERLAY_H
#define VERITY_OVERLAY_H

#include <sys/types.h>

#include "err.h"
#include "mountroot.h"

/* The tmpfs of the upper layer (DIR/upper) and overlayfs's work directory (DIR/work). Under /run,
 * which the switch moves into the new root: the booted system finds its changes there. */
#define VI_OVERLAY_DIR "/run/verity-init/overlay"

/* Mount a tmpfs on dir (created), make dir/upper and dir/work, and stack an overlayfs on target
 * with what is mounted on target now (the verified root) as its only lower layer. xino, index,
 * metacopy and redirect_dir are off whatever the kernel's defaults: an upper entry cannot point
 * into the lower layer, and a file of the upper layer reports the tmpfs's device. On failure nothing of it stays mounted (target keeps the verified root).
 * Paths must not contain ',', ':' or '\\' (overlayfs's option separators). */
int vi_overlay_mount(const char *target, const char *dir, struct vi_error *err);

/* Undo vi_overlay_mount: the overlayfs from target (only if target's top mount is one), the
 * tmpfs from dir. What stays mounted on target is the verified root. */
void vi_overlay_unmount(const char *target, const char *dir);

/*
 * Prove that init, read through the overlay on root, is the file of the verified lower layer.
 * lowerfd: the verified root's directory, opened before the overlay was stacked on it; lower:
 * init as vi_init_check found it there (device expect). Refused with -EXDEV unless root is an
 * overlayfs whose upper layer (dir/upper) is still empty (-ENOTEMPTY), so that every file it
 * shows comes from the lower layer, and init resolves through it (symlinks inside root, openat2
 * needed) to a file that vi_init_check_at accepts, not on the upper layer's device, with the
 * inode number of lower and the same bytes as init read on the verified root. (The overlay does
 * not report the mapping's device for a lower file: it gives each lower layer a device number of
 * its own.) *ret_id names the file as the booted system sees it, for vi_init_same.
 */
int vi_overlay_init_check(const char *root, const char *dir, int lowerfd, const char *init,
			  dev_t expect, const struct vi_file_id *lower, struct vi_file_id *ret_id,
			  struct vi_error *err);

#endif
