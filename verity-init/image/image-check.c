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
				   r == -EFBIG ? "too large for a manifest" : image_io_reason(r));
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
				   r == -EFBIG ? "too large for a minisign signature" : image_io_reason(r));
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
