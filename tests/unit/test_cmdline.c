// SPDX-License-Identifier: LGPL-2.1-or-later
/* Kernel command line -> vi_config: tokenizer, every key, aliases, conflicts, rejections and
 * the printed forms (the shell form is eval'ed by a real /bin/sh). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cmdtoken.h"
#include "cmdline.h"
#include "config_print.h"
#include "strutil.h"

#define H   "4f8b2d0e1c7a9b3d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5"
#define H2  "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define H1  "76e9be054b15884a9fa85973e9cb274c93afadb6"   /* sha1-sized */
#define DEVS " verity.data=/dev/vda1 verity.hash=/dev/vda2"

static struct vi_config cfg;
static struct vi_error err;

static void ok(const char *cmdline)
{
	memset(&err, 0, sizeof(err));
	if (vi_cmdline_parse(cmdline, 0, &cfg, &err) != 0)
		fail_msg("refused '%s': %s", cmdline, err.msg);
}

/* Refused with -EINVAL (or want_r), a reason containing want, and cfg untouched. */
static void bad_r(const char *cmdline, int want_r, const char *want)
{
	struct vi_config before;
	int r;

	memset(&cfg, 0x5a, sizeof(cfg));
	before = cfg;
	memset(&err, 0, sizeof(err));
	r = vi_cmdline_parse(cmdline, 0, &cfg, &err);
	if (r != want_r)
		fail_msg("'%s': got %d (%s), want %d", cmdline, r, err.msg, want_r);
	if (!strstr(err.msg, want))
		fail_msg("'%s': reason '%s' lacks '%s'", cmdline, err.msg, want);
	assert_memory_equal(&cfg, &before, sizeof(cfg));
}

static void bad(const char *cmdline, const char *want)
{
	bad_r(cmdline, -EINVAL, want);
}

/* ---- tokenizer ---- */

struct tk {
	char key[64];
	char val[64];
	bool has_val;
};

static unsigned tokens(const char *s, size_t len, struct tk *out, unsigned max)
{
	struct vi_cmdline_tok t;
	size_t pos = 0;
	unsigned n = 0;

	while (n < max && vi_cmdline_next(s, len, &pos, &t) == 1) {
		assert_true(t.key_len < 64 && t.val_len < 64);
		memcpy(out[n].key, t.key, t.key_len);
		out[n].key[t.key_len] = '\0';
		out[n].has_val = t.val != NULL;
		if (t.val)
			memcpy(out[n].val, t.val, t.val_len);
		out[n].val[t.val_len] = '\0';
		n++;
	}
	return n;
}

static void test_tokenizer(void **state)
{
	struct tk t[8];
	const char *s;

	(void)state;
	s = "  a=1\tb  \"c=d e\" f=\"g h\" i=j\"k l\"m  ";
	assert_int_equal(tokens(s, strlen(s), t, 8), 5);
	assert_string_equal(t[0].key, "a");
	assert_string_equal(t[0].val, "1");
	assert_string_equal(t[1].key, "b");
	assert_false(t[1].has_val);
	assert_string_equal(t[2].key, "c");          /* quote around the whole word */
	assert_string_equal(t[2].val, "d e");
	assert_string_equal(t[3].key, "f");          /* quote around the value */
	assert_string_equal(t[3].val, "g h");
	assert_string_equal(t[4].key, "i");          /* inner quotes stay, as in the kernel */
	assert_string_equal(t[4].val, "j\"k l\"m");

	/* "--" ends the kernel's parameters; a quoted "--" too. */
	s = "a=1 -- b=2";
	assert_int_equal(tokens(s, strlen(s), t, 8), 1);
	s = "a=1 \"--\" b=2";
	assert_int_equal(tokens(s, strlen(s), t, 8), 1);
	s = "--x a=1";                                 /* only a bare "--" */
	assert_int_equal(tokens(s, strlen(s), t, 8), 2);

	/* An unterminated quote runs to the end; newline and 0xa0 are spaces (kernel isspace). */
	s = "a=\"x y\nb=2";
	assert_int_equal(tokens(s, strlen(s), t, 8), 1);
	assert_string_equal(t[0].val, "x y\nb=2");
	s = "a=1\nb=2\xa0" "c";
	assert_int_equal(tokens(s, strlen(s), t, 8), 3);
	assert_string_equal(t[2].key, "c");

	/* The first "=" splits; a leading "=" does not (next_arg). */
	s = "a=b=c =x";
	assert_int_equal(tokens(s, strlen(s), t, 8), 2);
	assert_string_equal(t[0].val, "b=c");
	assert_string_equal(t[1].key, "=x");
	assert_false(t[1].has_val);

	/* Empty values, a lone quote value, empty input, length-bounded reading. */
	s = "a= b=\" c=\"\"";
	assert_int_equal(tokens(s, strlen(s), t, 8), 2);
	assert_string_equal(t[0].val, "");
	assert_true(t[0].has_val);
	/* b=" opens a quote that swallows the rest; the value's first and last quote go */
	assert_string_equal(t[1].val, " c=\"");
	assert_int_equal(tokens("", 0, t, 8), 0);
	assert_int_equal(tokens("   ", 3, t, 8), 0);
	assert_int_equal(tokens("ab=cd", 4, t, 8), 1);
	assert_string_equal(t[0].val, "c");
}

/* ---- keys ---- */

static void test_defaults(void **state)
{
	(void)state;
	ok("BOOT_IMAGE=/vmlinuz quiet splash");
	assert_false(cfg.root.enabled);
	assert_false(cfg.recovery.enabled);
	assert_string_equal(cfg.root.name, "root");
	assert_string_equal(cfg.recovery.name, "recovery");
	assert_int_equal(cfg.fail[0], VI_FAIL_PANIC);
	assert_int_equal(cfg.fail[1], VI_FAIL_NONE);
	assert_false(cfg.fail_given);
	assert_int_equal(cfg.timeout_s, 30);
	assert_false(cfg.timeout_given);
	assert_string_equal(cfg.init, "/sbin/init");
	assert_true(cfg.root.superblock);
	assert_false(cfg.require_signature);
	assert_false(cfg.verity_disabled);
	assert_false(cfg.ro);
	ok("");
	assert_false(cfg.root.enabled);
}

