// SPDX-License-Identifier: LGPL-2.1-or-later
/* `verity-image sign`, path 2 of docs/signing.md (image-manifest.h): the manifest of the image
 * (lib/config/manifest.c) signed with a minisign key, written as MANIFEST + MANIFEST.minisig
 * and/or as a bundle (a file for a partition, or on the hash device right after the tree, where
 * it must leave the data, the tree and everything FEC covers alone). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "fec.h"
#include "fileio.h"
#include "image-io.h"
#include "image-manifest.h"
#include "manifest.h"
#include "minisign.h"
#include "prog.h"

/* Whether [a, a + alen) and [b, b + blen) share a byte. */
static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/* The bundle region [off, off + VI_BUNDLE_MAX) on the hash device, laid out as the manifest m
 * says: it must leave alone the data (when the hash area shares the data device), the tree,
 * the FEC parity area and every byte the parity covers. dm-verity's FEC covers the hash device
 * from the tree's start up to the parity area when both share a device, else up to the hash
 * device's end (lib/format/fec.c, vi_fec_hash_blocks): either way the region right after the
 * tree is covered or is the parity itself, so an embedded bundle and FEC exclude each other. A
 * device is told apart by its spec, as the agent finds it. */
static int check_embed_layout(const struct vi_manifest *m, const struct vi_geometry *g,
			      uint64_t off)
{
	const struct vi_params *p = &m->params;
	const char *hash_spec = m->hash.spec[0] ? m->hash.spec : m->data.spec;
	uint64_t tree_off = p->hash_offset, bs = p->hash_block_size, hash_blocks = 0;
	struct vi_fec_geometry fg;
	struct vi_error err = { "" };

	if (off > UINT64_MAX - VI_BUNDLE_MAX)
		return die(EXIT_INVALID, "bundle offset %" PRIu64 " out of range", off);
	if (overlaps(off, VI_BUNDLE_MAX, tree_off, g->hash_device_size - tree_off))
		return die(EXIT_INVALID, "the bundle at byte %" PRIu64 " would overlap the hash "
			   "tree (bytes %" PRIu64 " to %" PRIu64 ")", off, tree_off,
			   g->hash_device_size);
	if (strcmp(hash_spec, m->data.spec) == 0 && overlaps(off, VI_BUNDLE_MAX, 0, g->data_size))
		return die(EXIT_INVALID, "the bundle at byte %" PRIu64 " would overlap the data "
			   "(%" PRIu64 " bytes) on the same device", off, g->data_size);
	if (!m->fec.spec[0])
		return 0;
	if (strcmp(m->fec.spec, hash_spec) != 0)
		return die(EXIT_INVALID, "the FEC parity on %s covers the hash device %s from the "
			   "tree to its end, the bundle region at byte %" PRIu64 " included: embedding "
			   "would make the parity wrong (write the bundle to a partition of its own "
			   "with --bundle)", m->fec.spec, hash_spec, off);
	if (vi_fec_hash_blocks(m->fec_offset, true, p->hash_block_size, g->tree_start,
				   g->hash_blocks, &hash_blocks, &err) < 0 ||
	    vi_fec_geometry_compute(p->data_blocks, p->data_block_size, g->tree_start,
					hash_blocks, m->fec_roots, &fg, &err) < 0)
		return die(EXIT_INVALID, "FEC parameters: %s", err.msg);
	if (overlaps(off, VI_BUNDLE_MAX, m->fec_offset, fg.size))
		return die(EXIT_INVALID, "the bundle at byte %" PRIu64 " would overwrite the FEC "
			   "parity (bytes %" PRIu64 " to %" PRIu64 " of %s)", off, m->fec_offset,
			   m->fec_offset + fg.size, hash_spec);
	if (overlaps(off, VI_BUNDLE_MAX, g->tree_start * bs, hash_blocks * bs))
		return die(EXIT_INVALID, "the bundle at byte %" PRIu64 " would lie in what the FEC "
			   "parity covers (bytes %" PRIu64 " to %" PRIu64 " of %s): embedding would make "
			   "the parity wrong (write the bundle to a partition of its own with --bundle)",
			   off, g->tree_start * bs, (g->tree_start + hash_blocks) * bs, hash_spec);
	return 0;
}

/* The signed manifest where o asks for it: MANIFEST + MANIFEST.minisig, a bundle file, and the
 * bundle on the hash device (fd) at bundle_off. 0 or the exit code, the error printed. */
