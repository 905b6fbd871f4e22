/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The TPM 2.0 device: a command (include/tpm2.h builds them) written to the kernel's resource
 * manager (/dev/tpmrm0) and its response read back, for the measurement (include/measure.h) and
 * the rollback floor's NV counter (include/tpmnv.h). lib/boot/tpm.c */
#ifndef VERITY_TPM_H
#define VERITY_TPM_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define VI_TPM_DEV        "/dev/tpmrm0"
#define VI_TPM_RSP_MAX    4096u   /* room for any response the agent reads */

/* The TPM device dev opened for a sequence of commands: the descriptor, or -ENODEV when dev does
 * not exist. The kernel's resource manager (/dev/tpmrm0) flushes the sessions and objects a
 * descriptor leaves when it is closed: a policy session lives as long as its descriptor. */
int vi_tpm_open(const char *dev, struct vi_error *err);
/* Send cmd on fd (dev names it in errors) and read its response into rsp (*ret_len bytes),
 * unchecked. */
int vi_tpm_call(int fd, const char *dev, const uint8_t *cmd, size_t len, uint8_t *rsp,
		size_t rsp_size, size_t *ret_len, struct vi_error *err);
/* Send cmd to the TPM device dev and read its response into rsp (*ret_len bytes), unchecked.
 * -ENODEV when dev does not exist. */
int vi_tpm_exchange(const char *dev, const uint8_t *cmd, size_t len, uint8_t *rsp,
		    size_t rsp_size, size_t *ret_len, struct vi_error *err);
/* vi_tpm_exchange, then vi_tpm_response_check (include/tpm2.h). */
int vi_tpm_transmit(const char *dev, const uint8_t *cmd, size_t len, uint8_t *rsp,
		    size_t rsp_size, size_t *ret_len, struct vi_error *err);

#endif
