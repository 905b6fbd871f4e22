/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loading the kernel modules the initramfs ships (no modprobe, no udev): the list file has one
 * .ko path per line, in dependency order; blank lines and '#' comments are skipped.
 *
 * Module parameters. The kernel applies MODULE.PARAM=value words of its command line only to
 * built-in code; for a loadable module, modprobe reads them from /proc/cmdline and hands them to
 * the kernel with the module. This loader does the same, from three sources, in this order (the
 * kernel applies a module's parameters left to right, so the last assignment of one wins):
 *   1. `options NAME PARAMS...` lines of modprobe.d (modprobe.d(5)), files in name order;
 *   2. the kernel command line, up to a bare "--" (what follows is init's);
 *   3. words the initramfs policy forces, MODULE.PARAM[=value] as on the command line.
 * Each word is split with the kernel's own tokenizer (cmdline.h: the kernel's next_arg(), which
 * is also how it splits the parameter string of a module) and written back so that the kernel
 * reads exactly the same name and value: a value with blanks is double-quoted, and a word that
 * cannot be written back unchanged is refused, so no value can turn into a further parameter. */
#ifndef VERITY_MODULES_H
#define VERITY_MODULES_H

#include <stddef.h>

#include "err.h"

#define VI_MODULES_LIST "/etc/verity-init/modules"
#define VI_MODPROBE_DIR "/etc/modprobe.d"

/* One module's parameter string, NUL included. The kernel itself takes any length (it copies
 * the string with strndup_user); the bound keeps PID 1's buffers fixed and is above what a
 * command line (VI_MAX_CMDLINE) can carry for one module. */
#define VI_MODPARAMS_MAX        4096u
#define VI_MODPARAMS_MAX_WORDS  64u      /* parameters of one module, all sources together */
#define VI_MODPARAM_NAME_MAX    64u      /* one parameter name */
/* The kernel's MODULE_NAME_LEN is 64 - sizeof(unsigned long) including the NUL. */
#define VI_MODULE_NAME_MAX      55u
#define VI_MODPROBE_CONF_MAX    65536u   /* all *.conf files of the modprobe directory together */
#define VI_MODPROBE_CONF_FILES  64u

struct vi_modload_params {
	const char *cmdline;       /* the kernel command line, or NULL */
	size_t cmdline_len;        /* bytes of cmdline (at most VI_MAX_CMDLINE; no NUL inside) */
	const char *modprobe_dir;  /* VI_MODPROBE_DIR, or NULL for no configuration */
	const char *forced;        /* "dm_verity.require_signatures=1 ...", or NULL */
};

/* Load every module of the list with finit_module(2), in order. mp NULL: no parameters at all.
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

/* The module name of a .ko path as modprobe names it: the base name without ".ko", ".ko.xz",
 * ".ko.zst" or ".ko.gz", '-' as '_'. -EINVAL unless 1..VI_MODULE_NAME_MAX bytes of
 * [A-Za-z0-9_-]; -ENAMETOOLONG when out_size cannot hold it. */
int vi_module_name(const char *path, char *out, size_t out_size, struct vi_error *err);

/* Pure: the parameter string for module `module` (compared with '-' and '_' equal) from the
 * concatenated modprobe.d text conf[0..conf_len), the command line cmdline[0..cmdline_len) and
 * the forced words (NUL-terminated); any of them may be NULL. Words joined by one space into
 * out, NUL-terminated ("" when there are none).
 *  - conf: logical lines as modprobe reads them (a backslash before a newline joins the next
 *    line, comments included; any other backslash in one of this module's lines is refused,
 *    where modprobe would silently drop it); only `options NAME PARAMS...` lines for this module
 *    count, their words split as the kernel splits them (tabs are blanks, as in modprobe).
 *  - cmdline: words MODULE.PARAM[=value] for this module; a bare "--" ends the scan.
 *  - forced: every word must be MODULE.PARAM[=value] (a malformed one is refused, for any
 *    module: it is the policy's); a "--" is refused.
 * Refused (-EINVAL, err says which word and why): a parameter name not 1..VI_MODPARAM_NAME_MAX
 * bytes of [A-Za-z0-9_-] beginning with a letter, digit or '_' (so "#" from an inline comment,
 * "--", a dotted name); a control byte in a name or value; a NUL in cmdline; a value that cannot
 * be written back unchanged. -E2BIG: cmdline longer than VI_MAX_CMDLINE, more than
 * VI_MODPARAMS_MAX_WORDS words, or a string longer than min(out_size, VI_MODPARAMS_MAX) - 1, or
 * a modprobe.d line for this module longer than that. Nothing is cut; on failure out is "". */
int vi_modparams_build(const char *module, const char *conf, size_t conf_len, const char *cmdline,
		       size_t cmdline_len, const char *forced, char *out, size_t out_size,
		       struct vi_error *err);

/* Read every "*.conf" regular file (not starting with '.') of dir, in strcmp order of the names,
 * into one malloc'ed buffer (*ret, *ret_len; each file followed by two newlines so that no
 * continuation runs from one file into the next). A missing dir: 0 with *ret NULL. -E2BIG when
 * more than VI_MODPROBE_CONF_FILES files or VI_MODPROBE_CONF_MAX bytes in all. */
int vi_modprobe_conf_read(const char *dir, char **ret, size_t *ret_len, struct vi_error *err);

#endif
