/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Executables and loader caches built byte by byte, as the kernel and glibc's ldconfig lay them
 * out (include/loader.h): for test_loader.c and test_usrloader.c. */
#ifndef VERITY_TEST_LOADER_FIXTURES_H
#define VERITY_TEST_LOADER_FIXTURES_H

#include <elf.h>
#include <stdint.h>
#include <string.h>

/* The header of a 64-bit little-endian x86-64 ELF file of type type, its n program headers right
 * after it. */
static inline void fx_elf_head(Elf64_Ehdr *e, uint16_t type, size_t n)
{
	memset(e, 0, sizeof(*e));
	memcpy(e->e_ident, ELFMAG, SELFMAG);
	e->e_ident[EI_CLASS] = ELFCLASS64;
	e->e_ident[EI_DATA] = ELFDATA2LSB;
	e->e_ident[EI_VERSION] = EV_CURRENT;
	e->e_type = type;
	e->e_machine = EM_X86_64;
	e->e_version = EV_CURRENT;
	e->e_phoff = sizeof(*e);
	e->e_ehsize = sizeof(*e);
	e->e_phentsize = sizeof(Elf64_Phdr);
	e->e_phnum = (uint16_t)n;
}

/* A 64-bit little-endian ELF file of type type in buf (at least 4096 bytes): one PT_LOAD, then
 * a PT_INTERP naming interp unless it is NULL. Returns its size. */
static inline size_t fx_elf(unsigned char *buf, uint16_t type, const char *interp)
{
	Elf64_Ehdr e;
	Elf64_Phdr ph[2] = { { 0 } };
	size_t n = interp ? 2 : 1, at = sizeof(e) + n * sizeof(Elf64_Phdr);

	fx_elf_head(&e, type, n);
	ph[0].p_type = PT_LOAD;
	ph[0].p_filesz = 64;
	if (interp) {
		ph[1].p_type = PT_INTERP;
		ph[1].p_offset = at;
		ph[1].p_filesz = strlen(interp) + 1;
	}
	memset(buf, 0, 4096);
	memcpy(buf, &e, sizeof(e));
	memcpy(buf + sizeof(e), ph, n * sizeof(Elf64_Phdr));
	if (interp) {
		memcpy(buf + at, interp, strlen(interp) + 1);
		at += strlen(interp) + 1;
	}
	return at;
}

/* A 64-bit little-endian shared object in buf (at least 4096 bytes), as a program loader is
 * laid out: one PT_LOAD mapping the whole file at address 0x10000 (so that addresses and file
 * offsets differ), a PT_DYNAMIC with DT_STRTAB, DT_STRSZ and, unless soname is NULL, DT_SONAME
 * (musl's libc.so has none). Returns its size. */
static inline size_t fx_elf_so(unsigned char *buf, const char *soname)
{
	enum { VADDR = 0x10000 };
	Elf64_Ehdr e;
	Elf64_Phdr ph[2] = { { 0 } };
	Elf64_Dyn dyn[4] = { { 0 } };
	size_t at = sizeof(e) + sizeof(ph), str = at + sizeof(dyn), n = 0, len;

	fx_elf_head(&e, ET_DYN, 2);
	memset(buf, 0, 4096);
	/* the string table: "\0" then the soname */
	len = 1;
	if (soname) {
		memcpy(buf + str + 1, soname, strlen(soname) + 1);
		len += strlen(soname) + 1;
	}
	dyn[n].d_tag = DT_STRTAB, dyn[n++].d_un.d_ptr = VADDR + str;
	dyn[n].d_tag = DT_STRSZ, dyn[n++].d_un.d_val = len;
	if (soname)
		dyn[n].d_tag = DT_SONAME, dyn[n++].d_un.d_val = 1;
	dyn[n].d_tag = DT_NULL;
	ph[0].p_type = PT_LOAD;
	ph[0].p_vaddr = VADDR;
	ph[0].p_filesz = str + len;
	ph[0].p_memsz = str + len;
	ph[1].p_type = PT_DYNAMIC;
	ph[1].p_offset = at;
	ph[1].p_vaddr = VADDR + at;
	ph[1].p_filesz = sizeof(dyn);
	memcpy(buf, &e, sizeof(e));
	memcpy(buf + sizeof(e), ph, sizeof(ph));
	memcpy(buf + at, dyn, sizeof(dyn));
	return str + len;
}

/* A loader cache in the new format (glibc 2.32+) in buf: n entries name[i] -> path[i]. */
static inline size_t fx_cache_new(unsigned char *buf, size_t size, const char *const *name,
				  const char *const *path, uint32_t n)
{
	size_t at = 48 + 24 * (size_t)n;

	memset(buf, 0, size);
	memcpy(buf, "glibc-ld.so.cache1.1", 20);
	memcpy(buf + 20, &n, 4);
	for (uint32_t i = 0; i < n; i++) {
		unsigned char *e = buf + 48 + 24 * i;
		uint32_t flags = 0x0303, k = (uint32_t)at, v;

		memcpy(buf + at, name[i], strlen(name[i]) + 1);
		at += strlen(name[i]) + 1;
		v = (uint32_t)at;
		memcpy(buf + at, path[i], strlen(path[i]) + 1);
		at += strlen(path[i]) + 1;
		memcpy(e, &flags, 4);
		memcpy(e + 4, &k, 4);
		memcpy(e + 8, &v, 4);
	}
	return at;
}

/* The old format (glibc before 2.32 read it): strings after the entries. */
static inline size_t fx_cache_old(unsigned char *buf, size_t size, const char *const *name,
				  const char *const *path, uint32_t n)
{
	size_t base = 16 + 12 * (size_t)n, at = base;

	memset(buf, 0, size);
	memcpy(buf, "ld.so-1.7.0", 11);
	memcpy(buf + 12, &n, 4);
	for (uint32_t i = 0; i < n; i++) {
		unsigned char *e = buf + 16 + 12 * i;
		uint32_t flags = 0x0303, k = (uint32_t)(at - base), v;

		memcpy(buf + at, name[i], strlen(name[i]) + 1);
		at += strlen(name[i]) + 1;
		v = (uint32_t)(at - base);
		memcpy(buf + at, path[i], strlen(path[i]) + 1);
		at += strlen(path[i]) + 1;
		memcpy(e, &flags, 4);
		memcpy(e + 4, &k, 4);
		memcpy(e + 8, &v, 4);
	}
	return at;
}

#endif
