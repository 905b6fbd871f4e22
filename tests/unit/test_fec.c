// SPDX-License-Identifier: LGPL-2.1-or-later
/* FEC: geometry against hand-computed cases (the "FEC blocks" figures were cross-checked with
 * veritysetup 2.6.1's report), the RS encoder against the algebra (every codeword vanishes at
 * the generator's roots, checked with a GF(2^8) written here independently of lib/format/rs.c), the
 * streaming encoder against a one-block-at-a-time reference using the kernel's interleave
 * formula, known FEC areas written by veritysetup 2.6.1, verification, and refusals. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "digest.h"
#include "fec.h"
#include "geometry.h"
#include "helpers.h"
#include "hex.h"
#include "rs.h"
#include "tree.h"

static char dir[] = "/tmp/test_fec.XXXXXX";

/* ---- an independent GF(2^8): shift-and-add multiplication modulo 0x11d ------------------ */

static uint8_t gmul(uint8_t a, uint8_t b)
{
	unsigned p = 0, x = a;

	for (; b; b >>= 1) {
		if (b & 1)
			p ^= x;
		x <<= 1;
		if (x & 0x100)
			x ^= 0x11d;
	}
	return (uint8_t)p;
}

/* c(a) for c[0] x^(n-1) + ... + c[n-1] (Horner). */
static uint8_t eval(const uint8_t *c, size_t n, uint8_t a)
{
	uint8_t r = 0;

	for (size_t i = 0; i < n; i++)
		r = (uint8_t)(gmul(r, a) ^ c[i]);
	return r;
}

/* ---- files ---------------------------------------------------------------------------- */

static uint8_t pattern(uint64_t k)
{
	return (uint8_t)(k * 7 + (k >> 9) * 13 + (k >> 12));
}

static int make_file(const char *name, uint64_t n, unsigned seed)
{
	char path[64];
	uint8_t *buf = malloc(n ? n : 1);
	int fd;

	assert_non_null(buf);
	for (uint64_t k = 0; k < n; k++)
		buf[k] = seed ? (uint8_t)(pattern(k) * seed + (k >> 3)) : pattern(k);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
	free(buf);
	return fd;
}

/* one corrupted byte; a second flip at the same place undoes it */
static void flip(int fd, uint64_t off)
{
	ut_flip(fd, off, 0x21);
}

/* ---- geometry --------------------------------------------------------------------------- */

struct grow {
	uint64_t data_blocks;
	uint32_t bs;
	uint64_t hash_start, hash_blocks;
	unsigned roots;
	/* expected */
	uint64_t blocks, rounds, parity_blocks, size;
};

static const struct grow grows[] = {
	/* 1000 x 4096, sha256 tree of 9 blocks after the superblock (veritysetup: FEC blocks 8,
	 * FEC device size 32768): 1009 blocks, 253 per round -> 4 rounds */
	{ 1000, 4096, 1, 9, 2, 1009, 4, 8, 32768 },
	{ 1000, 4096, 1, 9, 5, 1009, 5, 25, 102400 },     /* rsn 250 (veritysetup: 25) */
	{ 1000, 4096, 1, 9, 24, 1009, 5, 120, 491520 },   /* rsn 231 (veritysetup: 120) */
	/* a 200000-byte hash file: 48 blocks, 47 after the superblock (veritysetup: 10) */
	{ 1000, 4096, 1, 47, 2, 1047, 5, 10, 40960 },
	/* one data block, no tree (veritysetup: FEC blocks 2, 8192 bytes) */
	{ 1, 4096, 1, 0, 2, 1, 1, 2, 8192 },
	/* exactly three rounds of rsn = 253, then one more block */
	{ 700, 512, 0, 59, 2, 759, 3, 6, 3072 },
	{ 700, 512, 0, 60, 2, 760, 4, 8, 4096 },
	/* 300 x 512, tree of 22 blocks (veritysetup: 4 / 6 / 48 FEC blocks for roots 2 / 3 / 24) */
	{ 300, 512, 1, 22, 2, 322, 2, 4, 2048 },
	{ 300, 512, 1, 22, 3, 322, 2, 6, 3072 },
	{ 300, 512, 1, 22, 24, 322, 2, 48, 24576 },
};

