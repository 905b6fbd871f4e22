// SPDX-License-Identifier: LGPL-2.1-or-later
/* veritysetup's three commands on an image (image.h): format writes the superblock, the hash
 * tree (lib/format/tree.c) and the FEC parity; verify checks them, and with FEC says whether a
 * mismatch is repairable; dump prints what the superblock says. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "digest.h"
#include "hex.h"
#include "image.h"
#include "image-io.h"
#include "params.h"
#include "prog.h"
#include "strutil.h"
#include "tree.h"

/* --root-hash-file for format: the hex digits, no newline, as veritysetup writes it, but put in
 * place as sign's outputs are (image-io.h), after the tree and the parity are synced: a run
 * that fails leaves the old file whole, which then names another tree, rather than a truncated
 * one. Never written through a symlink, unlike veritysetup's; the hash and FEC devices may be
 * links, this file has no reason to. */
static int write_root_hash_file(const char *path, const char *root_hex)
{
	struct image_outputs outs = { .n = 0 };
	struct image_commit_failure failed;
	char why[16384];
	int r;

	r = image_outputs_add(&outs, path, root_hex, strlen(root_hex));
	if (r < 0)
		return die(EXIT_IO, "cannot write %s: %s", path, image_io_reason(r));
	r = image_outputs_commit(&outs, &failed);
	if (r < 0) {
		image_commit_reason(&failed, r, why, sizeof(why));
		return die(EXIT_IO, "%s", why);
	}
	return 0;
}

/* For reproducible builds (SOURCE_DATE_EPOCH set): the salt and UUID that were not given,
 * derived from the data's content instead of drawn at random, so that the same data gives the
 * same hash device. seed = SHA-256(label | every data byte); salt = SHA-256("salt" | seed), uuid
 * = the first 16 bytes of SHA-256("uuid" | seed) as a version 4 UUID. Two images of different
 * content never share them; the same data formatted twice always does, which is the point. */
static int derive_from_data(const struct image *img, struct vi_params *p, bool salt, bool uuid)
{
	static const char label[] = "verity-image reproducible format";
	uint64_t left = p->data_blocks * (uint64_t)p->data_block_size, off = 0;
	uint8_t seed[32], d[32], *buf = malloc(1u << 20);
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	int r = EXIT_INTERNAL;

	if (!buf || !md || !EVP_DigestInit_ex(md, EVP_sha256(), NULL) ||
	    !EVP_DigestUpdate(md, label, sizeof(label))) {
		r = die(EXIT_INTERNAL, "SHA-256 unavailable");
		goto out;
	}
	while (left > 0) {
		size_t want = left < (1u << 20) ? (size_t)left : (1u << 20);
		ssize_t n = pread(img->data_fd, buf, want, (off_t)off);

		if (n <= 0) {
			r = die(EXIT_IO, "%s: cannot read the data to derive the salt: %s",
				img->data_path, n < 0 ? strerror(errno) : "short device");
			goto out;
		}
		if (!EVP_DigestUpdate(md, buf, (size_t)n))
			goto out;
		off += (uint64_t)n;
		left -= (uint64_t)n;
	}
	if (!EVP_DigestFinal_ex(md, seed, NULL))
		goto out;
	if (salt) {
		if (!EVP_DigestInit_ex(md, EVP_sha256(), NULL) || !EVP_DigestUpdate(md, "salt", 4) ||
		    !EVP_DigestUpdate(md, seed, sizeof(seed)) || !EVP_DigestFinal_ex(md, d, NULL))
			goto out;
		memcpy(p->salt, d, 32);
		p->salt_size = 32;
	}
	if (uuid) {
		if (!EVP_DigestInit_ex(md, EVP_sha256(), NULL) || !EVP_DigestUpdate(md, "uuid", 4) ||
		    !EVP_DigestUpdate(md, seed, sizeof(seed)) || !EVP_DigestFinal_ex(md, d, NULL))
			goto out;
		memcpy(p->uuid, d, 16);
		p->uuid[6] = (uint8_t)((p->uuid[6] & 0x0f) | 0x40);
		p->uuid[8] = (uint8_t)((p->uuid[8] & 0x3f) | 0x80);
	}
	r = 0;
out:
	EVP_MD_CTX_free(md);
	free(buf);
	return r;
}

