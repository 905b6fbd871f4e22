// SPDX-License-Identifier: LGPL-2.1-or-later
/* The parameter table: spellings in every syntax, ranges, the given set, the repeat rule,
 * conflicts between two targets, and the formatter. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "params.h"

static struct vi_target fresh(void)
{
	struct vi_config c;

	vi_config_init(&c);
	return c.root;
}

static void test_spellings(void **state)
{
	(void)state;
	/* every name looks up to its parameter, in its syntax only where spellings differ */
	for (int s = 0; s < VI_SPELL_COUNT; s++) {
		for (int p = 0; p < VI_PARAM_COUNT; p++) {
			const char *n = vi_param_name((enum vi_param)p, (enum vi_spelling)s);

			if (n)
				assert_int_equal(vi_param_lookup(n, strlen(n), (enum vi_spelling)s), p);
		}
	}
	assert_string_equal(vi_param_name(VI_PARAM_FEC_OFFSET, VI_SPELL_TABLE), "fec_start");
	assert_string_equal(vi_param_name(VI_PARAM_FEC_OFFSET, VI_SPELL_VOPTS), "fec-offset");
	assert_string_equal(vi_param_name(VI_PARAM_HASH, VI_SPELL_MANIFEST), "hash-algorithm");
	assert_string_equal(vi_param_name(VI_PARAM_SUPERBLOCK, VI_SPELL_VERITYSETUP),
			    "no-superblock");
	/* the table's positional parameters have no keyword */
	assert_null(vi_param_name(VI_PARAM_SALT, VI_SPELL_TABLE));
	assert_int_equal(vi_param_lookup("salt", 4, VI_SPELL_TABLE), -1);
	assert_int_equal(vi_param_lookup("fec_roots", 9, VI_SPELL_VOPTS), -1);
	assert_int_equal(vi_param_lookup("fec-roots", 8, VI_SPELL_VOPTS), -1);   /* prefix */
	assert_null(vi_param_name(VI_PARAM_COUNT, VI_SPELL_VOPTS));
	assert_false(vi_param_has_value(VI_PARAM_ZERO_BLOCKS));
	assert_false(vi_param_has_value(VI_PARAM_CORRUPTION));
	assert_true(vi_param_has_value(VI_PARAM_FEC_DEVICE));
}

static void test_modes(void **state)
{
	enum vi_corruption c = VI_CORRUPT_EIO;
	enum vi_ioerror e = VI_IOERR_EIO;

	(void)state;
	assert_string_equal(vi_corruption_word(VI_CORRUPT_PANIC, VI_SPELL_TABLE),
			    "panic_on_corruption");
	assert_string_equal(vi_corruption_word(VI_CORRUPT_PANIC, VI_SPELL_VOPTS),
			    "panic-on-corruption");
	assert_string_equal(vi_corruption_word(VI_CORRUPT_PANIC, VI_SPELL_MANIFEST), "panic");
	assert_null(vi_corruption_word(VI_CORRUPT_EIO, VI_SPELL_VOPTS));
	assert_string_equal(vi_ioerror_word(VI_IOERR_RESTART, VI_SPELL_TABLE), "restart_on_error");
	assert_int_equal(vi_corruption_lookup("restart", 7, VI_SPELL_MANIFEST, &c), 0);
	assert_int_equal(c, VI_CORRUPT_RESTART);
	assert_int_equal(vi_corruption_lookup("restart", 7, VI_SPELL_VOPTS, &c), -EINVAL);
	assert_int_equal(vi_ioerror_lookup("panic_on_error", 14, VI_SPELL_TABLE, &e), 0);
	assert_int_equal(e, VI_IOERR_PANIC);
	assert_int_equal(vi_ioerror_lookup("panic_on_error", 14, VI_SPELL_VOPTS, &e), -EINVAL);
}

