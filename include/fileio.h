/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one place files are read whole: the host tools' input files, which come from elsewhere
 * (CI artefacts, partition images), and the agent's small files (the policy, keys, manifests,
 * /proc and /sys values, the status file). Opened without blocking on a FIFO and refused unless
 * a regular file or a block device, and read into a fixed buffer without ever writing past it.
 *
 * Functions return 0 or a negative errno. */
#ifndef VERITY_FILEIO_H
#define VERITY_FILEIO_H

#include <stdbool.h>
#include <stddef.h>

/* open(path, flags | O_CLOEXEC, mode) with O_NONBLOCK while the file type is checked, so a FIFO
 * (or a terminal, a socket) cannot stall the caller; O_NONBLOCK is cleared again before
 * returning. -ENOTBLK when path is neither a regular file nor a block device (the descriptor
 * is closed), else open's or fcntl's errno. */
int vi_fileio_open_input(const char *path, int flags, unsigned mode, int *ret_fd);
/* The same relative to a directory fd (AT_FDCWD: the working directory), as openat(2). */
int vi_fileio_open_input_at(int dirfd, const char *path, int flags, unsigned mode, int *ret_fd);

/* Read the bytes of fd from its current position into buf[0..size), until size bytes or the end
 * of the file. *ret_len is the count read; *ret_more (may be NULL) whether the file goes on past
 * size bytes, found out by reading one byte into a byte of this function's own, never into buf.
 * -EIO (or read's errno) on a read error. */
int vi_fileio_read_fd(int fd, void *buf, size_t size, size_t *ret_len, bool *ret_more);

/* vi_fileio_open_input(path, O_RDONLY) and vi_fileio_read_fd: the first size bytes of a file. */
int vi_fileio_read_head(const char *path, void *buf, size_t size, size_t *ret_len,
		     bool *ret_more);

/* vi_fileio_read_head for a file that must fit: -EFBIG when it is longer than size bytes. */
int vi_fileio_read_all(const char *path, void *buf, size_t size, size_t *ret_len);

/* Flags of vi_fileio_read_file_at. */
#define FILEIO_REGULAR 0x1u   /* a regular file only: anything else (a block device too) is
                               * -EINVAL */

/* vi_fileio_read_all relative to dirfd: the whole file into buf[0..size), -EFBIG when it is longer
 * than size bytes. */
int vi_fileio_read_file_at(int dirfd, const char *path, unsigned flags, void *buf, size_t size,
			size_t *ret_len);

/* A small text file (/proc/cmdline, a sysfs attribute, the status file): at most size - 1 bytes
 * of its start, NUL-terminated, trailing newlines removed. What does not fit is not read and is
 * not an error: the caller's parser refuses a value it cannot take. size must be at least 1. */
int vi_fileio_read_text_at(int dirfd, const char *path, char *buf, size_t size);

#endif
