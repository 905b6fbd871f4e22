// SPDX-License-Identifier: LGPL-2.1-or-later
/* The tree engine on tiny images whose root hashes were computed with veritysetup 2.6.1 on the
 * same bytes (pattern() below, written to a file by a 3-line script), plus corruption
 * detection, chunk boundaries, thread counts and the AF_ALG backend. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "geometry.h"
#include "helpers.h"
#include "hex.h"
#include "tree.h"

static char dir[] = "/tmp/test_tree.XXXXXX";

static uint8_t pattern(uint64_t k)
{
	return (uint8_t)(k * 7 + (k >> 9) * 13 + (k >> 12));
}

/* A file of n pattern bytes, plus optional zero room up to total. */
static int make_data(const char *name, uint64_t n)
{
	char path[64];
	uint8_t *buf = malloc(n);
	int fd;

	assert_non_null(buf);
	for (uint64_t k = 0; k < n; k++)
		buf[k] = pattern(k);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
	free(buf);
	return fd;
}

static int make_empty(const char *name)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	return fd;
}

static struct vi_params params(const char *hash, uint32_t type, uint32_t dbs, uint32_t hbs,
				   uint64_t blocks, const char *salt_hex)
{
	struct vi_params p = ut_params(hash, type, dbs, hbs, blocks);
	size_t n = 0;

	assert_int_equal(vi_hex_decode(salt_hex, strlen(salt_hex), p.salt, sizeof(p.salt), &n), 0);
	p.salt_size = (uint16_t)n;
	for (int i = 0; i < 16; i++)
		p.uuid[i] = (uint8_t)(0x11 * (i + 1));
	return p;
}

#define S32 "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

struct known {
	const char *what;
	const char *hash;
	uint32_t type, dbs, hbs;
	uint64_t bytes, blocks;
	const char *salt;
	const char *root;      /* from veritysetup */
};

static const struct known known[] = {
	{ "10x4096 sha256 salt ab", "sha256", 1, 4096, 4096, 40960, 10, "ab",
	  "71a21eb8bea5d174c949fe86cbbfae087fccca76e82d1aac90b6e22c65dadcea" },
	{ "10x4096 sha1 type 0 no salt", "sha1", 0, 4096, 4096, 40960, 10, "",
	  "72d9afc5130b3481079af4f2a4bd418c2e2c24e7" },
	{ "one block: root is its digest", "sha256", 1, 4096, 4096, 4096, 1, "",
	  "cb24261dcdd963d02a25e97f99dfaeed58c8e9b1a16602be635b14ad029b11e2" },
	{ "130x512 sha512 512/512 3 levels", "sha512", 1, 512, 512, 66560, 130, S32,
	  "995b8f3858a1e7121f0395a85f3d5ee23eb92397f63971483b74f483e53fb0a6"
	  "700b4d5347011408e67e1455c159427b381e665bd7e02e833eec48bd97b83ae7" },
	{ "130x512 sha256 type 0 hash 1024", "sha256", 0, 512, 1024, 66560, 130, S32,
	  "f6e565a498b04524c9183e38cb7783facccb8c03b9e57f0c1803542d44d660f5" },
	{ "1074x1024 into 4096 hash blocks", "sha256", 1, 1024, 4096, 1100000, 1074, "0102",
	  "23a76aaa085b502ac1c800793df4237461db602e4c9b847996ddbb74c6c805e0" },
};

static void build_and_check(const struct known *k, unsigned threads, size_t chunk)
{
	struct vi_params p = params(k->hash, k->type, k->dbs, k->hbs, k->blocks, k->salt);
	struct vi_tree_opts o = { .ops = &vi_digest_openssl_ops, .threads = threads,
				      .chunk_size = chunk };
	struct vi_error err = { "" };
	struct vi_bad bad;
	uint8_t root[VERITY_MAX_DIGEST], want[VERITY_MAX_DIGEST];
	unsigned ds = vi_digest_size(k->hash);
	int dfd = make_data("data", k->bytes), hfd = make_empty("hash");

	print_message("%s, %u threads, chunk %zu\n", k->what, threads, chunk);
	assert_int_equal(vi_hex_decode_exact(k->root, want, ds), 0);
	assert_int_equal(vi_tree_build(dfd, hfd, &p, &o, root, sizeof(root), &err), 0);
	assert_memory_equal(root, want, ds);
	assert_int_equal(vi_tree_verify(dfd, hfd, &p, root, ds, &o, &bad, &err), 0);
	assert_int_equal(bad.kind, VERITY_BAD_NONE);
	close(dfd);
	close(hfd);
}

static void test_known_roots(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		build_and_check(&known[i], 0, 0);
		/* Tiny chunks: every chunk boundary falls inside a hash block. */
		build_and_check(&known[i], 3, 3 * known[i].dbs);
		build_and_check(&known[i], 1, 1);
	}
}

