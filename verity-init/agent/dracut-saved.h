/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The command line `setup` was handed (dracut's getcmdline: /etc/cmdline.d, /etc/cmdline,
 * /proc/cmdline), kept in the run directory so that the pre-pivot check of the systemd flavour
 * runs as a unit of its own, without dracut's shell library, on the very line setup used
 * (verity-init/agent/dracut-saved.c). */
#ifndef VERITY_DRACUT_SAVED_H
#define VERITY_DRACUT_SAVED_H
#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/* the file's name in the run directory */
#define VI_DRACUT_SAVED_CMDLINE "cmdline"

/* Write cmdline to dir/cmdline (mode 0600, replaced whole: written beside it and renamed). */
int vi_dracut_save_cmdline(const char *dir, const char *cmdline, struct vi_error *err);

/* Read dir/cmdline into buf[0..size) as setup wrote it (a regular file, not a link, NUL-free).
 * -ENOENT when setup saved none, -EFBIG when it does not fit. */
int vi_dracut_read_saved_cmdline(const char *dir, char *buf, size_t size, struct vi_error *err);

/* What dracut's getarg reads in line (its own word splitting): the last init= value into
 * init[0..size) (empty when there is none) and whether real_init= or rd.distroinit= is there
 * (dracut would run another init). -E2BIG when the value does not fit, -ENOMEM. */
int vi_dracut_init_words(const char *line, char *init, size_t size, bool *ret_other_init);

#endif
