// SPDX-License-Identifier: LGPL-2.1-or-later
/* verity-image: format, verify and dump dm-verity hash devices, byte-compatible with
 * veritysetup, on all cores; the command table of every subcommand (sign and check-manifest
 * are in image-sign.c). Orchestration only; the engine is lib/format/tree.c.
 *
 * Exit codes (docs/verity-image.8, verity-init/prog.h): 0 ok, 1 usage, 2 verification failed,
 * 3 I/O error, 4 invalid superblock or parameters, 5 internal error (memory, algorithm
 * unavailable). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "blockio.h"
#include "digest.h"
#include "fec.h"
#include "fileio.h"
#include "geometry.h"
#include "hex.h"
#include "params.h"
#include "prog.h"
#include "strutil.h"
#include "superblock.h"
#include "tree.h"
#include "workers.h"

/* ---- options ------------------------------------------------------------------------------ */

enum {
	OPT_HASH = 256, OPT_DBS, OPT_HBS, OPT_DATA_BLOCKS, OPT_HASH_OFFSET, OPT_SALT, OPT_UUID,
	OPT_FORMAT, OPT_NO_SB, OPT_RH_FILE, OPT_THREADS, OPT_JSON, OPT_QUIET, OPT_HELP,
	OPT_STYLE, OPT_VERBOSE, OPT_CHECK_ONCE, OPT_VERSION, OPT_FEC_DEVICE, OPT_FEC_OFFSET, OPT_FEC_ROOTS,
};

static const struct option long_opts[] = {
	{ "hash", required_argument, NULL, OPT_HASH },
	{ "data-block-size", required_argument, NULL, OPT_DBS },
	{ "hash-block-size", required_argument, NULL, OPT_HBS },
	{ "data-blocks", required_argument, NULL, OPT_DATA_BLOCKS },
	{ "hash-offset", required_argument, NULL, OPT_HASH_OFFSET },
	{ "salt", required_argument, NULL, OPT_SALT },
	{ "uuid", required_argument, NULL, OPT_UUID },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "no-superblock", no_argument, NULL, OPT_NO_SB },
	{ "root-hash-file", required_argument, NULL, OPT_RH_FILE },
	{ "fec-device", required_argument, NULL, OPT_FEC_DEVICE },
	{ "fec-offset", required_argument, NULL, OPT_FEC_OFFSET },
	{ "fec-roots", required_argument, NULL, OPT_FEC_ROOTS },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "style", required_argument, NULL, OPT_STYLE },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "usage", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	/* veritysetup's output switches: --verbose adds its "Command successful." or "Command
	 * failed" line; --debug implies --verbose there and has nothing more to say here */
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "debug", no_argument, NULL, OPT_VERBOSE },
	/* an activation option veritysetup's format and verify accept and ignore, so that one
	 * option list serves format and open */
	{ "check-at-most-once", no_argument, NULL, OPT_CHECK_ONCE },
	{ NULL, 0, NULL, 0 },
};
/* veritysetup's short options: -h hash, -s salt, -v verbose, -V version, -? help */
static const char short_opts[] = ":h:s:vV";

struct opts {
	struct vi_params p;   /* defaults applied */
	uint32_t given;           /* VI_GIVEN_* bits: which of p came from the command line */
	const char *root_hash_file;
	const char *fec_device;   /* --fec-device: a file for format/verify/dump, a spec for cmdline */
	uint64_t fec_offset;
	unsigned fec_roots;       /* VERITY_FEC_DEFAULT_ROOTS unless given */
	const char *uuid_text;    /* --uuid and --hash as given: printed back unchanged in format's */
	const char *hash_text;    /* report, as veritysetup does (the superblock has lower case) */
	unsigned threads;
	bool json, quiet, verbose;
	bool check_once;          /* --check-at-most-once: format and verify ignore it */
	const char *style;
	char **args;
	int nargs;
};


/* An option that sets a verity parameter (veritysetup's syntax; ranges from lib/config/params.c):
 * 0 done, -1 not such an option, else the exit code. */
