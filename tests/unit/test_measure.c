// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/boot/tpm.c and lib/boot/measure.c: the exchange with the device, the event string and
 * systemd's log record (the PCR_Event bytes and its answer: test_tpm2.c); systemd's verity NvPCR
 * word, its anchor event and its record, held against systemd's documentation and against what
 * systemd 262's own tools wrote. The extends themselves are tested against a real (emulated)
 * TPM in tests/vm/tpm_measure_test.sh. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "digest.h"
#include "measure.h"
#include "tpm.h"
#include "tpm2.h"

/* A FIFO stands in for the device: the command comes back as the "response", whose code field
 * is TPM_CC_PCR_Event, so the whole write-poll-read path ends in the refusal path. */
static void test_transmit_reports_the_response_code(void **state)
{
	char top[] = "/tmp/vi-tpm-XXXXXX", p[128];
	uint8_t cmd[VI_TPM_CMD_MAX], rsp[VI_TPM_RSP_MAX];
	struct vi_error err = { "" };
	size_t rlen = 0;
	int len;

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(p, sizeof(p), "%s/tpmrm0", top);
	assert_int_equal(vi_tpm_transmit(p, cmd, 10, rsp, sizeof(rsp), &rlen, &err), -ENODEV);
	assert_int_equal(mkfifo(p, 0600), 0);
	len = vi_tpm_event_command(14, "dm-verity:root:00:none", 22, cmd, sizeof(cmd), &err);
	assert_int_equal(len, 51);
	assert_int_equal(vi_tpm_transmit(p, cmd, (size_t)len, rsp, sizeof(rsp), &rlen, &err), -EIO);
	assert_int_equal(rlen, 51);
	assert_non_null(strstr(err.msg, "response code 0x0000013c"));
	unlink(p);
	rmdir(top);
}

/* The event of t booted alone (layout root). */
static int root_event(const struct vi_target *t, const char *signer, char *buf, size_t size,
		      struct vi_error *err)
{
	return vi_measure_event(t, VI_LAYOUT_ROOT, VI_MEASURE_ROLE_ROOT, signer, buf, size, err);
}

static void test_event_and_signer(void **state)
{
	struct vi_target t = { .enabled = true, .name = "root", .root_hash_len = 4,
			       .root_hash = { 0xde, 0xad, 0xbe, 0xef } };
	struct vi_trust_result tr = { .manifest = true, .key_id = "0123456789ABCDEF" };
	char signer[128], ev[VI_MEASURE_EVENT_MAX];
	struct vi_error err = { "" };

	(void)state;
	assert_int_equal(vi_measure_signer(&t, true, &tr, signer, sizeof(signer), &err), 0);
	assert_string_equal(signer, "minisign:0123456789ABCDEF");
	assert_int_equal(vi_measure_signer(&t, true, &tr, signer, 12, &err), -ENOBUFS);
	/* the manifest belongs to the root: the recovery root is signed on its own or not at all */
	assert_int_equal(vi_measure_signer(&t, false, &tr, signer, sizeof(signer), &err), 0);
	assert_string_equal(signer, "none");
	snprintf(t.sig_key_desc, sizeof(t.sig_key_desc), "verity-init:root");
	tr.manifest = false;
	assert_int_equal(vi_measure_signer(&t, true, &tr, signer, sizeof(signer), &err), 0);
	assert_string_equal(signer, "pkcs7:verity-init:root");
	assert_int_equal(root_event(&t, signer, ev, sizeof(ev), &err), 0);
	assert_string_equal(ev, "dm-verity:root:deadbeef:pkcs7:verity-init:root");
	/* a name with ':' would make the string ambiguous; quotes would break the log record */
	snprintf(t.name, sizeof(t.name), "a:b");
	assert_int_equal(root_event(&t, signer, ev, sizeof(ev), &err), -EINVAL);
	snprintf(t.name, sizeof(t.name), "root");
	assert_int_equal(root_event(&t, "x\"y", ev, sizeof(ev), &err), -EINVAL);
	t.root_hash_len = 0;
	assert_int_equal(root_event(&t, signer, ev, sizeof(ev), &err), -EINVAL);
}

