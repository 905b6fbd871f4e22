// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: glibc's loader cache (vi_ldcache_parse), /etc/ld.so.cache of a root nobody
 * verified. Oracles besides the sanitizers: every name and path given lies inside the input
 * with its NUL; a refused cache gives no entry at all (it is checked whole first); no more
 * entries than 12-byte records fit; the same entries twice; vi_code_path accepts only absolute
 * paths without "." or ".." parts. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	const uint8_t *buf;
	size_t len, n;
	uint64_t sum;
};

static void inside(const struct seen *s, const char *p)
{
	const uint8_t *q = (const uint8_t *)p;

	CHECK(q >= s->buf && q < s->buf + s->len);
	CHECK(memchr(q, '\0', s->len - (size_t)(q - s->buf)) != NULL);
}

static int entry(void *ctx, const char *name, const char *path)
{
	struct seen *s = ctx;

	inside(s, name);
	inside(s, path);
	s->n++;
	s->sum = s->sum * 31 + (uint64_t)(path - (const char *)s->buf);
	if (vi_code_path(path)) {
		CHECK(path[0] == '/' && !strstr(path, "//") && !strstr(path, "/./") &&
		      !strstr(path, "/../"));
		CHECK(strcmp(path + strlen(path) - 2, "/.") && strcmp(path + strlen(path) - 3, "/.."));
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen a = { data, size, 0, 0 }, b = { data, size, 0, 0 };
	struct vi_error err;
	int r;

	memset(&err, 0x55, sizeof(err));
	r = vi_ldcache_parse(data, size, entry, &a, &err);
	if (r < 0) {
		CHECK(r == -EBADMSG && a.n == 0);
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		return 0;
	}
	CHECK(a.n <= size / 12);
	CHECK(vi_ldcache_parse(data, size, entry, &b, &err) == 0);
	CHECK(a.n == b.n && a.sum == b.sum);
	return 0;
}