static int write_outputs(const struct sign_manifest_opts *o, const char *hash_path, int fd,
			 const char *man, size_t mlen, const char *sig, size_t slen,
			 uint64_t bundle_off)
{
	char path[4096], bundle[VI_BUNDLE_MAX];
	int r;

	if (o->manifest) {
		const char *what = o->manifest;

		r = 0;
		if (snprintf(path, sizeof(path), "%s.minisig", o->manifest) >= (int)sizeof(path))
			r = -ENAMETOOLONG;
		if (r == 0)
			r = image_write_file(o->manifest, man, mlen);
		if (r == 0) {
			what = path;
			r = image_write_file(path, sig, slen);
		}
		if (r < 0) {
			return die(EXIT_IO, "writing %s: %s", what, image_io_reason(r));
		}
	}
	if (o->bundle || o->embed) {
		if (mlen + slen > sizeof(bundle)) {
			return die(EXIT_INTERNAL, "bundle larger than %u bytes", VI_BUNDLE_MAX);
		}
		/* padded with NULs to the whole region size, so a longer old bundle is erased */
		memset(bundle, 0, sizeof(bundle));
		memcpy(bundle, man, mlen);
		memcpy(bundle + mlen, sig, slen);
		if (o->bundle) {
			r = image_write_file(o->bundle, bundle, sizeof(bundle));
			if (r < 0) {
				return die(EXIT_IO, "writing %s: %s", o->bundle, image_io_reason(r));
			}
		}
		if (o->embed) {
			if (pwrite(fd, bundle, sizeof(bundle), (off_t)bundle_off) !=
				    (ssize_t)sizeof(bundle) || fsync(fd) < 0) {
				return die(EXIT_IO, "%s: writing the bundle at %" PRIu64 " failed: %s",
					hash_path, bundle_off, strerror(errno));
			}
			printf("bundle_offset=%" PRIu64 "\n", bundle_off);
		}
	}
	return 0;
}

int sign_manifest(const struct sign_manifest_opts *o, const char *hash_path, int fd,
		  const struct vi_params *p, const struct vi_geometry *g, const uint8_t *root)
{
	struct vi_error err = { "" };
	struct vi_minisign_seckey sk;
	struct vi_manifest m;
	char keybuf[MINISIGN_MAX_FILE], man[VI_MANIFEST_MAX], sig[MINISIGN_MAX_FILE];
	char tc[MINISIGN_COMMENT_MAX + 1];
	size_t klen = 0, mlen = 0, slen = 0;
	uint64_t bundle_off = 0;
	int r;

	r = vi_fileio_read_all(o->key, keybuf, sizeof(keybuf), &klen);
	if (r < 0) {
		sodium_memzero(keybuf, sizeof(keybuf));
		return die(r == -EFBIG ? EXIT_INVALID : EXIT_IO, "%s: %s", o->key,
			   r == -EFBIG ? "too large for a minisign key" : image_io_reason(r));
	}
	r = vi_minisign_seckey_parse(keybuf, klen, &sk, &err);
	sodium_memzero(keybuf, sizeof(keybuf));
	if (r < 0)
		return die(EXIT_INVALID, "%s: %s", o->key, err.msg);

	memset(&m, 0, sizeof(m));
	m.version = o->version;
	memcpy(m.root_hash, root, g->digest_size);
	m.root_hash_len = g->digest_size;
	m.params = *p;
	/* veritysetup always writes a UUID into the superblock: bind it too */
	m.has_uuid = true;
	snprintf(m.data.spec, sizeof(m.data.spec), "%s", o->data_spec);
	if (o->hash_spec)
		snprintf(m.hash.spec, sizeof(m.hash.spec), "%s", o->hash_spec);
	if (o->fec_spec) {
		snprintf(m.fec.spec, sizeof(m.fec.spec), "%s", o->fec_spec);
		m.fec_offset = o->fec_offset;
		m.fec_roots = o->fec_roots ? o->fec_roots : 2;
	}
	m.opts = o->opts;
	if (!o->data_spec || strlen(o->data_spec) >= sizeof(m.data.spec) ||
	    (o->hash_spec && strlen(o->hash_spec) >= sizeof(m.hash.spec)))
		r = die(EXIT_USAGE, "device spec too long");
	else if (vi_manifest_format(&m, man, sizeof(man), &mlen, &err) < 0)
		r = die(EXIT_INVALID, "%s", err.msg);
	if (r > 0)
		goto out;
	/* before anything is written */
	if (o->embed) {
		if (vi_bundle_offset(p, &bundle_off, &err) < 0) {
			r = die(EXIT_INVALID, "%s", err.msg);
			goto out;
		}
		r = check_embed_layout(&m, g, bundle_off);
		if (r)
			goto out;
	}

	if (o->tc)
		snprintf(tc, sizeof(tc), "%s", o->tc);
	else
		snprintf(tc, sizeof(tc), "timestamp:%lld\tverity-manifest version:%" PRIu64,
			 (long long)time(NULL), m.version);
	r = vi_minisign_sign(&sk, (const uint8_t *)man, mlen, tc, NULL, sig, sizeof(sig), &slen, &err);
	if (r < 0) {
		r = die(EXIT_INVALID, "%s", err.msg);
		goto out;
	}
	r = write_outputs(o, hash_path, fd, man, mlen, sig, slen, bundle_off);
	if (r)
		goto out;
	printf("manifest_version=%" PRIu64 "\n", m.version);
	{
		char id[17];

		vi_minisign_key_id_format(sk.key_id, id);
		printf("minisign_key_id=%s\n", id);
	}
	r = 0;
out:
	sodium_memzero(&sk, sizeof(sk));
	return r;
}