static int param_option(int c, const char *a, struct opts *o)
{
	uint64_t v;
	uint32_t u;

	switch (c) {
	case 'h':
	case OPT_HASH: {
		/* veritysetup takes "SHA256" and writes "sha256" */
		size_t n = strlen(a);

		if (n >= sizeof(o->p.hash_name))
			return die(EXIT_USAGE, "unsupported hash algorithm '%s'", a);
		for (size_t i = 0; i <= n; i++)
			o->p.hash_name[i] = (char)(a[i] >= 'A' && a[i] <= 'Z' ? a[i] - 'A' + 'a'
									: a[i]);
		if (!vi_digest_size(o->p.hash_name))
			return die(EXIT_USAGE, "unsupported hash algorithm '%s'", a);
		o->hash_text = a;
		o->given |= VI_GIVEN_HASH_NAME;
		break;
	}
	case OPT_DBS:
	case OPT_HBS:
		/* a power of two the kernel target takes; 0 would divide by zero later */
		if (prog_parse_u32(a, &u) < 0 || !vi_block_size_ok(u))
			return die(EXIT_USAGE, "unsupported block size '%s' (a power of two, "
				   "%u to %u)", a, VERITY_MIN_BLOCK, VERITY_MAX_BLOCK);
		if (c == OPT_DBS) {
			o->p.data_block_size = u;
			o->given |= VI_GIVEN_DATA_BS;
		} else {
			o->p.hash_block_size = u;
			o->given |= VI_GIVEN_HASH_BS;
		}
		break;
	case OPT_DATA_BLOCKS:
		if (prog_parse_u64(a, &v) < 0)
			return die(EXIT_USAGE, "invalid --data-blocks '%s'", a);
		/* 0 is veritysetup's "the whole data device" */
		o->p.data_blocks = v;
		if (v)
			o->given |= VI_GIVEN_DATA_BLOCKS;
		else
			o->given &= ~VI_GIVEN_DATA_BLOCKS;
		break;
	case OPT_HASH_OFFSET:
		if (prog_parse_u64(a, &v) < 0)
			return die(EXIT_USAGE, "invalid --hash-offset '%s'", a);
		o->p.hash_offset = v;
		o->given |= VI_GIVEN_HASH_OFFSET;
		break;
	case 's':
	case OPT_SALT: {
		size_t n = 0;

		if (strcmp(a, "-") != 0 &&
		    vi_hex_decode(a, strlen(a), o->p.salt, sizeof(o->p.salt), &n) < 0)
			return die(EXIT_USAGE, "--salt must be '-' or up to %u bytes of hex",
				   VERITY_MAX_SALT);
		o->p.salt_size = (uint16_t)n;
		o->given |= VI_GIVEN_SALT;
		break;
	}
	case OPT_UUID:
		if (vi_uuid_parse(a, o->p.uuid) < 0)
			return die(EXIT_USAGE, "invalid --uuid '%s'", a);
		o->uuid_text = a;
		o->given |= VI_GIVEN_UUID;
		break;
	case OPT_FORMAT:
		if (prog_parse_u32(a, &u) < 0 || vi_param_range_check(VI_PARAM_FORMAT, u))
			return die(EXIT_USAGE, "--format must be 0 or 1");
		o->p.hash_type = u;
		o->given |= VI_GIVEN_FORMAT;
		break;
	case OPT_FEC_OFFSET:
		if (prog_parse_u64(a, &v) < 0)
			return die(EXIT_USAGE, "invalid --fec-offset '%s'", a);
		o->fec_offset = v;
		o->given |= VI_GIVEN_FEC_OFFSET;
		break;
	case OPT_FEC_ROOTS:
		/* veritysetup: "Invalid number of parity bytes." */
		if (prog_parse_u32(a, &u) < 0 || vi_param_range_check(VI_PARAM_FEC_ROOTS, u))
			return die(EXIT_USAGE, "--fec-roots must be %u..%u (parity bytes per RS "
				   "block)", VERITY_FEC_MIN_ROOTS, VERITY_FEC_MAX_ROOTS);
		o->fec_roots = u;
		o->given |= VI_GIVEN_FEC_ROOTS;
		break;
	default:
		return -1;
	}
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	uint32_t u;
	int c;

	memset(o, 0, sizeof(*o));
	vi_params_fill_defaults(&o->p, 0);
	o->fec_roots = VERITY_FEC_DEFAULT_ROOTS;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
		const char *a = optarg;
		int r = param_option(c, a, o);

		if (r > 0)
			return r;
		if (r == 0)
			continue;
		switch (c) {
		case OPT_NO_SB:
			o->p.no_superblock = true;
			break;
		case OPT_RH_FILE:
			o->root_hash_file = a;
			break;
		case OPT_FEC_DEVICE:
			o->fec_device = a;
			break;
		case OPT_THREADS:
			if (prog_parse_u32(a, &u) < 0 || u == 0 || u > VI_WORK_MAX_THREADS)
				return die(EXIT_USAGE, "--threads must be 1..%u", VI_WORK_MAX_THREADS);
			o->threads = u;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_QUIET:
			o->quiet = true;
			break;
		case OPT_STYLE:
			o->style = a;
			break;
		case OPT_HELP:
			return -1;
		case 'V':
		case OPT_VERSION:
			prog_print_version();
			return -2;
		case 'v':
		case OPT_VERBOSE:
			o->verbose = true;
			break;
		case OPT_CHECK_ONCE:
			o->check_once = true;
			break;
		case ':':
			return die(EXIT_USAGE, "option %s needs a value", argv[optind - 1]);
		case '?':
			if (optopt == '?')
				return -1;
			return die(EXIT_USAGE, "unknown option %s", argv[optind - 1]);
		default:
			return die(EXIT_USAGE, "unknown option %s", argv[optind - 1]);
		}
	}
	/* veritysetup ignores them without a device; a forgotten --fec-device is more likely */
	if (!o->fec_device && (o->given & (VI_GIVEN_FEC_OFFSET | VI_GIVEN_FEC_ROOTS)))
		return die(EXIT_USAGE, "--fec-offset and --fec-roots need --fec-device");
	o->args = argv + optind;
	o->nargs = argc - optind;
	return 0;
}

