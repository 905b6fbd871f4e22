#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# pre-pivot hook (sourced by dracut, both init flavours): check that what is mounted on NEWROOT
# is the verified mapping, then read the verified root's init program
# once before switching to it, so a tampered init is refused with verity.fail= applied instead of
# failing at exec after the switch (where systemd freezes and a shell init panics without a word).

type vi_load > /dev/null 2>&1 || . /lib/verity-init-lib.sh

vi_load
case $? in
    0)
        if ! vi_check_root_device "${NEWROOT:-/sysroot}" "$VERITY_NAME"; then
            # never switch to it: unmount, then the policy (a recovery root may take its place)
            vi_log "$VI_ROOT_ERROR: unmounted" 2
            umount "${NEWROOT:-/sysroot}" 2> /dev/null || umount -l "${NEWROOT:-/sysroot}"
            vi_fail "$VI_ROOT_ERROR"
        elif vi_check_init "${NEWROOT:-/sysroot}" "${VERITY_INIT:-/sbin/init}"; then
            vi_log "init ${VERITY_INIT:-/sbin/init} read completely from the verified root"
        else
            # the root is mounted: a recovery root must take its place on NEWROOT
            VI_NEWROOT=${NEWROOT:-/sysroot} vi_fail "$VI_INIT_ERROR"
        fi
        ;;
    2)
        # refused command line (setup has applied the policy already; never switch anyway)
        umount "${NEWROOT:-/sysroot}" 2> /dev/null || umount -l "${NEWROOT:-/sysroot}" 2> /dev/null
        vi_fail "command line refused: $VI_PARSE_ERROR"
        ;;
esac
