// SPDX-License-Identifier: LGPL-2.1-or-later
/* A verified /usr: its keys (systemd's and ours), Discoverable Partitions from usrhash= alone,
 * the layouts and their refusals, the policy's consent to an unverified root, the status
 * lines, and the init check that proves init's device. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "cmdline.h"
#include "config.h"
#include "helpers.h"
#include "measure.h"
#include "policy.h"
#include "status.h"
#include "usrcfg.h"
#include "usrmount.h"

/* the halves name the partitions: 4f8b2d0e-1c7a-9b3d-5e6f-708192a3b4c5 and d6e7f809-... */
#define H  "4f8b2d0e1c7a9b3d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5"
#define H2 "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define ROOT "roothash=" H2 " verity.data=/dev/vda1 verity.hash=/dev/vda2 "
#define SIG "base64:MAA="

static struct vi_config cfg;
static struct vi_error err;

static void ok(const char *cmdline)
{
	ut_cmdline(cmdline, &cfg);
}

static void bad_r(const char *cmdline, int want_r, const char *want)
{
	memset(&err, 0, sizeof(err));
	ut_verdict(cmdline, vi_cmdline_parse(cmdline, 0, &cfg, &err), &err, want_r, want);
}

static void bad(const char *cmdline, const char *want)
{
	bad_r(cmdline, -EINVAL, want);
}

/* policy text + command line -> vi_policy_apply's result; with r < 0 the reason has want */
static void apply(const char *policy, const char *cmdline, int want_r, const char *want)
{
	struct vi_policy pol;

	ut_policy_apply(policy, cmdline, &pol, &cfg, want_r, want);
}

static void test_dps(void **state)
{
	(void)state;
	/* systemd's spelling alone: both partitions from the two halves of the hash */
	ok("usrhash=" H " systemd.volatile=yes");
	assert_true(cfg.usr.enabled);
	assert_false(cfg.root.enabled);
	assert_string_equal(cfg.usr.name, "usr");
	assert_int_equal(cfg.usr.root_hash_len, 32);
	assert_true(cfg.usr.discovered && cfg.usr.data_derived && cfg.usr.hash_derived);
	assert_string_equal(cfg.usr.data.spec, "PARTUUID=4f8b2d0e-1c7a-9b3d-5e6f-708192a3b4c5");
	assert_string_equal(cfg.usr.hash.spec, "PARTUUID=d6e7f809-1a2b-3c4d-5e6f-708192a3b4c5");
	assert_int_equal(cfg.layout, VI_LAYOUT_TMPFS_USR);
	/* the data device given: only the hash partition derived */
	ok("rd.usrhash=" H " systemd.verity_usr_data=/dev/vdb1 root=tmpfs");
	assert_false(cfg.usr.data_derived);
	assert_true(cfg.usr.hash_derived);
	assert_string_equal(cfg.usr.data.spec, "/dev/vdb1");
	assert_int_equal(cfg.layout, VI_LAYOUT_TMPFS_USR);
	/* udev's link names as systemd writes them */
	ok("usrhash=" H " systemd.verity_usr_data=/dev/disk/by-partlabel/usr-a "
	   "systemd.verity_usr_hash=/dev/disk/by-partlabel/usr-a-verity systemd.volatile");
	assert_string_equal(cfg.usr.data.spec, "PARTLABEL=usr-a");
	assert_string_equal(cfg.usr.hash.spec, "PARTLABEL=usr-a-verity");
	assert_false(cfg.usr.discovered);
	/* not a digest */
	bad("usrhash=4f8b systemd.volatile=yes", "usrhash=4f8b: length is not a digest size");
}

