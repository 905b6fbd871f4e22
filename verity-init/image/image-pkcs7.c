// SPDX-License-Identifier: LGPL-2.1-or-later
/* `verity-image sign`, path 1 of docs/signing.md (image-pkcs7.h): roothash.p7s, a detached DER
 * PKCS#7 signature (no signed attributes, signer certificate included) of the lowercase hex root
 * hash without a newline, as systemd-repart and mkosi make it and the kernel's dm-verity checks
 * it; and systemd's verity-signature partition JSON around it.
 *
 * The key is a PEM file or a key on a PKCS#11 token (image-pkcs11.h). Without the key here, the
 * bytes to be signed are prepared (the root hash text) and a signature made elsewhere is joined:
 * either a DER PKCS#7 detached signature of them (openssl smime/cms -sign -binary) or a raw
 * signature of them with SHA-256 (openssl dgst -sha256 -sign, an HSM's or signing service's
 * CKM_SHA256_RSA_PKCS or ECDSA-SHA256), which is wrapped into the same PKCS#7 that signing here
 * would make. Either is verified against the certificate before anything is written. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/x509.h>

#include "base64.h"
#include "fileio.h"
#include "hex.h"
#include "image-io.h"
#include "image-pkcs11.h"
#include "image-pkcs7.h"
#include "prog.h"

#define DPS_SIG_PAD 4096u
/* the agent's limit for a roothash.p7s (docs/signing.md) */
#define P7S_MAX 16384u

static int openssl_die(int code, const char *what)
{
	unsigned long e = ERR_get_error();
	char buf[256];

	ERR_error_string_n(e, buf, sizeof(buf));
	ERR_clear_error();
	return die(code, "%s: %s", what, e ? buf : "failed");
}

/* A PEM input as a stdio stream, opened as every input is (vi_fileio_open_input). */
static int open_pem(const char *path, FILE **ret)
{
	int fd, r;

	r = vi_fileio_open_input(path, O_RDONLY, 0, &fd);
	if (r < 0)
		return r;
	*ret = fdopen(fd, "r");
	if (!*ret) {
		r = -errno;
		close(fd);
		return r;
	}
	return 0;
}

static int load_cert(const char *path, X509 **ret)
{
	FILE *f = NULL;
	int r;

	r = open_pem(path, &f);
	if (r < 0)
		return die(EXIT_IO, "%s: %s", path, image_io_reason(r));
	*ret = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	if (!*ret)
		return openssl_die(EXIT_INVALID, path);
	return 0;
}

/* The key (a PEM file, or a key on a token) and its certificate, which must belong together.
 * 0 or the exit code, the error printed; nothing kept on failure. */
static int load_pair(const struct sign_pkcs7_opts *o, struct image_token_key *tk, X509 **ret_cert)
{
	X509 *cert = NULL;
	FILE *f = NULL;
	int r;

	r = load_cert(o->cert, &cert);
	if (r)
		return r;
	if (image_is_pkcs11_uri(o->key)) {
		r = image_pkcs11_load_key("--pkcs7-key", o->key, tk);
		if (r)
			goto out_cert;
	} else {
		r = open_pem(o->key, &f);
		if (r < 0) {
			r = die(EXIT_IO, "%s: %s", o->key, image_io_reason(r));
			goto out_cert;
		}
		tk->engine = NULL;
		tk->key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
		fclose(f);
		if (!tk->key) {
			r = openssl_die(EXIT_INVALID, o->key);
			goto out_cert;
		}
	}
	if (X509_check_private_key(cert, tk->key) != 1) {
		char shown[512];

		ERR_clear_error();
		image_pkcs11_redact(o->key, shown, sizeof(shown));
		r = die(EXIT_INVALID, "%s does not belong to %s", shown, o->cert);
		image_token_key_free(tk);
		goto out_cert;
	}
	*ret_cert = cert;
	return 0;
out_cert:
	X509_free(cert);
	return r;
}

