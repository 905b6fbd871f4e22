// SPDX-License-Identifier: LGPL-2.1-or-later
/* Root hash pre-flight: one block read, one digest. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preflight.h"
#include "blockhash.h"

int vi_preflight(int data_fd, int hash_fd, const struct vi_params *p,
		 const struct vi_geometry *g, const uint8_t *root_hash, unsigned root_hash_len,
		 const struct vi_digest_ops *ops, struct vi_error *err)
{
	uint8_t digest[VERITY_MAX_DIGEST];
	uint8_t *block;
	size_t bs;
	uint64_t off;
	ssize_t n;
	int fd, r;

	if (root_hash_len != g->digest_size || root_hash_len > sizeof(digest))
		return vi_err(err, "root hash has %u bytes, %s needs %u", root_hash_len,
			      p->hash_name, g->digest_size);
	if (g->levels == 0) {   /* a single data block: the root hash is its digest */
		fd = data_fd;
		bs = p->data_block_size;
		off = 0;
	} else {
		fd = hash_fd;
		bs = p->hash_block_size;
		off = g->level_block[g->levels - 1];
		if (off > UINT64_MAX / bs)
			return vi_err(err, "hash tree offset overflows");
		off *= bs;
	}
	block = malloc(bs);
	if (!block)
		return -ENOMEM;
	n = pread(fd, block, bs, (off_t)off);
	if (n != (ssize_t)bs) {
		r = n < 0 ? -errno : -EIO;
		r = vi_errno(err, -EIO, "cannot read the top hash block at byte %llu: %s",
			     (unsigned long long)off, n < 0 ? strerror(-r) : "short read");
		goto out;
	}
	r = vi_hash_block(ops, p, block, bs, digest, sizeof(digest));
	if (r < 0) {
		r = vi_errno(err, -ENOPROTOOPT, "kernel crypto cannot hash %s (%s)", p->hash_name,
			     strerror(-r));
		goto out;
	}
	if (memcmp(digest, root_hash, g->digest_size) != 0) {
		r = vi_errno(err, -EPERM, "root hash mismatch: the top of the hash tree does not "
			     "hash to the given root hash (wrong root hash, salt or hash offset, "
			     "or a tampered tree)");
		goto out;
	}
	r = 0;
out:
	free(block);
	return r;
}
