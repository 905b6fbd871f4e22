/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The running system's side of verification failures (verity-init/agent/runtime.c):
 * `verity-init monitor` collects the kernel's corruption reports into
 * /run/verity-init/corruption, `verity-init status` shows them, and a full read of a mapping
 * (`verity-init scrub`, `slot mark-good --full-read`) makes dm-verity check every block. */
#ifndef VERITY_RUNTIME_H
#define VERITY_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

#define VI_CORRUPTION_FILE "corruption"
#define VI_CORRUPTION_RECORDS_MAX 64u   /* distinct blocks kept; the oldest go first */
#define VI_SCRUB_BAD_MAX 16u            /* corrupted blocks a scrub names */

/* The monitor's records (status_dir/corruption) for `verity-init status`: key=value lines
 * "corruption.N.KEY=VALUE", or with json a JSON array. Nothing (an empty array) without the
 * file; lines that are not records are skipped. */
void vi_corruption_print(FILE *f, const char *status_dir, bool json);

/* `verity-init monitor [--state-dir DIR]`: argv[0] is "monitor". Runs until killed. */
int vi_monitor_main(int argc, char **argv);

struct vi_scrub_result {
	uint64_t bytes;          /* read */
	uint64_t size;           /* the mapping's size */
	uint64_t usec;           /* time taken */
	uint32_t block_size;     /* the mapping's data block size */
	uint64_t bad[VI_SCRUB_BAD_MAX];   /* data blocks whose read failed */
	unsigned nbad;
	bool more_bad;           /* more than VI_SCRUB_BAD_MAX, or stopped at the first */
	uint64_t fec_corrected;  /* blocks FEC corrected during the read (the status line's count,
	                          * 7.x kernels); UINT64_MAX: the kernel gives no count */
};

/* Read every block of /dev/mapper/NAME once, through dm-verity and past the page cache
 * (O_DIRECT), at idle I/O priority; progress on stderr unless quiet. A block whose read fails
 * is named in *res; first_only stops there. Blocks FEC corrected read fine: their count (the
 * status line's before and after) is in res->fec_corrected. 0 when everything was read (res->nbad says whether
 * a block failed); -errno with err set when the mapping cannot be read at all. */
int vi_scrub(const char *name, bool first_only, bool quiet, struct vi_scrub_result *res,
	     struct vi_error *err);

/* `verity-init scrub [--quiet] [NAME]`: argv[0] is "scrub". 0: every block read; 1: a block
 * failed or the mapping could not be read; 2: usage. */
int vi_scrub_main(int argc, char **argv);

#endif
