// SPDX-License-Identifier: LGPL-2.1-or-later
/* switch_root: checks, mount moves, initramfs cleanup. */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "switchroot.h"

int vi_rm_tree(int dirfd, dev_t dev)
{
	DIR *dir;
	struct dirent *de;
	int fd, r = 0;

	fd = dup(dirfd);
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		r = -errno;
		close(fd);
		return r;
	}
	while ((de = readdir(dir))) {
		struct stat st;
		bool is_dir;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (!r)
				r = -errno;
			continue;
		}
		if (st.st_dev != dev) /* a mount point: not ours to delete */
			continue;
		is_dir = S_ISDIR(st.st_mode);
		if (is_dir) {
			int sub = openat(dirfd, de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			int rr;

			if (sub < 0) {
				if (!r)
					r = -errno;
				continue;
			}
			rr = vi_rm_tree(sub, dev);
			close(sub);
			if (rr < 0 && !r)
				r = rr;
		}
		if (unlinkat(dirfd, de->d_name, is_dir ? AT_REMOVEDIR : 0) < 0 && !r &&
		    errno != EBUSY) /* a directory holding a mount point stays */
			r = -errno;
	}
	closedir(dir);
	return r;
}

int vi_switch_root(const char *newroot, struct verity_err *err)
{
	static const char *const api[] = { "/dev", "/proc", "/sys", "/run" };
	struct stat root_st, new_st;
	struct statfs sfs;
	int oldroot, r;

	if (stat("/", &root_st) < 0 || stat(newroot, &new_st) < 0) {
		r = -errno;
		snprintf(err->msg, sizeof(err->msg), "cannot stat / or %s: %s", newroot, strerror(-r));
		return r;
	}
	if (root_st.st_dev == new_st.st_dev) {
		snprintf(err->msg, sizeof(err->msg), "%s is not a mounted filesystem", newroot);
		return -EINVAL;
	}
	if (statfs("/", &sfs) < 0 ||
	    (sfs.f_type != (__fsword_t)RAMFS_MAGIC &&
	     sfs.f_type != (__fsword_t)TMPFS_MAGIC)) {
		snprintf(err->msg, sizeof(err->msg), "/ is not an initramfs (ramfs or tmpfs)");
		return -EINVAL;
	}
	oldroot = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (oldroot < 0) {
		r = -errno;
		snprintf(err->msg, sizeof(err->msg), "cannot open /: %s", strerror(-r));
		return r;
	}
	for (size_t i = 0; i < sizeof(api) / sizeof(api[0]); i++) {
		char target[4096];
		struct stat st;

		snprintf(target, sizeof(target), "%s%s", newroot, api[i]);
		if (stat(target, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (mount(api[i], target, NULL, MS_MOVE, NULL) < 0 && errno != EINVAL)
				umount2(api[i], MNT_DETACH);
		} else {
			umount2(api[i], MNT_DETACH);
		}
	}
	if (chdir(newroot) < 0 || mount(newroot, "/", NULL, MS_MOVE, NULL) < 0 ||
	    chroot(".") < 0 || chdir("/") < 0) {
		r = -errno;
		snprintf(err->msg, sizeof(err->msg), "moving %s onto / failed: %s", newroot,
			 strerror(-r));
		close(oldroot);
		return r;
	}
	/* Free the initramfs memory; failures here waste RAM but do not stop the boot. */
	vi_rm_tree(oldroot, root_st.st_dev);
	close(oldroot);
	return 0;
}
