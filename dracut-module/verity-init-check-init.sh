#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# pre-pivot hook (sourced by dracut's shell init; under systemd verity-init-pre-pivot.service
# runs the same check with the agent alone): what is mounted on NEWROOT must be the
# verified mapping and init must come from it, read once before switching to it, so a tampered
# init (or an unverified root or /usr) is refused with verity.fail= applied instead of failing
# at exec after the switch (where systemd freezes and a shell init panics without a word). The
# agent checks, and on a refusal unmounts NEWROOT, removes the mapping and applies the policy
# (a recovery root may take its place: shell init only).

# the module's functions, whatever the environment defines (see the library)
. /lib/verity-init-lib.sh

vi_load
if [ $? != 1 ]; then
	# dracut's init.sh runs init= as dracut reads it (the agent's own for an accepted line; after a
	# refused one, only when setup booted the recovery root), never real_init= or rd.distroinit=
	if getarg real_init= > /dev/null || getarg rd.distroinit= > /dev/null; then
		vi_agent pre-pivot --newroot "${NEWROOT:-/sysroot}" --other-init
	else
		vi_agent pre-pivot --newroot "${NEWROOT:-/sysroot}" --init "$(getarg init=)"
	fi
	vi_udev_announce "$(vi_root_mapping)"
fi
# switching now: the root's init gets a fixed environment, not the kernel's
vi_init_env
