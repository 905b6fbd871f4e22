// SPDX-License-Identifier: LGPL-2.1-or-later
/* Kernel crypto through AF_ALG: the static agent hashes with the same implementation dm-verity
 * uses and carries no userspace crypto library. A context is one "operation" socket accepted
 * from a bound "hash" socket; accept() on an operation socket clones its partial state, which
 * is how dup/copy work (algif_hash exports and imports the state). */
#include "digest.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if_alg.h>

#include "superblock.h"

#ifndef AF_ALG
#define AF_ALG 38
#endif

struct vi_digest_ctx {
	int tfm_fd;      /* bound transform socket; -1 in duplicates (the kernel keeps a ref) */
	int op_fd;       /* operation socket carrying the hash state */
	unsigned size;
};

static void alg_free(struct vi_digest_ctx *c)
{
	if (!c)
		return;
	if (c->op_fd >= 0)
		close(c->op_fd);
	if (c->tfm_fd >= 0)
		close(c->tfm_fd);
	free(c);
}

static int alg_new(const char *hash_name, struct vi_digest_ctx **ret)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG, .salg_type = "hash" };
	struct vi_digest_ctx *c;
	int r;

	if (strlen(hash_name) >= sizeof(sa.salg_name))
		return -ENOENT;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->tfm_fd = c->op_fd = -1;
	/* The digest size is needed for recv(); only names whose size we know are accepted. */
	c->size = vi_digest_size(hash_name);
	if (!c->size) {
		r = -ENOENT;
		goto out_free;
	}
	memcpy(sa.salg_name, hash_name, strlen(hash_name) + 1);
	c->tfm_fd = socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (c->tfm_fd < 0) {
		r = -errno;
		goto out_free;
	}
	if (bind(c->tfm_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		/* ENOENT: no such algorithm (or its module is not loaded) */
		r = -errno;
		goto out_free;
	}
	c->op_fd = accept4(c->tfm_fd, NULL, NULL, SOCK_CLOEXEC);
	if (c->op_fd < 0) {
		r = -errno;
		goto out_free;
	}
	*ret = c;
	return 0;

out_free:
	alg_free(c);
	return r;
}

static int alg_dup(const struct vi_digest_ctx *src, struct vi_digest_ctx **ret)
{
	struct vi_digest_ctx *c;
	int r;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->tfm_fd = -1;
	c->size = src->size;
	c->op_fd = accept4(src->op_fd, NULL, NULL, SOCK_CLOEXEC);
	if (c->op_fd < 0) {
		r = -errno;
		free(c);
		return r;
	}
	*ret = c;
	return 0;
}

static int alg_copy(struct vi_digest_ctx *dst, const struct vi_digest_ctx *src)
{
	int fd = accept4(src->op_fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (dst->op_fd >= 0)
		close(dst->op_fd);
	dst->op_fd = fd;
	return 0;
}

static int alg_update(struct vi_digest_ctx *c, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = send(c->op_fd, p, len, MSG_MORE);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int alg_final(struct vi_digest_ctx *c, uint8_t *out, size_t out_len)
{
	ssize_t n;

	if (out_len < c->size)
		return -ENOBUFS;
	do
		n = recv(c->op_fd, out, c->size, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == c->size ? 0 : -EIO;
}

const struct vi_digest_ops vi_digest_afalg_ops = {
	.name = "af_alg",
	.new_ctx = alg_new,
	.dup = alg_dup,
	.copy = alg_copy,
	.update = alg_update,
	.final = alg_final,
	.free = alg_free,
};
