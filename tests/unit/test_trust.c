// SPDX-License-Identifier: LGPL-2.1-or-later
/* The agent's signature step on a fake initramfs tree (a temporary directory as rootfd):
 * keys in /etc/verity-init/keys, a manifest + .minisig made by the minisign tool (the vectors
 * of manifest_vectors.h), the real command-line parser in front. Device locations need block
 * devices and are covered by the VM tests (tests/vm/sign_*_test.sh). */
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
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include <linux/keyctl.h>

#include "cmdline.h"
#include "config.h"
#include "helpers.h"
#include "hex.h"
#include "manifest_vectors.h"
#include "trust.h"

struct tree {
	char dir[64];
	int fd;
};

static void put(struct tree *t, const char *path, const char *content, size_t len)
{
	ut_put(t->dir, path, content, len, 0644);
}

static int setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));
	char p[128];

	assert_non_null(t);
	snprintf(t->dir, sizeof(t->dir), "/tmp/test_trust.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(p, sizeof(p), "%s/etc", t->dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/etc/verity-init", t->dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/etc/verity-init/keys", t->dir);
	mkdir(p, 0755);
	t->fd = open(t->dir, O_RDONLY | O_DIRECTORY);
	assert_true(t->fd >= 0);
	put(t, "etc/verity-init/keys/release.pub", VEC_PUB, sizeof(VEC_PUB) - 1);
	put(t, "etc/verity-init/manifest", VEC_MANIFEST, sizeof(VEC_MANIFEST) - 1);
	put(t, "etc/verity-init/manifest.minisig", VEC_SIG, sizeof(VEC_SIG) - 1);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tree *t = *state;

	close(t->fd);
	assert_int_equal(ut_rm_tree(t->dir), 0);
	free(t);
	return 0;
}

static void parse(struct vi_config *cfg, const char *cmdline)
{
	struct vi_error err = { "" };

	vi_config_init(cfg);
	if (vi_cmdline_parse(cmdline, 0, cfg, &err) < 0)
		fail_msg("cmdline refused: %s", err.msg);
}

static int run(struct tree *t, struct vi_config *cfg, uint64_t min_version,
	       struct vi_trust_result *res, struct vi_error *err)
{
	struct vi_trust_ctx ctx = { .rootfd = t->fd, .min_version = min_version, .timeout_ms = 0 };

	return vi_trust_setup(cfg, &ctx, res, err);
}

static void test_keys_load(void **state)
{
	struct tree *t = *state;
	struct vi_keyset ks;
	struct vi_error err = { "" };

	assert_int_equal(vi_keys_load(t->fd, VI_KEYS_DIR, &ks, &err), 0);
	assert_int_equal(ks.n, 1);
	assert_string_equal(ks.file[0], "release.pub");
	/* a second key, a non-.pub file ignored, name order */
	put(t, "etc/verity-init/keys/a-old.pub", VEC_PUB2, sizeof(VEC_PUB2) - 1);
	put(t, "etc/verity-init/keys/README", "x", 1);
	assert_int_equal(vi_keys_load(t->fd, VI_KEYS_DIR, &ks, &err), 0);
	assert_int_equal(ks.n, 2);
	assert_string_equal(ks.file[0], "a-old.pub");
	/* a malformed key file is an error, not skipped */
	put(t, "etc/verity-init/keys/broken.pub", "garbage\n", 8);
	assert_int_equal(vi_keys_load(t->fd, VI_KEYS_DIR, &ks, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "broken.pub"));
	assert_int_equal(vi_keys_load(t->fd, "/etc/nothing", &ks, &err), -ENOENT);
}

static void test_manifest_from_initramfs(void **state)
{
	struct tree *t = *state;
	struct vi_config cfg;
	struct vi_trust_result res;
	struct vi_error err = { "" };
	uint8_t root[32];

	/* the command line names only the manifest: everything else comes from it */
	parse(&cfg, "verity.manifest=/etc/verity-init/manifest root=/dev/mapper/root");
	assert_true(cfg.root.enabled);
	assert_int_equal(cfg.root.root_hash_len, 0);
	assert_int_equal(run(t, &cfg, 7, &res, &err), 0);
	assert_true(res.manifest);
	assert_int_equal(res.version, 7);
	assert_string_equal(res.key_id, "B69F29EA89A6E4A4");
	assert_string_equal(res.key_file, "release.pub");
	assert_string_equal(res.source, "/etc/verity-init/manifest");
	assert_int_equal(vi_hex_decode_exact(VEC_ROOT, root, 32), 0);
	assert_int_equal(cfg.root.root_hash_len, 32);
	assert_memory_equal(cfg.root.root_hash, root, 32);
	assert_string_equal(cfg.root.data.spec, "PARTUUID=" VEC_PARTUUID);
	assert_int_equal(cfg.root.params.hash_offset, 16777216);
	assert_int_equal(cfg.root.params.data_blocks, 4096);
}

