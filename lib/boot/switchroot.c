// SPDX-License-Identifier: LGPL-2.1-or-later
/* switch_root: checks, mount moves, initramfs cleanup; descriptors handed to the next program. */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "switchroot.h"

/* Bound of the fd scan without close_range and /proc (RLIMIT_NOFILE may be huge). */
#define VI_FDS_SCAN_MAX 65536

static int set_cloexec(int fd)
{
	int flags = fcntl(fd, F_GETFD);

	if (flags < 0)
		return -1;
	return (flags & FD_CLOEXEC) ? 0 : fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

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
		bool is_dir = false;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		/* Only a directory can hold files of another filesystem: other entries go without a
		 * stat (one system call each, as util-linux switch_root does); unlinking a file
		 * that is a mount point fails with EBUSY and leaves it. */
		if (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN) {
			if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
				if (!r)
					r = -errno;
				continue;
			}
			if (st.st_dev != dev) /* a mount point: not ours to delete */
				continue;
			is_dir = S_ISDIR(st.st_mode);
		}
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

/* Add one "; "-separated note to a warning line (cut when full: the first ones matter most). */
__attribute__((format(printf, 2, 3)))
static void warn_add(struct vi_error *w, const char *fmt, ...)
{
	size_t len = strlen(w->msg);
	va_list ap;

	if (len && len + 2 < sizeof(w->msg)) {
		memcpy(w->msg + len, "; ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(w->msg + len, sizeof(w->msg) - len, fmt, ap);
	va_end(ap);
}

int vi_switch_root(const char *newroot, struct vi_switch_result *ret, struct vi_error *err)
{
	static const char *const api[] = { "/dev", "/proc", "/sys", "/run" };
	struct stat root_st, new_st;
	struct statfs sfs;
	int oldroot, r;

	ret->committed = false;
	ret->warning.msg[0] = '\0';
	if (stat("/", &root_st) < 0 || stat(newroot, &new_st) < 0) {
		r = -errno;
		return vi_errno(err, r, "cannot stat / or %s: %s", newroot, strerror(-r));
	}
	if (root_st.st_dev == new_st.st_dev)
		return vi_err(err, "%s is not a mounted filesystem", newroot);
	if (statfs("/", &sfs) < 0 ||
	    (sfs.f_type != (__fsword_t)RAMFS_MAGIC &&
	     sfs.f_type != (__fsword_t)TMPFS_MAGIC))
		return vi_err(err, "/ is not an initramfs (ramfs or tmpfs)");
	oldroot = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (oldroot < 0) {
		r = -errno;
		return vi_errno(err, r, "cannot open /: %s", strerror(-r));
	}
	/* the point of no return: from here on mounts move */
	ret->committed = true;
	for (size_t i = 0; i < sizeof(api) / sizeof(api[0]); i++) {
		char target[4096];
		struct stat st;

		snprintf(target, sizeof(target), "%s%s", newroot, api[i]);
		if (stat(target, &st) < 0 || !S_ISDIR(st.st_mode)) {
			if (umount2(api[i], MNT_DETACH) == 0)
				warn_add(&ret->warning, "%s not moved (no directory %s): detached",
					 api[i], target);
			continue;
		}
		/* EINVAL: not a mount point here, nothing to move */
		if (mount(api[i], target, NULL, MS_MOVE, NULL) < 0 && errno != EINVAL) {
			warn_add(&ret->warning, "%s not moved into %s (%s): detached", api[i], newroot,
				 strerror(errno));
			umount2(api[i], MNT_DETACH);
		}
	}
	if (chdir(newroot) < 0 || mount(newroot, "/", NULL, MS_MOVE, NULL) < 0 ||
	    chroot(".") < 0 || chdir("/") < 0) {
		r = -errno;
		close(oldroot);
		return vi_errno(err, r, "moving %s onto / failed: %s", newroot, strerror(-r));
	}
	/* Free the initramfs memory; failures here waste RAM but do not stop the boot. */
	r = vi_rm_tree(oldroot, root_st.st_dev);
	if (r < 0)
		warn_add(&ret->warning, "initramfs not completely freed: %s", strerror(-r));
	close(oldroot);
	return 0;
}

int vi_fds_cloexec(int first, struct vi_error *err)
{
	struct rlimit rl;
	struct dirent *de;
	DIR *dir;
	int r = 0;

	if (close_range((unsigned)first, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return 0;
	/* Linux < 5.11 (ENOSYS, or EINVAL for the flag): one fcntl per open descriptor */
	dir = opendir("/proc/self/fd");
	if (dir) {
		while ((de = readdir(dir))) {
			char *end;
			long fd = strtol(de->d_name, &end, 10);

			if (*end || end == de->d_name || fd < first || fd == dirfd(dir))
				continue;
			if (set_cloexec((int)fd) < 0 && !r)
				r = -errno;
		}
		closedir(dir);
	} else {
		/* no /proc: every descriptor the limit allows (capped: a huge limit would take long) */
		int max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < VI_FDS_SCAN_MAX
				  ? (int)rl.rlim_cur : VI_FDS_SCAN_MAX;

		for (int fd = first; fd < max; fd++)
			if (set_cloexec(fd) < 0 && errno != EBADF && !r)
				r = -errno;
	}
	if (r < 0)
		return vi_errno(err, r, "cannot mark inherited file descriptors close-on-exec: %s",
				strerror(-r));
	return 0;
}
