/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kernel `verity` target's table line, built from resolved parameters and opened devices.
 * Pure functions: no I/O, unit-tested (tests/unit/test_table.c). */
#ifndef VERITY_TABLE_H
#define VERITY_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "params.h"
#include "superblock.h"

#define VI_TABLE_MAX 2048u   /* 10 positional args + all options; salt is at most 512 hex chars */
#define VI_KEY_DESC_MAX 128u

/* Everything one verity target line says. Devices are numbers (MAJ:MIN) on purpose: the kernel
 * opens exactly the device we opened and checked, not whatever a path points to later. */
struct vi_table {
	struct vi_params p;          /* hash_type, block sizes, data_blocks, alg, salt */
	uint64_t hash_start;             /* tree start, in hash blocks */
	dev_t data_dev;
	dev_t hash_dev;
	uint8_t root_hash[VERITY_MAX_DIGEST];
	unsigned root_hash_len;
	struct vi_verity_opts opts;
	bool try_verify_in_tasklet;      /* dm-mod.create= only; kernel 6.0+ */
	bool fec;                        /* use_fec_from_device */
	dev_t fec_dev;
	uint32_t fec_roots;
	uint64_t fec_blocks;             /* data_block_size units covered by FEC */
	uint64_t fec_start;              /* data_block_size units on the FEC device */
	char sig_key_desc[VI_KEY_DESC_MAX]; /* root_hash_sig_key_desc, empty: none */
};

/* Length of the mapping in 512-byte sectors (data_blocks * data_block_size / 512); 0 on
 * overflow or empty parameters. */
uint64_t vi_table_sectors(const struct vi_table *t);

/* Write the target parameters (everything after "0 <len> verity ") into out, in the order the
 * kernel prints them back (dm-verity-target.c verity_status). -EINVAL with err set when a
 * field cannot be expressed (unknown digest length, key description with spaces or control
 * characters, FEC without roots); -ENOBUFS when out is too small. */
int vi_table_build(const struct vi_table *t, char *out, size_t out_size, struct vi_error *err);

/* Whether two verity parameter strings describe the same mapping: the ten positional arguments
 * must be equal (hex compared case-insensitively), and the optional arguments the same set in
 * any order (kernels print them in different orders across versions). Malformed: false. */
bool vi_table_equal(const char *a, const char *b);

#endif
