#!/bin/bash
# `make install` and `make uninstall` into a DESTDIR: uninstall removes every file install put
# there — with the default directories and with PREFIX, SBINDIR, BINDIR, MANDIR and DRACUTDIR
# moved — and nothing else (files of others in the same directories stay; the module's directory
# goes only when it is empty). `make help` lists uninstall.
# Environment: BUILD = absolute build directory (install builds `all` there if needed).
# shellcheck disable=SC2317  # test functions and helpers are called by shunit2

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}

# make of the source tree, without the flags of a make this test may run under (its jobserver is
# not passed down to us).
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$ROOT" BUILD="$BUILD" "$@"
}

# files DIR: every file and symlink under DIR, one per line, sorted (empty when there is none)
files() {
	(cd "$1" && find . \( -type f -o -type l \) | sort)
}

setUp() {
	D=$(mktemp -d "$SHUNIT_TMPDIR/destdir.XXXXXX")
}

test_uninstall_removes_every_installed_file() {
	mk install DESTDIR="$D" >"$SHUNIT_TMPDIR/out" 2>&1 || { fail "install: $(cat "$SHUNIT_TMPDIR/out")"; return; }
	local f
	for f in usr/sbin/verity-init usr/sbin/verity-init-mkinitramfs usr/sbin/verity-init-mkuki \
		usr/bin/verity-image usr/share/man/man8/verity-init-mkuki.8 \
		usr/share/man/man8/verity-init.8 usr/lib/dracut/modules.d/90verity-init/module-setup.sh \
		usr/lib/dracut/modules.d/90verity-init/verity-init-setup.service \
		usr/lib/dracut/modules.d/90verity-init/verity-init-pre-pivot.service \
		usr/lib/verity-init/verity-init-rauc-backend usr/lib/systemd/system/verity-init-mark-good.service \
		usr/lib/systemd/system/verity-init-monitor.service \
		usr/lib/systemd/system/verity-init-managed-good.service \
		usr/lib/systemd/system/rauc.service.d/verity-init.conf; do
		assertTrue "installed: $f" "[ -f '$D/$f' ]"
	done
	mk uninstall DESTDIR="$D" >"$SHUNIT_TMPDIR/out" 2>&1 || { fail "uninstall: $(cat "$SHUNIT_TMPDIR/out")"; return; }
	assertEquals "files left after uninstall" "" "$(files "$D")"
	assertFalse "module directory removed" "[ -e '$D/usr/lib/dracut/modules.d/90verity-init' ]"
}

test_uninstall_honours_the_directory_variables() {
	local vars="PREFIX=/opt/vi SBINDIR=/opt/vi/s BINDIR=/opt/vi/b MANDIR=/opt/vi/m DRACUTDIR=/opt/dracut"
	# shellcheck disable=SC2086  # one word per variable
	mk install DESTDIR="$D" $vars >"$SHUNIT_TMPDIR/out" 2>&1 || { fail "install: $(cat "$SHUNIT_TMPDIR/out")"; return; }
	assertTrue "agent in SBINDIR" "[ -f '$D/opt/vi/s/verity-init' ]"
	assertTrue "verity-image in BINDIR" "[ -f '$D/opt/vi/b/verity-image' ]"
	assertTrue "man page in MANDIR" "[ -f '$D/opt/vi/m/man8/verity-image.8' ]"
	assertTrue "module in DRACUTDIR" "[ -f '$D/opt/dracut/90verity-init/module-setup.sh' ]"
	assertTrue "unit under PREFIX" "[ -f '$D/opt/vi/lib/systemd/system/verity-init-mark-good.service' ]"
	assertContains "unit runs the agent in SBINDIR" \
		"$(cat "$D/opt/vi/lib/systemd/system/verity-init-mark-good.service")" "ExecStart=/opt/vi/s/verity-init slot mark-good"
	assertContains "the monitor's unit runs the agent in SBINDIR" \
		"$(cat "$D/opt/vi/lib/systemd/system/verity-init-monitor.service")" "ExecStart=/opt/vi/s/verity-init monitor"
	assertContains "managed recovery's unit runs the agent in SBINDIR" \
		"$(cat "$D/opt/vi/lib/systemd/system/verity-init-managed-good.service")" "ExecStart=/opt/vi/s/verity-init managed mark-good"
	assertFalse "nothing under /usr" "[ -e '$D/usr' ]"
	# shellcheck disable=SC2086
	mk uninstall DESTDIR="$D" $vars >"$SHUNIT_TMPDIR/out" 2>&1 || { fail "uninstall: $(cat "$SHUNIT_TMPDIR/out")"; return; }
	assertEquals "files left after uninstall" "" "$(files "$D")"
}

test_uninstall_leaves_files_of_others() {
	mkdir -p "$D/usr/sbin" "$D/usr/share/man/man8" "$D/usr/lib/dracut/modules.d/90verity-init"
	echo other >"$D/usr/sbin/verity-init.orig"
	echo other >"$D/usr/share/man/man8/other.8"
	echo other >"$D/usr/lib/dracut/modules.d/90verity-init/local.conf"
	local before
	before=$(files "$D")
	mk install DESTDIR="$D" >"$SHUNIT_TMPDIR/out" 2>&1 || { fail "install: $(cat "$SHUNIT_TMPDIR/out")"; return; }
	mk uninstall DESTDIR="$D" >"$SHUNIT_TMPDIR/out" 2>&1 || { fail "uninstall: $(cat "$SHUNIT_TMPDIR/out")"; return; }
	assertEquals "only the files of others are left" "$before" "$(files "$D")"
}

test_uninstall_of_nothing_succeeds() {
	local rc=0
	mk uninstall DESTDIR="$D" >"$SHUNIT_TMPDIR/out" 2>&1 || rc=$?
	assertEquals "uninstall with nothing installed: $(cat "$SHUNIT_TMPDIR/out")" 0 "$rc"
	assertEquals "no file created" "" "$(files "$D")"
}

test_help_lists_uninstall() {
	assertContains "$(mk help)" "  uninstall "
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
