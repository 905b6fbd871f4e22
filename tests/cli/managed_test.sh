#!/bin/sh
# `verity-init managed mark-good` (managed recovery, docs/security.md "After the switch") on the
# host, with the EFI variable in a plain directory (--efivars: efivarfs's form, 4 attribute
# bytes then the text) and the agent's status file in another (--status-dir). The running root
# confirms its own degraded boot only: the status file's result=ok and booted= root hash. The
# status files and variables are the agent's own, from the library's writers
# (tests/cli/agent_records.c); only the hostile variables are bytes of the test's. The agent's
# side (a boot counted, an unconfirmed one refused) is tests/vm/managed_test.sh.
# Environment: BUILD = build directory.
# shellcheck disable=SC2317  # test functions and helpers are called by shunit2

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
VI=$BUILD/verity-init
VAR=VerityInitManaged-3af7829d-8a96-4776-92ff-f0596c1422c0
H1=1f5ab3a19be8140f8e9cb06442106fb3e71756eabafc0b696ca121519bdcf3dd
H2=2e5ab3a19be8140f8e9cb06442106fb3e71756eabafc0b696ca121519bdcf3dd

# shellcheck source=tests/cli/driver_lib.sh
. "$ROOT/tests/cli/driver_lib.sh"

oneTimeSetUp() {
	[ -x "$VI" ] || { echo "verity-init not built in $BUILD" >&2; exit 1; }
	records_build || exit 1
}

setUp() {
	E=$SHUNIT_TMPDIR/efivars
	S=$SHUNIT_TMPDIR/status
	rm -rf "$E" "$S" && mkdir -p "$E" "$S"
}

# var HASH restart|degraded [BOOTS] : the variable as the agent writes it
var() {
	"$RECORDS" managed-var "$E" "$@" || fail "agent_records managed-var $*"
}

# var_bytes TEXT : a variable holding TEXT and a newline, written by hand (hostile ones)
var_bytes() {
	{ printf '\007\000\000\000'; printf '%s\n' "$1"; } >"$E/$VAR"
}

# var_text : the variable's text
var_text() {
	tail -c +5 "$E/$VAR"
}

# status booted HASH | recovery FAILED HASH | failed FAILED ACTION : the agent's status file of
# that boot
status() {
	"$RECORDS" status "$S" "$@" || fail "agent_records status $*"
}

# good : run managed mark-good; prints "rc=N LAST-LINE" (stdout and stderr)
good() {
	out=$("$VI" managed mark-good --efivars "$E" --status-dir "$S" 2>&1)
	echo "rc=$? $(printf '%s\n' "$out" | tail -n 1)"
}

test_degraded_boot_of_the_running_root_confirmed() {
	var "$H1" degraded 1
	status booted "$H1"
	assertEquals "rc=0 verity-init: managed: the degraded boot of $H1 confirmed; bad blocks stay I/O errors until its root hash changes" "$(good)"
	assertEquals "the count cleared, still degraded" \
		"verity-init-managed 1 roothash=$H1 state=degraded boots=0" "$(var_text)"
	assertEquals "attributes kept: NV, BS, RT" "07000000" "$(head -c 4 "$E/$VAR" | od -An -tx1 | tr -d ' \n')"
	assertEquals "again: nothing to confirm" "rc=0 verity-init: managed: degraded, confirmed already: nothing to confirm" "$(good)"
}

test_nothing_to_confirm() {
	assertEquals "no variable" "rc=0 verity-init: managed: no $VAR: nothing to confirm" "$(good)"
	var "$H1" restart
	assertEquals "not degraded" "rc=0 verity-init: managed: not degraded: nothing to confirm" "$(good)"
	assertEquals "untouched" "verity-init-managed 1 roothash=$H1 state=restart" "$(var_text)"
}

test_another_root_does_not_confirm() {
	var "$H1" degraded 1
	status booted "$H2"
	assertEquals "another root hash" \
		"rc=1 verity-init: managed: the running root is not the degraded one the agent booted (status: result=ok, another root hash): not confirmed" "$(good)"
	status recovery "$H1" "$H2"
	assertEquals "the recovery root: nothing it confirms, not a failure of its unit" \
		"rc=0 verity-init: managed: a recovery root runs: the degraded root's boot stays unconfirmed" "$(good)"
	assertEquals "untouched" "verity-init-managed 1 roothash=$H1 state=degraded boots=1" "$(var_text)"
	status failed "$H1" poweroff
	assertContains "a failed boot" "$(good)" "rc=1 "
	rm -f "$S/status"
	assertEquals "no status file" \
		"rc=1 verity-init: managed: the running root is not the degraded one the agent booted (status: No such file or directory): not confirmed" "$(good)"
	assertEquals "untouched" "verity-init-managed 1 roothash=$H1 state=degraded boots=1" "$(var_text)"
}

test_malformed_variable_refused() {
	status booted "$H1"
	var_bytes "verity-init-managed 1 roothash=$H1 state=degraded boots=x"
	assertContains "boots= not a digit" "$(good)" "rc=1 verity-init: managed: managed record: no state=restart or state=degraded boots=N line end"
	printf '\007\000' >"$E/$VAR"
	assertContains "too short" "$(good)" "rc=1 verity-init: managed: $VAR: 2 bytes"
}

test_usage() {
	"$VI" managed >/dev/null 2>&1
	assertEquals "no sub-verb" 2 $?
	"$VI" managed mark-bad >/dev/null 2>&1
	assertEquals "unknown sub-verb" 2 $?
	"$VI" managed mark-good --efivars >/dev/null 2>&1
	assertEquals "option without its value" 2 $?
	assertContains "in --help" "$("$VI" --help)" "verity-init managed mark-good"
}

# shellcheck disable=SC1091
. /usr/share/shunit2/shunit2
