// SPDX-License-Identifier: LGPL-2.1-or-later
/* The root of a boot with a verified /usr (include/usrmount.h). */
#include "usrmount.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "rootopts.h"

int vi_tmpfs_root_dirs(const char *target, struct vi_error *err)
{
	static const char *const dirs[] = { "dev", "proc", "sys", "run", "etc", "var", "usr" };
	int fd, r = 0;

	fd = open(target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		return vi_errno(err, r, "cannot open %s: %s", target, strerror(-r));
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && r == 0; i++)
		if (mkdirat(fd, dirs[i], 0755) < 0 && errno != EEXIST) {
			r = -errno;
			vi_errno(err, r, "tmpfs root: cannot create /%s: %s", dirs[i], strerror(-r));
		}
	close(fd);
	return r;
}

int vi_tmpfs_root_mount(const char *target, struct vi_error *err)
{
	int r;

	if (mkdir(target, 0755) < 0 && errno != EEXIST) {
		r = -errno;
		return vi_errno(err, r, "cannot create %s: %s", target, strerror(-r));
	}
	if (mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0) {
		r = -errno;
		return vi_errno(err, r, "mounting a tmpfs root on %s failed: %s", target,
				strerror(-r));
	}
	r = vi_tmpfs_root_dirs(target, err);
	if (r < 0)
		umount2(target, MNT_DETACH);
	return r;
}

int vi_writable_root_mount(const char *source, dev_t expect, const char *target,
			   const char *fstype, const char *flags, bool rw,
			   const struct vi_fs_loader *fsl, char *ret_type, size_t type_size,
			   struct vi_error *err)
{
	char data[256];
	unsigned long mflags;
	int r = vi_mount_root(source, expect, target, fstype, flags, fsl, ret_type, type_size, err);

	if (r < 0 || !rw)
		return r;
	r = vi_rootflags_parse(flags, &mflags, data, sizeof(data), err);
	if (r == 0 && mount(NULL, target, NULL, MS_REMOUNT | (mflags & ~(unsigned long)MS_RDONLY),
			    data[0] ? data : NULL) < 0) {
		r = -errno;
		vi_errno(err, r, "remounting %s writable failed: %s", target, strerror(-r));
	}
	if (r < 0)
		umount2(target, MNT_DETACH);
	return r;
}

int vi_usr_mount(const char *root, const char *source, dev_t expect, const char *fstype,
		 const char *flags, const struct vi_fs_loader *fsl, char *ret_type,
		 size_t type_size, struct vi_error *err)
{
	char path[256];
	struct stat st;
	int r;

	if (snprintf(path, sizeof(path), "%s/usr", root) >= (int)sizeof(path))
		return vi_errno(err, -ENAMETOOLONG, "%s: path too long", root);
	if (lstat(path, &st) < 0 && errno == ENOENT && mkdir(path, 0755) < 0) {
		r = -errno;
		return vi_errno(err, r, "cannot create %s: %s", path, strerror(-r));
	}
	if (lstat(path, &st) < 0) {
		r = -errno;
		return vi_errno(err, r, "%s: %s", path, strerror(-r));
	}
	if (!S_ISDIR(st.st_mode))
		return vi_errno(err, S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR, "%s is %s, not a "
				"directory: the verified /usr is mounted on a directory of the root "
				"only", path, S_ISLNK(st.st_mode) ? "a symbolic link" : "a file");
	return vi_mount_root(source, expect, path, fstype, flags, fsl, ret_type, type_size, err);
}

int vi_usr_merge_links(const char *root, struct vi_error *err)
{
	static const char *const names[] = { "bin", "sbin", "lib", "lib64" };
	char target[32];
	struct stat st;
	int fd, r = 0;

	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		return vi_errno(err, r, "cannot open %s: %s", root, strerror(-r));
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && r == 0; i++) {
		snprintf(target, sizeof(target), "usr/%s", names[i]);
		if (fstatat(fd, target, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (symlinkat(target, fd, names[i]) < 0 && errno != EEXIST) {
			r = -errno;
			vi_errno(err, r, "tmpfs root: cannot link /%s to %s: %s", names[i], target,
				 strerror(-r));
		}
	}
	close(fd);
	return r;
}

int vi_usr_init_check(const char *root, const char *init, const dev_t *allowed, size_t n,
		      struct vi_file_id *ret_id, struct vi_error *err)
{
	struct vi_file_id id;
	int fd, r;

	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		return vi_errno(err, r, "cannot open %s: %s", root, strerror(-r));
	}
	r = vi_init_check_at(fd, init, 0, &id, err);
	close(fd);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		if (allowed[i] && id.dev == allowed[i]) {
			*ret_id = id;
			return 0;
		}
	return vi_errno(err, -EXDEV, "init %.100s resolves to a file on device %u:%u, not on the "
			"verified /usr (%u:%u)%s", init, major(id.dev), minor(id.dev),
			major(allowed[0]), minor(allowed[0]),
			n > 1 && allowed[1] ? " or the verified root" : "");
}
