// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "helpers.h"
#include "hex.h"
#include "superblock.h"

/* First 96 bytes of a superblock written by `veritysetup format --format 0 --hash sha1
 * --salt ab` on a 1,000,000-byte file (the other 416 bytes are zero). */
static const char golden_hex[] =
	"76657269747900000100000000000000fb6d35dbcb1441c88356552d86dd7760"
	"7368613100000000000000000000000000000000000000000000000000000000"
	"0010000000100000f4000000000000000100000000000000ab00000000000000";

static void golden(uint8_t buf[VERITY_SB_SIZE])
{
	memset(buf, 0, VERITY_SB_SIZE);
	assert_int_equal(vi_hex_decode(golden_hex, strlen(golden_hex), buf, VERITY_SB_SIZE, NULL), 0);
}

static void test_decode_golden(void **state)
{
	uint8_t buf[VERITY_SB_SIZE];
	struct vi_params p;
	struct vi_error err = { "" };
	char uuid[VERITY_UUID_STR_LEN + 1];

	(void)state;
	golden(buf);
	memset(&p, 0, sizeof(p));
	p.hash_offset = 4096;   /* caller-owned fields survive */
	assert_int_equal(vi_sb_decode(buf, &p, &err), 0);
	assert_string_equal(p.hash_name, "sha1");
	assert_int_equal(p.hash_type, 0);
	assert_int_equal(p.data_block_size, 4096);
	assert_int_equal(p.hash_block_size, 4096);
	assert_int_equal(p.data_blocks, 244);
	assert_int_equal(p.salt_size, 1);
	assert_int_equal(p.salt[0], 0xab);
	assert_int_equal(p.hash_offset, 4096);
	vi_uuid_format(p.uuid, uuid);
	assert_string_equal(uuid, "fb6d35db-cb14-41c8-8356-552d86dd7760");
}

static void test_round_trip(void **state)
{
	uint8_t buf[VERITY_SB_SIZE], again[VERITY_SB_SIZE];
	struct vi_params p, q;
	struct vi_error err = { "" };

	(void)state;
	golden(buf);
	memset(&p, 0, sizeof(p));
	assert_int_equal(vi_sb_decode(buf, &p, &err), 0);
	assert_int_equal(vi_sb_encode(&p, again, &err), 0);
	assert_memory_equal(buf, again, VERITY_SB_SIZE);

	/* A full 256-byte salt and sha512 survive too. */
	p = ut_params("sha512", 1, 512, 1024, UINT64_C(0x0102030405));
	p.salt_size = 256;
	for (unsigned i = 0; i < 256; i++)
		p.salt[i] = (uint8_t)(i ^ 0x5a);
	for (unsigned i = 0; i < 16; i++)
		p.uuid[i] = (uint8_t)(i * 17);
	assert_int_equal(vi_sb_encode(&p, buf, &err), 0);
	assert_memory_equal(buf + 72, ((uint8_t[]){ 5, 4, 3, 2, 1, 0, 0, 0 }), 8); /* le64 */
	assert_memory_equal(buf + 80, ((uint8_t[]){ 0, 1 }), 2);                   /* le16 256 */
	memset(&q, 0, sizeof(q));
	assert_int_equal(vi_sb_decode(buf, &q, &err), 0);
	assert_memory_equal(&p, &q, sizeof(p));
}

/* Each mutation of the golden superblock must be refused with a reason naming it. */
static void expect_reject(size_t off, const uint8_t *bytes, size_t n, const char *reason)
{
	uint8_t buf[VERITY_SB_SIZE];
	struct vi_params p;
	struct vi_error err = { "" };

	golden(buf);
	memcpy(buf + off, bytes, n);
	memset(&p, 0x77, sizeof(p));
	p.no_superblock = false;   /* an input of decode: must be a valid bool (UBSan) */
	print_message("expect '%s'\n", reason);
	assert_int_equal(vi_sb_decode(buf, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, reason));
	assert_int_equal(p.data_blocks, 0x7777777777777777ull);  /* untouched */
}

