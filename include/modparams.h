/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Module parameters, the pure part of loading a module (modules.h does the I/O). The kernel
 * applies MODULE.PARAM=value words of its command line only to built-in code; for a loadable
 * module, modprobe reads them from /proc/cmdline and hands them to the kernel with the module.
 * vi_modparams_build does the same, from three sources, in this order (the kernel applies a
 * module's parameters left to right, so the last assignment of one wins):
 *   1. `options NAME PARAMS...` lines of modprobe.d (modprobe.d(5)), files in name order;
 *   2. the kernel command line, up to a bare "--" (what follows is init's);
 *   3. words the initramfs policy forces, MODULE.PARAM[=value] as on the command line.
 * Each word is split with the kernel's own tokenizer (cmdtoken.h: the kernel's next_arg(), which
 * is also how it splits the parameter string of a module) and written back so that the kernel
 * reads exactly the same name and value: a value with blanks is double-quoted, and a word that
 * cannot be written back unchanged is refused, so no value can turn into a further parameter. */
#ifndef VERITY_MODPARAMS_H
#define VERITY_MODPARAMS_H

#include <stddef.h>

#include "err.h"

/* One module's parameter string, NUL included. The kernel itself takes any length (it copies
 * the string with strndup_user); the bound keeps PID 1's buffers fixed and is above what a
 * command line (VI_MAX_CMDLINE) can carry for one module. */
#define VI_MODPARAMS_MAX        4096u
#define VI_MODPARAMS_MAX_WORDS  64u      /* parameters of one module, all sources together */
#define VI_MODPARAM_NAME_MAX    64u      /* one parameter name */
/* The kernel's MODULE_NAME_LEN is 64 - sizeof(unsigned long) including the NUL. */
#define VI_MODULE_NAME_MAX      55u

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

#endif