static void test_systemd_keys(void **state)
{
	(void)state;
	ok("root=/dev/mapper/root roothash=" H " systemd.verity=1 systemd.verity_root_data="
	   "PARTUUID=11111111-2222-3333-4444-555555555555 systemd.verity_root_hash=/dev/vdb "
	   "systemd.verity_root_options=panic-on-corruption,hash=sha256 rootfstype=ext4 "
	   "rootflags=noatime,data=ordered init=/usr/lib/systemd/systemd ro");
	assert_true(cfg.root.enabled);
	assert_int_equal(cfg.root.root_hash_len, 32);
	assert_int_equal(cfg.root.root_hash[0], 0x4f);
	assert_int_equal(cfg.root.root_hash[31], 0xc5);
	assert_string_equal(cfg.root.data.spec, "PARTUUID=11111111-2222-3333-4444-555555555555");
	assert_string_equal(cfg.root.hash.spec, "/dev/vdb");
	assert_int_equal(cfg.root.opts.corruption, VI_CORRUPT_PANIC);
	assert_string_equal(cfg.root.params.hash_name, "sha256");
	assert_true(cfg.root.given & VI_GIVEN_HASH_NAME);
	assert_false(cfg.root.discovered);
	assert_string_equal(cfg.root_dev, "/dev/mapper/root");
	assert_string_equal(cfg.rootfstype, "ext4");
	assert_string_equal(cfg.rootflags, "noatime,data=ordered");
	assert_string_equal(cfg.init, "/usr/lib/systemd/systemd");
	assert_true(cfg.ro);
	assert_false(cfg.verity_disabled);

	/* rd. variants; - and _ are the same in key names (kernel parameq, systemd). */
	ok("rd.systemd.verity=yes roothash=" H " rd.systemd.verity_root_data=/dev/vda1 "
	   "systemd.verity-root-hash=/dev/vda2 rd.systemd.verity-root-options=check-at-most-once");
	assert_string_equal(cfg.root.data.spec, "/dev/vda1");
	assert_string_equal(cfg.root.hash.spec, "/dev/vda2");
	assert_true(cfg.root.opts.check_at_most_once);

	/* systemd.verity=0 alone: verification off (the policy decides whether that is allowed). */
	ok("systemd.verity=0");
	assert_true(cfg.verity_disabled);
	assert_false(cfg.root.enabled);
	ok("systemd.verity");   /* bare boolean = yes */
	assert_false(cfg.verity_disabled);
}

static void test_our_keys(void **state)
{
	(void)state;
	ok("verity.roothash=" H " verity.data=UUID=1234-ABCD verity.hash=LABEL=hashes "
	   "verity.options=superblock=true,fec-device=PARTLABEL=fec,fec-roots=2 verity.name=sys-a "
	   "verity.fail=reboot,poweroff,panic verity.timeout=5 root=/dev/mapper/sys-a");
	assert_string_equal(cfg.root.name, "sys-a");
	assert_string_equal(cfg.root.data.spec, "UUID=1234-ABCD");
	assert_string_equal(cfg.root.hash.spec, "LABEL=hashes");
	assert_string_equal(cfg.root.fec.spec, "PARTLABEL=fec");
	assert_int_equal(cfg.root.fec_roots, 2);
	assert_true(cfg.root.given & VI_GIVEN_SUPERBLOCK);
	assert_int_equal(cfg.fail[0], VI_FAIL_REBOOT);
	assert_int_equal(cfg.fail[1], VI_FAIL_POWEROFF);
	assert_int_equal(cfg.fail[2], VI_FAIL_PANIC);
	assert_int_equal(cfg.fail[3], VI_FAIL_NONE);
	assert_true(cfg.fail_given);
	assert_int_equal(cfg.timeout_s, 5);
	assert_true(cfg.timeout_given);

	/* rd. aliases of every one of ours. */
	ok("rd.verity.roothash=" H " rd.verity.data=/dev/vda1 rd.verity.hash=/dev/vda2 "
	   "rd.verity.options=ignore-zero-blocks rd.verity.name=r2 rd.verity.fail=panic "
	   "rd.verity.timeout=0 rd.verity.sig=/etc/verity-init/roothash.p7s "
	   "rd.verity.manifest=/etc/verity-init/manifest rd.verity.require_signature "
	   "rd.verity.recovery.roothash=" H2 " rd.verity.recovery.data=/dev/vdc "
	   "rd.verity.recovery.hash=/dev/vdd "
	   "rd.verity.recovery.options=panic-on-corruption,root-hash-signature=/rec.p7s "
	   "rd.verity.recovery.name=rescue");
	assert_true(cfg.root.opts.ignore_zero_blocks);
	assert_string_equal(cfg.root.name, "r2");
	assert_int_equal(cfg.timeout_s, 0);
	assert_string_equal(cfg.root.sig_path, "/etc/verity-init/roothash.p7s");
	assert_string_equal(cfg.root.sig_path, "/etc/verity-init/roothash.p7s");
	assert_string_equal(cfg.manifest, "/etc/verity-init/manifest");
	assert_true(cfg.require_signature);
	assert_true(cfg.recovery.enabled);
	assert_string_equal(cfg.recovery.name, "rescue");
	assert_int_equal(cfg.recovery.root_hash[0], 0x00);
	assert_int_equal(cfg.recovery.root_hash[1], 0x11);
	assert_string_equal(cfg.recovery.data.spec, "/dev/vdc");
	assert_string_equal(cfg.recovery.hash.spec, "/dev/vdd");
	assert_int_equal(cfg.recovery.opts.corruption, VI_CORRUPT_PANIC);

	/* timeout with an "s" suffix; require_signature=0; default recovery name */
	ok("verity.roothash=" H DEVS " verity.timeout=12s verity.require-signature=0 "
	   "verity.recovery.roothash=" H2 " verity.recovery.data=/dev/vdc "
	   "verity.recovery.options=hash-offset=4096 verity.fail=recovery,reboot");
	assert_int_equal(cfg.timeout_s, 12);
	assert_false(cfg.require_signature);
	assert_string_equal(cfg.recovery.name, "recovery");
	assert_string_equal(cfg.recovery.hash.spec, "");
	assert_int_equal(cfg.recovery.params.hash_offset, 4096);
	assert_int_equal(cfg.fail[0], VI_FAIL_RECOVERY);

	/* The hash tree after the data on one device. */
	ok("verity.roothash=" H " verity.data=/dev/vda verity.options=hash-offset=16M");
	assert_string_equal(cfg.root.hash.spec, "");
	assert_int_equal(cfg.root.params.hash_offset, 16u << 20);

	/* Upper-case hex is the same root hash. */
	ok("verity.roothash=4F8B2D0E1C7A9B3D5E6F708192A3B4C5D6E7F8091A2B3C4D5E6F708192A3B4C5" DEVS);
	assert_int_equal(cfg.root.root_hash[0], 0x4f);

	/* Other digest sizes: sha1 (with a data device), sha512. */
	ok("verity.roothash=" H1 DEVS " verity.options=hash=sha1");
	assert_int_equal(cfg.root.root_hash_len, 20);
	ok("verity.roothash=" H H DEVS);
	assert_int_equal(cfg.root.root_hash_len, 64);
}

