/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* minisign (https://jedisct1.github.io/minisign/) public keys, signatures and unencrypted secret
 * keys, verified and made with libsodium's Ed25519. The file formats, as minisign 0.11 writes them:
 *
 *   public key   "untrusted comment: <text>\n"
 *                base64( "Ed" | key_id[8] | ed25519_pk[32] ) "\n"
 *   signature    "untrusted comment: <text>\n"
 *                base64( "ED" | key_id[8] | sig[64] ) "\n"       sig over BLAKE2b-512(message)
 *                  ("Ed": legacy, sig over the message itself)
 *                "trusted comment: <text>\n"
 *                base64( global_sig[64] ) "\n"                   sig over sig[64] | <text>
 *   secret key   "untrusted comment: <text>\n"
 *                base64( "Ed" | kdf[2] | "B2" | salt[32] | ops[8] | mem[8] |
 *                        key_id[8] | ed25519_sk[64] | chk[32] ) "\n"
 *                Only kdf "\0\0" (made with `minisign -G -W`) is supported: a password-protected
 *                key ("Sc", scrypt) is refused; remove its password with `minisign -C -W`.
 *
 * Base64 is the standard alphabet with padding, decoded strictly (libsodium). Lines may end in
 * "\r\n"; nothing may follow the last line. Key ids are compared as bytes (minisign prints them as
 * the little-endian 64-bit number in hex). Parsers take (buffer, length), never read past it and
 * refuse inputs above MINISIGN_MAX_FILE. Verification does not call sodium_init(): Ed25519
 * verification and BLAKE2b need no runtime setup, and sodium_init() may block on getrandom() in
 * early boot before the kernel's entropy pool is ready. Signing (host only) calls it. */
#ifndef VERITY_MINISIGN_H
#define VERITY_MINISIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define MINISIGN_KEYID_LEN   8u
#define MINISIGN_PK_LEN      32u
#define MINISIGN_SK_LEN      64u
#define MINISIGN_SIG_LEN     64u
#define MINISIGN_COMMENT_MAX 1024u   /* bytes of a comment's text, as minisign's COMMENTMAXBYTES */
#define MINISIGN_MAX_FILE    4096u   /* whole key or signature file */

struct vi_minisign_pubkey {
	uint8_t key_id[MINISIGN_KEYID_LEN];
	uint8_t pk[MINISIGN_PK_LEN];
};

struct vi_minisign_sig {
	bool prehashed;                               /* "ED" (true) or legacy "Ed" */
	uint8_t key_id[MINISIGN_KEYID_LEN];
	uint8_t sig[MINISIGN_SIG_LEN];
	char trusted_comment[MINISIGN_COMMENT_MAX + 1]; /* NUL-terminated, no CR/LF */
	size_t trusted_comment_len;
	uint8_t global_sig[MINISIGN_SIG_LEN];
};

struct vi_minisign_seckey {
	uint8_t key_id[MINISIGN_KEYID_LEN];
	uint8_t sk[MINISIGN_SK_LEN];                  /* libsodium layout: seed[32] | pk[32] */
};

/* Key id as minisign prints it ("B69F29EA89A6E4A4"): uppercase hex of the little-endian number,
 * without leading zeros. out has 17 bytes. */
void vi_minisign_key_id_format(const uint8_t key_id[MINISIGN_KEYID_LEN], char out[17]);

/* Parse a public key file. -EINVAL with err set on any deviation from the format. */
int vi_minisign_pubkey_parse(const char *buf, size_t len, struct vi_minisign_pubkey *ret,
			  struct vi_error *err);

/* Parse a signature file (.minisig). -EINVAL with err set. */
int vi_minisign_sig_parse(const char *buf, size_t len, struct vi_minisign_sig *ret,
		       struct vi_error *err);

/* Verify sig over msg with pk: key ids equal (-ENOKEY otherwise), the signature over the message
 * (BLAKE2b-512 of it for "ED"), then the global signature over sig | trusted comment.
 * -EBADMSG when a signature does not verify; legacy "Ed" signatures are refused with -EPROTO
 * unless allow_legacy (minisign -V also refuses them unless asked). err is set on failure. */
int vi_minisign_verify(const struct vi_minisign_pubkey *pk, const struct vi_minisign_sig *sig,
		    const uint8_t *msg, size_t msg_len, bool allow_legacy, struct vi_error *err);

/* Parse an unencrypted secret key file (see above) and check that its public half matches its
 * seed. -EINVAL with err set; -EOPNOTSUPP for an encrypted key. Host-side only. */
int vi_minisign_seckey_parse(const char *buf, size_t len, struct vi_minisign_seckey *ret,
			  struct vi_error *err);

/* Write a complete prehashed ("ED") signature file for msg into out (NUL-terminated), with the
 * given comments (no CR/LF, at most MINISIGN_COMMENT_MAX bytes; untrusted NULL: minisign's
 * default). *ret_len: bytes written without the NUL. -ENOBUFS if out is too small. */
int vi_minisign_sign(const struct vi_minisign_seckey *sk, const uint8_t *msg, size_t msg_len,
		  const char *trusted_comment, const char *untrusted_comment,
		  char *out, size_t out_size, size_t *ret_len, struct vi_error *err);

/* An Ed25519 signer for vi_minisign_sign_with: sig = the signature of msg by the key whose id
 * goes into the file. 0, or a negative errno. */
typedef int (*vi_minisign_signer_fn)(void *ctx, const uint8_t *msg, size_t len,
				     uint8_t sig[MINISIGN_SIG_LEN]);

/* vi_minisign_sign with the two Ed25519 signatures (of the BLAKE2b-512 prehash, then of the
 * signature and the trusted comment) made by sign(ctx, ...): a key outside this process (a
 * token, a signing helper). Nothing is checked here: the caller verifies the result with the
 * public key (vi_minisign_verify). -EINVAL with err set when the signer fails. */
int vi_minisign_sign_with(const uint8_t key_id[MINISIGN_KEYID_LEN], vi_minisign_signer_fn sign,
		       void *ctx, const uint8_t *msg, size_t msg_len, const char *trusted_comment,
		       const char *untrusted_comment, char *out, size_t out_size, size_t *ret_len,
		       struct vi_error *err);

/* Write the public key file of sk into out (NUL-terminated). -ENOBUFS if too small. */
int vi_minisign_pubkey_format(const struct vi_minisign_seckey *sk, char *out, size_t out_size,
			   struct vi_error *err);

#endif