static void test_ranges(void **state)
{
	(void)state;
	assert_null(vi_param_range_check(VI_PARAM_DATA_BS, 512));
	assert_null(vi_param_range_check(VI_PARAM_DATA_BS, 524288));
	assert_string_equal(vi_param_range_check(VI_PARAM_DATA_BS, 1048576),
			    "not a power of two between 512 and 524288");
	assert_non_null(vi_param_range_check(VI_PARAM_HASH_BS, 3000));
	assert_non_null(vi_param_range_check(VI_PARAM_HASH_BS, 256));
	assert_non_null(vi_param_range_check(VI_PARAM_FORMAT, 2));
	assert_null(vi_param_range_check(VI_PARAM_FORMAT, 0));
	assert_non_null(vi_param_range_check(VI_PARAM_DATA_BLOCKS, 0));
	assert_non_null(vi_param_range_check(VI_PARAM_HASH_OFFSET, 100));
	assert_null(vi_param_range_check(VI_PARAM_FEC_OFFSET, 1024));
	assert_string_equal(vi_param_range_check(VI_PARAM_FEC_ROOTS, 25), "must be between 2 and 24");
	assert_non_null(vi_param_range_check(VI_PARAM_FEC_ROOTS, 1));
	assert_null(vi_param_range_check(VI_PARAM_FEC_ROOTS, 24));
	assert_true(vi_block_size_ok(4096));
	assert_false(vi_block_size_ok(0));
	assert_false(vi_block_size_ok(4097));
}

static void test_repeat_rule(void **state)
{
	struct vi_target t = fresh();
	const uint8_t salt[2] = { 0xaa, 0xbb }, other[1] = { 0xaa };

	(void)state;
	assert_int_equal(vi_target_given(&t), 0);
	assert_int_equal(vi_target_set_num(&t, VI_PARAM_DATA_BS, 4096), 0);
	assert_int_equal(vi_target_set_num(&t, VI_PARAM_DATA_BS, 4096), 0);   /* same: fine */
	assert_int_equal(vi_target_set_num(&t, VI_PARAM_DATA_BS, 512), -EEXIST);
	assert_int_equal(t.params.data_block_size, 4096);
	assert_int_equal(vi_target_set_num(&t, VI_PARAM_HASH_BS, 1000), -ERANGE);
	assert_int_equal(t.given, VI_GIVEN_DATA_BS);

	assert_int_equal(vi_target_set_str(&t, VI_PARAM_SALT, salt, 2), 0);
	assert_int_equal(vi_target_set_str(&t, VI_PARAM_SALT, other, 1), -EEXIST);
	assert_int_equal(vi_target_set_str(&t, VI_PARAM_SALT, salt, 2), 0);
	assert_int_equal(vi_target_set_str(&t, VI_PARAM_HASH, "md5", 3), -ERANGE);
	assert_int_equal(vi_target_set_str(&t, VI_PARAM_HASH, "sha1", 4), 0);
	assert_string_equal(t.params.hash_name, "sha1");

	/* the modes and devices are given by their value */
	assert_int_equal(vi_target_set_num(&t, VI_PARAM_CORRUPTION, VI_CORRUPT_PANIC), 0);
	assert_int_equal(vi_target_set_num(&t, VI_PARAM_CORRUPTION, VI_CORRUPT_PANIC), 0);
	assert_int_equal(vi_target_set_num(&t, VI_PARAM_CORRUPTION, VI_CORRUPT_IGNORE), -EEXIST);
	assert_int_equal(vi_target_set_str(&t, VI_PARAM_FEC_DEVICE, "/dev/vdc", 8), 0);
	assert_int_equal(vi_target_set_str(&t, VI_PARAM_FEC_DEVICE, "/dev/vdd", 8), -EEXIST);
	assert_true(vi_target_given(&t) & VI_PARAM_BIT(VI_PARAM_FEC_DEVICE));
	assert_true(vi_target_given(&t) & VI_PARAM_BIT(VI_PARAM_CORRUPTION));
	assert_false(t.given & VI_PARAM_BIT(VI_PARAM_CORRUPTION));   /* t->given: VI_GIVEN_* only */

	assert_int_equal(vi_target_set_num(&t, VI_PARAM_SUPERBLOCK, 0), 0);
	assert_false(t.superblock);
	assert_true(t.params.no_superblock);
	assert_int_equal(vi_target_set_num(&t, VI_PARAM_SUPERBLOCK, 1), -EEXIST);
}

