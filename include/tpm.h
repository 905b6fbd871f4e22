/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one TPM 2.0 command the agent sends: TPM2_PCR_Extend, with an empty password session,
 * written to the kernel's resource manager (/dev/tpmrm0). The command and its response are
 * plain bytes (TPM 2.0 Library, Part 3, 22.2), built and checked here without a TSS; the
 * banks to extend are the ones the kernel lists under /sys/class/tpm/tpm0/pcr-ALG. lib/boot/tpm.c */
#ifndef VERITY_TPM_H
#define VERITY_TPM_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define VI_TPM_DEV        "/dev/tpmrm0"
#define VI_TPM_SYSFS      "/sys/class/tpm/tpm0"
#define VI_TPM_MAX_BANKS  4u     /* sha1, sha256, sha384, sha512 */
#define VI_TPM_MAX_DIGEST 64u
#define VI_TPM_NUM_PCRS   24u
#define VI_TPM_CMD_MAX    (10u + 4u + 4u + 9u + 4u + VI_TPM_MAX_BANKS * (2u + VI_TPM_MAX_DIGEST))
#define VI_TPM_RSP_MAX    4096u

/* TPM_ALG_ID of the hash algorithms a PCR bank can use. */
#define VI_TPM_ALG_SHA1   0x0004u
#define VI_TPM_ALG_SHA256 0x000bu
#define VI_TPM_ALG_SHA384 0x000cu
#define VI_TPM_ALG_SHA512 0x000du

struct vi_tpm_digest {
	uint16_t alg;                    /* VI_TPM_ALG_* */
	uint8_t value[VI_TPM_MAX_DIGEST];
};

/* "sha256" for VI_TPM_ALG_SHA256 (the kernel's and the event log's name), NULL if unknown. */
const char *vi_tpm_alg_name(uint16_t alg);

/* Digest size of alg in bytes, 0 if unknown. */
size_t vi_tpm_alg_size(uint16_t alg);

/* The PCR_Extend command for pcr (0..23) with n digests (one per bank, known algorithms, no
 * algorithm twice) into buf. Returns its length, or -EINVAL / -ENOBUFS. Pure. */
int vi_tpm_extend_command(unsigned pcr, const struct vi_tpm_digest *d, size_t n, uint8_t *buf,
			  size_t size, struct vi_error *err);

/* Check a response of len bytes: a well-formed header whose size field matches len and a
 * response code of TPM_RC_SUCCESS. -EPROTO for a malformed response, -EIO for an error code
 * (*ret_rc, when given, holds it; 0 otherwise). Pure. */
int vi_tpm_response_check(const uint8_t *buf, size_t len, uint32_t *ret_rc, struct vi_error *err);

/* The banks the TPM at sysfs_dir has allocated (its pcr-ALG directories), in the order of
 * VI_TPM_ALG_* values. -ENODEV when sysfs_dir does not exist (no TPM, or not a TPM 2.0 whose
 * PCRs the kernel exposes), -ENOENT when it lists no bank this code knows. */
int vi_tpm_banks(const char *sysfs_dir, uint16_t algs[VI_TPM_MAX_BANKS], size_t *ret_n,
		 struct vi_error *err);

/* Send cmd to the TPM device dev and check its response (vi_tpm_response_check). */
int vi_tpm_transmit(const char *dev, const uint8_t *cmd, size_t len, struct vi_error *err);

#endif