static void test_geometry(void **state)
{
	struct vi_error err = { "" };

	(void)state;
	for (size_t i = 0; i < sizeof(grows) / sizeof(grows[0]); i++) {
		const struct grow *r = &grows[i];
		struct vi_fec_geometry g;

		print_message("row %zu\n", i);
		assert_int_equal(vi_fec_geometry_compute(r->data_blocks, r->bs, r->hash_start,
							     r->hash_blocks, r->roots, &g, &err), 0);
		assert_int_equal(g.rsn, 255 - r->roots);
		assert_int_equal(g.blocks, r->blocks);
		assert_int_equal(g.rounds, r->rounds);
		assert_int_equal(g.rs_blocks, r->rounds * r->bs);
		assert_int_equal(g.parity_blocks, r->parity_blocks);
		assert_int_equal(g.size, r->size);
		assert_int_equal(g.hash_start, r->hash_start);
		/* every input block has a stripe slot, and no round is wasted */
		assert_true(g.rounds * g.rsn >= g.blocks);
		assert_true((g.rounds - 1) * g.rsn < g.blocks);
	}
}

static void test_geometry_refusals(void **state)
{
	struct vi_fec_geometry g;
	struct vi_error err = { "" };

	(void)state;
	assert_int_equal(vi_fec_geometry_compute(10, 4096, 1, 1, 1, &g, &err), -EINVAL);
	assert_string_equal(err.msg, "FEC roots 1 out of range (2 to 24 parity bytes)");
	assert_int_equal(vi_fec_geometry_compute(10, 4096, 1, 1, 25, &g, &err), -EINVAL);
	assert_string_equal(err.msg, "FEC roots 25 out of range (2 to 24 parity bytes)");
	assert_int_equal(vi_fec_geometry_compute(10, 4096, 1, 1, 0, &g, &err), -EINVAL);
	assert_int_equal(vi_fec_geometry_compute(10, 1000, 1, 1, 2, &g, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "power of two"));
	assert_int_equal(vi_fec_geometry_compute(0, 4096, 1, 1, 2, &g, &err), -EINVAL);
	assert_string_equal(err.msg, "FEC needs at least one data block");
	/* 64-bit overflow: of the input size, of the block count, of the hash device offset */
	assert_int_equal(vi_fec_geometry_compute(UINT64_MAX / 4096 + 1, 4096, 1, 0, 2, &g,
						     &err), -EINVAL);
	assert_non_null(strstr(err.msg, "overflows 64 bits"));
	assert_int_equal(vi_fec_geometry_compute(2, 4096, 1, UINT64_MAX - 1, 2, &g, &err),
			 -EINVAL);
	assert_int_equal(vi_fec_geometry_compute(2, 4096, UINT64_MAX / 4096, 1, 2, &g, &err),
			 -EINVAL);
	/* padded stripes: rounds × rsn × block size must fit too */
	assert_int_equal(vi_fec_geometry_compute(UINT64_MAX / 4096, 4096, 0, 0, 24, &g, &err),
			 -EINVAL);
	/* the largest that fits */
	assert_int_equal(vi_fec_geometry_compute(UINT64_MAX / 4096 / 256, 4096, 0, 0, 24, &g,
						     &err), 0);
}

static void test_hash_blocks(void **state)
{
	struct vi_error err = { "" };
	uint64_t n = 0;

	(void)state;
	/* own device: all of it from the tree start, in whole blocks */
	assert_int_equal(vi_fec_hash_blocks(40960, false, 4096, 1, 9, &n, &err), 0);
	assert_int_equal(n, 9);
	assert_int_equal(vi_fec_hash_blocks(200000, false, 4096, 1, 9, &n, &err), 0);
	assert_int_equal(n, 47);
	assert_int_equal(vi_fec_hash_blocks(0, false, 4096, 0, 0, &n, &err), 0);
	assert_int_equal(n, 0);
	/* shared with the FEC area: up to it */
	assert_int_equal(vi_fec_hash_blocks(40960, true, 4096, 1, 9, &n, &err), 0);
	assert_int_equal(n, 9);
	assert_int_equal(vi_fec_hash_blocks(65536 + 512, true, 4096, 1, 9, &n, &err), 0);
	assert_int_equal(n, 15);
	/* less than the tree */
	assert_int_equal(vi_fec_hash_blocks(36864, true, 4096, 1, 9, &n, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "overlaps the hash area"));
	assert_int_equal(vi_fec_hash_blocks(0, true, 4096, 1, 9, &n, &err), -EINVAL);
	assert_int_equal(vi_fec_hash_blocks(8192, false, 4096, 1, 9, &n, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "ends before the tree"));
	assert_int_equal(n, 15);   /* untouched on failure */
}

