/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The TPM 2.0 commands the agent sends and the responses it reads, as plain bytes (TPM 2.0
 * Library, Part 3), built and checked here without a TSS:
 *  - TPM2_PCR_Event, the measurement (include/measure.h): the TPM hashes the event in every bank
 *    it has and extends the PCR with those digests, which its answer lists;
 *  - the A/B rollback floor's NV counter (docs/slots.md, "The floor in a TPM NV counter"; the
 *    sequence on the device is include/tpmnv.h's): NV_ReadPublic (is it our counter), NV_Read
 *    (its value), NV_Increment, NV_DefineSpace, NV_WriteLock;
 *  - systemd's `verity` NvPCR (include/measure.h, "NvPCR"; the sequence on the device is
 *    include/tpmnv.h's): an NV index of type TPM_NT_EXTEND defined as systemd defines its NvPCRs
 *    (NV_DefineSpace, NV_UndefineSpace) and extended (NV_Extend) through a policy session
 *    (StartAuthSession, PolicyNvWritten, PolicyOR).
 * Every other command authorizes with a password session with an empty password. Pure: sending
 * the bytes to the TPM is include/tpm.h's. lib/format/tpm2.c.
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
/* Room for any of the NV and policy commands (NV_DefineSpace of an NvPCR is the longest). */
#define VI_TPM_NV_CMD_MAX 128u

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
#define VI_TPMA_NV_POLICYWRITE    0x00000008u
#define VI_TPMA_NV_TPM_NT_COUNTER 0x00000010u   /* TPM_NT_COUNTER (1) in bits 4-7 */
#define VI_TPMA_NV_TPM_NT_EXTEND  0x00000040u   /* TPM_NT_EXTEND (4) in bits 4-7 */
#define VI_TPMA_NV_WRITELOCKED    0x00000800u
#define VI_TPMA_NV_WRITE_STCLEAR  0x00004000u
#define VI_TPMA_NV_OWNERREAD      0x00020000u
#define VI_TPMA_NV_AUTHREAD       0x00040000u
#define VI_TPMA_NV_NO_DA          0x02000000u
#define VI_TPMA_NV_ORDERLY        0x04000000u
#define VI_TPMA_NV_CLEAR_STCLEAR  0x08000000u
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

/* systemd's NvPCRs (docs/TPM2_PCR_MEASUREMENTS.md, "NvPCR Measurements", and its
 * /usr/lib/nvpcr/verity.nvpcr: index 0x01d10202, sha256; systemd 262's systemd-tpm2-setup
 * defines it so, as `tpm2_nvreadpublic` shows): an extend index of one SHA-256 digest, written
 * only through its policy, read with its own (empty) authorization value or the owner's, kept in
 * RAM (orderly) and cleared at every TPM Reset or Restart (the next boot writes it first). */
#define VI_TPM_NVPCR_VERITY    0x01d10202u
#define VI_TPM_NVPCR_ATTRS (VI_TPMA_NV_POLICYWRITE | VI_TPMA_NV_TPM_NT_EXTEND | \
			    VI_TPMA_NV_OWNERREAD | VI_TPMA_NV_AUTHREAD | VI_TPMA_NV_ORDERLY | \
			    VI_TPMA_NV_CLEAR_STCLEAR)
#define VI_TPM_NVPCR_SIZE      32u
#define VI_TPM_POLICY_SIZE     32u   /* a SHA-256 policy digest */
/* The policy digests of the NvPCR's write policy (Part 1, 19.7; systemd's is the same OR of two
 * branches, its first one a PolicyAuthorize of the UKI's PCR signing key that the agent cannot
 * satisfy):
 *   written   PolicyNvWritten(YES): any write once the index holds a value (systemd's branch 1,
 *             the one its tools use for every extend after the first)
 *   first     PolicyNvWritten(NO): the first write of a boot, the anchor
 *   policy    PolicyOR(first, written): the index's authPolicy
 * vi_tpm_nvpcr_policy(): the three, SHA-256. */
struct vi_tpm_nvpcr_policy {
	uint8_t written[VI_TPM_POLICY_SIZE];
	uint8_t first[VI_TPM_POLICY_SIZE];
	uint8_t policy[VI_TPM_POLICY_SIZE];
};
const struct vi_tpm_nvpcr_policy *vi_tpm_nvpcr_policy(void);

