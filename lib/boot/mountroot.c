// SPDX-License-Identifier: LGPL-2.1-or-later
/* Read-only root mount and init check. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <blkid.h>

#include "mountroot.h"
#include "rootopts.h"

static int probe_type(const char *source, char *out, size_t out_size, struct vi_error *err)
{
	blkid_probe pr;
	const char *type = NULL;
	int r = -ENOENT;

	pr = blkid_new_probe_from_filename(source);
	if (!pr) {
		return vi_errno(err, -EIO, "cannot probe %s", source);
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	/* Only filesystems a root can be: every probe reads blocks through dm-verity, which
	 * hashes each one, so fewer candidates is a shorter boot. */
	blkid_probe_filter_superblocks_type(pr, BLKID_FLTR_ONLYIN, (char **)vi_root_fs_types);
	if (blkid_do_safeprobe(pr) == 0 && blkid_probe_lookup_value(pr, "TYPE", &type, NULL) == 0 &&
	    type && snprintf(out, out_size, "%s", type) < (int)out_size)
		r = 0;
	else
		vi_err(err, "no known filesystem on %s", source);
	blkid_free_probe(pr);
	return r;
}

/* Mounted, and on the expected device? A mount that is not backed by the mapping is undone. */
static int check_mounted_on(const char *target, dev_t expect, struct vi_error *err)
{
	struct stat st;

	if (stat(target, &st) < 0 || st.st_dev != expect) {
		umount2(target, MNT_DETACH);
		vi_err(err, "the filesystem mounted on %s is not on the "
		       "verified mapping (%u:%u): unmounted", target, major(expect), minor(expect));
		return -EXDEV;
	}
	return 0;
}

int vi_mount_root(const char *source, dev_t expect, const char *target, const char *fstype,
		  const char *rootflags, const struct vi_fs_loader *fsl, char *ret_type,
		  size_t type_size, struct vi_error *err)
{
	char data[256], probed[32];
	const char *p;
	unsigned long flags;
	int r;

	r = vi_rootflags_parse(rootflags, &flags, data, sizeof(data), err);
	if (r < 0)
		return r;
	if (fstype && *fstype) {
		r = vi_rootfstype_check(fstype, err);
		if (r < 0)
			return r;
		p = fstype;
	} else {
		r = probe_type(source, probed, sizeof(probed), err);
		if (r < 0)
			return r;
		p = probed;
	}
	if (mkdir(target, 0755) < 0 && errno != EEXIST) {
		r = -errno;
		vi_err(err, "cannot create %s: %s", target, strerror(-r));
		return r;
	}
	/* rootfstype=a,b: each in turn, as the kernel does */
	do {
		size_t len = strcspn(p, ",");

		if (len >= type_size) {
			return vi_errno(err, -EINVAL, "filesystem type name too long");
		}
		memcpy(ret_type, p, len);
		ret_type[len] = '\0';
		p += len + (p[len] == ',');
		if (fsl && fsl->load)
			fsl->load(fsl->ctx, ret_type);
		if (mount(source, target, ret_type, flags, data[0] ? data : NULL) == 0)
			return check_mounted_on(target, expect, err);
		r = -errno;
		vi_err(err, "mounting %s (%.32s) on %s failed: %s", source,
		       ret_type, target, strerror(-r));
	} while (*p);
	return r;
}

int vi_open_in_root(int rootfd, const char *path, int flags, bool *ret_fallback)
{
	struct open_how how = {
		.flags = (uint64_t)flags,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));

	*ret_fallback = fd < 0 && errno == ENOSYS;
	if (*ret_fallback)
		fd = openat(rootfd, path + 1, flags);
	return fd < 0 ? -errno : fd;
}

