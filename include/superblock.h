/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The dm-verity superblock as veritysetup (cryptsetup lib/verity) writes it, and the parameter
 * set that describes one verity device. */
#ifndef VERITY_SUPERBLOCK_H
#define VERITY_SUPERBLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define VERITY_SB_SIZE        512u
#define VERITY_SB_VERSION     1u
#define VERITY_MAX_SALT       256u
#define VERITY_MAX_HASH_NAME  32u   /* on-disk field, NUL-terminated */
#define VERITY_MAX_DIGEST     64u   /* sha512 */
#define VERITY_MIN_BLOCK      512u
/* veritysetup (cryptsetup VERITY_BLOCK_SIZE_OK) refuses blocks above 512 KiB, so a superblock
 * with more cannot come from it; the kernel adds its own page-size limit (see below). */
#define VERITY_MAX_BLOCK      (512u * 1024u)
#define VERITY_UUID_STR_LEN   36u   /* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", without the NUL */

/* Everything that shapes a verity mapping, in host byte order. */
struct vi_params {
	char     hash_name[VERITY_MAX_HASH_NAME]; /* "sha256", NUL-terminated */
	uint32_t hash_type;                       /* 0: Chrome OS layout, 1: current */
	uint32_t data_block_size;
	uint32_t hash_block_size;
	uint64_t data_blocks;
	uint64_t hash_offset;                     /* bytes: superblock position on the hash device */
	uint8_t  uuid[16];
	uint16_t salt_size;
	uint8_t  salt[VERITY_MAX_SALT];
	bool     no_superblock;                   /* tree starts at hash_offset itself */
};


/* Decode and validate a 512-byte superblock. -EINVAL (bad magic/version/field) with err set.
 * hash_offset and no_superblock of *ret are left as the caller set them. */
int vi_sb_decode(const uint8_t buf[VERITY_SB_SIZE], struct vi_params *ret,
		     struct vi_error *err);

/* Encode params into 512 bytes exactly as veritysetup does (reserved bytes zero). */
int vi_sb_encode(const struct vi_params *p, uint8_t buf[VERITY_SB_SIZE],
		     struct vi_error *err);

/* Check a parameter set: algorithm known, block sizes powers of two in range, salt size,
 * data_blocks non-zero and data_blocks * data_block_size without 64-bit overflow. */
int vi_params_validate(const struct vi_params *p, struct vi_error *err);

/* A block size the kernel target and veritysetup take: a power of two from VERITY_MIN_BLOCK
 * to VERITY_MAX_BLOCK. */
bool vi_block_size_ok(uint64_t bs);

/* Digest size of a hash name the kernel's dm-verity accepts, 0 when unknown. */
unsigned vi_digest_size(const char *hash_name);

/* The kernel (6.1 dm-verity-target.c) also refuses block sizes above PAGE_SIZE and below the
 * devices' logical block size; veritysetup only warns. -EINVAL with err set when p cannot be
 * activated on a kernel whose page size is page_size. */
int vi_params_kernel_check(const struct vi_params *p, unsigned long page_size,
			       struct vi_error *err);

/* UUID as text, lowercase 8-4-4-4-12 (libuuid's uuid_unparse form); out has 37 bytes. */
void vi_uuid_format(const uint8_t uuid[16], char out[VERITY_UUID_STR_LEN + 1]);

/* Parse 8-4-4-4-12 hex text (either case) strictly. -EINVAL on any other form. */
int vi_uuid_parse(const char *s, uint8_t ret_uuid[16]);

#endif