/* ---- output ------------------------------------------------------------------------------- */

struct progress {
	bool on;
	const char *label;        /* before the bar, for a second pass ("FEC ") */
	struct timespec t0;
	bool drawn;
};

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void progress_cb(void *userdata, uint64_t done, uint64_t total)
{
	struct progress *pr = userdata;
	double t = since(&pr->t0), rate = t > 0 ? (double)done / t : 0;
	int width = 30, fill = total ? (int)((double)done * width / (double)total) : width;
	char bar[32];

	if (!pr->on)
		return;
	for (int i = 0; i < width; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[width] = '\0';
	fprintf(stderr, "\r%s[%s] %5.1f%% %.1f/%.1f MiB %.2f GB/s ETA %.0fs ",
		pr->label ? pr->label : "", bar,
		total ? 100.0 * (double)done / (double)total : 100.0,
		(double)done / 1048576.0, (double)total / 1048576.0, rate / 1e9,
		rate > 0 ? (double)(total - done) / rate : 0.0);
	pr->drawn = true;
}

static void progress_end(struct progress *pr)
{
	if (pr->drawn)
		fputs("\r\033[K", stderr);
}

/* FEC of one run: --fec-device given (on), and where its area is. */
struct fec_info {
	bool on;
	bool on_hash;             /* the FEC area is on the hash device */
	uint64_t offset;
	struct vi_fec_geometry g;
};

static void print_header(const char *hash_path, const struct vi_params *p,
			 const struct vi_geometry *g, const char *uuid_text,
			 const char *hash_text, const struct fec_info *fec)
{
	char uuid[VERITY_UUID_STR_LEN + 1] = "";
	char salt[2 * VERITY_MAX_SALT + 1];

	if (!p->no_superblock && uuid_text && strlen(uuid_text) == VERITY_UUID_STR_LEN)
		memcpy(uuid, uuid_text, sizeof(uuid));   /* as given, letter case kept */
	else if (!p->no_superblock)
		vi_uuid_format(p->uuid, uuid);
	if (p->salt_size)
		vi_hex_encode(p->salt, p->salt_size, salt, sizeof(salt));
	else
		strcpy(salt, "-");
	/* Field names and the tab after them are veritysetup's. */
	printf("VERITY header information for %s\n", hash_path);
	printf("UUID:            \t%s\n", uuid);
	printf("Hash type:       \t%u\n", p->hash_type);
	printf("Data blocks:     \t%" PRIu64 "\n", p->data_blocks);
	printf("Data block size: \t%u\n", p->data_block_size);
	printf("Hash blocks:     \t%" PRIu64 "\n", g->hash_blocks);
	printf("Hash block size: \t%u\n", p->hash_block_size);
	printf("Hash algorithm:  \t%s\n", hash_text ? hash_text : p->hash_name);
	if (fec->on) {
		/* veritysetup's "FEC blocks" is the size of the parity area, in blocks */
		printf("FEC RS roots:   \t%u\n", fec->g.roots);
		printf("FEC blocks:     \t%" PRIu64 "\n", fec->g.parity_blocks);
	}
	printf("Salt:            \t%s\n", salt);
}

/* veritysetup's closing lines. Hash device: only with the superblock at 0, and with the FEC
 * area counted in when it shares the device, as if it followed the tree (whatever the offset).
 * FEC device: only for an area at 0 on its own device. */
static void print_sizes(const struct vi_params *p, const struct vi_geometry *g,
			const struct fec_info *fec)
{
	if (p->hash_offset == 0)
		printf("Hash device size: \t%" PRIu64 " [bytes]\n", g->hash_device_size +
		       (fec->on && fec->on_hash ? fec->g.size : 0));
	if (fec->on && !fec->on_hash && fec->offset == 0)
		printf("FEC device size: \t%" PRIu64 " [bytes]\n", fec->g.size);
}

/* A JSON string literal: quotes, backslashes and control characters escaped. */
static void json_string(const char *str)
{
	putchar('"');
	for (const unsigned char *c = (const unsigned char *)str; *c; c++) {
		if (*c == '"' || *c == '\\')
			printf("\\%c", *c);
		else if (*c < 0x20)
			printf("\\u%04x", *c);
		else
			putchar(*c);
	}
	putchar('"');
}

static void print_json(const struct vi_params *p, const struct vi_geometry *g,
		       const struct fec_info *fec, const char *fec_path, const char *root_hex)
{
	char uuid[VERITY_UUID_STR_LEN + 1] = "";
	char salt[2 * VERITY_MAX_SALT + 1] = "";

	if (!p->no_superblock)
		vi_uuid_format(p->uuid, uuid);
	vi_hex_encode(p->salt, p->salt_size, salt, sizeof(salt));
	printf("{\"superblock\":%s,\"uuid\":\"%s\",\"hash_type\":%u,\"data_blocks\":%" PRIu64
	       ",\"data_block_size\":%u,\"hash_blocks\":%" PRIu64 ",\"hash_block_size\":%u,"
	       "\"hash_algorithm\":\"%s\",\"salt\":\"%s\",\"hash_offset\":%" PRIu64
	       ",\"tree_offset\":%" PRIu64 ",\"hash_device_size\":%" PRIu64,
	       p->no_superblock ? "false" : "true", uuid, p->hash_type, p->data_blocks,
	       p->data_block_size, g->hash_blocks, p->hash_block_size, p->hash_name, salt,
	       p->hash_offset, g->tree_start * p->hash_block_size, g->hash_device_size);
	if (fec->on) {
		printf(",\"fec\":{\"device\":");
		json_string(fec_path);
		printf(",\"offset\":%" PRIu64 ",\"roots\":%u,\"fec_blocks\":%" PRIu64
		       ",\"rounds\":%" PRIu64 ",\"parity_blocks\":%" PRIu64 ",\"size\":%" PRIu64 "}",
		       fec->offset, fec->g.roots, fec->g.blocks, fec->g.rounds, fec->g.parity_blocks,
		       fec->g.size);
	}
	if (root_hex)
		printf(",\"root_hash\":\"%s\"", root_hex);
	printf("}\n");
}

/* ---- shared steps ------------------------------------------------------------------------- */

/* The reason for a negative errno from opening a path. */
static const char *open_reason(int r)
{
	if (r == -ENOTBLK)
		return "not a regular file or block device";
	if (r == -ELOOP)
		return "is a symbolic link (refused for a file this tool creates)";
	return strerror(-r);
}

/* Every path argument, input or output: a FIFO would block the open (or the first read) for
 * ever and a character device or directory is no image, so only regular files and block
 * devices are opened. Symlinks are followed: /dev/disk/by-partlabel/... name block devices. */
static int open_file(const char *path, int flags, int *ret_fd)
{
	int r = vi_fileio_open_input(path, flags, 0600, ret_fd);

	if (r < 0)
		return die(EXIT_IO, "cannot open %s: %s", path, open_reason(r));
	return 0;
}

/* Default data_blocks: the whole data device, in blocks. */
static int default_blocks(int data_fd, const char *path, struct vi_params *p)
{
	uint64_t size;
	int r = vi_fd_size(data_fd, &size);

	if (r < 0)
		return die(EXIT_IO, "cannot get the size of %s: %s", path, strerror(-r));
	p->data_blocks = size / p->data_block_size;
	if (!p->data_blocks)
		return die(EXIT_INVALID, "%s is smaller than one %u-byte block", path,
			   p->data_block_size);
	return 0;
}

static int read_sb(int hash_fd, const char *path, struct vi_params *p)
{
	uint8_t buf[VERITY_SB_SIZE];
	struct vi_error err = { "" };
	ssize_t n;

	if (p->hash_offset % 512)
		return die(EXIT_INVALID, "hash offset %" PRIu64 " is not a multiple of 512",
			   p->hash_offset);
	n = pread(hash_fd, buf, sizeof(buf), (off_t)p->hash_offset);
	if (n < 0)
		return die(EXIT_IO, "cannot read %s: %s", path, strerror(errno));
	if (n != (ssize_t)sizeof(buf))
		return die(EXIT_INVALID, "%s: no verity superblock at byte %" PRIu64
			   " (device too short)", path, p->hash_offset);
	if (vi_sb_decode(buf, p, &err) < 0)
		return die(EXIT_INVALID, "%s: %s", path, err.msg);
	return 0;
}

static int read_root_hash(const struct opts *o, const char *arg, uint8_t *root, unsigned ds)
{
	char text[2 * VERITY_MAX_DIGEST + 64];
	const char *hex = arg;

	if (o->root_hash_file) {
		size_t n = 0;
		int r = vi_fileio_read_head(o->root_hash_file, text, sizeof(text) - 1, &n, NULL);

		if (r < 0)
			return die(EXIT_IO, "cannot open %s: %s", o->root_hash_file, open_reason(r));
		text[n] = '\0';
		/* trailing white space (a newline, CRLF) is not part of the hash */
		while (n > 0 && strchr(" \t\r\n", text[n - 1]))
			text[--n] = '\0';
		/* both given: veritysetup would quietly use the file; they must agree here */
		if (arg && strcasecmp(arg, text) != 0)
			return die(EXIT_USAGE, "the root hash and --root-hash-file %s differ",
				   o->root_hash_file);
		hex = text;
	}
	if (!hex)
		return die(EXIT_USAGE, "missing root hash");
	if (vi_hex_decode_exact(hex, root, ds) < 0)
		return die(EXIT_USAGE, "root hash must be %u hex digits", 2 * ds);
	return 0;
}

/* With a superblock, its parameters rule; an option that says otherwise is an error. */
static int check_conflicts(const struct opts *o, const struct vi_params *cli,
			   const struct vi_params *sb)
{
	if ((o->given & VI_GIVEN_HASH_NAME) && strcmp(cli->hash_name, sb->hash_name) != 0)
		return die(EXIT_INVALID, "--hash %s conflicts with the superblock (%s)",
			   cli->hash_name, sb->hash_name);
	if ((o->given & VI_GIVEN_FORMAT) && cli->hash_type != sb->hash_type)
		return die(EXIT_INVALID, "--format %u conflicts with the superblock (%u)",
			   cli->hash_type, sb->hash_type);
	if ((o->given & VI_GIVEN_DATA_BS) && cli->data_block_size != sb->data_block_size)
		return die(EXIT_INVALID, "--data-block-size conflicts with the superblock (%u)",
			   sb->data_block_size);
	if ((o->given & VI_GIVEN_HASH_BS) && cli->hash_block_size != sb->hash_block_size)
		return die(EXIT_INVALID, "--hash-block-size conflicts with the superblock (%u)",
			   sb->hash_block_size);
	if ((o->given & VI_GIVEN_DATA_BLOCKS) && cli->data_blocks != sb->data_blocks)
		return die(EXIT_INVALID, "--data-blocks conflicts with the superblock (%" PRIu64 ")",
			   sb->data_blocks);
	if ((o->given & VI_GIVEN_SALT) && (cli->salt_size != sb->salt_size ||
				    memcmp(cli->salt, sb->salt, sb->salt_size) != 0))
		return die(EXIT_INVALID, "--salt conflicts with the superblock");
	return 0;
}

/* One image as a command opens it: the devices, the parameters (the options', completed by the
 * superblock or the data device's size) and the geometry; the FEC device after
 * image_open_fec. Every fd is -1 until opened; image_close closes what was. */
struct image {
	int data_fd, hash_fd, fec_fd;
	const char *data_path, *hash_path;   /* NULL: not opened (dump has no data device) */
	struct vi_params p;
	struct vi_geometry g;
	struct fec_info fec;
};

enum image_mode {
	IMAGE_FORMAT,     /* DATA HASH: the hash device is written (created), no superblock read */
	IMAGE_VERIFY,     /* DATA HASH: read; the superblock, unless --no-superblock */
	IMAGE_DUMP,       /* HASH: read; the superblock */
};

static void image_close(struct image *img)
{
	if (img->data_fd >= 0)
		close(img->data_fd);
	if (img->hash_fd >= 0)
		close(img->hash_fd);
	if (img->fec_fd >= 0)
		close(img->fec_fd);
	img->data_fd = img->hash_fd = img->fec_fd = -1;
}

/* Open the image of o's arguments for mode and compute its geometry. On failure the error is
 * printed, the exit code returned and img closed. */
static int image_open(const struct opts *o, enum image_mode mode, struct image *img)
{
	struct vi_error err = { "" };
	int r;

	memset(img, 0, sizeof(*img));
	img->data_fd = img->hash_fd = img->fec_fd = -1;
	img->p = o->p;
	img->data_path = mode == IMAGE_DUMP ? NULL : o->args[0];
	img->hash_path = mode == IMAGE_DUMP ? o->args[0] : o->args[1];
	if (img->data_path) {
		r = open_file(img->data_path, O_RDONLY, &img->data_fd);
		if (r)
			goto fail;
	}
	r = open_file(img->hash_path, mode == IMAGE_FORMAT ? O_RDWR | O_CREAT : O_RDONLY,
		      &img->hash_fd);
	if (r)
		goto fail;
	if (mode != IMAGE_FORMAT && !img->p.no_superblock) {
		r = read_sb(img->hash_fd, img->hash_path, &img->p);
		if (r == 0 && mode == IMAGE_VERIFY)
			r = check_conflicts(o, &o->p, &img->p);
	} else if (!(o->given & VI_GIVEN_DATA_BLOCKS)) {
		r = default_blocks(img->data_fd, img->data_path, &img->p);
	}
	if (r)
		goto fail;
	if (vi_geometry_compute(&img->p, &img->g, &err) < 0) {
		r = mode == IMAGE_DUMP ? die(EXIT_INVALID, "%s: %s", img->hash_path, err.msg) :
		     die(EXIT_INVALID, "%s", err.msg);
		goto fail;
	}
	return 0;
fail:
	image_close(img);
	return r;
}

/* Open the --fec-device (flags as for open(2)) and work out its layout: fec.on stays false
 * without the option. On failure the error is printed, the exit code returned and img
 * closed. */
static int image_open_fec(const struct opts *o, int flags, struct image *img)
{
	struct vi_error err = { "" };
	int r;

	if (!o->fec_device)
		return 0;
	r = open_file(o->fec_device, flags, &img->fec_fd);
	if (r)
		goto fail;
	r = vi_fec_layout(img->data_fd, img->hash_fd, img->fec_fd, &img->p, &img->g,
			      o->fec_offset, o->fec_roots, &img->fec.g, &img->fec.on_hash, &err);
	if (r < 0) {
		r = die(prog_code_of(r), "%s", err.msg);
		goto fail;
	}
	img->fec.on = true;
	img->fec.offset = o->fec_offset;
	return 0;
fail:
	image_close(img);
	return r;
}

/* ---- format ------------------------------------------------------------------------------- */

/* --root-hash-file for format: the hex digits, no newline, as veritysetup writes it. A file
 * this tool creates: never written through a symlink (O_NOFOLLOW), unlike veritysetup; the hash
 * and FEC devices may be links, this file has no reason to. */
static int write_root_hash_file(const char *path, const char *root_hex)
{
	size_t len = strlen(root_hex);
	int fd = -1, r;

	r = vi_fileio_open_input(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0666, &fd);
	if (r < 0)
		return die(EXIT_IO, "cannot write %s: %s", path, open_reason(r));
	if (write(fd, root_hex, len) != (ssize_t)len) {
		r = die(EXIT_IO, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		return r;
	}
	if (close(fd) < 0)
		return die(EXIT_IO, "cannot write %s: %s", path, strerror(errno));
	return 0;
}

static int cmd_format(struct opts *o)
{
	struct vi_tree_opts to = { .ops = &vi_digest_openssl_ops, .threads = o->threads };
	struct progress pr = { .on = isatty(STDERR_FILENO) && !o->json && !o->quiet };
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

	to.progress = progress_cb;
	to.userdata = &pr;
	clock_gettime(CLOCK_MONOTONIC, &pr.t0);
	r = vi_tree_build(img.data_fd, img.hash_fd, p, &to, root, sizeof(root), &err);
	progress_end(&pr);
	if (r < 0) {
		r = die(prog_code_of(r), "%s", err.msg);
		goto out;
	}
	if (fdatasync(img.hash_fd) < 0 && errno != EINVAL) {
		r = die(EXIT_IO, "cannot sync %s: %s", o->args[1], strerror(errno));
		goto out;
	}
	if (img.fec.on) {
		struct progress fpr = { .on = pr.on, .label = "FEC " };
		struct vi_fec_opts fo = { .threads = o->threads, .progress = progress_cb,
					      .userdata = &fpr };

		clock_gettime(CLOCK_MONOTONIC, &fpr.t0);
		r = vi_fec_encode(&img.fec.g, img.data_fd, img.hash_fd, img.fec_fd,
				      img.fec.offset, &fo, &err);
		progress_end(&fpr);
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
		print_json(p, &img.g, &img.fec, o->fec_device, root_hex);
	} else if (o->quiet) {
		printf("%s\n", root_hex);
	} else {
		print_header(o->args[1], p, &img.g, o->uuid_text, o->hash_text, &img.fec);
		printf("Root hash:      \t%s\n", root_hex);
		print_sizes(p, &img.g, &img.fec);
	}
	r = 0;
out:
	image_close(&img);
	return r;
}

/* ---- verify ------------------------------------------------------------------------------- */

static int cmd_verify(struct opts *o)
{
	struct vi_tree_opts to = { .ops = &vi_digest_openssl_ops, .threads = o->threads };
	struct progress pr = { .on = isatty(STDERR_FILENO) && !o->json && !o->quiet };
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
	r = read_root_hash(o, o->nargs == 3 ? o->args[2] : NULL, root, img.g.digest_size);
	if (r)
		goto out;
	r = image_open_fec(o, O_RDONLY, &img);
	if (r)
		return r;

	to.progress = progress_cb;
	to.userdata = &pr;
	clock_gettime(CLOCK_MONOTONIC, &pr.t0);
	r = vi_tree_verify(img.data_fd, img.hash_fd, &img.p, root, img.g.digest_size, &to,
			       &bad, &err);
	progress_end(&pr);
	/* Then the parity, recomputed from the data and tree and every differing RS block
	 * decoded: after a good tree, whether the parity is right; after a mismatch, whether
	 * dm-verity's FEC would repair it (veritysetup's "Found N repairable errors"). */
	if ((r == 0 || r == -EPERM) && img.fec.on) {
		struct progress fpr = { .on = pr.on, .label = "FEC " };
		struct vi_fec_opts fo = { .threads = o->threads, .progress = progress_cb,
					      .userdata = &fpr };
		int fr;

		clock_gettime(CLOCK_MONOTONIC, &fpr.t0);
		fr = vi_fec_verify(&img.fec.g, img.data_fd, img.hash_fd, img.fec_fd,
				       img.fec.offset, &fo, &fbad, &ferr);
		progress_end(&fpr);
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
			json_string(ferr.msg);
		}
		if (r < 0 && r != -EPERM) {
			printf(",\"error\":");
			json_string(err.msg);
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

/* ---- dump --------------------------------------------------------------------------------- */

static int cmd_dump(struct opts *o)
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
		print_json(&img.p, &img.g, &img.fec, o->fec_device, NULL);
	} else {
		print_header(o->args[0], &img.p, &img.g, NULL, NULL, &img.fec);
		print_sizes(&img.p, &img.g, &img.fec);
	}
	image_close(&img);
	return 0;
}

/* ---- cmdline ------------------------------------------------------------------------------ */

/* Kernel command-line fragment for a formatted image: systemd's keys (default) or ours.
 * DATA and HASH are written as given (a path, UUID=..., PARTUUID=...). */
/* The veritytab options of the image p describes, as the parameter table writes them: what the
 * agent cannot read from a superblock, and the FEC options. */
static int cmdline_options(const struct opts *o, const struct vi_params *p, char *out,
			   size_t out_size)
{
	static const enum vi_param always[] = {
		VI_PARAM_HASH, VI_PARAM_FORMAT, VI_PARAM_DATA_BS, VI_PARAM_HASH_BS,
		VI_PARAM_HASH_OFFSET,
	};
	static const enum vi_param fec[] = {
		VI_PARAM_FEC_DEVICE, VI_PARAM_FEC_OFFSET, VI_PARAM_FEC_ROOTS,
	};
	static const enum vi_param no_sb[] = {
		VI_PARAM_SUPERBLOCK, VI_PARAM_DATA_BLOCKS, VI_PARAM_SALT,
	};
	static struct vi_target t;   /* large: kept off the stack */
	size_t pos = 0;
	int r = 0;

	memset(&t, 0, sizeof(t));
	t.params = *p;
	t.superblock = !p->no_superblock;
	t.fec_offset = o->fec_offset;
	t.fec_roots = o->fec_roots;
	if (o->fec_device &&
	    vi_strlcpy_exact(t.fec.spec, sizeof(t.fec.spec), o->fec_device,
			     strlen(o->fec_device)) < 0)
		return die(EXIT_USAGE, "--fec-device is longer than the agent reads (%u bytes)",
			   VI_MAX_PATH - 1);
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]) && r == 0; i++)
		r = vi_param_format(&t, always[i], VI_SPELL_VOPTS, out, out_size, &pos);
	for (size_t i = 0; o->fec_device && i < sizeof(fec) / sizeof(fec[0]) && r == 0; i++)
		r = vi_param_format(&t, fec[i], VI_SPELL_VOPTS, out, out_size, &pos);
	for (size_t i = 0; p->no_superblock && i < sizeof(no_sb) / sizeof(no_sb[0]) && r == 0; i++)
		r = vi_param_format(&t, no_sb[i], VI_SPELL_VOPTS, out, out_size, &pos);
	if (r < 0)
		return die(EXIT_INTERNAL, "the options do not fit in %zu bytes", out_size);
	return 0;
}

