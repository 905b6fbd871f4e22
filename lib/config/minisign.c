// SPDX-License-Identifier: LGPL-2.1-or-later
/* minisign files: see include/minisign.h for the formats. */
#include "minisign.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "base64.h"
#include "strutil.h"

#define UNTRUSTED_PREFIX "untrusted comment: "
#define TRUSTED_PREFIX   "trusted comment: "
#define DEFAULT_UNTRUSTED "signature from minisign secret key"

#define PK_BLOB_LEN  (2u + MINISIGN_KEYID_LEN + MINISIGN_PK_LEN)                  /* 42 */
#define SIG_BLOB_LEN (2u + MINISIGN_KEYID_LEN + MINISIGN_SIG_LEN)                 /* 74 */
#define SK_BLOB_LEN  (2u + 2u + 2u + 32u + 8u + 8u + MINISIGN_KEYID_LEN + MINISIGN_SK_LEN + 32u)
#define SK_OFF_KEYID (2u + 2u + 2u + 32u + 8u + 8u)                               /* 54 */
#define SK_OFF_SK    (SK_OFF_KEYID + MINISIGN_KEYID_LEN)                          /* 62 */
#define SK_OFF_CHK   (SK_OFF_SK + MINISIGN_SK_LEN)                                /* 126 */

/* A cursor over the file: lines end in "\n" (an optional "\r" before it is dropped); the last
 * line may lack its "\n" but nothing may follow it. */
struct lines {
	const char *buf;
	size_t len;
	size_t pos;
};

static int next_line(struct lines *l, const char **ret, size_t *ret_len)
{
	const char *start, *nl;
	size_t n;

	if (l->pos >= l->len)
		return -ENODATA;
	start = l->buf + l->pos;
	nl = memchr(start, '\n', l->len - l->pos);
	n = nl ? (size_t)(nl - start) : l->len - l->pos;
	l->pos += n + (nl ? 1 : 0);
	/* cppcheck-suppress knownConditionTrueFalse ; n is 0 for an empty line */
	if (n > 0 && start[n - 1] == '\r')
		n--;
	/* NUL or another CR inside a line is not a text file minisign wrote */
	if (memchr(start, '\0', n) || memchr(start, '\r', n))
		return -EINVAL;
	*ret = start;
	*ret_len = n;
	return 0;
}

static int check_size(size_t len, struct vi_error *err)
{
	if (len == 0)
		return vi_err(err, "empty file");
	if (len > MINISIGN_MAX_FILE)
		return vi_err(err, "file larger than %u bytes", MINISIGN_MAX_FILE);
	return 0;
}

static int untrusted_line(struct lines *l, struct vi_error *err)
{
	const char *s;
	size_t n;

	if (next_line(l, &s, &n) < 0 || !vi_has_prefix(s, n, UNTRUSTED_PREFIX))
		return vi_err(err, "first line is not \"" UNTRUSTED_PREFIX "...\"");
	if (n - strlen(UNTRUSTED_PREFIX) > MINISIGN_COMMENT_MAX)
		return vi_err(err, "untrusted comment longer than %u bytes", MINISIGN_COMMENT_MAX);
	return 0;
}

/* A base64 line that must decode to exactly want bytes. */
static int b64_line(struct lines *l, uint8_t *out, size_t want, const char *what,
		    struct vi_error *err)
{
	const char *s;
	size_t n, got = 0;

	if (next_line(l, &s, &n) < 0)
		return vi_err(err, "%s line missing", what);
	if (vi_b64_decode(s, n, out, want, &got) < 0 || got != want)
		return vi_err(err, "%s is not base64 of %zu bytes", what, want);
	return 0;
}

static int at_end(struct lines *l, struct vi_error *err)
{
	if (l->pos != l->len)
		return vi_err(err, "unexpected data after the last line");
	return 0;
}

