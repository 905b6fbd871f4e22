// SPDX-License-Identifier: LGPL-2.1-or-later
/* The parsers of what starts a program (lib/format/loader.c): the interpreter of an ELF binary
 * or a #! script as the kernel takes it, glibc's loader cache, the code paths. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "loader.h"
#include "loader_fixtures.h"

struct mem {
	const unsigned char *buf;
	size_t len;
};

static int mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct mem *m = ctx;

	if (off > m->len || len > m->len - off)
		return -EIO;
	memcpy(buf, m->buf + off, len);
	return 0;
}

/* interp of the bytes b[0..len): r, and on success kind and path */
static int interp(const void *b, size_t len, enum vi_exec_kind *kind, char *path, size_t size)
{
	struct mem m = { b, len };
	struct vi_error err = { "" };

	return vi_exec_interp(mem_read, &m, len, kind, path, size, &err);
}

static void script_is(const char *text, const char *want)
{
	enum vi_exec_kind kind = VI_EXEC_STATIC;
	char path[64] = "";
	int r = interp(text, strlen(text), &kind, path, sizeof(path));

	if (want && (r != 0 || kind != VI_EXEC_SCRIPT || strcmp(path, want)))
		fail_msg("'%s': got %d '%s', want '%s'", text, r, path, want);
	if (!want && r != -ENOEXEC)
		fail_msg("'%s': got %d '%s', want -ENOEXEC", text, r, path);
}

/* binfmt_script's reading of the #! line, case by case. */
static void test_script(void **state)
{
	char line[300];

	(void)state;
	script_is("#!/bin/sh\necho\n", "/bin/sh");
	script_is("#! \t/bin/sh -e\n", "/bin/sh");
	script_is("#!/usr/bin/env  python3  \n", "/usr/bin/env");
	script_is("#!/bin/sh", "/bin/sh");              /* short file: zero-filled, NUL ends it */
	script_is("#!/bin/sh \t", "/bin/sh");
	script_is("#!relative/sh\n", "relative/sh");   /* the check refuses it, not the parser */
	script_is("#!\n", NULL);
	script_is("#!   \t\n", NULL);
	script_is("#!", NULL);
	script_is("#", NULL);
	script_is("", NULL);
	script_is("just text\n", NULL);
	/* no newline in the first 256 bytes: a name running to the end may be cut: refused */
	memset(line, 'a', sizeof(line));
	memcpy(line, "#!/", 3);
	line[sizeof(line) - 1] = '\0';
	script_is(line, NULL);
	/* ... unless a space, tab or NUL follows the name inside them */
	memcpy(line, "#!/bin/sh -x ", 13);
	script_is(line, "/bin/sh");
}

static void test_elf(void **state)
{
	unsigned char b[4096];
	enum vi_exec_kind kind = VI_EXEC_SCRIPT;
	char path[64] = "x", small[8];
	Elf64_Ehdr *e = (Elf64_Ehdr *)b;
	Elf64_Phdr *ph = (Elf64_Phdr *)(b + sizeof(Elf64_Ehdr));
	size_t n;

	(void)state;
	n = fx_elf(b, ET_DYN, "/lib64/ld-linux-x86-64.so.2");
	assert_int_equal(interp(b, n, &kind, path, sizeof(path)), 0);
	assert_int_equal(kind, VI_EXEC_ELF);
	assert_string_equal(path, "/lib64/ld-linux-x86-64.so.2");
	assert_int_equal(interp(b, n, &kind, small, sizeof(small)), -ENAMETOOLONG);
	n = fx_elf(b, ET_EXEC, NULL);
	assert_int_equal(interp(b, n, &kind, path, sizeof(path)), 0);
	assert_int_equal(kind, VI_EXEC_STATIC);
	assert_string_equal(path, "");
	/* the first PT_INTERP wins, as in the kernel */
	assert_true(fx_elf(b, ET_DYN, "/first") < 400);
	ph[0] = ph[1];
	memcpy(b + 400, "/second", 8);
	ph[1].p_offset = 400;
	ph[1].p_filesz = 8;
	assert_int_equal(interp(b, 408, &kind, path, sizeof(path)), 0);
	assert_string_equal(path, "/first");
	/* the name up to its first NUL; its last byte must be one */
	n = fx_elf(b, ET_DYN, "/lib/ld.so");
	b[ph[1].p_offset + 4] = '\0';
	assert_int_equal(interp(b, n, &kind, path, sizeof(path)), 0);
	assert_string_equal(path, "/lib");
	b[ph[1].p_offset + ph[1].p_filesz - 1] = 'x';
	assert_int_equal(interp(b, n, &kind, path, sizeof(path)), -ENOEXEC);
	/* what the kernel refuses */
	n = fx_elf(b, ET_DYN, "/lib/ld.so");
	ph[1].p_filesz = 1;
	assert_int_equal(interp(b, n, &kind, path, sizeof(path)), -ENOEXEC);
	ph[1].p_filesz = 100000;
	assert_int_equal(interp(b, n, &kind, path, sizeof(path)), -ENOEXEC);
	ph[1].p_filesz = 11;
	ph[1].p_offset = UINT64_MAX - 4;
	assert_int_equal(interp(b, n, &kind, path, sizeof(path)), -ENOEXEC);
	n = fx_elf(b, ET_DYN, "/lib/ld.so");
	e->e_phoff = UINT64_MAX - 10;
	assert_int_equal(interp(b, n, &kind, path, sizeof(path)), -ENOEXEC);
	n = fx_elf(b, ET_DYN, "/lib/ld.so");
	e->e_phnum = 0;
	assert_int_equal(interp(b, n, &kind, path, sizeof(path)), -ENOEXEC);
	n = fx_elf(b, ET_DYN, "/lib/ld.so");
	e->e_phentsize = 32;
	assert_int_equal(interp(b, n, &kind, path, sizeof(path)), -ENOEXEC);
	n = fx_elf(b, ET_REL, "/lib/ld.so");
	assert_int_equal(interp(b, n, &kind, path, sizeof(path)), -ENOEXEC);
	n = fx_elf(b, ET_DYN, "/lib/ld.so");
	b[EI_DATA] = ELFDATA2MSB;
	assert_int_equal(interp(b, n, &kind, path, sizeof(path)), -ENOEXEC);
	b[EI_DATA] = ELFDATA2LSB;
	b[EI_CLASS] = 7;
	assert_int_equal(interp(b, n, &kind, path, sizeof(path)), -ENOEXEC);
	/* cut short anywhere: refused, never read past the end */
	n = fx_elf(b, ET_DYN, "/lib/ld.so");
	for (size_t len = 0; len < n; len++) {
		int r = interp(b, len, &kind, path, sizeof(path));

		if (r == 0)
			fail_msg("cut at %zu: accepted", len);
	}
	/* untouched on failure */
	strcpy(path, "keep");
	kind = VI_EXEC_SCRIPT;
	assert_int_equal(interp(b, 10, &kind, path, sizeof(path)), -ENOEXEC);
	assert_string_equal(path, "keep");
	assert_int_equal(kind, VI_EXEC_SCRIPT);
}