static void test_keys(void **state)
{
	(void)state;
	/* ours, every key, with the root verified too */
	ok(ROOT "verity.usr.roothash=" H " verity.usr.data=/dev/vdb1 verity.usr.hash=/dev/vdb2 "
	   "verity.usr.options=panic-on-corruption verity.usr.name=usr-a verity.usr.sig=" SIG
	   " mount.usr=/dev/mapper/usr-a mount.usrfstype=erofs mount.usrflags=noatime");
	assert_int_equal(cfg.layout, VI_LAYOUT_ROOT_USR);
	assert_true(cfg.root.enabled && cfg.usr.enabled);
	assert_string_equal(cfg.usr.name, "usr-a");
	assert_int_equal(cfg.usr.opts.corruption, VI_CORRUPT_PANIC);
	assert_string_equal(cfg.usr.sig_path, SIG);
	assert_string_equal(cfg.usr_dev, "/dev/mapper/usr-a");
	assert_string_equal(cfg.usrfstype, "erofs");
	assert_string_equal(cfg.usrflags, "noatime");
	assert_string_equal(cfg.root.sig_path, "");
	/* systemd's and ours are one setting: the same value twice is fine, two are refused */
	ok(ROOT "usrhash=" H " verity.usr.roothash=" H " systemd.verity_usr_options=root-hash-"
	   "signature=" SIG " verity.usr.sig=" SIG);
	assert_string_equal(cfg.usr.sig_path, SIG);
	bad(ROOT "usrhash=" H " verity.usr.roothash=" H2, "give different values");
	bad(ROOT "usrhash=" H " systemd.verity_usr_options=root-hash-signature=/a.p7s "
	    "verity.usr.sig=/b.p7s", "name different signatures");
	/* a typo in our namespace is never dropped */
	bad(ROOT "verity.usr.rothash=" H, "unknown key 'verity.usr.rothash'");
	/* mount.usr= only ever names the mapping */
	bad(ROOT "usrhash=" H " mount.usr=/dev/vdc", "'mount.usr' must name the verified mapping "
	    "/dev/mapper/usr");
	bad(ROOT "usrhash=" H " mount.usr=PARTUUID=4f8b2d0e-1c7a-9b3d-5e6f-708192a3b4c5",
	    "must name the verified mapping");
	bad(ROOT "usrhash=" H " mount.usrflags=rw", "read-only");
	bad(ROOT "usrhash=" H " mount.usrfstype=nfs", "not a single-device filesystem");
	bad_r(ROOT "usrhash=" H " mount.usrflags=journal_dev=/dev/vdc", -EPERM,
	      "mount.usrflags: rootflags=journal_dev=/dev/vdc names another device");
	/* without a verified /usr these mount something unverified under the verified init */
	bad(ROOT "mount.usr=/dev/mapper/usr", "'mount.usr' would mount an unverified /usr");
	bad(ROOT "verity.usr.sig=/a.p7s", "verity.usr.sig= given without a root hash for /usr");
	/* the mapping names must differ */
	bad(ROOT "usrhash=" H " verity.usr.name=root", "the /usr mapping needs a name other than "
	    "'root'");
	/* systemd.verity=0 switches off /usr too */
	bad("systemd.verity=0 usrhash=" H " root=tmpfs", "systemd.verity=0 together with verity");
	/* signatures asked for on the command line cover /usr */
	bad(ROOT "verity.sig=/r.p7s usrhash=" H " verity.require_signature",
	    "/usr has no signature");
	ok(ROOT "verity.sig=/r.p7s usrhash=" H " verity.usr.sig=/u.p7s verity.require_signature");
}

static void test_layouts(void **state)
{
	(void)state;
	ok(ROOT);
	assert_int_equal(cfg.layout, VI_LAYOUT_ROOT);
	assert_false(cfg.usr.enabled);
	ok(ROOT "usrhash=" H);
	assert_int_equal(cfg.layout, VI_LAYOUT_ROOT_USR);
	ok(ROOT "usrhash=" H " systemd.volatile=state");
	assert_int_equal(cfg.layout, VI_LAYOUT_ROOT_USR);
	ok("usrhash=" H " root=tmpfs");
	assert_int_equal(cfg.layout, VI_LAYOUT_TMPFS_USR);
	ok("usrhash=" H " root=/dev/disk/by-partlabel/root rw");
	assert_int_equal(cfg.layout, VI_LAYOUT_WRITABLE_USR);
	assert_string_equal(cfg.root_dev, "PARTLABEL=root");
	assert_true(cfg.rw);
	ok("usrhash=" H " root=UUID=0a0b0c0d-1111-2222-3333-444455556666 systemd.volatile=state");
	assert_int_equal(cfg.layout, VI_LAYOUT_WRITABLE_USR);
	assert_string_equal(vi_layout_name(VI_LAYOUT_WRITABLE_USR), "writable+usr");
	assert_string_equal(vi_layout_name((enum vi_layout)77), "root");

	bad("usrhash=" H, "a verified /usr needs a root: a verified one (roothash=), a tmpfs "
	    "(systemd.volatile=yes), or root=DEVICE");
	bad(ROOT "usrhash=" H " systemd.volatile=yes", "a tmpfs root (systemd.volatile=yes, "
	    "root=tmpfs) together with a verified root");
	bad(ROOT "systemd.volatile=yes", "a tmpfs root (systemd.volatile=yes) needs a verified /usr");
	bad(ROOT "usrhash=" H " systemd.volatile=overlay", "systemd.volatile=overlay with a separate "
	    "verified /usr is not supported");
	bad("usrhash=" H " root=tmpfs systemd.volatile=state", "the whole root is a tmpfs");
	bad("usrhash=" H " root=/dev/vda2\"", "");
	bad("usrhash=" H " root=nfs:/srv", "root=nfs:/srv: the unverified root must be a block "
	    "device: device 'nfs:/srv': not /dev/");
}

