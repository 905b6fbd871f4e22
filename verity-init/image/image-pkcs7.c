// SPDX-License-Identifier: LGPL-2.1-or-later
/* `verity-image sign`, path 1 of docs/signing.md (image-pkcs7.h): roothash.p7s, a detached DER
 * PKCS#7 signature (no signed attributes, signer certificate included) of the lowercase hex root
 * hash without a newline, as systemd-repart and mkosi make it and the kernel's dm-verity checks
 * it; and systemd's verity-signature partition JSON around it. */
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
#include "image-pkcs7.h"
#include "prog.h"

#define DPS_SIG_PAD 4096u

static int openssl_die(int code, const char *what)
{
	unsigned long e = ERR_get_error();
	char buf[256];

	ERR_error_string_n(e, buf, sizeof(buf));
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

/* The key and its certificate, which must belong together. 0 or the exit code, the error
 * printed; nothing kept on failure. */
static int load_pair(const struct sign_pkcs7_opts *o, EVP_PKEY **ret_key, X509 **ret_cert)
{
	EVP_PKEY *key;
	X509 *cert;
	FILE *f = NULL;
	int r;

	r = open_pem(o->key, &f);
	if (r < 0)
		return die(EXIT_IO, "%s: %s", o->key, image_io_reason(r));
	key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (!key)
		return openssl_die(EXIT_INVALID, o->key);
	r = open_pem(o->cert, &f);
	if (r < 0) {
		r = die(EXIT_IO, "%s: %s", o->cert, image_io_reason(r));
		goto out_key;
	}
	cert = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	if (!cert) {
		r = openssl_die(EXIT_INVALID, o->cert);
		goto out_key;
	}
	if (X509_check_private_key(cert, key) != 1) {
		r = die(EXIT_INVALID, "%s does not belong to %s", o->key, o->cert);
		X509_free(cert);
		goto out_key;
	}
	*ret_key = key;
	*ret_cert = cert;
	return 0;
out_key:
	EVP_PKEY_free(key);
	return r;
}

/* systemd's verity-signature partition JSON around the signature der: the root hash, the
 * certificate's SHA-256 fingerprint and the signature in base64, compact, NUL-padded to
 * DPS_SIG_PAD as systemd-repart writes it. 0 or the exit code, the error printed. */
static int write_dps(const char *path, X509 *cert, const unsigned char *der, int der_len,
		     const char *root_hex)
{
	unsigned char fpr[32], *cder = NULL;
	char fpr_hex[65], *json = NULL, *b64 = NULL;
	size_t b64_size = vi_b64_encoded_size((size_t)der_len), jlen, padded;
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
	vi_b64_encode(der, (size_t)der_len, b64, b64_size);
	snprintf(json, padded, "{\"rootHash\":\"%s\",\"certificateFingerprint\":\"%s\","
		 "\"signature\":\"%s\"}", root_hex, fpr_hex, b64);
	r = image_write_file(path, json, padded);
	if (r < 0)
		r = die(EXIT_IO, "writing %s: %s", path, image_io_reason(r));
out:
	free(b64);
	free(json);
	OPENSSL_free(cder);
	return r;
}

int sign_pkcs7(const struct sign_pkcs7_opts *o, const char *root_hex)
{
	EVP_PKEY *key = NULL;
	X509 *cert = NULL;
	BIO *in = NULL;
	PKCS7 *p7 = NULL;
	unsigned char *der = NULL;
	int der_len = 0, r;

	r = load_pair(o, &key, &cert);
	if (r)
		return r;
	/* The kernel verifies the signature over the root hash exactly as written in the table:
	 * lowercase hex, no newline (dm-verity-verify-sig.c, systemd-repart, mkosi). */
	in = BIO_new_mem_buf(root_hex, (int)strlen(root_hex));
	if (!in) {
		r = die(EXIT_INTERNAL, "out of memory");
		goto out;
	}
	p7 = PKCS7_sign(cert, key, NULL, in, PKCS7_DETACHED | PKCS7_NOATTR | PKCS7_BINARY);
	if (!p7) {
		r = openssl_die(EXIT_INTERNAL, "PKCS7_sign");
		goto out;
	}
	der_len = i2d_PKCS7(p7, &der);
	if (der_len <= 0) {
		r = openssl_die(EXIT_INTERNAL, "i2d_PKCS7");
		goto out;
	}
	if (o->p7s) {
		r = image_write_file(o->p7s, der, (size_t)der_len);
		if (r < 0) {
			r = die(EXIT_IO, "writing %s: %s", o->p7s, image_io_reason(r));
			goto out;
		}
	}
	if (o->dps) {
		r = write_dps(o->dps, cert, der, der_len, root_hex);
		if (r)
			goto out;
	}
	printf("pkcs7_bytes=%d\n", der_len);
	r = 0;
out:
	OPENSSL_free(der);
	PKCS7_free(p7);
	BIO_free(in);
	X509_free(cert);
	EVP_PKEY_free(key);
	return r;
}
