// SPDX-License-Identifier: LGPL-2.1-or-later
/* minisign parsing and verification against vectors made with the real tool (minisign 0.11,
 * Debian bookworm): the keys and signed manifest of manifest_vectors.h and, hard-coded here,
 *   minisign -S -l -s k.key -m manifest -t 'legacy' -x manifest.legacy.minisig
 *   printf 'pw\npw\n' | minisign -G -p e.pub -s e.key     (password-protected key)
 * The keys are test keys, published here on purpose. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <sodium.h>

#include "manifest_vectors.h"
#include "minisign.h"

static const char SEC[] =
	"untrusted comment: minisign encrypted secret key\n"
	"RWQAAEIyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAApOSmieopn7ZA0gwvkbLv"
	"OE5t9lagbO8ctntXnl1hD335caMB55DByZKcZppgAyOWpZOSxIa/ygKDAvcD07fdwkL8GzeQee7oAAAAAAAAAAAAAAAA"
	"AAAAAAAAAAAAAAAAAAAAAAAAAAA=\n";

static const char SEC_ENCRYPTED[] =
	"untrusted comment: minisign encrypted secret key\n"
	"RWRTY0IyVUvkBLMm4YzHLQaY9Ut/yYI2u04ZspNkKcYW4WuPXn8AAAACAAAAAAAAAEAAAAAADtawJHxuTnlqCjGJZjdp"
	"qdX5CwH5DxGk1wpXxJlZDmJX4oFujpCZi2XNO7koafoDHZYEN5nhdvptuCh8R78El9GKT9J93+CBEoDB77GfzyQQhiFh"
	"Vc7PmlA62ITYEiNPODGPMilUT8E=\n";

static const char SIG_LEGACY[] =
	"untrusted comment: signature from minisign secret key\n"
	"RWSk5KaJ6imftq7/JRNUYL3Js1Y6CadU3odWRGyIbVqsMJ6zFZtt5MDiV6C2ZAOlob6Z9W5l+zGX0a0dbbT36SgkufRCreL3swc=\n"
	"trusted comment: legacy\n"
	"MCbKddnzfbM8vm8fukT0sP0+0++PkVsdnS7aeq/KzB7UnRBuS6Xb2fHsZHiZ31KU58hC18gY/lK3jbMKxfQNCw==\n";

#define S(x) (x), (sizeof(x) - 1)
#define MSGB ((const uint8_t *)VEC_MANIFEST), (sizeof(VEC_MANIFEST) - 1)

static void test_pubkey(void **state)
{
	struct vi_minisign_pubkey pk;
	struct vi_error err = { "" };
	char id[17];

	(void)state;
	assert_int_equal(vi_minisign_pubkey_parse(S(VEC_PUB), &pk, &err), 0);
	vi_minisign_key_id_format(pk.key_id, id);
	assert_string_equal(id, "B69F29EA89A6E4A4");
	/* leading zeros are dropped, as minisign's own "%" PRIX64 */
	{
		const uint8_t kid[8] = { 0x1e, 0x16, 0xc2, 0x8c, 0x13, 0xed, 0x47, 0x0c };
		const uint8_t zero[8] = { 0 };

		vi_minisign_key_id_format(kid, id);
		assert_string_equal(id, "C47ED138CC2161E");
		vi_minisign_key_id_format(zero, id);
		assert_string_equal(id, "0");
	}
	/* the same without the final newline, and with CRLF line ends */
	assert_int_equal(vi_minisign_pubkey_parse(VEC_PUB, sizeof(VEC_PUB) - 2, &pk, &err), 0);
	assert_int_equal(vi_minisign_pubkey_parse(S("untrusted comment: x\r\n"
		"RWSk5KaJ6imftpKcZppgAyOWpZOSxIa/ygKDAvcD07fdwkL8GzeQee7o\r\n"), &pk, &err), 0);
}

