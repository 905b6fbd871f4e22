// SPDX-License-Identifier: LGPL-2.1-or-later
/* The signed manifest: strict parsing, canonical formatting, and the merge into a command-line
 * target that refuses every contradiction (options set through the real veritytab parser). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "hex.h"
#include "manifest.h"
#include "manifest_vectors.h"
#include "vopts.h"


static const char FULL[] =
	"verity-manifest 1\n"
	"version 18446744073709551615\n"
	"root-hash " VEC_ROOT VEC_ROOT "\n"
	"hash-algorithm sha512\n"
	"format 0\n"
	"data-block-size 1024\n"
	"hash-block-size 4096\n"
	"data-blocks 1\n"
	"hash-offset 0\n"
	"salt -\n"
	"superblock yes\n"
	"data-device /dev/vda\n"
	"uuid 0123abcd-0000-4000-8000-00000000cafe\n"
	"hash-device PARTLABEL=root-verity\n"
	"fec-device PARTLABEL=root-fec\n"
	"fec-offset 512\n"
	"fec-roots 24\n"
	"on-corruption panic\n"
	"on-error restart\n"
	"ignore-zero-blocks yes\n"
	"check-at-most-once yes\n";

#define S(x) (x), (sizeof(x) - 1)

static void test_parse_good(void **state)
{
	struct vi_manifest m;
	struct vi_error err = { "" };
	uint8_t root[32];

	(void)state;
	assert_int_equal(vi_manifest_parse(S(VEC_MANIFEST), &m, &err), 0);
	assert_int_equal(m.version, 7);
	assert_int_equal(vi_hex_decode_exact(VEC_ROOT, root, sizeof(root)), 0);
	assert_int_equal(m.root_hash_len, 32);
	assert_memory_equal(m.root_hash, root, 32);
	assert_string_equal(m.params.hash_name, "sha256");
	assert_int_equal(m.params.hash_type, 1);
	assert_int_equal(m.params.data_block_size, 4096);
	assert_int_equal(m.params.hash_block_size, 4096);
	assert_int_equal(m.params.data_blocks, 4096);
	assert_int_equal(m.params.hash_offset, 16777216);
	assert_int_equal(m.params.salt_size, 8);
	assert_int_equal(m.params.salt[7], 0x77);
	assert_false(m.params.no_superblock);
	assert_false(m.has_uuid);
	assert_string_equal(m.data.spec, "PARTUUID=" VEC_PARTUUID);
	assert_string_equal(m.hash.spec, "");
	assert_string_equal(m.fec.spec, "");
	assert_int_equal(m.opts.corruption, VI_CORRUPT_EIO);
	assert_int_equal(m.opts.ioerror, VI_IOERR_EIO);
	assert_false(m.opts.ignore_zero_blocks);
	assert_false(m.opts.check_at_most_once);
}

static void test_parse_full(void **state)
{
	struct vi_manifest m;
	struct vi_error err = { "" };

	(void)state;
	assert_int_equal(vi_manifest_parse(S(FULL), &m, &err), 0);
	assert_int_equal(m.version, UINT64_MAX);
	assert_int_equal(m.root_hash_len, 64);
	assert_int_equal(m.params.hash_type, 0);
	assert_int_equal(m.params.salt_size, 0);
	assert_true(m.has_uuid);
	assert_int_equal(m.params.uuid[15], 0xfe);
	assert_string_equal(m.hash.spec, "PARTLABEL=root-verity");
	assert_string_equal(m.fec.spec, "PARTLABEL=root-fec");
	assert_int_equal(m.fec_offset, 512);
	assert_int_equal(m.fec_roots, 24);
	assert_int_equal(m.opts.corruption, VI_CORRUPT_PANIC);
	assert_int_equal(m.opts.ioerror, VI_IOERR_RESTART);
	assert_true(m.opts.ignore_zero_blocks);
	assert_true(m.opts.check_at_most_once);
}

static void test_format_roundtrip(void **state)
{
	struct vi_manifest m;
	struct vi_error err = { "" };
	char out[VI_MANIFEST_MAX];
	size_t n = 0;

	(void)state;
	/* both vectors are written in canonical order: formatting gives them back exactly */
	assert_int_equal(vi_manifest_parse(S(VEC_MANIFEST), &m, &err), 0);
	assert_int_equal(vi_manifest_format(&m, out, sizeof(out), &n, &err), 0);
	assert_int_equal(n, sizeof(VEC_MANIFEST) - 1);
	assert_string_equal(out, VEC_MANIFEST);
	assert_int_equal(vi_manifest_parse(S(FULL), &m, &err), 0);
	assert_int_equal(vi_manifest_format(&m, out, sizeof(out), &n, &err), 0);
	assert_string_equal(out, FULL);
	assert_int_equal(vi_manifest_format(&m, out, 100, &n, &err), -ENOBUFS);
	/* an invalid structure is not written */
	m.version = 0;
	assert_int_equal(vi_manifest_format(&m, out, sizeof(out), &n, &err), -EINVAL);
}

