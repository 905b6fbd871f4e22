// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/boot/table.c: the verity table line, and the comparison used to reuse an existing mapping. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <cmocka.h>

#include "table.h"

static void base(struct vi_table *t)
{
	memset(t, 0, sizeof(*t));
	strcpy(t->p.hash_name, "sha256");
	t->p.hash_type = 1;
	t->p.data_block_size = 4096;
	t->p.hash_block_size = 4096;
	t->p.data_blocks = 4096;
	t->p.salt_size = 2;
	t->p.salt[0] = 0xab;
	t->p.salt[1] = 0x01;
	t->hash_start = 1;
	t->data_dev = makedev(254, 0);
	t->hash_dev = makedev(254, 16);
	t->root_hash_len = 32;
	for (unsigned i = 0; i < 32; i++)
		t->root_hash[i] = (uint8_t)i;
}

#define RH "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

static void test_plain(void **state)
{
	struct vi_table t;
	struct vi_error err = { "" };
	char out[VI_TABLE_MAX];

	(void)state;
	base(&t);
	assert_int_equal(vi_table_build(&t, out, sizeof(out), &err), 0);
	assert_string_equal(out, "1 254:0 254:16 4096 4096 4096 1 sha256 " RH " ab01");
	assert_int_equal(vi_table_sectors(&t), 4096 * 8);
	t.p.salt_size = 0;
	assert_int_equal(vi_table_build(&t, out, sizeof(out), &err), 0);
	assert_string_equal(out, "1 254:0 254:16 4096 4096 4096 1 sha256 " RH " -");
}

static void test_options_in_kernel_order(void **state)
{
	struct vi_table t;
	struct vi_error err = { "" };
	char out[VI_TABLE_MAX];

	(void)state;
	base(&t);
	t.opts.corruption = VI_CORRUPT_PANIC;
	t.opts.ioerror = VI_IOERR_RESTART;
	t.opts.ignore_zero_blocks = true;
	t.opts.check_at_most_once = true;
	t.fec = true;
	t.fec_dev = makedev(254, 32);
	t.fec_roots = 2;
	t.fec_blocks = 4129;
	t.fec_start = 0;
	strcpy(t.sig_key_desc, "verity-init:root");
	assert_int_equal(vi_table_build(&t, out, sizeof(out), &err), 0);
	assert_string_equal(out, "1 254:0 254:16 4096 4096 4096 1 sha256 " RH " ab01 14"
				 " panic_on_corruption restart_on_error ignore_zero_blocks"
				 " check_at_most_once use_fec_from_device 254:32 fec_blocks 4129"
				 " fec_start 0 fec_roots 2 root_hash_sig_key_desc verity-init:root");
}

static void test_refusals(void **state)
{
	struct vi_table t;
	struct vi_error err = { "" };
	char out[VI_TABLE_MAX];

	(void)state;
	base(&t);
	t.root_hash_len = 20; /* not sha256's length */
	assert_int_equal(vi_table_build(&t, out, sizeof(out), &err), -EINVAL);
	assert_non_null(strstr(err.msg, "root hash length"));
	base(&t);
	strcpy(t.sig_key_desc, "two words");
	assert_int_equal(vi_table_build(&t, out, sizeof(out), &err), -EINVAL);
	base(&t);
	t.fec = true;
	t.fec_roots = 1;
	t.fec_blocks = 10;
	assert_int_equal(vi_table_build(&t, out, sizeof(out), &err), -EINVAL);
	base(&t);
	t.p.data_blocks = UINT64_MAX / 2; /* sectors overflow */
	assert_int_equal(vi_table_sectors(&t), 0);
	assert_int_equal(vi_table_build(&t, out, sizeof(out), &err), -EINVAL);
	base(&t);
	assert_int_equal(vi_table_build(&t, out, 40, &err), -ENOBUFS);
}

static void test_equal(void **state)
{
#define A "1 254:0 254:16 4096 4096 4096 1 sha256 " RH " ab01"
	const char *a = A;

	(void)state;
	assert_true(vi_table_equal(a, a));
	/* hex case and blanks do not matter */
	assert_true(vi_table_equal(a, "1  254:0 254:16 4096 4096 4096 1 sha256 "
				      "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F AB01"));
	/* any positional difference does */
	assert_false(vi_table_equal(a, "1 254:0 254:16 4096 4096 4095 1 sha256 " RH " ab01"));
	assert_false(vi_table_equal(a, "1 254:1 254:16 4096 4096 4096 1 sha256 " RH " ab01"));
	assert_false(vi_table_equal(a, "1 254:0 254:16 4096 4096 4096 1 sha256 " RH " -"));
	/* options: same set in another order is equal; a missing or extra one is not */
	assert_true(vi_table_equal(
		"1 254:0 254:16 4096 4096 4096 1 sha256 " RH " ab01 6 use_fec_from_device 254:32 "
		"fec_roots 2 check_at_most_once panic_on_corruption",
		"1 254:0 254:16 4096 4096 4096 1 sha256 " RH " ab01 6 panic_on_corruption "
		"check_at_most_once fec_roots 2 use_fec_from_device 254:32"));
	assert_false(vi_table_equal(a, "1 254:0 254:16 4096 4096 4096 1 sha256 " RH
				       " ab01 1 ignore_zero_blocks"));
	assert_false(vi_table_equal(
		"1 254:0 254:16 4096 4096 4096 1 sha256 " RH " ab01 2 fec_roots 2",
		"1 254:0 254:16 4096 4096 4096 1 sha256 " RH " ab01 2 fec_roots 3"));
	/* malformed: too short, wrong count, option value missing */
	assert_false(vi_table_equal(a, "1 254:0"));
	assert_false(vi_table_equal(A " 2 ignore_zero_blocks", A " 2 ignore_zero_blocks"));
	assert_false(vi_table_equal(A " 1 fec_roots", A " 1 fec_roots"));
#undef A
}

/* The builder's output compares equal to itself re-read, for every option combination. */
static void test_build_then_equal(void **state)
{
	struct vi_table t;
	struct vi_error err = { "" };
	char a[VI_TABLE_MAX], b[VI_TABLE_MAX];

	(void)state;
	for (unsigned m = 0; m < 32; m++) {
		base(&t);
		t.opts.corruption = (enum vi_corruption)(m & 3);
		t.opts.ignore_zero_blocks = m & 4;
		t.opts.check_at_most_once = m & 8;
		t.fec = m & 16;
		t.fec_dev = makedev(8, 1);
		t.fec_roots = 4;
		t.fec_blocks = 99;
		assert_int_equal(vi_table_build(&t, a, sizeof(a), &err), 0);
		assert_true(vi_table_equal(a, a));
		t.opts.check_at_most_once = !t.opts.check_at_most_once;
		assert_int_equal(vi_table_build(&t, b, sizeof(b), &err), 0);
		assert_false(vi_table_equal(a, b));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_options_in_kernel_order),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_equal),
		cmocka_unit_test(test_build_then_equal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