static void test_discoverable_partitions(void **state)
{
	(void)state;
	ok("roothash=" H);
	assert_true(cfg.root.discovered);
	assert_true(cfg.root.data_derived && cfg.root.hash_derived);
	assert_string_equal(cfg.root.data.spec, "PARTUUID=4f8b2d0e-1c7a-9b3d-5e6f-708192a3b4c5");
	assert_string_equal(cfg.root.hash.spec, "PARTUUID=d6e7f809-1a2b-3c4d-5e6f-708192a3b4c5");
	/* sha512: first 16 and last 16 of 64 bytes */
	ok("roothash=" H H2);
	assert_string_equal(cfg.root.data.spec, "PARTUUID=4f8b2d0e-1c7a-9b3d-5e6f-708192a3b4c5");
	assert_string_equal(cfg.root.hash.spec, "PARTUUID=00112233-4455-6677-8899-aabbccddeeff");
	/* The recovery root follows the same rule. */
	ok("roothash=" H " verity.recovery.roothash=" H2);
	assert_true(cfg.recovery.discovered);
	assert_string_equal(cfg.recovery.data.spec,
			    "PARTUUID=00112233-4455-6677-8899-aabbccddeeff");
	/* sha1: 20 bytes, the two 16-byte ends overlap (systemd needs 16) */
	ok("roothash=" H1);
	assert_string_equal(cfg.root.data.spec, "PARTUUID=76e9be05-4b15-884a-9fa8-5973e9cb274c");
	assert_string_equal(cfg.root.hash.spec, "PARTUUID=4b15884a-9fa8-5973-e9cb-274c93afadb6");
	/* One device given: the other one by the same rule, as systemd's generator does */
	ok("roothash=" H " systemd.verity_root_data=/dev/vda2");
	assert_false(cfg.root.data_derived);
	assert_true(cfg.root.hash_derived);
	assert_string_equal(cfg.root.data.spec, "/dev/vda2");
	assert_string_equal(cfg.root.hash.spec, "PARTUUID=d6e7f809-1a2b-3c4d-5e6f-708192a3b4c5");
	ok("roothash=" H " systemd.verity_root_hash=/dev/vdb");
	assert_true(cfg.root.data_derived);
	assert_false(cfg.root.hash_derived);
	assert_string_equal(cfg.root.data.spec, "PARTUUID=4f8b2d0e-1c7a-9b3d-5e6f-708192a3b4c5");
	assert_string_equal(cfg.root.hash.spec, "/dev/vdb");
	/* ... unless hash-offset= puts the tree on the data device */
	ok("roothash=" H " systemd.verity_root_data=/dev/vda2 systemd.verity_root_options=hash-offset=1G");
	assert_false(cfg.root.discovered);
	assert_string_equal(cfg.root.hash.spec, "");
	bad("roothash=" H " verity.data=/dev/vda verity.hash=/dev/vda", "hash-offset= is needed");
	/* udev's links become tags (PID 1 has no udev); systemd's quoted tag values lose the quotes */
	ok("roothash=" H " systemd.verity_root_data=/dev/disk/by-partuuid/1111abcd-0000-4000-8000-000000000001"
	   " systemd.verity_root_hash=/dev/disk/by-partlabel/my\\x20hash\\x2fx");
	assert_string_equal(cfg.root.data.spec, "PARTUUID=1111abcd-0000-4000-8000-000000000001");
	assert_string_equal(cfg.root.hash.spec, "PARTLABEL=my hash/x");
	ok("roothash=" H " systemd.verity_root_data=/dev/disk/by-uuid/0a1b-2c3d"
	   " systemd.verity_root_hash=/dev/disk/by-label/root");
	assert_string_equal(cfg.root.data.spec, "UUID=0a1b-2c3d");
	assert_string_equal(cfg.root.hash.spec, "LABEL=root");
	/* Quotes in a device are refused, systemd's TAG="value" form included: the strings travel
	 * into dracut's hooks and unit files, and udev's \xHH escapes say the same safely. */
	bad("roothash=" H " systemd.verity_root_data=PARTLABEL=\"my root\"",
	    "'systemd.verity_root_data' is read differently by systemd");
	bad("roothash=" H " verity.data=/dev/vda verity.hash=LABEL='h'", "'verity.hash' is read differently by systemd (quotes");
	ok("roothash=" H " verity.data=/dev/disk/by-id/virtio-x verity.hash=/dev/vdb");
	assert_string_equal(cfg.root.data.spec, "/dev/disk/by-id/virtio-x");   /* no tag for it */
	bad("roothash=" H " verity.data=/dev/disk/by-label/a\\x2 verity.hash=/dev/vdb", "character '\\\\'");
	bad("roothash=" H " verity.data=/dev/disk/by-label/a/b verity.hash=/dev/vdb", "not a udev link name");
	bad("roothash=" H " verity.data=/dev/disk/by-label/a\\x00b verity.hash=/dev/vdb", "not a udev link name");
	bad("roothash=" H " verity.data=/dev/disk/by-label/a\\x0ab verity.hash=/dev/vdb", "not a udev link name");
	/* a quote or comma would not survive being written back (recovery line, option lists) */
	bad("roothash=" H " verity.data=/dev/disk/by-label/a\\x22b verity.hash=/dev/vdb", "quote or comma");
	bad("roothash=" H " verity.data=/dev/disk/by-label/a\\x2cb verity.hash=/dev/vdb", "quote or comma");
	bad("roothash=" H " verity.data=LABEL='a\"b' verity.hash=/dev/vdb", "unbalanced double quote");
	/* With a manifest, devices come from the manifest: no derivation. */
	ok("roothash=" H " verity.manifest=PARTLABEL=manifest");
	assert_false(cfg.root.discovered);
	assert_string_equal(cfg.root.data.spec, "");
	assert_string_equal(cfg.manifest, "PARTLABEL=manifest");
}

static void test_manifest_only(void **state)
{
	(void)state;
	ok("verity.manifest=/etc/verity-init/root.manifest");
	assert_true(cfg.root.enabled);
	assert_int_equal(cfg.root.root_hash_len, 0);
	assert_string_equal(cfg.root.data.spec, "");
	/* A required signature is satisfied by a manifest. */
	ok("verity.manifest=/m verity.require_signature=yes");
	assert_true(cfg.require_signature);
	bad("verity.manifest=relative/path", "device");
	bad("verity.manifest=/etc/../x", "'.' or '..'");
}

static void test_no_superblock(void **state)
{
	(void)state;
	ok("roothash=" H DEVS " systemd.verity_root_options=superblock=false,data-blocks=256,"
	   "salt=-");
	assert_false(cfg.root.superblock);
	assert_true(cfg.root.params.no_superblock);
	assert_string_equal(cfg.root.params.hash_name, "sha256");
	assert_int_equal(cfg.root.params.data_block_size, 4096);
	assert_int_equal(cfg.root.params.hash_block_size, 4096);
	assert_int_equal(cfg.root.params.hash_type, 1);
	assert_int_equal(cfg.root.params.data_blocks, 256);
	assert_int_equal(cfg.root.params.salt_size, 0);
	ok("roothash=" H1 DEVS " verity.options=superblock=0,data-blocks=8,salt=aabb,hash=sha1,"
	   "format=0,data-block-size=1024,hash-block-size=512");
	assert_int_equal(cfg.root.params.hash_type, 0);
	assert_int_equal(cfg.root.params.salt_size, 2);
	assert_int_equal(cfg.root.params.data_block_size, 1024);
	/* no data-blocks=: the data device's size, at setup */
	ok("roothash=" H DEVS " verity.options=superblock=false,salt=-");
	assert_int_equal(cfg.root.params.data_blocks, 0);
	bad("roothash=" H DEVS " verity.options=superblock=false,data-blocks=1", "needs salt=");
	/* the defaulted sha256 does not match a sha1-sized root hash */
	bad("roothash=" H1 DEVS " verity.options=superblock=false,data-blocks=1,salt=-",
	    "sha256 digests have 32");
	/* validate(): 512-byte hash blocks cannot hold two sha512 digests? they can (128);
	 * a 512-byte hash block with format 1 is fine; data_blocks * bs overflow is not. */
	bad("roothash=" H DEVS " verity.options=superblock=false,salt=-,"
	    "data-blocks=18446744073709551615", "verity root");
}

