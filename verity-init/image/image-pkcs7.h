/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `verity-image sign`, path 1 of docs/signing.md (image-pkcs7.c): roothash.p7s, the detached
 * PKCS#7 signature the kernel's dm-verity checks, and systemd's verity-signature JSON. */
#ifndef VERITY_IMAGE_PKCS7_H
#define VERITY_IMAGE_PKCS7_H

/* sign's options for path 1. */
struct sign_pkcs7_opts {
	const char *key, *cert;       /* --pkcs7-key, --pkcs7-cert (PEM) */
	const char *p7s;              /* write roothash.p7s (DER) */
	const char *dps;              /* write systemd's verity-signature partition JSON */
};

/* The signature over root_hex, written where o asks. Prints the outcome's line; 0, or the exit
 * code with the error printed (prog.h's die). */
int sign_pkcs7(const struct sign_pkcs7_opts *o, const char *root_hex);

#endif