/* VEC_MANIFEST with the line starting with `key ` replaced by `line` (NULL: removed), or with
 * `line` appended when key is NULL. */
static size_t edit(char *out, size_t out_size, const char *key, const char *line)
{
	const char *p = VEC_MANIFEST, *end = VEC_MANIFEST + sizeof(VEC_MANIFEST) - 1;
	size_t n = 0;

	while (p < end) {
		const char *nl = strchr(p, '\n') + 1;

		if (key && strncmp(p, key, strlen(key)) == 0 && p[strlen(key)] == ' ') {
			if (line)
				n += (size_t)snprintf(out + n, out_size - n, "%s", line);
		} else {
			n += (size_t)snprintf(out + n, out_size - n, "%.*s", (int)(nl - p), p);
		}
		p = nl;
	}
	if (!key)
		n += (size_t)snprintf(out + n, out_size - n, "%s", line);
	return n;
}

static int parse_edit(const char *key, const char *line, struct vi_error *err)
{
	char buf[VI_MANIFEST_MAX];
	struct vi_manifest m;
	size_t n = edit(buf, sizeof(buf), key, line);

	return vi_manifest_parse(buf, n, &m, err);
}

static void test_parse_rejects(void **state)
{
	struct vi_error err = { "" };
	struct vi_manifest m;
	char buf[VI_MANIFEST_MAX + 64];

	(void)state;
	/* sanity: the edit helper reproduces VEC_MANIFEST */
	assert_int_equal(parse_edit("version", "version 7\n", &err), 0);

	/* first line */
	assert_int_equal(vi_manifest_parse(S("verity-manifest 2\nversion 1\n"), &m, &err), -EINVAL);
	assert_int_equal(vi_manifest_parse(S(""), &m, &err), -EINVAL);
	assert_int_equal(vi_manifest_parse(VEC_MANIFEST + 1, sizeof(VEC_MANIFEST) - 2, &m, &err), -EINVAL);
	/* shape of lines */
	assert_int_equal(parse_edit(NULL, "\n", &err), -EINVAL);                       /* blank */
	assert_int_equal(parse_edit(NULL, "# comment\n", &err), -EINVAL);
	assert_int_equal(parse_edit("version", "version  7\n", &err), -EINVAL);        /* 2 spaces */
	assert_int_equal(parse_edit("version", "version 7 \n", &err), -EINVAL);        /* trailing */
	assert_int_equal(parse_edit("version", " version 7\n", &err), -EINVAL);        /* leading */
	assert_int_equal(parse_edit("version", "version 7\r\n", &err), -EINVAL);       /* CR */
	assert_int_equal(parse_edit("version", "version\t7\n", &err), -EINVAL);        /* tab */
	assert_int_equal(parse_edit("version", "version\n", &err), -EINVAL);           /* no value */
	/* no LF */
	assert_int_equal(vi_manifest_parse(VEC_MANIFEST, sizeof(VEC_MANIFEST) - 2, &m, &err), -EINVAL);
	assert_string_equal(err.msg, "manifest line 12: no newline at the end");
	memcpy(buf, VEC_MANIFEST, sizeof(VEC_MANIFEST));
	buf[30] = '\0';
	assert_int_equal(vi_manifest_parse(buf, sizeof(VEC_MANIFEST) - 1, &m, &err), -EINVAL); /* NUL */
	/* keys */
	assert_int_equal(parse_edit(NULL, "name root\n", &err), -EINVAL);
	assert_string_equal(err.msg, "manifest line 13: unknown key 'name'");
	assert_int_equal(parse_edit(NULL, "Version 8\n", &err), -EINVAL);              /* case */
	assert_int_equal(parse_edit(NULL, "version 8\n", &err), -EINVAL);
	assert_string_equal(err.msg, "manifest line 13: 'version' given twice");
	assert_int_equal(parse_edit(NULL, "version 7\n", &err), -EINVAL);              /* even equal */
	assert_int_equal(parse_edit("data-device", NULL, &err), -EINVAL);
	assert_string_equal(err.msg, "manifest: required key 'data-device' missing");
	assert_int_equal(parse_edit("salt", NULL, &err), -EINVAL);
	assert_int_equal(parse_edit("root-hash", NULL, &err), -EINVAL);
	/* values */
	assert_int_equal(parse_edit("version", "version 0\n", &err), -EINVAL);
	assert_int_equal(parse_edit("version", "version 07\n", &err), -EINVAL);
	assert_int_equal(parse_edit("version", "version +7\n", &err), -EINVAL);
	assert_int_equal(parse_edit("version", "version 18446744073709551616\n", &err), -EINVAL);
	assert_int_equal(parse_edit("root-hash", "root-hash " VEC_ROOT "00\n", &err), -EINVAL);
	assert_int_equal(parse_edit("root-hash", "root-hash 4e8b\n", &err), -EINVAL);
	assert_int_equal(parse_edit("root-hash", "root-hash xx\n", &err), -EINVAL);
	assert_int_equal(parse_edit("hash-algorithm", "hash-algorithm md4x\n", &err), -EINVAL);
	assert_int_equal(parse_edit("format", "format 2\n", &err), -EINVAL);
	assert_int_equal(parse_edit("data-block-size", "data-block-size 4095\n", &err), -EINVAL);
	assert_int_equal(parse_edit("hash-block-size", "hash-block-size 256\n", &err), -EINVAL);
	assert_int_equal(parse_edit("hash-block-size", "hash-block-size 4K\n", &err), -EINVAL);
	assert_int_equal(parse_edit("data-blocks", "data-blocks 0\n", &err), -EINVAL);
	/* data_blocks * block size overflows 64 bits */
	assert_int_equal(parse_edit("data-blocks", "data-blocks 18446744073709551615\n", &err),
			 -EINVAL);
	assert_int_equal(parse_edit("hash-offset", "hash-offset 100\n", &err), -EINVAL);
	assert_int_equal(parse_edit("hash-offset", "hash-offset 0\n", &err), -EINVAL); /* overlap */
	assert_int_equal(parse_edit("salt", "salt \n", &err), -EINVAL);
	assert_int_equal(parse_edit("salt", "salt 0\n", &err), -EINVAL);
	{
		/* 257-byte salt */
		char line[600] = "salt ";

		memset(line + 5, 'a', 514);
		strcpy(line + 519, "\n");
		assert_int_equal(parse_edit("salt", line, &err), -EINVAL);
	}
	assert_int_equal(parse_edit("superblock", "superblock true\n", &err), -EINVAL);
	assert_int_equal(parse_edit("superblock", "superblock no\n", &err), 0);
	assert_int_equal(parse_edit("superblock", "superblock no\nuuid 0123abcd-0000-4000-8000-00000000cafe\n",
				    &err), -EINVAL);
	assert_int_equal(parse_edit(NULL, "uuid 0123abcd00004000800000000000cafe\n", &err), -EINVAL);
	assert_int_equal(parse_edit("data-device", "data-device vda\n", &err), -EINVAL);
	assert_int_equal(parse_edit("data-device", "data-device 254:1\n", &err), -EINVAL);
	assert_int_equal(parse_edit("data-device", "data-device /dev/../etc/x\n", &err), -EINVAL);
	assert_int_equal(parse_edit(NULL, "fec-roots 2\n", &err), -EINVAL);   /* without device */
	assert_int_equal(parse_edit(NULL, "fec-device /dev/vdc\nfec-roots 25\n", &err), -EINVAL);
	assert_int_equal(parse_edit(NULL, "fec-device /dev/vdc\nfec-roots 2\n", &err), 0);
	assert_int_equal(parse_edit(NULL, "on-corruption reboot\n", &err), -EINVAL);
	assert_int_equal(parse_edit(NULL, "on-error ignore\n", &err), -EINVAL);
	assert_int_equal(parse_edit(NULL, "ignore-zero-blocks 1\n", &err), -EINVAL);
	/* size cap */
	memset(buf, 'x', sizeof(buf));
	memcpy(buf, VEC_MANIFEST, sizeof(VEC_MANIFEST) - 1);
	assert_int_equal(vi_manifest_parse(buf, VI_MANIFEST_MAX + 1, &m, &err), -E2BIG);
}

