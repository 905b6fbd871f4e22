#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# mount hook (sourced by dracut's shell init, priority 50: before 95rootfs-block's mount-root):
# with a verified /usr under a tmpfs root (systemd.volatile=yes, layout tmpfs+usr) the root is a
# tmpfs with the directories dracut's usable_root looks for; the pre-pivot hook's agent mounts the
# verified /usr on it, adds the merged-/usr links and reads init through the whole. root= names
# the /usr mapping only so that dracut waits for it: it is never mounted as the root.

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

if vi_load && [ "${VERITY_LAYOUT:-}" = tmpfs+usr ] && ! ismounted "${NEWROOT:-/sysroot}"; then
	vi_tmpfs_root "${NEWROOT:-/sysroot}"
fi