static int cmd_cmdline(struct opts *o)
{
	struct vi_params p = o->p;
	uint8_t root[VERITY_MAX_DIGEST];
	char root_hex[2 * VERITY_MAX_DIGEST + 1], opts[VI_MAX_OPTIONS];
	bool ours;
	unsigned ds;
	int fd = -1, r;

	if (o->nargs != 3 && o->nargs != 4)
		return die(EXIT_USAGE, "usage: cmdline IMAGE-HASH-FILE DATA-SPEC HASH-SPEC [ROOTHASH] "
			   "[--style systemd|verity]");
	if (o->style && strcmp(o->style, "systemd") != 0 && strcmp(o->style, "verity") != 0)
		return die(EXIT_USAGE, "--style must be systemd or verity");
	ours = o->style && strcmp(o->style, "verity") == 0;
	/* it would be dropped from the options written, and it weakens verification: say so */
	if (o->check_once)
		return die(EXIT_USAGE, "--check-at-most-once is not written into a command line (it "
			   "weakens verification; add it to the options by hand if meant)");
	if (!p.no_superblock) {
		r = open_file(o->args[0], O_RDONLY, &fd);
		if (r)
			return r;
		r = read_sb(fd, o->args[0], &p);
		close(fd);
		if (r)
			return r;
	}
	if (p.no_superblock && !(o->given & VI_GIVEN_DATA_BLOCKS))
		return die(EXIT_USAGE, "--no-superblock needs --data-blocks (and the --salt used)");
	if (o->fec_device) {
		/* One word of a comma-separated list; the agent's and the kernel's FEC rules. */
		if (!*o->fec_device || strpbrk(o->fec_device, ", \t\n\"'\\"))
			return die(EXIT_USAGE, "--fec-device '%s' cannot go into the options (empty, "
				   "or a comma, space, quote or backslash)", o->fec_device);
		if (p.data_block_size != p.hash_block_size)
			return die(EXIT_INVALID, "block sizes must match for FEC (data %u, hash %u "
				   "bytes)", p.data_block_size, p.hash_block_size);
		if (o->fec_offset % p.data_block_size)
			return die(EXIT_INVALID, "--fec-offset %" PRIu64 " is not a multiple of the "
				   "block size (%u): the kernel's fec_start counts blocks",
				   o->fec_offset, p.data_block_size);
	}
	ds = vi_digest_size(p.hash_name);
	r = read_root_hash(o, o->nargs == 4 ? o->args[3] : NULL, root, ds);
	if (r)
		return r;
	vi_hex_encode(root, ds, root_hex, sizeof(root_hex));
	r = cmdline_options(o, &p, opts, sizeof(opts));
	if (r)
		return r;
	if (ours)
		printf("verity.roothash=%s verity.data=%s verity.hash=%s verity.options=%s\n",
		       root_hex, o->args[1], o->args[2], opts);
	else
		printf("roothash=%s systemd.verity_root_data=%s systemd.verity_root_hash=%s "
		       "systemd.verity_root_options=%s\n", root_hex, o->args[1], o->args[2], opts);
	return 0;
}