int image_cmd_format(struct image_opts *o)
{
	struct vi_tree_opts to = { .ops = &vi_digest_openssl_ops, .threads = o->threads };
	struct image_progress pr = { .on = isatty(STDERR_FILENO) && !o->json && !o->quiet };
	uint8_t root[VERITY_MAX_DIGEST];
	char root_hex[2 * VERITY_MAX_DIGEST + 1];
	struct vi_params *p = &o->p;
	struct vi_error err = { "" };
	struct image img;
	int r;

	if (o->nargs != 2)
		return die(EXIT_USAGE, "usage: format DATA HASH [options]");
	{
		long page = sysconf(_SC_PAGESIZE);

		if (page > 0 && p->data_block_size > (unsigned long)page)
			fprintf(stderr, "WARNING: Kernel cannot activate device if data block size "
				"exceeds page size (%ld).\n", page);
	}
	if (!(o->given & VI_GIVEN_SALT)) {
		p->salt_size = 32;
		if (getrandom(p->salt, 32, 0) != 32)
			return die(EXIT_INTERNAL, "getrandom: %s", strerror(errno));
	}
	if (!(o->given & VI_GIVEN_UUID) && !p->no_superblock) {
		if (getrandom(p->uuid, 16, 0) != 16)
			return die(EXIT_INTERNAL, "getrandom: %s", strerror(errno));
		p->uuid[6] = (uint8_t)((p->uuid[6] & 0x0f) | 0x40);   /* version 4 */
		p->uuid[8] = (uint8_t)((p->uuid[8] & 0x3f) | 0x80);   /* RFC 4122 variant */
	}
	if (p->no_superblock)
		memset(p->uuid, 0, sizeof(p->uuid));

	r = image_open(o, IMAGE_FORMAT, &img);
	if (r)
		return r;
	if (getenv("SOURCE_DATE_EPOCH") &&
	    (!(o->given & VI_GIVEN_SALT) || (!(o->given & VI_GIVEN_UUID) && !img.p.no_superblock))) {
		r = derive_from_data(&img, &img.p, !(o->given & VI_GIVEN_SALT),
				     !(o->given & VI_GIVEN_UUID) && !img.p.no_superblock);
		if (r) {
			image_close(&img);
			return r;
		}
	}
	/* Every FEC rule is checked before anything is written. */
	r = image_open_fec(o, O_RDWR | O_CREAT, &img);
	if (r)
		return r;
	p = &img.p;
	/* As veritysetup: accepted (multiple of 512), but the table's fec_start counts blocks. */
	if (img.fec.on && img.fec.offset % p->data_block_size)
		fprintf(stderr, "WARNING: FEC offset %" PRIu64 " is not a multiple of the block size "
			"(%u): the kernel cannot use this parity.\n", img.fec.offset,
			p->data_block_size);

	to.progress = image_progress_cb;
	to.userdata = &pr;
	clock_gettime(CLOCK_MONOTONIC, &pr.t0);
	r = vi_tree_build(img.data_fd, img.hash_fd, p, &to, root, sizeof(root), &err);
	image_progress_end(&pr);
	if (r < 0) {
		r = die(prog_code_of(r), "%s", err.msg);
		goto out;
	}
	if (fdatasync(img.hash_fd) < 0 && errno != EINVAL) {
		r = die(EXIT_IO, "cannot sync %s: %s", o->args[1], strerror(errno));
		goto out;
	}
	if (img.fec.on) {
		struct image_progress fpr = { .on = pr.on, .label = "FEC " };
		struct vi_fec_opts fo = { .threads = o->threads, .progress = image_progress_cb,
					      .userdata = &fpr };

		clock_gettime(CLOCK_MONOTONIC, &fpr.t0);
		r = vi_fec_encode(&img.fec.g, img.data_fd, img.hash_fd, img.fec_fd,
				      img.fec.offset, &fo, &err);
		image_progress_end(&fpr);
		if (r < 0) {
			r = die(prog_code_of(r), "%s", err.msg);
			goto out;
		}
		if (fdatasync(img.fec_fd) < 0 && errno != EINVAL) {
			r = die(EXIT_IO, "cannot sync %s: %s", o->fec_device, strerror(errno));
			goto out;
		}
	}
	vi_hex_encode(root, img.g.digest_size, root_hex, sizeof(root_hex));

	if (o->root_hash_file) {
		r = write_root_hash_file(o->root_hash_file, root_hex);
		if (r)
			goto out;
	}
	if (o->json) {
		image_print_json(p, &img.g, &img.fec, o->fec_device, root_hex);
	} else if (o->quiet) {
		printf("%s\n", root_hex);
	} else {
		image_print_header(o->args[1], p, &img.g, o->uuid_text, o->hash_text, &img.fec);
		printf("Root hash:      \t%s\n", root_hex);
		image_print_sizes(p, &img.g, &img.fec);
	}
	r = 0;
out:
	image_close(&img);
	return r;
}

