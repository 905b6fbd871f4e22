/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The files of verity-image's signing commands (sign, check-manifest): the reason given for a
 * failed read or write, and the one way an output file is written (image-io.c). */
#ifndef VERITY_IMAGE_IO_H
#define VERITY_IMAGE_IO_H

#include <stddef.h>

/* The reason for a negative errno from reading an input or writing an output. */
const char *image_io_reason(int r);

/* Write buf to path (created 0644, replaced atomically through a temporary file); an existing
 * path must be a regular file. 0 or a negative errno (-ELOOP a symlink, -EEXIST not a regular
 * file), nothing printed. */
int image_write_file(const char *path, const void *buf, size_t len);

#endif
