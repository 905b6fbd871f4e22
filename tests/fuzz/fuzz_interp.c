// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the interpreter an executable names (vi_exec_interp) and a program
 * loader's identity (vi_elf_soname, vi_glibc_loader_soname, vi_musl_etc_dir), read from a root
 * nobody verified. Oracles besides the sanitizers: the parsers never ask for bytes outside the
 * file (they check every offset first); an accepted name is non-empty, fits, and comes from the
 * file: a #! name from its first 256 bytes without spaces or tabs, an ELF name from the file, a
 * soname from the file with its NUL, shorter than VI_SONAME_MAX; musl's directory is a prefix of
 * the interpreter's path and "/etc"; outputs untouched on failure; the same answer twice. */
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

/* The loader's identity, from the same bytes. */
static void soname(const uint8_t *data, size_t size)
{
	struct mem m = { data, size };
	char name[VI_SONAME_MAX] = "untouched", name2[VI_SONAME_MAX], small[4] = "abc";
	struct vi_error err;
	size_t n;
	int r;

	memset(&err, 0x55, sizeof(err));
	r = vi_elf_soname(mem_read, &m, size, name, sizeof(name), &err);
	if (r < 0) {
		CHECK(r == -ENOEXEC);
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		CHECK(!strcmp(name, "untouched"));
		return;
	}
	CHECK(vi_elf_soname(mem_read, &m, size, name2, sizeof(name2), &err) == 0);
	CHECK(!strcmp(name, name2));
	n = strlen(name);
	CHECK(n < VI_SONAME_MAX);
	CHECK(n == 0 || memmem(data, size, name, n + 1) != NULL);
	r = vi_elf_soname(mem_read, &m, size, small, sizeof(small), &err);
	CHECK(n < sizeof(small) ? r == 0 && !strcmp(small, name) :
	      r == -ENAMETOOLONG && !strcmp(small, "abc"));
	(void)vi_glibc_loader_soname(name);
}

/* Where musl would read its search path, for an accepted interpreter. */
static void musl_dir(const char *path)
{
	char dir[VI_INTERP_MAX + 8];
	size_t n;

	CHECK(vi_musl_etc_dir(path, dir, sizeof(dir)) == 0);
	n = strlen(dir);
	CHECK(n >= 4 && !strcmp(dir + n - 4, "/etc") && !strncmp(dir, path, n - 4));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem m = { data, size };
	enum vi_exec_kind kind = (enum vi_exec_kind)77, kind2;
	char path[VI_INTERP_MAX] = "untouched", path2[VI_INTERP_MAX];
	struct vi_error err;
	size_t head = size < VI_SCRIPT_HEAD ? size : VI_SCRIPT_HEAD;
	int r;

	soname(data, size);
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
		musl_dir(path);
		break;
	default:
		abort();
	}
	return 0;
}
