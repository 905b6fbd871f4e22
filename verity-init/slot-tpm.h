/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The A/B rollback floor in a TPM NV counter (slot_floor=tpm; docs/slots.md, "The floor in a
 * TPM NV counter"), for the agent's boot step and `verity-init slot`. The TPM commands are
 * lib/boot/tpmnv.c's; this file decides what a missing TPM or index means and says so. */
#ifndef VERITY_SLOT_TPM_H
#define VERITY_SLOT_TPM_H

#include <stdint.h>

#include "err.h"
#include "slot-boot.h"
#include "slots.h"

/* At boot, after the store was read: under slot_floor=tpm, the counter is read (defined and
 * given its first value when missing) and s->floor raised to it; sb->floor_nv names it for the
 * status file. No TPM: the store's floor alone (a warning), or with require_tpm=yes a failure.
 * Any other TPM error, or another index at the handle: a failure. On failure *sb->failure is
 * set, logged, and a negative errno returned: no slot may boot. */
int vi_slot_boot_tpm_floor(struct vi_slot_boot *sb, struct vi_slots *s);

/* `slot mark-good` (and `set-state SLOT good` of the running slot): the counter named by the
 * status file's floor_nv= (nv, "" when the boot used none: nothing to do) raised to version,
 * at most VI_TPM_FLOOR_RAISE_MAX increments. *ret_value: the counter after. */
int vi_slot_tpm_floor_raise(const char *nv, uint64_t version, uint64_t *ret_value,
			    struct vi_error *err);

/* `slot tpm-floor`: the counter at nv (the status file's floor_nv=, else the default index);
 * a counter never incremented reads 0. */
int vi_slot_tpm_floor_show(const char *nv, uint64_t *ret_value, uint32_t *ret_index,
			   struct vi_error *err);

#endif