void vi_minisign_key_id_format(const uint8_t key_id[MINISIGN_KEYID_LEN], char out[17])
{
	static const char digits[] = "0123456789ABCDEF";

	char tmp[17];
	unsigned skip = 0;

	/* minisign prints le64_load(key_id) with %" PRIX64 ": the last byte first, no leading
	 * zeros (its public key comment says "C47ED138CC2161E" for 0x0C47ED138CC2161E) */
	for (unsigned i = 0; i < MINISIGN_KEYID_LEN; i++) {
		uint8_t b = key_id[MINISIGN_KEYID_LEN - 1 - i];

		tmp[2 * i] = digits[b >> 4];
		tmp[2 * i + 1] = digits[b & 0xf];
	}
	tmp[16] = '\0';
	while (skip < 15 && tmp[skip] == '0')
		skip++;
	memcpy(out, tmp + skip, 17 - skip);
}

#ifdef VERITY_STATIC
/* Size: libsodium's own sodium_misuse() lives in core.o next to sodium_init(), which references
 * every implementation the library has (Argon2, ChaCha20, Salsa20, Poly1305, ...); a single
 * call to it from BLAKE2b or the base64 codec would link all of them into the static agent
 * (about 160 KB). It is only ever called on API misuse (a programming error), and does what
 * libsodium's does without a handler: abort. The agent never calls sodium_init(): see the
 * header. A link error "multiple definition of sodium_misuse" means something in the static
 * agent now pulls core.o after all. */
void sodium_misuse(void)
{
	abort();
}

/* Size, the same way: libsodium's utils.o holds the three helpers its Ed25519 verification
 * calls (sodium_memzero, sodium_memcmp, sodium_is_zero) next to its guarded allocator, whose
 * canaries come from randombytes_buf(): the random number generator and its three ChaCha20
 * implementations would follow into the static agent. These do what libsodium's do, in constant
 * time where libsodium's are (explicit_bzero() is what its sodium_memzero() calls on glibc). A
 * link error "multiple definition of sodium_memzero" means the agent now pulls utils.o after
 * all. */
void sodium_memzero(void *const pnt, const size_t len)
{
	explicit_bzero(pnt, len);
}

int sodium_memcmp(const void *const b1_, const void *const b2_, size_t len)
{
	const volatile unsigned char *b1 = b1_, *b2 = b2_;
	volatile unsigned char d = 0;

	for (size_t i = 0; i < len; i++)
		d |= b1[i] ^ b2[i];
	return (1 & ((d - 1) >> 8)) - 1;
}

int sodium_is_zero(const unsigned char *n, const size_t nlen)
{
	volatile unsigned char d = 0;

	for (size_t i = 0; i < nlen; i++)
		d |= n[i];
	return 1 & ((d - 1) >> 8);
}
#endif

/* The start every minisign file shares: a size within bounds, an "untrusted comment:" line,
 * then one base64 line of exactly `size` bytes (`what` names it in errors). */
static int head_blob(struct lines *l, uint8_t *blob, size_t size, const char *what,
		     struct vi_error *err)
{
	int r = check_size(l->len, err);

	if (r < 0)
		return r;
	r = untrusted_line(l, err);
	if (r < 0)
		return r;
	return b64_line(l, blob, size, what, err);
}

int vi_minisign_pubkey_parse(const char *buf, size_t len, struct vi_minisign_pubkey *ret,
			  struct vi_error *err)
{
	struct lines l = { buf, len, 0 };
	uint8_t blob[PK_BLOB_LEN];
	int r;

	r = head_blob(&l, blob, sizeof(blob), "public key", err);
	if (r < 0)
		return r;
	if (memcmp(blob, "Ed", 2) != 0)
		return vi_err(err, "public key algorithm is not Ed25519 (\"Ed\")");
	r = at_end(&l, err);
	if (r < 0)
		return r;
	memcpy(ret->key_id, blob + 2, MINISIGN_KEYID_LEN);
	memcpy(ret->pk, blob + 2 + MINISIGN_KEYID_LEN, MINISIGN_PK_LEN);
	return 0;
}

int vi_minisign_sig_parse(const char *buf, size_t len, struct vi_minisign_sig *ret,
		       struct vi_error *err)
{
	struct lines l = { buf, len, 0 };
	uint8_t blob[SIG_BLOB_LEN];
	const char *tc;
	size_t tc_len;
	bool prehashed;
	int r;

