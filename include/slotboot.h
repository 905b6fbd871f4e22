/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent's A/B boot step, its pure part (docs/slots.md, "Booting a slot"): the policy's slot
 * layout turned into the root to set up, and the decisions the agent takes over the store's
 * state (include/slots.h) between reading it and switching: which slot, whether its manifest
 * version may boot, its try taken before the switch, a failed slot marked bad. The device work
 * is the agent's (verity-init/agent/slot-boot.c). Functions return 0 or a negative errno. */
#ifndef VERITY_SLOTBOOT_H
#define VERITY_SLOTBOOT_H

#include <stddef.h>
#include <stdint.h>

#include "activate.h"
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

/* The slot to set up next: the bootable slot of highest priority (vi_slots_pick) among those
 * not in tried (bit i: slot i was set up in this boot already: one try per slot and boot), or
 * -ENOENT. */
int vi_slot_boot_pick(const struct vi_slots *s, unsigned tried);

/* Whom a failed slot is blamed on (docs/slots.md, "Which failure marks a slot bad"). */
enum vi_slot_blame {
	VI_SLOT_BLAME_CONTENT,  /* the slot's own data: marked bad, no tries left */
	VI_SLOT_BLAME_BOOT,     /* what the slot's data cannot cause (a device missing or
	                         * ambiguous, the command line, the kernel): one try taken */
};

/* The signature step of a slot whose devices were found failed with r: its manifest's
 * signature, text or version refused (the content), or a read error, out of memory (not). */
enum vi_slot_blame vi_slot_manifest_blame(int r);

/* The set-up of a slot (devices, superblock, ..., init, switch) failed at stage with r, under
 * the configuration cfg. The content is blamed for what its verified data alone decides: the
 * superblock, sizes and pre-flight of its tree, and a verity read error mounting it or init
 * missing from it, those two only when the command line shaped neither the mount (rootflags=,
 * rootfstype=, systemd.volatile=) nor init (init=). */
enum vi_slot_blame vi_slot_setup_blame(enum vi_stage stage, int r, const struct vi_config *cfg);

/* Slot i's manifest verified with version: refused (-EPERM, err says why) below the store's
 * rollback floor; else its try is taken and the version recorded (vi_slots_try), to be written
 * before the switch. */
int vi_slot_boot_admit(struct vi_slots *s, unsigned i, uint64_t version, struct vi_error *err);

/* What the agent does with the rollback floor's TPM counter (slot_floor=tpm) for slot i, whose
 * manifest verified with version in this boot, before its try is taken (s: the store as read).
 * The counter only rises to a version a manifest verified in this boot carries, and only for
 * a slot the store says booted completely with that very version as the running slot (the
 * floor rule's record, vi_slots_floor_proven). */
enum vi_slot_tpm_action {
	VI_SLOT_TPM_KEEP,     /* at or above the counter: it stays */
	VI_SLOT_TPM_RAISE,    /* above it, and good with this version: raise it to version */
	VI_SLOT_TPM_REFUSE,   /* below it: refused, blamed on the boot (not marked bad) */
};
enum vi_slot_tpm_action vi_slot_boot_tpm_action(const struct vi_slots *s, unsigned i,
						uint64_t version, uint64_t counter);

/* Slot i failed at stage ("devices", "preflight", "manifest", "version", ...), with the reason
 * "STAGE: REASON" kept (what fits, printable ASCII): blamed on its content, marked bad
 * (vi_slots_mark_bad); else one try taken, unless try_taken says the boot took it already
 * (vi_slots_mark_failed). */
int vi_slot_boot_failed(struct vi_slots *s, unsigned i, enum vi_slot_blame blame, bool try_taken,
			const char *stage, const char *reason);

/* Append "SLOT:STAGE:REASON" to the skipped list (size bytes, ";" between entries); the reason
 * loses its ';' (they separate entries) and non-printable bytes; cut to fit, always NUL-ended. */
void vi_slot_skipped_add(char *list, size_t size, const char *slot, const char *stage,
			 const char *reason);

#endif
