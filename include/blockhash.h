/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The digest of one block as dm-verity computes it, on any digest backend (digest.h). Functions
 * return 0 or a negative errno. */
#ifndef VERITY_BLOCKHASH_H
#define VERITY_BLOCKHASH_H

#include <stddef.h>
#include <stdint.h>

#include "digest.h"
#include "superblock.h"

/* A digest state with the salt already in it (type 1), or the salt kept to append (type 0),
 * for hashing many blocks of one parameter set. */
struct vi_hasher {
	const struct vi_digest_ops *ops;
	struct vi_digest_ctx *base;   /* H after the salt (type 1), or fresh (type 0) */
	const uint8_t *tail;       /* type 0: salt appended after the block */
	size_t tail_len;
	unsigned ds;
};

/* Start a hasher for p's algorithm and salt, with digests of ds bytes. */
int vi_hasher_init(struct vi_hasher *h, const struct vi_digest_ops *ops, const struct vi_params *p,
		   unsigned ds);
void vi_hasher_done(struct vi_hasher *h);

/* The digest of blk[0..len) into out (ds bytes), computed in work, a context of h's algorithm
 * (from ops->dup) that is overwritten with h's salted state first. */
int vi_hasher_block(const struct vi_hasher *h, struct vi_digest_ctx *work, const void *blk,
		    size_t len, uint8_t *out);

/* Digest of one block as dm-verity computes it: H(salt || block) for hash type 1,
 * H(block || salt) for type 0. out_len must be at least the digest size. The agent uses this
 * for the root: the digest of the top hash block must equal the root hash. */
int vi_hash_block(const struct vi_digest_ops *ops, const struct vi_params *p,
		  const void *block, size_t len, uint8_t *out, size_t out_len);

#endif
