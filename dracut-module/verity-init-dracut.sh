#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# /sbin/verity-init-dracut: what the initqueue job (shell init) and verity-init-setup.service
# (systemd in the initramfs) run. `setup`: create the verified root with `verity-init setup`,
# make udev announce it, or apply verity.fail= (never returns on failure).

type vi_setup > /dev/null 2>&1 || . /lib/verity-init-lib.sh

case "$1" in
	setup)
		vi_setup
		;;
	refuse-shell)
		# ExecStartPre of the units that open a shell (the generator adds it unless the
		# policy allows a shell): the policy's fail actions, never the shell
		vi_load
		# shellcheck disable=SC2034 # read by vi_recovery
		VI_NO_RECOVERY="a shell was asked for on the command line"
		vi_fail "${2:-a unit} would open a shell in the initramfs and the initramfs policy allows none${VI_PARSE_ERROR:+ (command line refused: $VI_PARSE_ERROR)}"
		exit 1
		;;
	*)
		echo "usage: verity-init-dracut setup | refuse-shell UNIT" >&2
		exit 2
		;;
esac