static void print_sha256(const char *name, const void *buf, size_t len)
{
	unsigned char d[32];
	char hex[65];

	if (!EVP_Digest(buf, len, d, NULL, EVP_sha256(), NULL)) {
		ERR_clear_error();
		return;
	}
	vi_hex_encode(d, sizeof(d), hex, sizeof(hex));
	printf("%s=%s\n", name, hex);
}

/* systemd's verity-signature partition JSON around the signature der: the root hash, the
 * certificate's SHA-256 fingerprint and the signature in base64, compact, NUL-padded to
 * DPS_SIG_PAD as systemd-repart writes it. 0 or the exit code, the error printed. */
static int add_dps(struct image_outputs *outs, const char *path, X509 *cert,
		   const unsigned char *der, size_t der_len, const char *root_hex)
{
	unsigned char fpr[32], *cder = NULL;
	char fpr_hex[65], *json = NULL, *b64 = NULL;
	size_t b64_size = vi_b64_encoded_size(der_len), jlen, padded;
	int cder_len, r;

	cder_len = i2d_X509(cert, &cder);
	if (cder_len <= 0 || !EVP_Digest(cder, (size_t)cder_len, fpr, NULL, EVP_sha256(), NULL)) {
		r = openssl_die(EXIT_INTERNAL, "certificate fingerprint");
		goto out;
	}
	vi_hex_encode(fpr, sizeof(fpr), fpr_hex, sizeof(fpr_hex));
	b64 = malloc(b64_size);
	jlen = b64_size + 256;
	padded = (jlen + DPS_SIG_PAD - 1) / DPS_SIG_PAD * DPS_SIG_PAD;
	json = calloc(1, padded);
	if (!b64 || !json) {
		r = die(EXIT_INTERNAL, "out of memory");
		goto out;
	}
	vi_b64_encode(der, der_len, b64, b64_size);
	snprintf(json, padded, "{\"rootHash\":\"%s\",\"certificateFingerprint\":\"%s\","
		 "\"signature\":\"%s\"}", root_hex, fpr_hex, b64);
	r = image_outputs_add(outs, path, json, padded);
	if (r < 0)
		r = die(EXIT_IO, "writing %s: %s", path, image_io_reason(r));
out:
	free(b64);
	free(json);
	OPENSSL_free(cder);
	return r;
}

/* The signature over root_hex with the key of o, as DER (*ret_der, OPENSSL_free). */
static int make_signature(const struct sign_pkcs7_opts *o, X509 *cert, EVP_PKEY *key,
			  const char *root_hex, unsigned char **ret_der, size_t *ret_len)
{
	BIO *in;
	PKCS7 *p7;
	int len;

	/* The kernel verifies the signature over the root hash exactly as written in the table:
	 * lowercase hex, no newline (dm-verity-verify-sig.c, systemd-repart, mkosi). */
	in = BIO_new_mem_buf(root_hex, (int)strlen(root_hex));
	if (!in)
		return die(EXIT_INTERNAL, "out of memory");
	p7 = PKCS7_sign(cert, key, NULL, in, PKCS7_DETACHED | PKCS7_NOATTR | PKCS7_BINARY);
	BIO_free(in);
	if (!p7) {
		char shown[512], what[600];

		image_pkcs11_redact(o->key, shown, sizeof(shown));
		snprintf(what, sizeof(what), "signing with %s", shown);
		return openssl_die(image_is_pkcs11_uri(o->key) ? EXIT_KEY : EXIT_INTERNAL, what);
	}
	*ret_der = NULL;
	len = i2d_PKCS7(p7, ret_der);
	PKCS7_free(p7);
	if (len <= 0)
		return openssl_die(EXIT_INTERNAL, "i2d_PKCS7");
	*ret_len = (size_t)len;
	return 0;
}

