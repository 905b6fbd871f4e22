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
 * the top hash block (and must equal --root-hash when given). This file: the options, the image
 * loaded, the output-file rules, and the command itself; path 2 is written by image-manifest.c,
 * path 1 by image-pkcs7.c (image-sign.h). Exit codes: verity-init/image/prog.h. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "blockhash.h"
#include "digest.h"
#include "fileio.h"
#include "geometry.h"
#include "hex.h"
#include "image-sign.h"
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
		case O_ZERO: o->opts.ignore_zero_blocks = true; break;
		case O_ONCE: o->opts.check_at_most_once = true; break;
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
			if (vi_corruption_lookup(a, strlen(a), VI_SPELL_MANIFEST,
						 &o->opts.corruption) < 0)
				return die(EXIT_USAGE, "invalid --on-corruption '%s'", a);
			break;
		case O_ERROR:
			if (vi_ioerror_lookup(a, strlen(a), VI_SPELL_MANIFEST,
					      &o->opts.ioerror) < 0)
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
const char *sign_io_reason(int r)
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
int sign_write_file(const char *path, const void *buf, size_t len)
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
		return die(EXIT_IO, "%s: %s", o.hash_path, sign_io_reason(r));
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
