/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The signed verity manifest: a small, versioned, line-oriented text file that binds every
 * parameter that shapes the root mapping, plus a monotonically increasing version for
 * anti-rollback. Its minisign signature (include/minisign.h) is checked against public keys in
 * the initramfs; docs/signing.md is the user-facing description. Grammar:
 *
 *   manifest = "verity-manifest 1" LF *( key SP value LF )
 *   key      = 1*( %x61-7A / DIGIT / "-" )          ; lowercase, from the table below
 *   value    = 1*( %x21-7E )                        ; printable ASCII, no space
 *
 * No blank lines, comments, leading/trailing spaces, CR, or a last line without LF; every key at
 * most once; an unknown key is refused (a newer format gets a new first line). Numbers are
 * decimal without sign or leading zeros; booleans "yes"/"no"; hex lowercase or uppercase.
 *
 *   version            required  u64 >= 1, compared with the initramfs' min_version
 *   root-hash          required  hex, the digest size of hash-algorithm
 *   hash-algorithm     required  e.g. sha256
 *   format             required  0 (Chrome OS) or 1
 *   data-block-size    required  bytes
 *   hash-block-size    required  bytes
 *   data-blocks        required  count of data blocks
 *   hash-offset        required  bytes (superblock position, or tree start without superblock)
 *   salt               required  hex, or "-" for an empty salt
 *   superblock         required  yes | no
 *   data-device        required  /dev/..., UUID=, PARTUUID=, LABEL=, PARTLABEL=
 *   uuid               optional  the superblock's UUID (only with superblock yes)
 *   hash-device        optional  device spec; absent: the hash area is on the data device
 *   fec-device         optional  device spec; absent: no FEC
 *   fec-offset         optional  bytes (only with fec-device; default 0)
 *   fec-roots          optional  2..24 (only with fec-device; default 2)
 *   on-corruption      optional  eio | ignore | restart | panic   (default eio)
 *   on-error           optional  eio | restart | panic            (default eio; kernel 6.12+)
 *   ignore-zero-blocks optional  yes | no                         (default no)
 *   check-at-most-once optional  yes | no                         (default no)
 *
 * An absent optional key means its default, which is then as binding as a written value. */
#ifndef VERITY_MANIFEST_H
#define VERITY_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "minisign.h"

#define VI_MANIFEST_MAGIC "verity-manifest 1"
#define VI_MANIFEST_MAX   4096u   /* size cap of a manifest file */

struct vi_manifest {
	uint64_t version;
	uint8_t root_hash[VERITY_MAX_DIGEST];
	unsigned root_hash_len;
	struct vi_params params;  /* hash_name, hash_type, block sizes, data_blocks,
				       * hash_offset, salt, no_superblock, uuid */
	bool has_uuid;
	struct vi_devspec data;
	struct vi_devspec hash;       /* empty: same as data */
	struct vi_devspec fec;        /* empty: no FEC */
	uint64_t fec_offset;
	uint32_t fec_roots;           /* 0 without FEC, else 2..24 */
	struct vi_verity_opts opts;   /* on-corruption, on-error, ignore-zero-blocks,
				       * check-at-most-once */
};

/* Parse and validate a manifest over (buf, len); no NUL needed. -EINVAL with err naming the
 * line; -E2BIG above VI_MANIFEST_MAX. *ret is untouched on failure. */
int vi_manifest_parse(const char *buf, size_t len, struct vi_manifest *ret,
		      struct vi_error *err);

/* Write m in the canonical form (keys in the order of the table above, optional keys only
 * when not default) plus a NUL. -ENOBUFS if out is too small; -EINVAL if m is invalid. */
int vi_manifest_format(const struct vi_manifest *m, char *out, size_t out_size,
		       size_t *ret_len, struct vi_error *err);

/* The target's parameters of m, for the formatter and the comparison with a command line:
 * given what a manifest always binds (the required keys, and the FEC keys, whose absence
 * binds 0), the UUID when it has one. */
void vi_manifest_target(const struct vi_manifest *m, struct vi_target *t);

/* ---- using a manifest (lib/config/manifest_trust.c): the bundle, the signature, the merge ---- */

/* Merge a verified manifest into the target the command line described. Every mapping
 * parameter the command line set must equal the manifest's (-EPERM with err naming it
 * otherwise: the command line may be attacker-controlled); then every mapping parameter is
 * taken from the manifest, including its defaults, and the target is enabled. Not mapping
 * parameters (name, sig_path) are kept. t is untouched on failure. */
int vi_manifest_apply(const struct vi_manifest *m, struct vi_target *t, struct vi_error *err);

/* The bundle: a manifest and its .minisig stored together in a raw region (a partition, or the
 * hash device after the tree), as  manifest-bytes | minisig-bytes | NUL padding.
 * The split is at the first "\nuntrusted comment: " (no manifest line can start with it: the key
 * would be unknown); the region ends at its first NUL, and only NULs may follow it inside the
 * VI_BUNDLE_MAX bytes read. */
#define VI_BUNDLE_MAX 8192u

/* Split buf[0..len) (len <= VI_BUNDLE_MAX, the bytes read from the region). On success the
 * manifest is buf[0..*ret_manifest_len) and the signature buf[*ret_sig_off..+*ret_sig_len).
 * -EINVAL with err set; -ENODATA when the region starts with a NUL (nothing stored). */
int vi_bundle_split(const char *buf, size_t len, size_t *ret_manifest_len, size_t *ret_sig_off,
		    size_t *ret_sig_len, struct vi_error *err);

/* Byte offset of the bundle region on the hash device: the first hash block after the tree
 * (the geometry's hash device size). -EINVAL with err set for invalid parameters. */
int vi_bundle_offset(const struct vi_params *p, uint64_t *ret, struct vi_error *err);

/* Compare two device specs the way the manifest check does: identical, except that the value
 * of UUID=/PARTUUID= is compared without regard to case. */
bool vi_manifest_devspec_eq(const char *a, const char *b);

/* Public keys a manifest may be signed with (the initramfs' keys directory, or files given
 * to verity-image check-manifest). */
#define VI_KEYS_MAX  16u

struct vi_keyset {
	unsigned n;
	struct vi_minisign_pubkey key[VI_KEYS_MAX];
	char file[VI_KEYS_MAX][64];     /* file name inside the keys directory */
};

/* Pure: verify the minisign signature of a manifest with the key its key id names, then parse
 * it and check version >= min_version. -ENOKEY (no such key), -EBADMSG (bad signature),
 * -ESTALE (version below min_version: rollback), -EINVAL (malformed), err set. *ret_key is the
 * index of the key used. */
int vi_manifest_verify(const struct vi_keyset *keys, const char *man, size_t man_len,
		       const char *sig, size_t sig_len, uint64_t min_version,
		       struct vi_manifest *ret, unsigned *ret_key, struct vi_error *err);

#endif