static void test_repeats(void **state)
{
	(void)state;
	/* Same value under two names (case-insensitive hex) or twice: fine. */
	ok("roothash=" H " verity.roothash=" H DEVS " verity.data=/dev/vda1");
	ok("roothash=" H " rd.verity.roothash=4F8B2D0E1C7A9B3D5E6F708192A3B4C5D6E7F8091A2B3C4D5E6F"
	   "708192A3B4C5" DEVS);
	ok("systemd.verity=1 rd.systemd.verity=yes");
	/* Different values: refused, whatever the names. */
	bad("roothash=" H " verity.roothash=" H2 DEVS, "give different values");
	bad("roothash=" H " roothash=" H2 DEVS, "give different values");
	bad("roothash=" H " systemd.verity_root_data=/dev/vda1 verity.data=/dev/vdb1",
	    "give different values");
	bad("roothash=" H DEVS " systemd.verity_root_hash=/dev/vdc", "give different values");
	bad("roothash=" H DEVS " verity.options=panic-on-corruption "
	    "systemd.verity_root_options=restart-on-corruption", "give different values");
	bad("systemd.verity=1 rd.systemd.verity=0", "give different values");
	bad("verity.fail=panic verity.fail=reboot", "give different values");
	bad("verity.timeout=1 verity.timeout=2", "give different values");
	bad("verity.require_signature verity.require_signature=no", "give different values");
	bad("verity.recovery.roothash=" H " verity.recovery.roothash=" H2, "give different values");
	/* The kernel's keys: the last one wins. */
	ok("root=/dev/sda1 root=/dev/mapper/root roothash=" H " init=/a init=/sbin/init "
	   "rootfstype=xfs rootfstype=erofs rootflags=a rootflags=");
	assert_string_equal(cfg.root_dev, "/dev/mapper/root");
	assert_string_equal(cfg.init, "/sbin/init");
	assert_string_equal(cfg.rootfstype, "erofs");
	assert_string_equal(cfg.rootflags, "");
}

