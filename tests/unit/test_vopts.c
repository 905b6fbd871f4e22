// SPDX-License-Identifier: LGPL-2.1-or-later
/* veritytab option words: every word, repeats, conflicts, rejections, canonical formatting. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "base64.h"
#include "vopts.h"

static struct vi_target t;
static struct vi_error err;

static void fresh(void)
{
	struct vi_config c;

	vi_config_init(&c);
	t = c.root;
}

static void ok(const char *s)
{
	fresh();
	memset(&err, 0, sizeof(err));
	if (vi_vopts_parse(s, strlen(s), &t, &err) != 0)
		fail_msg("refused '%s': %s", s, err.msg);
}

static void bad(const char *s, const char *want)
{
	fresh();
	memset(&err, 0, sizeof(err));
	if (vi_vopts_parse(s, strlen(s), &t, &err) != -EINVAL)
		fail_msg("accepted '%s'", s);
	if (!strstr(err.msg, want))
		fail_msg("'%s': reason '%s' lacks '%s'", s, err.msg, want);
}

static void test_every_word(void **state)
{
	(void)state;
	ok("superblock=false,format=0,data-block-size=1024,hash-block-size=2K,data-blocks=100,"
	   "hash-offset=1M,salt=00ff,uuid=01234567-89AB-cdef-0123-456789abcdef,hash=sha512,"
	   "fec-device=/dev/vdc,fec-offset=8192,fec-roots=24,ignore-corruption,"
	   "restart-on-error,ignore-zero-blocks,check-at-most-once,"
	   "root-hash-signature=/etc/verity/roothash.p7s");
	assert_false(t.superblock);
	assert_true(t.params.no_superblock);
	assert_int_equal(t.params.hash_type, 0);
	assert_int_equal(t.params.data_block_size, 1024);
	assert_int_equal(t.params.hash_block_size, 2048);
	assert_int_equal(t.params.data_blocks, 100);
	assert_int_equal(t.params.hash_offset, 1u << 20);
	assert_int_equal(t.params.salt_size, 2);
	assert_int_equal(t.params.salt[1], 0xff);
	assert_int_equal(t.params.uuid[0], 0x01);
	assert_int_equal(t.params.uuid[15], 0xef);
	assert_string_equal(t.params.hash_name, "sha512");
	assert_string_equal(t.fec.spec, "/dev/vdc");
	assert_int_equal(t.fec_offset, 8192);
	assert_int_equal(t.fec_roots, 24);
	assert_int_equal(t.opts.corruption, VI_CORRUPT_IGNORE);
	assert_int_equal(t.opts.ioerror, VI_IOERR_RESTART);
	assert_true(t.opts.ignore_zero_blocks);
	assert_true(t.opts.check_at_most_once);
	assert_string_equal(t.sig_path, "/etc/verity/roothash.p7s");
	assert_int_equal(t.given, VI_GIVEN_HASH_NAME | VI_GIVEN_FORMAT | VI_GIVEN_DATA_BS |
			 VI_GIVEN_HASH_BS | VI_GIVEN_DATA_BLOCKS | VI_GIVEN_HASH_OFFSET |
			 VI_GIVEN_SALT | VI_GIVEN_UUID | VI_GIVEN_SUPERBLOCK |
			 VI_GIVEN_FEC_OFFSET | VI_GIVEN_FEC_ROOTS);

	ok("restart-on-corruption,panic-on-error");
	assert_int_equal(t.opts.corruption, VI_CORRUPT_RESTART);
	assert_int_equal(t.opts.ioerror, VI_IOERR_PANIC);
	ok("panic-on-corruption,superblock=yes,salt=-,fec-device=PARTUUID=ab-01");
	assert_int_equal(t.opts.corruption, VI_CORRUPT_PANIC);
	assert_true(t.superblock);
	assert_int_equal(t.params.salt_size, 0);
	assert_true(t.given & VI_GIVEN_SALT);
	ok("");
	assert_int_equal(t.given, 0);
	assert_true(t.superblock);
	ok("root-hash-signature=PARTLABEL=root-verity-sig");
	assert_string_equal(t.sig_path, "PARTLABEL=root-verity-sig");
}

static void test_repeats(void **state)
{
	(void)state;
	/* The same value twice is fine. */
	ok("hash=sha256,hash=sha256,panic-on-corruption,panic-on-corruption,ignore-zero-blocks,"
	   "ignore-zero-blocks,salt=AB,salt=ab,fec-device=/dev/x,fec-device=/dev/x");
	assert_int_equal(t.params.salt[0], 0xab);
	/* Different values are not (systemd would take the last). */
	bad("hash=sha256,hash=sha1", "'hash' given twice");
	bad("superblock=true,superblock=false", "'superblock' given twice");
	bad("format=1,format=0", "'format' given twice");
	bad("data-block-size=4096,data-block-size=512", "'data-block-size' given twice");
	bad("hash-block-size=4096,hash-block-size=512", "'hash-block-size' given twice");
	bad("data-blocks=1,data-blocks=2", "'data-blocks' given twice");
	bad("hash-offset=0,hash-offset=512", "'hash-offset' given twice");
	bad("salt=aa,salt=-", "'salt' given twice");
	bad("uuid=01234567-89ab-cdef-0123-456789abcdef,uuid=11234567-89ab-cdef-0123-456789abcdef",
	    "'uuid' given twice");
	bad("fec-device=/dev/a,fec-device=/dev/b", "'fec-device' given twice");
	bad("fec-offset=0,fec-offset=512", "'fec-offset' given twice");
	bad("fec-roots=2,fec-roots=3", "'fec-roots' given twice");
	bad("root-hash-signature=/a,root-hash-signature=/b", "'root-hash-signature' given twice");
	bad("ignore-corruption,panic-on-corruption", "more than one of");
	bad("restart-on-corruption,ignore-corruption", "more than one of");
	bad("restart-on-error,panic-on-error", "both restart-on-error");

	/* A target that already carries values: a contradicting word is refused too. */
	fresh();
	assert_int_equal(vi_vopts_parse("hash=sha1,panic-on-corruption", 29, &t, &err), 0);
	assert_int_equal(vi_vopts_parse("hash=sha256", 11, &t, &err), -EINVAL);
	assert_int_equal(vi_vopts_parse("restart-on-corruption", 21, &t, &err), -EINVAL);
	assert_int_equal(vi_vopts_parse("panic-on-corruption", 19, &t, &err), 0);
}

