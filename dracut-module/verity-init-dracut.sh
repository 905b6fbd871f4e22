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
	*)
		echo "usage: verity-init-dracut setup" >&2
		exit 2
		;;
esac