/* ---- the RS code ------------------------------------------------------------------------ */

static void test_rs_known(void **state)
{
	struct vi_rs rs;
	uint8_t msg[253], par[24];

	(void)state;
	assert_int_equal(vi_rs_init(&rs, 1), -EINVAL);
	assert_int_equal(vi_rs_init(&rs, 25), -EINVAL);

	/* The message "1" (last symbol): parity = x^roots mod g(x) = g(x) - x^roots.
	 * roots 2: g = (x + 1)(x + 2) = x^2 + 3x + 2.
	 * roots 3: g × (x + 4) = x^3 + 7x^2 + 14x + 8 (3 × 4 = 12, 2 × 4 = 8 in GF(2^8)). */
	assert_int_equal(vi_rs_init(&rs, 2), 0);
	memset(msg, 0, sizeof(msg));
	msg[252] = 1;
	vi_rs_encode(&rs, msg, par);
	assert_int_equal(par[0], 3);
	assert_int_equal(par[1], 2);
	assert_int_equal(vi_rs_init(&rs, 3), 0);
	msg[252] = 0;
	msg[251] = 1;
	vi_rs_encode(&rs, msg, par);
	assert_int_equal(par[0], 7);
	assert_int_equal(par[1], 14);
	assert_int_equal(par[2], 8);
	/* zero in, zero out */
	memset(msg, 0, sizeof(msg));
	memset(par, 0xff, sizeof(par));
	vi_rs_encode(&rs, msg, par);
	assert_int_equal(par[0] | par[1] | par[2], 0);
}

static void test_rs_codewords(void **state)
{
	static const unsigned roots_list[] = { 2, 3, 7, 8, 9, 11, 16, 17, 23, 24 };
	uint64_t x = 0x9e3779b97f4a7c15u;

	(void)state;
	for (size_t t = 0; t < sizeof(roots_list) / sizeof(roots_list[0]); t++) {
		unsigned roots = roots_list[t], rsn = 255 - roots;
		struct vi_rs rs;
		uint8_t cw[255];

		assert_int_equal(vi_rs_init(&rs, roots), 0);
		for (int rep = 0; rep < 20; rep++) {
			uint8_t a = 1;   /* alpha^0 */

			for (unsigned i = 0; i < rsn; i++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				cw[i] = (uint8_t)(rep == 0 ? 0xff : rep == 1 ? (i == 0) : x);
			}
			vi_rs_encode(&rs, cw, cw + rsn);
			/* systematic: message || parity is a codeword, c(alpha^i) = 0 for each root */
			for (unsigned i = 0; i < roots; i++) {
				assert_int_equal(eval(cw, 255, a), 0);
				a = gmul(a, 2);
			}
			/* one wrong symbol anywhere shows at every root */
			cw[rep * 11 % 255] ^= 0x5a;
			assert_int_not_equal(eval(cw, 255, 1), 0);
			assert_int_not_equal(eval(cw, 255, 2), 0);
		}
	}
}

/* Side by side (the streaming layout: message byte i of block b at rows[i × stride + b]) gives
 * each block the parity it gets alone. */
static void test_rs_encode_cols(void **state)
{
	static const unsigned roots_list[] = { 2, 8, 9, 17, 24 };
	enum { N = 5, STRIDE = 7 };
	uint8_t rows[255 * STRIDE], msg[255], par[N * 24], one[24];
	uint64_t st[N * 3];

	(void)state;
	for (size_t i = 0; i < sizeof(rows); i++)
		rows[i] = (uint8_t)(i * 37 + 11);
	for (size_t t = 0; t < sizeof(roots_list) / sizeof(roots_list[0]); t++) {
		unsigned roots = roots_list[t], rsn = 255 - roots;
		struct vi_rs rs;

		assert_int_equal(vi_rs_init(&rs, roots), 0);
		vi_rs_encode_cols(&rs, rows, STRIDE, N, st, par);
		for (unsigned b = 0; b < N; b++) {
			for (unsigned i = 0; i < rsn; i++)
				msg[i] = rows[i * STRIDE + b];
			vi_rs_encode(&rs, msg, one);
			assert_memory_equal(one, par + b * roots, roots);
		}
	}
}

