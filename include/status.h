/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /run/verity-init/status: what the agent decided, for the booted (or recovery) root and for
 * `verity-init status`. One key=value per line; values are sanitized (printable ASCII only). */
#ifndef VERITY_STATUS_H
#define VERITY_STATUS_H

#include "superblock.h"

#define VI_STATUS_DIR  "/run/verity-init"
#define VI_STATUS_FILE "status"

struct vi_status {
	const char *result;    /* "ok" | "failed" | "recovery" */
	const char *name;      /* mapping name of the root that was set up (or failed) */
	const char *root_hash; /* hex root hash of the failed (or booted) root */
	const char *stage;     /* step that failed: devices, superblock, preflight, activate, ... */
	const char *reason;    /* the one-line reason */
	const char *action;    /* fallback taken: none, recovery, reboot, poweroff, panic, shell */
	const char *booted;    /* root hash of the root that was finally mounted, or empty */
};

/* Write dir/status atomically (temporary file + rename), creating dir (0755). */
int vi_status_write(const char *dir, const struct vi_status *st, struct verity_err *err);

#endif