static void test_refusals(void **state)
{
	struct tree *t = *state;
	struct vi_config cfg;
	struct vi_trust_result res;
	struct vi_error err = { "" };
	char tampered[sizeof(VEC_MANIFEST)];

	/* rollback */
	parse(&cfg, "verity.manifest=/etc/verity-init/manifest");
	assert_int_equal(run(t, &cfg, 8, &res, &err), -ESTALE);
	assert_string_equal(err.msg, "signed manifest refused: manifest version 7 is below the "
				     "minimum 8 (rollback refused)");
	assert_int_equal(cfg.root.root_hash_len, 0);     /* nothing merged */

	/* contradicting command line */
	parse(&cfg, "verity.manifest=/etc/verity-init/manifest verity.options=data-blocks=100");
	assert_int_equal(run(t, &cfg, 0, &res, &err), -EPERM);
	assert_string_equal(err.msg, "signed manifest refused: command line data-blocks= "
				     "contradicts the signed manifest");
	parse(&cfg, "verity.manifest=/etc/verity-init/manifest verity.roothash=" VEC_ROOT
		    " verity.data=/dev/vdb");
	assert_int_equal(run(t, &cfg, 0, &res, &err), -EPERM);

	/* tampered manifest: data-blocks 4096 -> 4095 */
	memcpy(tampered, VEC_MANIFEST, sizeof(VEC_MANIFEST));
	*strstr(tampered, "blocks 4096") = 'B';
	memcpy(strstr(tampered, "Blocks 4096"), "blocks 4095", 11);
	put(t, "etc/verity-init/manifest", tampered, sizeof(VEC_MANIFEST) - 1);
	parse(&cfg, "verity.manifest=/etc/verity-init/manifest");
	assert_int_equal(run(t, &cfg, 0, &res, &err), -EBADMSG);
	assert_string_equal(err.msg, "signed manifest refused: manifest signature (key "
				     "B69F29EA89A6E4A4): signature does not verify");
	put(t, "etc/verity-init/manifest", VEC_MANIFEST, sizeof(VEC_MANIFEST) - 1);

	/* signed by a key the initramfs does not have */
	put(t, "etc/verity-init/manifest.minisig", VEC_SIG_K2, sizeof(VEC_SIG_K2) - 1);
	assert_int_equal(run(t, &cfg, 0, &res, &err), -ENOKEY);
	assert_string_equal(err.msg, "signed manifest refused: manifest signed by key "
				     "4D180D24B34BE6B4, which is not a trusted key");
	/* ... which verifies once that key is installed */
	put(t, "etc/verity-init/keys/k2.pub", VEC_PUB2, sizeof(VEC_PUB2) - 1);
	assert_int_equal(run(t, &cfg, 0, &res, &err), 0);
	assert_string_equal(res.key_file, "k2.pub");
	put(t, "etc/verity-init/manifest.minisig", VEC_SIG, sizeof(VEC_SIG) - 1);

	/* missing signature file */
	parse(&cfg, "verity.manifest=/etc/verity-init/manifest");
	{
		char p[160];

		snprintf(p, sizeof(p), "%s/etc/verity-init/manifest.minisig", t->dir);
		assert_int_equal(unlink(p), 0);
	}
	assert_int_equal(run(t, &cfg, 0, &res, &err), -ENOENT);
	put(t, "etc/verity-init/manifest.minisig", VEC_SIG, sizeof(VEC_SIG) - 1);

	/* no keys in the initramfs */
	{
		char p[160];

		snprintf(p, sizeof(p), "%s/etc/verity-init/keys/release.pub", t->dir);
		assert_int_equal(unlink(p), 0);
		snprintf(p, sizeof(p), "%s/etc/verity-init/keys/k2.pub", t->dir);
		assert_int_equal(unlink(p), 0);
	}
	assert_int_equal(run(t, &cfg, 0, &res, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "no public keys"));
}

