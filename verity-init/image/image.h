/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What verity-image's own commands (format, verify, dump, cmdline) share: their options, the one
 * "open image" step, and the progress bar and reports in veritysetup's form. The commands with
 * options of their own (sign, check-manifest) have theirs: image-manifest.h and image-pkcs7.h
 * for sign's two trust paths, image-io.h for their files. Every function that fails
 * prints the error (prog.h's die) and returns the exit code; 0 on success. */
#ifndef VERITY_IMAGE_H
#define VERITY_IMAGE_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "fec.h"
#include "geometry.h"
#include "superblock.h"

/* ---- options (image-options.c) -------------------------------------------------------------- */

/* The options of format, verify, dump and cmdline: veritysetup's words and defaults. */
struct image_opts {
	struct vi_params p;   /* defaults applied */
	uint32_t given;           /* VI_GIVEN_* bits: which of p came from the command line */
	const char *root_hash_file;
	const char *fec_device;   /* --fec-device: a file for format/verify/dump, a spec for cmdline */
	uint64_t fec_offset;
	unsigned fec_roots;       /* VERITY_FEC_DEFAULT_ROOTS unless given */
	const char *uuid_text;    /* --uuid and --hash as given: printed back unchanged in format's */
	const char *hash_text;    /* report, as veritysetup does (the superblock has lower case) */
	unsigned threads;
	bool json, quiet, verbose;
	bool check_once;          /* --check-at-most-once: format and verify ignore it */
	const char *style;
	char **args;
	int nargs;
};

/* veritysetup's long options (the dispatcher needs to know which take a value). */
extern const struct option image_long_opts[];

/* Parse argv (argv[0] is the command name) into o, defaults first. 0; -1 for --help, -2 after
 * --version was printed; else the exit code, the error printed. */
int image_parse_opts(int argc, char **argv, struct image_opts *o);

/* ---- opening an image (image-open.c) ------------------------------------------------------- */

/* FEC of one run: --fec-device given (on), and where its area is. */
struct image_fec {
	bool on;
	bool on_hash;             /* the FEC area is on the hash device */
	uint64_t offset;
	struct vi_fec_geometry g;
};

/* One image as a command opens it: the devices, the parameters (the options', completed by the
 * superblock or the data device's size) and the geometry; the FEC device after
 * image_open_fec. Every fd is -1 until opened; image_close closes what was. */
struct image {
	int data_fd, hash_fd, fec_fd;
	const char *data_path, *hash_path;   /* NULL: not opened (dump has no data device) */
	struct vi_params p;
	struct vi_geometry g;
	struct image_fec fec;
};

enum image_mode {
	IMAGE_FORMAT,     /* DATA HASH: the hash device is written (created), no superblock read */
	IMAGE_VERIFY,     /* DATA HASH: read; the superblock, unless --no-superblock */
	IMAGE_DUMP,       /* HASH: read; the superblock */
};

/* Open the image of o's arguments for mode and compute its geometry; img closed on failure. */
int image_open(const struct image_opts *o, enum image_mode mode, struct image *img);

/* Open the --fec-device (flags as for open(2)) and work out its layout: fec.on stays false
 * without the option. img closed on failure. */
int image_open_fec(const struct image_opts *o, int flags, struct image *img);

void image_close(struct image *img);

/* The reason for a negative errno from opening a path. */
const char *image_open_reason(int r);

/* Open a path argument (input or output): regular files and block devices only. */
int image_open_file(const char *path, int flags, int *ret_fd);

/* The superblock at p->hash_offset of hash_fd into p. */
int image_read_sb(int hash_fd, const char *path, struct vi_params *p);

/* The root hash (ds bytes) from arg and/or --root-hash-file, which must agree. */
int image_read_root_hash(const struct image_opts *o, const char *arg, uint8_t *root, unsigned ds);

/* ---- output (image-output.c) ---------------------------------------------------------------- */

/* A progress bar on stderr (when on) for vi_tree_opts / vi_fec_opts: image_progress_cb with the
 * progress as userdata, image_progress_end to clear the line. */
struct image_progress {
	bool on;
	const char *label;        /* before the bar, for a second pass ("FEC ") */
	struct timespec t0;
	bool drawn;
};

void image_progress_cb(void *userdata, uint64_t done, uint64_t total);
void image_progress_end(struct image_progress *pr);

/* veritysetup's report: the header lines, and the closing size lines. */
void image_print_header(const char *hash_path, const struct vi_params *p,
			const struct vi_geometry *g, const char *uuid_text,
			const char *hash_text, const struct image_fec *fec);
void image_print_sizes(const struct vi_params *p, const struct vi_geometry *g,
		       const struct image_fec *fec);

/* The same as one JSON object (root_hex may be NULL); its strings through strutil.h's
 * vi_json_quote, as every JSON string of the agent's. */
void image_print_json(const struct vi_params *p, const struct vi_geometry *g,
		      const struct image_fec *fec, const char *fec_path, const char *root_hex);

/* ---- the commands ---------------------------------------------------------------------------- */

/* image-format.c: veritysetup's format, verify and dump. */
int image_cmd_format(struct image_opts *o);
int image_cmd_verify(struct image_opts *o);
int image_cmd_dump(struct image_opts *o);

/* image-cmdline.c: the kernel command line for a formatted image. */
int image_cmd_cmdline(struct image_opts *o);

#endif
