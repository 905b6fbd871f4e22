// SPDX-License-Identifier: LGPL-2.1-or-later
/* Geometry against tables computed by hand from the kernel's verity_ctr arithmetic; the
 * "Hash blocks" / "Hash device size" columns were cross-checked with veritysetup 2.6.1. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "geometry.h"
#include "helpers.h"

static struct vi_params mk(const char *hash, uint32_t type, uint32_t dbs, uint32_t hbs,
			       uint64_t blocks, uint64_t off, bool nosb)
{
	struct vi_params p = ut_params(hash, type, dbs, hbs, blocks);

	p.hash_offset = off;
	p.no_superblock = nosb;
	p.salt_size = 32;
	return p;
}

struct row {
	const char *hash;
	uint32_t type, dbs, hbs;
	uint64_t blocks, off;
	bool nosb;
	/* expected */
	unsigned bits, stride, levels;
	uint64_t start;
	uint64_t size[6];      /* level_size[0..levels-1] */
	uint64_t hash_blocks, dev_size;
};

static const struct row rows[] = {
	/* 1,000,000-byte file, defaults (veritysetup: 3 hash blocks, 16384 bytes) */
	{ "sha256", 1, 4096, 4096, 244, 0, false, 7, 32, 2, 1, { 2, 1 }, 3, 16384 },
	/* same, no superblock: tree at block 0 (veritysetup: 12288 bytes) */
	{ "sha256", 1, 4096, 4096, 244, 0, true, 7, 32, 2, 0, { 2, 1 }, 3, 12288 },
	/* sha512, data 1024, hash 512 (veritysetup: 72704 bytes) */
	{ "sha512", 1, 1024, 512, 976, 0, false, 3, 64, 4, 1, { 122, 16, 2, 1 }, 141, 72704 },
	/* sha1 type 0: 204 digests fit, 128 used, packed at 20 bytes */
	{ "sha1", 0, 4096, 4096, 244, 0, false, 7, 20, 2, 1, { 2, 1 }, 3, 16384 },
	/* sha1 type 1: 32-byte slots */
	{ "sha1", 1, 4096, 4096, 244, 0, false, 7, 32, 2, 1, { 2, 1 }, 3, 16384 },
	/* one data block: no tree, root = digest of the block (veritysetup: 0 hash blocks) */
	{ "sha256", 1, 4096, 4096, 1, 0, false, 7, 32, 0, 1, { 0 }, 0, 4096 },
	/* exactly one fan-out: one level */
	{ "sha256", 1, 4096, 4096, 128, 0, false, 7, 32, 1, 1, { 1 }, 1, 8192 },
	/* one more: two levels */
	{ "sha256", 1, 4096, 4096, 129, 0, false, 7, 32, 2, 1, { 2, 1 }, 3, 16384 },
	/* hash after data: superblock at 1 MiB, tree at block 257 (veritysetup: 1064960) */
	{ "sha256", 1, 4096, 4096, 244, 1048576, false, 7, 32, 2, 257, { 2, 1 }, 3, 1064960 },
	/* superblock at an offset that is not block-aligned: next boundary after it */
	{ "sha256", 1, 4096, 4096, 244, 1536, false, 7, 32, 2, 1, { 2, 1 }, 3, 16384 },
	{ "sha256", 1, 4096, 4096, 244, 3584, false, 7, 32, 2, 1, { 2, 1 }, 3, 16384 },
	{ "sha256", 1, 4096, 4096, 244, 4096, false, 7, 32, 2, 2, { 2, 1 }, 3, 20480 },
	/* 2^40 blocks: six levels */
	{ "sha256", 1, 4096, 4096, UINT64_C(1) << 40, 0, false, 7, 32, 6, 1,
	  { UINT64_C(1) << 33, UINT64_C(1) << 26, UINT64_C(1) << 19, 4096, 32, 1 },
	  (UINT64_C(1) << 33) + (UINT64_C(1) << 26) + (UINT64_C(1) << 19) + 4096 + 32 + 1,
	  ((UINT64_C(1) << 33) + (UINT64_C(1) << 26) + (UINT64_C(1) << 19) + 4096 + 32 + 2) * 4096 },
	/* sha512 in 512-byte blocks, type 0: 8 per block, packed at 64 */
	{ "sha512", 0, 512, 512, 65, 0, true, 3, 64, 3, 0, { 9, 2, 1 }, 12, 6144 },
	/* data block != hash block the other way round */
	{ "sha256", 1, 512, 4096, 1000, 0, false, 7, 32, 2, 1, { 8, 1 }, 9, 40960 },
};

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *w = &rows[i];
		struct vi_params p = mk(w->hash, w->type, w->dbs, w->hbs, w->blocks, w->off,
					    w->nosb);
		struct vi_geometry g;
		struct vi_error err = { "" };
		uint64_t pos;

		print_message("row %zu\n", i);
		assert_int_equal(vi_geometry_compute(&p, &g, &err), 0);
		assert_int_equal(g.hash_per_block_bits, w->bits);
		assert_int_equal(g.digest_stride, w->stride);
		assert_int_equal(g.levels, w->levels);
		assert_int_equal(g.tree_start, w->start);
		assert_int_equal(g.hash_blocks, w->hash_blocks);
		assert_int_equal(g.hash_device_size, w->dev_size);
		/* Top level first, each level right after the one above it. */
		pos = w->start;
		for (int l = (int)w->levels - 1; l >= 0; l--) {
			assert_int_equal(g.level_size[l], w->size[l]);
			assert_int_equal(g.level_block[l], pos);
			pos += w->size[l];
		}
		assert_int_equal(g.hash_end, pos);
	}
}

static void test_rejects(void **state)
{
	struct vi_geometry g;
	struct vi_error err;
	struct vi_params p;

	(void)state;
	p = mk("sha256", 1, 4096, 4096, 0, 0, false);
	assert_int_equal(vi_geometry_compute(&p, &g, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "zero"));

	p = mk("sha256", 1, 4096, 4096, UINT64_MAX / 4096 + 1, 0, false);
	assert_int_equal(vi_geometry_compute(&p, &g, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "overflow"));

	/* Largest data size that fits: the tree offsets still must not wrap. */
	p = mk("sha256", 1, 512, 512, UINT64_MAX / 512, UINT64_MAX - 511 - 4095, false);
	p.hash_offset -= p.hash_offset % 512;
	assert_int_equal(vi_geometry_compute(&p, &g, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "overflow"));

	p = mk("md4", 1, 4096, 4096, 10, 0, false);
	assert_int_equal(vi_geometry_compute(&p, &g, &err), -EINVAL);

	p = mk("sha256", 1, 4096, 4096, 10, 4096 + 512, true);  /* tree not block-aligned */
	assert_int_equal(vi_geometry_compute(&p, &g, &err), -EINVAL);
}

static void test_tree_start(void **state)
{
	struct vi_params p = mk("sha256", 1, 4096, 512, 10, 0, false);

	(void)state;
	assert_int_equal(vi_tree_start(&p), 1);     /* superblock fills one 512-byte block */
	p.hash_offset = 512;
	assert_int_equal(vi_tree_start(&p), 2);
	p.hash_block_size = 1024;
	assert_int_equal(vi_tree_start(&p), 1);     /* 512 + 512 = 1024: exactly one block */
	p.no_superblock = true;
	p.hash_offset = 8192;
	assert_int_equal(vi_tree_start(&p), 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_tree_start),
	};
	return cmocka_run_group_tests_name("geometry", tests, NULL, NULL);
}