int image_cmd_verify(struct image_opts *o)
{
	struct vi_tree_opts to = { .ops = &vi_digest_openssl_ops, .threads = o->threads };
	struct image_progress pr = { .on = isatty(STDERR_FILENO) && !o->json && !o->quiet };
	uint8_t root[VERITY_MAX_DIGEST];
	struct vi_error err = { "" }, ferr = { "" };
	struct vi_bad bad;
	struct vi_fec_bad fbad = { 0, 0, 0, 0, false };
	struct image img;
	bool fec_bad = false, fec_checked = false, fec_failed = false;
	int r;

	if (o->nargs != 2 && o->nargs != 3)
		return die(EXIT_USAGE, "usage: verify DATA HASH [ROOTHASH] [options]");
	r = image_open(o, IMAGE_VERIFY, &img);
	if (r)
		return r;
	r = image_read_root_hash(o, o->nargs == 3 ? o->args[2] : NULL, root, img.g.digest_size);
	if (r)
		goto out;
	r = image_open_fec(o, O_RDONLY, &img);
	if (r)
		return r;

	to.progress = image_progress_cb;
	to.userdata = &pr;
	clock_gettime(CLOCK_MONOTONIC, &pr.t0);
	r = vi_tree_verify(img.data_fd, img.hash_fd, &img.p, root, img.g.digest_size, &to,
			       &bad, &err);
	image_progress_end(&pr);
	/* Then the parity, recomputed from the data and tree and every differing RS block
	 * decoded: after a good tree, whether the parity is right; after a mismatch, whether
	 * dm-verity's FEC would repair it (veritysetup's "Found N repairable errors"). */
	if ((r == 0 || r == -EPERM) && img.fec.on) {
		struct image_progress fpr = { .on = pr.on, .label = "FEC " };
		struct vi_fec_opts fo = { .threads = o->threads, .progress = image_progress_cb,
					      .userdata = &fpr };
		int fr;

		clock_gettime(CLOCK_MONOTONIC, &fpr.t0);
		fr = vi_fec_verify(&img.fec.g, img.data_fd, img.hash_fd, img.fec_fd,
				       img.fec.offset, &fo, &fbad, &ferr);
		image_progress_end(&fpr);
		fec_checked = fr == 0 || fr == -EPERM;
		if (r == 0) {
			r = fr;
			fec_bad = fr == -EPERM;
			err = ferr;
		} else if (fec_checked) {
			/* one line: the tree's mismatch and what FEC can do about it */
			size_t l = strlen(err.msg);

			if (fbad.uncorrectable)
				snprintf(err.msg + l, sizeof(err.msg) - l, "; FEC cannot repair it "
					 "(RS block %" PRIu64 " is beyond repair)", fbad.rsb);
			else if (fr == -EPERM)
				snprintf(err.msg + l, sizeof(err.msg) - l, "; FEC would repair it "
					 "(%" PRIu64 " repairable errors)", fbad.corrected);
			else
				snprintf(err.msg + l, sizeof(err.msg) - l, "; FEC finds no errors in "
					 "the data and tree: the root hash does not match them");
		} else {
			size_t l = strlen(err.msg);

			snprintf(err.msg + l, sizeof(err.msg) - l, "; FEC check failed: %s", ferr.msg);
			fec_failed = true;
		}
	}
	if (o->json) {
		printf("{\"ok\":%s", r == 0 ? "true" : "false");
		if (fec_bad)
			printf(",\"bad\":\"fec\",\"index\":%" PRIu64 ",\"offset\":%" PRIu64,
			       fbad.rsb, fbad.offset);
		else if (r == -EPERM)
			printf(",\"bad\":\"%s\",\"level\":%u,\"index\":%" PRIu64 ",\"offset\":%" PRIu64,
			       bad.kind == VERITY_BAD_DATA ? "data" : "hash", bad.level, bad.index,
			       bad.offset);
		if (fec_checked && r == -EPERM) {
			if (fbad.uncorrectable)
				printf(",\"fec_repairable\":false,\"fec_index\":%" PRIu64, fbad.rsb);
			else if (!fec_bad)   /* after a tree mismatch: what FEC repairs */
				printf(",\"fec_errors\":%" PRIu64, fbad.corrected);
		} else if (fec_failed) {
			printf(",\"fec_error\":");
			vi_json_quote(stdout, ferr.msg);
		}
		if (r < 0 && r != -EPERM) {
			printf(",\"error\":");
			vi_json_quote(stdout, err.msg);
		}
		printf("}\n");
	}
	if (r < 0)
		r = die(prog_code_of(r), "%s", err.msg);
	else
		r = 0;
out:
	image_close(&img);
	return r;
}

int image_cmd_dump(struct image_opts *o)
{
	struct image img;
	int r;

	if (o->nargs != 1)
		return die(EXIT_USAGE, "usage: dump HASH [--hash-offset N] [--fec-device F "
			   "[--fec-offset N] [--fec-roots N]] [--json]");
	if (o->p.no_superblock)
		return die(EXIT_USAGE, "dump reads the superblock; --no-superblock makes no sense");
	r = image_open(o, IMAGE_DUMP, &img);
	if (r)
		return r;
	/* As veritysetup dump: the FEC lines for the options given (the superblock has none). */
	r = image_open_fec(o, O_RDONLY, &img);
	if (r)
		return r;
	if (o->json) {
		image_print_json(&img.p, &img.g, &img.fec, o->fec_device, NULL);
	} else {
		image_print_header(o->args[0], &img.p, &img.g, NULL, NULL, &img.fec);
		image_print_sizes(&img.p, &img.g, &img.fec);
	}
	image_close(&img);
	return 0;
}
