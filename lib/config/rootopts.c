// SPDX-License-Identifier: LGPL-2.1-or-later
/* rootfstype= and rootflags= for a verity root: which filesystems, which mount options. Pure. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/mount.h>

#include "rootopts.h"
#include "strutil.h"

static const struct {
	const char *name;
	unsigned long flag;
} mount_flags[] = {
	{ "ro", MS_RDONLY },        { "nosuid", MS_NOSUID },         { "nodev", MS_NODEV },
	{ "noatime", MS_NOATIME },  { "nodiratime", MS_NODIRATIME }, { "relatime", MS_RELATIME },
	{ "strictatime", MS_STRICTATIME }, { "sync", MS_SYNCHRONOUS }, { "dirsync", MS_DIRSYNC },
	{ "lazytime", MS_LAZYTIME },
};

#define IDMAP_KEY "x-mount.idmap"

/* Filesystem options (by key, the klen bytes before any '=') that pull in a second, unverified
 * device (ext4 external journal, xfs log and realtime devices, erofs extra blobs and fscache). */
static bool names_device(const char *opt, size_t klen)
{
	static const char *const keys[] = {
		"journal_dev", "journal_path", "logdev", "rtdev", "device", "fsid", "domain_id",
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (vi_str_eq(opt, klen, keys[i]))
			return true;
	return false;
}

int vi_rootflags_parse(const char *rootflags, unsigned long *ret_flags, char *data,
		       size_t data_size, struct vi_error *err)
{
	unsigned long flags = MS_RDONLY;
	size_t dlen = 0;
	const char *p = rootflags ? rootflags : "";

	if (!data_size)
		return -ENOBUFS;
	data[0] = '\0';
	while (*p) {
		size_t len = strcspn(p, ","), klen = strcspn(p, "=,");
		int shown = (int)(len > 64 ? 64 : len);
		bool known = false;

		/* Compared by key: the kernel clears SB_RDONLY for "rw" whatever its value. */
		if (vi_str_eq(p, klen, "rw")) {
			return vi_errno(err, -EINVAL,
				 "rootflags=%.*s: a verity root is read-only", shown, p);
		}
		/* init could be opened and read, but execve() would fail after the switch */
		if (vi_str_eq(p, klen, "noexec")) {
			return vi_errno(err, -EINVAL,
				 "rootflags=%.*s: init could not be executed from the root", shown, p);
		}
		for (size_t i = 0; i < sizeof(mount_flags) / sizeof(mount_flags[0]); i++) {
			if (!vi_str_eq(p, klen, mount_flags[i].name))
				continue;
			if (klen != len) {
				return vi_errno(err, -EINVAL,
					 "rootflags=%.*s: a mount flag takes no value", shown, p);
			}
			flags |= mount_flags[i].flag;
			known = true;
		}
		if (!known && len && names_device(p, klen)) {
			return vi_errno(err, -EPERM,
				 "rootflags=%.*s names another device: only the verified mapping "
				 "may back the root", shown, p);
		}
		/* libmount's, read by mount(8) (the systemd flavour's sysroot.mount, dracut's mount
		 * of the root): the files of the verified image would show other owners, a
		 * root-owned one any user's the command line names */
		if (!known && klen == strlen(IDMAP_KEY) && !strncasecmp(p, IDMAP_KEY, klen)) {
			return vi_errno(err, -EPERM,
				 "rootflags=%.*s gives the verified files other owners", shown, p);
		}
		if (!known && len) {
			if (dlen + len + 2 > data_size) {
				return vi_errno(err, -EINVAL, "rootflags= too long");
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

/* Single-device filesystems a verity root can be. Left out on purpose: btrfs (it assembles
 * member devices found by scanning, and a rogue disk carrying the same fsid could join), f2fs
 * (a multi-device f2fs makes the kernel open its other devices by the paths written in its
 * superblock: whatever disk sits at that path then, unverified) and everything not backed by a
 * block device (tmpfs, nfs, overlay...). */
const char *const vi_root_fs_types[] = {
	"ext4", "ext3", "ext2", "squashfs", "erofs", "xfs", "vfat", "iso9660",
	"udf", "cramfs", "romfs", NULL,
};

static bool root_fs_type_allowed(const char *type, size_t len)
{
	for (size_t i = 0; vi_root_fs_types[i]; i++)
		if (vi_str_eq(type, len, vi_root_fs_types[i]))
			return true;
	return false;
}

int vi_rootfstype_check(const char *list, struct vi_error *err)
{
	const char *p = list ? list : "";

	while (*p) {
		size_t len = strcspn(p, ",");

		if (!len || !root_fs_type_allowed(p, len)) {
			return vi_errno(err, -EINVAL,
				 "rootfstype=%.*s is not a single-device filesystem a verity root "
				 "can be", (int)(len > 32 ? 32 : len), p);
		}
		p += len;
		if (*p == ',' && *++p == '\0') {
			return vi_errno(err, -EINVAL, "rootfstype= ends with a comma");
		}
	}
	return 0;
}

