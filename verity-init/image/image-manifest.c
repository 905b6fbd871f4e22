// SPDX-License-Identifier: LGPL-2.1-or-later
/* `verity-image sign`, path 2 of docs/signing.md (image-manifest.h): the manifest of the image
 * (lib/config/manifest.c) signed with a minisign key, written as MANIFEST + MANIFEST.minisig
 * and/or as a bundle (a file for a partition, or on the hash device right after the tree, where
 * it must leave the data, the tree and everything FEC covers alone). Without the key here the
 * manifest is prepared (the exact bytes minisign signs) and a .minisig made elsewhere is joined
 * after it verified with the public key. The manifest has no time in it, so the same image and
 * options give the same bytes at both steps; minisign's trusted comment takes its time stamp
 * from SOURCE_DATE_EPOCH when that is set, and Ed25519 signatures are deterministic. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sodium.h>

#include "fec.h"
#include "fileio.h"
#include "image-io.h"
#include "image-manifest.h"
#include "image-pkcs11.h"
#include "manifest.h"
#include "minisign.h"
#include "prog.h"

_Static_assert(VI_BUNDLE_MAX <= IMAGE_REGION_MAX, "the embedded bundle is the outputs' region");

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

/* The signed manifest where o asks for it: MANIFEST + MANIFEST.minisig and a bundle file added
 * to outs; the bundle for the hash device into bundle (VI_BUNDLE_MAX bytes). 0 or the exit code,
 * the error printed. */
static int add_outputs(const struct sign_manifest_opts *o, struct image_outputs *outs,
		       const char *man, size_t mlen, const char *sig, size_t slen, char *bundle)
{
	char path[4096];
	int r;

	if (o->manifest) {
		const char *what = o->manifest;

		r = 0;
		if (snprintf(path, sizeof(path), "%s.minisig", o->manifest) >= (int)sizeof(path))
			r = -ENAMETOOLONG;
		if (r == 0)
			r = image_outputs_add(outs, o->manifest, man, mlen);
		if (r == 0) {
			what = path;
			r = image_outputs_add(outs, path, sig, slen);
		}
		if (r < 0)
			return die(EXIT_IO, "writing %s: %s", what, image_io_reason(r));
	}
	if (o->bundle || o->embed) {
		if (mlen + slen > VI_BUNDLE_MAX)
			return die(EXIT_INTERNAL, "bundle larger than %u bytes", VI_BUNDLE_MAX);
		/* padded with NULs to the whole region size, so a longer old bundle is erased */
		memset(bundle, 0, VI_BUNDLE_MAX);
		memcpy(bundle, man, mlen);
		memcpy(bundle + mlen, sig, slen);
		if (o->bundle) {
			r = image_outputs_add(outs, o->bundle, bundle, VI_BUNDLE_MAX);
			if (r < 0)
				return die(EXIT_IO, "writing %s: %s", o->bundle, image_io_reason(r));
		}
	}
	return 0;
}

/* minisign's default trusted comment: the signing time (SOURCE_DATE_EPOCH when set, for
 * reproducible builds) and the version. 0 or the exit code, the error printed. */
static int default_comment(char *tc, size_t size, uint64_t version)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	long long t = (long long)time(NULL);

	if (sde) {
		uint64_t v;

		if (prog_parse_u64(sde, &v) < 0 || v > INT64_MAX)
			return die(EXIT_USAGE, "SOURCE_DATE_EPOCH='%s' is not a number of seconds", sde);
		t = (long long)v;
	}
	snprintf(tc, size, "timestamp:%lld\tverity-manifest version:%" PRIu64, t, version);
	return 0;
}

/* What signs or checks the manifest, read before anything else: o->key's secret key, or
 * o->sig's signature file (text and parsed) with o->pubkey's public key. */
struct manifest_signer {
	struct vi_minisign_seckey sk;
	struct vi_minisign_pubkey pk;
	struct vi_minisign_sig ms;
	char sig[MINISIGN_MAX_FILE];
	size_t slen;
};

