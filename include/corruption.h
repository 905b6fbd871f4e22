/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Corruption reports of the running system, all pure: what the kernel says when dm-verity finds
 * a block whose hash does not match (drivers/md/dm-verity-target.c, verity_handle_err), and the
 * record `verity-init monitor` keeps of it for `verity-init status`.
 *
 * The kernel says it three ways, up to 100 corrupted blocks per mapping
 * (DM_VERITY_MAX_CORRUPTED_ERRS; the mapping's status stays C after that):
 *  - a uevent (KOBJ_CHANGE) on the mapping's own block device with
 *    DM_VERITY_ERR_BLOCK_NR=TYPE,BLOCK (TYPE 0: a data block, 1: a hash-tree block);
 *  - a kernel log line "device-mapper: verity: MAJ:MIN: data block N is corrupted" (or
 *    "metadata block"), MAJ:MIN being the *data device's* number, rate-limited;
 *  - the target's status, "V" or "C" for ever once one block failed; newer kernels (Debian's
 *    7.3) add a field: the count of blocks FEC corrected, "-" without FEC. */
#ifndef VERITY_CORRUPTION_H
#define VERITY_CORRUPTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum vi_report_type {
	VI_REPORT_DATA = 0,      /* a data block: BLOCK counts data blocks from the mapping's start */
	VI_REPORT_METADATA = 1,  /* a hash-tree block: BLOCK counts hash blocks of the hash device */
	VI_REPORT_UNKNOWN = 2,   /* status C with no block known (reported before anyone listened) */
};

struct vi_corrupt_report {
	enum vi_report_type type;
	uint64_t block;
	unsigned major, minor;    /* uevent: the mapping's device; kernel log: the data device */
	bool limit;               /* kernel log: "reached maximum errors" (no block) */
};

/* One message of the kernel's uevent netlink group (NETLINK_KOBJECT_UEVENT, group 1):
 * "ACTION@DEVPATH\0KEY=VALUE\0...". 1: a dm-verity corruption event of a block device (its
 * MAJOR/MINOR, type and block in *ret); 0: any other uevent (udev's re-broadcasts, which start
 * "libudev", included); -EINVAL: a message that claims DM_VERITY_ERR_BLOCK_NR and is malformed. */
int vi_corruption_uevent(const char *buf, size_t len, struct vi_corrupt_report *ret);

/* One /dev/kmsg record, "PRIO,SEQ,USEC,FLAGS[,...];TEXT\n[ KEY=VALUE\n...]". 1: dm-verity's
 * "MAJ:MIN: data|metadata block N is corrupted" or "MAJ:MIN: reached maximum errors" (limit
 * set, no block); 0: another record; -EINVAL: not a record. *ret_usec: the record's time in
 * microseconds since boot (may be NULL). */
int vi_corruption_kmsg(const char *rec, size_t len, struct vi_corrupt_report *ret, uint64_t *ret_usec);

/* A verity target's status text: "V" or "C", optionally " N" (blocks FEC corrected) or " -"
 * (no FEC). 0 with *corrupted and *fec (UINT64_MAX: no count); -EINVAL for anything else. */
int vi_corruption_status(const char *s, size_t len, bool *corrupted, uint64_t *fec);

/* What the monitor keeps of one corrupted block (a line of /run/verity-init/corruption). */
#define VI_CORRUPT_MAPPING_MAX 128
#define VI_CORRUPT_FILE_MAX 1024
struct vi_corruption_record {
	uint64_t time;                   /* first seen, seconds since the epoch */
	char mapping[VI_CORRUPT_MAPPING_MAX];   /* the device-mapper name */
	enum vi_report_type type;
	uint64_t block;
	uint64_t count;                  /* times the kernel reported it */
	char source[8];                  /* uevent | kmsg | status | scrub */
	char file[VI_CORRUPT_FILE_MAX];  /* the file holding the block, its bytes as the
	                                  * filesystem names it ("" unknown); or a reason in
	                                  * parentheses when it cannot be known */
};

/* "data" | "metadata" | "unknown" */
const char *vi_corrupt_type_name(enum vi_report_type t);

/* Room for one record's line, its NUL included (the file in its line form, 4 bytes a byte at
 * most). */
#define VI_CORRUPTION_LINE_MAX (200 + 4 * VI_CORRUPT_FILE_MAX)

/* The record as one line (no newline): "time=T mapping=M type=data block=B count=C source=S
 * file=F", F the rest of the line, the file's line form (strutil.h vi_escape: its bytes outside
 * printable ASCII as \xHH, a backslash doubled). The mapping and source must be [A-Za-z0-9._+-]
 * (else -EINVAL). Returns the length, -ENOSPC if it does not fit. */
int vi_corruption_record_format(char *out, size_t size, const struct vi_corruption_record *r);

/* Parse such a line (len bytes, no newline) strictly: the keys in that order, numbers decimal
 * without a leading zero, names as above, the file a line form as vi_escape writes it, decoded
 * (vi_unescape). 0 or -EINVAL. */
int vi_corruption_record_parse(const char *line, size_t len, struct vi_corruption_record *ret);

/* One line of /proc/self/mountinfo: the mount's device (field 3, MAJ:MIN) and mount point
 * (field 5, the kernel's \ooo escapes decoded). 0, -EINVAL for a malformed line, -ENAMETOOLONG
 * when the mount point does not fit. */
int vi_mountinfo_parse(const char *line, size_t len, unsigned *maj, unsigned *min, char *mnt,
		       size_t size);

/* The positional arguments of a verity table as the kernel prints them back ("1 MAJ:MIN MAJ:MIN
 * DBS HBS BLOCKS START ALG DIGEST SALT [...]"): the data device, the data block size and the
 * number of data blocks. 0 or -EINVAL. */
int vi_verity_table_geometry(const char *params, unsigned *data_major, unsigned *data_minor,
			     uint32_t *data_block_size, uint64_t *data_blocks);

#endif
