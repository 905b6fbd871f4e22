/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The TPM 2.0 commands the agent sends and the responses it reads, as plain bytes (TPM 2.0
 * Library, Part 3), built and checked here without a TSS:
 *  - TPM2_PCR_Event, the measurement (include/measure.h): the TPM hashes the event in every bank
 *    it has and extends the PCR with those digests, which its answer lists;
 *  - the A/B rollback floor's NV counter (docs/slots.md, "The floor in a TPM NV counter"; the
 *    sequence on the device is include/tpmnv.h's): NV_ReadPublic (is it our counter), NV_Read
 *    (its value), NV_Increment, NV_DefineSpace, NV_WriteLock.
 * Every command authorizes with the one session the agent uses, a password session with an
 * empty password. Pure: sending the bytes to the TPM is include/tpm.h's. lib/format/tpm2.c.
 * Functions return 0 (a builder: the command's length) or a negative errno. */
#ifndef VERITY_TPM2_H
#define VERITY_TPM2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define VI_TPM_MAX_BANKS  5u     /* sha1, sha256, sha384, sha512, sm3_256 */
#define VI_TPM_EVENT_MAX  1024u  /* TPM2B_EVENT */
#define VI_TPM_MAX_DIGEST 64u
#define VI_TPM_NUM_PCRS   24u
/* Room for a PCR_Event command: header, PCR handle, authorization size and session, the
 * TPM2B_EVENT's size and its bytes. */
#define VI_TPM_CMD_MAX    (10u + 4u + 4u + 9u + 2u + VI_TPM_EVENT_MAX)
/* Room for any of the five NV commands. */
#define VI_TPM_NV_CMD_MAX 64u

/* TPM_ALG_ID of the hash algorithms a PCR bank can use. */
#define VI_TPM_ALG_SHA1   0x0004u
#define VI_TPM_ALG_SHA256 0x000bu
#define VI_TPM_ALG_SHA384 0x000cu
#define VI_TPM_ALG_SHA512 0x000du
#define VI_TPM_ALG_SM3_256 0x0012u

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
/* An NV counter's data: 8 bytes. */
#define VI_TPM_NV_COUNTER_SIZE 8u

/* Response codes the floor acts on (Part 2, 6.6). */
#define VI_TPM_RC_NV_UNINITIALIZED 0x0000014au   /* a counter never incremented */
#define VI_TPM_RC_NV_LOCKED        0x00000148u   /* write-locked: NV_WriteLock this boot */
#define VI_TPM_RC_NV_DEFINED       0x0000014cu

struct vi_tpm_digest {
	uint16_t alg;                    /* VI_TPM_ALG_* */
	uint8_t value[VI_TPM_MAX_DIGEST];
};

/* An NV index's public area as NV_ReadPublic gives it. */
struct vi_tpm_nv_public {
	uint32_t index;
	uint16_t name_alg;
	uint32_t attrs;
	uint16_t policy_size;   /* its authPolicy's length: 0 for the floor */
	uint16_t data_size;
};

/* "sha256" for VI_TPM_ALG_SHA256 (the kernel's and the event log's name), NULL if unknown. */
const char *vi_tpm_alg_name(uint16_t alg);

/* Digest size of alg in bytes, 0 if unknown. */
size_t vi_tpm_alg_size(uint16_t alg);

/* "0x" and eight lower-case hex digits (v[0..n), as the policy and the status file write it), an
 * index of the owner's range; -EINVAL otherwise. */
int vi_tpm_nv_index_parse(const char *v, size_t n, uint32_t *ret);

/* --- commands: the length written into buf, or -ENOBUFS --- */

/* The PCR_Event command for pcr (0..23) with the n bytes of event (1..VI_TPM_EVENT_MAX) into
 * buf. -EINVAL for another PCR or an empty event. */
int vi_tpm_event_command(unsigned pcr, const char *event, size_t n, uint8_t *buf, size_t size,
			 struct vi_error *err);
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

/* --- responses: every length and size field checked ---
 * -EPROTO for a malformed response, -EIO for an error code (*ret_rc, when given, holds it; 0
 * otherwise). */

/* A response of len bytes to a command sent with the password session: a well-formed header
 * whose size field matches len, TPM_RC_SUCCESS, and room for the parameter size and the
 * session's answer. */
int vi_tpm_response_check(const uint8_t *buf, size_t len, uint32_t *ret_rc, struct vi_error *err);
/* The digests a PCR_Event response of len bytes lists (vi_tpm_response_check first): one per
 * bank, known algorithms, none twice, at most VI_TPM_MAX_BANKS, into d; *ret_n their number
 * (0 on failure). */
int vi_tpm_event_digests(const uint8_t *buf, size_t len, struct vi_tpm_digest *d,
			 size_t *ret_n, struct vi_error *err);
/* NV_ReadPublic's response: the index's public area, its name after it and nothing more; *ret
 * untouched on failure. */
int vi_tpm_nv_public_parse(const uint8_t *rsp, size_t len, uint32_t *ret_rc,
			   struct vi_tpm_nv_public *ret, struct vi_error *err);
/* NV_Read's response: the 8 bytes of a counter, the session's answer after them and nothing
 * more; *ret untouched on failure. */
int vi_tpm_nv_read_parse(const uint8_t *rsp, size_t len, uint32_t *ret_rc, uint64_t *ret,
			 struct vi_error *err);
/* Whether rc says NV_ReadPublic's handle names no index (TPM_RC_HANDLE for handle 1). */
bool vi_tpm_rc_no_index(uint32_t rc);

/* Whether pub is the floor's counter at index (written and write-locked or not): -EPERM with
 * the difference otherwise; for the floor's attributes without TPMA_NV_WRITE_STCLEAR, with how
 * to define it again. */
int vi_tpm_nv_floor_check(const struct vi_tpm_nv_public *pub, uint32_t index,
			  struct vi_error *err);

#endif
