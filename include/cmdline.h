/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kernel command line into a struct vi_config (include/config.h): the key table and the
 * first pass (lib/config/cmdline.c), what the line hands to the booted system
 * (cmdline_handover.c, include/cmdline_handover.h) and the second pass (cmdline_resolve.c,
 * include/cmdline_resolve.h). docs/cmdline.md is the user-facing reference of every key. */
#ifndef VERITY_CMDLINE_H
#define VERITY_CMDLINE_H

#include <stddef.h>

#include "config.h"
#include "err.h"

/* Parse a whole kernel command line into cfg (defaults applied first). Unknown keys outside our
 * namespaces are ignored; a malformed or conflicting value of ours is -EINVAL with err set;
 * a command line longer than VI_MAX_CMDLINE is -E2BIG. cfg is untouched on failure.
 * vi_cmdline_parse_buf is the same over (buf, len) — no NUL needed, a NUL inside is -EINVAL —
 * and is what fuzzers call. Neither does any I/O.
 * Words after a bare "--" are init's and not read (the kernel's rule, for PID 1), unless flags
 * has VI_CMDLINE_PAST_DASHDASH: dracut's getarg reads every word of /proc/cmdline, so the
 * dracut module's calls must see what dracut will act on. */
#define VI_CMDLINE_PAST_DASHDASH 0x1u
int vi_cmdline_parse(const char *cmdline, unsigned flags, struct vi_config *cfg,
		     struct vi_error *err);
int vi_cmdline_parse_buf(const char *buf, size_t len, unsigned flags, struct vi_config *cfg,
			 struct vi_error *err);

#endif
