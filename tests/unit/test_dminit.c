// SPDX-License-Identifier: LGPL-2.1-or-later
/* dm-mod.create= for one verity device: the accepted subset and every rejection. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "dminit.h"
#include "helpers.h"

#define H  "4f8b2d0e1c7a9b3d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5"
#define H1 "76e9be054b15884a9fa85973e9cb274c93afadb6"
/* 2048 data blocks of 4096 bytes = 16384 sectors; tree at block 2049 of the hash device */
#define TBL(rest) "0 16384 verity 1 /dev/vda /dev/vdb 4096 4096 2048 2049 sha256 " H " " rest

static struct vi_target t;
static struct vi_error err;

/* Parse s into t, from the defaults: vi_dm_create_parse's result, its reason in err. */
static int parse(const char *s)
{
	t = ut_default_target();
	memset(&err, 0, sizeof(err));
	return vi_dm_create_parse(s, strlen(s), &t, &err);
}

static void ok(const char *s)
{
	ut_verdict(s, parse(s), &err, 0, NULL);
}

/* Refused with a reason containing want, and t left as the defaults. */
static void bad(const char *s, const char *want)
{
	struct vi_target before = ut_default_target();

	ut_verdict(s, parse(s), &err, -EINVAL, want);
	assert_memory_equal(&t, &before, sizeof(t));
}

static void test_basic(void **state)
{
	(void)state;
	ok("vroot,,,ro," TBL("aabbccdd"));
	assert_true(t.enabled);
	assert_true(t.from_dm_create);
	assert_false(t.superblock);
	assert_true(t.params.no_superblock);
	assert_string_equal(t.name, "vroot");
	assert_string_equal(t.dm_uuid, "");
	assert_int_equal(t.dm_minor, -1);
	assert_int_equal(t.dm_sectors, 16384);
	assert_string_equal(t.data.spec, "/dev/vda");
	assert_string_equal(t.hash.spec, "/dev/vdb");
	assert_int_equal(t.params.hash_type, 1);
	assert_int_equal(t.params.data_block_size, 4096);
	assert_int_equal(t.params.hash_block_size, 4096);
	assert_int_equal(t.params.data_blocks, 2048);
	assert_int_equal(t.params.hash_offset, 2049ull * 4096);
	assert_string_equal(t.params.hash_name, "sha256");
	assert_int_equal(t.root_hash_len, 32);
	assert_int_equal(t.root_hash[0], 0x4f);
	assert_int_equal(t.params.salt_size, 4);
	assert_int_equal(t.params.salt[3], 0xdd);
	assert_true(t.given & VI_GIVEN_DATA_BLOCKS);
	assert_true(t.given & VI_GIVEN_HASH_OFFSET);
	assert_int_equal(t.opts.corruption, VI_CORRUPT_EIO);
	/* dm-init's own numbers are kstrto*(s, 0): start, length and minor in hex or octal too */
	ok("vroot,,0x10,ro,0x0 0x4000 verity 1 /dev/vda /dev/vdb 4096 4096 2048 2049 sha256 " H " -");
	assert_int_equal(t.dm_sectors, 16384);
	assert_int_equal(t.dm_minor, 16);
	ok("vroot,,010,ro,0 040000 verity 1 /dev/vda /dev/vdb 4096 4096 2048 2049 sha256 " H " -");
	assert_int_equal(t.dm_sectors, 16384);
	assert_int_equal(t.dm_minor, 8);

	/* uuid, minor, spaces after the commas, MAJ:MIN devices, salt "-", version 0, sha1,
	 * a shorter length than the data */
	ok(" vroot , CRYPT-VERITY-abc , 3 , ro , 0 8 verity 0 254:0 254:1 512 512 100 0 sha1 "
	   H1 " -");
	assert_string_equal(t.name, "vroot");
	assert_string_equal(t.dm_uuid, "CRYPT-VERITY-abc");
	assert_int_equal(t.dm_minor, 3);
	assert_string_equal(t.data.spec, "254:0");
	assert_int_equal(vi_devspec_kind(&t.data), VI_DEV_MAJMIN);
	assert_int_equal(t.params.hash_type, 0);
	assert_int_equal(t.params.salt_size, 0);
	assert_int_equal(t.root_hash_len, 20);
	assert_int_equal(t.dm_sectors, 8);
	assert_int_equal(t.params.hash_offset, 0);
	/* PARTUUID= devices (the kernel's early lookup knows them too) */
	ok("r,,,ro,0 16384 verity 1 PARTUUID=aa-01 PARTLABEL=hash 4096 4096 2048 0 sha256 " H " -");
	assert_string_equal(t.hash.spec, "PARTLABEL=hash");
}

