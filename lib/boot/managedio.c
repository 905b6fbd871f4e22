// SPDX-License-Identifier: LGPL-2.1-or-later
/* The pstore records and the managed-recovery EFI variable (include/managedio.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "fileio.h"
#include "managedio.h"

#define PSTOREFS_MAGIC 0x6165676cu
/* EFI_VARIABLE_NON_VOLATILE | BOOTSERVICE_ACCESS | RUNTIME_ACCESS, little-endian */
#define VAR_ATTRIBUTES 0x07u

static int is_pstorefs(const char *dir)
{
	struct statfs sf;

	if (statfs(dir, &sf) < 0)
		return -errno;
	return (unsigned long)sf.f_type == PSTOREFS_MAGIC;
}

/* One record: read and parsed; removed when it shows dm-verity's end and consume says so (every
 * such record, not only the first: one left behind would be blamed on the next boot's root). */
static void scan_one(int dfd, const char *name, bool consume, char *buf, struct vi_pstore_scan *ret)
{
	char reason[VI_PSTORE_REASON_MAX];
	enum vi_pstore_end end;
	size_t len = 0;
	bool more;
	int fd, r;

	r = vi_fileio_open_input_at(dfd, name, O_RDONLY, 0, &fd);
	if (r < 0)
		return;
	r = vi_fileio_read_fd(fd, buf, VI_PSTORE_RECORD_MAX, &len, &more);
	close(fd);
	if (r < 0)
		return;
	ret->records++;
	end = vi_pstore_parse(buf, len, reason);
	if (end == VI_PSTORE_OTHER)
		return;
	if (consume && unlinkat(dfd, name, 0) < 0 && !ret->consumed)
		ret->consumed = -errno;
	if (ret->end != VI_PSTORE_OTHER)
		return;
	ret->end = end;
	snprintf(ret->file, sizeof(ret->file), "%.63s", name);
	memcpy(ret->reason, reason, sizeof(reason));
}

int vi_pstore_scan(const char *dir, bool consume, struct vi_pstore_scan *ret, struct vi_error *err)
{
	bool mounted = false;
	struct dirent *de;
	char *buf = NULL;
	DIR *d = NULL;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = is_pstorefs(dir);
	if (r == -ENOENT)
		return 0;
	if (r == 0) {
		if (mount("pstore", dir, "pstore", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			return vi_errno(err, -errno, "mount pstore on %s: %s", dir, strerror(errno));
		mounted = true;
	} else if (r < 0) {
		return vi_errno(err, r, "%s: %s", dir, strerror(-r));
	}
	buf = malloc(VI_PSTORE_RECORD_MAX);
	d = buf ? opendir(dir) : NULL;
	if (!d) {
		r = buf ? -errno : -ENOMEM;
		vi_errno(err, r, "%s: %s", dir, strerror(-r));
		goto out;
	}
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "dmesg-", 6))
			scan_one(dirfd(d), de->d_name, consume, buf, ret);
	r = 0;
out:
	if (d)
		closedir(d);
	free(buf);
	if (mounted)
		umount2(dir, MNT_DETACH);
	return r;
}

int vi_managed_var_read(const char *efivars_dir, struct vi_managed_record *ret,
			struct vi_error *err)
{
	char path[256], buf[4 + VI_MANAGED_TEXT_MAX];
	size_t len = 0;
	int r;

	snprintf(path, sizeof(path), "%.200s/%s", efivars_dir, VI_MANAGED_VAR);
	r = vi_fileio_read_file_at(AT_FDCWD, path, FILEIO_REGULAR, buf, sizeof(buf), &len);
	if (r == -ENOENT)
		return r;
	if (r < 0)
		return vi_errno(err, r, "%s: %s", VI_MANAGED_VAR, strerror(-r));
	if (len < 4)
		return vi_err(err, "%s: %zu bytes", VI_MANAGED_VAR, len);
	/* one the agent did not write (authenticated writes, not non-volatile) is not its record:
	 * it could be kept from being overwritten */
	if ((uint8_t)buf[0] != VAR_ATTRIBUTES || buf[1] || buf[2] || buf[3])
		return vi_err(err, "%s: attributes %02x%02x%02x%02x, not the agent's (NV, BS, RT)",
			      VI_MANAGED_VAR, (uint8_t)buf[3], (uint8_t)buf[2], (uint8_t)buf[1],
			      (uint8_t)buf[0]);
	return vi_managed_decode(buf + 4, len - 4, ret, err);
}

/* efivarfs makes a variable it does not know immutable, so that nobody removes one by
 * accident (rm -rf of the directory has bricked machines); like systemd, the writer of its own
 * variable lifts the flag first. */
static void unset_immutable(const char *path)
{
	int fd, flags;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && (flags & FS_IMMUTABLE_FL)) {
		flags &= ~FS_IMMUTABLE_FL;
		(void)ioctl(fd, FS_IOC_SETFLAGS, &flags);
	}
	close(fd);
}

int vi_managed_var_write(const char *efivars_dir, const struct vi_managed_record *rec,
			 struct vi_error *err)
{
	char path[256], buf[4 + VI_MANAGED_TEXT_MAX];
	ssize_t w;
	int fd, n;

	n = vi_managed_encode(rec, buf + 4, sizeof(buf) - 4, err);
	if (n < 0)
		return n;
	buf[0] = (char)VAR_ATTRIBUTES;
	buf[1] = buf[2] = buf[3] = 0;
	snprintf(path, sizeof(path), "%.200s/%s", efivars_dir, VI_MANAGED_VAR);
	unset_immutable(path);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return vi_errno(err, -errno, "%s: %s", VI_MANAGED_VAR, strerror(errno));
	w = write(fd, buf, (size_t)n + 4);
	if (w < 0)
		n = -errno;
	else if ((size_t)w != (size_t)n + 4)
		n = -EIO;
	else
		n = 0;
	close(fd);
	if (n < 0)
		return vi_errno(err, n, "%s: write: %s", VI_MANAGED_VAR, strerror(-n));
	return 0;
}
