/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kernel's dm-mod.create= syntax (Documentation/admin-guide/device-mapper/dm-init.rst),
 * restricted to what verity-init sets up: one device with one `verity` target. */
#ifndef VERITY_DMINIT_H
#define VERITY_DMINIT_H

#include <stddef.h>

#include "config.h"

#define VI_DM_MAX_WORDS   40u   /* words in the table line: 13 fixed + count + 26 optional */
#define VI_DM_MAX_MINOR   ((1u << 20) - 1)

/* Parse s[0..len) (the value of dm-mod.create=) into t: all parameters given, superblock off,
 * from_dm_create true. Pure, no I/O. -EINVAL with err set; t untouched on failure. */
int vi_dm_create_parse(const char *s, size_t len, struct vi_target *t, struct vi_error *err);

#endif