static uint64_t xs_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static bool is_codeword(const uint8_t *cw, unsigned roots)
{
	uint8_t a = 1;

	for (unsigned i = 0; i < roots; i++, a = gmul(a, 2))
		if (eval(cw, 255, a) != 0)
			return false;
	return true;
}

/* Up to roots / 2 errors anywhere (message or parity) are corrected exactly; whatever the
 * damage, the decoder either refuses and leaves the block alone or returns a codeword. */
static void test_rs_decode(void **state)
{
	static const unsigned roots_list[] = { 2, 3, 5, 8, 11, 16, 24 };
	uint64_t x = 0x2545f4914f6cdd1du;

	(void)state;
	for (size_t t = 0; t < sizeof(roots_list) / sizeof(roots_list[0]); t++) {
		unsigned roots = roots_list[t], rsn = 255 - roots;
		struct vi_rs rs;
		uint8_t good[255], cw[255], before[255];

		assert_int_equal(vi_rs_init(&rs, roots), 0);
		for (int rep = 0; rep < 200; rep++) {
			unsigned nerr = (unsigned)(rep % (roots / 2 + 1));
			bool used[255] = { false };
			int r;

			for (unsigned i = 0; i < rsn; i++)
				good[i] = (uint8_t)xs_next(&x);
			vi_rs_encode(&rs, good, good + rsn);
			memcpy(cw, good, sizeof(cw));
			for (unsigned e = 0; e < nerr; e++) {
				unsigned p;

				do
					p = (unsigned)(xs_next(&x) % 255);
				while (used[p]);
				used[p] = true;
				cw[p] ^= (uint8_t)(1 + xs_next(&x) % 255);
			}
			assert_int_equal(vi_rs_decode(&rs, cw), (int)nerr);
			assert_memory_equal(cw, good, sizeof(cw));

			/* roots / 2 + 1 .. 255 errors, or pure garbage: refused or a codeword */
			nerr = roots / 2 + 1 + (unsigned)(xs_next(&x) % (255 - roots / 2));
			for (unsigned e = 0; e < nerr; e++)
				cw[xs_next(&x) % 255] ^= (uint8_t)(1 + xs_next(&x) % 255);
			memcpy(before, cw, sizeof(cw));
			r = vi_rs_decode(&rs, cw);
			if (r < 0) {
				assert_int_equal(r, -EBADMSG);
				assert_memory_equal(cw, before, sizeof(cw));
			} else {
				assert_true(r <= (int)roots);
				assert_true(is_codeword(cw, roots));
			}
		}
	}
}

/* The answers of veritysetup 2.6.1 (cryptsetup's decode_rs_char: "Found N repairable
 * errors") for errors of value 1 in the first symbols of an RS block with 5 roots, whatever
 * the data: 3 errors "corrected" as 3 and 4 as 2 (both another codeword: the distance is 6),
 * 5 refused. dm-verity's hash check after a repair is what catches these. */
static void test_rs_decode_as_veritysetup(void **state)
{
	static const struct { unsigned nerr; int want; } cases[] = {
		{ 1, 1 }, { 2, 2 }, { 3, 3 }, { 4, 2 }, { 5, -EBADMSG }, { 6, -EBADMSG },
		{ 10, -EBADMSG },
	};
	struct vi_rs rs;
	uint8_t good[255], cw[255];

	(void)state;
	assert_int_equal(vi_rs_init(&rs, 5), 0);
	for (unsigned i = 0; i < 250; i++)
		good[i] = (uint8_t)(i * 37 + 11);
	vi_rs_encode(&rs, good, good + 250);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		memcpy(cw, good, sizeof(cw));
		for (unsigned e = 0; e < cases[c].nerr; e++)
			cw[e] ^= 1;
		assert_int_equal(vi_rs_decode(&rs, cw), cases[c].want);
		if (cases[c].want < 0)
			continue;
		assert_true(is_codeword(cw, 5));
		/* within roots / 2 the right one; 3 and 4 errors here land on another codeword */
		if (cases[c].nerr <= 2)
			assert_memory_equal(cw, good, sizeof(cw));
		else
			assert_memory_not_equal(cw, good, sizeof(cw));
	}
	/* Where veritysetup and the kernel differ: roots 2, errors 1 and 2 in the first two
	 * symbols give S1 = 0, S0 != 0, a locator of length 1 that is the constant 1.
	 * cryptsetup's decoder returns 0 ("repairable", the block unchanged and no codeword);
	 * the kernel's, and this one, refuse it. */
	assert_int_equal(vi_rs_init(&rs, 2), 0);
	vi_rs_encode(&rs, good, good + 253);
	memcpy(cw, good, sizeof(cw));
	cw[0] ^= 1;
	cw[1] ^= 2;
	assert_int_equal(vi_rs_decode(&rs, cw), -EBADMSG);
}