static void test_double_dash(void **state)
{
	(void)state;
	/* After "--" the words are init's for the kernel, but systemd and dracut read them as
	 * settings: a key that matters there is refused, in every mode. */
	bad("roothash=" H " -- verity.fail=shell", "'verity.fail' after '--' is an argument for init");
	bad("roothash=" H " \"--\" real_init=/bin/sh", "'real_init' after '--'");
	bad("roothash=" H " -- rd.break", "'rd.break' after '--'");
	memset(&err, 0, sizeof(err));
	assert_int_equal(vi_cmdline_parse("roothash=" H " -- init=/bin/other",
					  VI_CMDLINE_PAST_DASHDASH, &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'init' after '--'"));
	/* what init alone reads stays init's */
	ok("roothash=" H " -- arg1 other=value");
	assert_int_equal(cfg.root.root_hash[0], 0x4f);
	/* A LABEL with a space: never through the kernel's quotes (whitespace is refused in a
	 * device), as udev's escape. */
	bad("roothash=" H " verity.data=\"LABEL=my root\" verity.hash=/dev/vdb",
	    "verity.data: device 'LABEL=my root': character ' '");
	bad("roothash=" H " \"verity.data=LABEL=a b\" verity.hash=/dev/vdb", "character ' '");
	ok("roothash=" H " verity.data=/dev/disk/by-label/my\\x20root verity.hash=LABEL=my\\x20hash");
	assert_string_equal(cfg.root.data.spec, "LABEL=my root");
	assert_string_equal(cfg.root.hash.spec, "LABEL=my\\x20hash");
}

static void test_dm_create(void **state)
{
	(void)state;
	ok("dm-mod.create=\"vroot,,,ro,0 16384 verity 1 /dev/vda /dev/vdb 4096 4096 2048 1 "
	   "sha256 " H " aabb\" root=/dev/dm-0");
	assert_true(cfg.root.enabled);
	assert_true(cfg.root.from_dm_create);
	assert_string_equal(cfg.root.name, "vroot");
	assert_string_equal(cfg.root_dev, "/dev/dm-0");
	ok("dm_mod.create=\"vroot,,,ro,0 16384 verity 1 8:0 8:16 4096 4096 2048 1 "
	   "sha256 " H " -\" root=/dev/mapper/vroot");
	assert_string_equal(cfg.root.data.spec, "8:0");
	bad("dm-mod.create=\"vroot,,,ro,0 16384 verity 1 8:0 8:16 4096 4096 2048 1 sha256 " H
	    " -\" verity.data=/dev/vda", "cannot be combined");
	bad("dm-mod.create=\"vroot,,,ro,0 16384 verity 1 8:0 8:16 4096 4096 2048 1 sha256 " H
	    " -\" roothash=" H, "cannot be combined");
	bad("dm-mod.create=\"vroot,,,rw,0 16384 verity 1 8:0 8:16 4096 4096 2048 1 sha256 " H
	    " -\"", "dm-mod.create: flags 'rw'");
	/* sig= and the table's key description together */
	bad("dm-mod.create=\"vroot,,,ro,0 16384 verity 1 8:0 8:16 4096 4096 2048 1 sha256 " H
	    " - 2 root_hash_sig_key_desc k\" verity.sig=/s.p7s", "root_hash_sig_key_desc");
}

/* root= only ever names the mapping: anything else is ignored and flagged, never mounted. */
static void test_root_dev(void **state)
{
	(void)state;
	ok("roothash=" H " root=/dev/mapper/root");
	assert_false(cfg.root_dev_ignored);
	ok("root=UUID=0a1b2c3d-aaaa-bbbb-cccc-0123456789ab roothash=" H " ro");
	assert_true(cfg.root_dev_ignored);
	assert_string_equal(cfg.root_dev, "UUID=0a1b2c3d-aaaa-bbbb-cccc-0123456789ab");
	ok("roothash=" H " verity.name=x root=/dev/mapper/root");
	assert_true(cfg.root_dev_ignored);
	ok("roothash=" H " verity.name=x root=/dev/mapper/x");
	assert_false(cfg.root_dev_ignored);
	ok("roothash=" H " root=/dev/dm-0");           /* only dm-mod.create= may say dm-N */
	assert_true(cfg.root_dev_ignored);
	ok("dm-mod.create=\"v,,,ro,0 8 verity 1 8:0 8:1 4096 4096 1 1 sha256 " H " -\" "
	   "root=/dev/dm-12");
	assert_false(cfg.root_dev_ignored);
	ok("dm-mod.create=\"v,,,ro,0 8 verity 1 8:0 8:1 4096 4096 1 1 sha256 " H " -\" "
	   "root=/dev/dm-x");
	assert_true(cfg.root_dev_ignored);
	ok("root=/dev/sda1");                          /* no verity: not our business */
	assert_false(cfg.root_dev_ignored);
}

static void test_signature_keys(void **state)
{
	(void)state;
	ok("roothash=" H DEVS " verity.options=root-hash-signature=/etc/roothash.p7s "
	   "verity.sig=/etc/roothash.p7s verity.require_signature");
	assert_string_equal(cfg.root.sig_path, "/etc/roothash.p7s");
	assert_string_equal(cfg.root.sig_path, "/etc/roothash.p7s");
	/* root-hash-signature= alone fills cfg.root.sig_path too */
	ok("roothash=" H DEVS " verity.options=root-hash-signature=PARTLABEL=root-verity-sig");
	assert_string_equal(cfg.root.sig_path, "PARTLABEL=root-verity-sig");
	ok("roothash=" H DEVS " verity.sig=PARTUUID=11111111-2222-3333-4444-555555555555");
	/* systemd's inline form, in either key */
	ok("roothash=" H DEVS " systemd.verity_root_options=root-hash-signature=base64:MAMCAQA=");
	assert_string_equal(cfg.root.sig_path, "base64:MAMCAQA=");
	ok("roothash=" H DEVS " verity.sig=base64:MAMCAQA= verity.require_signature");
	assert_string_equal(cfg.root.sig_path, "base64:MAMCAQA=");
	bad("roothash=" H DEVS " verity.sig=base64:MAMCAQA", "strict");
	bad("roothash=" H DEVS " verity.options=root-hash-signature=/a.p7s verity.sig=/b.p7s",
	    "different signatures");
	bad("roothash=" H DEVS " verity.require_signature", "no signature");
	/* a required signature covers the recovery root too */
	bad("roothash=" H DEVS " verity.sig=/r.p7s verity.require_signature "
	    "verity.recovery.roothash=" H2, "recovery root has no root-hash-signature");
	ok("roothash=" H DEVS " verity.sig=/r.p7s verity.require_signature "
	   "verity.recovery.roothash=" H2 " verity.recovery.options=root-hash-signature=/rec.p7s");
	assert_string_equal(cfg.recovery.sig_path, "/rec.p7s");
	ok("verity.manifest=/m verity.require_signature verity.recovery.roothash=" H2
	   " verity.recovery.options=root-hash-signature=/rec.p7s");
	bad("verity.manifest=/m verity.require_signature verity.recovery.roothash=" H2,
	    "recovery root has no");
	bad("verity.sig=/etc/roothash.p7s", "without a root hash");
	bad("roothash=" H DEVS " verity.sig=roothash.p7s", "device");
}

static void test_rejections(void **state)
{
	char big[VI_MAX_CMDLINE + 64];

	(void)state;
	/* our namespaces must be spelled right */
	bad("verity.rootash=" H, "unknown key 'verity.rootash'");
	bad("rd.verity.datta=/dev/vda", "unknown key");
	bad("systemd.verity_root_dta=/dev/vda", "unknown key");
	/* a verified /usr alone has no root to go under (test_usr.c has the layouts) */
	bad("usrhash=" H, "a verified /usr needs a root");
	bad("systemd.verity_usr_data=/dev/vda", "given without a root hash for the verified /usr");
	/* fstab-generator would mount these into the new root, unverified */
	bad("mount.usr=/dev/vdb", "'mount.usr' would mount an unverified /usr");
	bad("mount.usrfstype=ext4", "unverified /usr");
	bad("rd.mount.usrflags=rw", "unverified /usr");
	bad("rd.systemd.mount-extra=/dev/vdb:/sysroot/usr", "unverified filesystem");
	bad("systemd.mount-extra=/dev/vdb:/usr:ext4", "unverified filesystem");
	bad("rootfallback=/dev/vdc", "'rootfallback' would mount an unverified filesystem");
	bad("root.journaldev=/dev/vdc", "unverified filesystem");
	/* dracut runs these in place of init= */
	bad("real_init=/bin/sh", "'real_init' would start an init that verity-init does not check");
	bad("rd.distroinit=/bin/sh", "'rd.distroinit' would start an init");
	/* values */
	bad("verity.data", "needs a value");
	bad("roothash", "needs a value");
	bad("roothash=", "empty value");
	bad("systemd.verity=maybe", "boolean");
	bad("verity.require_signature=2", "boolean");
	bad("roothash=\"" H "\t\"", "control characters");
	bad("roothash=xyz" H, "not hex");
	bad("roothash=zz", "not hex");
	bad("roothash=" H "0", "hex");
	bad("roothash=" H "00", "digest size");
	bad("roothash=" H H "00", "longer than any supported digest");
	bad("roothash=" H " systemd.verity_root_options=hash=sha1" DEVS, "sha1 digests have 20");
	/* devices */
	bad("roothash=" H " verity.data=/etc/shadow verity.hash=/dev/vdb", "under /dev/");
	bad("roothash=" H " verity.data=/dev/../etc/shadow verity.hash=/dev/vdb", "'..'");
	bad("roothash=" H " verity.data=/dev/./vda verity.hash=/dev/vdb", "'.'");
	bad("roothash=" H " verity.data=/dev//vda verity.hash=/dev/vdb", "empty path component");
	bad("roothash=" H " verity.data=/dev/ verity.hash=/dev/vdb", "under /dev/");
	bad("roothash=" H " verity.data=vda verity.hash=/dev/vdb", "not /dev/...");
	bad("roothash=" H " verity.data=8:1 verity.hash=/dev/vdb", "not /dev/...");
	bad("roothash=" H " verity.data=UUID=xyz verity.hash=/dev/vdb", "hex digits");
	bad("roothash=" H " verity.data=PARTUUID= verity.hash=/dev/vdb", "empty");
	bad("roothash=" H " verity.data=LABEL= verity.hash=/dev/vdb", "empty LABEL");
	bad("roothash=" H " verity.data=PARTLABEL= verity.hash=/dev/vdb", "empty PARTLABEL");
	bad("roothash=" H " verity.data=/dev/vda verity.hash=/dev/vda", "hash-offset= is");
	/* a derived hash partition that is the data device given (swapped partitions) */
	bad("roothash=" H " verity.data=PARTUUID=d6e7f809-1a2b-3c4d-5e6f-708192a3b4c5",
	    "hash-offset= is");
	ok("roothash=" H " verity.data=/dev/vda verity.hash=/dev/vda verity.options=hash-offset=1M");
	bad("verity.data=/dev/vda verity.hash=/dev/vdb", "without a root hash");
	bad("verity.options=panic-on-corruption", "without a root hash");
	bad("verity.recovery.data=/dev/vdc", "without a root hash for the recovery root");
	/* names */
	bad("roothash=" H " verity.name=a/b", "mapping name");
	bad("roothash=" H " verity.name=-x", "mapping name");
	bad("roothash=" H " verity.name=control", "reserved");
	bad("roothash=" H " verity.name=0123456789012345678901234567890123456789012345678901234567"
	    "890123", "longer than 63");
	bad("roothash=" H " verity.recovery.roothash=" H2 " verity.recovery.name=root",
	    "name other than");
	/* fail / timeout */
	bad("verity.fail=reboot,explode", "not recovery, reboot");
	bad("verity.fail=reboot,,panic", "not recovery");
	bad("verity.fail=reboot,reboot", "listed twice");
	bad("roothash=" H " verity.fail=recovery", "no verity.recovery.roothash");
	bad("verity.timeout=ten", "seconds");
	bad("verity.timeout=3601", "seconds");
	bad("verity.timeout=-1", "seconds");
	bad("verity.timeout=s", "seconds");
	/* kernel keys we check */

	bad("rootfstype=ext4;rm", "filesystem type");
	bad("rootfstype=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "too long");
	bad("init=sbin/init", "absolute path");
	bad("init=/sbin/../bin/sh", "'..'");
	/* checked on the verified root, but exec'd after the initramfs' own are moved over it */
	bad("init=/run/init", "under /dev, /proc, /sys or /run");
	bad("init=/dev/shm/x", "init: path '/dev/shm/x': under /dev, /proc, /sys or /run");
	bad("init=/proc/self/exe", "under /dev, /proc, /sys or /run");
	bad("init=/sys/x", "under /dev, /proc, /sys or /run");
	bad("init=/sbin/init init=/run/x", "under /dev");   /* the last one counts */
	ok("init=/runit/init");
	assert_string_equal(cfg.init, "/runit/init");
	assert_true(cfg.init_given);
	ok("roothash=" H);
	assert_false(cfg.init_given);
	bad("systemd.verity=0 roothash=" H, "systemd.verity=0 together");
	bad("systemd.verity=0 verity.manifest=/m", "systemd.verity=0 together");
	/* sizes: a long value is an error, never cut */
	memset(big, 'a', sizeof(big));
	memcpy(big, "verity.data=LABEL=", 18);
	memcpy(big + 18 + 300, " verity.roothash=" H, 17 + 64 + 1);
	bad(big, "too long");
	memset(big, ' ', sizeof(big));
	big[VI_MAX_CMDLINE + 1] = '\0';
	bad_r(big, -E2BIG, "longer than 4096");
	big[VI_MAX_CMDLINE] = '\0';
	ok(big);   /* exactly at the limit */
	/* a NUL inside the buffer (the _buf form) */
	assert_int_equal(vi_cmdline_parse_buf("ro\0roothash=x", 13, 0, &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "NUL"));
	assert_int_equal(vi_cmdline_parse(NULL, 0, &cfg, &err), -EINVAL);
	/* Not ours: ignored, even when odd. */
	ok("foo bar=\"baz verity=1\" roothashx=1 ro=1");
	assert_false(cfg.ro);
	/* but an unbalanced quote is refused: dracut's getarg crashes on it, and the kernel and
	 * systemd read the rest of the line differently */
	bad("foo bar=\"baz verity=1 systemd.unit=rescue.target", "unbalanced double quote");
	bad("roothash=" H " rootflags=bogus \"", "unbalanced double quote (dracut's getarg would crash");
	/* dracut's shell switches are noted here and refused by the policy (test_policy.c) */
	ok("rd.break rd.shell=0");
	assert_true(cfg.shell_requested);
	assert_string_equal(cfg.shell_key, "rd.break");
	ok("rd.shell=0 rd.shell=no rd.shell=off");
	assert_false(cfg.shell_requested);
	/* dracut's getargbool: only an exact 0/no/off is off; rdshell opens it with any value */
	static const char *const on[] = {
		"rd.shell=false", "rd.shell=n", "rd.shell=Off", "rd.shell=NO", "rd.shell=FALSE",
		"rd.shell=maybe", "rd.shell=", "rd.shell=\"\"", "rd.shell=0 rd.shell",
		"rdshell=no", "rdshell=0", "rdshell", "rd.shell=off rdbreak=0",
	};
	for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++) {
		ok(on[i]);
		assert_true(cfg.shell_requested);
	}
	ok("rd.shell=\"off\"");   /* quotes are the kernel's, as for dracut-getarg */
	assert_false(cfg.shell_requested);
}

static void test_helpers(void **state)
{
	struct vi_devspec d;
	enum vi_fail_action f[VI_MAX_FAIL];

	(void)state;
	snprintf(d.spec, sizeof(d.spec), "PARTUUID=abcd-01");
	assert_int_equal(vi_devspec_kind(&d), VI_DEV_PARTUUID);
	snprintf(d.spec, sizeof(d.spec), "254:3");
	assert_int_equal(vi_devspec_kind(&d), VI_DEV_MAJMIN);
	snprintf(d.spec, sizeof(d.spec), "/dev/disk/by-id/x");
	assert_int_equal(vi_devspec_kind(&d), VI_DEV_PATH);
	snprintf(d.spec, sizeof(d.spec), "UUID=ab");
	assert_int_equal(vi_devspec_kind(&d), VI_DEV_UUID);
	snprintf(d.spec, sizeof(d.spec), "LABEL=x");
	assert_int_equal(vi_devspec_kind(&d), VI_DEV_LABEL);
	snprintf(d.spec, sizeof(d.spec), "PARTLABEL=x");
	assert_int_equal(vi_devspec_kind(&d), VI_DEV_PARTLABEL);
	d.spec[0] = '\0';
	assert_int_equal(vi_devspec_kind(&d), VI_DEV_NONE);
	assert_int_equal(vi_devspec_check("99999:1", 7, true, NULL), -EINVAL);
	assert_int_equal(vi_devspec_check("1:x", 3, true, NULL), -EINVAL);
	assert_string_equal(vi_fail_action_name(VI_FAIL_SHELL), "shell");
	assert_null(vi_fail_action_name(VI_FAIL_NONE));
	assert_null(vi_fail_action_name((enum vi_fail_action)77));
	assert_int_equal(vi_fail_list_parse("recovery,reboot,poweroff,panic,shell", 36, f, &err), 0);
	assert_int_equal(f[4], VI_FAIL_SHELL);
	assert_int_equal(f[5], VI_FAIL_NONE);
	assert_int_equal(vi_fail_list_parse("", 0, f, &err), -EINVAL);
	assert_int_equal(vi_fail_list_parse("panic,", 6, f, &err), -EINVAL);
}

/* ---- systemd.volatile= / verity.volatile= ---- */

static void test_volatile(void **state)
{
	enum vi_volatile m = VI_VOLATILE_YES;

	(void)state;
	ok("roothash=" H DEVS);
	assert_int_equal(cfg.volatile_mode, VI_VOLATILE_NO);
	ok("roothash=" H DEVS " systemd.volatile=overlay");
	assert_int_equal(cfg.volatile_mode, VI_VOLATILE_OVERLAY);
	ok("roothash=" H DEVS " systemd.volatile=state");
	assert_int_equal(cfg.volatile_mode, VI_VOLATILE_STATE);
	ok("roothash=" H DEVS " systemd.volatile=OFF");
	assert_int_equal(cfg.volatile_mode, VI_VOLATILE_NO);
	/* ours: the same slot's other name, with the same values */
	ok("roothash=" H DEVS " rd.verity.volatile=overlay systemd.volatile=overlay");
	assert_int_equal(cfg.volatile_mode, VI_VOLATILE_OVERLAY);
	ok("roothash=" H DEVS " verity.volatile=overlay verity.volatile=overlay");
	assert_int_equal(cfg.volatile_mode, VI_VOLATILE_OVERLAY);
	ok("roothash=" H DEVS " systemd.volatile=state verity.volatile=state");
	assert_int_equal(cfg.volatile_mode, VI_VOLATILE_STATE);
	ok("roothash=" H DEVS " systemd.volatile=no verity.volatile=0");
	assert_int_equal(cfg.volatile_mode, VI_VOLATILE_NO);
	/* yes (also the bare key, and any true word): a tmpfs root needs a verified /usr */
	bad("roothash=" H DEVS " systemd.volatile=yes", "a tmpfs root (systemd.volatile=yes) needs "
	    "a verified /usr (usrhash=)");
	bad("roothash=" H DEVS " systemd.volatile", "needs a verified /usr");
	bad("roothash=" H DEVS " systemd.volatile=TRUE", "needs a verified /usr");
	bad("roothash=" H DEVS " verity.volatile=1", "needs a verified /usr");
	/* the root's systemd reads only its own key: state from ours alone would do nothing */
	bad("roothash=" H DEVS " verity.volatile=state", "give systemd.volatile=state");
	bad("roothash=" H DEVS " systemd.volatile=state verity.volatile=overlay",
	    "'systemd.volatile' and 'verity.volatile' give different values");
	bad("roothash=" H DEVS " verity.volatile=overlay verity.volatile=no",
	    "give different values");
	/* systemd's own words are exact: no "Overlay", no empty value */
	bad("roothash=" H DEVS " systemd.volatile=Overlay",
	    "systemd.volatile: not a volatile mode (yes, no, state or overlay)");
	bad("roothash=" H DEVS " systemd.volatile=", "has an empty value");
	bad("roothash=" H DEVS " verity.volatile=tmpfs", "verity.volatile: not a volatile mode");
	bad("roothash=" H DEVS " verity.volatil=overlay", "unknown key 'verity.volatil'");
	/* the parser itself */
	assert_int_equal(vi_volatile_parse(NULL, 0, &m, &err), 0);
	assert_int_equal(m, VI_VOLATILE_YES);
	assert_int_equal(vi_volatile_parse("overlayx", 7, &m, &err), 0);   /* by length */
	assert_int_equal(m, VI_VOLATILE_OVERLAY);
	assert_int_equal(vi_volatile_parse("stat", 4, &m, &err), -EINVAL);
	assert_string_equal(vi_volatile_name(VI_VOLATILE_STATE), "state");
	assert_string_equal(vi_volatile_name((enum vi_volatile)77), "no");
}

/* ---- printing ---- */

static char *print(enum vi_print_style style)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(vi_config_print(f, &cfg, style), 0);
	assert_int_equal(fclose(f), 0);
	return out;
}

static void test_print_kv(void **state)
{
	char *out;

	(void)state;
	ok("roothash=" H " verity.data=/dev/disk/by-label/r\xc3\xa9\\x201 verity.hash=/dev/vdb "
	   "verity.options=panic-on-corruption,hash-offset=0 verity.fail=reboot,panic "
	   "root=/dev/mapper/root rootfstype=ext4 ro");
	out = print(VI_PRINT_KV);
	assert_non_null(strstr(out, "\nname=root\n"));
	assert_non_null(strstr(out, "\nroothash=" H "\n"));
	assert_non_null(strstr(out, "\ndata=LABEL=r\\xc3\\xa9 1\n"));   /* sanitized for a tty */
	assert_non_null(strstr(out, "\nhash=/dev/vdb\n"));
	assert_non_null(strstr(out, "\noptions=hash-offset=0,panic-on-corruption\n"));
	assert_non_null(strstr(out, "\nfail=reboot,panic\n"));
	assert_non_null(strstr(out, "\ntimeout=30\n"));
	assert_non_null(strstr(out, "\nroot=/dev/mapper/root\n"));
	assert_non_null(strstr(out, "\nroot_ignored=no\n"));
	assert_non_null(strstr(out, "\nrootfstype=ext4\n"));
	assert_non_null(strstr(out, "\ninit=/sbin/init\n"));
	assert_non_null(strstr(out, "\nrequire_signature=no\n"));
	assert_non_null(strstr(out, "\nrecovery.enabled=no\n"));
	assert_non_null(strstr(out, "\nrecovery.name=recovery\n"));
	assert_non_null(strstr(out, "\nsig=\n"));
	assert_non_null(strstr(out, "\nmanifest=\n"));
	assert_non_null(strstr(out, "\nro=yes\n"));
	assert_non_null(strstr(out, "\nvolatile=no\n"));
	free(out);
}

/* eval the shell form in /bin/sh and read back one variable. */
static void shell_roundtrip(const char *var, const char *want)
{
	char script[] = "/tmp/test_cmdline_XXXXXX";
	char cmd[512], got[512];
	int fd = mkstemp(script);
	char *out = print(VI_PRINT_SHELL);
	FILE *p;
	size_t n;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, out, strlen(out)), (ssize_t)strlen(out));
	close(fd);
	snprintf(cmd, sizeof(cmd), "sh -c 'set -eu; eval \"$(cat %s)\"; printf %%s \"$%s\"'",
		 script, var);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(got, 1, sizeof(got) - 1, p);
	got[n] = '\0';
	assert_int_equal(pclose(p), 0);
	unlink(script);
	free(out);
	assert_string_equal(got, want);
}

