#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# pre-pivot hook (sourced by dracut, both init flavours): check that what is mounted on NEWROOT
# is the verified mapping and that init comes from it, reading init once before switching to it,
# so a tampered init (or an unverified root or /usr) is refused with verity.fail= applied instead
# of failing at exec after the switch (where systemd freezes and a shell init panics without a
# word).

type vi_load > /dev/null 2>&1 || . /lib/verity-init-lib.sh

_vi_newroot=${NEWROOT:-/sysroot}
vi_load
_vi_rc=$?
# a refused command line whose policy booted the recovery root (in setup): check that root
if [ $_vi_rc = 2 ] && [ -e "$VI_RUNDIR/dracut-recovery" ] \
	&& [ -n "$(sed -n 's/^booted=//p' "$VI_RUNDIR/status" 2> /dev/null)" ]; then
	# dracut runs the refused line's init= (or real_init=, rd.distroinit=): that is what to check
	if ! getarg real_init= > /dev/null && ! getarg rd.distroinit= > /dev/null; then
		_vi_rc=0
		VERITY_INIT=$(getarg init=)
	fi
fi
case $_vi_rc in
	0)
		if vi_check_init "$_vi_newroot" "${VERITY_INIT:-/sbin/init}"; then
			vi_log "init ${VERITY_INIT:-/sbin/init} read completely from the verified root"
		else
			# never switch to it: unmount, then the policy (a recovery root may take its place)
			vi_log "$VI_INIT_ERROR: $_vi_newroot unmounted" 2
			vi_umount_root "$_vi_newroot"
			VI_NEWROOT=$_vi_newroot vi_fail "$VI_INIT_ERROR"
		fi
		;;
	2)
		# refused command line (setup has applied the policy already; never switch anyway)
		vi_umount_root "$_vi_newroot"
		VI_NEWROOT=$_vi_newroot vi_fail "command line refused: $VI_PARSE_ERROR"
		;;
esac
# switching now: the root's init gets a fixed environment, not the kernel's
vi_init_env
