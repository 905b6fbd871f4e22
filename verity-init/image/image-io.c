// SPDX-License-Identifier: LGPL-2.1-or-later
/* The files of verity-image's signing commands (image-io.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image-io.h"

const char *image_io_reason(int r)
{
	switch (r) {
	case -ENOTBLK:
		return "not a regular file or block device";
	case -ELOOP:
		return "is a symbolic link (outputs are written as new files, never through a link)";
	case -EEXIST:
		return "exists and is not a regular file";
	default:
		return strerror(-r);
	}
}

/* A symlink would be replaced by the file, not written through, and a device node or FIFO
 * replaced by a file is never what was meant: an existing path must be a regular file. */
int image_write_file(const char *path, const void *buf, size_t len)
{
	struct stat st;
	char tmp[4096];
	int fd, r = 0;

	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			return -ELOOP;
		if (!S_ISREG(st.st_mode))
			return -EEXIST;
	} else if (errno != ENOENT) {
		return -errno;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644) < 0 || write(fd, buf, len) != (ssize_t)len || fsync(fd) < 0)
		r = errno ? -errno : -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}
