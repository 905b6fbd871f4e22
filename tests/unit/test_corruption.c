// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/format/corruption.c: the kernel's dm-verity corruption uevent, log line and status as
 * drivers/md/dm-verity-target.c writes them, the monitor's record, mountinfo and the table's
 * geometry. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "corruption.h"

/* A uevent as the kernel sends it on group 1 (NUL-separated, no trailing NUL needed). */
#define UEV(s) s, sizeof(s) - 1

static void test_uevent(void **state)
{
	static const char ok[] = "change@/devices/virtual/block/dm-0\0ACTION=change\0"
				 "DEVPATH=/devices/virtual/block/dm-0\0SUBSYSTEM=block\0"
				 "DM_VERITY_ERR_BLOCK_NR=0,1234\0MAJOR=254\0MINOR=0\0DEVNAME=dm-0\0"
				 "DEVTYPE=disk\0DISKSEQ=9\0SEQNUM=2011";
	static const char meta[] = "change@/devices/virtual/block/dm-3\0ACTION=change\0"
				   "SUBSYSTEM=block\0MAJOR=253\0MINOR=3\0"
				   "DM_VERITY_ERR_BLOCK_NR=1,18446744073709551615";
	struct vi_corrupt_report ev;

	(void)state;
	assert_int_equal(vi_corruption_uevent(UEV(ok), &ev), 1);
	assert_int_equal(ev.type, VI_REPORT_DATA);
	assert_int_equal(ev.block, 1234);
	assert_int_equal(ev.major, 254);
	assert_int_equal(ev.minor, 0);
	assert_int_equal(vi_corruption_uevent(UEV(meta), &ev), 1);
	assert_int_equal(ev.type, VI_REPORT_METADATA);
	assert_true(ev.block == UINT64_MAX);
	assert_int_equal(ev.minor, 3);
	/* other uevents, udev's re-broadcast, junk without a header */
	assert_int_equal(vi_corruption_uevent(UEV("add@/devices/virtual/block/loop0\0ACTION=add\0"
						  "SUBSYSTEM=block\0MAJOR=7\0MINOR=0"), &ev), 0);
	assert_int_equal(vi_corruption_uevent(UEV("libudev\0\xfe\xed\xca\xfe" "DM_VERITY_ERR_BLOCK_NR=0,1"),
					      &ev), 0);
	assert_int_equal(vi_corruption_uevent(UEV("DM_VERITY_ERR_BLOCK_NR=0,1"), &ev), 0);
	assert_int_equal(vi_corruption_uevent("", 0, &ev), 0);
	/* malformed claims */
	assert_int_equal(vi_corruption_uevent(UEV("change@/x\0ACTION=change\0SUBSYSTEM=block\0MAJOR=1\0"
						  "MINOR=2\0DM_VERITY_ERR_BLOCK_NR=2,5"), &ev), -EINVAL);
	assert_int_equal(vi_corruption_uevent(UEV("change@/x\0ACTION=change\0SUBSYSTEM=block\0MAJOR=1\0"
						  "MINOR=2\0DM_VERITY_ERR_BLOCK_NR=0,-5"), &ev), -EINVAL);
	assert_int_equal(vi_corruption_uevent(UEV("change@/x\0ACTION=change\0SUBSYSTEM=block\0MAJOR=1\0"
						  "MINOR=2\0DM_VERITY_ERR_BLOCK_NR=0,5\0"
						  "DM_VERITY_ERR_BLOCK_NR=0,6"), &ev), -EINVAL);
	assert_int_equal(vi_corruption_uevent(UEV("change@/x\0ACTION=add\0SUBSYSTEM=block\0MAJOR=1\0"
						  "MINOR=2\0DM_VERITY_ERR_BLOCK_NR=0,5"), &ev), -EINVAL);
	assert_int_equal(vi_corruption_uevent(UEV("change@/x\0ACTION=change\0SUBSYSTEM=block\0"
						  "MINOR=2\0DM_VERITY_ERR_BLOCK_NR=0,5"), &ev), -EINVAL);
}

