/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The TPM 2.0 transport, and the measurement's command: TPM2_PCR_Event, with an empty password
 * session, written to the kernel's resource manager (/dev/tpmrm0); the rollback floor's NV
 * counter (include/tpmnv.h) uses the same transport. The TPM hashes the event in every bank
 * it has and extends the PCR with those digests, which its answer lists. The command and its
 * response are plain bytes (TPM 2.0 Library, Part 3, TPM2_PCR_Event), built and checked here without a
 * TSS. lib/boot/tpm.c */
#ifndef VERITY_TPM_H
#define VERITY_TPM_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define VI_TPM_DEV        "/dev/tpmrm0"
#define VI_TPM_MAX_BANKS  5u     /* sha1, sha256, sha384, sha512, sm3_256 */
#define VI_TPM_EVENT_MAX  1024u  /* TPM2B_EVENT */
#define VI_TPM_MAX_DIGEST 64u
#define VI_TPM_NUM_PCRS   24u
#define VI_TPM_CMD_MAX    (10u + 4u + 4u + 9u + 2u + VI_TPM_EVENT_MAX)
#define VI_TPM_RSP_MAX    4096u

/* TPM_ALG_ID of the hash algorithms a PCR bank can use. */
#define VI_TPM_ALG_SHA1   0x0004u
#define VI_TPM_ALG_SHA256 0x000bu
#define VI_TPM_ALG_SHA384 0x000cu
#define VI_TPM_ALG_SHA512 0x000du
#define VI_TPM_ALG_SM3_256 0x0012u

struct vi_tpm_digest {
	uint16_t alg;                    /* VI_TPM_ALG_* */
	uint8_t value[VI_TPM_MAX_DIGEST];
};

/* "sha256" for VI_TPM_ALG_SHA256 (the kernel's and the event log's name), NULL if unknown. */
const char *vi_tpm_alg_name(uint16_t alg);

/* Digest size of alg in bytes, 0 if unknown. */
size_t vi_tpm_alg_size(uint16_t alg);

/* The PCR_Event command for pcr (0..23) with the n bytes of event (1..VI_TPM_EVENT_MAX) into
 * buf. Returns its length, or -EINVAL / -ENOBUFS. Pure. */
int vi_tpm_event_command(unsigned pcr, const char *event, size_t n, uint8_t *buf, size_t size,
			 struct vi_error *err);
/* Check a response of len bytes: a well-formed header whose size field matches len and a
 * response code of TPM_RC_SUCCESS. -EPROTO for a malformed response, -EIO for an error code
 * (*ret_rc, when given, holds it; 0 otherwise). Pure. */
int vi_tpm_response_check(const uint8_t *buf, size_t len, uint32_t *ret_rc, struct vi_error *err);
/* The header alone (for a response without sessions too): a known tag, a size field that is
 * len, and the response code in *ret_rc. Returns the tag (0x8002 TPM_ST_SESSIONS or 0x8001
 * TPM_ST_NO_SESSIONS) when the code is TPM_RC_SUCCESS; -EPROTO for a malformed header, -EIO for
 * an error code. Pure. */
int vi_tpm_response_header(const uint8_t *buf, size_t len, uint32_t *ret_rc,
			   struct vi_error *err);

/* The digests a PCR_Event response of len bytes lists (vi_tpm_response_check first): one per
 * bank, known algorithms, none twice, at most VI_TPM_MAX_BANKS, into d; *ret_n their number.
 * -EPROTO for anything else. Pure. */
int vi_tpm_event_digests(const uint8_t *buf, size_t len, struct vi_tpm_digest *d,
			 size_t *ret_n, struct vi_error *err);
/* Send cmd to the TPM device dev and read its response into rsp (*ret_len bytes), unchecked.
 * -ENODEV when dev does not exist. */
int vi_tpm_exchange(const char *dev, const uint8_t *cmd, size_t len, uint8_t *rsp,
		    size_t rsp_size, size_t *ret_len, struct vi_error *err);
/* vi_tpm_exchange, then vi_tpm_response_check. */
int vi_tpm_transmit(const char *dev, const uint8_t *cmd, size_t len, uint8_t *rsp,
		    size_t rsp_size, size_t *ret_len, struct vi_error *err);

#endif
