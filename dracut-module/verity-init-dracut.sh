#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# /sbin/verity-init-dracut: what the initqueue job (shell init) and verity-init-setup.service
# (systemd in the initramfs) run. `setup`: create the verified root with `verity-init setup`,
# make udev announce it; the agent applies verity.fail= on failure (never returns then).
# `pre-pivot-shell N`: the shell of the fail list for verity-init-pre-pivot.service's agent.
# `before-shell UNIT`, `refuse-shell UNIT`: before a shell dracut or systemd opens.

# The kernel puts every NAME=value word of its command line into the environment of dracut's
# shell, and bash imports a function from BASH_FUNC_name%%: whether this module's functions are
# loaded is told by _vi_lib, which the library sets and never exports (export is a special
# built-in: no imported function replaces it); an exported one came from the command line.
case "${_vi_lib:-}:$(export -p)" in
	loaded:*" _vi_lib="*) _vi_lib= ;;
esac
# (case and . are a reserved word and a special built-in: no imported function replaces them,
# while one named [ would, in bash as sh)
case "${_vi_lib:-}" in
	loaded) ;;
	*) . /lib/verity-init-lib.sh ;;
esac

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