/* ---- streaming over files --------------------------------------------------------------- */

/* Parity of every RS block computed one at a time, symbol positions from the kernel's
 * fec_interleave(): RS offset o = rsb × rsn + i lives at o / rsn + (o % rsn) × rounds × bs. */
static uint8_t *reference(const struct vi_fec_geometry *g, const uint8_t *data,
			  const uint8_t *hash)
{
	uint64_t dbytes = g->data_blocks * g->block_size, hbytes = g->hash_blocks * g->block_size;
	uint8_t *out = malloc(g->size), msg[253];
	struct vi_rs rs;

	assert_non_null(out);
	assert_int_equal(vi_rs_init(&rs, g->roots), 0);
	for (uint64_t rsb = 0; rsb < g->rs_blocks; rsb++) {
		for (unsigned i = 0; i < g->rsn; i++) {
			uint64_t o = rsb * g->rsn + i;
			uint64_t at = o / g->rsn + (o % g->rsn) * g->rounds * g->block_size;

			msg[i] = at < dbytes ? data[at] :
				 at - dbytes < hbytes ? hash[g->hash_start * g->block_size + at - dbytes] :
				 0;
		}
		vi_rs_encode(&rs, msg, out + rsb * g->roots);
	}
	return out;
}

static uint8_t *slurp(int fd, uint64_t off, uint64_t n)
{
	uint8_t *b = malloc(n ? n : 1);

	assert_non_null(b);
	assert_int_equal(pread(fd, b, n, (off_t)off), (ssize_t)n);
	return b;
}

static void test_stream_matches_reference(void **state)
{
	static const unsigned roots_list[] = { 2, 9, 24 };
	/* 700 data blocks of 512, then 50 hash blocks from hash block 3: 750 blocks */
	int dfd = make_file("data", 700 * 512 + 77, 0), hfd = make_file("hash", 60 * 512, 5);
	uint8_t *data = slurp(dfd, 0, 700 * 512), *hash = slurp(hfd, 0, 60 * 512);

	(void)state;
	for (size_t t = 0; t < sizeof(roots_list) / sizeof(roots_list[0]); t++) {
		struct vi_fec_geometry g;
		struct vi_error err = { "" };
		struct vi_fec_bad bad;
		uint8_t *want, *got;
		static const struct { unsigned threads; size_t window; } runs[] = {
			{ 1, 0 }, { 3, 7 }, { 2, 100 }, { 0, 1023 }, { 4, 5000 },
		};

		assert_int_equal(vi_fec_geometry_compute(700, 512, 3, 50, roots_list[t], &g,
							     &err), 0);
		want = reference(&g, data, hash);
		for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
			struct vi_fec_opts o = { .threads = runs[k].threads,
						     .window = runs[k].window };
			int ffd = make_file("fec", 0, 0);

			print_message("roots %u, %u threads, window %zu\n", roots_list[t],
				      runs[k].threads, runs[k].window);
			/* at an offset, after foreign bytes */
			assert_int_equal(vi_fec_encode(&g, dfd, hfd, ffd, 1024, &o, &err), 0);
			got = slurp(ffd, 1024, g.size);
			assert_memory_equal(got, want, g.size);
			free(got);
			assert_int_equal(vi_fec_verify(&g, dfd, hfd, ffd, 1024, &o, &bad, &err),
					 0);
			close(ffd);
		}
		free(want);
	}
	free(data);
	free(hash);
	close(dfd);
	close(hfd);
}

