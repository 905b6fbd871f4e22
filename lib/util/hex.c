// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hex.h"

#include <errno.h>
#include <string.h>

int vi_hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int vi_hex_encode(const uint8_t *buf, size_t len, char *out, size_t out_size)
{
	static const char digits[] = "0123456789abcdef";

	if (len > (SIZE_MAX - 1) / 2 || out_size < 2 * len + 1)
		return -ENOBUFS;
	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[buf[i] >> 4];
		out[2 * i + 1] = digits[buf[i] & 0xf];
	}
	out[2 * len] = '\0';
	return 0;
}

int vi_hex_decode(const char *hex, size_t hex_len, uint8_t *out, size_t out_size, size_t *ret_len)
{
	if (hex_len % 2)
		return -EINVAL;
	/* Validate everything first so that out stays untouched on failure. */
	for (size_t i = 0; i < hex_len; i++)
		if (vi_hex_nibble(hex[i]) < 0)
			return -EINVAL;
	if (hex_len / 2 > out_size)
		return -ENOBUFS;
	for (size_t i = 0; i < hex_len / 2; i++)
		out[i] = (uint8_t)((unsigned)vi_hex_nibble(hex[2 * i]) << 4 |
				   (unsigned)vi_hex_nibble(hex[2 * i + 1]));
	if (ret_len)
		*ret_len = hex_len / 2;
	return 0;
}

int vi_hex_decode_exact(const char *hex, uint8_t *out, size_t len)
{
	size_t n = strlen(hex);

	if (len > SIZE_MAX / 2 || n != 2 * len)
		return -EINVAL;
	return vi_hex_decode(hex, n, out, len, NULL);
}