/* Every layout the agent boots gives its own event for each target it measures; the root alone
 * keeps the event it always had. docs/signing.md, "The events". */
static void test_event_per_layout(void **state)
{
	static const struct {
		enum vi_layout layout;
		enum vi_measure_role role;
		const char *want;
	} cases[] = {
		{ VI_LAYOUT_ROOT, VI_MEASURE_ROLE_ROOT, "dm-verity:sys:deadbeef:none" },
		{ VI_LAYOUT_ROOT_USR, VI_MEASURE_ROLE_ROOT, "dm-verity:root+usr:root:sys:deadbeef:none" },
		{ VI_LAYOUT_ROOT_USR, VI_MEASURE_ROLE_USR, "dm-verity:root+usr:usr:sys:deadbeef:none" },
		{ VI_LAYOUT_TMPFS_USR, VI_MEASURE_ROLE_USR, "dm-verity:tmpfs+usr:usr:sys:deadbeef:none" },
		{ VI_LAYOUT_WRITABLE_USR, VI_MEASURE_ROLE_USR,
		  "dm-verity:writable+usr,unverified-root:usr:sys:deadbeef:none" },
	};
	const size_t n = sizeof(cases) / sizeof(cases[0]);
	struct vi_target t = { .enabled = true, .name = "sys", .root_hash_len = 4,
			       .root_hash = { 0xde, 0xad, 0xbe, 0xef } };
	char ev[sizeof(cases) / sizeof(cases[0])][VI_MEASURE_EVENT_MAX];
	struct vi_error err = { "" };

	(void)state;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(vi_measure_event(&t, cases[i].layout, cases[i].role, "none", ev[i],
						  sizeof(ev[i]), &err), 0);
		assert_string_equal(ev[i], cases[i].want);
	}
	/* the same target, the same hash, the same signer: never the same event */
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			assert_string_not_equal(ev[i], ev[j]);
}

/* What no layout has: a /usr on a root alone, a root target under a tmpfs or unverified root,
 * a layout the grammar does not know; a name outside the mapping name grammar ('+' and ','
 * belong to the layout field). */
static void test_event_refusals(void **state)
{
	struct vi_target t = { .enabled = true, .name = "usr", .root_hash_len = 4,
			       .root_hash = { 0xde, 0xad, 0xbe, 0xef } };
	char ev[VI_MEASURE_EVENT_MAX];
	struct vi_error err = { "" };

	(void)state;
	assert_int_equal(vi_measure_event(&t, VI_LAYOUT_ROOT, VI_MEASURE_ROLE_USR, "none", ev,
					  sizeof(ev), &err), -EINVAL);
	assert_int_equal(vi_measure_event(&t, VI_LAYOUT_TMPFS_USR, VI_MEASURE_ROLE_ROOT, "none",
					  ev, sizeof(ev), &err), -EINVAL);
	assert_int_equal(vi_measure_event(&t, VI_LAYOUT_WRITABLE_USR, VI_MEASURE_ROLE_ROOT,
					  "none", ev, sizeof(ev), &err), -EINVAL);
	assert_int_equal(vi_measure_event(&t, (enum vi_layout)42, VI_MEASURE_ROLE_USR, "none", ev,
					  sizeof(ev), &err), -EINVAL);
	assert_int_equal(vi_measure_event(&t, VI_LAYOUT_ROOT_USR, (enum vi_measure_role)7, "none",
					  ev, sizeof(ev), &err), -EINVAL);
	snprintf(t.name, sizeof(t.name), "tmpfs+usr");
	assert_int_equal(root_event(&t, "none", ev, sizeof(ev), &err), -EINVAL);
	snprintf(t.name, sizeof(t.name), "a,b");
	assert_int_equal(root_event(&t, "none", ev, sizeof(ev), &err), -EINVAL);
	snprintf(t.name, sizeof(t.name), "-x");
	assert_int_equal(root_event(&t, "none", ev, sizeof(ev), &err), -EINVAL);
	/* the signer: printable, no quote, not empty */
	snprintf(t.name, sizeof(t.name), "usr");
	assert_int_equal(root_event(&t, "", ev, sizeof(ev), &err), -EINVAL);
	assert_int_equal(root_event(&t, "pkcs7:a b", ev, sizeof(ev), &err), -EINVAL);
}

