#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# emergency hook (sourced by dracut's emergency_shell under shell init) and shutdown-emergency
# hook (the shutdown initramfs's, both flavours), priority 00: before any other such hook and
# before the shell. Every shell dracut opens — an rd.break breakpoint, a failing boot, the fail
# list's shell, a break or failure at shutdown — comes after "dm-verity-fallback:shell" went into
# the PCR, so that no shell runs with the PCR at the value of a good boot setup measured. When
# that cannot be recorded (or the policy allows no shell) the agent applies the fail actions and
# the shell never opens.

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

# dracut's own condition for the shell (emergency_shell in dracut-lib.sh): without it dracut
# opens none here and takes its emergency action
if getargbool 1 rd.shell -d -y rdshell || getarg rd.break -d rdbreak > /dev/null; then
	case "${hook:-}" in
		shutdown-emergency) vi_before_shell dracut-shutdown-shell ;;
		*) vi_before_shell dracut-emergency-shell ;;
	esac
fi