/* What systemd's veritysetup also takes: its parse_size, safe_atou64, parse_boolean and
 * sd_id128_from_string spellings, and the unit words it skips. */
static void test_systemd_spellings(void **state)
{
	(void)state;
	ok("hash-offset=4096B,data-block-size=4096B,hash-block-size=1K");
	assert_int_equal(t.params.hash_offset, 4096);
	assert_int_equal(t.params.data_block_size, 4096);
	ok("hash-offset=1.5M,fec-offset=0.5K");
	assert_int_equal(t.params.hash_offset, 1572864);
	assert_int_equal(t.fec_offset, 512);
	ok("hash-offset=2G,fec-offset=1E");
	assert_int_equal(t.params.hash_offset, UINT64_C(2) << 30);
	assert_true(t.fec_offset == UINT64_C(1) << 60);
	bad("hash-offset=1.M", "size in bytes");
	bad("hash-offset=.5M", "size in bytes");
	bad("hash-offset=1.0000000000000000001M", "size in bytes");
	bad("hash-offset=16E", "size in bytes");
	ok("data-blocks=0x10,fec-roots=0x2,format=0x1");
	assert_int_equal(t.params.data_blocks, 16);
	assert_int_equal(t.fec_roots, 2);
	assert_int_equal(t.params.hash_type, 1);
	ok("data-blocks=010");                            /* strtoull base 0: octal */
	assert_int_equal(t.params.data_blocks, 8);
	ok("superblock=f");
	assert_false(t.superblock);
	ok("superblock=T");
	assert_true(t.superblock);
	ok("uuid=0123456789ABCDEF0123456789abcdef");
	assert_int_equal(t.params.uuid[0], 0x01);
	assert_int_equal(t.params.uuid[15], 0xef);
	ok("nofail,noauto,_netdev,x-initrd.attach,panic-on-corruption");
	assert_int_equal(t.opts.corruption, VI_CORRUPT_PANIC);
	ok(",panic-on-corruption,,ignore-zero-blocks,");   /* empty words are skipped */
	assert_true(t.opts.ignore_zero_blocks);
	ok("fec-device=/dev/disk/by-partlabel/fec\\x20a");
	assert_string_equal(t.fec.spec, "PARTLABEL=fec a");
	/* systemd's quoted TAG="value" is refused: quotes never reach a table or a hook */
	bad("fec-device=PARTUUID=\"0a0b0c0d-01\"", "fec-device 'PARTUUID=\"0a0b0c0d-01\"': character '\"'");
	bad("fec-device=/dev/$(reboot)", "character '$'");
	/* \x2c would make a comma that splits the words when the options are printed back */
	bad("fec-device=/dev/disk/by-partlabel/f\\x2cignore-corruption", "quote or comma");
}