static void test_options(void **state)
{
	(void)state;
	ok("vroot,,,ro," TBL("- 12 panic_on_corruption restart_on_error ignore_zero_blocks "
			     "check_at_most_once use_fec_from_device /dev/vdc fec_roots 2 "
			     "fec_blocks 2100 fec_start 10"));
	assert_int_equal(t.opts.corruption, VI_CORRUPT_PANIC);
	assert_int_equal(t.opts.ioerror, VI_IOERR_RESTART);
	assert_true(t.opts.ignore_zero_blocks);
	assert_true(t.opts.check_at_most_once);
	assert_string_equal(t.fec.spec, "/dev/vdc");
	assert_int_equal(t.fec_roots, 2);
	assert_int_equal(t.fec_blocks, 2100);
	assert_int_equal(t.fec_offset, 10 * 4096);
	ok("vroot,,,ro," TBL("- 3 ignore_corruption panic_on_error try_verify_in_tasklet"));
	assert_int_equal(t.opts.corruption, VI_CORRUPT_IGNORE);
	assert_int_equal(t.opts.ioerror, VI_IOERR_PANIC);
	assert_true(t.try_verify_in_tasklet);
	ok("vroot,,,ro," TBL("- 2 root_hash_sig_key_desc roothash:abc"));
	assert_string_equal(t.sig_key_desc, "roothash:abc");
	ok("vroot,,,ro," TBL("- 1 restart_on_corruption"));
	assert_int_equal(t.opts.corruption, VI_CORRUPT_RESTART);
	ok("vroot,,,ro," TBL("- 0"));
	/* repeated with the same value: fine */
	ok("vroot,,,ro," TBL("- 6 panic_on_corruption panic_on_corruption fec_roots 3 "
			     "use_fec_from_device 8:3"));
	assert_int_equal(t.fec_roots, 3);
}

