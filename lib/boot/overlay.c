// SPDX-License-Identifier: LGPL-2.1-or-later
/* The verified root under a tmpfs overlay (include/overlay.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "overlay.h"

/* mkdir -p of an absolute path (the parents under /run are ours to create). */
static int mkdir_parents(const char *path, mode_t mode)
{
	char p[256];
	size_t n = strlen(path);

	if (n >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, path, n + 1);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	return mkdir(p, mode) < 0 && errno != EEXIST ? -errno : 0;
}

static bool is_overlay(const char *path)
{
	struct statfs sfs;

	return statfs(path, &sfs) == 0 && sfs.f_type == (__fsword_t)OVERLAYFS_SUPER_MAGIC;
}

int vi_overlay_mount(const char *target, const char *dir, struct vi_error *err)
{
	char upper[200], work[200], opts[700];
	int r;

	if (strpbrk(target, ",:\\") || strpbrk(dir, ",:\\"))
		return vi_errno(err, -EINVAL, "overlay: a path with ',', ':' or '\\'");
	if (snprintf(upper, sizeof(upper), "%s/upper", dir) >= (int)sizeof(upper) ||
	    snprintf(work, sizeof(work), "%s/work", dir) >= (int)sizeof(work))
		return vi_errno(err, -ENAMETOOLONG, "overlay: directory name too long");
	r = mkdir_parents(dir, 0755);
	if (r < 0)
		return vi_errno(err, r, "overlay: cannot create %s: %s", dir, strerror(-r));
	if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0) {
		r = -errno;
		return vi_errno(err, r, "overlay: mounting a tmpfs on %s failed: %s", dir,
				strerror(-r));
	}
	if (mkdir(upper, 0755) < 0 || mkdir(work, 0755) < 0) {
		r = -errno;
		vi_errno(err, r, "overlay: cannot create %s/upper or work: %s", dir, strerror(-r));
		goto out_tmpfs;
	}
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s,xino=off,index=off,"
		 "metacopy=off,redirect_dir=off", target, upper, work);
	/* lowerdir= is resolved now: the verified root mounted on target, under the overlay */
	if (mount("overlay", target, "overlay", 0, opts) < 0) {
		r = -errno;
		vi_errno(err, r, "overlay: mounting the overlay on %s failed: %s%s", target,
			 strerror(-r), r == -ENODEV ? " (no overlay module in the initramfs?)" : "");
		goto out_tmpfs;
	}
	return 0;
out_tmpfs:
	umount2(dir, MNT_DETACH);
	return r;
}

void vi_overlay_unmount(const char *target, const char *dir)
{
	if (is_overlay(target))
		umount2(target, MNT_DETACH);
	umount2(dir, MNT_DETACH);
}

/* 0 when dir has no entry but . and .. */
static int dir_empty(const char *dir, struct vi_error *err)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int r = 0;

	if (!d) {
		r = -errno;
		return vi_errno(err, r, "overlay: cannot read %s: %s", dir, strerror(-r));
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			r = vi_errno(err, -ENOTEMPTY, "overlay: the upper layer %s is not empty "
				     "(%.64s): files there would not be verified", dir, de->d_name);
			break;
		}
	closedir(d);
	return r;
}

/* Read a and b to their ends: 0 when the bytes are the same, -EXDEV when not, -errno. */
static int same_bytes(int a, int b)
{
	unsigned char x[16384], y[sizeof(x)];
	ssize_t n, m;

	while ((n = read(a, x, sizeof(x))) > 0) {
		for (ssize_t got = 0; got < n; got += m) {
			m = read(b, y + got, (size_t)(n - got));
			if (m < 0)
				return -errno;
			if (m == 0)
				return -EXDEV;
		}
		if (memcmp(x, y, (size_t)n))
			return -EXDEV;
	}
	if (n < 0)
		return -errno;
	n = read(b, y, 1);
	return n == 0 ? 0 : n < 0 ? -errno : -EXDEV;
}

/* init opened through the overlay (fd, fd_st) against init on the verified root (lowerfd). */
static int same_as_lower(int fd, const struct stat *fd_st, int lowerfd, const char *init,
			 dev_t expect, const struct vi_file_id *lower, struct vi_error *err)
{
	struct stat st;
	bool fallback;
	int lfd, r;

	lfd = vi_open_in_root(lowerfd, init, O_RDONLY | O_CLOEXEC | O_NOCTTY, &fallback);
	if (lfd < 0)
		return vi_errno(err, lfd, "init %.100s on the verified root under the overlay: %s",
				init, strerror(-lfd));
	if (fallback || fstat(lfd, &st) < 0 || st.st_dev != expect || st.st_ino != lower->ino ||
	    fd_st->st_ino != lower->ino) {
		r = vi_errno(err, -EXDEV, "init %.100s through the overlay (inode %llu) is not the "
			     "file checked on the verified root (%u:%u inode %llu)%s", init,
			     (unsigned long long)fd_st->st_ino, major(expect), minor(expect),
			     (unsigned long long)lower->ino, fallback ? " (no openat2)" : "");
		goto out;
	}
	r = same_bytes(fd, lfd);
	if (r < 0)
		vi_errno(err, r, "init %.100s through the overlay %s", init,
			 r == -EXDEV ? "differs from the file on the verified root" : "unreadable");
out:
	close(lfd);
	return r;
}

int vi_overlay_init_check(const char *root, const char *dir, int lowerfd, const char *init,
			  dev_t expect, const struct vi_file_id *lower, struct vi_file_id *ret_id,
			  struct vi_error *err)
{
	char upper[200];
	struct stat upper_st, st;
	struct vi_file_id id;
	bool fallback;
	int rootfd, fd, r;

	if (snprintf(upper, sizeof(upper), "%s/upper", dir) >= (int)sizeof(upper))
		return vi_errno(err, -ENAMETOOLONG, "overlay: directory name too long");
	if (!is_overlay(root))
		return vi_errno(err, -EXDEV, "%s is not the overlay over the verified root", root);
	r = dir_empty(upper, err);
	if (r < 0)
		return r;
	if (stat(upper, &upper_st) < 0) {
		r = -errno;
		return vi_errno(err, r, "overlay: cannot stat %s: %s", upper, strerror(-r));
	}
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		r = -errno;
		return vi_errno(err, r, "cannot open %s: %s", root, strerror(-r));
	}
	/* the checks of any init (executable, exec format, read to the end), through the overlay */
	r = vi_init_check_at(rootfd, init, 0, &id, err);
	if (r < 0) {
		vi_err_wrap(err, r, "through the overlay: ");
		goto out_root;
	}
	fd = vi_open_in_root(rootfd, init, O_RDONLY | O_CLOEXEC | O_NOCTTY, &fallback);
	if (fd < 0) {
		r = vi_errno(err, fd, "init %.100s through the overlay: %s", init, strerror(-fd));
		goto out_root;
	}
	if (fstat(fd, &st) < 0 || st.st_dev != id.dev || st.st_ino != id.ino ||
	    st.st_dev == upper_st.st_dev) {
		r = vi_errno(err, -EXDEV, "init %.100s through the overlay is on the tmpfs upper "
			     "layer, not on the verified root", init);
		goto out;
	}
	r = same_as_lower(fd, &st, lowerfd, init, expect, lower, err);
	if (r == 0)
		*ret_id = id;
out:
	close(fd);
out_root:
	close(rootfd);
	return r;
}