static void test_required_signature_missing(void **state)
{
	struct tree *t = *state;
	struct vi_config cfg;
	struct vi_trust_result res;
	struct vi_error err = { "" };

	/* the policy raised require_signature after parsing; the command line has a bare hash */
	parse(&cfg, "verity.roothash=" VEC_ROOT " verity.data=/dev/vda verity.hash=/dev/vdb");
	cfg.require_signature = true;
	assert_int_equal(run(t, &cfg, 0, &res, &err), -EPERM);
	assert_string_equal(err.msg, "a signed root hash is required but none was given");
	/* an unsigned recovery root is dropped when signatures are required */
	parse(&cfg, "verity.manifest=/etc/verity-init/manifest verity.recovery.roothash=" VEC_ROOT
		    " verity.recovery.data=/dev/vdc verity.recovery.hash=/dev/vdd");
	cfg.require_signature = true;
	assert_true(cfg.recovery.enabled);
	assert_int_equal(run(t, &cfg, 0, &res, &err), 0);
	assert_true(res.manifest);
	assert_true(res.recovery_dropped);
	assert_true(cfg.recovery.enabled);   /* the decision is res's: cfg keeps the command line */
	/* without the requirement there is nothing to do */
	parse(&cfg, "verity.roothash=" VEC_ROOT " verity.data=/dev/vda verity.hash=/dev/vdb");
	cfg.require_signature = false;
	assert_int_equal(run(t, &cfg, 0, &res, &err), 0);
	assert_false(res.manifest);
	assert_int_equal(res.root_sig.serial, 0);
}

/* A refused root does not leave its recovery root unchecked: the recovery root's own signature
 * is still processed (and a bad one disables it), and an unsigned recovery root is dropped when
 * signatures are required, whatever happened to the root. */
static void test_root_refused_recovery_still_checked(void **state)
{
	struct tree *t = *state;
	struct vi_config cfg;
	struct vi_trust_result res;
	struct vi_error err = { "" };

	/* root: rollback refused; recovery: a PEM "signature" the kernel would never accept */
	put(t, "etc/verity-init/rec.p7s", "-----BEGIN PKCS7-----\n", 22);
	parse(&cfg, "verity.manifest=/etc/verity-init/manifest verity.recovery.roothash=" VEC_ROOT
		    " verity.recovery.data=/dev/vdc verity.recovery.hash=/dev/vdd"
		    " verity.recovery.options=root-hash-signature=/etc/verity-init/rec.p7s"
		    " verity.fail=recovery,poweroff");
	assert_true(cfg.recovery.enabled);
	assert_int_equal(run(t, &cfg, 8, &res, &err), -ESTALE);
	assert_non_null(strstr(err.msg, "rollback refused"));
	assert_true(res.recovery_dropped);
	assert_true(cfg.recovery.enabled);   /* the decision is res's: cfg keeps the command line */
	assert_non_null(strstr(res.recovery_note, "recovery root hash signature"));
	assert_non_null(strstr(res.recovery_note, "not DER"));
	assert_int_equal(res.recovery_sig.serial, 0);

	/* root: required signature missing; recovery: unsigned -> dropped too */
	parse(&cfg, "verity.roothash=" VEC_ROOT " verity.data=/dev/vda verity.hash=/dev/vdb"
		    " verity.recovery.roothash=" VEC_ROOT " verity.recovery.data=/dev/vdc"
		    " verity.recovery.hash=/dev/vdd verity.recovery.name=rec");
	cfg.require_signature = true;
	assert_int_equal(run(t, &cfg, 0, &res, &err), -EPERM);
	assert_string_equal(err.msg, "a signed root hash is required but none was given");
	assert_true(res.recovery_dropped);
	assert_true(cfg.recovery.enabled);   /* the decision is res's: cfg keeps the command line */
	assert_string_equal(res.recovery_note, "signatures are required and it has none");

	/* root fine, recovery signature bad: the root still boots, the recovery is disabled */
	parse(&cfg, "verity.manifest=/etc/verity-init/manifest verity.recovery.roothash=" VEC_ROOT
		    " verity.recovery.data=/dev/vdc verity.recovery.hash=/dev/vdd"
		    " verity.recovery.options=root-hash-signature=/etc/verity-init/rec.p7s");
	assert_int_equal(run(t, &cfg, 0, &res, &err), 0);
	assert_true(res.manifest);
	assert_true(res.recovery_dropped);
	assert_true(cfg.recovery.enabled);   /* the decision is res's: cfg keeps the command line */
}

