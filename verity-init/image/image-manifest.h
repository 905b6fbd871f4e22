/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `verity-image sign`, path 2 of docs/signing.md (image-manifest.c): the manifest of the image
 * signed with a minisign key, or prepared here and signed elsewhere (minisign -S) and joined,
 * written as MANIFEST + MANIFEST.minisig, a bundle file, and/or the bundle on the hash device
 * right after the tree. */
#ifndef VERITY_IMAGE_MANIFEST_H
#define VERITY_IMAGE_MANIFEST_H

#include <stdbool.h>
#include <stdint.h>

#include "geometry.h"
#include "image-io.h"
#include "params.h"

/* sign's options for path 2 (--minisign-key and what goes into the manifest). */
struct sign_manifest_opts {
	const char *key;              /* --minisign-key: unencrypted minisign secret key */
	const char *sig;              /* --minisign-signature: a .minisig made elsewhere, to join */
	const char *helper;           /* --minisign-signing-helper: a program that makes the Ed25519
	                               * signatures with a key kept elsewhere (a token) */
	const char *pubkey;           /* --public-key: the minisign public key the joined or the
	                               * helper's signature must verify with */
	const char *prepare;          /* --prepare-manifest: write the manifest to be signed */
	uint64_t version;             /* the manifest's version, >= 1 */
	const char *manifest;         /* write MANIFEST and MANIFEST.minisig */
	const char *bundle;           /* write the bundle file */
	bool embed;                   /* write the bundle on the hash device */
	const char *tc;               /* the trusted comment; NULL: timestamp and version */
	const char *data_spec, *hash_spec, *fec_spec;   /* the devices as the agent finds them */
	uint64_t fec_offset;
	uint32_t fec_roots;           /* 0: the default, 2 */
	struct vi_verity_opts opts;   /* --on-corruption, --on-error, --ignore-zero-blocks,
	                               * --check-at-most-once */
};

/* The manifest of the image (p, g, root): prepared (o->prepare), or signed with o->key, or
 * joined with o->sig once that verifies with o->pubkey; the files are added to outs (not yet in
 * place), and the bundle is written on the hash device (fd, hash_path, opened read-write for
 * o->embed) last, when everything else succeeded. Prints the outcome's lines; 0, or the exit
 * code with the error printed (prog.h's die). */
int sign_manifest(const struct sign_manifest_opts *o, const char *hash_path, int fd,
		  const struct vi_params *p, const struct vi_geometry *g, const uint8_t *root,
		  struct image_outputs *outs);

#endif