/* The longest event (a 63-character name, a SHA-512 root hash, the longest key description, the
 * longest layout field) fits the agent's buffer and a TPM2B_EVENT. */
static void test_event_longest(void **state)
{
	struct vi_target t = { .enabled = true, .root_hash_len = VERITY_MAX_DIGEST };
	char signer[VI_MAX_PATH + 16], ev[VI_MEASURE_EVENT_MAX];
	struct vi_error err = { "" };

	(void)state;
	memset(t.name, 'n', VI_MAX_NAME - 1);
	memset(t.sig_key_desc, 'k', VI_MAX_PATH - 1);
	assert_int_equal(vi_measure_signer(&t, false, NULL, signer, sizeof(signer), &err), 0);
	assert_int_equal(vi_measure_event(&t, VI_LAYOUT_WRITABLE_USR, VI_MEASURE_ROLE_USR, signer,
					  ev, sizeof(ev), &err), 0);
	assert_true(strlen(ev) <= VI_TPM_EVENT_MAX);
	assert_int_equal(vi_measure_event(&t, VI_LAYOUT_WRITABLE_USR, VI_MEASURE_ROLE_USR, signer,
					  ev, strlen(ev), &err), -ENOBUFS);
}

static void test_record_is_systemds_format(void **state)
{
	struct vi_tpm_digest d[2] = { { .alg = VI_TPM_ALG_SHA1 }, { .alg = VI_TPM_ALG_SHA256 } };
	const char *bid = "0123456789abcdef0123456789abcdef";
	char rec[VI_MEASURE_RECORD_MAX], small[64];
	struct vi_error err = { "" };
	int n;

	(void)state;
	memset(d[0].value, 0xab, 20);
	memset(d[1].value, 0x01, 32);
	n = vi_measure_record(14, d, 2, "dm-verity:root:00:none", bid, 1234567, rec, sizeof(rec),
			      &err);
	assert_true(n > 0);
	assert_int_equal((size_t)n, strlen(rec));
	assert_string_equal(rec,
		"\x1e{\"pcr\":14,\"digests\":[{\"hashAlg\":\"sha1\",\"digest\":\""
		"abababababababababababababababababababab\"},{\"hashAlg\":\"sha256\",\"digest\":\""
		"0101010101010101010101010101010101010101010101010101010101010101\"}],"
		"\"content_type\":\"systemd\",\"content\":{\"string\":\"dm-verity:root:00:none\","
		"\"bootId\":\"0123456789abcdef0123456789abcdef\",\"timestamp\":1234567,"
		"\"eventType\":\"dm-verity\"}}\n");
	assert_int_equal(vi_measure_record(14, d, 2, "e", bid, 1, small, sizeof(small), &err),
			 -ENOBUFS);
	assert_int_equal(vi_measure_record(14, d, 2, "e\n", bid, 1, rec, sizeof(rec), &err),
			 -EINVAL);
	assert_int_equal(vi_measure_record(14, d, 2, "e", "short", 1, rec, sizeof(rec), &err),
			 -EINVAL);
}

/* No TPM device: -ENODEV. */
static void test_measure_without_tpm(void **state)
{
	const struct vi_measure_opts o = {
		.pcr = 14, .dev = "/nonexistent/tpmrm0",
		.log_path = NULL, .boot_id_path = "/proc/sys/kernel/random/boot_id",
	};
	struct vi_measure_result res;
	struct vi_error err = { "" };

	(void)state;
	assert_int_equal(vi_measure(&o, "dm-verity:root:00:none", &res, &err), -ENODEV);
	assert_non_null(strstr(err.msg, "no TPM (/nonexistent/tpmrm0)"));
}