static void test_print_shell(void **state)
{
	char *out;

	(void)state;
	/* udev's escapes are the one way shell syntax gets into a device name: it must come out
	 * quoted */
	ok("roothash=" H " verity.data=/dev/disk/by-label/x\\x24\\x28reboot\\x29\\x20\\x60x\\x60"
	   "\\x20\\x5c\\x20\\x3b verity.hash=/dev/vdb "
	   "verity.options=hash-offset=4096,panic-on-corruption verity.fail=reboot "
	   "verity.timeout=7 rootflags=\"a b'c\" verity.recovery.roothash=" H2);
	out = print(VI_PRINT_SHELL);
	assert_non_null(strstr(out, "VERITY_NAME='root'\n"));
	assert_non_null(strstr(out, "VERITY_ROOTHASH='" H "'\n"));
	assert_non_null(strstr(out, "VERITY_ENABLED='1'\n"));
	assert_non_null(strstr(out, "VERITY_FAIL='reboot'\n"));
	assert_non_null(strstr(out, "VERITY_RECOVERY_ENABLED='1'\n"));
	assert_non_null(strstr(out, "VERITY_RECOVERY_DATA='PARTUUID=00112233-4455-6677-8899-"
				    "aabbccddeeff'\n"));
	free(out);
	shell_roundtrip("VERITY_DATA", "LABEL=x$(reboot) `x` \\ ;");
	shell_roundtrip("VERITY_ROOTFLAGS", "a b'c");
	shell_roundtrip("VERITY_OPTIONS", "hash-offset=4096,panic-on-corruption");
	shell_roundtrip("VERITY_TIMEOUT", "7");
	shell_roundtrip("VERITY_INIT", "/sbin/init");
	shell_roundtrip("VERITY_RECOVERY_NAME", "recovery");
	shell_roundtrip("VERITY_REQUIRE_SIGNATURE", "0");
}