	r = head_blob(&l, blob, sizeof(blob), "signature", err);
	if (r < 0)
		return r;
	if (memcmp(blob, "ED", 2) == 0)
		prehashed = true;
	else if (memcmp(blob, "Ed", 2) == 0)
		prehashed = false;
	else
		return vi_err(err, "signature algorithm is neither \"ED\" nor \"Ed\"");
	if (next_line(&l, &tc, &tc_len) < 0 || !vi_has_prefix(tc, tc_len, TRUSTED_PREFIX))
		return vi_err(err, "third line is not \"" TRUSTED_PREFIX "...\"");
	tc += strlen(TRUSTED_PREFIX);
	tc_len -= strlen(TRUSTED_PREFIX);
	if (tc_len > MINISIGN_COMMENT_MAX)
		return vi_err(err, "trusted comment longer than %u bytes", MINISIGN_COMMENT_MAX);
	r = b64_line(&l, ret->global_sig, sizeof(ret->global_sig), "global signature", err);
	if (r < 0)
		return r;
	r = at_end(&l, err);
	if (r < 0)
		return r;
	ret->prehashed = prehashed;
	memcpy(ret->key_id, blob + 2, MINISIGN_KEYID_LEN);
	memcpy(ret->sig, blob + 2 + MINISIGN_KEYID_LEN, MINISIGN_SIG_LEN);
	memcpy(ret->trusted_comment, tc, tc_len);
	ret->trusted_comment[tc_len] = '\0';
	ret->trusted_comment_len = tc_len;
	return 0;
}

int vi_minisign_verify(const struct vi_minisign_pubkey *pk, const struct vi_minisign_sig *sig,
		    const uint8_t *msg, size_t msg_len, bool allow_legacy, struct vi_error *err)
{
	uint8_t prehash[crypto_generichash_blake2b_BYTES_MAX];
	uint8_t global[MINISIGN_SIG_LEN + MINISIGN_COMMENT_MAX];
	char want[17], got[17];
	int r;

	if (memcmp(pk->key_id, sig->key_id, MINISIGN_KEYID_LEN) != 0) {   /* public data */
		vi_minisign_key_id_format(sig->key_id, got);
		vi_minisign_key_id_format(pk->key_id, want);
		vi_err(err, "signature made by key %s, not by key %s", got, want);
		return -ENOKEY;
	}
	if (!sig->prehashed && !allow_legacy) {
		vi_err(err, "legacy (not prehashed) minisign signature refused");
		return -EPROTO;
	}
	if (sig->prehashed) {
		/* unkeyed BLAKE2b-512, as minisign's message_load_hashed() */
		crypto_generichash_blake2b(prehash, sizeof(prehash), msg, msg_len, NULL, 0);
		r = crypto_sign_ed25519_verify_detached(sig->sig, prehash, sizeof(prehash), pk->pk);
	} else {
		r = crypto_sign_ed25519_verify_detached(sig->sig, msg, msg_len, pk->pk);
	}
	if (r != 0) {
		vi_err(err, "signature does not verify");
		return -EBADMSG;
	}
	if (sig->trusted_comment_len > MINISIGN_COMMENT_MAX)
		return vi_err(err, "trusted comment too long");
	memcpy(global, sig->sig, MINISIGN_SIG_LEN);
	memcpy(global + MINISIGN_SIG_LEN, sig->trusted_comment, sig->trusted_comment_len);
	if (crypto_sign_ed25519_verify_detached(sig->global_sig, global,
					MINISIGN_SIG_LEN + sig->trusted_comment_len, pk->pk) != 0) {
		vi_err(err, "trusted comment signature does not verify");
		return -EBADMSG;
	}
	return 0;
}

int vi_minisign_seckey_parse(const char *buf, size_t len, struct vi_minisign_seckey *ret,
			  struct vi_error *err)
{
	static const uint8_t zero_chk[32];
	struct lines l = { buf, len, 0 };
	uint8_t blob[SK_BLOB_LEN];
	uint8_t pk[crypto_sign_ed25519_PUBLICKEYBYTES], sk[crypto_sign_ed25519_SECRETKEYBYTES];
	uint8_t chk[32];
	crypto_generichash_state hs;
	int r;

