/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What starts a program before its first instruction, read as the kernel and glibc's program
 * loader read it (lib/format/loader.c): the interpreter an executable names (an ELF binary's
 * PT_INTERP, a script's #! line), the program loader's identity (its DT_SONAME; where musl's
 * reads its search path) and the library paths of the loader's cache, /etc/ld.so.cache. Pure
 * parsers of untrusted bytes; where the files are is lib/boot/usrloader.c's concern. */
#ifndef VERITY_LOADER_H
#define VERITY_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* The kernel's limits: the #! line is read from the first 256 bytes (BINPRM_BUF_SIZE), an ELF
 * interpreter name is at most PATH_MAX bytes, the program headers at most 64 KiB. */
#define VI_SCRIPT_HEAD 256
#define VI_INTERP_MAX 4096
#define VI_PHDRS_MAX 65536
/* Our limits for a program loader's identity: its dynamic section, its DT_SONAME. */
#define VI_DYNAMIC_MAX 65536
#define VI_SONAME_MAX 256

/* What a file names to run it. */
enum vi_exec_kind {
	VI_EXEC_STATIC,   /* an ELF binary without PT_INTERP: nothing else is loaded */
	VI_EXEC_ELF,      /* an ELF binary: its PT_INTERP, the program loader */
	VI_EXEC_SCRIPT,   /* a #! script: its interpreter, itself an executable */
};

/* Reads exactly len bytes at off of the file into buf: 0, or a negative errno. */
typedef int (*vi_read_at_fn)(void *ctx, uint64_t off, void *buf, size_t len);

/*
 * The interpreter of an executable of size bytes, read through rd: for an ELF binary (of
 * this machine's byte order, either class) the first PT_INTERP, as the kernel takes it (2 to
 * VI_INTERP_MAX bytes ending in NUL, the name up to the first NUL); for a #! script the
 * interpreter path as binfmt_script cuts it from the first VI_SCRIPT_HEAD bytes (spaces and
 * tabs around it, one optional argument after it). The name, never empty, goes to ret_path.
 * -ENOEXEC: neither an ELF binary (executable or shared object) nor a script, or one the
 * kernel would refuse (program headers out of the file or of the kernel's limits, an
 * interpreter name not NUL-terminated, a #! line without a name). -ENAMETOOLONG: the name
 * does not fit path_size. Errors of rd are returned as they are. ret_kind and ret_path are
 * untouched on failure.
 */
int vi_exec_interp(vi_read_at_fn rd, void *ctx, uint64_t size, enum vi_exec_kind *ret_kind,
		   char *ret_path, size_t path_size, struct vi_error *err);

/*
 * The DT_SONAME of an ELF file of size bytes (of this machine's byte order, either class, a
 * program or shared object), read through rd, as the identity of a program loader: "" when it
 * has no PT_DYNAMIC or no DT_SONAME (musl's libc.so). -ENOEXEC: not such an ELF file, program
 * headers as vi_exec_interp refuses them, a second PT_DYNAMIC or one outside the file or larger
 * than VI_DYNAMIC_MAX, DT_STRTAB, DT_STRSZ or DT_SONAME twice, a DT_SONAME without a string
 * table, outside it or outside the file bytes of every PT_LOAD, or not NUL-terminated within
 * VI_SONAME_MAX bytes. -ENAMETOOLONG: it does not fit name_size. Errors of rd are returned as
 * they are. ret_name untouched on failure.
 */
int vi_elf_soname(vi_read_at_fn rd, void *ctx, uint64_t size, char *ret_name, size_t name_size,
		  struct vi_error *err);

/* Is name a DT_SONAME glibc gives its program loader ("ld-linux" ["-" ABI] ".so." N, "ld.so."
 * N, "ld64.so." N)? The loader is then glibc's, whatever the path it is started by. */
bool vi_glibc_loader_soname(const char *name);

/* The directory musl's program loader, started as interp (a PT_INTERP), reads its search path
 * ld-musl-ARCH.path from: interp without its last two parts, then "/etc" (musl ldso/dynlink.c;
 * "/lib/ld-musl-x86_64.so.1" -> "/etc", "/usr/lib/musl/lib/libc.so" -> "/usr/lib/musl/etc").
 * -ENAMETOOLONG: it does not fit size; ret_dir untouched on failure. */
int vi_musl_etc_dir(const char *interp, char *ret_dir, size_t size);

/* Called with each entry of the cache: the library's name (its soname) and the path the loader
 * would open for it, both NUL-terminated inside the cache. A negative return stops the walk
 * and is returned. */
typedef int (*vi_ldcache_entry_fn)(void *ctx, const char *name, const char *path);

/*
 * Every entry of a glibc loader cache (len bytes): the format glibc 2.32 and later write
 * ("glibc-ld.so.cache1.1", 48-byte header, 24-byte entries, string offsets from the header),
 * the old one ("ld.so-1.7.0", 16-byte header, 12-byte entries, strings after the entries), and
 * the old one followed by the new (compat): the entries of both are given, a superset of what
 * any loader looks up. Refused (-EBADMSG) before any entry is given: an unknown magic or
 * version (a file the loader ignores today may be read by another one), entries past the end,
 * a string offset outside the file or a string without its NUL inside it.
 */
int vi_ldcache_parse(const unsigned char *buf, size_t len, vi_ldcache_entry_fn fn, void *ctx,
		     struct vi_error *err);

/* Is path one of the code directories' files: absolute, without empty, "." or ".." parts,
 * under /usr/ or /bin/, /sbin/, /lib/, /lib32/, /lib64/, /libx32/ (merged-/usr links)? */
bool vi_code_path(const char *path);

#endif
