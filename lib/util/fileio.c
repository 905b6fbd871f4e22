// SPDX-License-Identifier: LGPL-2.1-or-later
/* Bounded, non-blocking reading of input files (include/fileio.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"

int vi_fileio_open_input_at(int dirfd, const char *path, int flags, unsigned mode, int *ret_fd)
{
	struct stat st;
	int fd, fl, r;

	/* O_NONBLOCK first: opening a FIFO for reading would otherwise wait for a writer */
	fd = openat(dirfd, path, flags | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, (mode_t)mode);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		r = -ENOTBLK;
		goto fail;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		r = -errno;
		goto fail;
	}
	*ret_fd = fd;
	return 0;
fail:
	close(fd);
	return r;
}

int vi_fileio_open_input(const char *path, int flags, unsigned mode, int *ret_fd)
{
	return vi_fileio_open_input_at(AT_FDCWD, path, flags, mode, ret_fd);
}

int vi_fileio_read_fd(int fd, void *buf, size_t size, size_t *ret_len, bool *ret_more)
{
	char *p = buf, extra;
	size_t len = 0;
	ssize_t n;

	while (len < size) {
		n = read(fd, p + len, size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno ? -errno : -EIO;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (ret_more) {
		*ret_more = false;
		if (len == size) {
			do
				n = read(fd, &extra, 1);
			while (n < 0 && errno == EINTR);
			if (n < 0)
				return errno ? -errno : -EIO;
			*ret_more = n > 0;
		}
	}
	*ret_len = len;
	return 0;
}

int vi_fileio_read_head(const char *path, void *buf, size_t size, size_t *ret_len, bool *ret_more)
{
	int fd = -1, r;

	r = vi_fileio_open_input(path, O_RDONLY, 0, &fd);
	if (r < 0)
		return r;
	r = vi_fileio_read_fd(fd, buf, size, ret_len, ret_more);
	close(fd);
	return r;
}

int vi_fileio_read_all(const char *path, void *buf, size_t size, size_t *ret_len)
{
	bool more = false;
	size_t len = 0;
	int r;

	r = vi_fileio_read_head(path, buf, size, &len, &more);
	if (r < 0)
		return r;
	if (more)
		return -EFBIG;
	*ret_len = len;
	return 0;
}

int vi_fileio_read_file_at(int dirfd, const char *path, unsigned flags, void *buf, size_t size,
			size_t *ret_len)
{
	struct stat st;
	bool more = false;
	size_t len = 0;
	int fd = -1, r;

	r = vi_fileio_open_input_at(dirfd, path, O_RDONLY, 0, &fd);
	if (r < 0)
		return r == -ENOTBLK && (flags & FILEIO_REGULAR) ? -EINVAL : r;
	if ((flags & FILEIO_REGULAR) && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		r = -EINVAL;
		goto out;
	}
	r = vi_fileio_read_fd(fd, buf, size, &len, &more);
	if (r == 0 && more)
		r = -EFBIG;
	if (r == 0)
		*ret_len = len;
out:
	close(fd);
	return r;
}

int vi_fileio_read_text_at(int dirfd, const char *path, char *buf, size_t size)
{
	size_t len = 0;
	int fd = -1, r;

	r = vi_fileio_open_input_at(dirfd, path, O_RDONLY, 0, &fd);
	if (r < 0)
		return r;
	r = vi_fileio_read_fd(fd, buf, size - 1, &len, NULL);
	close(fd);
	if (r < 0)
		return r;
	buf[len] = '\0';
	while (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	return 0;
}