/* Read o's key or signature and public key into s. 0 or the exit code, the error printed. */
static int load_signer(const struct sign_manifest_opts *o, struct manifest_signer *s)
{
	struct vi_error err = { "" };
	char buf[MINISIGN_MAX_FILE];
	size_t len = 0;
	int r;

	if (o->sig || o->helper) {
		r = vi_fileio_read_all(o->pubkey, buf, sizeof(buf), &len);
		if (r < 0)
			return die(r == -EFBIG ? EXIT_INVALID : EXIT_IO, "%s: %s", o->pubkey,
				   r == -EFBIG ? "too large for a minisign key" : image_io_reason(r));
		if (vi_minisign_pubkey_parse(buf, len, &s->pk, &err) < 0)
			return die(EXIT_INVALID, "%s: %s", o->pubkey, err.msg);
		if (o->helper)
			return 0;
		r = vi_fileio_read_all(o->sig, s->sig, sizeof(s->sig) - 1, &s->slen);
		if (r < 0)
			return die(r == -EFBIG ? EXIT_INVALID : EXIT_IO, "%s: %s", o->sig,
				   r == -EFBIG ? "too large for a minisign signature" :
				   image_io_reason(r));
		s->sig[s->slen] = '\0';
		if (vi_minisign_sig_parse(s->sig, s->slen, &s->ms, &err) < 0)
			return die(EXIT_INVALID, "%s: %s", o->sig, err.msg);
		return 0;
	}
	r = vi_fileio_read_all(o->key, buf, sizeof(buf), &len);
	if (r < 0) {
		sodium_memzero(buf, sizeof(buf));
		return die(r == -EFBIG ? EXIT_INVALID : EXIT_IO, "%s: %s", o->key,
			   r == -EFBIG ? "too large for a minisign key" : image_io_reason(r));
	}
	r = vi_minisign_seckey_parse(buf, len, &s->sk, &err);
	sodium_memzero(buf, sizeof(buf));
	if (r < 0)
		return die(EXIT_INVALID, "%s: %s", o->key, err.msg);
	return 0;
}

/* --minisign-signing-helper: the program, what it was last asked, and why it failed. */
struct helper_ctx {
	const char *prog, *pubkey;
	char why[256];
};

/* One Ed25519 signature by the helper: "PROG ed25519 PUBKEY", the message on its standard
 * input, exactly MINISIGN_SIG_LEN bytes of signature on its standard output, exit status 0 (as
 * avbtool's --signing_helper). Its standard error passes through. 0, or -EIO with ctx->why set. */