/* systemd's docs/TPM2_PCR_MEASUREMENTS.md, NvPCR `verity`: "the string `verity:`, followed by
 * the Verity device name, followed by `:`, followed by a hexadecimal formatted string indicating
 * the root hash of the Verity image, followed by `:`, followed by a comma separated list of
 * PKCS#7 signature key's serial (formatted in hexadecimal), `/`, and key issuer (formatted in
 * Base64)". */
static void test_verity_word_is_systemds(void **state)
{
	struct vi_target t = { .enabled = true, .name = "root", .root_hash_len = 32 };
	char w[VI_MEASURE_WORD_MAX];
	struct vi_error err = { "" };

	(void)state;
	for (unsigned i = 0; i < 32; i++)
		t.root_hash[i] = (uint8_t)(0xa0 + i);
	assert_int_equal(vi_measure_verity_word(&t, "", w, sizeof(w), &err), 0);
	assert_string_equal(w, "verity:root:"
			    "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf:");
	assert_int_equal(vi_measure_verity_word(&t, "020101/MA8xDTALBgNVBAMMBHRlc3Q=", w,
						sizeof(w), &err), 0);
	assert_string_equal(w, "verity:root:"
			    "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf:"
			    "020101/MA8xDTALBgNVBAMMBHRlc3Q=");
	snprintf(t.name, sizeof(t.name), "usr-verity.b");
	t.root_hash_len = 4;
	assert_int_equal(vi_measure_verity_word(&t, "", w, sizeof(w), &err), 0);
	assert_string_equal(w, "verity:usr-verity.b:a0a1a2a3:");
	/* refusals: too long, no root hash, a name systemd would escape, a quote in signers */
	assert_int_equal(vi_measure_verity_word(&t, "", w, 29, &err), -ENOBUFS);
	snprintf(t.name, sizeof(t.name), "a:b");
	assert_int_equal(vi_measure_verity_word(&t, "", w, sizeof(w), &err), -EINVAL);
	snprintf(t.name, sizeof(t.name), "root");
	assert_int_equal(vi_measure_verity_word(&t, "a\"b", w, sizeof(w), &err), -EINVAL);
	t.root_hash_len = 0;
	assert_int_equal(vi_measure_verity_word(&t, "", w, sizeof(w), &err), -EINVAL);
}

/* The NvPCR record and the anchor's event, byte for byte as systemd 262 wrote them:
 * `systemd-pcrextend --nvpcr=verity --event-type=dm-verity verity:usr:0123abcd:` (the digest is
 * SHA-256 of the word: what NV_Extend got) and systemd-tpm2-setup's PCR 9 event for its verity
 * NvPCR, whose TPM name tpm2_nvreadpublic showed. */
