// SPDX-License-Identifier: LGPL-2.1-or-later
/* Bad-input regressions owned by the hardening work (docs/security.md): cases found by fuzzing
 * or by the end-to-end bad-input tests, pinned at the library level. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "helpers.h"
#include "manifest.h"
#include "superblock.h"
#include "vopts.h"

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* An algorithm name from a disk never reaches err->msg raw (found by badinput_test.sh). */
static void test_superblock_name_sanitized(void **state)
{
	struct vi_params p;
	struct vi_error err = { "" };
	uint8_t sb[VERITY_SB_SIZE];

	(void)state;
	p = ut_params("sha256", 1, 4096, 4096, 8);
	assert_int_equal(vi_sb_encode(&p, sb, &err), 0);
	memcpy(sb + 32, "sha\x1b[2J\n<0>x\x07", 13);   /* the algorithm field */
	memset(&p, 0, sizeof(p));
	assert_int_equal(vi_sb_decode(sb, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "unknown hash algorithm"));
	assert_non_null(strstr(err.msg, "\\x1b[2J\\x0a<0>x\\x07"));
	assert_true(printable(err.msg));
}

/* hash= must not carry stack bytes after the NUL into the configuration (found by
 * fuzz_cmdline's determinism oracle). The stack is dirtied first; every byte after the name is
 * then either zero or what the caller had there, never something else. */
static __attribute__((noinline)) void dirty_stack(void)
{
	volatile char junk[4096];

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)0xc3;
}

static void test_vopts_hash_name_fully_initialised(void **state)
{
	static struct vi_config a;
	struct vi_error err;
	const char *w = "hash=sha1,hash-offset=4096";
	const char *name = a.root.params.hash_name;

	(void)state;
	vi_config_init(&a);
	memset(a.root.params.hash_name, 0x5a, sizeof(a.root.params.hash_name));
	dirty_stack();
	assert_int_equal(vi_vopts_parse(w, strlen(w), &a.root, &err), 0);
	assert_string_equal(name, "sha1");
	for (size_t i = strlen(name) + 1; i < sizeof(a.root.params.hash_name); i++)
		assert_true(name[i] == 0 || name[i] == 0x5a);
}

/* The canonical form of accepted option words parses again (fuzz_vopts round-trip oracle). */
static void test_vopts_format_round_trip(void **state)
{
	static struct vi_config a, b;
	struct vi_error err;
	char out[1024], again[1024];
	const char *w = "superblock=false,hash=sha256,panic-on-corruption";

	(void)state;
	vi_config_init(&a);
	vi_config_init(&b);
	assert_int_equal(vi_vopts_parse(w, strlen(w), &a.root, &err), 0);
	assert_int_equal(vi_vopts_format(&a.root, out, sizeof(out)), 0);
	assert_int_equal(vi_vopts_parse(out, strlen(out), &b.root, &err), 0);
	assert_int_equal(vi_vopts_format(&b.root, again, sizeof(again)), 0);
	assert_string_equal(out, again);
}

/* A manifest bundle read from a disk region: every malformed shape is refused. */
static void test_bundle_split_rejects(void **state)
{
	static char buf[VI_BUNDLE_MAX + 16];
	const char good[] = "verity-manifest 1\nversion 1\nuntrusted comment: x\nRUQ\n";
	struct vi_error err;
	size_t ml = 0, so = 0, sl = 0;

	(void)state;
	memset(buf, 0, sizeof(buf));
	memcpy(buf, good, sizeof(good) - 1);
	/* good, NUL padded */
	assert_int_equal(vi_bundle_split(buf, 512, &ml, &so, &sl, &err), 0);
	assert_int_equal(ml, strlen("verity-manifest 1\nversion 1\n"));
	assert_int_equal(so, ml);
	assert_int_equal(sl, strlen("untrusted comment: x\nRUQ\n"));
	/* data hidden after the padding */
	buf[400] = 'x';
	assert_int_equal(vi_bundle_split(buf, 512, &ml, &so, &sl, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "after the NUL padding"));
	buf[400] = '\0';
	/* larger than the cap */
	assert_int_equal(vi_bundle_split(buf, VI_BUNDLE_MAX + 1, &ml, &so, &sl, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "larger than"));
	/* no signature */
	assert_int_equal(vi_bundle_split(good, 28, &ml, &so, &sl, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "no minisign signature"));
	/* nothing stored */
	buf[0] = '\0';
	assert_int_equal(vi_bundle_split(buf, 512, &ml, &so, &sl, &err), -ENODATA);
	assert_int_equal(vi_bundle_split(buf, 0, &ml, &so, &sl, &err), -ENODATA);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_superblock_name_sanitized),
		cmocka_unit_test(test_vopts_hash_name_fully_initialised),
		cmocka_unit_test(test_vopts_format_round_trip),
		cmocka_unit_test(test_bundle_split_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
