// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/config/p7s.c, vi_p7s_signers: the signers of a PKCS#7 root hash signature as systemd's
 * verity NvPCR word names them, held against what systemd's own code computes from the same
 * bytes (src/shared/pkcs7-util.c: d2i_PKCS7, then per SignerInfo i2d_ASN1_INTEGER of the serial
 * in hex and i2d_X509_NAME of the issuer in base64), here with the same OpenSSL calls on
 * signatures OpenSSL makes: one signer, two, and refusals (truncated, trailing bytes, another
 * content type, an indefinite length, a signer named by subject key identifier). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pkcs7.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "p7s.h"

/* A self-signed P-256 certificate with serial and subject CN=cn, O=verity-init test. */
static X509 *cert(EVP_PKEY **ret_key, const char *cn, const char *serial_hex)
{
	EVP_PKEY *k = EVP_EC_gen("P-256");
	X509 *c = X509_new();
	X509_NAME *n = X509_NAME_new();
	BIGNUM *bn = NULL;

	assert_non_null(k);
	assert_true(BN_hex2bn(&bn, serial_hex) > 0);
	assert_non_null(BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(c)));
	BN_free(bn);
	X509_set_version(c, 2);
	X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
	X509_NAME_add_entry_by_txt(n, "O", MBSTRING_ASC,
				   (const unsigned char *)"verity-init test", -1, -1, 0);
	X509_set_subject_name(c, n);
	X509_set_issuer_name(c, n);
	X509_NAME_free(n);
	X509_gmtime_adj(X509_getm_notBefore(c), 0);
	X509_gmtime_adj(X509_getm_notAfter(c), 3600);
	X509_set_pubkey(c, k);
	{
		X509V3_CTX ctx;
		X509_EXTENSION *ext;

		X509V3_set_ctx(&ctx, c, c, NULL, NULL, 0);
		ext = X509V3_EXT_conf_nid(NULL, &ctx, NID_subject_key_identifier, "hash");
		assert_non_null(ext);
		X509_add_ext(c, ext, -1);
		X509_EXTENSION_free(ext);
	}
	assert_true(X509_sign(c, k, EVP_sha256()) > 0);
	*ret_key = k;
	return c;
}

/* What systemd's pcrextend_verity_word puts after the root hash, from the DER p7. */
static void systemds_signers(const uint8_t *der, size_t len, char *out, size_t size)
{
	const unsigned char *d = der;
	PKCS7 *p7 = d2i_PKCS7(NULL, &d, (long)len);
	STACK_OF(PKCS7_SIGNER_INFO) *sis;

	assert_non_null(p7);
	sis = PKCS7_get_signer_info(p7);
	out[0] = '\0';
	for (int i = 0; i < sk_PKCS7_SIGNER_INFO_num(sis); i++) {
		PKCS7_SIGNER_INFO *si = sk_PKCS7_SIGNER_INFO_value(sis, i);
		unsigned char *issuer = NULL, *serial = NULL;
		int il = i2d_X509_NAME(si->issuer_and_serial->issuer, &issuer);
		int sl = i2d_ASN1_INTEGER(si->issuer_and_serial->serial, &serial);
		char b64[1024];

		assert_true(il > 0 && sl > 0 && il < 700);
		EVP_EncodeBlock((unsigned char *)b64, issuer, il);
		if (i)
			strncat(out, ",", size - strlen(out) - 1);
		for (int j = 0; j < sl; j++)
			snprintf(out + strlen(out), size - strlen(out), "%02x", serial[j]);
		snprintf(out + strlen(out), size - strlen(out), "/%s", b64);
		OPENSSL_free(issuer);
		OPENSSL_free(serial);
	}
	PKCS7_free(p7);
}

/* A detached signature over "roothash" by the n certificates, DER, as `openssl smime -sign
 * -binary -noattr -outform der` makes root hash signatures. */
static size_t sign(X509 **certs, EVP_PKEY **keys, int n, uint8_t *out, size_t size)
{
	BIO *in = BIO_new_mem_buf("0123abcd", 8);
	PKCS7 *p7 = PKCS7_sign(NULL, NULL, NULL, in, PKCS7_BINARY | PKCS7_DETACHED | PKCS7_NOATTR |
			       PKCS7_PARTIAL);
	unsigned char *der = NULL;
	int len;

	for (int i = 0; i < n; i++)
		assert_non_null(PKCS7_sign_add_signer(p7, certs[i], keys[i], EVP_sha256(),
						      PKCS7_BINARY | PKCS7_NOATTR));
	assert_true(PKCS7_final(p7, in, PKCS7_BINARY | PKCS7_DETACHED) > 0);
	len = i2d_PKCS7(p7, &der);
	assert_true(len > 0 && (size_t)len <= size);
	memcpy(out, der, (size_t)len);
	OPENSSL_free(der);
	PKCS7_free(p7);
	BIO_free(in);
	return (size_t)len;
}