	r = head_blob(&l, blob, sizeof(blob), "secret key", err);
	if (r < 0)
		goto out;
	r = at_end(&l, err);
	if (r < 0)
		goto out;
	if (memcmp(blob, "Ed", 2) != 0 || memcmp(blob + 4, "B2", 2) != 0) {
		r = vi_err(err, "secret key is not an Ed25519/BLAKE2b minisign key");
		goto out;
	}
	if (memcmp(blob + 2, "Sc", 2) == 0) {
		vi_err(err, "secret key is password-protected; remove the password with "
			    "`minisign -C -W -s KEY` or make the key with `minisign -G -W`");
		r = -EOPNOTSUPP;
		goto out;
	}
	if (blob[2] != 0 || blob[3] != 0) {
		r = vi_err(err, "secret key uses an unknown key derivation function");
		goto out;
	}
	/* minisign 0.11 leaves the checksum of an unencrypted key zero; other writers fill it
	 * (BLAKE2b-256 of alg | key id | sk). Check it when present. */
	if (memcmp(blob + SK_OFF_CHK, zero_chk, sizeof(zero_chk)) != 0) {
		crypto_generichash_init(&hs, NULL, 0, sizeof(chk));
		crypto_generichash_update(&hs, blob, 2);
		crypto_generichash_update(&hs, blob + SK_OFF_KEYID, MINISIGN_KEYID_LEN + MINISIGN_SK_LEN);
		crypto_generichash_final(&hs, chk, sizeof(chk));
		if (sodium_memcmp(chk, blob + SK_OFF_CHK, sizeof(chk)) != 0) {
			r = vi_err(err, "secret key checksum mismatch (corrupted key file)");
			goto out;
		}
	}
	/* Either way, the public half stored in sk must be the one its seed derives. */
	crypto_sign_ed25519_seed_keypair(pk, sk, blob + SK_OFF_SK);
	if (sodium_memcmp(sk, blob + SK_OFF_SK, sizeof(sk)) != 0) {
		r = vi_err(err, "secret key is inconsistent (public half does not match the seed)");
		goto out;
	}
	memcpy(ret->key_id, blob + SK_OFF_KEYID, MINISIGN_KEYID_LEN);
	memcpy(ret->sk, blob + SK_OFF_SK, MINISIGN_SK_LEN);
	r = 0;
out:
	sodium_memzero(blob, sizeof(blob));
	sodium_memzero(sk, sizeof(sk));
	return r;
}

/* Append s to out at *pos; -ENOBUFS when it does not fit with a NUL. */
static int put(char *out, size_t out_size, size_t *pos, const char *s, size_t n)
{
	if (n >= out_size - *pos)
		return -ENOBUFS;
	memcpy(out + *pos, s, n);
	*pos += n;
	out[*pos] = '\0';
	return 0;
}

static int put_b64(char *out, size_t out_size, size_t *pos, const uint8_t *bin, size_t n)
{
	char b64[128];
	int r;

	r = vi_b64_encode(bin, n, b64, sizeof(b64));
	if (r < 0)
		return r;
	r = put(out, out_size, pos, b64, strlen(b64));
	if (r < 0)
		return r;
	return put(out, out_size, pos, "\n", 1);
}

static bool comment_ok(const char *c)
{
	return strlen(c) <= MINISIGN_COMMENT_MAX && !strpbrk(c, "\r\n");
}

/* The libsodium signer of vi_minisign_sign: ctx is the secret key. */
static int sodium_signer(void *ctx, const uint8_t *msg, size_t len, uint8_t sig[MINISIGN_SIG_LEN])
{
	const struct vi_minisign_seckey *sk = ctx;

	crypto_sign_ed25519_detached(sig, NULL, msg, len, sk->sk);
	return 0;
}

int vi_minisign_sign(const struct vi_minisign_seckey *sk, const uint8_t *msg, size_t msg_len,
		  const char *trusted_comment, const char *untrusted_comment,
		  char *out, size_t out_size, size_t *ret_len, struct vi_error *err)
{
	/* Ed25519 signing is deterministic and needs no sodium_init() here; the program calls it
	 * as libsodium asks (verity-init/image/image-sign.c). */
	return vi_minisign_sign_with(sk->key_id, sodium_signer, (void *)sk, msg, msg_len,
				     trusted_comment, untrusted_comment, out, out_size, ret_len, err);
}

