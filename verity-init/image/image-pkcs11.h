/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Signing keys that stay on a PKCS#11 token (image-pkcs11.c): a key option given an RFC 7512
 * URI ("pkcs11:token=...;object=...") instead of a PEM file is loaded through OpenSSL's pkcs11
 * engine (libp11, Debian's libengine-pkcs11-openssl), which reaches the token through p11-kit's
 * proxy module unless PKCS11_MODULE_PATH names another. The private key never leaves the token:
 * OpenSSL asks the token for each signature. */
#ifndef VERITY_IMAGE_PKCS11_H
#define VERITY_IMAGE_PKCS11_H

#include <stdbool.h>

#include <openssl/evp.h>

/* The environment variable that carries the token's PIN (kept out of argv and of the URI). */
#define IMAGE_PKCS11_PIN_ENV "VERITY_INIT_PKCS11_PIN"

/* Whether a key option's value is a PKCS#11 URI rather than a file. */
bool image_is_pkcs11_uri(const char *s);

/* A key on a token, and the engine that holds it. */
struct image_token_key {
	EVP_PKEY *key;
	void *engine;             /* ENGINE *, released with the key */
};

/* Load the private key uri names (option: the option it came from, named in errors). The PIN
 * comes from the URI (pin-source=file:...) or from $VERITY_INIT_PKCS11_PIN. 0, or the exit code
 * with one error line printed that names the token (the URI without its query and pin-*
 * attributes, which may hold a PIN) and the reason: EXIT_USAGE for a URI with pin-value=
 * (argv is readable by every user); EXIT_KEY for a missing token or key, a wrong or locked
 * PIN; EXIT_INTERNAL when the engine is not installed. */
int image_pkcs11_load_key(const char *option, const char *uri, struct image_token_key *ret);

void image_token_key_free(struct image_token_key *k);

/* uri without its query part and its pin-* attributes (either may hold a PIN), for messages;
 * out has size bytes. */
void image_pkcs11_redact(const char *uri, char *out, size_t size);

#endif