static void test_pubkey_rejects(void **state)
{
	struct vi_minisign_pubkey pk;
	struct vi_error err = { "" };
	char buf[256];

	(void)state;
	/* no comment line */
	assert_int_equal(vi_minisign_pubkey_parse(S("RWSk5KaJ6imftpKcZppgAyOWpZOSxIa/ygKDAvcD07fdwkL8GzeQee7o\n"),
					       &pk, &err), -EINVAL);
	/* a trailing line */
	snprintf(buf, sizeof(buf), "%sextra\n", VEC_PUB);
	assert_int_equal(vi_minisign_pubkey_parse(buf, strlen(buf), &pk, &err), -EINVAL);
	assert_string_equal(err.msg, "unexpected data after the last line");
	/* a base64 character changed into one outside the alphabet */
	memcpy(buf, VEC_PUB, sizeof(VEC_PUB));
	buf[sizeof(VEC_PUB) - 10] = '*';
	assert_int_equal(vi_minisign_pubkey_parse(buf, sizeof(VEC_PUB) - 1, &pk, &err), -EINVAL);
	/* truncated key (one base64 quantum less) */
	assert_int_equal(vi_minisign_pubkey_parse(S("untrusted comment: x\n"
		"RWSk5KaJ6imftpKcZppgAyOWpZOSxIa/ygKDAvcD07fdwkL8GzeQ\n"), &pk, &err), -EINVAL);
	/* a signature is not a public key */
	assert_int_equal(vi_minisign_pubkey_parse(S(VEC_SIG), &pk, &err), -EINVAL);
	/* empty, and a NUL inside */
	assert_int_equal(vi_minisign_pubkey_parse("", 0, &pk, &err), -EINVAL);
	memcpy(buf, VEC_PUB, sizeof(VEC_PUB));
	buf[25] = '\0';
	assert_int_equal(vi_minisign_pubkey_parse(buf, sizeof(VEC_PUB) - 1, &pk, &err), -EINVAL);
}

static void test_verify_tool_signature(void **state)
{
	struct vi_minisign_pubkey pk;
	struct vi_minisign_sig sig;
	struct vi_error err = { "" };

	(void)state;
	assert_int_equal(vi_minisign_pubkey_parse(S(VEC_PUB), &pk, &err), 0);
	assert_int_equal(vi_minisign_sig_parse(S(VEC_SIG), &sig, &err), 0);
	assert_true(sig.prehashed);
	assert_string_equal(sig.trusted_comment, "verity-init test vector");
	assert_int_equal(vi_minisign_verify(&pk, &sig, MSGB, false, &err), 0);
}

static void test_verify_tampered(void **state)
{
	struct vi_minisign_pubkey pk;
	struct vi_minisign_sig sig;
	struct vi_error err = { "" };
	char msg[sizeof(VEC_MANIFEST)];
	char sigbuf[sizeof(VEC_SIG)];
	char *p;

	(void)state;
	assert_int_equal(vi_minisign_pubkey_parse(S(VEC_PUB), &pk, &err), 0);
	assert_int_equal(vi_minisign_sig_parse(S(VEC_SIG), &sig, &err), 0);
	/* "version 7" -> "version 8": the rollback an attacker would want the other way */
	memcpy(msg, VEC_MANIFEST, sizeof(VEC_MANIFEST));
	p = strstr(msg, "version 7");
	assert_non_null(p);
	p[8] = '8';
	assert_int_equal(vi_minisign_verify(&pk, &sig, (const uint8_t *)msg,
					 sizeof(VEC_MANIFEST) - 1, false, &err), -EBADMSG);
	assert_string_equal(err.msg, "signature does not verify");
	/* one byte less */
	assert_int_equal(vi_minisign_verify(&pk, &sig, (const uint8_t *)VEC_MANIFEST,
					 sizeof(VEC_MANIFEST) - 2, false, &err), -EBADMSG);
	/* trusted comment edited: the message signature holds, the global one does not */
	memcpy(sigbuf, VEC_SIG, sizeof(VEC_SIG));
	p = strstr(sigbuf, "test vector");
	assert_non_null(p);
	p[0] = 'T';
	assert_int_equal(vi_minisign_sig_parse(sigbuf, sizeof(VEC_SIG) - 1, &sig, &err), 0);
	assert_int_equal(vi_minisign_verify(&pk, &sig, MSGB, false, &err), -EBADMSG);
	assert_string_equal(err.msg, "trusted comment signature does not verify");
	/* untrusted comment edited: still valid (it is not signed, by design) */
	memcpy(sigbuf, VEC_SIG, sizeof(VEC_SIG));
	p = strstr(sigbuf, "from minisign");
	p[0] = 'F';
	assert_int_equal(vi_minisign_sig_parse(sigbuf, sizeof(VEC_SIG) - 1, &sig, &err), 0);
	assert_int_equal(vi_minisign_verify(&pk, &sig, MSGB, false, &err), 0);
}

