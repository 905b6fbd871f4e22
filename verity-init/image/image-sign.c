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
 * Either path can also run without its private key on this machine: the PKCS#7 key may be on a
 * PKCS#11 token (image-pkcs11.c), and each path can prepare the exact bytes to be signed
 * (--prepare-manifest, --prepare-pkcs7) and, in a second run on the same image, join a signature
 * made elsewhere (--minisign-signature, --pkcs7-signature), which is verified first.
 *
 * The parameters come from the superblock on the hash device; the root hash is computed from
 * the top hash block (and must equal --root-hash when given). This file: the options, the image
 * loaded, and the command itself; path 2 is written by image-manifest.c (image-manifest.h),
 * path 1 by image-pkcs7.c (image-pkcs7.h). Every output file is staged (image-io.c) and put in
 * place only when all of them are complete; the bundle on the hash device is written last. Exit
 * codes: verity-init/image/prog.h. */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "blockhash.h"
#include "digest.h"
#include "fileio.h"
#include "geometry.h"
#include "hex.h"
#include "image-io.h"
#include "image-manifest.h"
#include "image-pkcs7.h"
#include "params.h"
#include "prog.h"
#include "superblock.h"

static const char usage_text[] =
	"Usage: verity-image sign HASH-DEVICE --data-device SPEC [options]\n"
	"Parameters come from the superblock on HASH-DEVICE (at --hash-offset, default 0).\n"
	"  --data-device SPEC        data device as the agent will find it (PARTUUID=, /dev/...)\n"
	"  --hash-device SPEC        hash device, when it is not the data device\n"
	"  --hash-offset BYTES       superblock position on HASH-DEVICE\n"
	"  --root-hash HEX           expected root hash (checked against the tree)\n"
	"Signed manifest (path 2, minisign):\n"
	"  --minisign-key FILE       unencrypted minisign secret key (minisign -G -W)\n"
	"  --prepare-manifest FILE   write the manifest to be signed elsewhere (minisign -S)\n"
	"  --minisign-signature FILE join that signature (FILE.minisig) made elsewhere ...\n"
	"  --minisign-signing-helper PROG  ... or sign here, PROG making each Ed25519 signature\n"
	"                            (message on stdin, 64 bytes out; e.g. pkcs11-tool on a token)\n"
	"  --public-key FILE         ... either checked with this minisign public key\n"
	"  --version N               manifest version (anti-rollback), >= 1\n"
	"  --manifest FILE           write FILE and FILE.minisig\n"
	"  --bundle FILE             write manifest+signature as one bundle (for a partition)\n"
	"  --embed                   write the bundle on HASH-DEVICE after the tree\n"
	"  --trusted-comment TEXT    minisign trusted comment\n"
	"  --fec-device SPEC --fec-offset BYTES --fec-roots N\n"
	"  --on-corruption eio|ignore|restart|panic  --on-error eio|restart|panic\n"
	"  --ignore-zero-blocks  --check-at-most-once\n"
	"Kernel-verified signature (path 1, PKCS#7):\n"
	"  --pkcs7-key PEM|URI       the private key: a PEM file or a PKCS#11 URI (pkcs11:...;\n"
	"                            PIN in the URI's pin-source or $VERITY_INIT_PKCS11_PIN)\n"
	"  --pkcs7-cert PEM          its certificate\n"
	"  --prepare-pkcs7 FILE      write the bytes to be signed elsewhere (the root hash text)\n"
	"  --pkcs7-signature FILE    join a signature of them made elsewhere (DER PKCS#7, or raw\n"
	"                            with SHA-256), once it verifies with --pkcs7-cert\n"
	"  --p7s FILE                write roothash.p7s (DER)\n"
	"  --dps-sig FILE            write systemd's verity-signature partition JSON\n";

enum {
	O_DATA = 256, O_HASHDEV, O_OFFSET, O_ROOT, O_MKEY, O_VERSION, O_MANIFEST, O_BUNDLE,
	O_EMBED, O_TC, O_FEC, O_FEC_OFF, O_FEC_ROOTS, O_CORRUPT, O_ERROR, O_ZERO, O_ONCE,
	O_PKEY, O_PCERT, O_P7S, O_DPS, O_MSIG, O_MHELP, O_PUB, O_MPREP, O_PSIG, O_PPREP, O_HELP,
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
	{ "minisign-signature", required_argument, NULL, O_MSIG },
	{ "minisign-signing-helper", required_argument, NULL, O_MHELP },
	{ "public-key", required_argument, NULL, O_PUB },
	{ "prepare-manifest", required_argument, NULL, O_MPREP },
	{ "pkcs7-signature", required_argument, NULL, O_PSIG },
	{ "prepare-pkcs7", required_argument, NULL, O_PPREP },
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};


