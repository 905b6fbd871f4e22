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
/* Those directories on a tmpfs root mounted by someone else (dracut's hooks, a systemd unit). */
int vi_tmpfs_root_dirs(const char *target, struct vi_error *err);

/* The unverified root= partition source (device expect) on target: vi_mount_root's rules
 * (fsl too), then remounted writable when rw (the kernel's "rw"). */
int vi_writable_root_mount(const char *source, dev_t expect, const char *target,
			   const char *fstype, const char *flags, bool rw,
			   const struct vi_fs_loader *fsl, char *ret_type, size_t type_size,
			   struct vi_error *err);

/* The /usr mapping source (device expect) read-only on root/usr: root/usr must be a directory
 * (created when absent), never a symbolic link, which would carry the mount elsewhere (-ELOOP).
 * fstype and flags: mount.usrfstype= and mount.usrflags=, vi_mount_root's rules (fsl too). */
int vi_usr_mount(const char *root, const char *source, dev_t expect, const char *fstype,
		 const char *flags, const struct vi_fs_loader *fsl, char *ret_type,
		 size_t type_size, struct vi_error *err);

/* A tmpfs root's merged-/usr links: bin, sbin, lib, lib64 -> usr/NAME for each directory
 * root/usr has (systemd's base-filesystem table). */
int vi_usr_merge_links(const char *root, struct vi_error *err);

/* Read init completely through root (symlinks resolved inside it, vi_init_check_at's rules)
 * and prove its device is one of allowed[0..n) (the /usr mapping, the verified root): an init
 * on the tmpfs or on the unverified partition, or resolving there through a link, is refused
 * (-EXDEV). *ret_id names the file read. */
int vi_usr_init_check(const char *root, const char *init, const dev_t *allowed, size_t n,
		      struct vi_file_id *ret_id, struct vi_error *err);

/*
 * A root nobody verified (layouts tmpfs+usr and writable+usr): what the kernel and the program
 * loader read before init's first instruction must be on the verified /usr (device usr),
 * symlinks resolved inside root. Refused, err saying what:
 *   a kernel without openat2 (-EOPNOTSUPP): links could not be resolved as init sees them;
 *   /bin, /sbin, /lib, /lib32, /lib64, /libx32 that exist and are not links "usr/NAME" (or
 *   "/usr/NAME") onto /usr: a directory or file of the root, another link (-EXDEV), one that
 *   leads nowhere (-ENOENT); /dev, /proc, /sys, /run symbolic links (-EXDEV): the switch
 *   moves the initramfs' mounts there;
 *   an interpreter of init (#! lines, at most 4 in a row; the ELF PT_INTERP, the program
 *   loader) that is not a file on /usr (-EXDEV) or that the kernel would not run (-ENOEXEC,
 *   -ELOOP); each is read to the end, as init is;
 *   /etc a symbolic link; /etc/ld.so.preload of any type, a dangling link too (-EPERM);
 *   for a program loader that is not glibc's by its content (its DT_SONAME, vi_elf_soname;
 *   musl's libc.so has none, whatever name PT_INTERP gives it), an ld-musl-*.path of any ARCH
 *   in /etc or in musl's PREFIX/etc (vi_musl_etc_dir) that is not a regular file of /usr: one
 *   of the root, a link of any kind (-EPERM); a loader whose dynamic section cannot be read
 *   (-ENOEXEC);
 *   /etc/ld.so.cache that is not a loader cache of a known format (-EBADMSG), or names a
 *   library outside /usr and its merged directories (-EPERM) or one that is a file on another
 *   device (-EXDEV). A library it names that does not exist is skipped, as by the loader.
 */
int vi_usr_loader_check(const char *root, const char *init, dev_t usr, struct vi_error *err);

#endif
