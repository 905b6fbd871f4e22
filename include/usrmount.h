/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The root of a boot with a verified /usr (lib/boot/usrmount.c): a tmpfs or an unverified
 * partition below, the /usr mapping mounted read-only on its /usr, and init proved to come from
 * a verified device (docs/security.md, "A verified /usr"). */
#ifndef VERITY_USRMOUNT_H
#define VERITY_USRMOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"
#include "mountroot.h"

/* A tmpfs on target (mode 0755, created) for systemd.volatile=yes, with the directories the
 * switch moves the API filesystems to (dev, proc, sys, run) and an empty etc and var, which
 * the booted systemd fills. */
int vi_tmpfs_root_mount(const char *target, struct vi_error *err);

/* The unverified root= partition source (device expect) on target: vi_mount_root's rules,
 * then remounted writable when rw (the kernel's "rw"). */
int vi_writable_root_mount(const char *source, dev_t expect, const char *target,
			   const char *fstype, const char *flags, bool rw, char *ret_type,
			   size_t type_size, struct vi_error *err);

/* The /usr mapping source (device expect) read-only on root/usr: root/usr must be a directory
 * (created when absent), never a symbolic link, which would carry the mount elsewhere (-ELOOP).
 * fstype and flags: mount.usrfstype= and mount.usrflags=, vi_mount_root's rules. */
int vi_usr_mount(const char *root, const char *source, dev_t expect, const char *fstype,
		 const char *flags, char *ret_type, size_t type_size, struct vi_error *err);

/* A tmpfs root's merged-/usr links: bin, sbin, lib, lib64 -> usr/NAME for each directory
 * root/usr has (systemd's base-filesystem table). */
int vi_usr_merge_links(const char *root, struct vi_error *err);

/* Read init completely through root (symlinks resolved inside it, vi_init_check_at's rules)
 * and prove its device is one of allowed[0..n) (the /usr mapping, the verified root): an init
 * on the tmpfs or on the unverified partition, or resolving there through a link, is refused
 * (-EXDEV). *ret_id names the file read. */
int vi_usr_init_check(const char *root, const char *init, const dev_t *allowed, size_t n,
		      struct vi_file_id *ret_id, struct vi_error *err);

#endif
