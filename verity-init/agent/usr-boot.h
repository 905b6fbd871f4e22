/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent's step for a verified /usr (PID 1; docs/cmdline.md, "A verified /usr"): the root
 * below it (the verified root mapping, a tmpfs, or the unverified root= partition the policy
 * consented to), the usr mapping read-only on its /usr, init read through the whole and proved
 * to be on a verified device. The mounts and checks are lib/boot/usrmount.c's. */
#ifndef VERITY_USR_BOOT_H
#define VERITY_USR_BOOT_H

#include "activate.h"
#include "agent.h"
#include "mountroot.h"

/* Mount the layout of a->plan.cfg on newroot: t is the root target (t->enabled: its mapping
 * act is the root), uact the /usr mapping. On failure the failure is recorded (stage mount,
 * devices or init, of t or of /usr), nothing stays mounted and the negative errno is
 * returned; on success *ret_init names the init file read. */
int vi_usr_boot_mount(struct agent *a, const char *newroot, const struct vi_target *t,
		      const struct vi_activation *act, const struct vi_activation *uact,
		      struct vi_file_id *ret_init);

#endif
