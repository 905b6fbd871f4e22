// SPDX-License-Identifier: LGPL-2.1-or-later
/* The digest of one block as dm-verity computes it (blockhash.h): the salt before the block for
 * hash type 1, after it for type 0. The hasher keeps the salted state so that the tree engine
 * (tree.c) copies it per block instead of hashing the salt again; vi_hash_block is the one-off
 * form for a single block (the agent's root check, the signing tool). */
#include "blockhash.h"

#include <errno.h>
#include <string.h>

int vi_hasher_init(struct vi_hasher *h, const struct vi_digest_ops *ops, const struct vi_params *p,
		   unsigned ds)
{
	int r;

	memset(h, 0, sizeof(*h));
	h->ops = ops;
	h->ds = ds;
	r = ops->new_ctx(p->hash_name, &h->base);
	if (r < 0)
		return r;
	if (p->hash_type == 1 && p->salt_size) {
		r = ops->update(h->base, p->salt, p->salt_size);
		if (r < 0) {
			ops->free(h->base);
			h->base = NULL;
			return r;
		}
	} else if (p->hash_type == 0) {
		h->tail = p->salt;
		h->tail_len = p->salt_size;
	}
	return 0;
}

void vi_hasher_done(struct vi_hasher *h)
{
	if (h->base)
		h->ops->free(h->base);
	h->base = NULL;
}

int vi_hasher_block(const struct vi_hasher *h, struct vi_digest_ctx *work, const void *blk,
		    size_t len, uint8_t *out)
{
	int r;

	r = h->ops->copy(work, h->base);
	if (r < 0)
		return r;
	r = h->ops->update(work, blk, len);
	if (r < 0)
		return r;
	if (h->tail_len) {
		r = h->ops->update(work, h->tail, h->tail_len);
		if (r < 0)
			return r;
	}
	return h->ops->final(work, out, h->ds);
}

int vi_hash_block(const struct vi_digest_ops *ops, const struct vi_params *p,
		  const void *block, size_t len, uint8_t *out, size_t out_len)
{
	struct vi_digest_ctx *c = NULL;
	unsigned ds = vi_digest_size(p->hash_name);
	int r;

	if (!ds || p->salt_size > VERITY_MAX_SALT || p->hash_type > 1)
		return -EINVAL;
	if (out_len < ds)
		return -ENOBUFS;
	r = ops->new_ctx(p->hash_name, &c);
	if (r < 0)
		return r;
	if (p->hash_type == 1 && p->salt_size) {
		r = ops->update(c, p->salt, p->salt_size);
		if (r < 0)
			goto out_free;
	}
	r = ops->update(c, block, len);
	if (r < 0)
		goto out_free;
	if (p->hash_type == 0 && p->salt_size) {
		r = ops->update(c, p->salt, p->salt_size);
		if (r < 0)
			goto out_free;
	}
	r = ops->final(c, out, out_len);
out_free:
	ops->free(c);
	return r;
}

