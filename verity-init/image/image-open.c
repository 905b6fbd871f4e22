// SPDX-License-Identifier: LGPL-2.1-or-later
/* The one "open image" step of verity-image's commands (image.h): the path arguments opened as
 * regular files or block devices only, the parameters completed by the superblock (options that
 * contradict it refused) or by the data device's size, the geometry, and the FEC device's
 * layout; and the root hash read from its argument or file. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "blockio.h"
#include "fileio.h"
#include "hex.h"
#include "image.h"
#include "params.h"
#include "prog.h"

/* The reason for a negative errno from opening a path. */
const char *image_open_reason(int r)
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
int image_open_file(const char *path, int flags, int *ret_fd)
{
	int r = vi_fileio_open_input(path, flags, 0600, ret_fd);

	if (r < 0)
		return die(EXIT_IO, "cannot open %s: %s", path, image_open_reason(r));
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

int image_read_sb(int hash_fd, const char *path, struct vi_params *p)
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

int image_read_root_hash(const struct image_opts *o, const char *arg, uint8_t *root, unsigned ds)
{
	char text[2 * VERITY_MAX_DIGEST + 64];
	const char *hex = arg;

	if (o->root_hash_file) {
		size_t n = 0;
		int r = vi_fileio_read_head(o->root_hash_file, text, sizeof(text) - 1, &n, NULL);

		if (r < 0)
			return die(EXIT_IO, "cannot open %s: %s", o->root_hash_file, image_open_reason(r));
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
static int check_conflicts(const struct image_opts *o, const struct vi_params *cli,
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

void image_close(struct image *img)
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
int image_open(const struct image_opts *o, enum image_mode mode, struct image *img)
{
	struct vi_error err = { "" };
	int r;

	memset(img, 0, sizeof(*img));
	img->data_fd = img->hash_fd = img->fec_fd = -1;
	img->p = o->p;
	img->data_path = mode == IMAGE_DUMP ? NULL : o->args[0];
	img->hash_path = mode == IMAGE_DUMP ? o->args[0] : o->args[1];
	if (img->data_path) {
		r = image_open_file(img->data_path, O_RDONLY, &img->data_fd);
		if (r)
			goto fail;
	}
	r = image_open_file(img->hash_path, mode == IMAGE_FORMAT ? O_RDWR | O_CREAT : O_RDONLY,
		      &img->hash_fd);
	if (r)
		goto fail;
	if (mode != IMAGE_FORMAT && !img->p.no_superblock) {
		r = image_read_sb(img->hash_fd, img->hash_path, &img->p);
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
int image_open_fec(const struct image_opts *o, int flags, struct image *img)
{
	struct vi_error err = { "" };
	int r;

	if (!o->fec_device)
		return 0;
	r = image_open_file(o->fec_device, flags, &img->fec_fd);
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