/* A 32-bit program (i386 on x86-64) names its loader the same way. */
static void test_elf32(void **state)
{
	unsigned char b[512] = { 0 };
	Elf32_Ehdr e = { 0 };
	Elf32_Phdr ph = { 0 };
	enum vi_exec_kind kind;
	char path[64];

	(void)state;
	memcpy(e.e_ident, ELFMAG, SELFMAG);
	e.e_ident[EI_CLASS] = ELFCLASS32;
	e.e_ident[EI_DATA] = ELFDATA2LSB;
	e.e_type = ET_EXEC;
	e.e_phoff = sizeof(e);
	e.e_phentsize = sizeof(ph);
	e.e_phnum = 1;
	ph.p_type = PT_INTERP;
	ph.p_offset = 200;
	ph.p_filesz = 14;
	memcpy(b, &e, sizeof(e));
	memcpy(b + sizeof(e), &ph, sizeof(ph));
	memcpy(b + 200, "/lib/ld-linux", 14);
	assert_int_equal(interp(b, sizeof(b), &kind, path, sizeof(path)), 0);
	assert_int_equal(kind, VI_EXEC_ELF);
	assert_string_equal(path, "/lib/ld-linux");
}

/* Real programs of this machine: a dynamic one names the loader, a static one nothing. */
static void test_host_programs(void **state)
{
	static const char *const dynamic[] = { "/bin/true", "/usr/bin/true", "/bin/sh" };
	enum vi_exec_kind kind;
	struct vi_error err = { "" };
	char path[256];
	int checked = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(dynamic) / sizeof(dynamic[0]); i++) {
		struct stat st;
		int fd = open(dynamic[i], O_RDONLY | O_CLOEXEC);
		unsigned char *b;
		struct mem m;

		if (fd < 0 || fstat(fd, &st) < 0) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		b = malloc((size_t)st.st_size);
		assert_non_null(b);
		assert_int_equal(read(fd, b, (size_t)st.st_size), st.st_size);
		close(fd);
		m = (struct mem){ b, (size_t)st.st_size };
		assert_int_equal(vi_exec_interp(mem_read, &m, m.len, &kind, path, sizeof(path), &err),
				 0);
		assert_int_equal(kind, VI_EXEC_ELF);
		assert_true(path[0] == '/' && strstr(path, "ld-"));
		free(b);
		checked++;
	}
	assert_true(checked > 0);
}

struct seen {
	unsigned n;
	char last[128];
	int stop_at;
};

static int count(void *ctx, const char *name, const char *path)
{
	struct seen *s = ctx;

	(void)name;
	snprintf(s->last, sizeof(s->last), "%s", path);
	return ++s->n == (unsigned)s->stop_at ? -ECANCELED : 0;
}

