/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent's A/B boot step, its pure part (docs/slots.md, "Booting a slot"): the policy's slot
 * layout turned into the root to set up, and the decisions the agent takes over the store's
 * state (include/slots.h) between reading it and switching: which slot, whether its manifest
 * version may boot, its try taken before the switch, a failed slot marked bad. The device work
 * is the agent's (verity-init/slot-boot.c). Functions return 0 or a negative errno. */
#ifndef VERITY_SLOTBOOT_H
#define VERITY_SLOTBOOT_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "err.h"
#include "policy.h"
#include "slots.h"

/* Room for the status file's skipped= value: "b:preflight:REASON;c:..." */
#define VI_SLOT_SKIPPED_MAX 512u

/* The root of slot index under policy p: base (the command line's root: name, options) with
 * data PARTLABEL=<prefix>X, hash PARTLABEL=<prefix>X-verity and the signed manifest after the
 * hash tree on that hash device (verity.manifest= with the hash device: docs/signing.md).
 * -EINVAL when index is not one of the policy's slots. */
int vi_slot_layout(const struct vi_policy *p, unsigned index, const struct vi_config *base,
		   struct vi_config *ret, struct vi_error *err);

/* The slot to set up next: the bootable slot of highest priority among the first
 * policy_count slots of s (vi_slots_pick), or -ENOENT. */
int vi_slot_boot_pick(const struct vi_slots *s, unsigned policy_count);

/* Slot i's manifest verified with version: refused (-EPERM, err says why) below the store's
 * rollback floor; else its try is taken and the version recorded (vi_slots_try), to be written
 * before the switch. */
int vi_slot_boot_admit(struct vi_slots *s, unsigned i, uint64_t version, struct vi_error *err);

/* Slot i failed at stage ("devices", "preflight", "manifest", "version", ...): marked bad with
 * "STAGE: REASON" (vi_slots_mark_bad keeps what fits, printable ASCII). */
int vi_slot_boot_failed(struct vi_slots *s, unsigned i, const char *stage, const char *reason);

/* Append "SLOT:STAGE:REASON" to the skipped list (size bytes, ";" between entries); the reason
 * loses its ';' (they separate entries) and non-printable bytes; cut to fit, always NUL-ended. */
void vi_slot_skipped_add(char *list, size_t size, const char *slot, const char *stage,
			 const char *reason);

#endif