/* A root target as the command line parser leaves it, then option words applied. */
static void target(struct vi_target *t, const char *opts)
{
	struct vi_config cfg;
	struct vi_error err = { "" };

	vi_config_init(&cfg);
	*t = cfg.root;
	t->enabled = true;
	if (opts)
		assert_int_equal(vi_vopts_parse(opts, strlen(opts), t, &err), 0);
}

static void test_apply_fills_everything(void **state)
{
	struct vi_manifest m;
	struct vi_target t;
	struct vi_error err = { "" };

	(void)state;
	assert_int_equal(vi_manifest_parse(S(FULL), &m, &err), 0);
	target(&t, NULL);
	assert_int_equal(vi_manifest_apply(&m, &t, &err), 0);
	assert_true(t.enabled);
	assert_string_equal(t.name, "root");
	assert_int_equal(t.root_hash_len, 64);
	assert_memory_equal(t.root_hash, m.root_hash, 64);
	assert_string_equal(t.data.spec, "/dev/vda");
	assert_string_equal(t.hash.spec, "PARTLABEL=root-verity");
	assert_string_equal(t.fec.spec, "PARTLABEL=root-fec");
	assert_string_equal(t.params.hash_name, "sha512");
	assert_int_equal(t.params.hash_type, 0);
	assert_int_equal(t.params.data_block_size, 1024);
	assert_int_equal(t.params.data_blocks, 1);
	assert_int_equal(t.fec_offset, 512);
	assert_int_equal(t.fec_roots, 24);
	assert_int_equal(t.opts.corruption, VI_CORRUPT_PANIC);
	assert_int_equal(t.opts.ioerror, VI_IOERR_RESTART);
	assert_true(t.opts.ignore_zero_blocks);
	assert_true(t.opts.check_at_most_once);
	assert_true(t.superblock);
	assert_true(t.given & VI_GIVEN_DATA_BLOCKS);
	assert_true(t.given & VI_GIVEN_UUID);
}

