#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# mount hook (sourced by dracut's shell init, priority 50: before 95rootfs-block's mount-root):
# with a verified /usr under a tmpfs root (systemd.volatile=yes, layout tmpfs+usr) the root is a
# tmpfs with the directories dracut's usable_root looks for; the pre-pivot hook's agent mounts the
# verified /usr on it, adds the merged-/usr links and reads init through the whole. root= names
# the /usr mapping only so that dracut waits for it: it is never mounted as the root.

# the module's functions, whatever the environment defines (see the library)
. /lib/verity-init-lib.sh

if vi_load && [ "${VERITY_LAYOUT:-}" = tmpfs+usr ] && ! ismounted "${NEWROOT:-/sysroot}"; then
	vi_tmpfs_root "${NEWROOT:-/sysroot}"
fi
