/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dracut's command line as its library builds it (dracut-lib.sh getcmdline()):
 *
 *   CMDLINE="$CMDLINE_ETC_D $CMDLINE_ETC $CMDLINE_PROC"
 *
 * where each part holds, for every line `read -r` reads from its files (the .conf files of /etc/cmdline.d,
 * /etc/cmdline, /proc/cmdline), a space and that line. The agent's dracut runtime hands this
 * line to the parser, so what a program of ours reads without a shell must be the same bytes.
 * No I/O here: the caller reads the files. */
#ifndef VERITY_DRACUTLINE_H
#define VERITY_DRACUTLINE_H

#include <stddef.h>

/* Append the lines of one file's bytes buf[0..n) to part[0..*len), as getcmdline's loop
 * `while read -r _line || [ -n "$_line" ]` does: each line (up to '\n') with the blanks and
 * tabs at its ends removed (the default IFS), after a space; a last line without '\n' only
 * when something is left of it; NUL bytes dropped (bash's read skips them). part stays
 * NUL-terminated. -E2BIG, part unchanged, when it would not fit in size bytes. */
int vi_dracut_line_append(char *part, size_t size, size_t *len, const char *buf, size_t n);

#endif
