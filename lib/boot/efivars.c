// SPDX-License-Identifier: LGPL-2.1-or-later
/* The EFI variable that adds words to systemd's command line (efivars.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "efivars.h"

#define EFIVARFS_MAGIC 0xde5e81e4u

static int is_efivarfs(int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return -errno;
	return (unsigned long)sf.f_type == EFIVARFS_MAGIC;
}

int vi_efivarfs_mount(const char *efi_dir)
{
	char dir[256];
	int fd, r;

	snprintf(dir, sizeof(dir), "%.200s/efivars", efi_dir);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	r = is_efivarfs(fd);
	close(fd);
	if (r != 0)
		return r < 0 ? r : 0;
	if (mount("efivarfs", dir, "efivarfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return -errno;
	return 0;
}

int vi_efi_options_check(const char *dir, struct vi_error *err)
{
	struct stat st;
	int fd, r;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : vi_errno(err, -errno, "%s: %s", dir, strerror(errno));
	r = is_efivarfs(fd);
	if (r == 1) {
		r = fstatat(fd, VI_EFI_SYSTEMD_OPTIONS, &st, AT_SYMLINK_NOFOLLOW);
		r = r == 0 ? -EPERM : errno == ENOENT ? 0 : -errno;
	}
	close(fd);
	if (r == -EPERM)
		return vi_errno(err, -EPERM, "the EFI variable %s adds words to systemd's command line "
				"that nobody checks: remove it (bootctl systemd-efi-options \"\")",
				VI_EFI_SYSTEMD_OPTIONS);
	if (r < 0)
		return vi_errno(err, r, "%s: %s", dir, strerror(-r));
	return 0;
}
