#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cmdline hook of dracut's shell init (sourced by dracut, priority 30: after 99base's parse-root-opts, before
# 95rootfs-block's parse-block). Asks the agent what the command line means, points root= at the
# mapping, registers the device waits and queues the setup job.

# the module's functions, whatever the environment defines (see the library)
. /lib/verity-init-lib.sh

vi_load
case $? in
	1)
		# no verity root asked for: leave the boot alone
		return 0
		;;
	2)
		# refused (the setup job logs why and applies the policy: fail closed); nothing of
		# the line is used
		VERITY_NAME=root
		VERITY_ROOTFSTYPE=
		VERITY_ROOTFLAGS=
		;;
esac

# dracut's own parser must work on this line: where it fails, getargbool answers with its
# defaults, and rd.shell=0 (written below) would not be read by dracut's emergency shell. The
# agent applies the policy at once (without the recovery root: its boot would meet the line too).
if ! vi_getarg_ok; then
	vi_agent fail --reason getarg
	vi_hang
fi

# A shell the image's policy does not allow, as dracut itself reads rd.break / rd.shell (the
# agent refuses them too; this also covers any word it would read differently): apply the policy
# now, before dracut's next breakpoint or emergency shell opens it (rd.break=cmdline came before
# any hook: see docs/security.md). No recovery root: the line would open the shell there too.
if [ "${VERITY_SHELL_ALLOWED:-0}" != 1 ] && vi_dracut_shell_asked "$VI_CMDLINE"; then
	vi_agent fail --reason shell-asked
	vi_hang
fi

# The root is the mapping, never one of the devices under it: a LABEL= or UUID= of the data
# device would also name the unverified device. With a verified /usr under a tmpfs root, root=
# names the /usr mapping only so that dracut waits for it: the module's mount hook (shell init)
# or the generator's sysroot.mount (systemd) mounts the tmpfs root, pre-pivot /usr on it.
_vi_map=$(vi_root_mapping)
case "${root#block:}" in
	'' | "/dev/mapper/$_vi_map") ;;
	*) vi_log "root= ignored: the verified root is /dev/mapper/$_vi_map" 4 ;;
esac
root="block:/dev/mapper/$_vi_map"
if [ "$_vi_map" != "$VERITY_NAME" ]; then
	VERITY_ROOTFSTYPE=$VERITY_USR_FSTYPE
	VERITY_ROOTFLAGS=$VERITY_USR_FLAGS
fi
# shellcheck disable=SC2034 # read by dracut after the cmdline hooks
rootok=1
# Mount options as the agent accepted them (none of a refused line's), read-only: the first
# mount is ro already, and a later rw remount cannot succeed on dm-verity.
# shellcheck disable=SC2034 # both read by dracut's mount-root
fstype=${VERITY_ROOTFSTYPE:-auto}
# shellcheck disable=SC2034
rflags="${VERITY_ROOTFLAGS:+$VERITY_ROOTFLAGS,}ro"

# fsck cannot open a read-only device for repair, and the verified root needs none: behave as
# if rd.skipfsck had been given (mount-root.sh reads it through getargbool).
[ -d "$VI_CMDLINE_D" ] || mkdir -p "$VI_CMDLINE_D"
echo "rd.skipfsck" > "$VI_CMDLINE_D/90verity-init.conf"
# dracut's emergency shell (on by default) only where the image's policy allows a shell; the
# kernel command line cannot turn it back on (the agent refuses rd.shell and rd.break then)
[ "${VERITY_SHELL_ALLOWED:-0}" = 1 ] || echo "rd.shell=0" >> "$VI_CMDLINE_D/90verity-init.conf"

# No device string of the command line goes to wait_for_dev: dracut writes it into an
# initqueue/finished script that it sources. The agent waits for the devices itself (bounded by
# verity.timeout=); dracut's rootfs-block waits for root=, the mapping, whose name the agent
# allows only from [A-Za-z0-9._-].

# Shell init runs the job from the initqueue once udev has settled; under systemd the
# verity-init-setup.service (enabled by verity-init-generator) does it.
if ! vi_systemd; then
	"$VI_INITQUEUE" --settled --onetime --unique --name verity-init-setup /sbin/verity-init-dracut setup
fi