/* name[0..len) is one of the directories the switch mounts over (at the root only). */
static bool is_api_dir(const char *name, size_t len)
{
	static const char *const dirs[] = { "dev", "proc", "sys", "run" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (strlen(dirs[i]) == len && !memcmp(name, dirs[i], len))
			return true;
	return false;
}

/* Grammar of what is walked: a path is names separated by '/' ("." skipped, ".." the parent,
 * never above the root); a symbolic link's text replaces its name in what is left to walk,
 * from the root when it starts with '/'. cur holds the names resolved so far ("" the root,
 * otherwise "/a/b"), none of them a link. */
int vi_path_enters_api_dir(int rootfd, const char *path)
{
	char cur[PATH_MAX] = "", left[2][PATH_MAX], target[PATH_MAX];
	unsigned links = 0, which = 0;
	const char *p;
	struct stat st;

	if (strlen(path) >= sizeof(left[0]))
		return -ENAMETOOLONG;
	memcpy(left[0], path, strlen(path) + 1);
	p = left[0];
	for (;;) {
		size_t len, clen = strlen(cur);
		ssize_t n;

		p += strspn(p, "/");
		if (!*p)
			return 0;
		len = strcspn(p, "/");
		if (len == 1 && p[0] == '.') {
			p += len;
			continue;
		}
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			if (clen)   /* "/a/b": has a '/'; the root stays the root */
				*strrchr(cur, '/') = '\0';
			p += len;
			continue;
		}
		if (!clen && is_api_dir(p, len))
			return 1;
		if (clen + 1 + len >= sizeof(cur))
			return -ENAMETOOLONG;
		cur[clen] = '/';
		memcpy(cur + clen + 1, p, len);
		cur[clen + 1 + len] = '\0';
		p += len;
		/* cur's names before this one are directories, not links: nothing else is followed */
		if (fstatat(rootfd, cur + 1, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
		if (!S_ISLNK(st.st_mode))
			continue;
		if (++links > VI_PATH_MAX_LINKS)
			return -ELOOP;
		n = readlinkat(rootfd, cur + 1, target, sizeof(target));
		if (n < 0)
			return -errno;
		if ((size_t)n >= sizeof(target) || (size_t)n + 1 + strlen(p) >= sizeof(left[0]))
			return -ENAMETOOLONG;
		/* the link's name is not part of where it leads */
		cur[clen] = '\0';
		if (target[0] == '/')
			cur[0] = '\0';
		which ^= 1;
		memcpy(left[which], target, (size_t)n);
		left[which][n] = '/';
		memcpy(left[which] + n + 1, p, strlen(p) + 1);
		p = left[which];
	}
}

/* What execve() accepts: an ELF binary or a #! script. */
static bool exec_format(const unsigned char *head, size_t len)
{
	return (len >= 4 && !memcmp(head, "\x7f" "ELF", 4)) ||
	       (len >= 2 && head[0] == '#' && head[1] == '!');
}

int vi_init_check_at(int rootfd, const char *init, dev_t expect, struct vi_file_id *ret_id,
		     struct vi_error *err)
{
	unsigned char buf[65536], head[4];
	size_t have = 0;
	struct statvfs vfs;
	struct stat st;
	int fd, r;
	bool fallback;
	ssize_t n;

	if (init[0] != '/') {
		return vi_errno(err, -EINVAL, "init=%.100s is not an absolute path", init);
	}
	/* absolute symlinks (/sbin/init -> /lib/systemd/systemd) must resolve inside root */
	fd = vi_open_in_root(rootfd, init, O_RDONLY | O_CLOEXEC | O_NOCTTY, &fallback);
	if (fd < 0) {
		r = fd;
		vi_err(err, "init %.100s not usable in the new root: %s", init,
		       strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(st.st_mode & 0111)) {
		vi_err(err, "init %.100s is not an executable file", init);
		r = -ENOEXEC;
		goto out;
	}
	/* a filesystem mounted inside the root (a /usr from elsewhere) is not verified by it */
	if (expect && st.st_dev != expect) {
		vi_err(err,
		       "init %.100s is on device %u:%u, not on the verified mapping (%u:%u)", init,
		       major(st.st_dev), minor(st.st_dev), major(expect), minor(expect));
		r = -EXDEV;
		goto out;
	}
	/* readable but not executable: execve() would fail only after the switch */
	if (fstatvfs(fd, &vfs) < 0) {
		r = -errno;
		vi_err(err, "cannot read the mount flags of init %.100s: %s",
		       init, strerror(-r));
		goto out;
	}
	if (vfs.f_flag & ST_NOEXEC) {
		vi_err(err,
		       "init %.100s is on a filesystem mounted noexec", init);
		r = -EACCES;
		goto out;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n && have < sizeof(head); i++)
			head[have++] = buf[i];
	if (n < 0) {
		r = -errno;
		vi_err(err,
		       "reading init %.100s failed: %s (a block failed verification?)", init,
		       strerror(-r));
		goto out;
	}
	if (!exec_format(head, have)) {
		vi_err(err,
		       "init %.100s is neither an ELF binary nor a #! script", init);
		r = -ENOEXEC;
		goto out;
	}
	if (ret_id) {
		ret_id->dev = st.st_dev;
		ret_id->ino = st.st_ino;
	}
	r = 0;
out:
	close(fd);
	return r;
}

int vi_init_check(const char *root, const char *init, dev_t expect, struct vi_file_id *ret_id,
		  struct vi_error *err)
{
	struct stat st;
	int rootfd, r;

	if (init[0] != '/') {
		return vi_errno(err, -EINVAL, "init=%.100s is not an absolute path", init);
	}
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		r = -errno;
		vi_err(err, "cannot open %s: %s", root, strerror(-r));
		return r;
	}
	if (expect && (fstat(rootfd, &st) < 0 || st.st_dev != expect)) {
		vi_err(err, "%s is not the verified mapping (%u:%u)", root,
		       major(expect), minor(expect));
		r = -EXDEV;
	} else {
		r = vi_init_check_at(rootfd, init, expect, ret_id, err);
	}
	close(rootfd);
	return r;
}

int vi_init_same(const char *init, const struct vi_file_id *id, struct vi_error *err)
{
	struct stat st;
	int r;

	if (stat(init, &st) < 0) {
		r = -errno;
		vi_err(err, "init %.100s not found after the switch: %s",
		       init, strerror(-r));
		return r;
	}
	if (st.st_dev != id->dev || st.st_ino != id->ino) {
		return vi_errno(err, -ESTALE,
			 "init %.100s after the switch (device %u:%u) is not the file checked before "
			 "it (device %u:%u)", init, major(st.st_dev), minor(st.st_dev),
			 major(id->dev), minor(id->dev));
	}
	return 0;
}

static bool dev_allowed(dev_t dev, const dev_t *allowed, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (allowed[i] && dev == allowed[i])
			return true;
	return false;
}

int vi_root_dirs_check(const char *root, dev_t expect, struct vi_error *err)
{
	return vi_code_dirs_check(root, &expect, 1, err);
}

int vi_code_dirs_check(const char *root, const dev_t *allowed, size_t n, struct vi_error *err)
{
	static const char *const dirs[] = { "/usr", "/bin", "/sbin", "/lib", "/lib64" };
	struct stat st;
	int rootfd, fd, r = 0;
	bool fallback;

	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		r = -errno;
		vi_err(err, "cannot open %s: %s", root, strerror(-r));
		return r;
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !r; i++) {
		/* /lib -> usr/lib and the like: where the link leads is what counts */
		fd = vi_open_in_root(rootfd, dirs[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC, &fallback);
		/* Absent: nothing runs from it. Not when only openat without openat2 missed it: an
		 * absolute link resolved outside the root says nothing of where it leads inside. */
		if (fd == -ENOENT &&
		    !(fallback && fstatat(rootfd, dirs[i] + 1, &st, AT_SYMLINK_NOFOLLOW) == 0))
			continue;
		if (fd == -ENOENT) {
			vi_err(err, "cannot check %s in the new root: a "
			       "symbolic link this kernel cannot follow inside it (no openat2)",
			       dirs[i]);
			r = -EOPNOTSUPP;
			break;
		}
		if (fd >= 0 && fstat(fd, &st) < 0) {
			r = -errno;
			close(fd);
			fd = r;
		}
		if (fd < 0) {
			r = fd;
			vi_err(err, "cannot check %s in the new root: %s",
			       dirs[i], strerror(-r));
			break;
		}
		if (!dev_allowed(st.st_dev, allowed, n)) {
			vi_err(err, "%s is on device %u:%u, not on the verified mapping (%u:%u)%s",
			       dirs[i], major(st.st_dev), minor(st.st_dev), major(allowed[0]),
			       minor(allowed[0]), n > 1 ? " or the verified /usr" : "");
			r = -EXDEV;
		}
		close(fd);
	}
	close(rootfd);
	return r;
}