static void test_rejects(void **state)
{
	(void)state;
	expect_reject(0, (const uint8_t *)"Verity", 6, "magic");
	expect_reject(8, (uint8_t[]){ 2 }, 1, "version 2");
	expect_reject(8, (uint8_t[]){ 0 }, 1, "version 0");
	expect_reject(12, (uint8_t[]){ 2 }, 1, "hash type 2");
	expect_reject(32, (const uint8_t *)"md5\0", 4, "unknown hash algorithm 'md5'");
	expect_reject(32, (const uint8_t *)"sha1\0x", 6, "garbage after");
	expect_reject(32, (const uint8_t *)"sha1sha1sha1sha1sha1sha1sha1sha1", 32, "not NUL");
	expect_reject(32, (uint8_t[]){ 0, 0, 0, 0 }, 4, "empty");
	expect_reject(64, (uint8_t[]){ 0x00, 0x30, 0, 0 }, 4, "data block size 12288");
	expect_reject(64, (uint8_t[]){ 0x00, 0x01, 0, 0 }, 4, "data block size 256");
	expect_reject(64, (uint8_t[]){ 0, 0, 0x10, 0 }, 4, "data block size 1048576");
	expect_reject(68, (uint8_t[]){ 0x00, 0x01, 0, 0 }, 4, "hash block size 256");
	expect_reject(68, (uint8_t[]){ 0, 0, 0, 0x80 }, 4, "hash block size");
	expect_reject(72, (uint8_t[]){ 0 }, 1, "data_blocks is zero");
	expect_reject(72, (uint8_t[]){ 0, 0, 0, 0, 0, 0, 0x10, 0 }, 8, "overflows 64 bits");
	expect_reject(80, (uint8_t[]){ 0x01, 0x01 }, 2, "salt size 257");
	expect_reject(82, (uint8_t[]){ 1 }, 1, "reserved");
	expect_reject(511, (uint8_t[]){ 1 }, 1, "reserved");
	expect_reject(89, (uint8_t[]){ 1 }, 1, "after the salt");
}

static void test_hash_block_too_small(void **state)
{
	struct vi_params p;
	struct vi_error err = { "" };
	uint8_t buf[VERITY_SB_SIZE];

	(void)state;
	p = ut_params("sha512", 1, 4096, 512, 1);
	assert_int_equal(vi_params_validate(&p, &err), 0);  /* 8 digests per block: fine */
	p.hash_offset = 100;
	assert_int_equal(vi_sb_encode(&p, buf, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "multiple of 512"));
}

static void test_kernel_check(void **state)
{
	struct vi_params p;
	struct vi_error err = { "" };

	(void)state;
	memset(&p, 0, sizeof(p));
	p.data_block_size = 4096;
	p.hash_block_size = 4096;
	assert_int_equal(vi_params_kernel_check(&p, 4096, &err), 0);
	p.data_block_size = 8192;
	assert_int_equal(vi_params_kernel_check(&p, 4096, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "page size"));
	assert_int_equal(vi_params_kernel_check(&p, 65536, &err), 0);
}

static void test_uuid(void **state)
{
	uint8_t u[16], v[16];
	char s[VERITY_UUID_STR_LEN + 1];

	(void)state;
	assert_int_equal(vi_uuid_parse("FB6D35DB-cb14-41c8-8356-552d86dd7760", u), 0);
	vi_uuid_format(u, s);
	assert_string_equal(s, "fb6d35db-cb14-41c8-8356-552d86dd7760");
	assert_int_equal(vi_uuid_parse(s, v), 0);
	assert_memory_equal(u, v, 16);
	assert_int_equal(vi_uuid_parse("fb6d35dbcb1441c88356552d86dd7760", u), -EINVAL);
	assert_int_equal(vi_uuid_parse("fb6d35db-cb14-41c8-8356-552d86dd776", u), -EINVAL);
	assert_int_equal(vi_uuid_parse("fb6d35db-cb14-41c8-8356-552d86dd77600", u), -EINVAL);
	assert_int_equal(vi_uuid_parse("fb6d35db+cb14-41c8-8356-552d86dd7760", u), -EINVAL);
	assert_int_equal(vi_uuid_parse("gb6d35db-cb14-41c8-8356-552d86dd7760", u), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_golden),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_hash_block_too_small),
		cmocka_unit_test(test_kernel_check),
		cmocka_unit_test(test_uuid),
	};
	return cmocka_run_group_tests_name("superblock", tests, NULL, NULL);
}