static void test_apply_agreeing_cmdline(void **state)
{
	struct vi_manifest m;
	struct vi_target t;
	struct vi_error err = { "" };

	(void)state;
	assert_int_equal(vi_manifest_parse(S(VEC_MANIFEST), &m, &err), 0);
	/* the same values written again on the command line are fine */
	target(&t, "hash=sha256,format=1,data-block-size=4K,hash-block-size=4096,data-blocks=4096,"
		   "hash-offset=16M,salt=0011223344556677,superblock=yes");
	assert_int_equal(vi_hex_decode_exact(VEC_ROOT, t.root_hash, 32), 0);
	t.root_hash_len = 32;
	/* PARTUUID values compare without regard to case */
	snprintf(t.data.spec, sizeof(t.data.spec), "PARTUUID=6E8A3B8C-5D0E-4E34-9D1E-8D3A0C4B7F21");
	/* an explicit hash device equal to the data device is no contradiction either */
	snprintf(t.hash.spec, sizeof(t.hash.spec), "PARTUUID=" VEC_PARTUUID);
	assert_int_equal(vi_manifest_apply(&m, &t, &err), 0);
	assert_string_equal(t.data.spec, "PARTUUID=" VEC_PARTUUID);
	assert_string_equal(t.hash.spec, "");
}

