/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Whole-buffer I/O on the devices of a verity image (data, hash and FEC devices, files or block
 * devices), for the format engine (tree.c, fec.c) and the host tool. Functions return 0 or a
 * negative errno. */
#ifndef VERITY_BLOCKIO_H
#define VERITY_BLOCKIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Size in bytes of a regular file or a block device; -ENOTBLK for anything else. */
int vi_fd_size(int fd, uint64_t *ret_size);

/* pread/pwrite of exactly len bytes (EINTR retried). -EIO when the device ends first (read),
 * else -errno. */
int vi_pread_full(int fd, void *buf, size_t len, uint64_t off);
int vi_pwrite_full(int fd, const void *buf, size_t len, uint64_t off);

/* Whether two descriptors are the same file or block device (hard links and other spellings
 * included). */
bool vi_same_file(int a, int b);

#endif
