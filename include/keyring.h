/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Path 1 of root-hash signing: the kernel checks a PKCS#7 signature of the hex root hash
 * (CONFIG_DM_VERITY_VERIFY_ROOTHASH_SIG) against its trusted keyrings. The signature reaches
 * the kernel as a `user` key whose description goes into the table as root_hash_sig_key_desc;
 * dm-verity finds it with request_key(), which searches the caller's thread, process and
 * session keyrings. We add it to the session keyring (as libcryptsetup, under systemd, makes
 * it reachable from the thread doing the table load) and unlink it once the table is loaded:
 * the kernel keeps its own copy. */
#ifndef VERITY_KEYRING_H
#define VERITY_KEYRING_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "p7s.h"

#define VI_KEY_DESC_PREFIX "verity-init:"

/* The description we use for mapping name ("verity-init:root"). -ENAMETOOLONG if too long. */
int vi_keyring_desc(const char *mapping_name, char *out, size_t out_size);

/* add_key("user", desc, sig, len, session keyring). Returns the key serial (> 0) or a
 * negative errno with err set. */
int32_t vi_keyring_add(const char *desc, const uint8_t *sig, size_t len, struct vi_error *err);

/* Unlink the key from the session keyring and invalidate it. Returns 0 or negative errno. */
int vi_keyring_remove(int32_t serial);

#endif
