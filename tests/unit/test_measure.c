// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/boot/tpm.c and lib/boot/measure.c: the PCR_Event bytes, the response check, the digests
 * the TPM answers, the event string and systemd's log record. The extend itself is tested against a
 * real (emulated) TPM in tests/vm/tpm_measure_test.sh. */
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

#include "measure.h"
#include "tpm.h"

static void test_event_command_bytes(void **state)
{
	static const uint8_t head[] = {
		0x80, 0x02, 0, 0, 0, 32,                /* TPM_ST_SESSIONS, size */
		0x00, 0x00, 0x01, 0x3c,                 /* TPM_CC_PCR_Event */
		0x00, 0x00, 0x00, 0x0e,                 /* PCR 14 */
		0x00, 0x00, 0x00, 0x09,                 /* authorization size */
		0x40, 0x00, 0x00, 0x09, 0, 0, 0, 0, 0,  /* TPM_RS_PW, no nonce, no password */
		0x00, 0x03, 'a', 'b', 'c',              /* TPM2B_EVENT */
	};
	static char big[VI_TPM_EVENT_MAX + 1];
	uint8_t buf[VI_TPM_CMD_MAX];
	struct vi_error err = { "" };

	(void)state;
	assert_int_equal(vi_tpm_event_command(14, "abc", 3, buf, sizeof(buf), &err), 32);
	assert_memory_equal(buf, head, sizeof(head));
	memset(big, 'x', sizeof(big));
	assert_int_equal(vi_tpm_event_command(14, big, VI_TPM_EVENT_MAX, buf, sizeof(buf), &err),
			 (int)sizeof(buf));
	/* refusals */
	assert_int_equal(vi_tpm_event_command(14, big, sizeof(big), buf, sizeof(buf), &err),
			 -ENOBUFS);
	assert_int_equal(vi_tpm_event_command(24, "abc", 3, buf, sizeof(buf), &err), -EINVAL);
	assert_int_equal(vi_tpm_event_command(14, "", 0, buf, sizeof(buf), &err), -EINVAL);
	assert_int_equal(vi_tpm_event_command(14, "abc", 3, buf, 31, &err), -ENOBUFS);
}

/* A PCR_Event answer: header, parameter size, the digest list, the password session's answer. */
static size_t event_response(uint8_t *p, const uint16_t *algs, size_t n, uint32_t extra)
{
	size_t len = 14 + 4, params;

	memcpy(p, (const uint8_t[]){ 0x80, 0x02, 0, 0, 0, 0, 0, 0, 0, 0 }, 10);
	p[14] = p[15] = p[16] = 0;
	p[17] = (uint8_t)n;
	for (size_t i = 0; i < n; i++) {
		p[len] = (uint8_t)(algs[i] >> 8);
		p[len + 1] = (uint8_t)algs[i];
		memset(p + len + 2, (int)(0x10 + i), vi_tpm_alg_size(algs[i]) ?
		       vi_tpm_alg_size(algs[i]) : 32);
		len += 2 + (vi_tpm_alg_size(algs[i]) ? vi_tpm_alg_size(algs[i]) : 32);
	}
	params = len - 14 + extra;
	p[10] = 0;
	p[11] = 0;
	p[12] = (uint8_t)(params >> 8);
	p[13] = (uint8_t)params;
	memset(p + len, 0, extra);
	len += extra;
	memcpy(p + len, (const uint8_t[]){ 0, 0, 1, 0, 0 }, 5);
	len += 5;
	p[4] = (uint8_t)(len >> 8);
	p[5] = (uint8_t)len;
	return len;
}

