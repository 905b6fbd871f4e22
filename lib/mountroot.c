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
#include <sys/syscall.h>
#include <unistd.h>

#include <blkid.h>

#include "mountroot.h"

static const struct {
	const char *name;
	unsigned long flag;
} mount_flags[] = {
	{ "ro", MS_RDONLY },        { "nosuid", MS_NOSUID },         { "nodev", MS_NODEV },
	{ "noexec", MS_NOEXEC },    { "noatime", MS_NOATIME },       { "nodiratime", MS_NODIRATIME },
	{ "relatime", MS_RELATIME }, { "strictatime", MS_STRICTATIME }, { "sync", MS_SYNCHRONOUS },
	{ "dirsync", MS_DIRSYNC },  { "lazytime", MS_LAZYTIME },
};

int vi_rootflags_parse(const char *rootflags, unsigned long *ret_flags, char *data,
		       size_t data_size, struct verity_err *err)
{
	unsigned long flags = MS_RDONLY;
	size_t dlen = 0;
	const char *p = rootflags ? rootflags : "";

	if (!data_size)
		return -ENOBUFS;
	data[0] = '\0';
	while (*p) {
		size_t len = strcspn(p, ",");
		bool known = false;

		if (len == 2 && !strncmp(p, "rw", 2)) {
			snprintf(err->msg, sizeof(err->msg), "rootflags=rw: a verity root is read-only");
			return -EINVAL;
		}
		for (size_t i = 0; i < sizeof(mount_flags) / sizeof(mount_flags[0]); i++) {
			if (strlen(mount_flags[i].name) == len &&
			    !strncmp(p, mount_flags[i].name, len)) {
				flags |= mount_flags[i].flag;
				known = true;
			}
		}
		if (!known && len) {
			if (dlen + len + 2 > data_size) {
				snprintf(err->msg, sizeof(err->msg), "rootflags= too long");
				return -EINVAL;
			}
			if (dlen)
				data[dlen++] = ',';
			memcpy(data + dlen, p, len);
			dlen += len;
			data[dlen] = '\0';
		}
		p += len;
		if (*p == ',')
			p++;
	}
	*ret_flags = flags;
	return 0;
}

static const char *const root_fs_types[] = {
	"ext4", "ext3", "ext2", "squashfs", "erofs", "xfs", "btrfs", "f2fs", "vfat", "iso9660",
	"udf", "cramfs", "romfs", NULL,
};

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
	blkid_probe_filter_superblocks_type(pr, BLKID_FLTR_ONLYIN, (char **)root_fs_types);
	if (blkid_do_safeprobe(pr) == 0 && blkid_probe_lookup_value(pr, "TYPE", &type, NULL) == 0 &&
	    type && snprintf(out, out_size, "%s", type) < (int)out_size)
		r = 0;
	else
		snprintf(err->msg, sizeof(err->msg), "no known filesystem on %s", source);
	blkid_free_probe(pr);
	return r;
}

int vi_mount_root(const char *source, const char *target, const char *fstype,
		  const char *rootflags, char *ret_type, size_t type_size, struct verity_err *err)
{
	char data[256];
	unsigned long flags;
	int r;

	r = vi_rootflags_parse(rootflags, &flags, data, sizeof(data), err);
	if (r < 0)
		return r;
	if (fstype && *fstype) {
		if (snprintf(ret_type, type_size, "%s", fstype) >= (int)type_size)
			return -EINVAL;
	} else {
		r = probe_type(source, ret_type, type_size, err);
		if (r < 0)
			return r;
	}
	if (mkdir(target, 0755) < 0 && errno != EEXIST) {
		r = -errno;
		snprintf(err->msg, sizeof(err->msg), "cannot create %s: %s", target, strerror(-r));
		return r;
	}
	if (mount(source, target, ret_type, flags, data[0] ? data : NULL) < 0) {
		r = -errno;
		snprintf(err->msg, sizeof(err->msg), "mounting %s (%.32s) on %s failed: %s", source,
			 ret_type, target, strerror(-r));
		return r;
	}
	return 0;
}

int vi_init_check(const char *root, const char *init, struct verity_err *err)
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
