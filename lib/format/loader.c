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

/* One program header, whatever the class. */
struct elf_phdr {
	uint32_t type;
	uint64_t off, vaddr, filesz;
};

static void phdr_at(const unsigned char *id, const unsigned char *ph, size_t i,
		    struct elf_phdr *p)
{
	if (id[EI_CLASS] == ELFCLASS64) {
		Elf64_Phdr e;

		memcpy(&e, ph + i * sizeof(e), sizeof(e));
		*p = (struct elf_phdr){ e.p_type, e.p_offset, e.p_vaddr, e.p_filesz };
	} else {
		Elf32_Phdr e;

		memcpy(&e, ph + i * sizeof(e), sizeof(e));
		*p = (struct elf_phdr){ e.p_type, e.p_offset, e.p_vaddr, e.p_filesz };
	}
}

/* The first program header of type in ph[0..n) into *ret; how many of that type there are
 * (0: *ret untouched). */
static size_t phdr_find(const unsigned char *id, const unsigned char *ph, size_t n,
			uint32_t type, struct elf_phdr *ret)
{
	size_t found = 0;

	for (size_t i = 0; i < n; i++) {
		struct elf_phdr p;

		phdr_at(id, ph, i, &p);
		if (p.type != type)
			continue;
		if (found++ == 0)
			*ret = p;
	}
	return found;
}

/* The ELF header (id: its first bytes, at least sizeof(Elf64_Ehdr)) and the program headers,
 * read into ph (VI_PHDRS_MAX bytes); *ret_n: how many. */
static int elf_phdrs(vi_read_at_fn rd, void *ctx, uint64_t size, const unsigned char *id,
		     unsigned char *ph, size_t *ret_n, struct vi_error *err)
{
	struct elf_head h = { 0 };
	size_t len;
	int r;

	r = elf_head(id, &h, err);
	if (r < 0)
		return r;
	len = (size_t)h.phentsize * h.phnum;
	if (len == 0 || len > VI_PHDRS_MAX || h.phoff > size || len > size - h.phoff)
		return vi_errno(err, -ENOEXEC, "ELF program headers outside the file or its limits");
	r = rd(ctx, h.phoff, ph, len);
	if (r < 0)
		return vi_errno(err, r, "reading the ELF program headers: %s", strerror(-r));
	*ret_n = h.phnum;
	return 0;
}