static void test_verify_other_key(void **state)
{
	struct vi_minisign_pubkey pk, pk2;
	struct vi_minisign_sig sig;
	struct vi_error err = { "" };

	(void)state;
	assert_int_equal(vi_minisign_pubkey_parse(S(VEC_PUB), &pk, &err), 0);
	assert_int_equal(vi_minisign_pubkey_parse(S(VEC_PUB2), &pk2, &err), 0);
	assert_int_equal(vi_minisign_sig_parse(S(VEC_SIG_K2), &sig, &err), 0);
	assert_int_equal(vi_minisign_verify(&pk, &sig, MSGB, false, &err), -ENOKEY);
	assert_string_equal(err.msg, "signature made by key 4D180D24B34BE6B4, not by key B69F29EA89A6E4A4");
	assert_int_equal(vi_minisign_verify(&pk2, &sig, MSGB, false, &err), 0);
	/* a key id forged to match, with the other key's signature: the crypto catches it */
	memcpy(sig.key_id, pk.key_id, sizeof(sig.key_id));
	assert_int_equal(vi_minisign_verify(&pk, &sig, MSGB, false, &err), -EBADMSG);
}

static void test_legacy(void **state)
{
	struct vi_minisign_pubkey pk;
	struct vi_minisign_sig sig;
	struct vi_error err = { "" };

	(void)state;
	assert_int_equal(vi_minisign_pubkey_parse(S(VEC_PUB), &pk, &err), 0);
	assert_int_equal(vi_minisign_sig_parse(S(SIG_LEGACY), &sig, &err), 0);
	assert_false(sig.prehashed);
	assert_int_equal(vi_minisign_verify(&pk, &sig, MSGB, false, &err), -EPROTO);
	assert_int_equal(vi_minisign_verify(&pk, &sig, MSGB, true, &err), 0);
	assert_int_equal(vi_minisign_verify(&pk, &sig, (const uint8_t *)VEC_MANIFEST,
					 sizeof(VEC_MANIFEST) - 2, true, &err), -EBADMSG);
}

static void test_sig_rejects(void **state)
{
	struct vi_minisign_sig sig;
	struct vi_error err = { "" };
	char buf[MINISIGN_MAX_FILE + 16];
	char *p;

	(void)state;
	/* missing global signature line */
	assert_int_equal(vi_minisign_sig_parse(VEC_SIG, strlen(VEC_SIG) - 89, &sig, &err), -EINVAL);
	/* unknown algorithm: "RUS" decodes to "E" "D"; make it "EE" ("RUU") */
	memcpy(buf, VEC_SIG, sizeof(VEC_SIG));
	p = strstr(buf, "\nRUS") + 1;
	p[2] = 'U';
	assert_int_equal(vi_minisign_sig_parse(buf, sizeof(VEC_SIG) - 1, &sig, &err), -EINVAL);
	/* no "trusted comment: " prefix */
	memcpy(buf, VEC_SIG, sizeof(VEC_SIG));
	p = strstr(buf, "trusted comment: verity");
	p[0] = 'T';
	assert_int_equal(vi_minisign_sig_parse(buf, sizeof(VEC_SIG) - 1, &sig, &err), -EINVAL);
	/* oversized file */
	memset(buf, 'A', sizeof(buf));
	assert_int_equal(vi_minisign_sig_parse(buf, sizeof(buf), &sig, &err), -EINVAL);
	/* over-long trusted comment */
	{
		size_t n = 0;

		n += (size_t)snprintf(buf, sizeof(buf), "untrusted comment: x\n"
			"RUSk5KaJ6imftiZvaBENSuLXCvO5w5/YNpsSBWAoXvoZ408QuNotdU8RP8byNtCh89kooFYTVX2IbyKK1tCD+jHo3pWOySb/XA0=\n"
			"trusted comment: ");
		memset(buf + n, 'c', MINISIGN_COMMENT_MAX + 1);
		n += MINISIGN_COMMENT_MAX + 1;
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\n"
			"dmte8R7/Tlme8/pTp0AhzpQYtAK5bPj2xcrMPGwx8Dqhu/YLKuyY5Irm/OrllYFOZ5HqAJB17XKEfguJtTPsCg==\n");
		assert_int_equal(vi_minisign_sig_parse(buf, n, &sig, &err), -EINVAL);
	}
}

