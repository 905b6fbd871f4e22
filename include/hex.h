/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Strict hexadecimal conversion for root hashes and salts: no prefixes, no separators, no
 * whitespace, even length, and the caller's buffer size is always checked. */
#ifndef VERITY_HEX_H
#define VERITY_HEX_H

#include <stddef.h>
#include <stdint.h>

/* Value of one hex digit [0-9a-fA-F], or -1. */
int vi_hex_nibble(char c);

/* Write len bytes as lowercase hex plus a NUL into out. -ENOBUFS if out_size < 2 * len + 1. */
int vi_hex_encode(const uint8_t *buf, size_t len, char *out, size_t out_size);

/* Decode hex_len characters of hex (not necessarily NUL-terminated) into out.
 * -EINVAL: odd length or a character outside [0-9a-fA-F]; -ENOBUFS: more than out_size bytes.
 * On success *ret_len is the number of bytes written (hex_len / 2); out untouched on failure. */
int vi_hex_decode(const char *hex, size_t hex_len, uint8_t *out, size_t out_size, size_t *ret_len);

/* Decode a NUL-terminated string that must encode exactly len bytes (-EINVAL otherwise). */
int vi_hex_decode_exact(const char *hex, uint8_t *out, size_t len);

#endif