static void test_rejections(void **state)
{
	char big[VI_MAX_OPTIONS + 8];

	(void)state;
	bad("panic-on-corruptoin", "unknown verity option 'panic-on-corruptoin'");
	bad("x-initrd.attach=1", "takes no value");
	bad("panic_on_corruption", "unknown verity option");   /* table spelling is not ours */
	bad("Hash=sha256", "unknown verity option");
	bad("hash", "needs a value");
	bad("panic-on-corruption=1", "takes no value");
	bad("superblock=maybe", "not a boolean");
	bad("format=2", "must be 0 or 1");
	bad("format=", "must be 0 or 1");
	bad("data-block-size=1000", "power of two");
	bad("data-block-size=256", "power of two");
	bad("data-block-size=1M", "power of two");      /* above veritysetup's 512 KiB */
	bad("hash-block-size=4096x", "power of two");
	bad("data-blocks=0", "positive");
	bad("data-blocks=-1", "positive");
	bad("data-blocks=0x", "positive");
	bad("data-blocks=08", "positive");                /* octal, as systemd reads it */
	bad("fec-roots=08", "between 2 and 24");
	bad("data-blocks=99999999999999999999", "positive");
	bad("hash-offset=100", "multiple of 512");
	bad("hash-offset=1X", "size in bytes");
	bad("hash-offset=99999999999T", "size in bytes");
	bad("salt=abc", "not hex");
	bad("salt=zz", "not hex");
	bad("salt=", "not hex");
	memset(big, 'a', sizeof(big));
	memcpy(big, "salt=", 5);
	big[5 + 514] = '\0';
	bad(big, "longer than 256 bytes");
	bad("uuid=0123456789abcdef0123456789abcdeg", "not a UUID");
	bad("uuid=0123456789abcdef0123456789abcdef0", "not a UUID");
	bad("uuid=01234567-89ab-cdef-0123-456789abcdeg", "not a UUID");
	bad("hash=md5", "unknown hash algorithm");
	bad("hash=SHA256", "unknown hash algorithm");
	bad("hash=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "unknown hash algorithm");
	bad("fec-device=/etc/x", "under /dev/");
	bad("fec-device=8:1", "not /dev/");
	bad("fec-offset=511", "multiple of 512");
	bad("fec-roots=1", "between 2 and 24");
	bad("fec-roots=25", "between 2 and 24");
	bad("root-hash-signature=base64:MIIB", "inline root-hash-signature: signature has an "
	    "unsupported DER length");
	bad("root-hash-signature=base64:MAMCAQA", "strict (padded, RFC 4648) base64");
	bad("root-hash-signature=base64:MAMC AQA=", "strict");
	bad("root-hash-signature=base64:", "strict");
	bad("root-hash-signature=base64:aGVsbG8=", "not DER");
	bad("root-hash-signature=sig.p7s", "not /dev/");
	bad("root-hash-signature=/etc/../sig", "'..'");
	bad("root-hash-signature=/a b", "space or comma");
	bad("hash=sha256\t", "control characters");
	memset(big, 'a', sizeof(big));
	big[VI_MAX_OPTIONS + 1] = '\0';
	bad(big, "longer than 4096");
}

/* systemd's inline form: "base64:" and the DER signature (here a tiny DER SEQUENCE) */
static void test_inline_signature(void **state)
{
	char out[VI_MAX_OPTIONS + 64];
	char big[VI_MAX_SIG_LOC + 64];
	size_t n;

	(void)state;
	ok("root-hash-signature=base64:MAMCAQA=,panic-on-corruption");
	assert_string_equal(t.sig_path, "base64:MAMCAQA=");
	assert_int_equal(vi_vopts_format(&t, out, sizeof(out)), 0);
	assert_string_equal(out, "panic-on-corruption,root-hash-signature=base64:MAMCAQA=");
	/* the longest inline signature that fits: VI_MAX_SIG_LOC - 1 characters in all */
	n = sizeof(VI_SIG_INLINE_PREFIX) - 1;
	memcpy(big, "root-hash-signature=", 20);
	memcpy(big + 20, VI_SIG_INLINE_PREFIX, n);
	/* a DER SEQUENCE of 1530 bytes (length 0x05f6 after a 4-byte header) is 2040 base64
	 * characters: 2047 with the prefix */
	uint8_t der[1533] = { 0x30, 0x82, 0x05, 0xf6 };

	assert_int_equal(vi_b64_encode(der, 1530, big + 20 + n, sizeof(big) - 20 - n), 0);
	assert_int_equal(strlen(big + 20), VI_MAX_SIG_LOC - 1);
	ok(big);
	assert_int_equal(strlen(t.sig_path), VI_MAX_SIG_LOC - 1);
	/* three DER bytes more (4 base64 characters) no longer fit */
	der[3] = 0xf9;
	assert_int_equal(vi_b64_encode(der, sizeof(der), big + 20 + n, sizeof(big) - 20 - n), 0);
	bad(big, "too long");
}

static void test_format(void **state)
{
	char out[512], again[512];
	struct vi_target t2;

	(void)state;
	ok("");
	assert_int_equal(vi_vopts_format(&t, out, sizeof(out)), 0);
	assert_string_equal(out, "");
	/* Canonical order, every word, and a second parse gives the same text. */
	ok("root-hash-signature=/s,check-at-most-once,ignore-zero-blocks,panic-on-error,"
	   "restart-on-corruption,fec-roots=4,fec-offset=1K,fec-device=/dev/f,hash=sha1,"
	   "uuid=01234567-89ab-cdef-0123-456789abcdef,salt=-,hash-offset=4K,data-blocks=9,"
	   "hash-block-size=512,data-block-size=512,format=1,superblock=true");
	assert_int_equal(vi_vopts_format(&t, out, sizeof(out)), 0);
	assert_string_equal(out, "superblock=true,format=1,data-block-size=512,hash-block-size=512,"
			    "data-blocks=9,hash-offset=4096,salt=-,"
			    "uuid=01234567-89ab-cdef-0123-456789abcdef,hash=sha1,fec-device=/dev/f,"
			    "fec-offset=1024,fec-roots=4,restart-on-corruption,panic-on-error,"
			    "ignore-zero-blocks,check-at-most-once,root-hash-signature=/s");
	t2 = t;
	fresh();
	assert_int_equal(vi_vopts_parse(out, strlen(out), &t, &err), 0);
	assert_int_equal(vi_vopts_format(&t, again, sizeof(again)), 0);
	assert_string_equal(out, again);
	assert_memory_equal(&t.params, &t2.params, sizeof(t.params));
	assert_int_equal(t.given, t2.given);
	/* a udev link name that decodes to a byte the words refuse is written back as the link */
	ok("fec-device=/dev/disk/by-partlabel/fec\\x20a\\x2fb\\xc3\\xa9");
	assert_string_equal(t.fec.spec, "PARTLABEL=fec a/b\xc3\xa9");
	assert_int_equal(vi_vopts_format(&t, out, sizeof(out)), 0);
	assert_string_equal(out, "fec-device=/dev/disk/by-partlabel/fec\\x20a\\x2fb\\xc3\\xa9");
	ok("fec-device=LABEL=plain.name");
	assert_int_equal(vi_vopts_format(&t, out, sizeof(out)), 0);
	assert_string_equal(out, "fec-device=LABEL=plain.name");
	/* superblock=false prints every parameter; salt in hex */
	ok("superblock=false,salt=0A0b,ignore-corruption");
	assert_int_equal(vi_vopts_format(&t, out, sizeof(out)), 0);
	assert_string_equal(out, "superblock=false,salt=0a0b,ignore-corruption");
	/* ... and once the command-line parser has filled the defaults in, all of them */
	t.params.data_block_size = t.params.hash_block_size = 4096;
	snprintf(t.params.hash_name, sizeof(t.params.hash_name), "sha256");
	assert_int_equal(vi_vopts_format(&t, out, sizeof(out)), 0);
	assert_string_equal(out, "superblock=false,format=0,data-block-size=4096,"
			    "hash-block-size=4096,hash-offset=0,salt=0a0b,hash=sha256,"
			    "ignore-corruption");
	/* too small a buffer: -ENOBUFS and an empty string */
	ok("panic-on-corruption,ignore-zero-blocks");
	assert_int_equal(vi_vopts_format(&t, out, 10), -ENOBUFS);
	assert_string_equal(out, "");
	assert_int_equal(vi_vopts_format(&t, out, 0), -ENOBUFS);
}

static void test_path_checks(void **state)
{
	(void)state;
	assert_int_equal(vi_abspath_check("/etc/verity-init/x.p7s", 22, &err), 0);
	assert_int_equal(vi_abspath_check("/", 1, &err), -EINVAL);
	assert_int_equal(vi_abspath_check("/a/", 3, &err), -EINVAL);
	assert_int_equal(vi_abspath_check("/a/..", 5, &err), -EINVAL);
	assert_int_equal(vi_abspath_check("/a/...", 6, &err), 0);   /* "..." is a name */
	assert_int_equal(vi_abspath_check("/a,b", 4, &err), -EINVAL);
	assert_int_equal(vi_abspath_check("a", 1, &err), -EINVAL);
	assert_int_equal(vi_abspath_check("", 0, &err), -EINVAL);
	assert_int_equal(vi_location_check("/etc/m", 6, &err), 0);
	assert_int_equal(vi_location_check("/dev/vda3", 9, &err), 0);
	assert_int_equal(vi_location_check("PARTLABEL=sig", 13, &err), 0);
	assert_int_equal(vi_location_check("m", 1, &err), -EINVAL);
	assert_int_equal(vi_location_check("/dev/../m", 9, &err), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_word),
		cmocka_unit_test(test_repeats),
		cmocka_unit_test(test_systemd_spellings),
		cmocka_unit_test(test_rejections),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_inline_signature),
		cmocka_unit_test(test_path_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