static void test_kmsg(void **state)
{
	static const char data[] = "3,812,73512345,-;device-mapper: verity: 7:0: data block 5 is "
				   "corrupted\n SUBSYSTEM=block\n";
	static const char meta[] = "3,9,1,c;device-mapper: verity: 254:17: metadata block 88 is corrupted";
	static const char limit[] = "3,10,2,-;device-mapper: verity: 8:2: reached maximum errors";
	struct vi_corrupt_report ev;
	uint64_t usec = 0;

	(void)state;
	assert_int_equal(vi_corruption_kmsg(data, strlen(data), &ev, &usec), 1);
	assert_int_equal(ev.type, VI_REPORT_DATA);
	assert_int_equal(ev.block, 5);
	assert_int_equal(ev.major, 7);
	assert_int_equal(ev.minor, 0);
	assert_false(ev.limit);
	assert_int_equal(usec, 73512345);
	assert_int_equal(vi_corruption_kmsg(meta, strlen(meta), &ev, NULL), 1);
	assert_int_equal(ev.type, VI_REPORT_METADATA);
	assert_int_equal(ev.block, 88);
	assert_int_equal(ev.minor, 17);
	assert_int_equal(vi_corruption_kmsg(limit, strlen(limit), &ev, NULL), 1);
	assert_true(ev.limit);
	assert_int_equal(ev.major, 8);
	/* userspace writes to /dev/kmsg never get facility 0: such a line is no report */
	assert_int_equal(vi_corruption_kmsg(UEV("14,11,3,-;device-mapper: verity: 7:0: data block 5 "
						"is corrupted"), &ev, NULL), 0);
	/* other lines, near misses */
	assert_int_equal(vi_corruption_kmsg(UEV("6,1,1,-;device-mapper: verity: sha256 using "
						"implementation \"sha256-ni\""), &ev, NULL), 0);
	assert_int_equal(vi_corruption_kmsg(UEV("3,1,1,-;device-mapper: verity: 7:0: data block 5 "
						"is corrupted!"), &ev, NULL), 0);
	assert_int_equal(vi_corruption_kmsg(UEV("3,1,1,-;device-mapper: verity: 7:0: data block x "
						"is corrupted"), &ev, NULL), 0);
	assert_int_equal(vi_corruption_kmsg(UEV("3,1,1,-;device-mapper: verity: 7: data block 5 "
						"is corrupted"), &ev, NULL), 0);
	assert_int_equal(vi_corruption_kmsg(UEV("3,1,1,-;device-mapper: verity-fec: 7:0: FEC 1: "
						"corrected 4 errors"), &ev, NULL), 0);
	/* not a record */
	assert_int_equal(vi_corruption_kmsg(UEV("device-mapper: verity: 7:0: data block 5 is "
						"corrupted"), &ev, NULL), -EINVAL);
	assert_int_equal(vi_corruption_kmsg(UEV("3,x,1,-;text"), &ev, NULL), -EINVAL);
	assert_int_equal(vi_corruption_kmsg(UEV("3;text"), &ev, NULL), -EINVAL);
	assert_int_equal(vi_corruption_kmsg("", 0, &ev, NULL), -EINVAL);
}

static void test_status(void **state)
{
	bool c = true;
	uint64_t fec = 0;

	(void)state;
	assert_int_equal(vi_corruption_status("V", 1, &c, &fec), 0);
	assert_false(c);
	assert_true(fec == UINT64_MAX);
	assert_int_equal(vi_corruption_status("C", 1, &c, &fec), 0);
	assert_true(c);
	assert_int_equal(vi_corruption_status("C 17", 4, &c, &fec), 0);
	assert_int_equal(fec, 17);
	/* Debian's 7.3 kernel: a second field, "-" without FEC */
	assert_int_equal(vi_corruption_status("V -", 3, &c, &fec), 0);
	assert_false(c);
	assert_true(fec == UINT64_MAX);
	assert_int_equal(vi_corruption_status("C -", 3, &c, &fec), 0);
	assert_true(c);
	assert_int_equal(vi_corruption_status("C --", 4, &c, &fec), -EINVAL);
	assert_int_equal(vi_corruption_status("C - 1", 5, &c, &fec), -EINVAL);
	assert_int_equal(vi_corruption_status("", 0, &c, &fec), -EINVAL);
	assert_int_equal(vi_corruption_status("X", 1, &c, &fec), -EINVAL);
	assert_int_equal(vi_corruption_status("V ", 2, &c, &fec), -EINVAL);
	assert_int_equal(vi_corruption_status("V1", 2, &c, &fec), -EINVAL);
}

