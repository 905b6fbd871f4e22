// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/boot/tpm.c and lib/boot/measure.c: the PCR_Extend bytes, the response check, the banks
 * from sysfs, the event string and systemd's log record. The extend itself is tested against a
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

#include "digest.h"
#include "measure.h"
#include "tpm.h"

static void test_extend_command_bytes(void **state)
{
	struct vi_tpm_digest d[2] = { { .alg = VI_TPM_ALG_SHA1 }, { .alg = VI_TPM_ALG_SHA256 } };
	static const uint8_t head[] = {
		0x80, 0x02, 0, 0, 0, 87,                /* TPM_ST_SESSIONS, size */
		0x00, 0x00, 0x01, 0x82,                 /* TPM_CC_PCR_Extend */
		0x00, 0x00, 0x00, 0x0e,                 /* PCR 14 */
		0x00, 0x00, 0x00, 0x09,                 /* authorization size */
		0x40, 0x00, 0x00, 0x09, 0, 0, 0, 0, 0,  /* TPM_RS_PW, no nonce, no password */
		0x00, 0x00, 0x00, 0x02,                 /* two digests */
		0x00, 0x04,                             /* sha1 */
	};
	uint8_t buf[VI_TPM_CMD_MAX];
	struct vi_error err = { "" };

	(void)state;
	memset(d[0].value, 0x11, 20);
	memset(d[1].value, 0x22, 32);
	/* one bank: the 65-byte command of the TPM 2.0 specification's example */
	assert_int_equal(vi_tpm_extend_command(14, &d[1], 1, buf, sizeof(buf), &err), 65);
	assert_int_equal(vi_tpm_extend_command(14, d, 2, buf, sizeof(buf), &err), 87);
	assert_memory_equal(buf, head, sizeof(head));
	assert_int_equal(buf[sizeof(head) + 20], 0x00);
	assert_int_equal(buf[sizeof(head) + 21], 0x0b);
	assert_int_equal(buf[sizeof(head) + 22], 0x22);
	/* refusals */
	assert_int_equal(vi_tpm_extend_command(24, d, 2, buf, sizeof(buf), &err), -EINVAL);
	assert_int_equal(vi_tpm_extend_command(14, d, 0, buf, sizeof(buf), &err), -EINVAL);
	assert_int_equal(vi_tpm_extend_command(14, d, 2, buf, 86, &err), -ENOBUFS);
	d[0].alg = VI_TPM_ALG_SHA256;
	assert_int_equal(vi_tpm_extend_command(14, d, 2, buf, sizeof(buf), &err), -EINVAL);
	assert_non_null(strstr(err.msg, "two sha256"));
	d[0].alg = 0x0012;   /* SM3: not a bank this code extends */
	assert_int_equal(vi_tpm_extend_command(14, d, 2, buf, sizeof(buf), &err), -EINVAL);
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

static void test_banks_from_sysfs(void **state)
{
	char top[] = "/tmp/vi-tpm-XXXXXX", p[128];
	uint16_t algs[VI_TPM_MAX_BANKS];
	struct vi_error err = { "" };
	size_t n = 9;

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(p, sizeof(p), "%s/none", top);
	assert_int_equal(vi_tpm_banks(p, algs, &n, &err), -ENODEV);
	/* a TPM 1.2 lists no bank */
	assert_int_equal(vi_tpm_banks(top, algs, &n, &err), -ENOENT);
	snprintf(p, sizeof(p), "%s/pcr-sha256", top);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/pcr-sha1", top);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/pcr-sm3_256", top);
	assert_int_equal(mkdir(p, 0755), 0);
	/* a bank this code cannot hash would stay open to anyone: refused */
	assert_int_equal(vi_tpm_banks(top, algs, &n, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "sm3_256 bank"));
	snprintf(p, sizeof(p), "%s/pcr-sm3_256", top);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(vi_tpm_banks(top, algs, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(algs[0], VI_TPM_ALG_SHA1);
	assert_int_equal(algs[1], VI_TPM_ALG_SHA256);
	snprintf(p, sizeof(p), "rm -rf '%s'", top);
	assert_int_equal(system(p), 0);
}

/* A FIFO stands in for the device: the command comes back as the "response", whose code field
 * is TPM_CC_PCR_Extend, so the whole write-poll-read path ends in the refusal path. */
static void test_transmit_reports_the_response_code(void **state)
{
	char top[] = "/tmp/vi-tpm-XXXXXX", p[128];
	struct vi_tpm_digest d = { .alg = VI_TPM_ALG_SHA256 };
	uint8_t cmd[VI_TPM_CMD_MAX];
	struct vi_error err = { "" };
	int len;

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(p, sizeof(p), "%s/tpmrm0", top);
	assert_int_equal(vi_tpm_transmit(p, cmd, 10, &err), -ENODEV);
	assert_int_equal(mkfifo(p, 0600), 0);
	len = vi_tpm_extend_command(14, &d, 1, cmd, sizeof(cmd), &err);
	assert_int_equal(len, 65);
	assert_int_equal(vi_tpm_transmit(p, cmd, (size_t)len, &err), -EIO);
	assert_non_null(strstr(err.msg, "response code 0x00000182"));
	unlink(p);
	rmdir(top);
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
	assert_int_equal(vi_measure_event(&t, signer, ev, sizeof(ev), &err), 0);
	assert_string_equal(ev, "dm-verity:root:deadbeef:pkcs7:verity-init:root");
	/* a name with ':' would make the string ambiguous; quotes would break the log record */
	snprintf(t.name, sizeof(t.name), "a:b");
	assert_int_equal(vi_measure_event(&t, signer, ev, sizeof(ev), &err), -EINVAL);
	snprintf(t.name, sizeof(t.name), "root");
	assert_int_equal(vi_measure_event(&t, "x\"y", ev, sizeof(ev), &err), -EINVAL);
	t.root_hash_len = 0;
	assert_int_equal(vi_measure_event(&t, signer, ev, sizeof(ev), &err), -EINVAL);
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

/* Up to the device: banks from sysfs, digests from the event. No TPM: -ENODEV. */
static void test_measure_without_tpm(void **state)
{
	const struct vi_measure_opts o = {
		.pcr = 14, .sysfs_dir = "/nonexistent/tpm0", .dev = "/nonexistent/tpmrm0",
		.log_path = NULL, .boot_id_path = "/proc/sys/kernel/random/boot_id",
		.ops = &vi_digest_openssl_ops,
	};
	struct vi_measure_result res;
	struct vi_error err = { "" };

	(void)state;
	assert_int_equal(vi_measure(&o, "dm-verity:root:00:none", &res, &err), -ENODEV);
	assert_non_null(strstr(err.msg, "no TPM"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extend_command_bytes),
		cmocka_unit_test(test_response_check),
		cmocka_unit_test(test_banks_from_sysfs),
		cmocka_unit_test(test_transmit_reports_the_response_code),
		cmocka_unit_test(test_event_and_signer),
		cmocka_unit_test(test_record_is_systemds_format),
		cmocka_unit_test(test_measure_without_tpm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
