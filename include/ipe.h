/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Integrity Policy Enforcement (Linux 6.12+): the agent loads a signed IPE policy from the
 * initramfs and activates it right before the switch (docs/signing.md, "IPE"). The policy file
 * is what `openssl smime -sign -nodetach -outform der` makes of the policy text: the kernel
 * checks the signature against its trusted keyrings (with Debian's kernel also the platform
 * keyring, the firmware's db), so the initramfs cannot be handed a policy the key owner did not
 * sign. A policy that denies execution from anything but the signed verity root also denies the
 * initramfs's own programs: activating it is the last thing the agent does. lib/boot/ipe.c */
#ifndef VERITY_IPE_H
#define VERITY_IPE_H

#include <stddef.h>

#include "err.h"

#define VI_IPE_DIR        "/sys/kernel/security/ipe"
#define VI_SECURITYFS     "/sys/kernel/security"
#define VI_IPE_POLICY_MAX (256u * 1024u)

struct vi_ipe_result {
	char name[128];   /* the policy's policy_name, as the kernel lists it */
};

/* Load the signed policy file path (read from the initramfs root; a regular file of at most
 * VI_IPE_POLICY_MAX bytes) into IPE under ipe_dir (VI_IPE_DIR; securityfs is mounted on
 * securityfs_dir first when ipe_dir is missing) and make it the active policy. -EOPNOTSUPP
 * when the kernel has no IPE; the kernel's refusal otherwise (-EBADMSG: not signed or not a
 * policy, -ENOKEY: signed by a key the kernel does not trust, -EEXIST: a policy of that name
 * is loaded already), with err naming it. */
int vi_ipe_activate(const char *path, const char *securityfs_dir, const char *ipe_dir,
		    struct vi_ipe_result *res, struct vi_error *err);

#endif
