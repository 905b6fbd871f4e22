/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The A/B rollback floor in a TPM 2.0 NV counter (docs/slots.md, "The floor in a TPM NV
 * counter"): an NV index of type TPM_NT_COUNTER in the owner range, which only ever goes up. Its
 * value is the floor: raising the floor to V increments it until it reaches V. Five commands,
 * built and parsed here by hand as lib/boot/tpm.c does PCR_Event (TPM 2.0 Library, Part 3,
 * 31): NV_ReadPublic (is it our counter), NV_Read (its value), NV_Increment, NV_DefineSpace,
 * NV_WriteLock (no increment until the TPM is next reset: the agent locks it at every boot).
 * The index's attributes are fixed (VI_TPM_FLOOR_ATTRS): an index at the handle with any other
 * attributes or type (an ordinary index could be written downwards) is refused.
 * lib/boot/tpmnv.c. Functions return 0 or a negative errno. */
#ifndef VERITY_TPMNV_H
#define VERITY_TPMNV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* The NV index range the TCG's handle registry leaves to the TPM's owner. */
#define VI_TPM_NV_OWNER_FIRST  0x01000000u
#define VI_TPM_NV_OWNER_LAST   0x013fffffu
#define VI_TPM_FLOOR_NV_DEFAULT 0x01005649u   /* "VI" */

/* TPMA_NV bits (Part 2, 13.4) */
#define VI_TPMA_NV_AUTHWRITE      0x00000004u
#define VI_TPMA_NV_TPM_NT_COUNTER 0x00000010u   /* TPM_NT_COUNTER (1) in bits 4-7 */
#define VI_TPMA_NV_WRITELOCKED    0x00000800u
#define VI_TPMA_NV_WRITE_STCLEAR  0x00004000u
#define VI_TPMA_NV_AUTHREAD       0x00040000u
#define VI_TPMA_NV_NO_DA          0x02000000u
#define VI_TPMA_NV_WRITTEN        0x20000000u
/* The floor's index: a counter (only goes up, NV_Write refused), incremented and read with its
 * own empty authorization value (nobody can lower it), write-lockable until the next TPM Reset
 * or Restart (the agent raises it, then locks it: the running system cannot raise it),
 * outside dictionary-attack lockout, not orderly (each increment is stored at once), created
 * by the owner (deleting it needs the owner's authorization). */
#define VI_TPM_FLOOR_ATTRS (VI_TPMA_NV_AUTHWRITE | VI_TPMA_NV_TPM_NT_COUNTER | \
			    VI_TPMA_NV_WRITE_STCLEAR | VI_TPMA_NV_AUTHREAD | VI_TPMA_NV_NO_DA)
/* The floor's attributes before it could be locked: refused, with how to define it again. */
#define VI_TPM_FLOOR_ATTRS_UNLOCKABLE (VI_TPM_FLOOR_ATTRS & ~VI_TPMA_NV_WRITE_STCLEAR)

/* Increments one raise may take: each is a write of the TPM's NV memory (slow, rate-limited,
 * and it wears), so manifest versions under a TPM floor grow in small steps. */
#define VI_TPM_FLOOR_RAISE_MAX 100u

/* Room for any of the five commands. */
#define VI_TPM_NV_CMD_MAX 64u

/* Response codes the floor acts on (Part 2, 6.6). */
#define VI_TPM_RC_NV_UNINITIALIZED 0x0000014au   /* a counter never incremented */
#define VI_TPM_RC_NV_LOCKED        0x00000148u   /* write-locked: NV_WriteLock this boot */
#define VI_TPM_RC_NV_DEFINED       0x0000014cu

/* An NV index's public area as NV_ReadPublic gives it. */
struct vi_tpm_nv_public {
	uint32_t index;
	uint16_t name_alg;
	uint32_t attrs;
	uint16_t policy_size;   /* its authPolicy's length: 0 for the floor */
	uint16_t data_size;
};

/* "0x" and eight lower-case hex digits (v[0..n), as the policy and the status file write it), an
 * index of the owner's range; -EINVAL otherwise. */
int vi_tpm_nv_index_parse(const char *v, size_t n, uint32_t *ret);

/* --- commands (pure): the length written into buf, or -ENOBUFS --- */
int vi_tpm_nv_read_public_command(uint32_t index, uint8_t *buf, size_t size,
				  struct vi_error *err);
/* NV_Read of the 8 bytes of index, authorized by the index itself (empty password). */
int vi_tpm_nv_read_command(uint32_t index, uint8_t *buf, size_t size, struct vi_error *err);
/* NV_Increment of index, authorized by the index itself (empty password). */
int vi_tpm_nv_increment_command(uint32_t index, uint8_t *buf, size_t size, struct vi_error *err);
/* NV_WriteLock of index, authorized by the index itself (empty password): NV_Increment
 * answers TPM_RC_NV_LOCKED until the next TPM Reset or Restart (TPMA_NV_WRITE_STCLEAR). */
int vi_tpm_nv_write_lock_command(uint32_t index, uint8_t *buf, size_t size,
				 struct vi_error *err);
/* NV_DefineSpace of the floor's counter at index (VI_TPM_FLOOR_ATTRS, SHA-256 name, empty
 * authorization value and policy), authorized by the owner hierarchy with an empty password. */
int vi_tpm_nv_define_floor_command(uint32_t index, uint8_t *buf, size_t size,
				   struct vi_error *err);

/* --- responses (pure; every length and size field checked, nothing left over) ---
 * -EPROTO malformed, -EIO an error code (*ret_rc: the code; 0 when not an error). */
int vi_tpm_nv_public_parse(const uint8_t *rsp, size_t len, uint32_t *ret_rc,
			   struct vi_tpm_nv_public *ret, struct vi_error *err);
int vi_tpm_nv_read_parse(const uint8_t *rsp, size_t len, uint32_t *ret_rc, uint64_t *ret,
			 struct vi_error *err);
/* Whether rc says NV_ReadPublic's handle names no index (TPM_RC_HANDLE for handle 1). */
bool vi_tpm_rc_no_index(uint32_t rc);

/* Whether pub is the floor's counter at index (written and write-locked or not): -EPERM with
 * the difference otherwise; for the floor's attributes without TPMA_NV_WRITE_STCLEAR, with how
 * to define it again. */
int vi_tpm_nv_floor_check(const struct vi_tpm_nv_public *pub, uint32_t index,
			  struct vi_error *err);

/* --- the TPM device --- */
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

#endif
