// SPDX-License-Identifier: LGPL-2.1-or-later
/* `verity-image sign`: signatures for a formatted image, for both trust paths of
 * docs/signing.md. Orchestration only: manifest, minisign and bundle code are in lib/.
 *
 *   path 2  the signed manifest (lib/config/manifest.c) and its minisign signature, written as
 *           MANIFEST + MANIFEST.minisig, and/or as a bundle (--bundle FILE for a partition,
 *           --embed to store it on the hash device right after the tree);
 *   path 1  roothash.p7s: a detached DER PKCS#7 signature (no signed attributes, signer
 *           certificate included) of the lowercase hex root hash without a newline, exactly
 *           what systemd-repart and mkosi make and the kernel's dm-verity checks; and
 *           optionally systemd's verity-signature partition JSON (--dps-sig FILE).
 *
 * The parameters come from the superblock on the hash device; the root hash is computed from
 * the top hash block (and must equal --root-hash when given). Exit codes: verity-init/prog.h.
 *
 * `verity-image check-manifest` (same file) verifies a manifest as the agent would. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/x509.h>
#include <sodium.h>

#include "base64.h"
#include "blockhash.h"
#include "digest.h"
#include "fec.h"
#include "fileio.h"
#include "geometry.h"
#include "hex.h"
#include "manifest.h"
#include "minisign.h"
#include "params.h"
#include "superblock.h"
#include "prog.h"

#define DPS_SIG_PAD 4096u

static const char usage_text[] =
	"Usage: verity-image sign HASH-DEVICE --data-device SPEC [options]\n"
	"Parameters come from the superblock on HASH-DEVICE (at --hash-offset, default 0).\n"
	"  --data-device SPEC        data device as the agent will find it (PARTUUID=, /dev/...)\n"
	"  --hash-device SPEC        hash device, when it is not the data device\n"
	"  --hash-offset BYTES       superblock position on HASH-DEVICE\n"
	"  --root-hash HEX           expected root hash (checked against the tree)\n"
	"Signed manifest (path 2, minisign):\n"
	"  --minisign-key FILE       unencrypted minisign secret key (minisign -G -W)\n"
	"  --version N               manifest version (anti-rollback), >= 1\n"
	"  --manifest FILE           write FILE and FILE.minisig\n"
	"  --bundle FILE             write manifest+signature as one bundle (for a partition)\n"
	"  --embed                   write the bundle on HASH-DEVICE after the tree\n"
	"  --trusted-comment TEXT    minisign trusted comment\n"
	"  --fec-device SPEC --fec-offset BYTES --fec-roots N\n"
	"  --on-corruption eio|ignore|restart|panic  --on-error eio|restart|panic\n"
	"  --ignore-zero-blocks  --check-at-most-once\n"
	"Kernel-verified signature (path 1, PKCS#7):\n"
	"  --pkcs7-key PEM --pkcs7-cert PEM\n"
	"  --p7s FILE                write roothash.p7s (DER)\n"
	"  --dps-sig FILE            write systemd's verity-signature partition JSON\n";

enum {
	O_DATA = 256, O_HASHDEV, O_OFFSET, O_ROOT, O_MKEY, O_VERSION, O_MANIFEST, O_BUNDLE,
	O_EMBED, O_TC, O_FEC, O_FEC_OFF, O_FEC_ROOTS, O_CORRUPT, O_ERROR, O_ZERO, O_ONCE,
	O_PKEY, O_PCERT, O_P7S, O_DPS, O_HELP,
};

static const struct option opts[] = {
	{ "data-device", required_argument, NULL, O_DATA },
	{ "hash-device", required_argument, NULL, O_HASHDEV },
	{ "hash-offset", required_argument, NULL, O_OFFSET },
	{ "root-hash", required_argument, NULL, O_ROOT },
	{ "minisign-key", required_argument, NULL, O_MKEY },
	{ "version", required_argument, NULL, O_VERSION },
	{ "manifest", required_argument, NULL, O_MANIFEST },
	{ "bundle", required_argument, NULL, O_BUNDLE },
	{ "embed", no_argument, NULL, O_EMBED },
	{ "trusted-comment", required_argument, NULL, O_TC },
	{ "fec-device", required_argument, NULL, O_FEC },
	{ "fec-offset", required_argument, NULL, O_FEC_OFF },
	{ "fec-roots", required_argument, NULL, O_FEC_ROOTS },
	{ "on-corruption", required_argument, NULL, O_CORRUPT },
	{ "on-error", required_argument, NULL, O_ERROR },
	{ "ignore-zero-blocks", no_argument, NULL, O_ZERO },
	{ "check-at-most-once", no_argument, NULL, O_ONCE },
	{ "pkcs7-key", required_argument, NULL, O_PKEY },
	{ "pkcs7-cert", required_argument, NULL, O_PCERT },
	{ "p7s", required_argument, NULL, O_P7S },
	{ "dps-sig", required_argument, NULL, O_DPS },
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};

struct sign_opts {
	const char *hash_path;
	const char *data_spec, *hash_spec, *fec_spec;
	uint64_t hash_offset, fec_offset, version;
	uint32_t fec_roots;
	const char *root_hex;
	const char *mkey, *manifest, *bundle, *tc;
	bool embed, zero, once;
	enum vi_corruption corruption;
	enum vi_ioerror ioerror;
	const char *pkey, *pcert, *p7s, *dps;
};

static int parse_args(int argc, char **argv, struct sign_opts *o)
{
	uint64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		const char *a = optarg;

		switch (c) {
		case O_DATA: o->data_spec = a; break;
		case O_HASHDEV: o->hash_spec = a; break;
		case O_ROOT: o->root_hex = a; break;
		case O_MKEY: o->mkey = a; break;
		case O_MANIFEST: o->manifest = a; break;
		case O_BUNDLE: o->bundle = a; break;
		case O_EMBED: o->embed = true; break;
		case O_TC: o->tc = a; break;
		case O_FEC: o->fec_spec = a; break;
		case O_ZERO: o->zero = true; break;
		case O_ONCE: o->once = true; break;
		case O_PKEY: o->pkey = a; break;
		case O_PCERT: o->pcert = a; break;
		case O_P7S: o->p7s = a; break;
		case O_DPS: o->dps = a; break;
		case O_OFFSET:
		case O_FEC_OFF:
		case O_VERSION:
		case O_FEC_ROOTS:
			if (prog_parse_u64(a, &v) < 0)
				return die(EXIT_USAGE, "invalid number '%s'", a);
			if (c == O_OFFSET)
				o->hash_offset = v;
			else if (c == O_FEC_OFF)
				o->fec_offset = v;
			else if (c == O_VERSION)
				o->version = v;
			else if (v > 255)
				return die(EXIT_USAGE, "invalid --fec-roots '%s'", a);
			else
				o->fec_roots = (uint32_t)v;
			break;
		case O_CORRUPT:
			/* the manifest's words (lib/config/params.c) */
			if (vi_corruption_lookup(a, strlen(a), VI_SPELL_MANIFEST, &o->corruption) < 0)
				return die(EXIT_USAGE, "invalid --on-corruption '%s'", a);
			break;
		case O_ERROR:
			if (vi_ioerror_lookup(a, strlen(a), VI_SPELL_MANIFEST, &o->ioerror) < 0)
				return die(EXIT_USAGE, "invalid --on-error '%s'", a);
			break;
		case O_HELP:
			fputs(usage_text, stdout);
			return -1;
		case ':':
			return die(EXIT_USAGE, "option %s needs a value", argv[optind - 1]);
		default:
			return die(EXIT_USAGE, "unknown option %s (see verity-image sign --help)",
				   argv[optind - 1]);
		}
	}
	if (optind != argc - 1) {
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	o->hash_path = argv[optind];
	if (!o->data_spec)
		return die(EXIT_USAGE, "--data-device SPEC is required (how the agent finds it)");
	if (!o->mkey && (o->manifest || o->bundle || o->embed))
		return die(EXIT_USAGE, "--manifest/--bundle/--embed need --minisign-key");
	if (o->mkey && !(o->manifest || o->bundle || o->embed))
		return die(EXIT_USAGE, "--minisign-key needs --manifest, --bundle or --embed");
	if (o->mkey && o->version == 0)
		return die(EXIT_USAGE, "--version N (>= 1) is required for a manifest");
	if ((o->pkey || o->pcert) && !(o->pkey && o->pcert))
		return die(EXIT_USAGE, "--pkcs7-key and --pkcs7-cert go together");
	if (o->pkey && !(o->p7s || o->dps))
		return die(EXIT_USAGE, "--pkcs7-key needs --p7s or --dps-sig");
	if ((o->p7s || o->dps) && !o->pkey)
		return die(EXIT_USAGE, "--p7s/--dps-sig need --pkcs7-key and --pkcs7-cert");
	if (!o->mkey && !o->pkey)
		return die(EXIT_USAGE, "nothing to do: give --minisign-key and/or --pkcs7-key");
	return 0;
}

