// SPDX-License-Identifier: LGPL-2.1-or-later
/* verity-image: format, verify and dump dm-verity hash devices, byte-compatible with
 * veritysetup, on all cores. This file is the command table of every subcommand and main():
 * the command word found (also after veritysetup-style leading options), --help and --version,
 * and the command run. The commands are in image-format.c, image-cmdline.c (on image.h) and
 * image-sign.c (its trust paths in image-manifest.c, image-pkcs7.c), image-check.c; the engine
 * is lib/format/tree.c.
 *
 * Exit codes (docs/verity-image.8, verity-init/image/prog.h): 0 ok, 1 usage, 2 verification failed,
 * 3 I/O error, 4 invalid superblock or parameters, 5 internal error (memory, algorithm
 * unavailable). */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "image.h"
#include "prog.h"

/* ---- dispatch ----------------------------------------------------------------------------- */

/* Every subcommand. run: parsed with the options above; main: parses its own options
 * (argv[0] is the command name). verbose: veritysetup's command, whose -v ends with the
 * outcome line. */
struct command {
	const char *name;
	int (*run)(struct image_opts *o);
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
	{ "format", image_cmd_format, NULL, true, "format DATA HASH [options]" },
	{ "verify", image_cmd_verify, NULL, true, "verify DATA HASH [ROOTHASH] [options]" },
	{ "dump", image_cmd_dump, NULL, true, "dump HASH [--hash-offset N] [--fec-device F ...] [--json]" },
	{ "cmdline", image_cmd_cmdline, NULL, false,
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
			for (const struct option *op = image_long_opts; op->name; op++) {
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
	struct image_opts o;
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
		r = image_parse_opts(argc - 1, argv + 1, &o);
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