/* Each command-line contradiction is refused and leaves the target as it was. */
static void refused(const char *opts, void (*tweak)(struct vi_target *), const char *what)
{
	struct vi_manifest m;
	struct vi_target t, before;
	struct vi_error err = { "" };
	char want[160];

	assert_int_equal(vi_manifest_parse(S(VEC_MANIFEST), &m, &err), 0);
	target(&t, opts);
	if (tweak)
		tweak(&t);
	before = t;
	assert_int_equal(vi_manifest_apply(&m, &t, &err), -EPERM);
	snprintf(want, sizeof(want), "command line %s contradicts the signed manifest", what);
	assert_string_equal(err.msg, want);
	assert_memory_equal(&t, &before, sizeof(t));
}

static void other_root(struct vi_target *t)
{
	assert_int_equal(vi_hex_decode_exact(VEC_ROOT, t->root_hash, 32), 0);
	t->root_hash[31] ^= 1;
	t->root_hash_len = 32;
}

static void other_data(struct vi_target *t)
{
	snprintf(t->data.spec, sizeof(t->data.spec), "/dev/vdb");
}

static void other_hash(struct vi_target *t)
{
	snprintf(t->hash.spec, sizeof(t->hash.spec), "/dev/vdc");
}

static void from_dm_create(struct vi_target *t)
{
	t->from_dm_create = true;
}

static void test_apply_contradictions(void **state)
{
	(void)state;
	refused(NULL, other_root, "root hash");
	refused(NULL, other_data, "data device");
	refused(NULL, other_hash, "hash device");
	refused(NULL, from_dm_create, "dm-mod.create= table");
	refused("data-blocks=4095", NULL, "data-blocks=");
	refused("hash-offset=0", NULL, "hash-offset=");
	refused("salt=-", NULL, "salt=");
	refused("salt=0011223344556678", NULL, "salt=");
	refused("hash=sha512", NULL, "hash=");
	refused("format=0", NULL, "format=");
	refused("data-block-size=1024", NULL, "data-block-size=");
	refused("hash-block-size=1024", NULL, "hash-block-size=");
	refused("uuid=0123abcd-0000-4000-8000-00000000cafe", NULL, "uuid=");
	refused("superblock=false", NULL, "superblock=");
	refused("fec-device=/dev/vdd", NULL, "fec-device=");
	refused("ignore-corruption", NULL, "corruption option");
	refused("restart-on-corruption", NULL, "corruption option");
	refused("panic-on-error", NULL, "error option");
	refused("ignore-zero-blocks", NULL, "ignore-zero-blocks");
	refused("check-at-most-once", NULL, "check-at-most-once");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_full),
		cmocka_unit_test(test_format_roundtrip),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_apply_fills_everything),
		cmocka_unit_test(test_apply_agreeing_cmdline),
		cmocka_unit_test(test_apply_contradictions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
