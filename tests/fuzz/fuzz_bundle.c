// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: a manifest bundle (manifest + minisign signature, NUL-padded) as the agent
 * reads it from a partition or from the hash device after the tree — untrusted bytes — then the
 * full verification against a keyset holding one real test key. The input is a file of any
 * length (a bundle partition image is longer than the region), read with the function
 * `verity-image check-manifest --bundle` uses, vi_fileio_read_head, into a heap buffer of exactly
 * VI_BUNDLE_MAX bytes: a byte written past it is a heap-buffer-overflow. Oracles besides the
 * sanitizers:
 *  - the reader returns the file's first min(size, VI_BUNDLE_MAX) bytes, unchanged, and says
 *    whether more follow;
 *  - the split lies inside the bytes read: manifest first, then the signature;
 *  - verification succeeds only if the signature independently verifies with vi_minisign_verify
 *    for that key over exactly the manifest bytes, and the manifest parses to the same result
 *    with a version not below the floor. (The seeds include a bundle really signed by the key.) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fileio.h"
#include "manifest.h"
#include "minisign.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The key of tests/fuzz/corpus/minisign/pubkey (minisign -G). */
static const char test_pub[] =
	"untrusted comment: minisign public key CFF5BA0D34E8A7B0\n"
	"RWSwp+g0Dbr1z+7gXaTbu0t+4i40TN2boF5ENfC1CMkU5rqdoV17zZuo\n";

#define MIN_VERSION 2u

/* The input as a file: one memfd, rewritten for each input, opened by path as the tool opens
 * its SOURCE argument. */
static void input_file(const uint8_t *data, size_t size, char *path, size_t path_size)
{
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("fuzz_bundle", MFD_CLOEXEC);
		CHECK(fd >= 0);
	}
	CHECK(ftruncate(fd, 0) == 0);
	CHECK(size == 0 || pwrite(fd, data, size, 0) == (ssize_t)size);
	snprintf(path, path_size, "/proc/self/fd/%d", fd);
}

static void check_bundle(const char *buf, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], *buf;
	size_t len = 0;
	bool more = true;

	input_file(data, size, path, sizeof(path));
	buf = malloc(VI_BUNDLE_MAX);
	CHECK(buf);
	CHECK(vi_fileio_read_head(path, buf, VI_BUNDLE_MAX, &len, &more) == 0);
	CHECK(len == (size < VI_BUNDLE_MAX ? size : VI_BUNDLE_MAX));
	CHECK(more == (size > VI_BUNDLE_MAX));
	CHECK(len == 0 || memcmp(buf, data, len) == 0);
	check_bundle(buf, len);
	free(buf);
	return 0;
}

static void check_bundle(const char *buf, size_t size)
{
	static struct vi_keyset keys;
	static struct vi_manifest m, m2;
	static struct vi_minisign_sig sig;
	size_t man_len = 0, sig_off = 0, sig_len = 0;
	struct vi_error err;
	unsigned key = 99;

	if (vi_bundle_split(buf, size, &man_len, &sig_off, &sig_len, &err) < 0)
		return;
	CHECK(size <= VI_BUNDLE_MAX);
	CHECK(man_len <= sig_off && sig_off <= size && sig_len <= size - sig_off);

	memset(&keys, 0, sizeof(keys));
	keys.n = 1;
	CHECK(vi_minisign_pubkey_parse(test_pub, sizeof(test_pub) - 1, &keys.key[0], &err) == 0);
	memcpy(keys.file[0], "test.pub", sizeof("test.pub"));

	if (vi_manifest_verify(&keys, buf, man_len, buf + sig_off, sig_len, MIN_VERSION, &m, &key,
			       &err) < 0)
		return;
	/* Accepted: every step must hold on its own. */
	CHECK(key == 0);
	CHECK(vi_minisign_sig_parse(buf + sig_off, sig_len, &sig, &err) == 0);
	CHECK(vi_minisign_verify(&keys.key[0], &sig, (const uint8_t *)buf, man_len, false, &err) == 0);
	CHECK(vi_manifest_parse(buf, man_len, &m2, &err) == 0);
	CHECK(m2.version == m.version && m.version >= MIN_VERSION);
	CHECK(m2.root_hash_len == m.root_hash_len &&
	      memcmp(m2.root_hash, m.root_hash, m.root_hash_len) == 0);
}