/* The reason for a negative errno from reading an input or writing an output. */
static const char *io_reason(int r)
{
	switch (r) {
	case -ENOTBLK:
		return "not a regular file or block device";
	case -ELOOP:
		return "is a symbolic link (outputs are written as new files, never through a link)";
	case -EEXIST:
		return "exists and is not a regular file";
	default:
		return strerror(-r);
	}
}

/* Write buf to path (created 0644, replaced atomically through a temporary file). An existing
 * path must be a regular file: a symlink would be replaced by the file, not written through, and
 * a device node or FIFO replaced by a file is never what was meant. */
static int write_file(const char *path, const void *buf, size_t len)
{
	struct stat st;
	char tmp[4096];
	int fd, r = 0;

	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			return -ELOOP;
		if (!S_ISREG(st.st_mode))
			return -EEXIST;
	} else if (errno != ENOENT) {
		return -errno;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644) < 0 || write(fd, buf, len) != (ssize_t)len || fsync(fd) < 0)
		r = errno ? -errno : -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

/* Superblock, geometry, and the root hash computed from the top hash block. */
static int load_image(const struct sign_opts *o, int fd, struct vi_params *p,
		      struct vi_geometry *g, uint8_t *root)
{
	uint8_t sb[VERITY_SB_SIZE], *block;
	struct vi_error err = { "" };
	uint64_t off;
	ssize_t n;
	int r;

