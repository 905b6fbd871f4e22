/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shape of a dm-verity hash tree, computed exactly as the kernel (dm-verity-target.c, verity_ctr)
 * and cryptsetup (lib/verity/verity_hash.c) do. Levels are numbered from the bottom: level 0
 * holds the digests of the data blocks, level levels-1 is the single top block whose digest is
 * the root hash. On disk the top level comes first, right at the tree start. */
#ifndef VERITY_GEOMETRY_H
#define VERITY_GEOMETRY_H

#include <stdint.h>

#include "superblock.h"

#define VERITY_MAX_LEVELS 63u   /* DM_VERITY_MAX_LEVELS */

struct vi_geometry {
	unsigned digest_size;          /* bytes of one digest */
	unsigned hash_per_block_bits;  /* log2 of digests per hash block */
	unsigned hash_per_block;       /* 1 << hash_per_block_bits */
	unsigned digest_stride;        /* distance between digests in a hash block: digest_size
				        * (type 0) or the power-of-two slot (type 1) */
	unsigned levels;               /* 0 when there is a single data block: root = its digest */
	uint64_t tree_start;           /* first tree block, in hash blocks from the device start */
	uint64_t level_block[VERITY_MAX_LEVELS]; /* first block of each level, absolute */
	uint64_t level_size[VERITY_MAX_LEVELS];  /* blocks in each level */
	uint64_t hash_blocks;          /* tree blocks (sum of level sizes), "Hash blocks" in dump */
	uint64_t hash_end;             /* tree_start + hash_blocks: hash blocks the device needs */
	uint64_t hash_device_size;     /* hash_end * hash_block_size, bytes */
	uint64_t data_size;            /* data_blocks * data_block_size, bytes */
};

/* Tree start in hash blocks: with a superblock, the first hash-block boundary after its 512
 * bytes at hash_offset (VERITY_hash_offset_block); without one, hash_offset itself. */
uint64_t vi_tree_start(const struct vi_params *p);

/* Validate p and compute its geometry. -EINVAL with err set (bad params, > 63 levels,
 * 64-bit overflow of any offset). */
int vi_geometry_compute(const struct vi_params *p, struct vi_geometry *ret,
			    struct vi_error *err);

#endif
