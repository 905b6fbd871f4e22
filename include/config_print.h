/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Printing a resolved configuration (lib/config/config_print.c): what `verity-init parse`
 * prints, for people and tests or for the dracut hooks (which read it without eval). */
#ifndef VERITY_CONFIG_PRINT_H
#define VERITY_CONFIG_PRINT_H

#include <stdio.h>

#include "config.h"

/* VI_PRINT_KV: "key=value" lines for humans and tests (values sanitized for a terminal);
 * VI_PRINT_SHELL: VERITY_NAME='root' lines, safe for `eval` in POSIX sh; the dracut hooks read them.
 * Returns 0 or -EIO. */
enum vi_print_style {
	VI_PRINT_KV = 0,
	VI_PRINT_SHELL,
};
int vi_config_print(FILE *f, const struct vi_config *cfg, enum vi_print_style style);

#endif
