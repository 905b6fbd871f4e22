// SPDX-License-Identifier: LGPL-2.1-or-later
#include "keyring.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/keyctl.h>

#include "strutil.h"

int vi_p7s_check(const uint8_t *buf, size_t len, struct verity_err *err)
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

int vi_keyring_desc(const char *mapping_name, char *out, size_t out_size)
{
	int n = snprintf(out, out_size, VI_KEY_DESC_PREFIX "%s", mapping_name);

	if (n < 0 || (size_t)n >= out_size)
		return -ENAMETOOLONG;
	return 0;
}

int32_t vi_keyring_add(const char *desc, const uint8_t *sig, size_t len, struct verity_err *err)
{
	long serial;

	serial = syscall(SYS_add_key, "user", desc, sig, len, KEY_SPEC_SESSION_KEYRING);
	if (serial < 0) {
		int r = -errno;

		vi_err(err, "add_key(user, %s) failed: %s", desc, strerror(-r));
		return r;
	}
	return (int32_t)serial;
}

int vi_keyring_remove(int32_t serial)
{
	/* Invalidate while we still possess the key (after an unlink we no longer may); the
	 * kernel's garbage collector then drops it from every keyring. */
	if (syscall(SYS_keyctl, KEYCTL_INVALIDATE, serial) == 0)
		return 0;
	if (syscall(SYS_keyctl, KEYCTL_UNLINK, serial, KEY_SPEC_SESSION_KEYRING) < 0)
		return -errno;
	return 0;
}
