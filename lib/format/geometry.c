// SPDX-License-Identifier: LGPL-2.1-or-later
#include "geometry.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static unsigned log2_down(uint64_t x)
{
	unsigned b = 0;

	while (x >>= 1)
		b++;
	return b;
}

uint64_t vi_tree_start(const struct vi_params *p)
{
	if (p->no_superblock)
		return p->hash_offset / p->hash_block_size;
	/* (hash_offset + 512 + bs - 1) / bs, split so that it cannot overflow. */
	return p->hash_offset / p->hash_block_size +
	       (p->hash_offset % p->hash_block_size + VERITY_SB_SIZE + p->hash_block_size - 1) /
	       p->hash_block_size;
}

int vi_geometry_compute(const struct vi_params *p, struct vi_geometry *ret,
			struct vi_error *err)
{
	struct vi_geometry g;
	uint64_t pos;
	int r;

	r = vi_params_validate(p, err);
	if (r < 0)
		return r;

	memset(&g, 0, sizeof(g));
	g.digest_size = vi_digest_size(p->hash_name);
	g.hash_per_block_bits = log2_down(p->hash_block_size / g.digest_size);
	g.hash_per_block = 1u << g.hash_per_block_bits;
	g.digest_stride = p->hash_type == 0 ? g.digest_size
					    : p->hash_block_size >> g.hash_per_block_bits;
	g.data_size = p->data_blocks * p->data_block_size; /* validate() excluded overflow */

	/* Smallest number of levels whose fan-out covers every data block (kernel's loop). */
	while (g.hash_per_block_bits * g.levels < 64 &&
	       ((p->data_blocks - 1) >> (g.hash_per_block_bits * g.levels)))
		g.levels++;
	if (g.levels > VERITY_MAX_LEVELS)
		return vi_err(err, "hash tree would need %u levels (max %u)", g.levels,
			      VERITY_MAX_LEVELS);

	g.tree_start = vi_tree_start(p);
	pos = g.tree_start;
	for (int i = (int)g.levels - 1; i >= 0; i--) {
		unsigned shift = (unsigned)(i + 1) * g.hash_per_block_bits;
		uint64_t s;

		/* Blocks at level i: ceil(data_blocks / 2^shift), written to avoid overflow. */
		if (shift >= 64)
			s = 1;
		else
			s = (p->data_blocks >> shift) +
			    ((p->data_blocks & ((UINT64_C(1) << shift) - 1)) ? 1 : 0);
		g.level_block[i] = pos;
		g.level_size[i] = s;
		if (pos + s < pos)
			goto overflow;
		pos += s;
		g.hash_blocks += s;
	}
	g.hash_end = pos;
	if (g.hash_end > UINT64_MAX / p->hash_block_size)
		goto overflow;
	g.hash_device_size = g.hash_end * p->hash_block_size;

	*ret = g;
	return 0;

overflow:
	return vi_err(err, "hash tree position overflows 64 bits");
}
