// SPDX-License-Identifier: LGPL-2.1-or-later
/* The parsers of what starts a program (lib/format/loader.c): the interpreter of an ELF binary
 * or a #! script as the kernel takes it, the loader's DT_SONAME and musl's search path file,
 * glibc's loader cache, the code paths. */
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

/* A file of this machine read whole into *ret (free ret->buf); false when it is not there. */
static bool mem_load(const char *path, struct mem *ret)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned char *b;

	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	b = malloc((size_t)st.st_size);
	assert_non_null(b);
	assert_int_equal(read(fd, b, (size_t)st.st_size), st.st_size);
	close(fd);
	*ret = (struct mem){ b, (size_t)st.st_size };
	return true;
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
		struct mem m;

		if (!mem_load(dynamic[i], &m))
			continue;
		assert_int_equal(vi_exec_interp(mem_read, &m, m.len, &kind, path, sizeof(path), &err),
				 0);
		assert_int_equal(kind, VI_EXEC_ELF);
		assert_true(path[0] == '/' && strstr(path, "ld-"));
		free((void *)m.buf);
		checked++;
	}
	assert_true(checked > 0);
}

/* soname of the bytes b[0..len): r, and on success name */
static int soname(const void *b, size_t len, char *name, size_t size)
{
	struct mem m = { b, len };
	struct vi_error err = { "" };

	return vi_elf_soname(mem_read, &m, len, name, size, &err);
}