/* `verity-image sign`'s options: the hash device and each trust path's own. */
struct sign_opts {
	const char *hash_path;
	uint64_t hash_offset;
	const char *root_hex;
	struct sign_manifest_opts man;   /* path 2: --minisign-key, its join or --prepare-manifest */
	struct sign_pkcs7_opts p7;       /* path 1: --pkcs7-key, its join or --prepare-pkcs7 */
};

/* How many of the three ways of a path were asked for. */
static int count3(const void *a, const void *b, const void *c)
{
	return (a != NULL) + (b != NULL) + (c != NULL);
}

/* Each path is signed here, joined or prepared, with the options that way needs. */
static int check_modes(const struct sign_opts *o)
{
	const struct sign_manifest_opts *m = &o->man;
	const struct sign_pkcs7_opts *p = &o->p7;
	bool m_out = m->manifest || m->bundle || m->embed, p_out = p->p7s || p->dps;

	if (count3(m->key, m->sig, m->prepare) + (m->helper != NULL) > 1)
		return die(EXIT_USAGE, "--minisign-key, --minisign-signing-helper, "
			   "--minisign-signature and --prepare-manifest exclude each other (sign here, "
			   "join, or prepare)");
	if (!(m->sig || m->helper) != !m->pubkey)
		return die(EXIT_USAGE, "--public-key goes with --minisign-signature or "
			   "--minisign-signing-helper, and they need it");
	if (m->prepare && (m_out || m->tc))
		return die(EXIT_USAGE, "--prepare-manifest writes only the manifest to be signed: "
			   "--manifest, --bundle, --embed and --trusted-comment belong to the join");
	if (!m->key && !m->sig && !m->helper && m_out)
		return die(EXIT_USAGE, "--manifest/--bundle/--embed need --minisign-key, "
			   "--minisign-signing-helper or --minisign-signature");
	if ((m->key || m->sig || m->helper) && !m_out)
		return die(EXIT_USAGE, "%s needs --manifest, --bundle or --embed",
			   m->key ? "--minisign-key" : m->sig ? "--minisign-signature" :
			   "--minisign-signing-helper");
	if (m->sig && m->tc)
		return die(EXIT_USAGE, "--trusted-comment: a joined signature has its own");
	if ((m->key || m->sig || m->helper || m->prepare) && m->version == 0)
		return die(EXIT_USAGE, "--version N (>= 1) is required for a manifest");
	if (count3(p->key, p->sig, p->prepare) > 1)
		return die(EXIT_USAGE, "--pkcs7-key, --pkcs7-signature and --prepare-pkcs7 exclude "
			   "each other (sign here, join, or prepare)");
	if (p->prepare && (p_out || p->cert))
		return die(EXIT_USAGE, "--prepare-pkcs7 writes only the bytes to be signed: "
			   "--pkcs7-cert, --p7s and --dps-sig belong to the join");
	if ((p->key || p->sig) && !p->cert)
		return die(EXIT_USAGE, "%s needs --pkcs7-cert",
			   p->key ? "--pkcs7-key" : "--pkcs7-signature");
	if (p->cert && !p->key && !p->sig)
		return die(EXIT_USAGE, "--pkcs7-cert needs --pkcs7-key or --pkcs7-signature");
	if ((p->key || p->sig) && !p_out)
		return die(EXIT_USAGE, "%s needs --p7s or --dps-sig",
			   p->key ? "--pkcs7-key" : "--pkcs7-signature");
	if (p_out && !p->key && !p->sig)
		return die(EXIT_USAGE, "--p7s/--dps-sig need --pkcs7-key or --pkcs7-signature "
			   "(with --pkcs7-cert)");
	if (!m->key && !m->sig && !m->helper && !m->prepare && !p->key && !p->sig && !p->prepare)
		return die(EXIT_USAGE, "nothing to do: give --minisign-key and/or --pkcs7-key (or "
			   "their --prepare-* / signature options)");
	return 0;
}

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
		case O_DATA: o->man.data_spec = a; break;
		case O_HASHDEV: o->man.hash_spec = a; break;
		case O_ROOT: o->root_hex = a; break;
		case O_MKEY: o->man.key = a; break;
		case O_MANIFEST: o->man.manifest = a; break;
		case O_BUNDLE: o->man.bundle = a; break;
		case O_EMBED: o->man.embed = true; break;
		case O_TC: o->man.tc = a; break;
		case O_FEC: o->man.fec_spec = a; break;
		case O_ZERO: o->man.opts.ignore_zero_blocks = true; break;
		case O_ONCE: o->man.opts.check_at_most_once = true; break;
		case O_PKEY: o->p7.key = a; break;
		case O_PCERT: o->p7.cert = a; break;
		case O_P7S: o->p7.p7s = a; break;
		case O_DPS: o->p7.dps = a; break;
		case O_MSIG: o->man.sig = a; break;
		case O_MHELP: o->man.helper = a; break;
		case O_PUB: o->man.pubkey = a; break;
		case O_MPREP: o->man.prepare = a; break;
		case O_PSIG: o->p7.sig = a; break;
		case O_PPREP: o->p7.prepare = a; break;
		case O_OFFSET:
		case O_FEC_OFF:
		case O_VERSION:
		case O_FEC_ROOTS:
			if (prog_parse_u64(a, &v) < 0)
				return die(EXIT_USAGE, "invalid number '%s'", a);
			if (c == O_OFFSET)
				o->hash_offset = v;
			else if (c == O_FEC_OFF)
				o->man.fec_offset = v;
			else if (c == O_VERSION)
				o->man.version = v;
			else if (v > 255)
				return die(EXIT_USAGE, "invalid --fec-roots '%s'", a);
			else
				o->man.fec_roots = (uint32_t)v;
			break;
		case O_CORRUPT:
			/* the manifest's words (lib/config/params.c) */
			if (vi_corruption_lookup(a, strlen(a), VI_SPELL_MANIFEST,
						 &o->man.opts.corruption) < 0)
				return die(EXIT_USAGE, "invalid --on-corruption '%s'", a);
			break;
		case O_ERROR:
			if (vi_ioerror_lookup(a, strlen(a), VI_SPELL_MANIFEST,
					      &o->man.opts.ioerror) < 0)
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
	if (!o->man.data_spec)
		return die(EXIT_USAGE, "--data-device SPEC is required (how the agent finds it)");
	return check_modes(o);
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