static void test_strutil(void **state)
{
	char out[16];
	uint64_t v;
	bool b;

	(void)state;
	assert_int_equal(vi_sanitize("a\x01\\\xff", 4, out, sizeof(out)), 11);
	assert_string_equal(out, "a\\x01\\\\\\xff");
	assert_int_equal(vi_sanitize("0123456789abcdefghij", 20, out, sizeof(out)), 15);
	assert_string_equal(out, "0123456789ab...");   /* a cut is announced */
	assert_int_equal(vi_parse_u64("18446744073709551615", 20, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(vi_parse_u64("18446744073709551616", 20, &v), -ERANGE);
	assert_int_equal(vi_parse_u64("12a", 3, &v), -EINVAL);
	assert_int_equal(vi_parse_u64("+1", 2, &v), -EINVAL);
	assert_int_equal(vi_parse_u64("", 0, &v), -EINVAL);
	assert_int_equal(vi_parse_size("4K", 2, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(vi_parse_size("16777216T", 9, &v), -ERANGE);
	assert_int_equal(vi_parse_size("K", 1, &v), -EINVAL);
	assert_int_equal(vi_parse_bool("On", 2, &b), 0);
	assert_true(b);
	assert_int_equal(vi_parse_bool("N", 1, &b), 0);
	assert_false(b);
	assert_int_equal(vi_parse_bool("nope", 4, &b), -EINVAL);
	assert_true(vi_key_eq("dm_mod-create", 13, "dm-mod_create"));
	assert_false(vi_key_eq("dm.mod", 6, "dm-mod"));
	assert_int_equal(vi_strlcpy_exact(out, 4, "abcd", 4), -ENAMETOOLONG);
	assert_int_equal(vi_strlcpy_exact(out, 5, "abcd", 4), 0);
}

/* The device grammar on its own (the split check above it already refuses some of these):
 * every byte a shell, a unit file or an option list interprets. */
static void test_device_grammar(void **state)
{
	static const char *const bad_specs[] = {
		"/dev/$(touch${IFS}/tmp/x)", "LABEL=$(id)", "LABEL=`id`", "/dev/a;b", "/dev/a|b",
		"/dev/a&b", "/dev/a<b", "/dev/a>b", "/dev/a(b", "/dev/a)b", "/dev/a{b", "/dev/a}b",
		"/dev/a*", "/dev/a?", "/dev/a[b]", "/dev/~a", "/dev/a!b", "/dev/a#b", "LABEL=a\"b",
		"LABEL=a'b", "/dev/a\\b", "/dev/a\\x2", "/dev/a\\xzz", "LABEL=a b", "LABEL=a\tb",
		"PARTLABEL=a%Qb", "/dev/a,b", "LABEL=a\xa0\x62",   /* NBSP, then 'b' */
	};
	static const char *const good_specs[] = {
		"/dev/vda1", "/dev/disk/by-path/pci-0000:00:04.0-part1", "/dev/mapper/vg-root",
		"/dev/disk/by-partlabel/my\\x20root", "LABEL=r\xc3\xa9sum\xc3\xa9", "PARTUUID=1-2",
		"/dev/disk/by-id/usb-Vendor_Name+1@x=y",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad_specs) / sizeof(bad_specs[0]); i++) {
		memset(&err, 0, sizeof(err));
		if (vi_devspec_chars_check("device", bad_specs[i], strlen(bad_specs[i]), &err) != -EINVAL)
			fail_msg("accepted device '%s'", bad_specs[i]);
		assert_non_null(strstr(err.msg, "is not allowed"));
	}
	for (size_t i = 0; i < sizeof(good_specs) / sizeof(good_specs[0]); i++)
		if (vi_devspec_chars_check("device", good_specs[i], strlen(good_specs[i]), &err) != 0)
			fail_msg("refused device '%s': %s", good_specs[i], err.msg);
	/* every key that takes a device names itself */
	bad("roothash=" H " verity.data=/dev/vda verity.hash=/dev/$(x)", "verity.hash: device");
	bad("roothash=" H " systemd.verity_root_data=LABEL=`x` verity.hash=/dev/vdb",
	    "systemd.verity_root_data: device");
	bad("roothash=" H DEVS " verity.recovery.roothash=" H2 " verity.recovery.data=/dev/a;b",
	    "verity.recovery.data: device");
	bad("roothash=" H DEVS " verity.recovery.roothash=" H2 " verity.recovery.data=/dev/vdc "
	    "verity.recovery.hash=/dev/a|b", "verity.recovery.hash: device");
	bad("roothash=" H DEVS " verity.options=fec-device=/dev/a&b", "fec-device '/dev/a&b'");
	bad("roothash=" H DEVS " verity.sig=/dev/a>b", "verity.sig: device");
	bad("verity.manifest=LABEL=a<b", "verity.manifest: device");
	bad("dm-mod.create=\"vroot,,,ro,0 16 verity 1 /dev/a&b /dev/vdb 4096 4096 2 1 sha256 " H
	    " -\"", "dm-mod.create: data device");
	bad("roothash=" H DEVS " init=/sbin/$(x)", "init: path '/sbin/$(x)'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_grammar),
		cmocka_unit_test(test_tokenizer),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_systemd_keys),
		cmocka_unit_test(test_our_keys),
		cmocka_unit_test(test_discoverable_partitions),
		cmocka_unit_test(test_manifest_only),
		cmocka_unit_test(test_no_superblock),
		cmocka_unit_test(test_repeats),
		cmocka_unit_test(test_double_dash),
		cmocka_unit_test(test_dm_create),
		cmocka_unit_test(test_root_dev),
		cmocka_unit_test(test_signature_keys),
		cmocka_unit_test(test_rejections),
		cmocka_unit_test(test_helpers),
		cmocka_unit_test(test_volatile),
		cmocka_unit_test(test_print_kv),
		cmocka_unit_test(test_print_shell),
		cmocka_unit_test(test_strutil),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