/* A raw signature of root_hex with SHA-256 by cert's key, in the PKCS#7 that signing here makes:
 * the signer info's digest SHA-256, no attributes, the certificate included, content detached. */
static PKCS7 *wrap_raw(X509 *cert, const unsigned char *sig, size_t len)
{
	EVP_PKEY *pub = X509_get0_pubkey(cert);
	PKCS7_SIGNER_INFO *si;
	PKCS7 *p7 = PKCS7_new();

	if (!p7 || !pub || !PKCS7_set_type(p7, NID_pkcs7_signed) ||
	    !PKCS7_content_new(p7, NID_pkcs7_data))
		goto fail;
	si = PKCS7_add_signature(p7, cert, pub, EVP_sha256());
	if (!si || !PKCS7_add_certificate(p7, cert) || !PKCS7_set_detached(p7, 1) ||
	    !ASN1_STRING_set(si->enc_digest, sig, (int)len))
		goto fail;
	return p7;
fail:
	PKCS7_free(p7);
	return NULL;
}

/* o->sig, made elsewhere, as the DER roothash.p7s (*ret_der, OPENSSL_free) once it verifies
 * against cert over root_hex. A DER PKCS#7 is kept as it is; a raw signature is wrapped. */
static int join_signature(const struct sign_pkcs7_opts *o, X509 *cert, const char *root_hex,
			  unsigned char **ret_der, size_t *ret_len)
{
	unsigned char *buf = malloc(P7S_MAX), *der = NULL;
	const unsigned char *p;
	EVP_PKEY *pub = X509_get0_pubkey(cert);
	STACK_OF(X509) *certs = NULL;
	EVP_MD_CTX *md = NULL;
	PKCS7 *p7 = NULL;
	BIO *in = NULL;
	size_t len = 0;
	int r, dlen;

	if (!buf)
		return die(EXIT_INTERNAL, "out of memory");
	r = vi_fileio_read_all(o->sig, buf, P7S_MAX, &len);
	if (r < 0) {
		r = die(r == -EFBIG ? EXIT_INVALID : EXIT_IO, "%s: %s", o->sig,
			r == -EFBIG ? "larger than 16 KiB: not a signature" : image_io_reason(r));
		goto out;
	}
	if (len == 0) {
		r = die(EXIT_INVALID, "%s: empty, not a signature", o->sig);
		goto out;
	}
	p = buf;
	p7 = d2i_PKCS7(NULL, &p, (long)len);
	if (p7 && (p != buf + len || !PKCS7_type_is_signed(p7))) {
		PKCS7_free(p7);
		p7 = NULL;
	}
	ERR_clear_error();
	if (p7) {
		if (!PKCS7_get_detached(p7)) {
			r = die(EXIT_INVALID, "%s: a PKCS#7 signature with its content inside; a "
				"detached one is needed (openssl smime -sign -binary without -nodetach)",
				o->sig);
			goto out;
		}
		der = OPENSSL_malloc(len);
		if (!der) {
			r = die(EXIT_INTERNAL, "out of memory");
			goto out;
		}
		memcpy(der, buf, len);
		dlen = (int)len;
	} else {
		if (!pub) {
			r = openssl_die(EXIT_INVALID, o->cert);
			goto out;
		}
		/* A raw signature: an RSA one has the modulus' size exactly, so a truncated file is
		 * told apart from a wrong one; an ECDSA one is DER of its own. */
		if (EVP_PKEY_is_a(pub, "RSA") && len != (size_t)EVP_PKEY_get_size(pub)) {
			r = die(EXIT_INVALID, "%s: %zu bytes, neither a DER PKCS#7 signature nor a raw "
				"signature of %s's RSA-%d key (%d bytes): truncated, or another kind of "
				"signature", o->sig, len, o->cert, EVP_PKEY_get_bits(pub),
				EVP_PKEY_get_size(pub));
			goto out;
		}
		md = EVP_MD_CTX_new();
		if (!md || EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, pub) != 1) {
			r = openssl_die(EXIT_INTERNAL, "signature check");
			goto out;
		}
		if (EVP_DigestVerify(md, buf, len, (const unsigned char *)root_hex,
				     strlen(root_hex)) != 1) {
			ERR_clear_error();
			r = die(EXIT_MISMATCH, "%s: not a signature of the prepared bytes (the root hash "
				"%s) by the key of %s", o->sig, root_hex, o->cert);
			goto out;
		}
		p7 = wrap_raw(cert, buf, len);
		if (!p7) {
			r = openssl_die(EXIT_INTERNAL, "wrapping the signature in PKCS#7");
			goto out;
		}
		dlen = i2d_PKCS7(p7, &der);
		if (dlen <= 0) {
			r = openssl_die(EXIT_INTERNAL, "i2d_PKCS7");
			goto out;
		}
	}
	/* The same check for both: signed by cert (and no other) over exactly root_hex; the
	 * certificate's chain is the kernel's business. */
	certs = sk_X509_new_null();
	in = BIO_new_mem_buf(root_hex, (int)strlen(root_hex));
	if (!certs || !in || !sk_X509_push(certs, cert)) {
		r = die(EXIT_INTERNAL, "out of memory");
		goto out;
	}
	if (PKCS7_verify(p7, certs, NULL, in, NULL,
			 PKCS7_NOVERIFY | PKCS7_NOINTERN | PKCS7_BINARY) != 1) {
		unsigned long e = ERR_peek_last_error();

		ERR_clear_error();
		r = die(EXIT_MISMATCH, "%s: not a signature of the prepared bytes (the root hash %s) "
			"by %s (%s)", o->sig, root_hex, o->cert,
			e ? ERR_reason_error_string(e) : "does not verify");
		goto out;
	}
	*ret_der = der;
	*ret_len = (size_t)dlen;
	der = NULL;
	r = 0;
