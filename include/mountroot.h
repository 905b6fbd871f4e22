/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Mounting the verified root read-only and checking its init before we commit to it. */
#ifndef VERITY_MOUNTROOT_H
#define VERITY_MOUNTROOT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"
#include "rootopts.h"

/* Whoever loads filesystem drivers for the mounts below: load(ctx, type) runs right before
 * each mount attempt of type, one of vi_root_fs_types (the standalone initramfs has no modprobe
 * for the kernel's request_module("fs-TYPE"), so its PID 1 loads the type's modules itself).
 * It reports its own failures: a driver that is still missing fails the mount (-ENODEV). */
struct vi_fs_loader {
	void (*load)(void *ctx, const char *type);
	void *ctx;
};

/* Mount source on target read-only. fstype: a rootfstype= list, each tried in turn; empty:
 * probe with libblkid. fsl (NULL or load NULL: none) is asked for each type before it is
 * tried. Afterwards the mounted filesystem must be on device expect (the mapping), else it is
 * unmounted and -EXDEV returned. The type used is written to ret_type. */
int vi_mount_root(const char *source, dev_t expect, const char *target, const char *fstype,
		  const char *rootflags, const struct vi_fs_loader *fsl, char *ret_type,
		  size_t type_size, struct vi_error *err);

/* Which file: the init that was checked, to be found again at exec. */
struct vi_file_id {
	dev_t dev;
	ino_t ino;
};

/* Check that init (an absolute path inside root, symlinks resolved inside root) is a regular
 * executable file on a filesystem not mounted noexec (-EACCES), and read it to the end once:
 * dm-verity checks blocks when they are read, so a corrupted init fails here (-EIO) while a
 * fallback is still possible, not at exec. It must start like something execve() runs, an ELF
 * binary or a #! script (-ENOEXEC otherwise).
 * expect (0: not checked): root and init must both be on this device (-EXDEV), so init cannot
 * come from another filesystem mounted inside the root. On success *ret_id (unless NULL) names
 * the file read. Without openat2 (Linux < 5.6) symlinks are resolved by openat: an absolute one
 * then leads outside root, which expect refuses. */
int vi_init_check(const char *root, const char *init, dev_t expect, struct vi_file_id *ret_id,
		  struct vi_error *err);

/* Open path (absolute) inside the directory rootfd, symlinks resolved inside it. Without openat2
 * (ENOSYS: kernels before 5.6; *ret_fallback true) a plain openat: an absolute symlink then leads
 * out of the root, where the callers' st_dev comparison refuses what it finds. Returns the fd or
 * -errno. */
int vi_open_in_root(int rootfd, const char *path, int flags, bool *ret_fallback);

/* Where path (absolute) leads inside the directory rootfd, the symbolic links followed one name
 * at a time as the root's own PID 1 follows them (".." stops at the root): 1 when it passes
 * through the root's /dev, /proc, /sys or /run, which the switch replaces with the initramfs's
 * own filesystems (a file read there before the switch is not the one run after it); 0 when it
 * does not, whether it resolves or stops at a name that does not exist; -ELOOP past
 * VI_PATH_MAX_LINKS links, -ENAMETOOLONG, or another -errno when a name cannot be looked at. */
#define VI_PATH_MAX_LINKS 40
int vi_path_enters_api_dir(int rootfd, const char *path);

/* vi_init_check's checks of the file, with root given as an open directory: expect (0: not
 * checked) applies to init only, not to the directory. */
int vi_init_check_at(int rootfd, const char *init, dev_t expect, struct vi_file_id *ret_id,
		     struct vi_error *err);

/* After the switch: is init (the path execve() will take, from the current root) still the
 * file vi_init_check read? /dev, /proc, /sys and /run came in on top of the root after the
 * check. -ESTALE when it is another file, -errno when it cannot be found. */
int vi_init_same(const char *init, const struct vi_file_id *id, struct vi_error *err);

/* The system's code directories (/usr, /bin, /sbin, /lib, /lib64, symlinks resolved inside
 * root) that exist must be on device expect: a /usr mounted from elsewhere would put
 * unverified libraries and programs under the verified init (-EXDEV). Only ENOENT means
 * absent; any other failure to open one is refused with its errno (a symlink loop, -ELOOP),
 * and without openat2 a link that does not resolve from here is -EOPNOTSUPP. */
int vi_root_dirs_check(const char *root, dev_t expect, struct vi_error *err);
/* The same with n allowed devices (0 entries ignored): a verified root and a verified /usr. */
int vi_code_dirs_check(const char *root, const dev_t *allowed, size_t n, struct vi_error *err);

#endif