/* ---- dispatch ----------------------------------------------------------------------------- */

/* Every subcommand. run: parsed with the options above; main: parses its own options
 * (argv[0] is the command name). verbose: veritysetup's command, whose -v ends with the
 * outcome line. */
struct command {
	const char *name;
	int (*run)(struct opts *o);
	int (*main)(int argc, char **argv);
	bool verbose;
	const char *synopsis;
};

static const struct command commands[] = {
	{ "sign", NULL, image_sign_main, false,
	  "sign HASH --data-device SPEC [--minisign-key K --version N --manifest F] "
	  "[--pkcs7-key K --pkcs7-cert C --p7s F] (sign --help)" },
	{ "check-manifest", NULL, image_check_manifest_main, false,
	  "check-manifest MANIFEST --public-key K.pub (--help)" },
	{ "format", cmd_format, NULL, true, "format DATA HASH [options]" },
	{ "verify", cmd_verify, NULL, true, "verify DATA HASH [ROOTHASH] [options]" },
	{ "dump", cmd_dump, NULL, true, "dump HASH [--hash-offset N] [--fec-device F ...] [--json]" },
	{ "cmdline", cmd_cmdline, NULL, false,
	  "cmdline HASH DATA-SPEC HASH-SPEC [ROOTHASH] [--style systemd|verity] "
	  "[--fec-device SPEC ...]" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: %s COMMAND ...\n", PROG_NAME);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %s %s\n", PROG_NAME, commands[i].synopsis);
	fprintf(f, "Options (veritysetup's words and defaults): --hash sha256, --data-block-size "
		"4096,\n  --hash-block-size 4096, --data-blocks N, --hash-offset BYTES, --salt HEX|-,\n"
		"  --uuid UUID, --format 0|1 (1), --no-superblock, --root-hash-file FILE,\n"
		"  --fec-device FILE, --fec-offset BYTES (0), --fec-roots 2..24 (2),\n"
		"  --threads N (all CPUs), --json, --quiet, -v/--verbose.\n"
		"Exit codes: 0 ok, 1 usage, 2 verification failed, 3 I/O error,\n"
		"  4 invalid superblock or parameters, 5 internal error. See verity-image(8).\n");
}

