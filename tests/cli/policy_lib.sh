# shellcheck shell=sh
# The initramfs policy file of the cli tests (badinput_test.sh, attacker_cmdline_test.sh,
# dracut_runtime_test.sh, generator_test.sh, usr_parse_test.sh). Sourced; needs SHUNIT_TMPDIR.

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

# policy_run POLICY [--no-cmdline] CMD... : CMD under POLICY (with_policy); its standard error in
# OUT, its exit status in RC. False, after a skip line, when with_policy cannot run here (77): the
# test then ends, `policy_run ... || return 0`.
policy_run() {
	OUT=$(with_policy "$@" 2>&1 >/dev/null)
	RC=$?
	[ "$RC" -ne 77 ] && return 0
	echo "skip: no mount namespace or overlayfs"
	return 1
}

# policy_refuses WHAT POLICY CMDLINE REASON : `$VI parse --cmdline CMDLINE` under POLICY exits 1
# with REASON in its message; the assertions name WHAT. False as policy_run. Needs VI (the agent).
policy_refuses() {
	policy_run "$2" "$VI" parse --cmdline "$3" || return 1
	assertEquals "$1: exit status ($OUT)" 1 "$RC"
	assertContains "$1: reason" "$OUT" "$4"
}
