/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Build and verify a dm-verity hash tree. Streaming: the data is read in chunks by a pool of
 * threads and never held whole; memory use depends on the thread count and chunk size only.
 * Functions return 0 or a negative errno (-EINVAL bad parameters, -EIO I/O error or short
 * device, -EPERM verification mismatch), with err set. */
#ifndef VERITY_TREE_H
#define VERITY_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blockhash.h"   /* vi_hash_block: the digest the tree is made of */
#include "digest.h"
#include "superblock.h"

struct vi_tree_opts {
	const struct vi_digest_ops *ops;
	unsigned threads;        /* 0: all online CPUs */
	size_t chunk_size;       /* bytes read per worker step; 0: default (2 MiB) */
	/* Called from the calling thread about 5 times a second, and once at the end. */
	void (*progress)(void *userdata, uint64_t done_bytes, uint64_t total_bytes);
	void *userdata;
};

enum vi_bad_kind {
	VERITY_BAD_NONE = 0,
	VERITY_BAD_DATA,         /* data block index is wrong */
	VERITY_BAD_HASH,         /* hash block (level, index) is wrong; level 0 is the bottom */
};

struct vi_bad {
	enum vi_bad_kind kind;
	unsigned level;          /* VERITY_BAD_HASH: level, counted from the bottom */
	uint64_t index;          /* data block number, or block number within the level */
	uint64_t offset;         /* byte offset of that block on its device */
};

/* Write the superblock (unless p->no_superblock) and the hash tree for data_fd's first
 * p->data_blocks blocks to hash_fd (which may be the same file as data_fd), and return the
 * root digest in root (root_len >= digest size). */
int vi_tree_build(int data_fd, int hash_fd, const struct vi_params *p,
		      const struct vi_tree_opts *o, uint8_t *root, size_t root_len,
		      struct vi_error *err);

/* Check every hash block top-down from the root, then every data block. -EPERM with *bad
 * naming the first wrong block in that order (a wrong block in a higher level is reported
 * before anything below it, since it explains the mismatches there); 0 if all match. Unused
 * bytes of hash blocks must be zero, as veritysetup requires. */
int vi_tree_verify(int data_fd, int hash_fd, const struct vi_params *p,
		       const uint8_t *root, size_t root_len, const struct vi_tree_opts *o,
		       struct vi_bad *bad, struct vi_error *err);

#endif
