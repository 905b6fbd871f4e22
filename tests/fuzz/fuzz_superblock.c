// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the on-disk verity superblock (untrusted: it comes from the hash device).
 * Input: 512 bytes of superblock (shorter inputs are zero-padded), then optionally 8 bytes of
 * hash offset. Oracles besides the sanitizers:
 *  - a superblock that decodes re-encodes to the very same 512 bytes (strict decoding);
 *  - when the geometry of a decoded superblock computes, the tree shape is self-consistent
 *    (each level covers the one below, one top block, end = start + blocks, no wrap-around). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "geometry.h"
#include "superblock.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return a / b + ((a % b) ? 1 : 0);
}

static void check_geometry(const struct vi_params *p)
{
	struct vi_geometry g;
	struct vi_error err;
	uint64_t sum = 0;

	memset(&err, 0x55, sizeof(err));
	if (vi_geometry_compute(p, &g, &err) < 0) {
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		return;
	}
	CHECK(g.levels <= VERITY_MAX_LEVELS);
	CHECK(g.hash_per_block >= 2 && g.hash_per_block * g.digest_size <= p->hash_block_size);
	CHECK(g.data_size == p->data_blocks * p->data_block_size);
	for (unsigned i = 0; i < g.levels; i++) {
		uint64_t below = i == 0 ? p->data_blocks : g.level_size[i - 1];

		CHECK(g.level_size[i] == div_up(below, g.hash_per_block));
		CHECK(g.level_block[i] >= g.tree_start && g.level_block[i] < g.hash_end);
		if (i + 1 < g.levels)
			CHECK(g.level_block[i + 1] + g.level_size[i + 1] == g.level_block[i]);
		sum += g.level_size[i];
	}
	if (g.levels)
		CHECK(g.level_size[g.levels - 1] == 1 && g.level_block[g.levels - 1] == g.tree_start);
	else
		CHECK(p->data_blocks == 1);
	CHECK(sum == g.hash_blocks);
	CHECK(g.hash_end == g.tree_start + g.hash_blocks);
	CHECK(g.hash_device_size / p->hash_block_size == g.hash_end);
	/* The tree never starts inside the superblock. */
	if (!p->no_superblock)
		CHECK(g.tree_start * p->hash_block_size >= p->hash_offset + VERITY_SB_SIZE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t sb[VERITY_SB_SIZE] = { 0 };
	uint8_t again[VERITY_SB_SIZE];
	struct vi_params p;
	struct vi_error err;
	uint64_t off = 0;

	memcpy(sb, data, size < sizeof(sb) ? size : sizeof(sb));
	if (size >= sizeof(sb) + sizeof(off))
		memcpy(&off, data + sizeof(sb), sizeof(off));

	memset(&p, 0, sizeof(p));
	p.hash_offset = off & ~UINT64_C(511);
	memset(&err, 0x55, sizeof(err));
	if (vi_sb_decode(sb, &p, &err) < 0) {
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		return 0;
	}
	CHECK(p.salt_size <= VERITY_MAX_SALT);
	CHECK(vi_digest_size(p.hash_name) != 0);

	CHECK(vi_sb_encode(&p, again, &err) == 0);
	CHECK(memcmp(sb, again, sizeof(sb)) == 0);

	check_geometry(&p);
	p.no_superblock = true;
	p.hash_offset -= p.hash_offset % p.hash_block_size;
	check_geometry(&p);
	(void)vi_params_kernel_check(&p, 4096, &err);
	return 0;
}
