/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loading the kernel modules the initramfs ships (no modprobe, no udev): the list file has one
 * module path per line (NAME.ko, or NAME.ko.xz / .ko.zst / .ko.gz as the distribution ships it:
 * the kernel decompresses those itself), in dependency order; blank lines and '#' comments are
 * skipped. Each module gets the parameters modprobe would give it (modparams.h), from
 * modprobe.d, the kernel command line and the policy's forced words. */
#ifndef VERITY_MODULES_H
#define VERITY_MODULES_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "modparams.h"

#define VI_MODULES_LIST "/etc/verity-init/modules"
/* one list per filesystem type (TYPE: [a-z0-9]), the same format: that type's driver and its
 * dependencies, loaded only when a mount of TYPE is tried */
#define VI_FS_MODULES_DIR "/etc/verity-init/fs"
#define VI_MODPROBE_DIR "/etc/modprobe.d"

/* what the kernel's in-kernel decompressor reads ("xz\n", "zstd\n" or "gzip\n"); absent when the
 * kernel has none (CONFIG_MODULE_DECOMPRESS) or predates it (5.17) */
#define VI_MODULE_COMPRESSION_SYSFS "/sys/module/compression"

#define VI_MODPROBE_CONF_MAX    65536u   /* all *.conf files of the modprobe directory together */
#define VI_MODPROBE_CONF_FILES  64u

struct vi_modload_params {
	const char *cmdline;       /* the kernel command line, or NULL */
	size_t cmdline_len;        /* bytes of cmdline (at most VI_MAX_CMDLINE; no NUL inside) */
	const char *modprobe_dir;  /* VI_MODPROBE_DIR, or NULL for no configuration */
	const char *forced;        /* "dm_verity.require_signatures=1 ...", or NULL */
};

/* Load every module of the list with finit_module(2), in order (a compressed file with
 * vi_module_finit_flags(); a kernel that cannot decompress it is reported as such, once per
 * module: vi_module_decompress_refused()). mp NULL: no parameters at all.
 * A module already loaded (EEXIST) counts as loaded (its parameters are then the ones it has:
 * whoever relies on a forced parameter reads it back from /sys/module/NAME/parameters, which
 * also covers a built-in module). One whose init says ENODEV (no such hardware, e.g. a
 * CPU-specific crypto driver) is counted in *ret_skipped. A missing list is not an error
 * (everything built in), nor is a missing modprobe directory. Every line is tried; the return
 * value is the first failure (err names the module).
 * Parameters: when a module's words are refused (vi_modparams_build) or the kernel refuses the
 * module with them (EINVAL: a parameter it cannot parse), it is tried again without the command
 * line's words, then with the forced words only; that it was is reported as a failure. It is
 * never loaded without its forced words. An unreadable modprobe directory is reported and none
 * of its options are used (never part of them). */
int vi_modules_load(const char *list, const struct vi_modload_params *mp, unsigned *ret_loaded,
		    unsigned *ret_skipped, struct vi_error *err);

/* The compression of a module file by its name, in the words of VI_MODULE_COMPRESSION_SYSFS:
 * "xz" (NAME.ko.xz), "zstd" (NAME.ko.zst), "gzip" (NAME.ko.gz); NULL for NAME.ko and any other
 * name (loaded as it is). */
const char *vi_module_compression(const char *path);

/* finit_module's flags for the file at path: MODULE_INIT_COMPRESSED_FILE (the kernel
 * decompresses it, as kmod has it do) when vi_module_compression() names a format, else 0. */
int vi_module_finit_flags(const char *path);

/* Pure: whether finit_module's failure r (a negative errno) for a file compressed with comp
 * means that the kernel cannot decompress it; kernel_comp is what VI_MODULE_COMPRESSION_SYSFS
 * says without its newline, NULL when it is missing. When it does, err says why (the caller
 * names the module). From kernel/module/main.c and decompress.c: -EOPNOTSUPP, built without
 * CONFIG_MODULE_DECOMPRESS; -EINVAL from a kernel older than 5.17 (the flag is unknown) or from
 * a decompressor of another format (it checks the magic). -EINVAL from a kernel that does
 * decompress this format is not that: a parameter it could not parse, or a damaged file.
 * -ENOEXEC is the kernel reading a compressed file as ELF, which this flag prevents. */
bool vi_module_decompress_refused(const char *comp, int r, const char *kernel_comp,
				  struct vi_error *err);

/* Read every "*.conf" regular file (not starting with '.') of dir, in strcmp order of the names,
 * into one malloc'ed buffer (*ret, *ret_len; each file followed by two newlines so that no
 * continuation runs from one file into the next). A missing dir: 0 with *ret NULL. -E2BIG when
 * more than VI_MODPROBE_CONF_FILES files or VI_MODPROBE_CONF_MAX bytes in all. */
int vi_modprobe_conf_read(const char *dir, char **ret, size_t *ret_len, struct vi_error *err);

#endif
