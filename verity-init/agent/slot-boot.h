/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent's A/B boot step (PID 1; docs/slots.md, "Booting a slot"): read the slot state
 * store, set up the bootable slot of highest priority from the manifest stored with it, take
 * its try before the switch, and on any failure mark it bad and set up the next slot in the
 * same boot. The decisions are lib/boot/slots.c's; this file does the device work. */
#ifndef VERITY_SLOT_BOOT_H
#define VERITY_SLOT_BOOT_H

#include <stdbool.h>
#include <stdint.h>

#include "devices.h"
#include "failure.h"
#include "kmsg.h"
#include "managed.h"
#include "plan.h"
#include "slots.h"

struct vi_slot_boot {
	/* in */
	struct vi_kmsg *log;
	struct vi_plan *plan;        /* plan->cfg.root: the slot being set up */
	struct vi_failure *failure;  /* where the boot step records a failure */
	uint64_t *wait_ms;           /* device waits, added up */
	/* set up and switch to t; returns only when that failed (*failure set), with
	 * *ret_switched telling whether the initramfs is gone already; or 0: t is set up and
	 * the caller boots it (dracut mounts and switches later) */
	int (*boot)(void *ctx, const struct vi_target *t, bool *ret_switched);
	void *ctx;
	/* managed recovery (policy managed=yes): how the last boot ended (pstore); the slot
	 * the store's ran record names is marked bad, no other */
	enum vi_pstore_end crash_end;
	/* out, for the status file (NULL: no line) */
	const char *slot;            /* the slot being set up or booted */
	const char *store;           /* the store device, once opened */
	char store_path[VI_DEV_NAME_MAX + 8];   /* "/dev/" + the kernel name */
	char skipped[VI_SLOT_SKIPPED_MAX];
	char floor_nv[12];           /* the TPM NV counter of the floor, "0x01005649"; "": none */
	/* internal: the counter as read (and raised) in this boot, and whether it is locked */
	uint64_t tpm_floor;
	bool tpm_locked;
};

/* Boot a slot. 0 when boot returned 0 (sb->slot is set up); else none booted (-ENOENT): the
 * failure of the last slot tried (or of the store) is in *sb->failure, and the caller takes
 * the fail actions. */
int vi_slot_boot_run(struct vi_slot_boot *sb, bool *ret_switched);

/* The slot set up earlier in this boot (the status file's slot=) failed after the set-up, at
 * stage (dracut's pre-pivot): recorded in the store as a set-up failure with its try taken
 * (marked bad when its content is blamed), added to sb->skipped, sb->slot cleared. */
int vi_slot_boot_failed_later(struct vi_slot_boot *sb, const char *slot, enum vi_stage stage,
			      int error, const char *reason);

#endif