static void test_nvpcr_record_is_systemds(void **state)
{
	static const char sd_record[] =
		"\x1e{\"nv_index\":30474754,\"digests\":[{\"hashAlg\":\"sha256\",\"digest\":"
		"\"27ec2aef5e09df222bd3157e6ddd6276e89d04c94e2b93ded747c1b4044398f5\"}],"
		"\"content_type\":\"systemd\",\"content\":{\"nvIndexName\":\"verity\","
		"\"string\":\"verity:usr:0123abcd:\",\"bootId\":\"e1ad6dbcc24d427dbaae86706487dc91\","
		"\"timestamp\":418494726,\"eventType\":\"dm-verity\"}}\n";
	static const uint8_t sd_name[] = {
		0x00, 0x0b, 0x08, 0x44, 0x30, 0x4b, 0x17, 0xce, 0x93, 0x53, 0x37, 0x74, 0x49, 0xc5,
		0x5c, 0x88, 0xcd, 0x24, 0xe6, 0x54, 0xa8, 0x25, 0x4c, 0xec, 0xd6, 0x51, 0x56, 0x52,
		0x1a, 0x47, 0x12, 0xef, 0x81, 0x29 };
	const char *word = "verity:usr:0123abcd:";
	struct vi_tpm_digest d = { .alg = VI_TPM_ALG_SHA256 };
	struct vi_digest_ctx *c = NULL;
	char rec[VI_MEASURE_RECORD_MAX], ev[128];
	struct vi_error err = { "" };
	int n;

	(void)state;
	assert_int_equal(vi_digest_openssl_ops.new_ctx("sha256", &c), 0);
	assert_int_equal(vi_digest_openssl_ops.update(c, word, strlen(word)), 0);
	assert_int_equal(vi_digest_openssl_ops.final(c, d.value, 32), 0);
	vi_digest_openssl_ops.free(c);
	n = vi_measure_record_of(&(const struct vi_measure_rec){
			.nv_name = "verity", .index = VI_TPM_NVPCR_VERITY, .d = &d, .n = 1,
			.event = word, .event_type = "dm-verity",
			.boot_id = "e1ad6dbcc24d427dbaae86706487dc91", .timestamp_us = 418494726 },
		rec, sizeof(rec), &err);
	assert_int_equal(n, (int)strlen(sd_record));
	assert_string_equal(rec, sd_record);
	assert_int_equal(vi_measure_nvpcr_init_event("verity", VI_TPM_NVPCR_VERITY, sd_name,
						     sizeof(sd_name), ev, sizeof(ev), &err), 0);
	assert_string_equal(ev, "nvpcr-init:verity:0x1d10202:"
			    "000b0844304b17ce9353377449c55c88cd24e654a8254cecd65156521a4712ef8129");
	assert_int_equal(vi_measure_nvpcr_init_event("verity", VI_TPM_NVPCR_VERITY, sd_name,
						     sizeof(sd_name), ev, 40, &err), -ENOBUFS);
	assert_int_equal(vi_measure_nvpcr_init_event("verity", VI_TPM_NVPCR_VERITY, sd_name, 0,
						     ev, sizeof(ev), &err), -EINVAL);
	/* the PCR record of the anchor: eventType nvpcr-init, no nvIndexName */
	n = vi_measure_record_of(&(const struct vi_measure_rec){
			.index = 9, .d = &d, .n = 1, .event = ev, .event_type = "nvpcr-init",
			.boot_id = "e1ad6dbcc24d427dbaae86706487dc91", .timestamp_us = 1 },
		rec, sizeof(rec), &err);
	assert_true(n > 0);
	assert_non_null(strstr(rec, "\x1e{\"pcr\":9,\"digests\":[{\"hashAlg\":\"sha256\""));
	assert_non_null(strstr(rec, "\"content\":{\"string\":\"nvpcr-init:verity:0x1d10202:000b"));
	assert_non_null(strstr(rec, "\"timestamp\":1,\"eventType\":\"nvpcr-init\"}}\n"));
}

/* No TPM device: -ENODEV, nothing written. */
static void test_nvpcr_without_tpm(void **state)
{
	char top[] = "/tmp/vi-nvpcr-XXXXXX", auth[128];
	struct vi_measure_opts o = {
		.dev = "/nonexistent/tpmrm0", .boot_id_path = "/proc/sys/kernel/random/boot_id",
		.ops = &vi_digest_openssl_ops,
	};
	struct vi_measure_nvpcr_result res;
	struct vi_error err = { "" };

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(auth, sizeof(auth), "%s/nvpcr/verity.auth", top);
	o.nvpcr_auth_path = auth;
	assert_int_equal(vi_measure_nvpcr(&o, "verity:root:00:", &res, &err), -ENODEV);
	assert_non_null(strstr(err.msg, "no TPM (/nonexistent/tpmrm0)"));
	assert_int_equal(access(auth, F_OK), -1);
	rmdir(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transmit_reports_the_response_code),
		cmocka_unit_test(test_event_and_signer),
		cmocka_unit_test(test_event_per_layout),
		cmocka_unit_test(test_event_refusals),
		cmocka_unit_test(test_event_longest),
		cmocka_unit_test(test_record_is_systemds_format),
		cmocka_unit_test(test_measure_without_tpm),
		cmocka_unit_test(test_verity_word_is_systemds),
		cmocka_unit_test(test_nvpcr_record_is_systemds),
		cmocka_unit_test(test_nvpcr_without_tpm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
