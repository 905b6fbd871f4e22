// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the interpreter an executable names (vi_exec_interp), read from a root
 * nobody verified. Oracles besides the sanitizers: the parser never asks for bytes outside the
 * file (it checks every offset first); an accepted name is non-empty, fits, and comes from the
 * file: a #! name from its first 256 bytes without spaces or tabs, an ELF name from the file;
 * outputs untouched on failure; the same answer twice. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct mem {
	const uint8_t *buf;
	size_t len;
};

static int mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct mem *m = ctx;

	CHECK(off <= m->len && len <= m->len - off);
	memcpy(buf, m->buf + off, len);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem m = { data, size };
	enum vi_exec_kind kind = (enum vi_exec_kind)77, kind2;
	char path[VI_INTERP_MAX] = "untouched", path2[VI_INTERP_MAX];
	struct vi_error err;
	size_t head = size < VI_SCRIPT_HEAD ? size : VI_SCRIPT_HEAD;
	int r;

	memset(&err, 0x55, sizeof(err));
	r = vi_exec_interp(mem_read, &m, size, &kind, path, sizeof(path), &err);
	if (r < 0) {
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		CHECK(kind == (enum vi_exec_kind)77 && !strcmp(path, "untouched"));
		return 0;
	}
	CHECK(vi_exec_interp(mem_read, &m, size, &kind2, path2, sizeof(path2), &err) == 0);
	CHECK(kind2 == kind && !strcmp(path, path2));
	switch (kind) {
	case VI_EXEC_STATIC:
		CHECK(path[0] == '\0');
		break;
	case VI_EXEC_SCRIPT:
		CHECK(path[0] && !strpbrk(path, " \t\n"));
		CHECK(head >= 2 && data[0] == '#' && data[1] == '!');
		CHECK(memmem(data, head, path, strlen(path)) != NULL);
		break;
	case VI_EXEC_ELF:
		CHECK(path[0] && memmem(data, size, path, strlen(path) + 1) != NULL);
		break;
	default:
		abort();
	}
	return 0;
}