static void test_hash_after_data(void **state)
{
	/* Same parameters as the 1074x1024 image, tree on the data file at 1101824: same root. */
	const struct known *k = &known[5];
	struct vi_params p = params(k->hash, k->type, k->dbs, k->hbs, k->blocks, k->salt);
	struct vi_tree_opts o = { .ops = &vi_digest_openssl_ops };
	struct vi_error err = { "" };
	struct vi_bad bad;
	uint8_t root[32], want[32], sb[VERITY_SB_SIZE];
	struct vi_params back;
	int fd = make_data("data", k->bytes);

	(void)state;
	assert_int_equal(vi_hex_decode_exact(k->root, want, 32), 0);
	p.hash_offset = 1101824;
	assert_int_equal(vi_tree_build(fd, fd, &p, &o, root, sizeof(root), &err), 0);
	assert_memory_equal(root, want, 32);
	assert_int_equal(pread(fd, sb, sizeof(sb), 1101824), (ssize_t)sizeof(sb));
	memset(&back, 0, sizeof(back));
	back.hash_offset = p.hash_offset;
	assert_int_equal(vi_sb_decode(sb, &back, &err), 0);
	assert_memory_equal(&back, &p, sizeof(p));
	assert_int_equal(vi_tree_verify(fd, fd, &p, root, 32, &o, &bad, &err), 0);

	/* Hash area inside the data on the same file: refused. */
	p.hash_offset = 4096;
	assert_int_equal(vi_tree_build(fd, fd, &p, &o, root, sizeof(root), &err), -EINVAL);
	assert_non_null(strstr(err.msg, "inside the data"));
	close(fd);
}

static void flip(int fd, uint64_t off)
{
	ut_flip(fd, off, 0x40);
}

static void test_corruption(void **state)
{
	/* 1074 data blocks of 1024, sha256 in 4096-byte hash blocks: 128 per block;
	 * level 0 = 9 blocks at hash blocks 2..10, level 1 = 1 block at hash block 1. */
	const struct known *k = &known[5];
	struct vi_params p = params(k->hash, k->type, k->dbs, k->hbs, k->blocks, k->salt);
	struct vi_tree_opts o = { .ops = &vi_digest_openssl_ops, .threads = 2,
				      .chunk_size = 64 * 1024 };
	struct vi_error err = { "" };
	struct vi_bad bad;
	uint8_t root[32];
	int dfd = make_data("data", k->bytes), hfd = make_empty("hash");

	(void)state;
	assert_int_equal(vi_tree_build(dfd, hfd, &p, &o, root, sizeof(root), &err), 0);

	/* Two bad data blocks: the first one is reported. */
	flip(dfd, 1000 * 1024 + 5);
	flip(dfd, 700 * 1024 + 1023);
	assert_int_equal(vi_tree_verify(dfd, hfd, &p, root, 32, &o, &bad, &err), -EPERM);
	assert_int_equal(bad.kind, VERITY_BAD_DATA);
	assert_int_equal(bad.index, 700);
	assert_int_equal(bad.offset, 700 * 1024);
	assert_non_null(strstr(err.msg, "data block 700"));
	flip(dfd, 1000 * 1024 + 5);
	flip(dfd, 700 * 1024 + 1023);

	/* A level-0 hash block: named as such, not as the data blocks it covers. */
	flip(hfd, 5 * 4096 + 77);
	assert_int_equal(vi_tree_verify(dfd, hfd, &p, root, 32, &o, &bad, &err), -EPERM);
	assert_int_equal(bad.kind, VERITY_BAD_HASH);
	assert_int_equal(bad.level, 0);
	assert_int_equal(bad.index, 3);
	assert_int_equal(bad.offset, 5 * 4096);
	flip(hfd, 5 * 4096 + 77);

	/* The top block (level 1). */
	flip(hfd, 1 * 4096 + 4000);
	assert_int_equal(vi_tree_verify(dfd, hfd, &p, root, 32, &o, &bad, &err), -EPERM);
	assert_int_equal(bad.kind, VERITY_BAD_HASH);
	assert_int_equal(bad.level, 1);
	assert_int_equal(bad.index, 0);
	flip(hfd, 1 * 4096 + 4000);

	/* Wrong root. */
	root[0] ^= 1;
	assert_int_equal(vi_tree_verify(dfd, hfd, &p, root, 32, &o, &bad, &err), -EPERM);
	assert_int_equal(bad.kind, VERITY_BAD_HASH);
	assert_int_equal(bad.level, 1);
	root[0] ^= 1;

	/* Truncated hash device: an I/O-class error, not a mismatch. */
	assert_int_equal(ftruncate(hfd, 10 * 4096), 0);
	assert_int_equal(vi_tree_verify(dfd, hfd, &p, root, 32, &o, &bad, &err), -EIO);
	assert_non_null(strstr(err.msg, "hash device has"));

	/* Data shorter than data_blocks. */
	assert_int_equal(ftruncate(dfd, 1073 * 1024), 0);
	assert_int_equal(vi_tree_build(dfd, hfd, &p, &o, root, sizeof(root), &err), -EIO);
	assert_non_null(strstr(err.msg, "data device has"));
	close(dfd);
	close(hfd);
}

