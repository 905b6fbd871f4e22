/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Integrity Policy Enforcement (Linux 6.12+): the agent loads a signed IPE policy from the
 * initramfs and activates it right before the switch (docs/signing.md, "IPE"). The policy file
 * is what `openssl smime -sign -nodetach -outform der` makes of the policy text: the kernel
 * checks the signature against its trusted keyrings (with Debian's kernel also the platform
 * keyring, the firmware's db), so the initramfs cannot be handed a policy the key owner did not
 * sign. A policy that denies execution from anything but the signed verity root also denies the
 * initramfs's own programs, the fallback shell and a recovery root's init: the agent reads the
 * file before the switch and activates the policy after it, right before it execs init, when
 * no fallback is left to block. lib/boot/ipe.c */
#ifndef VERITY_IPE_H
#define VERITY_IPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define VI_IPE_DIR        "/sys/kernel/security/ipe"
#define VI_SECURITYFS     "/sys/kernel/security"
#define VI_IPE_POLICY_MAX (256u * 1024u)

struct vi_ipe_policy {
	uint8_t *buf;     /* the signed policy as read, for the kernel */
	size_t len;
};

struct vi_ipe_result {
	char name[128];   /* the policy's policy_name, as the kernel lists it */
	bool enforce_raised; /* the kernel was in permissive mode (ipe.enforce=0): switched on */
};

/* Read the signed policy file path (a regular file of at most VI_IPE_POLICY_MAX bytes) into
 * *ret, before the switch frees the initramfs. vi_ipe_policy_free releases it. */
int vi_ipe_policy_read(const char *path, struct vi_ipe_policy *ret, struct vi_error *err);
void vi_ipe_policy_free(struct vi_ipe_policy *p);

/* Load policy into IPE under ipe_dir (VI_IPE_DIR; securityfs is mounted on securityfs_dir
 * first when ipe_dir is missing), make it the active policy, and make sure IPE enforces it
 * (ipe.enforce=0 on the command line starts it permissive: switched to enforcing, checked).
 * -EOPNOTSUPP when the kernel has no IPE; the kernel's refusal otherwise (-EBADMSG: not signed
 * or not a policy, -ENOKEY: signed by a key the kernel does not trust, -EEXIST: a policy of
 * that name is loaded already), with err naming it. */
int vi_ipe_activate(const struct vi_ipe_policy *policy, const char *securityfs_dir,
		    const char *ipe_dir, struct vi_ipe_result *res, struct vi_error *err);

#endif