/* The first PT_INTERP's file range (the kernel takes the first one); *ret_size 0: none. */
static int elf_interp_range(vi_read_at_fn rd, void *ctx, uint64_t size, const unsigned char *id,
			    uint64_t *ret_off, uint64_t *ret_size, struct vi_error *err)
{
	unsigned char ph[VI_PHDRS_MAX];
	struct elf_phdr p;
	size_t n = 0;
	int r;

	r = elf_phdrs(rd, ctx, size, id, ph, &n, err);
	if (r < 0)
		return r;
	*ret_size = 0;
	if (phdr_find(id, ph, n, PT_INTERP, &p) == 0)
		return 0;
	if (p.filesz < 2 || p.filesz > VI_INTERP_MAX || p.off > size || p.filesz > size - p.off)
		return vi_errno(err, -ENOEXEC, "ELF interpreter name outside the file or its "
				"limits");
	*ret_off = p.off;
	*ret_size = p.filesz;
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

/* One entry of the dynamic section, whatever the class. */
static int dyn_at(vi_read_at_fn rd, void *ctx, const unsigned char *id, uint64_t off,
		  int64_t *ret_tag, uint64_t *ret_val)
{
	int r;

	if (id[EI_CLASS] == ELFCLASS64) {
		Elf64_Dyn d = { 0 };

		r = rd(ctx, off, &d, sizeof(d));
		*ret_tag = d.d_tag, *ret_val = d.d_un.d_val;
	} else {
		Elf32_Dyn d = { 0 };

		r = rd(ctx, off, &d, sizeof(d));
		*ret_tag = d.d_tag, *ret_val = d.d_un.d_val;
	}
	return r;
}

/* The file offset of address a, inside the file bytes of a PT_LOAD: *ret_avail bytes from
 * there are in that segment. -ENOEXEC: in none, or that segment is outside the file. */
static int addr_off(const unsigned char *id, const unsigned char *ph, size_t n, uint64_t size,
		    uint64_t a, uint64_t *ret_off, uint64_t *ret_avail)
{
	for (size_t i = 0; i < n; i++) {
		struct elf_phdr p;

		phdr_at(id, ph, i, &p);
		if (p.type != PT_LOAD || a < p.vaddr || a - p.vaddr >= p.filesz)
			continue;
		if (p.off > size || p.filesz > size - p.off)
			return -ENOEXEC;
		*ret_off = p.off + (a - p.vaddr);
		*ret_avail = p.filesz - (a - p.vaddr);
		return 0;
	}
	return -ENOEXEC;
}

/*
 * The first PT_DYNAMIC (a second is refused): entries of Elf64_Dyn / Elf32_Dyn up to DT_NULL
 * or the segment's end; DT_STRTAB (an address), DT_STRSZ, DT_SONAME (an offset into the table)
 * each at most once. The name: at STRTAB + SONAME, inside the table and the file bytes of one
 * PT_LOAD, NUL-terminated within VI_SONAME_MAX bytes.
 */
int vi_elf_soname(vi_read_at_fn rd, void *ctx, uint64_t size, char *ret_name, size_t name_size,
		  struct vi_error *err)
{
	unsigned char id[sizeof(Elf64_Ehdr)], ph[VI_PHDRS_MAX];
	uint64_t dyn_off = 0, dyn_size = 0, entsize, strtab = 0, strsz = 0, so = 0, off, avail;
	bool have_dyn, have_strtab = false, have_strsz = false, have_so = false;
	char name[VI_SONAME_MAX];
	struct elf_phdr p;
	size_t n = 0, len, dyns;
	int r;

	if (size < sizeof(id))
		return vi_errno(err, -ENOEXEC, "not an ELF file");
	r = rd(ctx, 0, id, sizeof(id));
	if (r < 0)
		return vi_errno(err, r, "reading the ELF header: %s", strerror(-r));
	if (memcmp(id, ELFMAG, SELFMAG))
		return vi_errno(err, -ENOEXEC, "not an ELF file");
	r = elf_phdrs(rd, ctx, size, id, ph, &n, err);
	if (r < 0)
		return r;
	dyns = phdr_find(id, ph, n, PT_DYNAMIC, &p);
	have_dyn = dyns > 0;
	if (have_dyn) {
		if (p.off > size || p.filesz > size - p.off || p.filesz > VI_DYNAMIC_MAX)
			return vi_errno(err, -ENOEXEC, "ELF dynamic section outside the file or its "
					"limits");
		if (dyns > 1)
			return vi_errno(err, -ENOEXEC, "more than one ELF dynamic section");
		dyn_off = p.off;
		dyn_size = p.filesz;
	}
	entsize = id[EI_CLASS] == ELFCLASS64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
	for (uint64_t at = 0; have_dyn && dyn_size - at >= entsize; at += entsize) {
		int64_t tag = 0;
		uint64_t val = 0;
		bool *seen = NULL;
		uint64_t *where = NULL;

		r = dyn_at(rd, ctx, id, dyn_off + at, &tag, &val);
		if (r < 0)
			return vi_errno(err, r, "reading the ELF dynamic section: %s", strerror(-r));
		if (tag == DT_NULL)
			break;
		if (tag == DT_STRTAB)
			seen = &have_strtab, where = &strtab;
		else if (tag == DT_STRSZ)
			seen = &have_strsz, where = &strsz;
		else if (tag == DT_SONAME)
			seen = &have_so, where = &so;
		else
			continue;
		if (*seen)
			return vi_errno(err, -ENOEXEC, "ELF dynamic tag %lld twice", (long long)tag);
		*seen = true;
		*where = val;
	}
	if (!have_so) {
		if (name_size == 0)
			return vi_errno(err, -ENAMETOOLONG, "no room for the ELF soname");
		ret_name[0] = '\0';
		return 0;
	}
	if (!have_strtab || !have_strsz || so >= strsz || strtab > UINT64_MAX - so ||
	    addr_off(id, ph, n, size, strtab + so, &off, &avail) < 0)
		return vi_errno(err, -ENOEXEC, "ELF soname outside its string table or the file");
	len = sizeof(name);
	if (avail < len)
		len = (size_t)avail;
	if (strsz - so < len)
		len = (size_t)(strsz - so);
	r = rd(ctx, off, name, len);
	if (r < 0)
		return vi_errno(err, r, "reading the ELF soname: %s", strerror(-r));
	if (!memchr(name, '\0', len))
		return vi_errno(err, -ENOEXEC, "ELF soname not NUL-terminated within %zu bytes", len);
	if (strlen(name) >= name_size)
		return vi_errno(err, -ENAMETOOLONG, "ELF soname too long");
	memcpy(ret_name, name, strlen(name) + 1);
	return 0;
}

static bool digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/*
 * glibc's shlib-versions name the loader per architecture "ld-linux" [-ABI] ".so." N
 * (ld-linux-x86-64.so.2, ld-linux-aarch64.so.1, ld-linux-armhf.so.3, ld-linux.so.2,
 * ld-linux-riscv64-lp64d.so.1, ...), "ld.so." N (powerpc32, s390, mips, m68k, hppa) or
 * "ld64.so." N (powerpc64, s390x). musl's libc.so has no DT_SONAME at all.
 */
bool vi_glibc_loader_soname(const char *name)
{
	const char *so = strstr(name, ".so.");
	size_t stem;

	if (!so || strstr(so + 1, ".so.") || !digits(so + 4))
		return false;
	stem = (size_t)(so - name);
	if ((stem == 2 && !strncmp(name, "ld", 2)) || (stem == 4 && !strncmp(name, "ld64", 4)))
		return true;
	if (stem < 8 || strncmp(name, "ld-linux", 8))
		return false;
	for (size_t i = 8; i < stem; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
		      name[i] == '-' || name[i] == '_'))
			return false;
	return stem == 8 || name[8] == '-';
}

/* musl ldso/dynlink.c: for (s=t=z=name; *s; s++) if (*s=='/') z=t, t=s; the prefix is
 * name[0..z) (empty unless name is absolute), the file PREFIX/etc/ld-musl-ARCH.path. */
int vi_musl_etc_dir(const char *interp, char *ret_dir, size_t size)
{
	const char *t = interp, *z = interp;
	size_t n;

	if (interp[0] == '/')
		for (const char *s = interp; *s; s++)
			if (*s == '/')
				z = t, t = s;
	n = (size_t)(z - interp);
	if (n + sizeof("/etc") > size)
		return -ENAMETOOLONG;
	memcpy(ret_dir, interp, n);
	memcpy(ret_dir + n, "/etc", sizeof("/etc"));
	return 0;
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
