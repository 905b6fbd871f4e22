/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What verity-image's signing commands share: sign's options, the two trust paths it writes
 * (image-manifest.c: the minisign-signed manifest; image-pkcs7.c: the kernel-verified PKCS#7
 * signature), and the output-file rules that sign and check-manifest (image-check.c) both use.
 * Functions that fail print the error (prog.h's die) and return the exit code; 0 on success. */
#ifndef VERITY_IMAGE_SIGN_H
#define VERITY_IMAGE_SIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "geometry.h"
#include "params.h"
#include "superblock.h"

/* `verity-image sign`'s options (image-sign.c). */
struct sign_opts {
	const char *hash_path;
	const char *data_spec, *hash_spec, *fec_spec;
	uint64_t hash_offset, fec_offset, version;
	uint32_t fec_roots;
	const char *root_hex;
	const char *mkey, *manifest, *bundle, *tc;
	bool embed;
	struct vi_verity_opts opts;   /* --on-corruption, --on-error, --ignore-zero-blocks,
				       * --check-at-most-once */
	const char *pkey, *pcert, *p7s, *dps;
};

/* The reason for a negative errno from reading an input or writing an output. */
const char *sign_io_reason(int r);

/* Write buf to path (created 0644, replaced atomically through a temporary file); an existing
 * path must be a regular file. 0 or a negative errno (-ELOOP a symlink, -EEXIST not a regular
 * file), nothing printed. */
int sign_write_file(const char *path, const void *buf, size_t len);

/* Path 2: the manifest of the image (p, g, root) signed with o->mkey, written where o asks
 * (MANIFEST + MANIFEST.minisig, a bundle file, the bundle on the hash device fd). */
int sign_manifest(const struct sign_opts *o, int fd, const struct vi_params *p,
		  const struct vi_geometry *g, const uint8_t *root);

/* Path 1: roothash.p7s over root_hex (o->p7s) and/or systemd's verity-signature JSON (o->dps). */
int sign_pkcs7(const struct sign_opts *o, const char *root_hex);

#endif
