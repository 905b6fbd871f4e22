#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# /sbin/verity-init-dracut: what the initqueue job (shell init) and verity-init-setup.service
# (systemd in the initramfs) run. `setup`: create the verified root with `verity-init setup`,
# make udev announce it; the agent applies verity.fail= on failure (never returns then).

type vi_setup > /dev/null 2>&1 || . /lib/verity-init-lib.sh

case "$1" in
	setup)
		vi_setup
		;;
	refuse-shell)
		# ExecStartPre of the units that open a shell (the generator adds it unless the
		# policy allows a shell): the policy's fail actions, never the shell
		vi_agent fail --reason shell-unit --unit "${2:-unknown.service}"
		vi_hang
		;;
	*)
		echo "usage: verity-init-dracut setup | refuse-shell UNIT" >&2
		exit 2
		;;
esac
