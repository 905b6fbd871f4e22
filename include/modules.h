/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loading the kernel modules the initramfs ships (no modprobe, no udev): the list file has one
 * .ko path per line, in dependency order; blank lines and '#' comments are skipped. */
#ifndef VERITY_MODULES_H
#define VERITY_MODULES_H

#include "superblock.h"

#define VI_MODULES_LIST "/etc/verity-init/modules"

/* Load every module of the list with finit_module(2), in order. A module already loaded
 * (EEXIST) counts as loaded; one whose init says ENODEV (no such hardware, e.g. a CPU-specific
 * crypto driver) is counted in *ret_skipped. A missing list is not an error (everything built
 * in). Every line is tried; the return value is the first failure (err names the module). */
int vi_modules_load(const char *list, unsigned *ret_loaded, unsigned *ret_skipped,
		    struct verity_err *err);

#endif