static void test_conflict(void **state)
{
	struct vi_target a = fresh(), b = fresh();

	(void)state;
	assert_int_equal(vi_target_set_num(&a, VI_PARAM_FEC_ROOTS, 4), 0);
	assert_int_equal(vi_target_conflict(&a, &b, ~0u), VI_PARAM_FEC_ROOTS);   /* b lacks it */
	assert_int_equal(vi_target_set_num(&b, VI_PARAM_FEC_ROOTS, 4), 0);
	assert_int_equal(vi_target_conflict(&a, &b, ~0u), -1);
	assert_int_equal(vi_target_set_num(&b, VI_PARAM_FORMAT, 0), 0);
	assert_int_equal(vi_target_conflict(&a, &b, ~0u), -1);   /* only what a was given */
	assert_int_equal(vi_target_set_num(&a, VI_PARAM_FORMAT, 1), 0);
	assert_int_equal(vi_target_conflict(&a, &b, ~0u), VI_PARAM_FORMAT);
	assert_int_equal(vi_target_conflict(&a, &b, ~VI_PARAM_BIT(VI_PARAM_FORMAT)), -1);
}

static void test_format(void **state)
{
	struct vi_target t = fresh();
	const uint8_t salt[2] = { 0x01, 0xfe };
	char out[256];
	size_t pos = 0;

	(void)state;
	assert_int_equal(vi_target_set_num(&t, VI_PARAM_DATA_BS, 1024), 0);
	assert_int_equal(vi_target_set_str(&t, VI_PARAM_SALT, salt, 2), 0);
	assert_int_equal(vi_target_set_num(&t, VI_PARAM_IOERROR, VI_IOERR_PANIC), 0);
	assert_int_equal(vi_target_set_num(&t, VI_PARAM_CHECK_ONCE, 1), 0);
	assert_int_equal(vi_param_format(&t, VI_PARAM_DATA_BS, VI_SPELL_VOPTS, out, sizeof(out),
					 &pos), 0);
	assert_int_equal(vi_param_format(&t, VI_PARAM_SALT, VI_SPELL_VOPTS, out, sizeof(out),
					 &pos), 0);
	assert_int_equal(vi_param_format(&t, VI_PARAM_IOERROR, VI_SPELL_VOPTS, out, sizeof(out),
					 &pos), 0);
	assert_int_equal(vi_param_format(&t, VI_PARAM_CHECK_ONCE, VI_SPELL_VOPTS, out, sizeof(out),
					 &pos), 0);
	assert_int_equal(vi_param_format(&t, VI_PARAM_ZERO_BLOCKS, VI_SPELL_VOPTS, out,
					 sizeof(out), &pos), 0);   /* off: nothing */
	assert_int_equal(vi_param_format(&t, VI_PARAM_CORRUPTION, VI_SPELL_VOPTS, out,
					 sizeof(out), &pos), 0);   /* default: nothing */
	assert_string_equal(out, "data-block-size=1024,salt=01fe,panic-on-error,check-at-most-once");
	assert_int_equal(pos, strlen(out));

	pos = 0;
	assert_int_equal(vi_param_format(&t, VI_PARAM_IOERROR, VI_SPELL_MANIFEST, out, sizeof(out),
					 &pos), 0);
	assert_int_equal(vi_param_format(&t, VI_PARAM_SUPERBLOCK, VI_SPELL_MANIFEST, out,
					 sizeof(out), &pos), 0);
	assert_int_equal(vi_param_format(&t, VI_PARAM_CHECK_ONCE, VI_SPELL_MANIFEST, out,
					 sizeof(out), &pos), 0);
	assert_string_equal(out, "on-error panic\nsuperblock yes\ncheck-at-most-once yes\n");
	/* no word in the syntax; no room */
	assert_int_equal(vi_param_format(&t, VI_PARAM_FEC_BLOCKS, VI_SPELL_VOPTS, out, sizeof(out),
					 &pos), -EINVAL);
	pos = 0;
	assert_int_equal(vi_param_format(&t, VI_PARAM_SALT, VI_SPELL_VOPTS, out, 6, &pos),
			 -ENOBUFS);
	assert_int_equal(pos, 0);
}

static void test_defaults(void **state)
{
	struct vi_params p;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.data_block_size = 512;
	vi_params_fill_defaults(&p, VI_GIVEN_DATA_BS);
	assert_string_equal(p.hash_name, "sha256");
	assert_int_equal(p.hash_type, 1);
	assert_int_equal(p.data_block_size, 512);
	assert_int_equal(p.hash_block_size, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spellings),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_repeat_rule),
		cmocka_unit_test(test_conflict),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_defaults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