out:
	OPENSSL_free(der);
	sk_X509_free(certs);
	BIO_free(in);
	EVP_MD_CTX_free(md);
	PKCS7_free(p7);
	free(buf);
	return r;
}

int sign_pkcs7(const struct sign_pkcs7_opts *o, const char *root_hex, struct image_outputs *outs)
{
	struct image_token_key tk = { NULL, NULL };
	X509 *cert = NULL;
	unsigned char *der = NULL;
	size_t der_len = 0;
	int r;

	if (o->prepare) {
		r = image_outputs_add(outs, o->prepare, root_hex, strlen(root_hex));
		if (r < 0)
			return die(EXIT_IO, "writing %s: %s", o->prepare, image_io_reason(r));
		printf("pkcs7_prepared=%s\n", o->prepare);
		print_sha256("pkcs7_prepared_sha256", root_hex, strlen(root_hex));
		return 0;
	}
	if (o->sig) {
		r = load_cert(o->cert, &cert);
		if (r)
			return r;
		r = join_signature(o, cert, root_hex, &der, &der_len);
	} else {
		r = load_pair(o, &tk, &cert);
		if (r)
			return r;
		r = make_signature(o, cert, tk.key, root_hex, &der, &der_len);
	}
	if (r)
		goto out;
	if (o->p7s) {
		r = image_outputs_add(outs, o->p7s, der, der_len);
		if (r < 0) {
			r = die(EXIT_IO, "writing %s: %s", o->p7s, image_io_reason(r));
			goto out;
		}
	}
	if (o->dps) {
		r = add_dps(outs, o->dps, cert, der, der_len, root_hex);
		if (r)
			goto out;
	}
	printf("pkcs7_bytes=%zu\n", der_len);
	if (o->sig)
		printf("pkcs7_joined=%s\n", o->sig);
	r = 0;
out:
	OPENSSL_free(der);
	X509_free(cert);
	image_token_key_free(&tk);
	return r;
}
