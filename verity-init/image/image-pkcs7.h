/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `verity-image sign`, path 1 of docs/signing.md (image-pkcs7.c): roothash.p7s, the detached
 * PKCS#7 signature the kernel's dm-verity checks, and systemd's verity-signature JSON; signed
 * here with a PEM key or a key on a PKCS#11 token, or prepared here, signed elsewhere and joined. */
#ifndef VERITY_IMAGE_PKCS7_H
#define VERITY_IMAGE_PKCS7_H

#include "image-io.h"

/* sign's options for path 1. */
struct sign_pkcs7_opts {
	const char *key;              /* --pkcs7-key: PEM file or pkcs11: URI */
	const char *cert;             /* --pkcs7-cert (PEM) */
	const char *sig;              /* --pkcs7-signature: a signature made elsewhere, to join */
	const char *prepare;          /* --prepare-pkcs7: write the bytes to be signed */
	const char *p7s;              /* write roothash.p7s (DER) */
	const char *dps;              /* write systemd's verity-signature partition JSON */
};

/* What o asks for root_hex: the bytes to be signed (o->prepare), or the signature (made with
 * o->key, or o->sig checked against o->cert) as roothash.p7s and/or DPS JSON; every file is
 * added to outs, not yet in place. Prints the outcome's lines; 0, or the exit code with the
 * error printed (prog.h's die). */
int sign_pkcs7(const struct sign_pkcs7_opts *o, const char *root_hex, struct image_outputs *outs);

#endif