static void test_policy(void **state)
{
	(void)state;
	/* an unverified root= partition: only with the policy's explicit consent */
	apply("", "usrhash=" H " root=/dev/vda2", -EPERM, "root=/dev/vda2 is not verified, only "
	      "/usr: its /etc, units and ld.so.preload are not checked; the initramfs policy does "
	      "not allow it (allow_unverified_root=yes would)");
	apply("allow_unverified_root=no\n", "usrhash=" H " root=/dev/vda2", -EPERM,
	      "allow_unverified_root=yes would");
	apply("allow_unverified_root=yes\n", "usrhash=" H " root=/dev/vda2", 0, NULL);
	/* the consent is for that layout only: the others need none */
	apply("", "usrhash=" H " systemd.volatile=yes", 0, NULL);
	apply("", ROOT "usrhash=" H, 0, NULL);
	/* signatures, weakening options, manifests: /usr as the root */
	apply("require_signature=yes\n", ROOT "verity.sig=/r.p7s usrhash=" H, -EPERM,
	      "/usr has no signature");
	apply("require_signature=yes\n", "usrhash=" H " root=tmpfs verity.usr.sig=/u.p7s", 0, NULL);
	apply("require_signature=kernel\n", ROOT "verity.sig=/r.p7s usrhash=" H
	      " verity.usr.sig=/u.p7s", 0, NULL);
	apply("", "usrhash=" H " root=tmpfs verity.usr.options=ignore-zero-blocks", -EPERM,
	      "verified /usr: 'ignore-zero-blocks' weakens verification");
	apply("require_manifest=yes\n", "usrhash=" H " root=tmpfs", -EPERM,
	      "a signed manifest covers the root only: no verified /usr under this policy");
	{
		struct vi_policy pol;

		assert_int_equal(vi_policy_parse("allow_unverified_root=maybe\n", 28, &pol, &err),
				 -EINVAL);
		assert_non_null(strstr(err.msg, "allow_unverified_root: not yes or no"));
	}
}

/* cmdline's event for target t (the config's layout), signed by signer */
static const char *event_of(const char *cmdline, bool usr, const char *signer, char *buf,
			    size_t size)
{
	ok(cmdline);
	if (vi_measure_event(usr ? &cfg.usr : &cfg.root, cfg.layout,
			     usr ? VI_MEASURE_ROLE_USR : VI_MEASURE_ROLE_ROOT, signer, buf, size,
			     &err) != 0)
		fail_msg("'%s': no event: %s", cmdline, err.msg);
	return buf;
}

/* One TPM event per booted target: /usr's names the layout, its place in it, its mapping, its
 * own hash and signer. An empty tmpfs root and a writable root an attacker may have filled are
 * two roots: their events differ, and the writable one says / is not verified (issue 30). */
