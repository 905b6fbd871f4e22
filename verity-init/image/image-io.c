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
	case -ENOSPC:
		return "too many output files";
	default:
		return strerror(-r);
	}
}

/* A symlink would be replaced by the file, not written through, and a device node or FIFO
 * replaced by a file is never what was meant: an existing path must be a regular file. */
int image_outputs_add(struct image_outputs *o, const char *path, const void *buf, size_t len)
{
	struct stat st;
	char *tmp;
	int fd, r = 0;

	if (o->n == IMAGE_OUTPUTS_MAX)
		return -ENOSPC;
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			return -ELOOP;
		if (!S_ISREG(st.st_mode))
			return -EEXIST;
	} else if (errno != ENOENT) {
		return -errno;
	}
	if (snprintf(o->f[o->n].path, sizeof(o->f[0].path), "%s", path) >= (int)sizeof(o->f[0].path))
		return -ENAMETOOLONG;
	tmp = o->f[o->n].tmp;
	snprintf(tmp, sizeof(o->f[0].tmp), "%s.tmpXXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644) < 0 || write(fd, buf, len) != (ssize_t)len || fsync(fd) < 0)
		r = errno ? -errno : -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return r;
	}
	o->n++;
	return 0;
}

int image_outputs_commit(struct image_outputs *o, const char **ret_path)
{
	unsigned i;

	for (i = 0; i < o->n; i++) {
		if (rename(o->f[i].tmp, o->f[i].path) < 0) {
			int r = -errno;

			*ret_path = o->f[i].path;
			for (; i < o->n; i++)
				unlink(o->f[i].tmp);
			o->n = 0;
			return r;
		}
	}
	o->n = 0;
	return 0;
}

void image_outputs_abort(struct image_outputs *o)
{
	unsigned i;

	for (i = 0; i < o->n; i++)
		unlink(o->f[i].tmp);
	o->n = 0;
}
