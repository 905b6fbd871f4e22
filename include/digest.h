/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A small digest interface so the tree code runs on OpenSSL (host tool) or on the kernel's
 * crypto through AF_ALG (static agent) without knowing which. All functions return 0 or a
 * negative errno. */
#ifndef VERITY_DIGEST_H
#define VERITY_DIGEST_H

#include <stddef.h>
#include <stdint.h>

struct vi_digest_ctx;   /* backend-defined */

struct vi_digest_ops {
	const char *name;
	/* New context for hash_name ("sha256"); -ENOENT if the algorithm is unavailable. */
	int  (*new_ctx)(const char *hash_name, struct vi_digest_ctx **ret);
	/* Copy of a context's current state (the salted prefix is hashed once, then copied). */
	int  (*dup)(const struct vi_digest_ctx *src, struct vi_digest_ctx **ret);
	/* Replace dst's state by src's (same algorithm), reusing dst's resources: the per-block
	 * path of the tree code, so that it allocates nothing. */
	int  (*copy)(struct vi_digest_ctx *dst, const struct vi_digest_ctx *src);
	int  (*update)(struct vi_digest_ctx *c, const void *buf, size_t len);
	/* Write the digest (out_len must be at least the digest size; exactly the digest size is
	 * written). The context may not be updated afterwards, only copied over or freed. */
	int  (*final)(struct vi_digest_ctx *c, uint8_t *out, size_t out_len);
	void (*free)(struct vi_digest_ctx *c);
};

extern const struct vi_digest_ops vi_digest_openssl_ops;  /* lib/format/digest_openssl.c, host programs */
extern const struct vi_digest_ops vi_digest_afalg_ops;    /* lib/format/digest_afalg.c, agent */

#endif