static void test_verify_mismatch(void **state)
{
	int dfd = make_file("data", 700 * 512, 0), hfd = make_file("hash", 60 * 512, 5);
	int ffd = make_file("fec", 0, 0);
	struct vi_fec_geometry g;
	struct vi_fec_opts o = { .threads = 2, .window = 300 };
	struct vi_error err = { "" };
	struct vi_fec_bad bad;
	uint64_t x;

	(void)state;
	assert_int_equal(vi_fec_geometry_compute(700, 512, 3, 50, 11, &g, &err), 0);
	assert_int_equal(vi_fec_encode(&g, dfd, hfd, ffd, 512, &o, &err), 0);

	/* Two wrong parity bytes: the first one is named, with its RS block. */
	flip(ffd, 512 + 2000 * 11 + 4);
	flip(ffd, 512 + 900 * 11 + 10);
	assert_int_equal(vi_fec_verify(&g, dfd, hfd, ffd, 512, &o, &bad, &err), -EPERM);
	assert_int_equal(bad.rsb, 900);
	assert_int_equal(bad.offset, 512 + 900 * 11 + 10);
	assert_false(bad.uncorrectable);
	assert_int_equal(bad.corrected, 2);
	assert_int_equal(bad.differ, 2);
	assert_string_equal(err.msg, "FEC parity of RS block 900 (byte 10422 of the FEC device) "
			    "does not match (2 parity bytes differ)");
	flip(ffd, 512 + 900 * 11 + 10);
	assert_int_equal(vi_fec_verify(&g, dfd, hfd, ffd, 512, &o, &bad, &err), -EPERM);
	assert_int_equal(bad.rsb, 2000);
	flip(ffd, 512 + 2000 * 11 + 4);
	assert_int_equal(vi_fec_verify(&g, dfd, hfd, ffd, 512, &o, &bad, &err), 0);

	/* Six wrong parity bytes in RS block 1500 are beyond 11 roots (this pattern does not
	 * decode: the result depends on the error pattern only), one in RS block 300 is not:
	 * the first block beyond repair is named. */
	flip(ffd, 512 + 300 * 11 + 1);
	for (unsigned b = 0; b < 6; b++)
		flip(ffd, 512 + 1500 * 11 + b);
	assert_int_equal(vi_fec_verify(&g, dfd, hfd, ffd, 512, &o, &bad, &err), -EPERM);
	assert_true(bad.uncorrectable);
	assert_int_equal(bad.rsb, 1500);
	assert_non_null(strstr(err.msg, "cannot be repaired"));
	flip(ffd, 512 + 300 * 11 + 1);
	for (unsigned b = 0; b < 6; b++)
		flip(ffd, 512 + 1500 * 11 + b);
	assert_int_equal(vi_fec_verify(&g, dfd, hfd, ffd, 512, &o, &bad, &err), 0);

	/* A changed input byte at input offset x belongs to RS block x mod (rounds × bs). */
	x = 123456;
	flip(dfd, x);
	assert_int_equal(vi_fec_verify(&g, dfd, hfd, ffd, 512, &o, &bad, &err), -EPERM);
	assert_int_equal(bad.rsb, x % g.rs_blocks);
	flip(dfd, x);
	/* The hash part of the input starts at hash block 3. */
	x = 700 * 512 + 1000;
	flip(hfd, 3 * 512 + 1000);
	assert_int_equal(vi_fec_verify(&g, dfd, hfd, ffd, 512, &o, &bad, &err), -EPERM);
	assert_int_equal(bad.rsb, x % g.rs_blocks);
	flip(hfd, 3 * 512 + 1000);
	/* Hash bytes outside the covered blocks do not matter. */
	flip(hfd, 1 * 512 + 3);
	flip(hfd, 53 * 512 + 3);
	assert_int_equal(vi_fec_verify(&g, dfd, hfd, ffd, 512, &o, &bad, &err), 0);

	/* A short FEC file is an I/O error, not a mismatch. */
	assert_int_equal(ftruncate(ffd, (off_t)(512 + g.size - 1)), 0);
	assert_int_equal(vi_fec_verify(&g, dfd, hfd, ffd, 512, &o, &bad, &err), -EIO);
	assert_non_null(strstr(err.msg, "FEC device has"));
	/* A short data file too. */
	assert_int_equal(vi_fec_encode(&g, dfd, hfd, ffd, 512, &o, &err), 0);
	assert_int_equal(ftruncate(dfd, 600 * 512), 0);
	assert_int_equal(vi_fec_encode(&g, dfd, hfd, ffd, 512, &o, &err), -EIO);
	assert_non_null(strstr(err.msg, "read of the data device failed"));
	close(dfd);
	close(hfd);
	close(ffd);
}