static void test_ldcache(void **state)
{
	static const char *const names[] = { "libc.so.6", "libm.so.6", "libevil.so" };
	static const char *const paths[] = { "/lib/x86_64-linux-gnu/libc.so.6",
					     "/usr/lib/x86_64-linux-gnu/libm.so.6", "/etc/evil.so" };
	unsigned char b[1024], compat[2048];
	struct vi_error err = { "" };
	struct seen s = { 0 };
	size_t n, at;
	uint32_t big = 1000;

	(void)state;
	n = fx_cache_new(b, sizeof(b), names, paths, 3);
	assert_int_equal(vi_ldcache_parse(b, n, count, &s, &err), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.last, "/etc/evil.so");
	/* a callback's refusal stops the walk */
	s = (struct seen){ .stop_at = 2 };
	assert_int_equal(vi_ldcache_parse(b, n, count, &s, &err), -ECANCELED);
	assert_int_equal(s.n, 2);
	/* cut anywhere inside the strings or entries: refused before any entry is given */
	for (size_t len = 0; len < n; len++) {
		s = (struct seen){ 0 };
		if (vi_ldcache_parse(b, len, count, &s, &err) != -EBADMSG || s.n != 0)
			fail_msg("new format cut at %zu: accepted or gave %u entries", len, s.n);
	}
	memcpy(b + 20, &big, 4);
	assert_int_equal(vi_ldcache_parse(b, n, count, &s, &err), -EBADMSG);
	n = fx_cache_new(b, sizeof(b), names, paths, 3);
	memcpy(b + 17, "1.2", 3);
	assert_int_equal(vi_ldcache_parse(b, n, count, &s, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "version 1.2"));
	/* the old format */
	n = fx_cache_old(b, sizeof(b), names, paths, 3);
	s = (struct seen){ 0 };
	assert_int_equal(vi_ldcache_parse(b, n, count, &s, &err), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.last, "/etc/evil.so");
	for (size_t len = 0; len < n; len++) {
		s = (struct seen){ 0 };
		if (vi_ldcache_parse(b, len, count, &s, &err) != -EBADMSG || s.n != 0)
			fail_msg("old format cut at %zu: accepted or gave %u entries", len, s.n);
	}
	/* compat (ldconfig -c compat): the old format, then the new one 8-aligned, the old
	 * entries' strings shared with it (offsets from the end of the old entries, here the
	 * same place); both sections' entries are given */
	at = 16 + 12 * 2;
	n = fx_cache_new(compat + at, sizeof(compat) - at, names, paths, 3);
	memcpy(compat, "ld.so-1.7.0", 12);
	memcpy(compat + 12, &(uint32_t){ 2 }, 4);
	for (int i = 0; i < 2; i++)
		memcpy(compat + 16 + 12 * i, compat + at + 48 + 24 * i, 12);
	s = (struct seen){ 0 };
	assert_int_equal(vi_ldcache_parse(compat, at + n, count, &s, &err), 0);
	assert_int_equal(s.n, 5);
	assert_string_equal(s.last, "/etc/evil.so");
	/* a new section that does not fit after the old one */
	assert_int_equal(vi_ldcache_parse(compat, at + 30, count, &s, &err), -EBADMSG);
	/* neither magic */
	assert_int_equal(vi_ldcache_parse((const unsigned char *)"hello", 5, count, &s, &err),
			 -EBADMSG);
}

/* The cache ldconfig wrote on this machine. */
static void test_host_ldcache(void **state)
{
	struct vi_error err = { "" };
	struct seen s = { 0 };
	unsigned char *b;
	struct stat st;
	int fd;

	(void)state;
	fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		skip();
	assert_int_equal(fstat(fd, &st), 0);
	b = malloc((size_t)st.st_size);
	assert_non_null(b);
	assert_int_equal(read(fd, b, (size_t)st.st_size), st.st_size);
	close(fd);
	assert_int_equal(vi_ldcache_parse(b, (size_t)st.st_size, count, &s, &err), 0);
	assert_true(s.n > 10);
	assert_true(s.last[0] == '/');
	free(b);
}

static void test_code_path(void **state)
{
	static const char *const good[] = {
		"/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6",
		"/lib64/ld-linux-x86-64.so.2", "/lib32/libc.so.6", "/libx32/libc.so.6",
		"/bin/sh", "/sbin/init", "/usr/x",
	};
	static const char *const bad[] = {
		"", "/", "usr/lib/libc.so", "/usr", "/usr/", "/etc/evil.so", "/usr/../etc/evil.so",
		"/usr/lib/./libc.so", "/usr//lib", "/usr/lib/", "/usr/lib/..", "/lib", "/libfoo/x",
		"/var/lib/x.so", "/usrx/lib", "/us/x", "//usr/lib",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!vi_code_path(good[i]))
			fail_msg("'%s' refused", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (vi_code_path(bad[i]))
			fail_msg("'%s' accepted", bad[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_script),
		cmocka_unit_test(test_elf),
		cmocka_unit_test(test_elf32),
		cmocka_unit_test(test_host_programs),
		cmocka_unit_test(test_ldcache),
		cmocka_unit_test(test_host_ldcache),
		cmocka_unit_test(test_code_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