/* ---- sign ----------------------------------------------------------------------------------- */

int image_sign_main(int argc, char **argv)
{
	struct sign_opts o;
	struct vi_params p = { 0 };
	struct vi_geometry g = { 0 };
	struct image_outputs outs = { .n = 0 };
	uint8_t root[VERITY_MAX_DIGEST];
	char root_hex[2 * VERITY_MAX_DIGEST + 1];
	struct image_commit_failure failed;
	char why[16384];
	int fd, r;

	r = parse_args(argc, argv, &o);
	if (r)
		return r < 0 ? 0 : r;
	if (!o.hash_path)
		return die(EXIT_USAGE, "no hash device");
	if (sodium_init() < 0)
		return die(EXIT_INTERNAL, "libsodium initialisation failed");
	r = vi_fileio_open_input(o.hash_path, o.man.embed ? O_RDWR : O_RDONLY, 0, &fd);
	if (r < 0)
		return die(EXIT_IO, "%s: %s", o.hash_path, image_io_reason(r));
	r = load_image(&o, fd, &p, &g, root);
	if (r)
		goto out;
	vi_hex_encode(root, g.digest_size, root_hex, sizeof(root_hex));
	printf("root_hash=%s\n", root_hex);
	/* path 1 first; the commit writes the bundle on the hash device after every file */
	if (o.p7.key || o.p7.sig || o.p7.prepare) {
		r = sign_pkcs7(&o.p7, root_hex, &outs);
		if (r)
			goto out;
	}
	if (o.man.key || o.man.sig || o.man.helper || o.man.prepare) {
		r = sign_manifest(&o.man, o.hash_path, fd, &p, &g, root, &outs);
		if (r)
			goto out;
	}
	r = image_outputs_commit(&outs, &failed);
	if (r < 0) {
		image_commit_reason(&failed, r, why, sizeof(why));
		r = die(EXIT_IO, "%s", why);
	}
out:
	image_outputs_abort(&outs);
	close(fd);
	return r;
}