int vi_minisign_sign_with(const uint8_t key_id[MINISIGN_KEYID_LEN], vi_minisign_signer_fn sign,
		       void *ctx, const uint8_t *msg, size_t msg_len, const char *trusted_comment,
		       const char *untrusted_comment, char *out, size_t out_size, size_t *ret_len,
		       struct vi_error *err)
{
	uint8_t prehash[crypto_generichash_blake2b_BYTES_MAX];
	uint8_t blob[SIG_BLOB_LEN];
	uint8_t global_msg[MINISIGN_SIG_LEN + MINISIGN_COMMENT_MAX];
	uint8_t global_sig[MINISIGN_SIG_LEN];
	size_t pos = 0, tc_len;
	int r;

	if (!untrusted_comment)
		untrusted_comment = DEFAULT_UNTRUSTED;
	if (!trusted_comment || !comment_ok(trusted_comment) || !comment_ok(untrusted_comment))
		return vi_err(err, "comments must be one line of at most %u bytes",
			      MINISIGN_COMMENT_MAX);
	if (out_size == 0)
		return -ENOBUFS;
	tc_len = strlen(trusted_comment);
	crypto_generichash_blake2b(prehash, sizeof(prehash), msg, msg_len, NULL, 0);
	memcpy(blob, "ED", 2);
	memcpy(blob + 2, key_id, MINISIGN_KEYID_LEN);
	r = sign(ctx, prehash, sizeof(prehash), blob + 2 + MINISIGN_KEYID_LEN);
	if (r < 0)
		return vi_err(err, "the signer failed on the message");
	memcpy(global_msg, blob + 2 + MINISIGN_KEYID_LEN, MINISIGN_SIG_LEN);
	memcpy(global_msg + MINISIGN_SIG_LEN, trusted_comment, tc_len);
	r = sign(ctx, global_msg, MINISIGN_SIG_LEN + tc_len, global_sig);
	if (r < 0)
		return vi_err(err, "the signer failed on the trusted comment");

	out[0] = '\0';
	if ((r = put(out, out_size, &pos, UNTRUSTED_PREFIX, strlen(UNTRUSTED_PREFIX))) < 0 ||
	    (r = put(out, out_size, &pos, untrusted_comment, strlen(untrusted_comment))) < 0 ||
	    (r = put(out, out_size, &pos, "\n", 1)) < 0 ||
	    (r = put_b64(out, out_size, &pos, blob, sizeof(blob))) < 0 ||
	    (r = put(out, out_size, &pos, TRUSTED_PREFIX, strlen(TRUSTED_PREFIX))) < 0 ||
	    (r = put(out, out_size, &pos, trusted_comment, tc_len)) < 0 ||
	    (r = put(out, out_size, &pos, "\n", 1)) < 0 ||
	    (r = put_b64(out, out_size, &pos, global_sig, sizeof(global_sig))) < 0) {
		vi_err(err, "signature does not fit in %zu bytes", out_size);
		return r;
	}
	*ret_len = pos;
	return 0;
}

int vi_minisign_pubkey_format(const struct vi_minisign_seckey *sk, char *out, size_t out_size,
			   struct vi_error *err)
{
	uint8_t blob[PK_BLOB_LEN];
	char id[17], line[64];
	size_t pos = 0;
	int r;

	if (out_size == 0)
		return -ENOBUFS;
	out[0] = '\0';
	vi_minisign_key_id_format(sk->key_id, id);
	snprintf(line, sizeof(line), "minisign public key %s\n", id);
	memcpy(blob, "Ed", 2);
	memcpy(blob + 2, sk->key_id, MINISIGN_KEYID_LEN);
	/* libsodium's secret key is seed | public key */
	memcpy(blob + 2 + MINISIGN_KEYID_LEN, sk->sk + 32, MINISIGN_PK_LEN);
	if ((r = put(out, out_size, &pos, UNTRUSTED_PREFIX, strlen(UNTRUSTED_PREFIX))) < 0 ||
	    (r = put(out, out_size, &pos, line, strlen(line))) < 0 ||
	    (r = put_b64(out, out_size, &pos, blob, sizeof(blob))) < 0) {
		vi_err(err, "public key does not fit in %zu bytes", out_size);
		return r;
	}
	return 0;
}