static int run_helper(void *vctx, const uint8_t *msg, size_t len, uint8_t sig[MINISIGN_SIG_LEN])
{
	struct helper_ctx *ctx = vctx;
	uint8_t out[MINISIGN_SIG_LEN + 1];
	int in_pipe[2] = { -1, -1 }, out_pipe[2] = { -1, -1 }, status = 0;
	bool unread = false;
	size_t got = 0;
	pid_t pid;

	if (pipe2(in_pipe, O_CLOEXEC) < 0 || pipe2(out_pipe, O_CLOEXEC) < 0) {
		snprintf(ctx->why, sizeof(ctx->why), "pipe: %s", strerror(errno));
		goto fail;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		snprintf(ctx->why, sizeof(ctx->why), "fork: %s", strerror(errno));
		goto fail;
	}
	if (pid == 0) {
		if (dup2(in_pipe[0], STDIN_FILENO) < 0 || dup2(out_pipe[1], STDOUT_FILENO) < 0)
			_exit(127);
		execlp(ctx->prog, ctx->prog, "ed25519", ctx->pubkey, (char *)NULL);
		_exit(127);
	}
	close(in_pipe[0]);
	close(out_pipe[1]);
	in_pipe[0] = out_pipe[1] = -1;
	/* the message is at most 64 + 1024 bytes: it fits in the pipe, the write cannot block
	 * on a helper that writes before it reads */
	{
		void (*old)(int) = signal(SIGPIPE, SIG_IGN);
		ssize_t w = write(in_pipe[1], msg, len);

		signal(SIGPIPE, old);
		close(in_pipe[1]);
		in_pipe[1] = -1;
		unread = w != (ssize_t)len;
	}
	while (got < sizeof(out)) {
		ssize_t n = read(out_pipe[0], out + got, sizeof(out) - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(out_pipe[0]);
	out_pipe[0] = -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			snprintf(ctx->why, sizeof(ctx->why), "could not be run (exit status 127)");
		else if (WIFEXITED(status))
			snprintf(ctx->why, sizeof(ctx->why), "failed (exit status %d)",
				 WEXITSTATUS(status));
		else
			snprintf(ctx->why, sizeof(ctx->why), "was killed (signal %d)",
				 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
		return -EIO;
	}
	/* what it wrote first: whether a helper that exits without reading had gone before the
	 * write (EPIPE) is a race, its output is not */
	if (got != MINISIGN_SIG_LEN) {
		snprintf(ctx->why, sizeof(ctx->why), "wrote %s%zu bytes, not a %u-byte Ed25519 "
			 "signature", got > MINISIGN_SIG_LEN ? "more than " : "",
			 got > MINISIGN_SIG_LEN ? (size_t)MINISIGN_SIG_LEN : got, MINISIGN_SIG_LEN);
		return -EIO;
	}
	if (unread) {
		snprintf(ctx->why, sizeof(ctx->why), "it did not read the message");
		return -EIO;
	}
	memcpy(sig, out, MINISIGN_SIG_LEN);
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (in_pipe[i] >= 0)
			close(in_pipe[i]);
		if (out_pipe[i] >= 0)
			close(out_pipe[i]);
	}
	return -EIO;
}

/* The signature of man into s->sig: made with the secret key (*ret_key_id its key id), or the
 * joined one verified with the public key. 0 or the exit code, the error printed. */
static int manifest_signature(const struct sign_manifest_opts *o, struct manifest_signer *s,
			      const char *man, size_t mlen, uint64_t version,
			      uint8_t ret_key_id[MINISIGN_KEYID_LEN])
{
	struct vi_error err = { "" };
	char tc[MINISIGN_COMMENT_MAX + 1];
	int r;

	if (o->sig) {
		r = vi_minisign_verify(&s->pk, &s->ms, (const uint8_t *)man, mlen, false, &err);
		if (r < 0)
			return die(r == -EPROTO ? EXIT_INVALID : EXIT_MISMATCH, "%s: not a signature "
				   "of the prepared manifest by %s: %s", o->sig, o->pubkey, err.msg);
		memcpy(ret_key_id, s->pk.key_id, MINISIGN_KEYID_LEN);
		return 0;
	}
	if (o->tc)
		snprintf(tc, sizeof(tc), "%s", o->tc);
	else if ((r = default_comment(tc, sizeof(tc), version)) != 0)
		return r;
	if (o->helper) {
		struct helper_ctx hc = { .prog = o->helper, .pubkey = o->pubkey, .why = "" };

		if (vi_minisign_sign_with(s->pk.key_id, run_helper, &hc, (const uint8_t *)man, mlen,
					  tc, NULL, s->sig, sizeof(s->sig), &s->slen, &err) < 0)
			return die(hc.why[0] ? EXIT_KEY : EXIT_INVALID, "--minisign-signing-helper "
				   "%s: %s", o->helper, hc.why[0] ? hc.why : err.msg);
		/* what the helper's key signed must verify with the public key, as the agent will
		 * check it: a helper that signs with another key is caught here */
		if (vi_minisign_sig_parse(s->sig, s->slen, &s->ms, &err) < 0 ||
		    vi_minisign_verify(&s->pk, &s->ms, (const uint8_t *)man, mlen, false, &err) < 0)
			return die(EXIT_MISMATCH, "--minisign-signing-helper %s: its signatures do "
				   "not verify with %s: %s", o->helper, o->pubkey, err.msg);
		memcpy(ret_key_id, s->pk.key_id, MINISIGN_KEYID_LEN);
		return 0;
	}
	if (vi_minisign_sign(&s->sk, (const uint8_t *)man, mlen, tc, NULL, s->sig, sizeof(s->sig),
			     &s->slen, &err) < 0)
		return die(EXIT_INVALID, "%s", err.msg);
	memcpy(ret_key_id, s->sk.key_id, MINISIGN_KEYID_LEN);
	return 0;
}

int sign_manifest(const struct sign_manifest_opts *o, const char *hash_path, int fd,
		  const struct vi_params *p, const struct vi_geometry *g, const uint8_t *root,
		  struct image_outputs *outs)
{
	struct vi_error err = { "" };
	struct manifest_signer *signer = NULL;
	struct vi_manifest m;
	char man[VI_MANIFEST_MAX], bundle[VI_BUNDLE_MAX], id[17];
	uint8_t key_id[MINISIGN_KEYID_LEN];
	size_t mlen = 0;
	uint64_t bundle_off = 0;
	int r = 0;

	if (image_is_pkcs11_uri(o->key))
		/* OpenSSL's pkcs11 engine in Debian 12 (libp11 0.4.12) has no Ed25519 keys, and no
		 * pkcs11 provider is packaged: a token's Ed25519 key is reached through a signing
		 * helper instead. */
		return die(EXIT_USAGE, "--minisign-key: a PKCS#11 URI cannot sign the manifest: "
			   "minisign signatures are Ed25519, which OpenSSL's pkcs11 engine (libp11 "
			   "0.4.12) cannot use; sign on the token with --minisign-signing-helper "
			   "(pkcs11-tool -m EDDSA) and --public-key, or prepare the manifest "
			   "(--prepare-manifest), sign it where the key is and join the signature "
			   "(--minisign-signature)");
	/* the key or signature first: a bad one is named before anything about the image */
	if (!o->prepare) {
		signer = calloc(1, sizeof(*signer));
		if (!signer)
			return die(EXIT_INTERNAL, "out of memory");
		r = load_signer(o, signer);
		if (r)
			goto out;
	}
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
	    (o->hash_spec && strlen(o->hash_spec) >= sizeof(m.hash.spec))) {
		r = die(EXIT_USAGE, "device spec too long");
		goto out;
	}
	if (vi_manifest_format(&m, man, sizeof(man), &mlen, &err) < 0) {
		r = die(EXIT_INVALID, "%s", err.msg);
		goto out;
	}
	if (o->prepare) {
		r = image_outputs_add(outs, o->prepare, man, mlen);
		if (r < 0)
			return die(EXIT_IO, "writing %s: %s", o->prepare, image_io_reason(r));
		printf("manifest_prepared=%s\n", o->prepare);
		printf("manifest_version=%" PRIu64 "\n", m.version);
		{
			uint8_t d[crypto_hash_sha256_BYTES];
			char hex[2 * crypto_hash_sha256_BYTES + 1];

			crypto_hash_sha256(d, (const uint8_t *)man, mlen);
			sodium_bin2hex(hex, sizeof(hex), d, sizeof(d));
			printf("manifest_prepared_sha256=%s\n", hex);
		}
		return 0;
	}
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
	r = manifest_signature(o, signer, man, mlen, m.version, key_id);
	if (r)
		goto out;
	r = add_outputs(o, outs, man, mlen, signer->sig, signer->slen, bundle);
	if (r)
		goto out;
	if (o->embed) {
		char what[4200];

		snprintf(what, sizeof(what), "the bundle at byte %" PRIu64 " of %s", bundle_off,
			 hash_path);
		r = image_outputs_add_region(outs, fd, what, bundle_off, bundle, sizeof(bundle));
		if (r < 0) {
			r = die(EXIT_IO, "%s: reading the bundle region at %" PRIu64 " failed: %s",
				hash_path, bundle_off, image_io_reason(r));
			goto out;
		}
		printf("bundle_offset=%" PRIu64 "\n", bundle_off);
	}
	printf("manifest_version=%" PRIu64 "\n", m.version);
	vi_minisign_key_id_format(key_id, id);
	printf("minisign_key_id=%s\n", id);
	if (o->sig)
		printf("minisign_joined=%s\n", o->sig);
	r = 0;
out:
	if (signer) {
		sodium_memzero(&signer->sk, sizeof(signer->sk));
		free(signer);
	}
	return r;
}