/* veritysetup takes its options before the action too ("veritysetup --hash sha1 format D H"):
 * move the first word that is neither an option nor an option's value to argv[1] (after "--",
 * the next word). Returns whether there was one. */
static bool command_first(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int cmd = -1;

		if (strcmp(a, "--") == 0)
			cmd = i + 1 < argc ? i + 1 : -1;
		else if (a[0] != '-' || a[1] == '\0')
			cmd = i;
		if (cmd > 0) {
			char *word = argv[cmd];

			memmove(argv + 2, argv + 1, (size_t)(cmd - 1) * sizeof(*argv));
			argv[1] = word;
			return true;
		}
		if (strcmp(a, "--") == 0)
			return false;
		if (a[1] == '-') {
			/* --name VALUE, with getopt_long's unambiguous abbreviations */
			const struct option *match = NULL;
			size_t n = strlen(a + 2);
			int found = 0;

			if (strchr(a, '='))
				continue;
			for (const struct option *op = long_opts; op->name; op++) {
				size_t on = strlen(op->name);

				if (on < n || memcmp(op->name, a + 2, n) != 0)
					continue;
				match = op;
				if (on == n) {
					found = 1;
					break;
				}
				found++;
			}
			if (found == 1 && match->has_arg == required_argument)
				i++;
		} else {
			/* a cluster such as -vs: an option with a value takes the rest, or the next */
			for (const char *c = a + 1; *c; c++)
				if (*c == 'h' || *c == 's') {
					if (c[1] == '\0')
						i++;
					break;
				}
		}
	}
	return false;
}

