// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/boot/activate.c, the pure part: command-line parameters cross-checked with the superblock,
 * and lib/boot/devices.c's spec syntax. (The device, dm and mount steps run in the VM tests.) */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "activate.h"
#include "devices.h"
#include "helpers.h"

/* A superblock's parameters. */
static struct vi_params sb(void)
{
	struct vi_params p = ut_params("sha256", 1, 4096, 4096, 1000);

	p.salt_size = 1;
	p.salt[0] = 0x5a;
	p.uuid[0] = 1;
	return p;
}

/* A target whose command line repeated every parameter of s; the test sets what it gave. */
static struct vi_target target_of(const struct vi_params *s)
{
	struct vi_target t;

	memset(&t, 0, sizeof(t));
	t.params = *s;
	return t;
}

static void test_merge_agrees(void **state)
{
	struct vi_params s = sb(), out;
	struct vi_target t = target_of(&s);
	struct vi_error err = { "" };

	(void)state;
	t.params.hash_offset = 8192;
	t.given = VI_GIVEN_HASH_NAME | VI_GIVEN_DATA_BS | VI_GIVEN_DATA_BLOCKS | VI_GIVEN_SALT;
	assert_int_equal(vi_params_merge(&t, &s, false, &out, &err), 0);
	assert_int_equal(out.data_blocks, 1000);
	assert_int_equal(out.hash_offset, 8192); /* from the command line, not the superblock */
	assert_false(out.no_superblock);
	/* nothing given: the superblock's values */
	t.given = 0;
	memset(&t.params, 0, sizeof(t.params));
	assert_int_equal(vi_params_merge(&t, &s, false, &out, &err), 0);
	assert_string_equal(out.hash_name, "sha256");
}

static void test_merge_conflicts(void **state)
{
	struct vi_params s = sb(), out;
	struct vi_target t = target_of(&s);
	struct vi_error err = { "" };

	(void)state;
	t.given = VI_GIVEN_HASH_NAME;
	strcpy(t.params.hash_name, "sha512");
	assert_int_equal(vi_params_merge(&t, &s, false, &out, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "hash=sha512"));
	t.params = s;
	t.given = VI_GIVEN_DATA_BS;
	t.params.data_block_size = 1024;
	assert_int_equal(vi_params_merge(&t, &s, false, &out, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "data-block-size=1024"));
	t.params = s;
	t.given = VI_GIVEN_SALT;
	t.params.salt[0] = 0x5b;
	assert_int_equal(vi_params_merge(&t, &s, false, &out, &err), -EINVAL);
	t.params = s;
	t.given = VI_GIVEN_UUID;
	t.params.uuid[15] = 9;
	assert_int_equal(vi_params_merge(&t, &s, false, &out, &err), -EINVAL);
	t.params = s;
	t.given = VI_GIVEN_FORMAT;
	t.params.hash_type = 0;
	assert_int_equal(vi_params_merge(&t, &s, false, &out, &err), -EINVAL);
}

/* data-blocks= below the superblock's truncates the device: only with the policy's consent;
 * above it never. */
static void test_merge_fewer_data_blocks(void **state)
{
	struct vi_params s = sb(), out;
	struct vi_target t = target_of(&s);
	struct vi_error err = { "" };

	(void)state;
	t.given = VI_GIVEN_DATA_BLOCKS;
	t.params.data_blocks = 10;
	assert_int_equal(vi_params_merge(&t, &s, false, &out, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "data-blocks=10"));
	assert_int_equal(vi_params_merge(&t, &s, true, &out, &err), 0);
	assert_int_equal(out.data_blocks, 10);
	t.params.data_blocks = 1001;
	assert_int_equal(vi_params_merge(&t, &s, true, &out, &err), -EINVAL);
}

static void test_spec_syntax(void **state)
{
	(void)state;
	assert_true(vi_dev_spec_valid("/dev/vda"));
	assert_true(vi_dev_spec_valid("PARTUUID=0fc63daf-8483-4772-8e79-3d69d8477de4"));
	assert_true(vi_dev_spec_valid("UUID=abc"));
	assert_true(vi_dev_spec_valid("LABEL=root"));
	assert_true(vi_dev_spec_valid("PARTLABEL=root-verity"));
	assert_true(vi_dev_spec_valid("254:16"));
	assert_false(vi_dev_spec_valid("/dev/"));
	assert_false(vi_dev_spec_valid("/etc/passwd"));
	assert_false(vi_dev_spec_valid("UUID="));
	assert_false(vi_dev_spec_valid("SERIAL=1"));
	assert_false(vi_dev_spec_valid("254:"));
	assert_false(vi_dev_spec_valid("254:1x"));
	assert_false(vi_dev_spec_valid(""));
	assert_false(vi_dev_spec_valid(NULL));
}

static void test_stage_names(void **state)
{
	(void)state;
	assert_string_equal(vi_stage_name(VI_STAGE_PREFLIGHT), "preflight");
	assert_string_equal(vi_stage_name(VI_STAGE_SWITCH), "switch-root");
	assert_string_equal(vi_stage_name((enum vi_stage)99), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_agrees),
		cmocka_unit_test(test_merge_conflicts),
		cmocka_unit_test(test_merge_fewer_data_blocks),
		cmocka_unit_test(test_spec_syntax),
		cmocka_unit_test(test_stage_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