/* ---- against veritysetup, through vi_fec_layout -------------------------------------- */

#define S32 "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

static struct vi_params params300(void)
{
	struct vi_params p = ut_params("sha256", 1, 512, 512, 300);
	size_t n = 0;
	static const uint8_t uuid[16] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x47, 0x88,
					  0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00 };

	assert_int_equal(vi_hex_decode(S32, strlen(S32), p.salt, sizeof(p.salt), &n), 0);
	p.salt_size = (uint16_t)n;
	memcpy(p.uuid, uuid, sizeof(uuid));
	return p;
}

static void sha256_of(int fd, uint64_t off, uint64_t n, const char *want_hex)
{
	uint8_t *b = slurp(fd, off, n), got[32], want[32];
	struct vi_digest_ctx *c = NULL;

	assert_int_equal(vi_hex_decode_exact(want_hex, want, 32), 0);
	assert_int_equal(vi_digest_openssl_ops.new_ctx("sha256", &c), 0);
	assert_int_equal(vi_digest_openssl_ops.update(c, b, n), 0);
	assert_int_equal(vi_digest_openssl_ops.final(c, got, sizeof(got)), 0);
	vi_digest_openssl_ops.free(c);
	free(b);
	assert_memory_equal(got, want, 32);
}

static void test_veritysetup_known(void **state)
{
	/* `veritysetup format d h --data-block-size 512 --hash-block-size 512 --salt S32
	 * --uuid 11223344-5566-4788-99aa-bbccddeeff00 --fec-device f --fec-roots R` on 300 × 512
	 * pattern bytes (+ 100): root 2412e796..., sha256 of f. */
	static const struct { unsigned roots; uint64_t size; const char *sha; } k[] = {
		{ 2, 2048, "b62aa388648c047de85821ad4cf890b5c9c92f6e70f0bc1cdcc89187e1a64262" },
		{ 3, 3072, "27266623ce0b05799e37ec4d431e1c9cbe06d072047b2fe2161269f0f21bad2d" },
		{ 24, 24576, "b451708605df936cfabc1e8907da46a3759f0e670d5d7eaec3f1b366de1a0102" },
	};
	struct vi_params p = params300();
	struct vi_tree_opts to = { .ops = &vi_digest_openssl_ops };
	struct vi_fec_opts fo = { .threads = 2 };
	struct vi_error err = { "" };
	struct vi_geometry g;
	struct vi_fec_geometry fg;
	uint8_t root[32], want_root[32];
	bool on_hash = true;
	int dfd = make_file("data", 300 * 512 + 100, 0);

	(void)state;
	assert_int_equal(vi_hex_decode_exact("2412e796659e0fb9a0db714e0a99cc55f7d5cdb23676ead19479196e"
					  "8e945182", want_root, 32), 0);
	assert_int_equal(vi_geometry_compute(&p, &g, &err), 0);
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		int hfd = make_file("hash", 0, 0), ffd = make_file("fec", 0, 0);

		/* planned before the tree exists: the empty hash file counts as the tree's size */
		assert_int_equal(vi_fec_layout(dfd, hfd, ffd, &p, &g, 0, k[i].roots, &fg,
						   &on_hash, &err), 0);
		assert_false(on_hash);
		assert_int_equal(fg.hash_start, 1);
		assert_int_equal(fg.hash_blocks, 22);
		assert_int_equal(fg.size, k[i].size);
		assert_int_equal(vi_tree_build(dfd, hfd, &p, &to, root, sizeof(root), &err), 0);
		assert_memory_equal(root, want_root, 32);
		assert_int_equal(vi_fec_encode(&fg, dfd, hfd, ffd, 0, &fo, &err), 0);
		assert_int_equal(lseek(ffd, 0, SEEK_END), (off_t)k[i].size);
		sha256_of(ffd, 0, k[i].size, k[i].sha);
		close(hfd);
		close(ffd);
	}

	/* The same with --fec-device h --fec-offset 11776 --fec-roots 5: the parity right after
	 * the tree on the hash file (veritysetup: file of 16896 bytes). */
	{
		int hfd = make_file("hash", 0, 0);

		assert_int_equal(vi_fec_layout(dfd, hfd, hfd, &p, &g, 11776, 5, &fg, &on_hash,
						   &err), 0);
		assert_true(on_hash);
		assert_int_equal(fg.hash_blocks, 22);
		assert_int_equal(vi_tree_build(dfd, hfd, &p, &to, root, sizeof(root), &err), 0);
		assert_int_equal(vi_fec_encode(&fg, dfd, hfd, hfd, 11776, &fo, &err), 0);
		assert_int_equal(lseek(hfd, 0, SEEK_END), 16896);
		sha256_of(hfd, 11776, 5120,
			  "99f7a9036a15a54a10cf4c512960223eafcce82bdd6ac22ca88d27f0f17016fb");
		close(hfd);
	}
	close(dfd);
}