static void test_p7s_into_keyring(void **state)
{
	struct tree *t = *state;
	struct vi_config cfg;
	struct vi_trust_result res;
	struct vi_error err = { "" };
	static const char p7s[] = { 0x30, 0x03, 0x02, 0x01, 0x01 };
	static const uint8_t smime[] = {
		0x30, 0x81, 0xc9, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01,
		0x07, 0x02, 0xa0, 0x81, 0xbb, 0x30, 0x81, 0xb8, 0x02, 0x01, 0x01, 0x31,
		0x0f, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04,
		0x02, 0x01, 0x05, 0x00, 0x30, 0x0b, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86,
		0xf7, 0x0d, 0x01, 0x07, 0x01, 0x31, 0x81, 0x94, 0x30, 0x81, 0x91, 0x02,
		0x01, 0x01, 0x30, 0x27, 0x30, 0x0f, 0x31, 0x0d, 0x30, 0x0b, 0x06, 0x03,
		0x55, 0x04, 0x03, 0x0c, 0x04, 0x73, 0x65, 0x65, 0x64, 0x02, 0x14, 0x0d,
		0x5f, 0x86, 0x65, 0x6d, 0x13, 0xa3, 0xb0, 0xe9, 0xde, 0xbf, 0xfb, 0x50,
		0x61, 0xe6, 0xc4, 0xd3, 0x65, 0x41, 0x8d, 0x30, 0x0d, 0x06, 0x09, 0x60,
		0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x30, 0x0a,
		0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02, 0x04, 0x48,
		0x30, 0x46, 0x02, 0x21, 0x00, 0xaf, 0xa9, 0xca, 0xae, 0xba, 0xa2, 0xd2,
		0xcf, 0xe4, 0x4c, 0x9a, 0x05, 0x3d, 0xe4, 0x44, 0x3f, 0x6b, 0x42, 0x52,
		0x40, 0x6b, 0xc1, 0xfe, 0xb8, 0xf5, 0xda, 0x51, 0x16, 0x74, 0x8c, 0xc2,
		0x26, 0x02, 0x21, 0x00, 0xb1, 0xf1, 0x39, 0x26, 0x26, 0x59, 0x2b, 0x77,
		0xef, 0xc4, 0xcf, 0x78, 0x9d, 0x9c, 0x95, 0x44, 0xdc, 0x82, 0xfc, 0x31,
		0x28, 0xbd, 0xbb, 0x13, 0x22, 0x7b, 0x19, 0x65, 0x09, 0x0c, 0xbb, 0x34 };
	long found;
	int r;

	put(t, "etc/verity-init/roothash.p7s", p7s, sizeof(p7s));
	parse(&cfg, "verity.roothash=" VEC_ROOT " verity.data=/dev/vda verity.hash=/dev/vdb "
		    "verity.sig=/etc/verity-init/roothash.p7s verity.name=sigtest");
	r = run(t, &cfg, 0, &res, &err);
	if (r == -ENOSYS || r == -EACCES)
		skip();
	assert_int_equal(r, 0);
	assert_true(res.root_sig.serial > 0);
	assert_int_equal(res.root_sig.len, sizeof(p7s));
	assert_string_equal(cfg.root.sig_key_desc, "verity-init:sigtest");
	found = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, "user",
			"verity-init:sigtest", 0);
	assert_int_equal(found, res.root_sig.serial);
	vi_trust_release(&res);
	found = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, "user",
			"verity-init:sigtest", 0);
	assert_true(found < 0);
	/* not SignedData: the kernel decides, but systemd's NvPCR word has no signers for it */
	assert_false(res.root_sig.signers_ok);
	/* a signature `openssl smime -sign -binary -noattr -nocerts -outform der` made (CN=seed):
	 * its signers kept for the NvPCR word after the key left the keyring */
	put(t, "etc/verity-init/roothash.p7s", (const char *)smime, sizeof(smime));
	parse(&cfg, "verity.roothash=" VEC_ROOT " verity.data=/dev/vda verity.hash=/dev/vdb "
		    "verity.sig=/etc/verity-init/roothash.p7s verity.name=sigtest");
	assert_int_equal(run(t, &cfg, 0, &res, &err), 0);
	vi_trust_release(&res);
	assert_true(res.root_sig.signers_ok);
	assert_string_equal(res.root_sig.signers, "02140d5f86656d13a3b0e9debffb5061e6c4d365418d/"
			    "MA8xDTALBgNVBAMMBHNlZWQ=");
	/* a PEM file is refused before the kernel sees it */
	put(t, "etc/verity-init/roothash.p7s", "-----BEGIN PKCS7-----\n", 22);
	parse(&cfg, "verity.roothash=" VEC_ROOT " verity.data=/dev/vda verity.hash=/dev/vdb "
		    "verity.sig=/etc/verity-init/roothash.p7s");
	assert_int_equal(run(t, &cfg, 0, &res, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not DER"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_keys_load, setup, teardown),
		cmocka_unit_test_setup_teardown(test_manifest_from_initramfs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_required_signature_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_root_refused_recovery_still_checked, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_p7s_into_keyring, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
