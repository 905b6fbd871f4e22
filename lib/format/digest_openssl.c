// SPDX-License-Identifier: LGPL-2.1-or-later
/* OpenSSL EVP digest backend for host programs (SHA-NI / AVX2 code paths come with it). The
 * static agent never links this object: nothing it uses refers to vi_digest_openssl_ops. */
#include "digest.h"

#include <errno.h>
#include <stdlib.h>

#include <openssl/evp.h>

struct vi_digest_ctx {
	EVP_MD *md;          /* fetched once per context family; each context holds a ref */
	EVP_MD_CTX *ctx;
	unsigned size;
};

static void ossl_free(struct vi_digest_ctx *c)
{
	if (!c)
		return;
	EVP_MD_CTX_free(c->ctx);
	EVP_MD_free(c->md);
	free(c);
}

static int ossl_new(const char *hash_name, struct vi_digest_ctx **ret)
{
	struct vi_digest_ctx *c;
	int r;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	/* An explicit fetch avoids the per-init implicit lookup of EVP_get_digestbyname. */
	c->md = EVP_MD_fetch(NULL, hash_name, NULL);
	if (!c->md) {
		r = -ENOENT;
		goto out_free;
	}
	c->ctx = EVP_MD_CTX_new();
	if (!c->ctx) {
		r = -ENOMEM;
		goto out_free;
	}
	if (EVP_DigestInit_ex(c->ctx, c->md, NULL) != 1) {
		r = -EINVAL;
		goto out_free;
	}
	c->size = (unsigned)EVP_MD_get_size(c->md);
	*ret = c;
	return 0;

out_free:
	ossl_free(c);
	return r;
}

static int ossl_dup(const struct vi_digest_ctx *src, struct vi_digest_ctx **ret)
{
	struct vi_digest_ctx *c;
	int r;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (EVP_MD_up_ref(src->md) != 1) {
		free(c);
		return -ENOMEM;
	}
	c->md = src->md;
	c->size = src->size;
	c->ctx = EVP_MD_CTX_new();
	if (!c->ctx) {
		r = -ENOMEM;
		goto out_free;
	}
	if (EVP_MD_CTX_copy_ex(c->ctx, src->ctx) != 1) {
		r = -ENOMEM;
		goto out_free;
	}
	*ret = c;
	return 0;

out_free:
	ossl_free(c);
	return r;
}

static int ossl_copy(struct vi_digest_ctx *dst, const struct vi_digest_ctx *src)
{
	return EVP_MD_CTX_copy_ex(dst->ctx, src->ctx) == 1 ? 0 : -ENOMEM;
}

static int ossl_update(struct vi_digest_ctx *c, const void *buf, size_t len)
{
	return EVP_DigestUpdate(c->ctx, buf, len) == 1 ? 0 : -EINVAL;
}

static int ossl_final(struct vi_digest_ctx *c, uint8_t *out, size_t out_len)
{
	if (out_len < c->size)
		return -ENOBUFS;
	return EVP_DigestFinal_ex(c->ctx, out, NULL) == 1 ? 0 : -EINVAL;
}

const struct vi_digest_ops vi_digest_openssl_ops = {
	.name = "openssl",
	.new_ctx = ossl_new,
	.dup = ossl_dup,
	.copy = ossl_copy,
	.update = ossl_update,
	.final = ossl_final,
	.free = ossl_free,
};
