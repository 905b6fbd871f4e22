// SPDX-License-Identifier: LGPL-2.1-or-later
/* The interpreter an executable names and the paths of glibc's loader cache (include/loader.h).
 * Both are read from a root nobody verified: every offset and length is checked against the
 * bytes there are before it is used. */
#include "loader.h"

#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#if __BYTE_ORDER == __LITTLE_ENDIAN
#define VI_ELFDATA ELFDATA2LSB
#else
#define VI_ELFDATA ELFDATA2MSB
#endif

/* The ELF header fields the kernel reads before PT_INTERP, whatever the class. */
struct elf_head {
	uint16_t type;
	uint64_t phoff;
	uint16_t phentsize;
	uint16_t phnum;
};

static int elf_head(const unsigned char *b, struct elf_head *h, struct vi_error *err)
{
	if (b[EI_DATA] != VI_ELFDATA)
		return vi_errno(err, -ENOEXEC, "an ELF file of the other byte order");
	if (b[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr e;

		memcpy(&e, b, sizeof(e));
		*h = (struct elf_head){ e.e_type, e.e_phoff, e.e_phentsize, e.e_phnum };
		if (h->phentsize != sizeof(Elf64_Phdr))
			return vi_errno(err, -ENOEXEC, "ELF program header size %u", h->phentsize);
	} else if (b[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr e;

		memcpy(&e, b, sizeof(e));
		*h = (struct elf_head){ e.e_type, e.e_phoff, e.e_phentsize, e.e_phnum };
		if (h->phentsize != sizeof(Elf32_Phdr))
			return vi_errno(err, -ENOEXEC, "ELF program header size %u", h->phentsize);
	} else {
		return vi_errno(err, -ENOEXEC, "ELF class %u", b[EI_CLASS]);
	}
	if (h->type != ET_EXEC && h->type != ET_DYN)
		return vi_errno(err, -ENOEXEC, "ELF type %u, not a program", h->type);
	return 0;
}

/* The first PT_INTERP's file range (the kernel takes the first one); *ret_size 0: none. */
static int elf_interp_range(vi_read_at_fn rd, void *ctx, uint64_t size, const unsigned char *id,
			    uint64_t *ret_off, uint64_t *ret_size, struct vi_error *err)
{
	unsigned char ph[VI_PHDRS_MAX];
	struct elf_head h = { 0 };
	size_t len;
	int r;

	r = elf_head(id, &h, err);
	if (r < 0)
		return r;
	len = (size_t)h.phentsize * h.phnum;
	if (len == 0 || len > sizeof(ph) || h.phoff > size || len > size - h.phoff)
		return vi_errno(err, -ENOEXEC, "ELF program headers outside the file or its limits");
	r = rd(ctx, h.phoff, ph, len);
	if (r < 0)
		return vi_errno(err, r, "reading the ELF program headers: %s", strerror(-r));
	*ret_size = 0;
	for (size_t i = 0; i < h.phnum; i++) {
		const unsigned char *p = ph + i * h.phentsize;
		uint64_t off, filesz;
		uint32_t type;

		if (id[EI_CLASS] == ELFCLASS64) {
			Elf64_Phdr e;

			memcpy(&e, p, sizeof(e));
			type = e.p_type, off = e.p_offset, filesz = e.p_filesz;
		} else {
			Elf32_Phdr e;

			memcpy(&e, p, sizeof(e));
			type = e.p_type, off = e.p_offset, filesz = e.p_filesz;
		}
		if (type != PT_INTERP)
			continue;
		if (filesz < 2 || filesz > VI_INTERP_MAX || off > size || filesz > size - off)
			return vi_errno(err, -ENOEXEC, "ELF interpreter name outside the file or "
					"its limits");
		*ret_off = off;
		*ret_size = filesz;
		break;
	}
	return 0;
}

static int elf_interp(vi_read_at_fn rd, void *ctx, uint64_t size, const unsigned char *id,
		      enum vi_exec_kind *ret_kind, char *ret_path, size_t path_size,
		      struct vi_error *err)
{
	char name[VI_INTERP_MAX];
	uint64_t off = 0, len = 0;
	size_t n;
	int r;

	r = elf_interp_range(rd, ctx, size, id, &off, &len, err);
	if (r < 0)
		return r;
	if (len == 0) {
		*ret_kind = VI_EXEC_STATIC;
		if (path_size)
			ret_path[0] = '\0';
		return 0;
	}
	r = rd(ctx, off, name, (size_t)len);
	if (r < 0)
		return vi_errno(err, r, "reading the ELF interpreter name: %s", strerror(-r));
	if (name[len - 1] != '\0')
		return vi_errno(err, -ENOEXEC, "ELF interpreter name not NUL-terminated");
	n = strlen(name);
	if (n == 0)
		return vi_errno(err, -ENOEXEC, "empty ELF interpreter name");
	if (n >= path_size)
		return vi_errno(err, -ENAMETOOLONG, "ELF interpreter name too long");
	memcpy(ret_path, name, n + 1);
	*ret_kind = VI_EXEC_ELF;
	return 0;
}

static bool spacetab(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * binfmt_script (Linux 5.1 and later) over the first VI_SCRIPT_HEAD bytes, zero-filled:
 *   "#!" [spaces/tabs] NAME [(space|tab|NUL) [spaces/tabs] ARG] [spaces/tabs] ("\n" | end)
 * without a newline in the buffer the line ends at its last byte, provided a space, tab or NUL
 * follows the name there (else the name may be cut short: refused, as the kernel does).
 */
static int script_interp(const char *b, enum vi_exec_kind *ret_kind, char *ret_path,
			 size_t path_size, struct vi_error *err)
{
	const char *end = b + VI_SCRIPT_HEAD - 1, *nl, *name, *stop;
	size_t n;

	nl = memchr(b, '\n', VI_SCRIPT_HEAD);
	if (!nl) {
		const char *p = b + 2;

		while (p <= end && spacetab(*p))
			p++;
		if (p > end)
			return vi_errno(err, -ENOEXEC, "#! line without an interpreter");
		while (p <= end && !spacetab(*p) && *p)
			p++;
		if (p > end)
			return vi_errno(err, -ENOEXEC, "#! line longer than %d bytes",
					VI_SCRIPT_HEAD);
		nl = end;
	}
	while (nl > b + 2 && spacetab(nl[-1]))
		nl--;
	name = b + 2;
	while (name < nl && spacetab(*name))
		name++;
	if (name >= nl)
		return vi_errno(err, -ENOEXEC, "#! line without an interpreter");
	for (stop = name; stop < nl && !spacetab(*stop) && *stop; stop++)
		;
	n = (size_t)(stop - name);
	if (n == 0)
		return vi_errno(err, -ENOEXEC, "#! line without an interpreter");
	if (n >= path_size)
		return vi_errno(err, -ENAMETOOLONG, "#! interpreter name too long");
	memcpy(ret_path, name, n);
	ret_path[n] = '\0';
	*ret_kind = VI_EXEC_SCRIPT;
	return 0;
}

int vi_exec_interp(vi_read_at_fn rd, void *ctx, uint64_t size, enum vi_exec_kind *ret_kind,
		   char *ret_path, size_t path_size, struct vi_error *err)
{
	/* zero-filled past the end of a short file, as the kernel's buffer */
	char head[VI_SCRIPT_HEAD] = { 0 };
	size_t have = size < sizeof(head) ? (size_t)size : sizeof(head);
	int r;

	r = have ? rd(ctx, 0, head, have) : 0;
	if (r < 0)
		return vi_errno(err, r, "reading the first bytes: %s", strerror(-r));
	if (have >= sizeof(Elf64_Ehdr) && !memcmp(head, ELFMAG, SELFMAG))
		return elf_interp(rd, ctx, size, (const unsigned char *)head, ret_kind, ret_path,
				  path_size, err);
	if (have >= 2 && head[0] == '#' && head[1] == '!')
		return script_interp(head, ret_kind, ret_path, path_size, err);
	return vi_errno(err, -ENOEXEC, "neither an ELF program nor a #! script");
}

/* glibc sysdeps/generic/dl-cache.h */
#define OLD_MAGIC "ld.so-1.7.0"
#define OLD_HEAD 16       /* magic[11], pad, uint32 nlibs */
#define OLD_ENTRY 12      /* int32 flags, uint32 key, uint32 value */
#define NEW_MAGIC "glibc-ld.so.cache"
#define NEW_VERSION "1.1"
#define NEW_HEAD 48       /* magic[17], version[3], uint32 nlibs, uint32 len_strings, ... */
#define NEW_ENTRY 24      /* int32 flags, uint32 key, value, osversion, uint64 hwcap */
#define NEW_ALIGN 8       /* __alignof__(struct cache_file_new) */

static uint32_t u32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* One section of n entries of entry_size bytes at entries; key and value at 4 and 8, offsets
 * from strings (strings_len bytes to the end of the file). With fn NULL only checked. */
static int section(const unsigned char *entries, size_t n, size_t entry_size,
		   const unsigned char *strings, size_t strings_len, vi_ldcache_entry_fn fn,
		   void *ctx, struct vi_error *err)
{
	for (size_t i = 0; i < n; i++) {
		const unsigned char *e = entries + i * entry_size;
		uint32_t off[2] = { u32_at(e + 4), u32_at(e + 8) };
		int r;

		for (int k = 0; k < 2; k++)
			if (off[k] >= strings_len ||
			    !memchr(strings + off[k], '\0', strings_len - off[k]))
				return vi_errno(err, -EBADMSG, "entry %zu: a string outside the "
						"file", i);
		if (!fn)
			continue;
		r = fn(ctx, (const char *)strings + off[0], (const char *)strings + off[1]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Where the new section starts (0: none) and how many entries each section has. */
struct cache_layout {
	size_t old_n, new_at, new_n;
	bool old;
};

static int new_head(const unsigned char *buf, size_t len, size_t at, struct cache_layout *l,
		    struct vi_error *err)
{
	const unsigned char *h = buf + at;

	if (len - at < NEW_HEAD || memcmp(h, NEW_MAGIC, strlen(NEW_MAGIC)))
		return vi_errno(err, -EBADMSG, "not a loader cache of a known format");
	if (memcmp(h + strlen(NEW_MAGIC), NEW_VERSION, strlen(NEW_VERSION)))
		return vi_errno(err, -EBADMSG, "loader cache version %.3s, not " NEW_VERSION,
				(const char *)h + strlen(NEW_MAGIC));
	l->new_at = at;
	l->new_n = u32_at(h + 20);
	if (l->new_n > (len - at - NEW_HEAD) / NEW_ENTRY)
		return vi_errno(err, -EBADMSG, "%zu entries, more than the file holds", l->new_n);
	return 0;
}

static int cache_layout(const unsigned char *buf, size_t len, struct cache_layout *l,
			struct vi_error *err)
{
	size_t at;

	*l = (struct cache_layout){ 0 };
	if (len < OLD_HEAD || memcmp(buf, OLD_MAGIC, strlen(OLD_MAGIC)))
		return new_head(buf, len, 0, l, err);
	l->old = true;
	l->old_n = u32_at(buf + 12);
	if (l->old_n > (len - OLD_HEAD) / OLD_ENTRY)
		return vi_errno(err, -EBADMSG, "%zu entries, more than the file holds", l->old_n);
	at = OLD_HEAD + l->old_n * OLD_ENTRY;
	at = (at + NEW_ALIGN - 1) & ~(size_t)(NEW_ALIGN - 1);
	/* compat: the new format follows the old one; the loader reads it if it is there */
	if (at < len && len - at >= strlen(NEW_MAGIC) &&
	    !memcmp(buf + at, NEW_MAGIC, strlen(NEW_MAGIC)))
		return new_head(buf, len, at, l, err);
	return 0;
}

int vi_ldcache_parse(const unsigned char *buf, size_t len, vi_ldcache_entry_fn fn, void *ctx,
		     struct vi_error *err)
{
	const unsigned char *old_strings;
	struct cache_layout l;
	int r, pass;

	r = cache_layout(buf, len, &l, err);
	if (r < 0)
		return r;
	old_strings = buf + OLD_HEAD + l.old_n * OLD_ENTRY;
	/* the whole file is checked before the first entry is given */
	for (pass = 0; pass < 2; pass++) {
		vi_ldcache_entry_fn f = pass ? fn : NULL;

		if (l.old) {
			r = section(buf + OLD_HEAD, l.old_n, OLD_ENTRY, old_strings,
				    len - (size_t)(old_strings - buf), f, ctx, err);
			if (r < 0)
				return r;
		}
		if (l.new_at || !l.old) {
			r = section(buf + l.new_at + NEW_HEAD, l.new_n, NEW_ENTRY, buf + l.new_at,
				    len - l.new_at, f, ctx, err);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

bool vi_code_path(const char *path)
{
	static const char *const dirs[] = { "usr", "bin", "sbin", "lib", "lib32", "lib64",
					    "libx32" };
	const char *p = path, *slash;
	size_t n;
	bool known = false;

	if (*p != '/')
		return false;
	slash = strchr(p + 1, '/');
	if (!slash)
		return false;
	n = (size_t)(slash - p - 1);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		known |= strlen(dirs[i]) == n && !memcmp(p + 1, dirs[i], n);
	if (!known)
		return false;
	/* every part after it: not empty, ".", ".." */
	for (p = slash; *p == '/'; p += n + 1) {
		n = strcspn(p + 1, "/");
		if (n == 0 || (n == 1 && p[1] == '.') || (n == 2 && p[1] == '.' && p[2] == '.'))
			return false;
	}
	return true;
}
