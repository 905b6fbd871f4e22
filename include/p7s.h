/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A PKCS#7 root hash signature as the kernel takes it (docs/signing.md, path 1): DER bytes,
 * checked for shape before they go anywhere. lib/config/p7s.c. */
#ifndef VERITY_P7S_H
#define VERITY_P7S_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define VI_P7S_MAX        16384u  /* size cap of a roothash.p7s (user keys allow 32767) */

/* Cheap structural check that buf is one DER SEQUENCE spanning exactly len bytes (a PKCS#7
 * ContentInfo), so a PEM or base64 file is refused here with a clear reason instead of by the
 * kernel with -EBADMSG. Not a validation of the signature: that is the kernel's job. */
int vi_p7s_check(const uint8_t *buf, size_t len, struct vi_error *err);

/* Room for the signers of one signature (vi_p7s_signers), NUL included. */
#define VI_P7S_SIGNERS_MAX 2048u

/* The signers of the DER PKCS#7 signature buf as systemd's verity NvPCR word names them
 * (include/measure.h, "NvPCR"; systemd's pkcs7_extract_signers: every SignerInfo's
 * issuerAndSerialNumber): per signer the serial number's DER (tag, length, value) in lower-case
 * hex, '/', the issuer Name's DER in base64, the signers joined by ','. A ContentInfo of
 * SignedData in definite-length DER, 1 to 32 SignerInfos, each naming its certificate by issuer
 * and serial (a SignerInfo by subject key identifier is refused, as systemd's OpenSSL parse
 * refuses it). -EINVAL for anything else, -ENOBUFS when out is too small. Pure. */
int vi_p7s_signers(const uint8_t *buf, size_t len, char *out, size_t size, struct vi_error *err);

#endif
