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

#include <stdbool.h>
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

/* The device maker's certificates for dm-verity's own keyring (Linux 7.0 and later).
 * dm-verity makes the keyring ".dm-verity" when it is loaded; with its parameter
 * keyring_unsealed=1 (which the agent gives it, never the command line: modparams.h) the
 * keyring stays open until user space restricts it, and the kernel checks a root-hash signature
 * against it only once it is restricted (sealed) and holds a key. The agent adds the X.509
 * certificates of the initramfs (VI_CERTS_DIR, DER, "*.der", at most VI_CERTS_MAX of at most
 * VI_CERT_MAX bytes each) and seals it before it reads any device; a keyring the kernel sealed
 * at load time (keyring_unsealed=0) takes no key, and sealing an empty one closes it for good
 * (nothing added later, from a shell or the running system, can make it trusted). */
#define VI_DMVERITY_KEYRING ".dm-verity"
#define VI_CERTS_DIR "/etc/verity-init/certs"
#define VI_CERTS_MAX 16u
#define VI_CERT_MAX  65536u
#define VI_DMVERITY_UNSEALED_PARAM "dm_verity.keyring_unsealed=1"

/* Whether dir holds at least one "*.der" regular file (a missing dir: false). */
bool vi_certs_present(const char *dir);

struct vi_dmverity_keyring {
	int32_t serial;       /* the keyring; 0: the kernel has none (older than 7.0, or
	                       * dm_verity not loaded) */
	unsigned certs;       /* "*.der" files in the directory */
	unsigned added;       /* of them in the keyring */
	unsigned keys_before; /* keys in it when this run found it */
	bool sealed_before;   /* it was sealed when this run found it: by the kernel (loaded
	                       * without keyring_unsealed=1; then keys_before is 0) or by an
	                       * earlier run; nothing could be added */
	char refused[256];    /* the first certificate not added and why; "" when none */
	uint64_t kernel_us;   /* of the step's time, in the kernel: reading /proc/keys, add_key
	                       * (parsing each certificate) and the seal */
};

/* Find the keyring in proc_keys (VI_PROC_KEYS in a boot), add the certificates of certs_dir
 * in strcmp order of their names (a file that is not a DER certificate, or that the kernel
 * refuses, is named in ret->refused and the others still go in), then seal it. 0 when the
 * keyring is sealed at return, also when the kernel has none (ret->serial 0) or certs_dir is
 * missing; a negative errno with err set when it could not be read or sealed. */
int vi_dmverity_keyring_seal(const char *proc_keys, const char *certs_dir,
			     struct vi_dmverity_keyring *ret, struct vi_error *err);

#define VI_PROC_KEYS "/proc/keys"

#endif
