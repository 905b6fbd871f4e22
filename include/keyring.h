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
 * keyring_unsealed=1 the keyring stays open until user space restricts it, and the kernel
 * checks a root-hash signature against it only once it is restricted (sealed) and holds a key.
 * The agent gives dm_verity that parameter when the initramfs carries certificates (a word of
 * its own after the command line's: pid1-early.c; under dracut the image's modprobe.d), adds
 * the X.509 certificates of the initramfs (VI_CERTS_DIR, DER, "*.der", at most VI_CERTS_MAX of
 * at most VI_CERT_MAX bytes each) and seals it before it reads any device. It seals the keyring
 * whether it holds certificates or not: one the command line left open
 * (dm_verity.keyring_unsealed=1) is closed all the same, and a keyring the kernel sealed at load
 * time takes no key. */
#define VI_DMVERITY_KEYRING ".dm-verity"
#define VI_CERTS_DIR "/etc/verity-init/certs"
#define VI_CERTS_MAX 16u
#define VI_CERT_MAX  65536u
#define VI_DMVERITY_UNSEALED_PARAM "dm_verity.keyring_unsealed=1"
/* present when dm_verity is loaded and has the keyring */
#define VI_DMVERITY_UNSEALED_SYSFS "/sys/module/dm_verity/parameters/keyring_unsealed"

/* Whether dir holds at least one "*.der" (a missing dir: false; an unreadable one: true). */
bool vi_certs_present(const char *dir);

struct vi_dmverity_keyring {
	int32_t serial;       /* the keyring; 0: the kernel has none (older than 7.0, dm_verity
	                       * not loaded, or no CONFIG_KEYS) */
	unsigned certs;       /* "*.der" files in the directory */
	unsigned added;       /* of them in the keyring */
	unsigned keys_before; /* keys in it when this run found it */
	bool sealed_before;   /* it was restricted when this run found it: by the kernel (loaded
	                       * without keyring_unsealed=1; then keys_before is 0) or by an
	                       * earlier run; nothing could be added */
	bool sealed;          /* restricted at return */
	char refused[256];    /* the first certificate not added and why; "" when none */
	uint64_t kernel_us;   /* of the step's time, in the kernel: reading /proc/keys, add_key
	                       * (parsing each certificate) and the seal */
};

/* Where the step looks: the boot's places (vi_dmverity_paths_boot), or a test's. */
struct vi_dmverity_paths {
	const char *proc_keys;      /* VI_PROC_KEYS */
	const char *certs_dir;      /* VI_CERTS_DIR */
	const char *unsealed_param; /* VI_DMVERITY_UNSEALED_SYSFS */
	const char *keyring;        /* VI_DMVERITY_KEYRING */
};
extern const struct vi_dmverity_paths vi_dmverity_paths_boot;

/* Find the keyring: a line of /proc/keys (read whole) confirmed by KEYCTL_DESCRIBE as the
 * kernel's keyring of uid 0 with that name; add the certificates of the directory in strcmp
 * order (a file that is not a DER certificate, or that the kernel refuses, is named in
 * ret->refused and the others still go in); then seal it (KEYCTL_RESTRICT_KEYRING), also when
 * anything before failed. 0 when it is sealed at return, or when the kernel has none (ret->serial
 * 0: no /proc/keys, no such line, and dm_verity without the keyring parameter). A negative errno
 * with err set otherwise: /proc/keys unreadable, dm_verity has the keyring but /proc/keys does
 * not show it, two such keyrings, the certificates not listable (the keyring is sealed all the
 * same: ret->sealed), or the seal failed (ret->sealed false: a key added later would be
 * trusted). */
int vi_dmverity_keyring_seal(const struct vi_dmverity_paths *paths, struct vi_dmverity_keyring *ret,
			     struct vi_error *err);

#define VI_PROC_KEYS "/proc/keys"

#endif
