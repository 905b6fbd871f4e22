// SPDX-License-Identifier: LGPL-2.1-or-later
/* The device maker's certificates into dm-verity's own keyring, and the keyring sealed
 * (include/keyring.h; docs/signing.md, "Which kernel checks what"). Declared in agent.h. */
#include "agent.h"
#include "clock.h"
#include "keyring.h"

void vi_agent_seal_dmverity_keyring(struct agent *a)
{
	struct vi_dmverity_keyring k;
	struct vi_error err = { "" };
	uint64_t t0 = vi_now_us();
	int r = vi_dmverity_keyring_seal(&vi_dmverity_paths_boot, &k, &err);
	unsigned long long us = (unsigned long long)(vi_now_us() - t0);
	unsigned long long kus = (unsigned long long)k.kernel_us;

	if (r < 0) {
		/* sealed all the same (a certificate directory it could not list): the boot goes
		 * on without them; not sealed: a key added later would be trusted */
		a->keyring_open = a->keyring_open || !k.sealed;
		vi_kmsg_log(&a->log, KMSG_ERR, "%s%s", err.msg,
			    k.sealed ? " (the keyring is sealed)" : "");
		return;
	}
	if (k.refused[0])
		vi_kmsg_log(&a->log, KMSG_WARNING, VI_DMVERITY_KEYRING " keyring: certificate %s",
			    k.refused);
	if (!k.serial) {
		if (vi_certs_present(VI_CERTS_DIR))
			vi_kmsg_log(&a->log, KMSG_WARNING, "the kernel has no " VI_DMVERITY_KEYRING
				    " keyring (Linux 7.0 and later, dm_verity loaded): the "
				    "certificates of " VI_CERTS_DIR " are not used");
		return;
	}
	/* the time as the other trust steps give it: the whole, the agent's own, the kernel's */
	if (k.sealed_before && k.certs && !k.keys_before)
		vi_kmsg_log(&a->log, KMSG_WARNING, VI_DMVERITY_KEYRING " keyring %d was sealed by "
			    "the kernel (dm_verity loaded without keyring_unsealed=1): the %u "
			    "certificates not added (%llu us: %llu us own, %llu us the kernel's)",
			    k.serial, k.certs, us, us - kus, kus);
	else if (k.sealed_before)
		vi_kmsg_log(&a->log, KMSG_INFO, VI_DMVERITY_KEYRING " keyring %d: sealed, with %u "
			    "keys (%llu us)", k.serial, k.keys_before, us);
	else
		vi_kmsg_log(&a->log, KMSG_INFO, VI_DMVERITY_KEYRING " keyring %d: %u of %u "
			    "certificates added, sealed in %llu us (%llu us own, %llu us the "
			    "kernel's)", k.serial, k.added, k.certs, us, us - kus, kus);
}