/* Response codes the floor acts on (Part 2, 6.6). */
#define VI_TPM_RC_NV_UNINITIALIZED 0x0000014au   /* a counter never incremented */
#define VI_TPM_RC_NV_LOCKED        0x00000148u   /* write-locked: NV_WriteLock this boot */
#define VI_TPM_RC_NV_DEFINED       0x0000014cu

struct vi_tpm_digest {
	uint16_t alg;                    /* VI_TPM_ALG_* */
	uint8_t value[VI_TPM_MAX_DIGEST];
};

/* An NV index's public area as NV_ReadPublic gives it, and the name the TPM gives it after. */
struct vi_tpm_nv_public {
	uint32_t index;
	uint16_t name_alg;
	uint32_t attrs;
	uint16_t policy_size;   /* its authPolicy's length: 0 for the floor */
	uint16_t data_size;
	uint8_t policy[VI_TPM_MAX_DIGEST];
	uint16_t name_size;     /* nameAlg (2 bytes) and the digest of the public area */
	uint8_t name[2 + VI_TPM_MAX_DIGEST];
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

/* NV_DefineSpace of an NvPCR at index (VI_TPM_NVPCR_ATTRS, SHA-256 name, a 32-byte value, the
 * authPolicy of vi_tpm_nvpcr_policy, empty authorization value), authorized by the owner
 * hierarchy with an empty password. */
int vi_tpm_nv_define_nvpcr_command(uint32_t index, uint8_t *buf, size_t size,
				   struct vi_error *err);
/* NV_UndefineSpace of index, authorized by the owner hierarchy with an empty password. */
int vi_tpm_nv_undefine_command(uint32_t index, uint8_t *buf, size_t size, struct vi_error *err);
/* StartAuthSession of a policy session: unbound, unsalted, no parameter encryption, SHA-256,
 * nonce the caller's 16 bytes. */
int vi_tpm_policy_session_command(const uint8_t nonce[16], uint8_t *buf, size_t size,
				  struct vi_error *err);
/* PolicyNvWritten(written) on the policy session. */
int vi_tpm_policy_nv_written_command(uint32_t session, bool written, uint8_t *buf, size_t size,
				     struct vi_error *err);
/* PolicyOR on the policy session over an NvPCR policy's two branches: first (NULL: the agent's,
 * vi_tpm_nvpcr_policy; systemd's own is its PolicyAuthorize digest, which it writes to
 * /run/systemd/nvpcr/NAME.auth) and written. */
int vi_tpm_policy_or_nvpcr_command(uint32_t session, const uint8_t *first, uint8_t *buf,
				   size_t size, struct vi_error *err);
/* NV_Extend of index (authorized by itself) with the n bytes of data (1..64), through the policy
 * session, which ends with the command. */
int vi_tpm_nv_extend_command(uint32_t index, uint32_t session, const uint8_t *data, size_t n,
			     uint8_t *buf, size_t size, struct vi_error *err);

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
/* A response of len bytes to a command sent without sessions that answers nothing but success
 * (PolicyNvWritten, PolicyOR): the bare header, TPM_RC_SUCCESS. */
int vi_tpm_plain_response_check(const uint8_t *buf, size_t len, uint32_t *ret_rc,
				struct vi_error *err);
/* StartAuthSession's response: the session's handle (a policy session's: 0x03xxxxxx) in
 * *ret_session, the TPM's nonce (at most 64 bytes) and nothing more; *ret_session untouched on
 * failure. */
int vi_tpm_policy_session_parse(const uint8_t *rsp, size_t len, uint32_t *ret_rc,
				uint32_t *ret_session, struct vi_error *err);
/* NV_ReadPublic's response: the index's public area (an authPolicy of at most 64 bytes), its
 * name after it (nameAlg and a digest of that algorithm's size, or a bare handle) and nothing
 * more; *ret untouched on failure. */
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
/* What pub is for the NvPCR at index: 1 an NvPCR with the agent's policy (vi_tpm_nvpcr_policy),
 * 0 an NvPCR with another policy (systemd's, bound to a UKI's key), -EPERM with the difference
 * for an index of another kind (other attributes, name algorithm or size), which nobody may
 * take over. */
int vi_tpm_nvpcr_check(const struct vi_tpm_nv_public *pub, uint32_t index, struct vi_error *err);

#endif