/* A program loader's identity: its DT_SONAME, found through PT_DYNAMIC and a PT_LOAD. */
static void test_soname(void **state)
{
	unsigned char b[4096];
	Elf64_Phdr *ph = (Elf64_Phdr *)(b + sizeof(Elf64_Ehdr));
	Elf64_Dyn *d;
	char name[64] = "", small[8] = "keep";
	size_t n;

	(void)state;
	n = fx_elf_so(b, "ld-linux-x86-64.so.2");
	assert_int_equal(soname(b, n, name, sizeof(name)), 0);
	assert_string_equal(name, "ld-linux-x86-64.so.2");
	assert_int_equal(soname(b, n, small, sizeof(small)), -ENAMETOOLONG);
	assert_string_equal(small, "keep");
	/* musl's libc.so has none; a file without PT_DYNAMIC neither */
	n = fx_elf_so(b, NULL);
	assert_int_equal(soname(b, n, name, sizeof(name)), 0);
	assert_string_equal(name, "");
	n = fx_elf(b, ET_DYN, NULL);
	strcpy(name, "x");
	assert_int_equal(soname(b, n, name, sizeof(name)), 0);
	assert_string_equal(name, "");
	/* entries after DT_NULL are not read; without DT_NULL the segment's end stops the walk */
	n = fx_elf_so(b, "ld.so.1");
	d = (Elf64_Dyn *)(b + ph[1].p_offset);
	d[3].d_tag = DT_DEBUG;
	assert_int_equal(soname(b, n, name, sizeof(name)), 0);
	assert_string_equal(name, "ld.so.1");
	d[2].d_tag = DT_NULL;
	assert_int_equal(soname(b, n, name, sizeof(name)), 0);
	assert_string_equal(name, "");
	/* what cannot be read as the loader's own name: refused */
	n = fx_elf_so(b, "ld.so.1");
	d[2].d_un.d_val = d[1].d_un.d_val;      /* at the end of the table */
	assert_int_equal(soname(b, n, name, sizeof(name)), -ENOEXEC);
	n = fx_elf_so(b, "ld.so.1");
	d[1].d_un.d_val = 4;                    /* the table ends inside the name */
	assert_int_equal(soname(b, n, name, sizeof(name)), -ENOEXEC);
	n = fx_elf_so(b, "ld.so.1");
	d[0].d_un.d_ptr = 5;                    /* the table in no PT_LOAD */
	assert_int_equal(soname(b, n, name, sizeof(name)), -ENOEXEC);
	d[0].d_un.d_ptr = UINT64_MAX;           /* table + offset wraps */
	assert_int_equal(soname(b, n, name, sizeof(name)), -ENOEXEC);
	n = fx_elf_so(b, "ld.so.1");
	d[0].d_tag = DT_HASH;                   /* no table at all */
	assert_int_equal(soname(b, n, name, sizeof(name)), -ENOEXEC);
	n = fx_elf_so(b, "ld.so.1");
	ph[0].p_filesz = n + 1;                 /* the PT_LOAD past the file's end */
	assert_int_equal(soname(b, n, name, sizeof(name)), -ENOEXEC);
	n = fx_elf_so(b, "ld.so.1");
	d[3].d_tag = DT_SONAME;                 /* twice */
	assert_int_equal(soname(b, n, name, sizeof(name)), -ENOEXEC);
	n = fx_elf_so(b, "ld.so.1");
	ph[0].p_type = PT_DYNAMIC;              /* two dynamic sections */
	assert_int_equal(soname(b, n, name, sizeof(name)), -ENOEXEC);
	n = fx_elf_so(b, "ld.so.1");
	ph[1].p_offset = UINT64_MAX - 4;
	assert_int_equal(soname(b, n, name, sizeof(name)), -ENOEXEC);
	n = fx_elf_so(b, "ld.so.1");
	ph[1].p_filesz = VI_DYNAMIC_MAX + 16;
	assert_int_equal(soname(b, n, name, sizeof(name)), -ENOEXEC);
	/* a name as long as the string table allows, but past our limit */
	memset(b, 0, sizeof(b));
	{
		char longname[VI_SONAME_MAX + 10];

		memset(longname, 'a', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		n = fx_elf_so(b, longname);
		assert_int_equal(soname(b, n, name, sizeof(name)), -ENOEXEC);
	}
	n = fx_elf_so(b, "x");
	b[EI_DATA] = ELFDATA2MSB;
	assert_int_equal(soname(b, n, name, sizeof(name)), -ENOEXEC);
	assert_int_equal(soname("#!/bin/sh\n", 10, name, sizeof(name)), -ENOEXEC);
	/* cut short anywhere: refused, never read past the end (mem_read's -EIO) */
	n = fx_elf_so(b, "ld-linux-x86-64.so.2");
	for (size_t len = 0; len < n; len++) {
		int r = soname(b, len, name, sizeof(name));

		if (r != -ENOEXEC)
			fail_msg("cut at %zu: %d", len, r);
	}
}

/* glibc's loader names on each architecture, and what is not one. */
static void test_glibc_soname(void **state)
{
	static const char *const yes[] = {
		"ld-linux-x86-64.so.2", "ld-linux.so.2", "ld-linux-x32.so.2", "ld-linux-aarch64.so.1",
		"ld-linux-aarch64_be.so.1", "ld-linux-armhf.so.3", "ld-linux.so.3",
		"ld-linux-riscv64-lp64d.so.1", "ld-linux-loongarch-lp64d.so.1", "ld64.so.1",
		"ld64.so.2", "ld.so.1",
	};
	static const char *const no[] = {
		"", "libc.so", "libc.so.6", "ld-musl-x86_64.so.1", "ld-uClibc.so.0", "ld-linux.so",
		"ld-linux.so.", "ld-linux.so.x", "ld-linuxx.so.2", "ld-linux-.so.2x", "ld.so",
		"ld-linux-x86-64.so.2.so.2", "ld-linux-X86.so.1", "ld-linux-x86-64.so.2 ",
		"ld-linux/x.so.2", "xld.so.1", "ld65.so.1",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!vi_glibc_loader_soname(yes[i]))
			fail_msg("'%s' not taken for glibc's loader", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (vi_glibc_loader_soname(no[i]))
			fail_msg("'%s' taken for glibc's loader", no[i]);
}

/* Where musl's loader reads ld-musl-ARCH.path, counted by slashes as musl does. */
static void test_musl_etc_dir(void **state)
{
	static const char *const cases[][2] = {
		{ "/lib/ld-musl-x86_64.so.1", "/etc" },
		{ "/usr/lib/musl/lib/libc.so", "/usr/lib/musl/etc" },
		{ "/usr/lib/x86_64-linux-musl/libc.so", "/usr/lib/etc" },
		{ "/libc.so", "/etc" },
		{ "//libc.so", "/etc" },
		{ "libc.so", "/etc" },
		{ "lib/x/libc.so", "/etc" },
		{ "/a/b/", "/a/etc" },
		{ "/usr/lib/../../lib/libc.so", "/usr/lib/../../etc" },
	};
	char dir[64], small[8] = "keep";

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(vi_musl_etc_dir(cases[i][0], dir, sizeof(dir)), 0);
		if (strcmp(dir, cases[i][1]))
			fail_msg("%s: got %s, want %s", cases[i][0], dir, cases[i][1]);
	}
	assert_int_equal(vi_musl_etc_dir("/usr/lib/musl/lib/libc.so", small, sizeof(small)),
			 -ENAMETOOLONG);
	assert_string_equal(small, "keep");
	assert_int_equal(vi_musl_etc_dir("/lib/libc.so", small, 5), 0);
	assert_string_equal(small, "/etc");
}

/* This machine's program loaders (64- and 32-bit) are glibc's by their DT_SONAME; its programs
 * have none. */
static void test_host_loader(void **state)
{
	static const char *const files[] = { "/lib64/ld-linux-x86-64.so.2",
					     "/usr/lib32/ld-linux.so.2", "/bin/sh" };
	struct vi_error err = { "" };
	char name[VI_SONAME_MAX];
	int checked = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct mem m;

		if (!mem_load(files[i], &m))
			continue;
		assert_int_equal(vi_elf_soname(mem_read, &m, m.len, name, sizeof(name), &err), 0);
		if (strstr(files[i], "/ld-linux"))
			assert_true(vi_glibc_loader_soname(name));
		else
			assert_string_equal(name, "");
		free((void *)m.buf);
		checked++;
	}
	if (!checked)
		skip();
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
		cmocka_unit_test(test_soname),
		cmocka_unit_test(test_glibc_soname),
		cmocka_unit_test(test_musl_etc_dir),
		cmocka_unit_test(test_host_loader),
		cmocka_unit_test(test_ldcache),
		cmocka_unit_test(test_host_ldcache),
		cmocka_unit_test(test_code_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
