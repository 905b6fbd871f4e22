/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Strict standard base64 (RFC 4648 alphabet, '=' padding required, no whitespace, canonical
 * trailing bits) for minisign files and the DPS signature JSON; libsodium does the decoding. */
#ifndef VERITY_BASE64_H
#define VERITY_BASE64_H

#include <stddef.h>
#include <stdint.h>

/* Decode exactly in_len characters (not necessarily NUL-terminated). -EINVAL for anything that
 * is not strict base64, -ENOBUFS if it decodes to more than out_size bytes. On success
 * *ret_len is the decoded length; out is unspecified on failure. */
int vi_b64_decode(const char *in, size_t in_len, uint8_t *out, size_t out_size, size_t *ret_len);

/* Bytes needed to encode len bytes, including the NUL. */
size_t vi_b64_encoded_size(size_t len);

/* Encode len bytes plus a NUL into out. -ENOBUFS if out_size < vi_b64_encoded_size(len). */
int vi_b64_encode(const uint8_t *in, size_t len, char *out, size_t out_size);

#endif