static void test_signers_are_systemds(void **state)
{
	EVP_PKEY *keys[2];
	X509 *certs[2];
	uint8_t der[8192];
	char got[VI_P7S_SIGNERS_MAX], want[VI_P7S_SIGNERS_MAX];
	struct vi_error err = { "" };
	size_t len;

	(void)state;
	/* a serial whose high bit is set: its DER has a leading zero byte */
	certs[0] = cert(&keys[0], "signer one", "8f00112233445566778899aabbccddeeff001122");
	certs[1] = cert(&keys[1], "signer two", "01");
	len = sign(certs, keys, 1, der, sizeof(der));
	assert_int_equal(vi_p7s_signers(der, len, got, sizeof(got), &err), 0);
	systemds_signers(der, len, want, sizeof(want));
	assert_string_equal(got, want);
	assert_non_null(strstr(got, "0215008f0011"));
	assert_null(strchr(got, ','));

	len = sign(certs, keys, 2, der, sizeof(der));
	assert_int_equal(vi_p7s_signers(der, len, got, sizeof(got), &err), 0);
	systemds_signers(der, len, want, sizeof(want));
	assert_string_equal(got, want);
	/* DER sorts a SET OF: the second signer may come first */
	assert_non_null(strstr(got, "020101/"));
	assert_non_null(strchr(got, ','));

	/* no room */
	assert_int_equal(vi_p7s_signers(der, len, got, strlen(want), &err), -ENOBUFS);
	assert_int_equal(vi_p7s_signers(der, len, got, strlen(want) + 1, &err), 0);
	/* cut short, a byte after it, another content type, an indefinite length */
	assert_int_equal(vi_p7s_signers(der, len - 1, got, sizeof(got), &err), -EINVAL);
	assert_string_equal(got, "");
	der[len] = 0;
	assert_int_equal(vi_p7s_signers(der, len + 1, got, sizeof(got), &err), -EINVAL);
	der[14] ^= 1;    /* the OID's last byte: 1.2.840.113549.1.7.3 */
	assert_int_equal(vi_p7s_signers(der, len, got, sizeof(got), &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not PKCS#7 SignedData"));
	der[14] ^= 1;
	assert_int_equal(vi_p7s_signers(der, len, got, sizeof(got), &err), 0);
	assert_int_equal(vi_p7s_signers((const uint8_t[]){ 0x30, 0x80, 0, 0 }, 4, got,
					sizeof(got), &err), -EINVAL);
	for (int i = 0; i < 2; i++) {
		X509_free(certs[i]);
		EVP_PKEY_free(keys[i]);
	}
}

/* CMS names a signer by subject key identifier when asked: systemd's PKCS#7 parse refuses such a
 * signature, and so does this. */
static void test_signer_by_key_identifier_is_refused(void **state)
{
	EVP_PKEY *k;
	X509 *c = cert(&k, "keyid", "02");
	BIO *in = BIO_new_mem_buf("0123abcd", 8);
	CMS_ContentInfo *cms = CMS_sign(c, k, NULL, in, CMS_BINARY | CMS_DETACHED | CMS_NOATTR |
					CMS_USE_KEYID | CMS_NOSMIMECAP);
	unsigned char *der = NULL;
	char got[VI_P7S_SIGNERS_MAX];
	struct vi_error err = { "" };
	int len;

	(void)state;
	if (!cms)
		ERR_print_errors_fp(stderr);
	assert_non_null(cms);
	len = i2d_CMS_ContentInfo(cms, &der);
	assert_true(len > 0);
	assert_int_equal(vi_p7s_signers(der, (size_t)len, got, sizeof(got), &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not named by issuer and serial number"));
	OPENSSL_free(der);
	CMS_ContentInfo_free(cms);
	BIO_free(in);
	X509_free(c);
	EVP_PKEY_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signers_are_systemds),
		cmocka_unit_test(test_signer_by_key_identifier_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