	n = pread(fd, sb, sizeof(sb), (off_t)o->hash_offset);
	if (n != (ssize_t)sizeof(sb))
		return die(EXIT_IO, "%s: cannot read the superblock at offset %" PRIu64,
			   o->hash_path, o->hash_offset);
	memset(p, 0, sizeof(*p));
	p->hash_offset = o->hash_offset;
	if (vi_sb_decode(sb, p, &err) < 0)
		return die(EXIT_INVALID, "%s: %s (sign needs a veritysetup superblock)",
			   o->hash_path, err.msg);
	if (vi_geometry_compute(p, g, &err) < 0)
		return die(EXIT_INVALID, "%s: %s", o->hash_path, err.msg);
	if (g->levels == 0)
		return die(EXIT_INVALID, "%s: a single data block has no hash tree to sign from; "
			   "use a larger image", o->hash_path);
	block = malloc(p->hash_block_size);
	if (!block)
		return die(EXIT_INTERNAL, "out of memory");
	off = g->level_block[g->levels - 1] * (uint64_t)p->hash_block_size;
	n = pread(fd, block, p->hash_block_size, (off_t)off);
	if (n != (ssize_t)p->hash_block_size) {
		free(block);
		return die(EXIT_IO, "%s: cannot read the top hash block at %" PRIu64, o->hash_path,
			   off);
	}
	r = vi_hash_block(&vi_digest_openssl_ops, p, block, p->hash_block_size, root,
			      VERITY_MAX_DIGEST);
	free(block);
	if (r < 0)
		return die(EXIT_INTERNAL, "hashing the top block failed (%s)", strerror(-r));
	if (o->root_hex) {
		uint8_t want[VERITY_MAX_DIGEST];

		if (strlen(o->root_hex) != 2 * (size_t)g->digest_size ||
		    vi_hex_decode_exact(o->root_hex, want, g->digest_size) < 0)
			return die(EXIT_USAGE, "--root-hash is not %u bytes of hex", g->digest_size);
		if (memcmp(want, root, g->digest_size) != 0)
			return die(EXIT_MISMATCH, "--root-hash does not match the tree on %s",
				   o->hash_path);
	}
	return 0;
}

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
static int write_outputs(const struct sign_opts *o, int fd, const char *man, size_t mlen,
			 const char *sig, size_t slen, uint64_t bundle_off)
{
	char path[4096], bundle[VI_BUNDLE_MAX];
	int r;

	if (o->manifest) {
		const char *what = o->manifest;

		r = 0;
		if (snprintf(path, sizeof(path), "%s.minisig", o->manifest) >= (int)sizeof(path))
			r = -ENAMETOOLONG;
		if (r == 0)
			r = write_file(o->manifest, man, mlen);
		if (r == 0) {
			what = path;
			r = write_file(path, sig, slen);
		}
		if (r < 0) {
			return die(EXIT_IO, "writing %s: %s", what, io_reason(r));
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
			r = write_file(o->bundle, bundle, sizeof(bundle));
			if (r < 0) {
				return die(EXIT_IO, "writing %s: %s", o->bundle, io_reason(r));
			}
		}
		if (o->embed) {
			if (pwrite(fd, bundle, sizeof(bundle), (off_t)bundle_off) !=
				    (ssize_t)sizeof(bundle) || fsync(fd) < 0) {
				return die(EXIT_IO, "%s: writing the bundle at %" PRIu64 " failed: %s",
					o->hash_path, bundle_off, strerror(errno));
			}
			printf("bundle_offset=%" PRIu64 "\n", bundle_off);
		}
	}
	return 0;
}

