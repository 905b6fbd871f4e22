// SPDX-License-Identifier: LGPL-2.1-or-later
/* `verity-image check-manifest`: a signed manifest verified exactly as the agent does it
 * (vi_manifest_verify), from a manifest and its .minisig, a bundle file, or the bundle stored on
 * a hash device after its tree. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "hex.h"
#include "image-io.h"
#include "manifest.h"
#include "minisign.h"
#include "prog.h"
#include "superblock.h"

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
			   r == -EFBIG ? "too large for a minisign key" : image_io_reason(r));
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
		return die(EXIT_IO, "%s: %s", src, image_io_reason(r));
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

/* check-manifest's options. */
struct check_opts {
	const char *src;          /* SOURCE */
	const char *sigpath;      /* --signature; NULL: SOURCE.minisig */
	uint64_t min_version, hash_offset;
	bool bundle, embedded;
};

/* argv into o, each --public-key into keys. 0; -1 after --help; else the exit code, the error
 * printed. */
static int parse_check_args(int argc, char **argv, struct check_opts *o, struct vi_keyset *keys)
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
	int c, r;

	optind = 1;
	opterr = 0;
	keys->n = 0;
	while ((c = getopt_long(argc, argv, ":", copts, NULL)) != -1) {
		switch (c) {
		case 'k':
			r = add_key(keys, optarg);
			if (r)
				return r;
			break;
		case 's': o->sigpath = optarg; break;
		case 'b': o->bundle = true; break;
		case 'e': o->embedded = true; break;
		case 'm':
		case 'o':
			if (prog_parse_u64(optarg, c == 'm' ? &o->min_version : &o->hash_offset) < 0)
				return die(EXIT_USAGE, "invalid number '%s'", optarg);
			break;
		case 'h':
			fputs(check_usage, stdout);
			return -1;
		default:
			fputs(check_usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || keys->n == 0 || (o->bundle && o->embedded) ||
	    (o->sigpath && (o->bundle || o->embedded))) {
		fputs(check_usage, stderr);
		return EXIT_USAGE;
	}
	o->src = argv[optind];
	return 0;
}

/* A manifest and its signature as read. */
struct signed_manifest {
	const char *man, *sig;
	size_t man_len, sig_len;
};

/* The manifest and its signature from o's source: the bundle (on a hash device, or a file)
 * split, or a manifest file and its signature file; read into buf and sigbuf. 0 or the exit
 * code, the error printed. */
static int read_source(const struct check_opts *o, char *buf, size_t size, char *sigbuf,
		       size_t sigsize, struct signed_manifest *ret)
{
	struct vi_error err = { "" };
	const char *sigpath = o->sigpath;
	char path[4096];
	size_t len = 0, sig_off = 0;
	int r;

	if (o->embedded) {
		r = read_embedded(o->src, o->hash_offset, buf, size, &len);
		if (r)
			return r;
	} else {
		/* a bundle partition image: only its first VI_BUNDLE_MAX bytes matter, as for the
		 * agent; a manifest must fit whole */
		if (o->bundle)
			r = vi_fileio_read_head(o->src, buf, size, &len, NULL);
		else
			r = vi_fileio_read_all(o->src, buf, VI_MANIFEST_MAX, &len);
		if (r < 0)
			return die(r == -EFBIG ? EXIT_INVALID : EXIT_IO, "%s: %s", o->src,
				   r == -EFBIG ? "too large for a manifest" : image_io_reason(r));
	}
	ret->man = buf;
	if (o->bundle || o->embedded) {
		r = vi_bundle_split(buf, len, &ret->man_len, &sig_off, &ret->sig_len, &err);
		if (r < 0)
			return die(EXIT_INVALID, "%s: %s", o->src, err.msg);
		ret->sig = buf + sig_off;
		return 0;
	}
	if (!sigpath) {
		snprintf(path, sizeof(path), "%s.minisig", o->src);
		sigpath = path;
	}
	r = vi_fileio_read_all(sigpath, sigbuf, sigsize, &ret->sig_len);
	if (r < 0)
		return die(r == -EFBIG ? EXIT_INVALID : EXIT_IO, "%s: %s", sigpath,
			   r == -EFBIG ? "too large for a minisign signature" : image_io_reason(r));
	ret->man_len = len;
	ret->sig = sigbuf;
	return 0;
}

int image_check_manifest_main(int argc, char **argv)
{
	static struct vi_keyset keys;
	static char buf[VI_BUNDLE_MAX], sigbuf[MINISIGN_MAX_FILE];
	struct check_opts o = { 0 };
	struct signed_manifest sm = { 0 };
	struct vi_error err = { "" };
	struct vi_manifest m;
	char id[17], hex[2 * VERITY_MAX_DIGEST + 1];
	unsigned k = 0;
	int r;

	r = parse_check_args(argc, argv, &o, &keys);
	if (r)
		return r < 0 ? 0 : r;
	r = read_source(&o, buf, sizeof(buf), sigbuf, sizeof(sigbuf), &sm);
	if (r)
		return r;
	r = vi_manifest_verify(&keys, sm.man, sm.man_len, sm.sig, sm.sig_len, o.min_version, &m,
			       &k, &err);
	if (r < 0)
		return die(r == -EINVAL || r == -E2BIG ? EXIT_INVALID : EXIT_MISMATCH, "%s: %s",
			   o.src, err.msg);
	vi_minisign_key_id_format(keys.key[k].key_id, id);
	vi_hex_encode(m.root_hash, m.root_hash_len, hex, sizeof(hex));
	printf("verified=yes\nmanifest_version=%" PRIu64 "\nminisign_key_id=%s\nkey_file=%s\n"
	       "root_hash=%s\ndata_device=%s\n", m.version, id, keys.file[k], hex, m.data.spec);
	return 0;
}
