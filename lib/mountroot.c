// SPDX-License-Identifier: LGPL-2.1-or-later
/* Read-only root mount and init check. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <blkid.h>

#include "mountroot.h"
#include "rootopts.h"

static int probe_type(const char *source, char *out, size_t out_size, struct verity_err *err)
{
	blkid_probe pr;
	const char *type = NULL;
	int r = -ENOENT;

	pr = blkid_new_probe_from_filename(source);
	if (!pr) {
		snprintf(err->msg, sizeof(err->msg), "cannot probe %s", source);
		return -EIO;
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
		snprintf(err->msg, sizeof(err->msg), "no known filesystem on %s", source);
	blkid_free_probe(pr);
	return r;
}

/* Mounted, and on the expected device? A mount that is not backed by the mapping is undone. */
static int check_mounted_on(const char *target, dev_t expect, struct verity_err *err)
{
	struct stat st;

	if (stat(target, &st) < 0 || st.st_dev != expect) {
		umount2(target, MNT_DETACH);
		snprintf(err->msg, sizeof(err->msg), "the filesystem mounted on %s is not on the "
			 "verified mapping (%u:%u): unmounted", target, major(expect), minor(expect));
		return -EXDEV;
	}
	return 0;
}

int vi_mount_root(const char *source, dev_t expect, const char *target, const char *fstype,
		  const char *rootflags, char *ret_type, size_t type_size, struct verity_err *err)
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
		snprintf(err->msg, sizeof(err->msg), "cannot create %s: %s", target, strerror(-r));
		return r;
	}
	/* rootfstype=a,b: each in turn, as the kernel does */
	do {
		size_t len = strcspn(p, ",");

		if (len >= type_size) {
			snprintf(err->msg, sizeof(err->msg), "filesystem type name too long");
			return -EINVAL;
		}
		memcpy(ret_type, p, len);
		ret_type[len] = '\0';
		p += len + (p[len] == ',');
		if (mount(source, target, ret_type, flags, data[0] ? data : NULL) == 0)
			return check_mounted_on(target, expect, err);
		r = -errno;
		snprintf(err->msg, sizeof(err->msg), "mounting %s (%.32s) on %s failed: %s", source,
			 ret_type, target, strerror(-r));
	} while (*p);
	return r;
}

int vi_init_check(const char *root, const char *init, dev_t expect, struct verity_err *err)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char buf[65536];
	struct stat st;
	int rootfd, fd, r;
	ssize_t n;

	if (init[0] != '/') {
		snprintf(err->msg, sizeof(err->msg), "init=%.100s is not an absolute path", init);
		return -EINVAL;
	}
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		r = -errno;
		snprintf(err->msg, sizeof(err->msg), "cannot open %s: %s", root, strerror(-r));
		return r;
	}
	if (expect && (fstat(rootfd, &st) < 0 || st.st_dev != expect)) {
		snprintf(err->msg, sizeof(err->msg), "%s is not the verified mapping (%u:%u)", root,
			 major(expect), minor(expect));
		r = -EXDEV;
		goto out_root;
	}
	/* absolute symlinks (/sbin/init -> /lib/systemd/systemd) must resolve inside root */
	fd = (int)syscall(SYS_openat2, rootfd, init, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		fd = openat(rootfd, init + 1, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		snprintf(err->msg, sizeof(err->msg), "init %.100s not usable in the new root: %s", init,
			 strerror(-r));
		goto out_root;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(st.st_mode & 0111)) {
		snprintf(err->msg, sizeof(err->msg), "init %.100s is not an executable file", init);
		r = -ENOEXEC;
		goto out;
	}
	/* a filesystem mounted inside the root (a /usr from elsewhere) is not verified by it */
	if (expect && st.st_dev != expect) {
		snprintf(err->msg, sizeof(err->msg),
			 "init %.100s is on device %u:%u, not on the verified mapping (%u:%u)", init,
			 major(st.st_dev), minor(st.st_dev), major(expect), minor(expect));
		r = -EXDEV;
		goto out;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0) {
		r = -errno;
		snprintf(err->msg, sizeof(err->msg),
			 "reading init %.100s failed: %s (a block failed verification?)", init,
			 strerror(-r));
		goto out;
	}
	r = 0;
out:
	close(fd);
out_root:
	close(rootfd);
	return r;
}

int vi_root_dirs_check(const char *root, dev_t expect, struct verity_err *err)
{
	static const char *const dirs[] = { "/usr", "/bin", "/sbin", "/lib", "/lib64" };
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	int rootfd, fd, r = 0;

	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		r = -errno;
		snprintf(err->msg, sizeof(err->msg), "cannot open %s: %s", root, strerror(-r));
		return r;
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !r; i++) {
		/* /lib -> usr/lib and the like: where the link leads is what counts */
		fd = (int)syscall(SYS_openat2, rootfd, dirs[i], &how, sizeof(how));
		if (fd < 0)
			continue;   /* absent (or not reachable inside the root): nothing runs from it */
		if (fstat(fd, &st) == 0 && st.st_dev != expect) {
			snprintf(err->msg, sizeof(err->msg),
				 "%s is on device %u:%u, not on the verified mapping (%u:%u)", dirs[i],
				 major(st.st_dev), minor(st.st_dev), major(expect), minor(expect));
			r = -EXDEV;
		}
		close(fd);
	}
	close(rootfd);
	return r;
}
