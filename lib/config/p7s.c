// SPDX-License-Identifier: LGPL-2.1-or-later
/* The structural check of a DER PKCS#7 root hash signature (include/p7s.h). */
#include "p7s.h"

#include <string.h>

#include "strutil.h"

int vi_p7s_check(const uint8_t *buf, size_t len, struct vi_error *err)
{
	size_t hdr, body;

	if (len == 0)
		return vi_err(err, "signature file is empty");
	if (len > VI_P7S_MAX)
		return vi_err(err, "signature larger than %u bytes", VI_P7S_MAX);
	if (len < 2 || buf[0] != 0x30)
		return vi_err(err, "signature is not DER (PEM or base64? convert with "
			      "`openssl pkcs7 -outform der`)");
	/* DER length: short form, or long form with 1-2 length bytes (we cap at 16 KiB) */
	if (buf[1] < 0x80) {
		hdr = 2;
		body = buf[1];
	} else if (buf[1] == 0x81 && len >= 3) {
		hdr = 3;
		body = buf[2];
	} else if (buf[1] == 0x82 && len >= 4) {
		hdr = 4;
		body = ((size_t)buf[2] << 8) | buf[3];
	} else {
		return vi_err(err, "signature has an unsupported DER length");
	}
	if (hdr + body != len)
		return vi_err(err, "signature DER length %zu does not match the file size %zu",
			      hdr + body, len);
	return 0;
}
