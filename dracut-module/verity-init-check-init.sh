#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# pre-pivot hook (sourced by dracut, both init flavours): read the verified root's init program
# once before switching to it, so a tampered init is refused with verity.fail= applied instead of
# failing at exec after the switch (where systemd freezes and a shell init panics without a word).

type vi_load > /dev/null 2>&1 || . /lib/verity-init-lib.sh

if vi_load; then
    if vi_check_init "${NEWROOT:-/sysroot}" "${VERITY_INIT:-/sbin/init}"; then
        vi_log "init ${VERITY_INIT:-/sbin/init} read completely from the verified root"
    else
        # the root is mounted: a recovery root must take its place on NEWROOT
        VI_NEWROOT=${NEWROOT:-/sysroot} vi_fail "$VI_INIT_ERROR"
    fi
fi
