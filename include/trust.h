/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent's signature step, the last step of its configuration pipeline (include/plan.h),
 * after the command line and the policy and before the root is set up (docs/signing.md):
 *
 *   path 2  verity.manifest=LOCATION: read the manifest and its minisign signature, verify it
 *           with a public key from a *.pub file in /etc/verity-init/keys of the initramfs, refuse a
 *           version below the policy's min_version, and merge it into the root target
 *           (a contradicting command-line parameter is refused). LOCATION is
 *             /path              a file in the initramfs, signature in /path.minisig;
 *             DEVSPEC            the root's hash device (its data device when the hash area
 *                                is on it), as written on the command line: the bundle after
 *                                the hash tree;
 *             any other DEVSPEC  a partition holding the bundle at its start.
 *   path 1  verity.sig= / root-hash-signature=LOCATION: a DER PKCS#7 signature of the hex root
 *           hash (a roothash.p7s file in the initramfs), or a device (PARTLABEL=, PARTUUID=,
 *           /dev/...) holding systemd's verity-signature JSON; it is added to the session
 *           keyring and its description set as the root's root_hash_sig_key_desc, so the
 *           kernel verifies it against its trusted keyrings when the table is loaded.
 *
 * Every failure is a setup failure (the agent takes its fallback) with one reason in err. */
#ifndef VERITY_TRUST_H
#define VERITY_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "manifest.h"
#include "minisign.h"
#include "p7s.h"

#define VI_KEYS_DIR  "/etc/verity-init/keys"
struct vi_trust_ctx {
	int rootfd;                /* directory fd of the initramfs root (AT_FDCWD: "/") */
	uint64_t min_version;      /* the policy's min_version */
	unsigned timeout_ms;       /* device wait for a manifest or signature partition */
};

struct vi_trust_result {
	bool manifest;             /* a manifest was verified and merged */
	uint64_t version;
	char key_id[17];
	char key_file[64];
	char source[VI_MAX_PATH];  /* where the manifest came from, e.g. "PARTLABEL=x (bundle)" */
	struct vi_trust_sig {      /* a PKCS#7 signature in the keyring for the kernel */
		int32_t serial;    /* > 0: present */
		size_t len;
		uint64_t own_us;   /* reading, checking and adding it to the keyring,
		                    * device wait excluded */
		/* its signers as systemd's verity NvPCR names them (vi_p7s_signers), kept
		 * after the key leaves the keyring; signers_ok false: unreadable */
		bool signers_ok;
		char signers[VI_P7S_SIGNERS_MAX];
	} root_sig, recovery_sig, usr_sig;
	bool recovery_dropped;     /* the recovery root must not be booted: see recovery_note */
	char recovery_note[256];   /* why: unsigned while signatures are required, bad signature */
	uint64_t wait_ms;          /* spent waiting for devices */
};

/* Load every *.pub file of dir (an absolute path, resolved under rootfd), in name order. Up to
 * VI_KEYS_MAX keys; a malformed key file, or two files with the same key id and different keys,
 * is an error (-EINVAL). -ENOENT when there is no key. err set on failure. */
int vi_keys_load(int rootfd, const char *dir, struct vi_keyset *ret, struct vi_error *err);

/* The whole step for cfg->root (see above), then path 1 for cfg->usr (a /usr signature that
 * does not load fails the step as the root's does); returns its outcome. Then, whatever that was, a
 * recovery root's own root-hash signature: one that does not load, or none while signatures are
 * required, disables the recovery root (res->recovery_dropped, res->recovery_note: the caller
 * must not boot it; cfg->recovery itself is left as parsed) without changing the return value.
 * Nothing to do (no manifest, no signature): 0. The step's buffers are allocated per call:
 * nothing is kept between calls but what res holds. */
int vi_trust_setup(struct vi_config *cfg, const struct vi_trust_ctx *ctx,
		   struct vi_trust_result *res, struct vi_error *err);

/* After the tables are loaded: drop the signature keys from the keyring (the kernel keeps its
 * own copy). Safe to call when there is none, and more than once. */
void vi_trust_release(struct vi_trust_result *res);

#endif
