// SPDX-License-Identifier: LGPL-2.1-or-later
/* The AF_ALG digest backend inside a real kernel: build and verify the tiny images of
 * tests/unit/test_tree.c (roots from veritysetup 2.6.1) with vi_digest_afalg_ops on 2 threads, so
 * that dup/copy (accept() on an operation socket) are exercised, then corrupt one data block.
 * The host kernel of the development machine has no AF_ALG, so test_tree skips this; run it in
 * QEMU with run-in-qemu.sh. Runs as PID 1 and powers off. Prints AFALG-PASS or AFALG-FAIL n. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/reboot.h>
#include "hex.h"
#include "tree.h"
static uint8_t pattern(uint64_t k) { return (uint8_t)(k * 7 + (k >> 9) * 13 + (k >> 12)); }
struct known { const char *hash; uint32_t type, dbs, hbs; uint64_t bytes, blocks; const char *salt, *root; };
#define S32 "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
static const struct known known[] = {
	{ "sha256", 1, 4096, 4096, 40960, 10, "ab", "71a21eb8bea5d174c949fe86cbbfae087fccca76e82d1aac90b6e22c65dadcea" },
	{ "sha1", 0, 4096, 4096, 40960, 10, "", "72d9afc5130b3481079af4f2a4bd418c2e2c24e7" },
	{ "sha256", 1, 4096, 4096, 4096, 1, "", "cb24261dcdd963d02a25e97f99dfaeed58c8e9b1a16602be635b14ad029b11e2" },
	{ "sha512", 1, 512, 512, 66560, 130, S32, "995b8f3858a1e7121f0395a85f3d5ee23eb92397f63971483b74f483e53fb0a6700b4d5347011408e67e1455c159427b381e665bd7e02e833eec48bd97b83ae7" },
	{ "sha256", 0, 512, 1024, 66560, 130, S32, "f6e565a498b04524c9183e38cb7783facccb8c03b9e57f0c1803542d44d660f5" },
	{ "sha256", 1, 1024, 4096, 1100000, 1074, "0102", "23a76aaa085b502ac1c800793df4237461db602e4c9b847996ddbb74c6c805e0" },
};
int main(void) {
	int fails = 0;
	for (size_t i = 0; i < sizeof(known)/sizeof(known[0]); i++) {
		const struct known *k = &known[i];
		struct vi_params p; size_t n = 0; memset(&p, 0, sizeof(p));
		strcpy(p.hash_name, k->hash); p.hash_type = k->type; p.data_block_size = k->dbs; p.hash_block_size = k->hbs; p.data_blocks = k->blocks;
		vi_hex_decode(k->salt, strlen(k->salt), p.salt, sizeof(p.salt), &n); p.salt_size = n;
		uint8_t *b = malloc(k->bytes); for (uint64_t j = 0; j < k->bytes; j++) b[j] = pattern(j);
		int d = open("/d", O_RDWR|O_CREAT|O_TRUNC, 0600), h = open("/h", O_RDWR|O_CREAT|O_TRUNC, 0600);
		write(d, b, k->bytes); free(b);
		struct vi_tree_opts o = { .ops = &vi_digest_afalg_ops, .threads = 2, .chunk_size = 3 * k->dbs };
		struct vi_error err = { "" }; struct vi_bad bad;
		uint8_t root[64], want[64]; unsigned ds = vi_digest_size(k->hash);
		vi_hex_decode_exact(k->root, want, ds);
		int r = vi_tree_build(d, h, &p, &o, root, sizeof(root), &err);
		int ok = r == 0 && memcmp(root, want, ds) == 0;
		if (ok) ok = vi_tree_verify(d, h, &p, root, ds, &o, &bad, &err) == 0;
		if (ok) { uint8_t x = pattern(k->bytes / 2) ^ 0xff; pwrite(d, &x, 1, k->bytes / 2); ok = vi_tree_verify(d, h, &p, root, ds, &o, &bad, &err) == -EPERM && bad.kind == VERITY_BAD_DATA; }
		printf("AFALG case %zu %s: %s (r=%d %s)\n", i, k->hash, ok ? "ok" : "FAIL", r, err.msg);
		fails += !ok; close(d); close(h);
	}
	printf(fails ? "AFALG-FAIL %d\n" : "AFALG-PASS\n", fails);
	fflush(stdout); sync();
	if (getpid() == 1) reboot(RB_POWER_OFF);
	return fails != 0;
}
