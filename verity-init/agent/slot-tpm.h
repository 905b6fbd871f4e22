/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The A/B rollback floor in a TPM NV counter (slot_floor=tpm; docs/slots.md, "The floor in a
 * TPM NV counter"), for the agent's boot step and `verity-init slot`. The TPM commands are
 * lib/boot/tpmnv.c's; this file decides what a missing TPM or index means and says so. */
#ifndef VERITY_SLOT_TPM_H
#define VERITY_SLOT_TPM_H

#include <stdint.h>

#include "err.h"
#include "kmsg.h"
#include "policy.h"
#include "slot-boot.h"
#include "slots.h"

/* At boot, after the store was read: under slot_floor=tpm, the counter is read (defined and
 * given its first value when missing) into sb->tpm_floor; sb->floor_nv names it for the status
 * file. The store's floor s->floor is left as it is: a version below it is the content's fault,
 * one below the counter alone is not (vi_slots_counter_action). No TPM, any TPM error, or
 * another index at the handle: *sb->failure set, logged, a negative errno: no slot may boot. */
int vi_slot_tpm_boot_read(struct vi_slot_boot *sb, const struct vi_slots *s);

/* Slot i's manifest verified with version (s: the store as read, before its try): -EPERM (err
 * says why) below the counter; else the counter raised to version when the slot is good with
 * it (a failure to raise is logged, not fatal), then write-locked (vi_slot_tpm_lock):
 * -ENOLCK when that failed. 0 without a TPM floor. */
int vi_slot_tpm_admit(struct vi_slot_boot *sb, const struct vi_slots *s, unsigned i,
		      uint64_t version, struct vi_error *err);

/* TPM2_NV_WriteLock of the counter, once per boot, before any root runs (also when no slot
 * boots): no increment until the next TPM Reset or Restart. A failure is the floor's (stage
 * devices, *sb->failure set and logged): the running system could raise it. */
int vi_slot_tpm_lock(struct vi_slot_boot *sb);

/* Before the fail list runs (a recovery root, a shell, also after a failure before the slot
 * step: the store or the command line refused): under slot_floor=tpm, the counter
 * write-locked unless this boot locked it already, so that nothing the fallback runs raises it
 * past every image. No TPM or no index: nothing to do; a failure is logged. */
void vi_slot_tpm_lock_before_fallback(const struct vi_policy *p, struct vi_slot_boot *sb,
				      struct vi_kmsg *log);

/* `slot mark-good` (and `set-state SLOT good` of the running slot) under the status file's
 * floor_nv= (nv; "" when the boot used none: nothing to do, *ret_value 0): the counter read
 * into *ret_value (the agent raises it at the next boot: it is write-locked now), and version
 * refused (-ERANGE) when that raise would take more than VI_TPM_FLOOR_RAISE_MAX increments. */
int vi_slot_tpm_floor_next(const char *nv, uint64_t version, uint64_t *ret_value,
			   struct vi_error *err);

/* `slot tpm-floor`: the counter at nv (the status file's floor_nv=, else the default index);
 * a counter never incremented reads 0. */
int vi_slot_tpm_floor_show(const char *nv, uint64_t *ret_value, uint32_t *ret_index,
			   struct vi_error *err);

#endif
