// SPDX-License-Identifier: LGPL-2.1-or-later
/* The options of verity-image's format, verify, dump and cmdline (image.h): veritysetup's long and
 * short options, the verity parameters they set (ranges from lib/config/params.c) and which of
 * them were given, so that a superblock can rule the rest. */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hex.h"
#include "image.h"
#include "params.h"
#include "prog.h"
#include "workers.h"

enum {
	OPT_HASH = 256, OPT_DBS, OPT_HBS, OPT_DATA_BLOCKS, OPT_HASH_OFFSET, OPT_SALT, OPT_UUID,
	OPT_FORMAT, OPT_NO_SB, OPT_RH_FILE, OPT_THREADS, OPT_JSON, OPT_QUIET, OPT_HELP,
	OPT_STYLE, OPT_VERBOSE, OPT_CHECK_ONCE, OPT_VERSION, OPT_FEC_DEVICE, OPT_FEC_OFFSET, OPT_FEC_ROOTS,
};

const struct option image_long_opts[] = {
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

/* An option that sets a verity parameter (veritysetup's syntax; ranges from lib/config/params.c):
 * 0 done, -1 not such an option, else the exit code. */
static int param_option(int c, const char *a, struct image_opts *o)
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

int image_parse_opts(int argc, char **argv, struct image_opts *o)
{
	uint32_t u;
	int c;

	memset(o, 0, sizeof(*o));
	vi_params_fill_defaults(&o->p, 0);
	o->fec_roots = VERITY_FEC_DEFAULT_ROOTS;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts, image_long_opts, NULL)) != -1) {
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
