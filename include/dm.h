/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Device-mapper through libdevmapper: the kernel's target versions, creating a read-only verity
 * mapping, reading back its table and status, removing it. */
#ifndef VERITY_DM_H
#define VERITY_DM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"

/* restart_on_error / panic_on_error need dm-verity target 1.10 (Linux 6.12). */
#define VI_DM_VERITY_IOERR_MAJOR 1u
#define VI_DM_VERITY_IOERR_MINOR 10u

/* How /dev/mapper/NAME comes to exist. */
enum vi_dm_nodes {
	VI_DM_NODES_SELF = 0,   /* PID 1, no udev: libdevmapper creates the node itself */
	VI_DM_NODES_UDEV,       /* udev runs (dracut): wait for it through a cookie */
};

/* Configure libdevmapper once per process: node policy, and its log routed to err buffers
 * instead of stderr (the caller decides what to print). */
void vi_dm_init(enum vi_dm_nodes nodes);

/* Close libdevmapper's descriptors (/dev/mapper/control has no O_CLOEXEC) before another
 * program is executed; a later call opens them again. */
void vi_dm_release(void);

/* Version of a loaded target type ("verity"). -ENOENT when the kernel lists no such target
 * (module not loaded), -EIO when device-mapper itself is unavailable. */
int vi_dm_target_version(const char *target, uint32_t ret_version[3], struct vi_error *err);

/* Whether a mapping NAME exists; its device number in *ret_devno when it does. An existing
 * mapping that is suspended, writable, without a live table or with an inactive table loaded
 * is -EBUSY with err set (*ret_exists is true): it cannot be reused. */
int vi_dm_exists(const char *name, bool *ret_exists, dev_t *ret_devno, struct vi_error *err);

/* Create NAME (with dm UUID uuid unless NULL or empty, at minor unless < 0, as dm-mod.create=
 * asks) as one read-only `verity` target of `sectors` sectors with `params`, resumed, and
 * make /dev/mapper/NAME. -EEXIST when NAME exists; -EINVAL/-EIO with err set (the kernel's own
 * reason is in the kernel log). */
int vi_dm_create_verity(const char *name, const char *uuid, int minor, uint64_t sectors,
			const char *params, dev_t *ret_devno, struct vi_error *err);

/* The dm UUID of the mapping NAME ("" when it has none). -ENXIO: no such mapping. */
int vi_dm_uuid(const char *name, char *ret_uuid, size_t size, struct vi_error *err);

/* Table of a single-target mapping: its target type and parameters. -ENXIO: no such mapping;
 * -EINVAL: not exactly one target. */
int vi_dm_table(const char *name, char *ret_type, size_t type_size, char *ret_params,
		size_t params_size, uint64_t *ret_sectors, struct vi_error *err);

/* The kernel's status line of a single-target mapping (for verity: "V" verified so far,
 * "C" corruption detected, optionally followed by FEC counters). */
int vi_dm_status(const char *name, char *ret_status, size_t size, struct vi_error *err);

/* Remove NAME (used to clean up after a failed check, before a fallback). */
int vi_dm_remove(const char *name, struct vi_error *err);

#endif
