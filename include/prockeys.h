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

/* The bound of what the agent reads of /proc/keys: in an initramfs it holds a few lines. */
#define VI_PROC_KEYS_MAX 65536u

/* Pure: the serial of the keyring named name (".dm-verity") owned by uid 0 in text[0..len)
 * (need not be NUL-terminated; no NUL inside a line counts), and the number of keys linked in
 * it (*ret_links, may be NULL: 0 for "empty"). Lines that are not of the form above are
 * skipped. 0 with *ret_serial set (> 0) for the first match; -ENOENT when no line matches.
 * name must be 1..64 bytes without blanks or ':'. */
int vi_proc_keys_find_keyring(const char *text, size_t len, const char *name, int32_t *ret_serial,
			      unsigned *ret_links);

#endif
