/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /proc/keys, the kernel's list of the keys the reader may view (security/keys/proc.c), one
 * line a key:
 *   SERIAL FLAGS USAGE TIMEOUT PERM UID GID TYPE DESCRIPTION
 * SERIAL and PERM in hex (%08x), TYPE padded to 9 columns (%-9.9s), then the type's own
 * description: a keyring's is its name, then ": empty" or ": N" (its number of links).
 * A keyring the kernel makes for itself has no user-space name to find it by and is linked
 * nowhere a process can search: dm-verity's ".dm-verity" keyring (Linux 7.0) is found here,
 * as the kernel's own selftest for it does. A name beginning with '.' cannot be given to a
 * keyring from user space (add_key and KEYCTL_JOIN_SESSION_KEYRING refuse it), so such a
 * name is the kernel's. */
#ifndef VERITY_PROCKEYS_H
#define VERITY_PROCKEYS_H

#include <stddef.h>
#include <stdint.h>

/* Pure: whether line[0..len) (without its '\n') is the kernel's line of a live keyring named name
 * (".dm-verity") owned by uid 0: flags "I" and not revoked, dead, negative or invalidated, type
 * "keyring", the description name followed by ':' and "empty" or a number. 0 with *ret_serial
 * (> 0) and *ret_links (the keys linked in it, may be NULL); -ENOENT for any other line (a NUL
 * or '\n' inside included). name must be 1..64 bytes without blanks, ':' or '\n' (-EINVAL).
 * A key's description is printed as it is, so a line can be forged by whoever names a key: a
 * match is a candidate, to be confirmed with KEYCTL_DESCRIBE (keyring.c). */
int vi_proc_keys_line(const char *line, size_t len, const char *name, int32_t *ret_serial,
		      unsigned *ret_links);

#endif
