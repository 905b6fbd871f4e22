// SPDX-License-Identifier: LGPL-2.1-or-later
#include "base64.h"

#include <errno.h>
#include <sodium.h>

int vi_b64_decode(const char *in, size_t in_len, uint8_t *out, size_t out_size, size_t *ret_len)
{
	const char *end = NULL;
	size_t n = 0;

	/* libsodium stops at the first byte outside the alphabet and reports where: demand that
	 * it consumed everything, so "abc=\0junk" or an embedded newline is an error. Its decoder
	 * also refuses missing padding and non-zero trailing bits (one encoding per value). */
	if (in_len == 0 || in_len % 4 != 0)
		return -EINVAL;
	errno = 0;
	if (sodium_base642bin(out, out_size, in, in_len, NULL, &n, &end,
			      sodium_base64_VARIANT_ORIGINAL) != 0) {
		/* -1 with errno ERANGE: did not fit; anything else: malformed */
		return errno == ERANGE ? -ENOBUFS : -EINVAL;
	}
	if (end != in + in_len)
		return -EINVAL;
	*ret_len = n;
	return 0;
}

size_t vi_b64_encoded_size(size_t len)
{
	return sodium_base64_ENCODED_LEN(len, sodium_base64_VARIANT_ORIGINAL);
}

int vi_b64_encode(const uint8_t *in, size_t len, char *out, size_t out_size)
{
	if (out_size < vi_b64_encoded_size(len))
		return -ENOBUFS;
	sodium_bin2base64(out, out_size, in, len, sodium_base64_VARIANT_ORIGINAL);
	return 0;
}