static void test_record(void **state)
{
	struct vi_corruption_record r = {
		.time = 1700000000, .mapping = "root", .type = VI_REPORT_DATA, .block = 42,
		.count = 3, .source = "uevent", .file = "/etc/a b\n\x1b",
	}, back;
	char line[1400];
	int n;

	(void)state;
	n = vi_corruption_record_format(line, sizeof(line), &r);
	assert_true(n > 0);
	assert_string_equal(line, "time=1700000000 mapping=root type=data block=42 count=3 "
				  "source=uevent file=/etc/a b\\x0a\\x1b");
	assert_int_equal(vi_corruption_record_parse(line, (size_t)n, &back), 0);
	assert_string_equal(back.mapping, "root");
	assert_string_equal(back.file, "/etc/a b\n\x1b");
	assert_int_equal(back.block, 42);
	assert_int_equal(back.count, 3);
	assert_int_equal(back.type, VI_REPORT_DATA);
	/* a mapping name that could forge a key is refused when writing */
	snprintf(r.mapping, sizeof(r.mapping), "root file=/x");
	assert_int_equal(vi_corruption_record_format(line, sizeof(line), &r), -EINVAL);
	assert_int_equal(vi_corruption_record_format(line, 20, &back), -ENOSPC);
	/* the parser: keys in order, strict values */
	assert_int_equal(vi_corruption_record_parse(UEV("time=1 mapping=r type=unknown block=0 count=1 "
							"source=status file="), &back), 0);
	assert_int_equal(back.type, VI_REPORT_UNKNOWN);
	assert_string_equal(back.file, "");
	assert_int_equal(vi_corruption_record_parse(UEV("time=1 mapping=r type=other block=0 count=1 "
							"source=s file="), &back), -EINVAL);
	assert_int_equal(vi_corruption_record_parse(UEV("mapping=r time=1 type=data block=0 count=1 "
							"source=s file="), &back), -EINVAL);
	assert_int_equal(vi_corruption_record_parse(UEV("time=1 mapping=r type=data block=0 count=1 "
							"source=s file=\x1b"), &back), -EINVAL);
	/* the file's line form: only as the formatter writes it */
	assert_int_equal(vi_corruption_record_parse(UEV("time=1 mapping=r type=data block=0 count=1 "
							"source=s file=/a\\x41"), &back), -EINVAL);
	assert_int_equal(vi_corruption_record_parse(UEV("time=1 mapping=r type=data block=0 count=1 "
							"source=s file=/a\\"), &back), -EINVAL);
	assert_int_equal(vi_corruption_record_parse(UEV("time=1 mapping=r/x type=data block=0 count=1 "
							"source=s file="), &back), -EINVAL);
	assert_int_equal(vi_corruption_record_parse(UEV("time=1 mapping=r type=data block=0 count=1"),
						    &back), -EINVAL);
}

static void test_mountinfo(void **state)
{
	char mnt[64];
	unsigned maj, min;

	(void)state;
	assert_int_equal(vi_mountinfo_parse(UEV("22 1 254:0 / / ro,relatime shared:1 - ext4 "
						"/dev/mapper/root ro"), &maj, &min, mnt, sizeof(mnt)), 0);
	assert_int_equal(maj, 254);
	assert_int_equal(min, 0);
	assert_string_equal(mnt, "/");
	assert_int_equal(vi_mountinfo_parse(UEV("30 22 7:1 / /mnt/a\\040b rw - ext4 x rw"), &maj, &min,
					    mnt, sizeof(mnt)), 0);
	assert_string_equal(mnt, "/mnt/a b");
	assert_int_equal(vi_mountinfo_parse(UEV("30 22 7:1 / /mnt/a\\04 rw"), &maj, &min, mnt,
					    sizeof(mnt)), -EINVAL);
	assert_int_equal(vi_mountinfo_parse(UEV("30 22 7:1 / /mnt/a\\000b rw"), &maj, &min, mnt,
					    sizeof(mnt)), -EINVAL);
	assert_int_equal(vi_mountinfo_parse(UEV("30 22 71 / /mnt rw"), &maj, &min, mnt, sizeof(mnt)),
			 -EINVAL);
	assert_int_equal(vi_mountinfo_parse(UEV("30 22 7:1 /"), &maj, &min, mnt, sizeof(mnt)), -EINVAL);
	assert_int_equal(vi_mountinfo_parse(UEV("30 22 7:1 / /a/very/long/mount/point rw"), &maj, &min,
					    mnt, 8), -ENAMETOOLONG);
}

static void test_table(void **state)
{
	unsigned maj = 0, min = 0;
	uint32_t bs = 0;
	uint64_t blocks = 0;

	(void)state;
	assert_int_equal(vi_verity_table_geometry("1 254:1 254:2 4096 4096 2560 1 sha256 "
						  "aa bb 1 ignore_zero_blocks", &maj, &min, &bs,
						  &blocks), 0);
	assert_int_equal(maj, 254);
	assert_int_equal(min, 1);
	assert_int_equal(bs, 4096);
	assert_int_equal(blocks, 2560);
	assert_int_equal(vi_verity_table_geometry("2 254:1 254:2 4096 4096 2560 1 sha256 aa bb", &maj,
						  &min, &bs, &blocks), -EINVAL);
	assert_int_equal(vi_verity_table_geometry("1 254:1 254:2 4095 4096 2560 1 sha256 aa bb", &maj,
						  &min, &bs, &blocks), -EINVAL);
	assert_int_equal(vi_verity_table_geometry("1 254:1 254:2 4096 4096 2560", &maj, &min, &bs,
						  &blocks), -EINVAL);
	assert_int_equal(vi_verity_table_geometry("", &maj, &min, &bs, &blocks), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uevent),
		cmocka_unit_test(test_kmsg),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_mountinfo),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