static void test_seckey_and_sign(void **state)
{
	struct vi_minisign_seckey sk;
	struct vi_minisign_pubkey pk;
	struct vi_minisign_sig sig;
	struct vi_error err = { "" };
	char out[1024];
	size_t n = 0;

	(void)state;
	assert_int_equal(vi_minisign_seckey_parse(S(SEC), &sk, &err), 0);
	/* Ed25519 is deterministic: with the same trusted comment our signature file is byte for
	 * byte the one minisign wrote. */
	assert_int_equal(vi_minisign_sign(&sk, MSGB, "verity-init test vector", NULL, out, sizeof(out),
				       &n, &err), 0);
	assert_int_equal(n, sizeof(VEC_SIG) - 1);
	assert_string_equal(out, VEC_SIG);
	/* and it verifies with our verifier, with another trusted comment too */
	assert_int_equal(vi_minisign_sign(&sk, MSGB, "timestamp:1 file:manifest", "mine", out,
				       sizeof(out), &n, &err), 0);
	assert_int_equal(vi_minisign_pubkey_parse(S(VEC_PUB), &pk, &err), 0);
	assert_int_equal(vi_minisign_sig_parse(out, n, &sig, &err), 0);
	assert_int_equal(vi_minisign_verify(&pk, &sig, MSGB, false, &err), 0);
	/* the public key file we derive is minisign's */
	assert_int_equal(vi_minisign_pubkey_format(&sk, out, sizeof(out), &err), 0);
	assert_string_equal(out, VEC_PUB);
	/* too small an output buffer */
	assert_int_equal(vi_minisign_sign(&sk, MSGB, "x", NULL, out, 100, &n, &err), -ENOBUFS);
	/* a newline in a comment would forge a line */
	assert_int_equal(vi_minisign_sign(&sk, MSGB, "a\nb", NULL, out, sizeof(out), &n, &err), -EINVAL);
}

/* A signer outside the library (a token, a helper program), modelled by libsodium with the test
 * key; calls counts the signatures asked for, fail_at makes that one fail. */
struct ext_signer {
	const struct vi_minisign_seckey *sk;
	int calls, fail_at;
};

static int ext_sign(void *ctx, const uint8_t *msg, size_t len, uint8_t sig[MINISIGN_SIG_LEN])
{
	struct ext_signer *e = ctx;

	if (++e->calls == e->fail_at)
		return -EIO;
	crypto_sign_ed25519_detached(sig, NULL, msg, len, e->sk->sk);
	return 0;
}

static void test_sign_with_external_signer(void **state)
{
	struct vi_minisign_seckey sk;
	struct vi_error err = { "" };
	struct ext_signer e = { 0 };
	char out[1024];
	size_t n = 0;

	(void)state;
	assert_int_equal(vi_minisign_seckey_parse(S(SEC), &sk, &err), 0);
	e.sk = &sk;
	/* two signatures (the prehash, then signature and trusted comment), and the file is the
	 * one minisign wrote with that key */
	assert_int_equal(vi_minisign_sign_with(sk.key_id, ext_sign, &e, MSGB,
					       "verity-init test vector", NULL, out, sizeof(out),
					       &n, &err), 0);
	assert_int_equal(e.calls, 2);
	assert_string_equal(out, VEC_SIG);
	/* a signer that fails, on either signature: an error, and nothing claimed written */
	for (int at = 1; at <= 2; at++) {
		e.calls = 0;
		e.fail_at = at;
		n = 0;
		assert_int_equal(vi_minisign_sign_with(sk.key_id, ext_sign, &e, MSGB, "x", NULL, out,
						       sizeof(out), &n, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "the signer failed"));
		assert_int_equal(n, 0);
	}
}

static void test_seckey_rejects(void **state)
{
	struct vi_minisign_seckey sk;
	struct vi_error err = { "" };
	char buf[sizeof(SEC)];
	char *p;

	(void)state;
	assert_int_equal(vi_minisign_seckey_parse(S(SEC_ENCRYPTED), &sk, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "minisign -C -W"));
	/* the public half no longer matches the seed */
	memcpy(buf, SEC, sizeof(SEC));
	p = strstr(buf, "DByZK");
	assert_non_null(p);
	p[1] = 'C';
	assert_int_equal(vi_minisign_seckey_parse(buf, sizeof(SEC) - 1, &sk, &err), -EINVAL);
	/* a public key is not a secret key */
	assert_int_equal(vi_minisign_seckey_parse(S(VEC_PUB), &sk, &err), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pubkey),
		cmocka_unit_test(test_pubkey_rejects),
		cmocka_unit_test(test_verify_tool_signature),
		cmocka_unit_test(test_verify_tampered),
		cmocka_unit_test(test_verify_other_key),
		cmocka_unit_test(test_legacy),
		cmocka_unit_test(test_sig_rejects),
		cmocka_unit_test(test_seckey_and_sign),
		cmocka_unit_test(test_sign_with_external_signer),
		cmocka_unit_test(test_seckey_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
