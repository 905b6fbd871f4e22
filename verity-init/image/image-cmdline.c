// SPDX-License-Identifier: LGPL-2.1-or-later
/* `verity-image cmdline` (image.h): the kernel command line that activates a formatted image,
 * in systemd's keys or the agent's, with the options the agent cannot read from a superblock
 * written by the parameter table (lib/config/params.c). */
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "hex.h"
#include "image.h"
#include "params.h"
#include "prog.h"
#include "strutil.h"

/* The veritytab options of the image p describes, as the parameter table writes them: what the
 * agent cannot read from a superblock, and the FEC options. */
static int cmdline_options(const struct image_opts *o, const struct vi_params *p, char *out,
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

/* Kernel command-line fragment for a formatted image: systemd's keys (default) or ours.
 * DATA and HASH are written as given (a path, UUID=..., PARTUUID=...). */
int image_cmd_cmdline(struct image_opts *o)
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
		r = image_open_file(o->args[0], O_RDONLY, &fd);
		if (r)
			return r;
		r = image_read_sb(fd, o->args[0], &p);
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
	r = image_read_root_hash(o, o->nargs == 4 ? o->args[3] : NULL, root, ds);
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
