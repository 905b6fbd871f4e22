/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The files of verity-image's signing commands (sign, check-manifest): the reason given for a
 * failed read or write, and the one way output files are written (image-io.c): all of a
 * command's outputs are first written in full to temporary files next to their paths, and only
 * when every one of them is complete are they renamed into place, so that a failure leaves no
 * partial output behind. */
#ifndef VERITY_IMAGE_IO_H
#define VERITY_IMAGE_IO_H

#include <stddef.h>

#define IMAGE_OUTPUTS_MAX 8u

/* The reason for a negative errno from reading an input or writing an output. */
const char *image_io_reason(int r);

/* Output files written but not yet in place. Zero-initialised before the first add. */
struct image_outputs {
	unsigned n;
	struct {
		char path[4096];
		char tmp[4096 + 12];
	} f[IMAGE_OUTPUTS_MAX];
};

/* Write buf to a temporary file next to path (created 0644, synced); an existing path must be a
 * regular file (-ELOOP a symlink, -EEXIST anything else). 0 or a negative errno, nothing
 * printed. */
int image_outputs_add(struct image_outputs *o, const char *path, const void *buf, size_t len);

/* Rename every added file into place. 0, or a negative errno with *ret_path the output that
 * could not be placed; the files not yet placed are removed. */
int image_outputs_commit(struct image_outputs *o, const char **ret_path);

/* Remove every added file that is not in place (safe to call after a commit). */
void image_outputs_abort(struct image_outputs *o);

#endif