/* --help / --version in veritysetup's spellings among argv[from..to): answered, true. */
static bool help_or_version(char **argv, int from, int to)
{
	for (int i = from; i < to; i++) {
		if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0) {
			prog_print_version();
			return true;
		}
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-?") == 0 ||
		    strcmp(argv[i], "--usage") == 0) {
			usage(stdout);
			return true;
		}
	}
	return false;
}

int main(int argc, char **argv)
{
	struct opts o;
	int r;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	/* the first word, as before any command; or anywhere in a line of options only ("-v
	 * --version", "--hash sha1 --help") */
	if (help_or_version(argv, 1, 2) ||
	    (!command_first(argc, argv) && help_or_version(argv, 1, argc)))
		return 0;
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name) != 0)
			continue;
		prog_cmd = commands[i].name;
		if (commands[i].main)
			return commands[i].main(argc - 1, argv + 1);
		r = parse_opts(argc - 1, argv + 1, &o);
		if (r == -2)
			return 0;   /* --version */
		if (r < 0) {
			usage(stdout);
			return 0;
		}
		if (r > 0)
			return r;
		r = commands[i].run(&o);
		/* veritysetup -v ends with the outcome (format, verify and dump are its commands) */
		if (o.verbose && !o.json && commands[i].verbose)
			prog_verbose_outcome(r);
		return r;
	}
	return die(EXIT_USAGE, "unknown command '%s' (try --help)", argv[1]);
}
