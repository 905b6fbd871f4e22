// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hex.h"

static void test_encode(void **state)
{
	const uint8_t in[] = { 0x00, 0x01, 0xab, 0xff, 0x7e };
	char out[11];

	(void)state;
	assert_int_equal(vi_hex_encode(in, sizeof(in), out, sizeof(out)), 0);
	assert_string_equal(out, "0001abff7e");
	assert_int_equal(vi_hex_encode(in, sizeof(in), out, sizeof(out) - 1), -ENOBUFS);
	assert_int_equal(vi_hex_encode(in, 0, out, 1), 0);
	assert_string_equal(out, "");
}

static void test_decode(void **state)
{
	uint8_t out[4] = { 0 };
	size_t n = 99;

	(void)state;
	assert_int_equal(vi_hex_decode("DeadBeef", 8, out, sizeof(out), &n), 0);
	assert_int_equal(n, 4);
	assert_memory_equal(out, ((uint8_t[]){ 0xde, 0xad, 0xbe, 0xef }), 4);
	/* Only hex_len characters are read: the rest of the string is ignored. */
	assert_int_equal(vi_hex_decode("0102zz", 4, out, sizeof(out), &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(vi_hex_decode("", 0, out, sizeof(out), &n), 0);
	assert_int_equal(n, 0);
}

static void test_decode_rejects(void **state)
{
	uint8_t out[2] = { 0x55, 0x55 };
	size_t n = 7;

	(void)state;
	assert_int_equal(vi_hex_decode("abc", 3, out, sizeof(out), &n), -EINVAL);      /* odd */
	assert_int_equal(vi_hex_decode("0g", 2, out, sizeof(out), &n), -EINVAL);       /* bad char */
	assert_int_equal(vi_hex_decode("0x12", 4, out, sizeof(out), &n), -EINVAL);     /* prefix */
	assert_int_equal(vi_hex_decode(" 1", 2, out, sizeof(out), &n), -EINVAL);       /* space */
	assert_int_equal(vi_hex_decode("112233", 6, out, sizeof(out), &n), -ENOBUFS);  /* too long */
	/* Failure leaves the outputs alone. */
	assert_int_equal(out[0], 0x55);
	assert_int_equal(out[1], 0x55);
	assert_int_equal(n, 7);
}

static void test_decode_exact(void **state)
{
	uint8_t out[3];

	(void)state;
	assert_int_equal(vi_hex_decode_exact("a0b1c2", out, 3), 0);
	assert_memory_equal(out, ((uint8_t[]){ 0xa0, 0xb1, 0xc2 }), 3);
	assert_int_equal(vi_hex_decode_exact("a0b1", out, 3), -EINVAL);
	assert_int_equal(vi_hex_decode_exact("a0b1c2d3", out, 3), -EINVAL);
	assert_int_equal(vi_hex_decode_exact("a0b1c", out, 3), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_decode_rejects),
		cmocka_unit_test(test_decode_exact),
	};
	return cmocka_run_group_tests_name("hex", tests, NULL, NULL);
}
