/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The TPM 2.0 command encoding lib/boot/tpm.c and lib/boot/tpmnv.c share: big-endian integers
 * (TPM 2.0 Library, Part 1, "Byte ordering") and the one authorization they send, a password
 * session with an empty password. Internal to lib/boot: the callers check the room first. */
#ifndef VERITY_TPMWIRE_H
#define VERITY_TPMWIRE_H

#include <stdint.h>

#define VI_TPM_RS_PW          0x40000009u   /* TPM_RS_PW: the password "session" */
#define VI_TPM_PW_SESSION_LEN 9u            /* its TPMS_AUTH_COMMAND, as put below */

/* A writer into a command buffer the caller sized. */
struct vi_tpm_put {
	uint8_t *p;
};

static inline void vi_tpm_put16(struct vi_tpm_put *w, uint16_t v)
{
	w->p[0] = (uint8_t)(v >> 8);
	w->p[1] = (uint8_t)v;
	w->p += 2;
}

static inline void vi_tpm_put32(struct vi_tpm_put *w, uint32_t v)
{
	vi_tpm_put16(w, (uint16_t)(v >> 16));
	vi_tpm_put16(w, (uint16_t)v);
}

/* authorizationSize, then TPMS_AUTH_COMMAND: TPM_RS_PW, an empty nonce, attributes 0 (the
 * session ends with the command) and an empty password. */
static inline void vi_tpm_put_pw_session(struct vi_tpm_put *w)
{
	vi_tpm_put32(w, VI_TPM_PW_SESSION_LEN);
	vi_tpm_put32(w, VI_TPM_RS_PW);
	vi_tpm_put16(w, 0);    /* nonce */
	*w->p++ = 0;           /* session attributes */
	vi_tpm_put16(w, 0);    /* password */
}

#endif