static int sign_manifest(const struct sign_opts *o, int fd, const struct vi_params *p,
			 const struct vi_geometry *g, const uint8_t *root)
{
	struct vi_error err = { "" };
	struct vi_minisign_seckey sk;
	struct vi_manifest m;
	char keybuf[MINISIGN_MAX_FILE], man[VI_MANIFEST_MAX], sig[MINISIGN_MAX_FILE];
	char tc[MINISIGN_COMMENT_MAX + 1];
	size_t klen = 0, mlen = 0, slen = 0;
	uint64_t bundle_off = 0;
	int r;

	r = vi_fileio_read_all(o->mkey, keybuf, sizeof(keybuf), &klen);
	if (r < 0) {
		sodium_memzero(keybuf, sizeof(keybuf));
		return die(r == -EFBIG ? EXIT_INVALID : EXIT_IO, "%s: %s", o->mkey,
			   r == -EFBIG ? "too large for a minisign key" : io_reason(r));
	}
	r = vi_minisign_seckey_parse(keybuf, klen, &sk, &err);
	sodium_memzero(keybuf, sizeof(keybuf));
	if (r < 0)
		return die(EXIT_INVALID, "%s: %s", o->mkey, err.msg);

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
	m.corruption = o->corruption;
	m.ioerror = o->ioerror;
	m.ignore_zero_blocks = o->zero;
	m.check_at_most_once = o->once;
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
	r = write_outputs(o, fd, man, mlen, sig, slen, bundle_off);
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

static int openssl_die(int code, const char *what)
{
	unsigned long e = ERR_get_error();
	char buf[256];

	ERR_error_string_n(e, buf, sizeof(buf));
	return die(code, "%s: %s", what, e ? buf : "failed");
}

/* A PEM input as a stdio stream, opened as every input is (vi_fileio_open_input). */
static int open_pem(const char *path, FILE **ret)
{
	int fd, r;

	r = vi_fileio_open_input(path, O_RDONLY, 0, &fd);
	if (r < 0)
		return r;
	*ret = fdopen(fd, "r");
	if (!*ret) {
		r = -errno;
		close(fd);
		return r;
	}
	return 0;
}

static int sign_pkcs7(const struct sign_opts *o, const char *root_hex)
{
	EVP_PKEY *key = NULL;
	X509 *cert = NULL;
	BIO *in = NULL;
	PKCS7 *p7 = NULL;
	FILE *f = NULL;
	unsigned char *der = NULL, *cder = NULL;
	int der_len = 0, cder_len, r;

	r = open_pem(o->pkey, &f);
	if (r < 0)
		return die(EXIT_IO, "%s: %s", o->pkey, io_reason(r));
	key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (!key)
		return openssl_die(EXIT_INVALID, o->pkey);
	r = open_pem(o->pcert, &f);
	if (r < 0) {
		r = die(EXIT_IO, "%s: %s", o->pcert, io_reason(r));
		goto out;
	}
	cert = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	if (!cert) {
		r = openssl_die(EXIT_INVALID, o->pcert);
		goto out;
	}
	if (X509_check_private_key(cert, key) != 1) {
		r = die(EXIT_INVALID, "%s does not belong to %s", o->pkey, o->pcert);
		goto out;
	}
	/* The kernel verifies the signature over the root hash exactly as written in the table:
	 * lowercase hex, no newline (dm-verity-verify-sig.c, systemd-repart, mkosi). */
	in = BIO_new_mem_buf(root_hex, (int)strlen(root_hex));
	if (!in) {
		r = die(EXIT_INTERNAL, "out of memory");
		goto out;
	}
	p7 = PKCS7_sign(cert, key, NULL, in, PKCS7_DETACHED | PKCS7_NOATTR | PKCS7_BINARY);
	if (!p7) {
		r = openssl_die(EXIT_INTERNAL, "PKCS7_sign");
		goto out;
	}
	der_len = i2d_PKCS7(p7, &der);
	if (der_len <= 0) {
		r = openssl_die(EXIT_INTERNAL, "i2d_PKCS7");
		goto out;
	}
	if (o->p7s) {
		r = write_file(o->p7s, der, (size_t)der_len);
		if (r < 0) {
			r = die(EXIT_IO, "writing %s: %s", o->p7s, io_reason(r));
			goto out;
		}
	}
	if (o->dps) {
		unsigned char fpr[32];
		char fpr_hex[65], *json = NULL, *b64 = NULL;
		size_t b64_size = vi_b64_encoded_size((size_t)der_len), jlen, padded;

		cder_len = i2d_X509(cert, &cder);
		if (cder_len <= 0 || !EVP_Digest(cder, (size_t)cder_len, fpr, NULL, EVP_sha256(), NULL)) {
			r = openssl_die(EXIT_INTERNAL, "certificate fingerprint");
			goto out;
		}
		vi_hex_encode(fpr, sizeof(fpr), fpr_hex, sizeof(fpr_hex));
		b64 = malloc(b64_size);
		jlen = b64_size + 256;
		padded = (jlen + DPS_SIG_PAD - 1) / DPS_SIG_PAD * DPS_SIG_PAD;
		json = calloc(1, padded);
		if (!b64 || !json) {
			free(b64);
			free(json);
			r = die(EXIT_INTERNAL, "out of memory");
			goto out;
		}
		vi_b64_encode(der, (size_t)der_len, b64, b64_size);
		/* systemd-repart's layout: compact JSON, NUL-padded */
		snprintf(json, padded, "{\"rootHash\":\"%s\",\"certificateFingerprint\":\"%s\","
			 "\"signature\":\"%s\"}", root_hex, fpr_hex, b64);
		r = write_file(o->dps, json, padded);
		free(b64);
		free(json);
		if (r < 0) {
			r = die(EXIT_IO, "writing %s: %s", o->dps, io_reason(r));
			goto out;
		}
	}
	printf("pkcs7_bytes=%d\n", der_len);
	r = 0;
out:
	OPENSSL_free(der);
	OPENSSL_free(cder);
	PKCS7_free(p7);
	BIO_free(in);
	X509_free(cert);
	EVP_PKEY_free(key);
	return r;
}

/* ---- check-manifest ---------------------------------------------------------------------- */

static const char check_usage[] =
	"Usage: verity-image check-manifest SOURCE --public-key FILE [--public-key FILE ...]\n"
	"                                   [--signature FILE] [--min-version N]\n"
	"                                   [--bundle | --embedded [--hash-offset BYTES]]\n"
	"Verify a signed manifest exactly as the agent does. SOURCE is a manifest (signature in\n"
	"SOURCE.minisig unless --signature), a bundle file (--bundle), or a hash device holding the\n"
	"bundle after its tree (--embedded). Exit 0 verified, 2 refused, 3 I/O, 4 malformed.\n";

/* One --public-key file into keys. 0 or the exit code, the error printed. */
static int add_key(struct vi_keyset *keys, const char *path)
{
	struct vi_error err = { "" };
	char kb[MINISIGN_MAX_FILE];
	size_t kl = 0;
	int r;

	if (keys->n == VI_KEYS_MAX)
		return die(EXIT_USAGE, "at most %u public keys", VI_KEYS_MAX);
	r = vi_fileio_read_all(path, kb, sizeof(kb), &kl);
	if (r < 0)
		return die(r == -EFBIG ? EXIT_INVALID : EXIT_IO, "%s: %s", path,
			   r == -EFBIG ? "too large for a minisign key" : io_reason(r));
	if (vi_minisign_pubkey_parse(kb, kl, &keys->key[keys->n], &err) < 0)
		return die(EXIT_INVALID, "%s: %s", path, err.msg);
	snprintf(keys->file[keys->n], sizeof(keys->file[0]), "%s", path);
	keys->n++;
	return 0;
}

/* The bundle region of a hash device: size bytes after the tree that the superblock at
 * hash_offset describes. 0 or the exit code, the error printed. */
static int read_embedded(const char *src, uint64_t hash_offset, char *buf, size_t size,
			 size_t *ret_len)
{
	struct vi_error err = { "" };
	struct vi_params p;
	uint8_t sb[VERITY_SB_SIZE];
	uint64_t off = 0;
	int fd = -1, r;
	ssize_t n;

	r = vi_fileio_open_input(src, O_RDONLY, 0, &fd);
	if (r < 0)
		return die(EXIT_IO, "%s: %s", src, io_reason(r));
	memset(&p, 0, sizeof(p));
	p.hash_offset = hash_offset;
	if (pread(fd, sb, sizeof(sb), (off_t)hash_offset) != (ssize_t)sizeof(sb) ||
	    vi_sb_decode(sb, &p, &err) < 0 || vi_bundle_offset(&p, &off, &err) < 0) {
		close(fd);
		return die(EXIT_INVALID, "%s: no usable superblock (%s)", src, err.msg);
	}
	n = pread(fd, buf, size, (off_t)off);
	r = errno;
	close(fd);
	if (n < 0)
		return die(EXIT_IO, "%s: %s", src, strerror(r));
	*ret_len = (size_t)n;
	return 0;
}

int image_check_manifest_main(int argc, char **argv)
{
	static const struct option copts[] = {
		{ "public-key", required_argument, NULL, 'k' },
		{ "signature", required_argument, NULL, 's' },
		{ "min-version", required_argument, NULL, 'm' },
		{ "bundle", no_argument, NULL, 'b' },
		{ "embedded", no_argument, NULL, 'e' },
		{ "hash-offset", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct vi_keyset keys;
	static char buf[VI_BUNDLE_MAX], sigbuf[MINISIGN_MAX_FILE];
	struct vi_error err = { "" };
	struct vi_manifest m;
	const char *sigpath = NULL, *src, *man, *sig;
	char path[4096], id[17], hex[2 * VERITY_MAX_DIGEST + 1];
	uint64_t min_version = 0, hash_offset = 0;
	bool bundle = false, embedded = false;
	size_t len = 0, man_len = 0, sig_off = 0, sig_len = 0;
	unsigned k = 0;
	int c, r;

	optind = 1;
	opterr = 0;
	keys.n = 0;
	while ((c = getopt_long(argc, argv, ":", copts, NULL)) != -1) {
		switch (c) {
		case 'k':
			r = add_key(&keys, optarg);
			if (r)
				return r;
			break;
		case 's': sigpath = optarg; break;
		case 'b': bundle = true; break;
		case 'e': embedded = true; break;
		case 'm':
		case 'o':
			if (prog_parse_u64(optarg, c == 'm' ? &min_version : &hash_offset) < 0)
				return die(EXIT_USAGE, "invalid number '%s'", optarg);
			break;
		case 'h':
			fputs(check_usage, stdout);
			return 0;
		default:
			fputs(check_usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || keys.n == 0 || (bundle && embedded) ||
	    (sigpath && (bundle || embedded))) {
		fputs(check_usage, stderr);
		return EXIT_USAGE;
	}
	src = argv[optind];
	if (embedded) {
		r = read_embedded(src, hash_offset, buf, sizeof(buf), &len);
		if (r)
			return r;
	} else {
		/* a bundle partition image: only its first VI_BUNDLE_MAX bytes matter, as for the
		 * agent; a manifest must fit whole */
		if (bundle)
			r = vi_fileio_read_head(src, buf, sizeof(buf), &len, NULL);
		else
			r = vi_fileio_read_all(src, buf, VI_MANIFEST_MAX, &len);
		if (r < 0)
			return die(r == -EFBIG ? EXIT_INVALID : EXIT_IO, "%s: %s", src,
				   r == -EFBIG ? "too large for a manifest" : io_reason(r));
	}
	if (bundle || embedded) {
		r = vi_bundle_split(buf, len, &man_len, &sig_off, &sig_len, &err);
		if (r < 0)
			return die(EXIT_INVALID, "%s: %s", src, err.msg);
		man = buf;
		sig = buf + sig_off;
	} else {
		if (!sigpath) {
			snprintf(path, sizeof(path), "%s.minisig", src);
			sigpath = path;
		}
		r = vi_fileio_read_all(sigpath, sigbuf, sizeof(sigbuf), &sig_len);
		if (r < 0)
			return die(r == -EFBIG ? EXIT_INVALID : EXIT_IO, "%s: %s", sigpath,
				   r == -EFBIG ? "too large for a minisign signature" : io_reason(r));
		man = buf;
		man_len = len;
		sig = sigbuf;
	}
	r = vi_manifest_verify(&keys, man, man_len, sig, sig_len, min_version, &m, &k, &err);
	if (r < 0)
		return die(r == -EINVAL || r == -E2BIG ? EXIT_INVALID : EXIT_MISMATCH, "%s: %s", src,
			   err.msg);
	vi_minisign_key_id_format(keys.key[k].key_id, id);
	vi_hex_encode(m.root_hash, m.root_hash_len, hex, sizeof(hex));
	printf("verified=yes\nmanifest_version=%" PRIu64 "\nminisign_key_id=%s\nkey_file=%s\n"
	       "root_hash=%s\ndata_device=%s\n", m.version, id, keys.file[k], hex, m.data.spec);
	return 0;
}

/* ---- sign ----------------------------------------------------------------------------------- */

int image_sign_main(int argc, char **argv)
{
	struct sign_opts o;
	struct vi_params p = { 0 };
	struct vi_geometry g = { 0 };
	uint8_t root[VERITY_MAX_DIGEST];
	char root_hex[2 * VERITY_MAX_DIGEST + 1];
	int fd, r;

	r = parse_args(argc, argv, &o);
	if (r)
		return r < 0 ? 0 : r;
	if (!o.hash_path)
		return die(EXIT_USAGE, "no hash device");
	if (sodium_init() < 0)
		return die(EXIT_INTERNAL, "libsodium initialisation failed");
	r = vi_fileio_open_input(o.hash_path, o.embed ? O_RDWR : O_RDONLY, 0, &fd);
	if (r < 0)
		return die(EXIT_IO, "%s: %s", o.hash_path, io_reason(r));
	r = load_image(&o, fd, &p, &g, root);
	if (r)
		goto out;
	vi_hex_encode(root, g.digest_size, root_hex, sizeof(root_hex));
	printf("root_hash=%s\n", root_hex);
	if (o.mkey) {
		r = sign_manifest(&o, fd, &p, &g, root);
		if (r)
			goto out;
	}
	if (o.pkey)
		r = sign_pkcs7(&o, root_hex);
out:
	close(fd);
	return r;
}
