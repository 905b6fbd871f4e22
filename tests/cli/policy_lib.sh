# shellcheck shell=sh
# The initramfs policy file of the cli tests (badinput_test.sh, attacker_cmdline_test.sh,
# dracut_runtime_test.sh, usr_parse_test.sh). Sourced; needs SHUNIT_TMPDIR.

# with_policy POLICY [--no-cmdline] CMD... : run CMD in a private mount namespace whose
# /etc/verity-init.conf is POLICY (a read-only overlay over /etc: the host's file, if any, is
# hidden) and, with --no-cmdline, whose /proc/cmdline cannot be read (a write-only sysctl bound
# over it: read access is refused even to root; the rest of /proc stays, which ASan needs).
# Exit status 77: not root, or no namespace or overlayfs here (the caller skips).
with_policy() {
	_pol_etc=$SHUNIT_TMPDIR/policy-etc
	mkdir -p "$_pol_etc"
	printf '%s\n' "$1" >"$_pol_etc/verity-init.conf"
	shift
	_pol_hide=
	if [ "$1" = --no-cmdline ]; then _pol_hide=1; shift; fi
	[ "$(id -u)" -eq 0 ] || return 77
	# shellcheck disable=SC2016 # $0, $1, $@ are the inner shell's
	unshare -m sh -c '
		mount --make-rprivate / 2>/dev/null &&
		mount -t overlay vitest -o "lowerdir=$0:/etc" /etc 2>/dev/null || exit 77
		if [ -n "$1" ]; then
			mount --bind /proc/sys/vm/drop_caches /proc/cmdline 2>/dev/null || exit 77
		fi
		shift
		exec "$@"' "$_pol_etc" "$_pol_hide" "$@"
}
