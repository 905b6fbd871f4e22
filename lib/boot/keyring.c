// SPDX-License-Identifier: LGPL-2.1-or-later
#include "keyring.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/keyctl.h>

#include "strutil.h"

int vi_keyring_desc(const char *mapping_name, char *out, size_t out_size)
{
	int n = snprintf(out, out_size, VI_KEY_DESC_PREFIX "%s", mapping_name);

	if (n < 0 || (size_t)n >= out_size)
		return -ENAMETOOLONG;
	return 0;
}

int32_t vi_keyring_add(const char *desc, const uint8_t *sig, size_t len, struct vi_error *err)
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
