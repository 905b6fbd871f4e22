/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The A/B rollback floor in a TPM 2.0 NV counter (docs/slots.md, "The floor in a TPM NV
 * counter"): an NV index of type TPM_NT_COUNTER in the owner range, which only ever goes up. Its
 * value is the floor: raising the floor to V increments it until it reaches V. The commands and
 * their responses are include/tpm2.h's (NV_ReadPublic, NV_Read, NV_Increment, NV_DefineSpace,
 * NV_WriteLock); here, their sequence on the TPM device. The index's attributes are fixed
 * (VI_TPM_FLOOR_ATTRS): an index at the handle with any other attributes or type (an ordinary
 * index could be written downwards) is refused. NV_WriteLock stops every increment until the
 * TPM is next reset: the agent locks the counter at every boot. Here too, systemd's `verity`
 * NvPCR, an extend index (vi_tpm_nvpcr_extend). lib/boot/tpmnv.c. Functions return 0 or a
 * negative errno. */
#ifndef VERITY_TPMNV_H
#define VERITY_TPMNV_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

/* Increments one raise may take: each is a write of the TPM's NV memory (slow, rate-limited,
 * and it wears), so manifest versions under a TPM floor grow in small steps. */
#define VI_TPM_FLOOR_RAISE_MAX 100u

struct vi_tpm_floor {
	uint64_t value;     /* the counter: the floor */
	bool defined;       /* the index did not exist and was defined now */
	bool initialized;   /* it had never been incremented and was now (its first value) */
	bool locked;        /* write-locked already (NV_WriteLock since the TPM's last reset) */
};

/* The counter at index on dev, checked to be the floor's (vi_tpm_nv_floor_check). With define
 * (the agent at boot): defined when missing, and incremented once when it never was (a counter
 * has no value before; its first is above every counter the TPM ever had, so a deleted index
 * cannot come back lower). Without: a counter never incremented reads as 0. -ENODEV: no TPM
 * device; -ENOENT: no index (define false); -EPERM: another index at the handle; -EIO: the TPM
 * refused a command. */
int vi_tpm_floor_read(const char *dev, uint32_t index, bool define, struct vi_tpm_floor *ret,
		      struct vi_error *err);

/* Raise the counter at index to at least to: read it (vi_tpm_floor_read without define: the
 * index must exist and be the floor's), refuse (-ERANGE) when that takes more than max_steps
 * increments, else increment until it holds to. *ret_value: the counter after (also on
 * -ERANGE). */
int vi_tpm_floor_raise(const char *dev, uint32_t index, uint64_t to, unsigned max_steps,
		       uint64_t *ret_value, struct vi_error *err);

/* NV_WriteLock of the counter at index: no increment until the next TPM Reset or Restart.
 * -EIO (*ret_rc: the code) when the TPM refuses it. */
int vi_tpm_floor_lock(const char *dev, uint32_t index, uint32_t *ret_rc, struct vi_error *err);

/* systemd's `verity` NvPCR (include/tpm2.h, include/measure.h "NvPCR"): what one extend did. */
struct vi_tpm_nvpcr {
	bool defined;       /* the index did not exist and was defined now */
	bool replaced;      /* it was an NvPCR under another policy (systemd's), not yet written
			     * this boot: undefined and defined with the agent's */
	bool anchored;      /* this call made the boot's first write (32 zero bytes) */
	bool theirs;        /* systemd's NvPCR, written this boot: extended through its policy */
	uint16_t name_size; /* the index's TPM name after the write (nameAlg, digest) */
	uint8_t name[2 + 64];
};

/* Extend the NvPCR at index on dev with the 32 bytes of data, as systemd extends its NvPCRs
 * (TPM2_NV_Extend, the index's value becomes SHA-256(value | data)): define the index when it is
 * missing (vi_tpm_nv_define_nvpcr_command), replace an NvPCR of another policy that nobody
 * wrote this boot, make the boot's first write (32 zero bytes, systemd's anchor) when nobody
 * has, then extend, each write through a policy session of the index's policy. An NvPCR of
 * systemd's policy that systemd already wrote this boot is extended as systemd's tools extend
 * it, with its_first (the first branch systemd wrote to its auth file; NULL: none) in the OR.
 * All on one descriptor (the sessions live on it). -ENODEV: no TPM device; -EPERM: another kind
 * of index at the handle, or an NvPCR of another policy already written this boot without
 * its_first; -EIO: the TPM refused a command (its_first not the index's branch, among others). */
int vi_tpm_nvpcr_extend(const char *dev, uint32_t index, const uint8_t data[32],
			const uint8_t *its_first, struct vi_tpm_nvpcr *ret, struct vi_error *err);

#endif
