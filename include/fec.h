/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dm-verity forward error correction: the layout the kernel's dm-verity-fec.c decodes and
 * `veritysetup format --fec-device` writes, and the streaming of the devices through the
 * Reed-Solomon codec of include/rs.h.
 *
 * Layout: the FEC input is the data device's data_blocks blocks followed by hash_blocks blocks of
 * the hash device from hash_start (the tree start); anything past that counts as zeros. Cut the
 * input into rsn = 255 - roots stripes of rounds × block_size bytes each. RS block k (0 <= k <
 * rounds × block_size) takes byte k of every stripe as its rsn message bytes, and its roots
 * parity bytes are stored at byte k × roots of the FEC area, highest-degree coefficient first.
 *
 * Functions return 0 or a negative errno (-EINVAL bad parameters, -EIO I/O error or short device,
 * -EPERM verification mismatch), with err set. */
#ifndef VERITY_FEC_H
#define VERITY_FEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "geometry.h"
#include "rs.h"
#include "superblock.h"

#define VERITY_FEC_DEFAULT_ROOTS 2u     /* veritysetup's --fec-roots default */

struct vi_fec_geometry {
	unsigned roots;           /* parity bytes per RS block */
	unsigned rsn;             /* message bytes per RS block: 255 - roots */
	uint32_t block_size;      /* data block size = hash block size */
	uint64_t data_blocks;     /* input part 1: data device blocks 0 .. data_blocks-1 */
	uint64_t hash_start;      /* input part 2 starts at this hash device block (tree start) */
	uint64_t hash_blocks;     /* ... and has this many blocks (>= the tree's blocks) */
	uint64_t blocks;          /* data_blocks + hash_blocks: the kernel table's fec_blocks */
	uint64_t rounds;          /* ceil(blocks / rsn): blocks per stripe */
	uint64_t rs_blocks;       /* rounds × block_size: RS blocks (stripe length in bytes) */
	uint64_t parity_blocks;   /* rounds × roots: FEC area in blocks ("FEC blocks" in
				   * veritysetup's report) */
	uint64_t size;            /* parity_blocks × block_size: FEC area in bytes */
};

/* Geometry from the inputs. hash_blocks is how many hash device blocks from hash_start the FEC
 * covers: the tree's block count for a hash device that ends with the tree, more when it goes
 * on (see vi_fec_hash_blocks). -EINVAL with err set for roots outside 2..24, no data, a
 * block size that is not a power of two in range, or 64-bit overflow of any byte offset. */
int vi_fec_geometry_compute(uint64_t data_blocks, uint32_t block_size, uint64_t hash_start,
				uint64_t hash_blocks, unsigned roots,
				struct vi_fec_geometry *ret, struct vi_error *err);

/* Hash device blocks the FEC covers, counted as veritysetup does (VERITY_FEC_blocks): from the
 * tree start up to the FEC area when both are on one device (hash_end = the FEC offset), else
 * up to the end of the hash device (hash_end = its size), in whole blocks. -EINVAL with err set
 * when that leaves less than the tree (the FEC area would overlap it; the device is short). */
int vi_fec_hash_blocks(uint64_t hash_end, bool fec_on_hash, uint32_t block_size,
			   uint64_t tree_start, uint64_t tree_blocks, uint64_t *ret,
			   struct vi_error *err);

/* Where the FEC of a verity device goes, with every rule checked: equal block sizes (the
 * kernel's and veritysetup's "Block sizes must match for FEC"), offset a multiple of 512 as
 * veritysetup requires, and an FEC area after the data and after the hash area when it shares
 * their device (veritysetup misses the overlap with the last tree blocks); -EINVAL for these.
 * An FEC device that is not a regular file must already hold the area (-EIO). The hash device
 * is taken as at least g->hash_device_size bytes when it is a regular file, as
 * vi_tree_build leaves it. data_fd may be -1 (not known). On success ret is the geometry
 * and *ret_on_hash whether FEC and hash share a device. */
int vi_fec_layout(int data_fd, int hash_fd, int fec_fd, const struct vi_params *p,
		      const struct vi_geometry *g, uint64_t fec_offset, unsigned roots,
		      struct vi_fec_geometry *ret, bool *ret_on_hash, struct vi_error *err);

struct vi_fec_opts {
	unsigned threads;           /* 0: all online CPUs */
	size_t window;              /* RS blocks per worker step; 0: default (16 KiB, less with
				     * many threads so that all buffers stay within 32 MiB) */
	/* Called from the calling thread about 5 times a second, and once at the end, with input
	 * bytes (rsn × RS blocks) done out of the total. */
	void (*progress)(void *userdata, uint64_t done_bytes, uint64_t total_bytes);
	void *userdata;
};

struct vi_fec_bad {
	uint64_t rsb;               /* first RS block whose stored parity differs; with
				     * uncorrectable, the first one RS cannot correct */
	uint64_t offset;            /* byte offset on the FEC device of its first wrong byte */
	uint64_t corrected;         /* symbol errors RS corrects in all (not uncorrectable) */
	uint64_t differ;            /* parity bytes that differ from the recomputed parity */
	bool uncorrectable;         /* some RS block has more errors than roots / 2 */
};

/* Compute the parity of the inputs (data_fd, hash_fd; possibly the same file) and write it to
 * fec_fd at fec_offset. Memory use depends on the thread count and window only. */
int vi_fec_encode(const struct vi_fec_geometry *g, int data_fd, int hash_fd,
		      int fec_fd, uint64_t fec_offset, const struct vi_fec_opts *o,
		      struct vi_error *err);

/* Recompute the parity and compare it with fec_fd's; every RS block that differs (in its data,
 * tree or parity bytes) is decoded as dm-verity would, to count the errors FEC repairs (what
 * `veritysetup verify` reports for an image whose tree fails). -EPERM on any difference, with
 * *bad naming the first wrong RS block, the parity bytes that differ and the errors corrected
 * in all, or the first RS block beyond repair (uncorrectable; the pass stops there); -EIO when
 * the FEC device is shorter than the area. */
int vi_fec_verify(const struct vi_fec_geometry *g, int data_fd, int hash_fd,
		      int fec_fd, uint64_t fec_offset, const struct vi_fec_opts *o,
		      struct vi_fec_bad *bad, struct vi_error *err);

#endif