static void test_measure_event(void **state)
{
	char signer[VI_MAX_PATH + 16], ev[VI_MEASURE_EVENT_MAX], tmpfs[VI_MEASURE_EVENT_MAX];

	(void)state;
	/* the same /usr under each root the command line can give it */
	event_of("usrhash=" H " systemd.volatile=yes", true, "none", tmpfs, sizeof(tmpfs));
	event_of("usrhash=" H " root=/dev/vda2", true, "none", ev, sizeof(ev));
	assert_int_equal(cfg.layout, VI_LAYOUT_WRITABLE_USR);
	assert_string_not_equal(ev, tmpfs);
	assert_string_equal(tmpfs, "dm-verity:tmpfs+usr:usr:usr:" H ":none");
	assert_string_equal(ev, "dm-verity:writable+usr,unverified-root:usr:usr:" H ":none");
	ok("usrhash=" H " root=tmpfs verity.usr.sig=/u.p7s");
	snprintf(cfg.usr.sig_key_desc, sizeof(cfg.usr.sig_key_desc), "%s", "verity-init:usr");
	assert_int_equal(vi_measure_signer(&cfg.usr, false, NULL, signer, sizeof(signer), &err), 0);
	assert_int_equal(vi_measure_event(&cfg.usr, cfg.layout, VI_MEASURE_ROLE_USR, signer, ev,
					  sizeof(ev), &err), 0);
	assert_string_equal(ev, "dm-verity:tmpfs+usr:usr:usr:" H ":pkcs7:verity-init:usr");
	event_of("usrhash=" H " root=/dev/vda2 rw", true, "none", ev, sizeof(ev));
	assert_string_equal(ev, "dm-verity:writable+usr,unverified-root:usr:usr:" H ":none");
	event_of(ROOT "usrhash=" H, true, "none", ev, sizeof(ev));
	assert_string_equal(ev, "dm-verity:root+usr:usr:usr:" H ":none");
	event_of(ROOT "usrhash=" H, false, "none", ev, sizeof(ev));
	assert_string_equal(ev, "dm-verity:root+usr:root:root:" H2 ":none");
	/* the root alone keeps its event */
	event_of(ROOT, false, "none", ev, sizeof(ev));
	assert_string_equal(ev, "dm-verity:root:" H2 ":none");
	/* mapping names are the command line's: the place in the layout is not */
	event_of("usrhash=" H " root=tmpfs verity.usr.name=sys", true, "none", ev, sizeof(ev));
	assert_string_equal(ev, "dm-verity:tmpfs+usr:usr:sys:" H ":none");
}

static void test_status(void **state)
{
	char dir[] = "/tmp/vi-usr-status-XXXXXX", path[64], buf[1024];
	struct vi_status_hashes hashes;
	struct vi_status st;

	(void)state;
	ok("usrhash=" H " root=tmpfs");
	assert_non_null(mkdtemp(dir));
	vi_status_from_failure("ok", "none", NULL, &cfg.usr, &hashes, &st);
	vi_status_set_usr(&st, &cfg.usr, &hashes);
	assert_int_equal(vi_status_write(dir, &st, &err), 0);
	ut_path(path, sizeof(path), dir, "status");
	assert_true(ut_read_file(path, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\nname=usr\n"));
	assert_non_null(strstr(buf, "\nbooted=" H "\n"));
	assert_non_null(strstr(buf, "\nusr=usr\nusrhash=" H "\n"));
	assert_int_equal(ut_rm_tree(dir), 0);
}

/* The init check of a /usr layout: the file's device must be one allowed; a plain directory
 * stands for the mounts (its device is the one the test allows or not). */
static void test_init_check(void **state)
{
	char dir[] = "/tmp/vi-usr-init-XXXXXX", path[96];
	struct vi_file_id id;
	struct stat st;
	dev_t allowed[2] = { 0, 0 };

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/usr", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	ut_put(dir, "usr/init", "#!/bin/sh\n", 10, 0755);
	snprintf(path, sizeof(path), "%s/sbin", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/sbin/init", dir);
	assert_int_equal(symlink("/usr/init", path), 0);   /* absolute: resolved inside dir */
	assert_int_equal(stat(dir, &st), 0);

	allowed[0] = st.st_dev;
	assert_int_equal(vi_usr_init_check(dir, "/sbin/init", allowed, 2, &id, &err), 0);
	assert_true(id.dev == st.st_dev);
	/* the same file on a device that is not the /usr mapping */
	allowed[0] = makedev(253, 7);
	assert_int_equal(vi_usr_init_check(dir, "/sbin/init", allowed, 2, &id, &err), -EXDEV);
	assert_non_null(strstr(err.msg, "not on the verified /usr (253:7)"));
	allowed[1] = makedev(253, 8);
	assert_int_equal(vi_usr_init_check(dir, "/sbin/init", allowed, 2, &id, &err), -EXDEV);
	assert_non_null(strstr(err.msg, "(253:7) or the verified root"));
	/* no init at all */
	allowed[0] = st.st_dev;
	assert_int_equal(vi_usr_init_check(dir, "/sbin/none", allowed, 1, &id, &err), -ENOENT);

	assert_int_equal(ut_rm_tree(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dps),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_measure_event),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_init_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
