#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# /sbin/verity-init-dracut: what the initqueue job (shell init) and verity-init-setup.service
# (systemd in the initramfs) run. `setup`: create the verified root with `verity-init setup`,
# make udev announce it; the agent applies verity.fail= on failure (never returns then).
# `pre-pivot-shell N`: the shell of the fail list for verity-init-pre-pivot.service's agent.
# `before-shell UNIT`, `refuse-shell UNIT`: before a shell dracut or systemd opens.

# the module's functions, whatever the environment defines (see the library)
. /lib/verity-init-lib.sh

case "$1" in
	setup)
		vi_setup
		;;
	pre-pivot-shell)
		# verity-init-pre-pivot.service's agent (systemd flavour), when its fail list reached
		# the shell, whose next entry is $2: dracut's emergency shell, then the rest of the list
		case "${2:-}" in
			'' | *[!0-9]*) vi_hang ;;
		esac
		vi_agent_after_shell "$2" pre-pivot --newroot /sysroot --systemd
		;;
	before-shell)
		# a shell dracut or systemd opens outside the fail list (the emergency hook of shell
		# init; ExecStartPre of the shell units under systemd, which the generator adds when
		# the policy allows a shell): 0 once the fallback is in the PCR; the agent applies
		# the fail actions otherwise, and no shell ever opens after a refusal
		vi_before_shell "${2:-unknown.service}"
		;;
	refuse-shell)
		# ExecStartPre of the units that open a shell (the generator adds it unless the
		# policy allows a shell): the policy's fail actions, never the shell
		vi_agent fail --reason shell-unit --unit "${2:-unknown.service}"
		vi_hang
		;;
	*)
		echo "usage: verity-init-dracut setup | pre-pivot-shell N | before-shell UNIT | refuse-shell UNIT" >&2
		exit 2
		;;
esac
