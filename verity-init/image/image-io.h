/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The files of verity-image's signing commands (sign, check-manifest) and format's root hash
 * file: the reason given for a failed read or write, and the one way a command's output files
 * are written (image-io.c).
 *
 * A command's outputs are one set, put in place all or nothing. Each is first written in full
 * to a temporary file next to its path (PATH.tmpXXXXXX, synced). The commit then gives every
 * old file a second name (PATH.oldXXXXXX: a hard link, or a copy where the filesystem allows
 * no link), renames the new files into place one by one, syncs their directories, writes the
 * region in a device (sign --embed's bundle on the hash device) last, and only then removes
 * the old names. When any step fails, every output already placed is put back (its old name
 * renamed over it, or a file that was not there removed) and the region's old bytes written
 * again, so a failed run leaves every old output as it was.
 *
 * A crash cannot be rolled back: it may leave some outputs new and the others old, with the
 * new content of those not yet placed in their .tmp files and the old content of those placed
 * in their .old files; each path holds a whole file, old or new, never a part of one, and the
 * region on the device may be torn. That is still safe to boot from: nothing the boot trusts
 * is taken unchecked (a manifest is verified against its .minisig, a bundle's manifest against
 * the signature inside it, roothash.p7s and the DPS JSON by the kernel against the root hash),
 * so a new manifest next to an old signature, or a torn bundle, is refused, never accepted,
 * and whatever verifies is an output some run signed whole, old or new. A run that did not
 * exit 0 produced nothing to ship: run it again. */
#ifndef VERITY_IMAGE_IO_H
#define VERITY_IMAGE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IMAGE_OUTPUTS_MAX 8u
/* The largest region written in place: a bundle (VI_BUNDLE_MAX, include/manifest.h). */
#define IMAGE_REGION_MAX 8192u

/* The reason for a negative errno from reading an input or writing an output. */
const char *image_io_reason(int r);

/* Output files written but not yet in place. Zero-initialised before the first add. */
struct image_outputs {
	unsigned n;
	struct image_output {
		char path[4096];
		char tmp[4096 + 12];     /* the new content until the commit renames it */
		char old[4096 + 12];     /* the old file's second name during a commit; "" none */
		bool placed;             /* renamed into place by the commit under way */
	} f[IMAGE_OUTPUTS_MAX];
	/* bytes written in place in a file or device the caller holds open, after every file */
	struct image_region {
		bool on;
		int fd;
		char what[4200];         /* for messages: "the bundle at byte N of PATH" */
		uint64_t offset;
		size_t len;
		size_t old_len;          /* bytes of it that existed (a file may end before it) */
		uint64_t old_size;       /* a regular file's size before, to cut it back to */
		bool is_file;
		unsigned char bytes[IMAGE_REGION_MAX];
		unsigned char old_bytes[IMAGE_REGION_MAX];
	} region;
};

/* Why a commit failed: the output (or region) that could not be put in place, and when
 * putting back what was already placed failed as well, each such output, left new, with the
 * name that keeps its old content ("" when it had none; NULL for the region). */
struct image_commit_failure {
	const char *path;
	unsigned n_unrestored;
	struct {
		const char *path;
		const char *kept_as;
	} unrestored[IMAGE_OUTPUTS_MAX + 1];
};

/* Write buf to a temporary file next to path (created 0644, synced); an existing path must be a
 * regular file (-ELOOP a symlink, -EEXIST anything else). 0 or a negative errno, nothing
 * printed. */
int image_outputs_add(struct image_outputs *o, const char *path, const void *buf, size_t len);

/* Write buf at offset of fd (open read-write; what names the region in messages) as the set's
 * last step, its present bytes read now so that a failed commit can write them back. At most
 * one region of at most IMAGE_REGION_MAX bytes (-EINVAL). 0 or a negative errno, nothing
 * printed. */
int image_outputs_add_region(struct image_outputs *o, int fd, const char *what, uint64_t offset,
			     const void *buf, size_t len);

/* Put every added output in place, all or none (above). 0, or a negative errno with *ret saying
 * which output failed and which, if any, could not be put back; nothing printed. Either way no
 * temporary file is left. */
int image_outputs_commit(struct image_outputs *o, struct image_commit_failure *ret);

/* The one line a program prints for a failed commit (r and *f from it), into buf. */
void image_commit_reason(const struct image_commit_failure *f, int r, char *buf, size_t size);

/* Remove every added file that is not in place and forget the region (safe after a commit). */
void image_outputs_abort(struct image_outputs *o);

#endif