static void test_event_response_digests(void **state)
{
	static const uint16_t four[] = { VI_TPM_ALG_SHA1, VI_TPM_ALG_SHA256, VI_TPM_ALG_SHA384,
					 VI_TPM_ALG_SHA512 };
	static const uint16_t twice[] = { VI_TPM_ALG_SHA256, VI_TPM_ALG_SHA256 };
	static const uint16_t unknown[] = { VI_TPM_ALG_SHA256, 0x0099 };
	static const uint16_t sm3[] = { VI_TPM_ALG_SM3_256 };
	struct vi_tpm_digest d[VI_TPM_MAX_BANKS];
	struct vi_error err = { "" };
	uint8_t rsp[1024];
	size_t len, n = 9;

	(void)state;
	len = event_response(rsp, four, 4, 0);
	assert_int_equal(vi_tpm_event_digests(rsp, len, d, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_int_equal(d[0].alg, VI_TPM_ALG_SHA1);
	assert_int_equal(d[3].alg, VI_TPM_ALG_SHA512);
	assert_int_equal(d[1].value[31], 0x11);
	assert_int_equal(d[3].value[63], 0x13);
	/* an SM3 bank is the TPM's to hash: it is logged like the others */
	len = event_response(rsp, sm3, 1, 0);
	assert_int_equal(vi_tpm_event_digests(rsp, len, d, &n, &err), 0);
	assert_string_equal(vi_tpm_alg_name(d[0].alg), "sm3_256");
	/* malformed: one algorithm twice, one of unknown size, bytes after the list, the list cut
	 * short, no digest at all, a parameter size past the session's answer */
	len = event_response(rsp, twice, 2, 0);
	assert_int_equal(vi_tpm_event_digests(rsp, len, d, &n, &err), -EPROTO);
	assert_int_equal(n, 0);
	len = event_response(rsp, unknown, 2, 0);
	assert_int_equal(vi_tpm_event_digests(rsp, len, d, &n, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "0x0099"));
	len = event_response(rsp, four, 2, 1);
	assert_int_equal(vi_tpm_event_digests(rsp, len, d, &n, &err), -EPROTO);
	len = event_response(rsp, four, 2, 0);
	rsp[17] = 3;
	assert_int_equal(vi_tpm_event_digests(rsp, len, d, &n, &err), -EPROTO);
	len = event_response(rsp, four, 0, 0);
	assert_int_equal(vi_tpm_event_digests(rsp, len, d, &n, &err), -EPROTO);
	len = event_response(rsp, four, 1, 0);
	rsp[13] += 3;
	assert_int_equal(vi_tpm_event_digests(rsp, len, d, &n, &err), -EPROTO);
	/* an error code is the response check's */
	len = event_response(rsp, four, 1, 0);
	rsp[9] = 0x22;
	assert_int_equal(vi_tpm_event_digests(rsp, len, d, &n, &err), -EIO);
}

static void test_response_check(void **state)
{
	uint8_t ok[] = { 0x80, 0x02, 0, 0, 0, 19, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0 };
	uint8_t bad[] = { 0x80, 0x01, 0, 0, 0, 10, 0, 0, 0x09, 0x22 };
	struct vi_error err = { "" };
	uint32_t rc = 7;

	(void)state;
	assert_int_equal(vi_tpm_response_check(ok, sizeof(ok), &rc, &err), 0);
	assert_int_equal(rc, 0);
	assert_int_equal(vi_tpm_response_check(bad, sizeof(bad), &rc, &err), -EIO);
	assert_int_equal(rc, 0x922);
	assert_non_null(strstr(err.msg, "0x00000922"));
	/* success must carry the session's answer: a bare 10-byte "success", or one tagged as
	 * without sessions, is not an answer to this command */
	{
		uint8_t bare[] = { 0x80, 0x02, 0, 0, 0, 10, 0, 0, 0, 0 };
		uint8_t nosess[] = { 0x80, 0x01, 0, 0, 0, 19, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0 };

		assert_int_equal(vi_tpm_response_check(bare, sizeof(bare), &rc, &err), -EPROTO);
		assert_int_equal(vi_tpm_response_check(nosess, sizeof(nosess), &rc, &err), -EPROTO);
	}
	/* malformed: short, size field not the length, unknown tag */
	assert_int_equal(vi_tpm_response_check(ok, 9, &rc, &err), -EPROTO);
	assert_int_equal(vi_tpm_response_check(ok, sizeof(ok) - 1, &rc, &err), -EPROTO);
	ok[1] = 0x03;
	assert_int_equal(vi_tpm_response_check(ok, sizeof(ok), &rc, &err), -EPROTO);
}

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_command_bytes),
		cmocka_unit_test(test_response_check),
		cmocka_unit_test(test_event_response_digests),
		cmocka_unit_test(test_transmit_reports_the_response_code),
		cmocka_unit_test(test_event_and_signer),
		cmocka_unit_test(test_event_per_layout),
		cmocka_unit_test(test_event_refusals),
		cmocka_unit_test(test_event_longest),
		cmocka_unit_test(test_record_is_systemds_format),
		cmocka_unit_test(test_measure_without_tpm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