static void test_dirty_padding(void **state)
{
	/* sha1 type 1: 20-byte digests in 32-byte slots; veritysetup wants the rest zero. */
	struct vi_params p = params("sha1", 1, 4096, 4096, 10, "");
	struct vi_tree_opts o = { .ops = &vi_digest_openssl_ops };
	struct vi_error err = { "" };
	struct vi_bad bad;
	uint8_t root[20], top[4096];
	int dfd = make_data("data", 40960), hfd = make_empty("hash");

	(void)state;
	p.no_superblock = true;
	assert_int_equal(vi_tree_build(dfd, hfd, &p, &o, root, sizeof(root), &err), 0);
	/* Dirty the padding of the single (top) block and re-derive a matching root: only the
	 * zero check can catch it. */
	flip(hfd, 25);
	assert_int_equal(pread(hfd, top, sizeof(top), 0), (ssize_t)sizeof(top));
	assert_int_equal(vi_hash_block(&vi_digest_openssl_ops, &p, top, sizeof(top), root,
					   sizeof(root)), 0);
	assert_int_equal(vi_tree_verify(dfd, hfd, &p, root, 20, &o, &bad, &err), -EPERM);
	assert_int_equal(bad.kind, VERITY_BAD_HASH);
	assert_int_equal(bad.level, 0);
	assert_non_null(strstr(err.msg, "non-zero unused bytes"));
	close(dfd);
	close(hfd);
}

static void test_hash_block_helper(void **state)
{
	/* Type 1 is H(salt || block), type 0 is H(block || salt): check against one-shot
	 * digests of the concatenations. */
	struct vi_params p = params("sha256", 1, 4096, 4096, 1, "abcd");
	uint8_t blk[8] = "blockXYZ", a[32], b[32], cat[10];
	struct vi_digest_ctx *c;

	(void)state;
	memcpy(cat, "\xab\xcd", 2);
	memcpy(cat + 2, blk, 8);
	assert_int_equal(vi_hash_block(&vi_digest_openssl_ops, &p, blk, 8, a, sizeof(a)), 0);
	assert_int_equal(vi_digest_openssl_ops.new_ctx("sha256", &c), 0);
	assert_int_equal(vi_digest_openssl_ops.update(c, cat, 10), 0);
	assert_int_equal(vi_digest_openssl_ops.final(c, b, sizeof(b)), 0);
	vi_digest_openssl_ops.free(c);
	assert_memory_equal(a, b, 32);

	p.hash_type = 0;
	memcpy(cat, blk, 8);
	memcpy(cat + 8, "\xab\xcd", 2);
	assert_int_equal(vi_hash_block(&vi_digest_openssl_ops, &p, blk, 8, a, sizeof(a)), 0);
	assert_int_equal(vi_digest_openssl_ops.new_ctx("sha256", &c), 0);
	assert_int_equal(vi_digest_openssl_ops.update(c, cat, 10), 0);
	assert_int_equal(vi_digest_openssl_ops.final(c, b, sizeof(b)), 0);
	vi_digest_openssl_ops.free(c);
	assert_memory_equal(a, b, 32);
	assert_int_equal(vi_hash_block(&vi_digest_openssl_ops, &p, blk, 8, a, 31), -ENOBUFS);
}

static void test_afalg(void **state)
{
	/* The agent's backend must give veritysetup's roots too (skipped without AF_ALG). */
	struct vi_digest_ctx *probe;
	int r = vi_digest_afalg_ops.new_ctx("sha256", &probe);

	(void)state;
	if (r < 0) {
		print_message("AF_ALG unavailable (%s): skipped\n", strerror(-r));
		skip();
	}
	vi_digest_afalg_ops.free(probe);
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		const struct known *k = &known[i];
		struct vi_params p = params(k->hash, k->type, k->dbs, k->hbs, k->blocks, k->salt);
		struct vi_tree_opts o = { .ops = &vi_digest_afalg_ops, .threads = 2 };
		struct vi_error err = { "" };
		uint8_t root[VERITY_MAX_DIGEST], want[VERITY_MAX_DIGEST];
		unsigned ds = vi_digest_size(k->hash);
		int dfd = make_data("data", k->bytes), hfd = make_empty("hash");

		assert_int_equal(vi_hex_decode_exact(k->root, want, ds), 0);
		assert_int_equal(vi_tree_build(dfd, hfd, &p, &o, root, sizeof(root), &err), 0);
		assert_memory_equal(root, want, ds);
		close(dfd);
		close(hfd);
	}
	/* Unknown algorithm: -ENOENT, no fd leak path crashes. */
	assert_int_equal(vi_digest_afalg_ops.new_ctx("nosuchhash", &probe), -ENOENT);
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
		cmocka_unit_test(test_known_roots),
		cmocka_unit_test(test_hash_after_data),
		cmocka_unit_test(test_corruption),
		cmocka_unit_test(test_dirty_padding),
		cmocka_unit_test(test_hash_block_helper),
		cmocka_unit_test(test_afalg),
	};
	return cmocka_run_group_tests_name("tree", tests, setup, teardown);
}
