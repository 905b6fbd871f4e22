#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# emergency hook (sourced by dracut's emergency_shell under shell init) and shutdown-emergency
# hook (the shutdown initramfs's, both flavours), priority 00: before any other such hook and
# before the shell. Every shell dracut opens — an rd.break breakpoint, a failing boot, the fail
# list's shell, a break or failure at shutdown — comes after "dm-verity-fallback:shell" went into
# the PCR, so that no shell runs with the PCR at the value of a good boot setup measured. When
# that cannot be recorded (or the policy allows no shell) the agent applies the fail actions and
# the shell never opens.

# the module's functions, whatever the environment defines (see the library)
. /lib/verity-init-lib.sh

# dracut's own condition for the shell (emergency_shell in dracut-lib.sh): without it dracut
# opens none here and takes its emergency action
if getargbool 1 rd.shell -d -y rdshell || getarg rd.break -d rdbreak > /dev/null; then
	case "${hook:-}" in
		shutdown-emergency) vi_before_shell dracut-shutdown-shell ;;
		*) vi_before_shell dracut-emergency-shell ;;
	esac
fi