static void test_rejections(void **state)
{
	static const struct {
		const char *line, *why;
	} rows[] = {
		/* header */
		{ "vroot,,,ro", "expected <name>" },
		{ "", "expected <name>" },
		{ "vroot,,,," TBL("-"), "must be ro" },
		{ "vroot,,,rw," TBL("-"), "read-only" },
		{ "vroot,,,RO," TBL("-"), "must be ro" },
		{ ",,,ro," TBL("-"), "mapping name" },
		{ "a b,,,ro," TBL("-"), "mapping name" },
		{ "control,,,ro," TBL("-"), "reserved" },
		{ "vroot,a b,,ro," TBL("-"), "uuid" },
		{ "vroot,,x,ro," TBL("-"), "minor" },
		{ "vroot,,1048576,ro," TBL("-"), "minor" },
		{ "vroot,,,ro," TBL("-") ";v2,,,ro,0 1 linear 8:0 0", "only one device" },
		{ "vroot,,,ro," TBL("-") ",16384 1 linear 8:0 0", "only one table" },
		{ "vroot,,,ro,\x01" TBL("-"), "control characters" },
		/* table */
		{ "vroot,,,ro,0 16384 linear /dev/vda 0 1 2 3 4 5 6 7 8",
		  "only the verity target" },
		{ "vroot,,,ro,0 16384 verity 1 /dev/vda /dev/vdb 4096 4096 2048 0 sha256 " H,
		  "needs 13 words" },
		{ "vroot,,,ro,1 16384 verity 1 /dev/vda /dev/vdb 4096 4096 2048 0 sha256 " H " -",
		  "must be 0" },
		{ "vroot,,,ro,0 0 verity 1 /dev/vda /dev/vdb 4096 4096 2048 0 sha256 " H " -",
		  "length" },
		{ "vroot,,,ro,0 16385 verity 1 /dev/vda /dev/vdb 4096 4096 2048 0 sha256 " H " -",
		  "length" },
		{ "vroot,,,ro,0 16384 verity 2 /dev/vda /dev/vdb 4096 4096 2048 0 sha256 " H " -",
		  "version" },
		{ "vroot,,,ro,0 16384 verity 1 vda /dev/vdb 4096 4096 2048 0 sha256 " H " -",
		  "data device" },
		{ "vroot,,,ro,0 16384 verity 1 /dev/vda /dev/../vdb 4096 4096 2048 0 sha256 "
		  H " -", "hash device" },
		{ "vroot,,,ro,0 16384 verity 1 /dev/vda /dev/vdb 4096x 4096 2048 0 sha256 " H " -",
		  "data block size" },
		{ "vroot,,,ro,0 16384 verity 1 /dev/vda /dev/vdb 4096 -4096 2048 0 sha256 " H " -",
		  "hash block size" },
		{ "vroot,,,ro,0 16384 verity 1 /dev/vda /dev/vdb 4000 4096 2048 0 sha256 " H " -",
		  "data block size 4000" },
		{ "vroot,,,ro,0 16384 verity 1 /dev/vda /dev/vdb 4096 4096 +2048 0 sha256 " H " -",
		  "number of data blocks" },
		{ "vroot,,,ro,0 16384 verity 1 /dev/vda /dev/vdb 4096 4096 0 0 sha256 " H " -",
		  "dm-mod.create" },
		{ "vroot,,,ro,0 16384 verity 1 /dev/vda /dev/vdb 4096 4096 2048 0x1 sha256 " H " -",
		  "hash start block" },
		{ "vroot,,,ro,0 16384 verity 1 /dev/vda /dev/vdb 4096 4096 2048 "
		  "18446744073709551615 sha256 " H " -", "hash start block" },
		{ "vroot,,,ro,0 99999999999999999999 verity 1 /dev/vda /dev/vdb 4096 4096 2048 0 "
		  "sha256 " H " -", "too large" },
		{ "vroot,,,ro,0 16384 verity 1 /dev/vda /dev/vdb 4096 4096 2048 0 md5 " H " -",
		  "algorithm" },
		{ "vroot,,,ro,0 16384 verity 1 /dev/vda /dev/vdb 4096 4096 2048 0 sha1 " H " -",
		  "digest" },
		{ "vroot,,,ro,0 16384 verity 1 /dev/vda /dev/vdb 4096 4096 2048 0 sha256 xx" H " -",
		  "digest" },
		{ "vroot,,,ro," TBL("abc"), "salt" },
		{ "vroot,,,ro," TBL("--"), "salt" },
		/* optional parameters */
		{ "vroot,,,ro," TBL("- 1"), "#opt_params is 1 but 0" },
		{ "vroot,,,ro," TBL("- 1 ignore_zero_blocks extra"), "#opt_params is 1 but 2" },
		{ "vroot,,,ro," TBL("- x"), "#opt_params" },
		{ "vroot,,,ro," TBL("- 1 ignore-zero-blocks"), "unknown verity table option" },
		{ "vroot,,,ro," TBL("- 1 fec_roots"), "needs an argument" },
		{ "vroot,,,ro," TBL("- 2 panic_on_corruption ignore_corruption"), "*_corruption" },
		{ "vroot,,,ro," TBL("- 2 panic_on_error restart_on_error"), "restart_on_error" },
		{ "vroot,,,ro," TBL("- 2 fec_roots 3"), "without use_fec_from_device" },
		{ "vroot,,,ro," TBL("- 4 use_fec_from_device /dev/vdc fec_roots 30"),
		  "between 2 and 24" },
		{ "vroot,,,ro," TBL("- 4 use_fec_from_device /dev/vdc fec_roots 3x"), "fec_roots" },
		{ "vroot,,,ro," TBL("- 4 use_fec_from_device /dev/vdc fec_blocks 0"),
		  "fec_blocks" },
		{ "vroot,,,ro,"
		  TBL("- 4 use_fec_from_device /dev/vdc fec_start 18446744073709551615"),
		  "fec_start" },
		{ "vroot,,,ro,"
		  TBL("- 4 use_fec_from_device /dev/vdc use_fec_from_device /dev/vdd"),
		  "given twice" },
		{ "vroot,,,ro," TBL("- 2 use_fec_from_device vdc"), "use_fec_from_device" },
		{ "vroot,,,ro," TBL("- 4 root_hash_sig_key_desc a root_hash_sig_key_desc b"),
		  "given twice" },
		{ "vroot,,,ro," TBL("- 41 a a a a a a a a a a a a a a a a a a a a a a a a a a a a a "
				    "a a a a a a a a a a a a"), "more than 40 words" },
	};

	(void)state;
	for (size_t i = 0; i < UT_ARRAY_SIZE(rows); i++)
		bad(rows[i].line, rows[i].why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_rejections),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