static void test_layout_refusals(void **state)
{
	struct vi_params p = params300();
	struct vi_error err = { "" };
	struct vi_geometry g;
	struct vi_fec_geometry fg;
	bool on_hash = false;
	int dfd = make_file("data", 300 * 512, 0), hfd = make_file("hash", 0, 0);
	int ffd = make_file("fec", 0, 0);

	(void)state;
	assert_int_equal(vi_geometry_compute(&p, &g, &err), 0);
	/* tree: hash blocks 1..22, hash area ends at byte 11776 */
	assert_int_equal(vi_fec_layout(dfd, hfd, ffd, &p, &g, 100, 2, &fg, &on_hash, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "FEC offset 100 is not a multiple of 512");
	assert_int_equal(vi_fec_layout(dfd, hfd, ffd, &p, &g, 0, 25, &fg, &on_hash, &err),
			 -EINVAL);
	assert_int_equal(vi_fec_layout(dfd, hfd, hfd, &p, &g, 11264, 2, &fg, &on_hash, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "FEC area at byte 11264 overlaps the hash area (ending at "
			    "byte 11776) on the same device");
	assert_int_equal(vi_fec_layout(dfd, hfd, dfd, &p, &g, 153088, 2, &fg, &on_hash, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "FEC area at byte 153088 lies inside the data (153600 bytes) "
			    "on the same device");
	/* right after the data on the data file: fine, hash blocks from the hash file */
	assert_int_equal(vi_fec_layout(dfd, hfd, dfd, &p, &g, 153600, 2, &fg, &on_hash, &err),
			 0);
	assert_false(on_hash);
	/* a hash file larger than the tree: all of it is covered, as veritysetup does */
	assert_int_equal(ftruncate(hfd, 40 * 512 + 100), 0);
	assert_int_equal(vi_fec_layout(dfd, hfd, ffd, &p, &g, 0, 2, &fg, &on_hash, &err), 0);
	assert_int_equal(fg.hash_blocks, 39);
	/* the FEC area further along the hash file: the gap is covered */
	assert_int_equal(vi_fec_layout(dfd, hfd, hfd, &p, &g, 65536, 2, &fg, &on_hash, &err),
			 0);
	assert_int_equal(fg.hash_blocks, 127);
	/* no data device known (dump) */
	assert_int_equal(vi_fec_layout(-1, hfd, ffd, &p, &g, 0, 2, &fg, &on_hash, &err), 0);
	/* block sizes */
	p.hash_block_size = 1024;
	assert_int_equal(vi_geometry_compute(&p, &g, &err), 0);
	assert_int_equal(vi_fec_layout(dfd, hfd, ffd, &p, &g, 0, 2, &fg, &on_hash, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "block sizes must match for FEC (data 512, hash 1024 bytes)");
	close(dfd);
	close(hfd);
	close(ffd);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return ut_rm_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_geometry),
		cmocka_unit_test(test_geometry_refusals),
		cmocka_unit_test(test_hash_blocks),
		cmocka_unit_test(test_rs_known),
		cmocka_unit_test(test_rs_codewords),
		cmocka_unit_test(test_rs_encode_cols),
		cmocka_unit_test(test_rs_decode),
		cmocka_unit_test(test_rs_decode_as_veritysetup),
		cmocka_unit_test(test_stream_matches_reference),
		cmocka_unit_test(test_verify_mismatch),
		cmocka_unit_test(test_veritysetup_known),
		cmocka_unit_test(test_layout_refusals),
	};
	return cmocka_run_group_tests_name("fec", tests, setup, teardown);
}
