#!/bin/bash
# shunit2: what the dracut module relies on of dracut (docs/dracut.md, "What the module relies on
# of dracut") is there in a real dracut. module_setup_test.sh stubs these functions and files;
# this test reads the dracut a user has: the build host's (dracut 059 on Debian 12), and every
# root named in DRACUT_API_ROOTS (tests/vm/debian13_test.sh names Debian 13's, dracut-ng 106).
# A dracut without one of them fails here with its name, never by an image that boots without
# the module's checks. The look is textual (a definition, a word in a list, a file), as dracut's
# files cannot be sourced outside a dracut run.
#
# Environment: DRACUT_API_ROOTS (default "/": the host's), roots holding usr/lib/dracut and
# usr/bin/dracut.

TOP=$(cd "$(dirname "$0")/../.." && pwd)
: "${DRACUT_API_ROOTS:=/}"

# The module's needs: KIND NAME, and where dracut has it (relative to usr/lib/dracut).
# fn: a shell function defined in one of the files; var: a variable dracut sets (usr/bin/dracut,
# or the library named); hook: a hook directory inst_hook takes (dracut-init.sh's hookdirs);
# module: a module of modules.d; word: a word (fixed string) in the file named; file: a file.
DRACUT_API='
fn   inst_binary              dracut-init.sh
fn   inst_multiple            dracut-init.sh
fn   inst_simple              dracut-init.sh
fn   inst_script              dracut-init.sh
fn   inst_hook                dracut-init.sh
fn   inst_dir                 dracut-init.sh
fn   instmods                 dracut-init.sh
fn   require_binaries         dracut-init.sh
fn   dracut_module_included   dracut-init.sh
fn   dracut_need_initqueue    dracut-init.sh
fn   find_root_block_device   dracut-functions.sh
fn   dinfo                    dracut-logger.sh
fn   derror                   dracut-logger.sh
fn   dfatal                   dracut-logger.sh
var  initdir                  ../../bin/dracut
var  hostonly                 ../../bin/dracut
var  dracutsysrootdir         ../../bin/dracut
var  systemdutildir           ../../bin/dracut
var  systemdsystemunitdir     ../../bin/dracut
var  moddir                   dracut-init.sh
hook cmdline                  dracut-init.sh
hook mount                    dracut-init.sh
hook pre-pivot                dracut-init.sh
hook emergency                dracut-init.sh
hook shutdown-emergency       dracut-init.sh
module base                   -
module dm                     -
module rootfs-block           -
module udev-rules             -
module systemd                -
module systemd-initrd         -
module dracut-systemd         -
module systemd-veritysetup    -
fn   getcmdline               modules.d/99base/dracut-lib.sh
fn   getarg                   modules.d/99base/dracut-lib.sh
fn   getargbool               modules.d/99base/dracut-lib.sh
fn   emergency_shell          modules.d/99base/dracut-lib.sh
fn   ismounted                modules.d/99base/dracut-lib.sh
word /lib/dracut-lib.sh       modules.d/99base/module-setup.sh
word dracut-getarg            modules.d/99base/module-setup.sh
word /sbin/initqueue          modules.d/99base/module-setup.sh
word --settled                modules.d/99base/initqueue.sh
word --onetime                modules.d/99base/initqueue.sh
word --unique                 modules.d/99base/initqueue.sh
word --name                   modules.d/99base/initqueue.sh
word /tmp/export.orig         modules.d/99base/init.sh
word NEWROOT                  modules.d/99base/init.sh
file dracut-emergency.service modules.d/*dracut-systemd
file emergency.service        modules.d/*dracut-systemd
file dracut-pre-pivot.service modules.d/*dracut-systemd
file dracut-initqueue.service modules.d/*dracut-systemd
word DRACUT_SYSTEMD=1         modules.d/*dracut-systemd/dracut-pre-pivot.service
word system-generators/systemd-veritysetup-generator modules.d/*systemd-veritysetup/module-setup.sh
'

# dracut_api_missing ROOT : print each need ROOT's dracut does not meet, one a line.
dracut_api_missing() {
	local root=${1%/} base kind name where f ok
	base=$root/usr/lib/dracut
	if ! [ -d "$base/modules.d" ] || ! [ -f "$root/usr/bin/dracut" ]; then
		echo "no dracut in $root/ (usr/lib/dracut/modules.d, usr/bin/dracut)"
		return
	fi
	while read -r kind name where; do
		[ -n "$kind" ] || continue
		ok=0
		case $kind in
		fn)
			# name() {, name () {, function name
			grep -Eq "^[[:space:]]*(function[[:space:]]+${name}\\b|${name}[[:space:]]*\\(\\))" \
				"$base/$where" 2>/dev/null && ok=1 ;;
		var)
			grep -Eq "(\\b$name=|set_global_var [^ ]+ \"$name\"|\\{$name\\}|\\\$$name\\b)" \
				"$base/$where" 2>/dev/null && ok=1 ;;
		hook)
			grep -Eq "hookdirs\\+?=\"([^\"]* )?$name( |\")" "$base/$where" 2>/dev/null && ok=1 ;;
		module)
			for f in "$base"/modules.d/[0-9][0-9]"$name"/module-setup.sh; do
				[ -f "$f" ] && ok=1
			done ;;
		word)
			for f in "$base"/$where; do
				grep -Fq -- "$name" "$f" 2>/dev/null && ok=1
			done ;;
		file)
			for f in "$base"/$where/"$name"; do
				[ -f "$f" ] && ok=1
			done ;;
		esac
		[ $ok = 1 ] || echo "$kind $name ($where)"
	done <<<"$DRACUT_API"
}

test_every_need_of_the_module_is_in_dracut() {
	local root missing
	for root in $DRACUT_API_ROOTS; do
		missing=$(dracut_api_missing "$root")
		assertEquals "the dracut in $root/ ($(dracut_version "$root")) lacks what the module relies on (docs/dracut.md)" \
			"" "$missing"
	done
}

# dracut_version ROOT : the version of ROOT's dracut, as it says it.
dracut_version() {
	sed -n 's/^DRACUT_VERSION=\(.*\)/\1/p' "${1%/}/usr/lib/dracut/dracut-version.sh" 2>/dev/null
}

# The check itself: a dracut with one function and one module taken away is named as lacking them.
test_a_dracut_without_a_need_is_named() {
	local t=$SHUNIT_TMPDIR/dracut
	[ -d /usr/lib/dracut/modules.d ] || { fail "no dracut on this host (tests/deps.sh)"; return; }
	if ! { rm -rf "$t" && mkdir -p "$t/usr/lib" "$t/usr/bin" &&
		cp -a /usr/lib/dracut "$t/usr/lib/" && cp /usr/bin/dracut "$t/usr/bin/"; }; then
		fail "copy of the host's dracut"; return
	fi
	sed -i 's/^dracut_need_initqueue()/dracut_need_initqueue_renamed()/' "$t/usr/lib/dracut/dracut-init.sh"
	rm -rf "$t"/usr/lib/dracut/modules.d/[0-9][0-9]systemd-veritysetup
	assertEquals "fn dracut_need_initqueue (dracut-init.sh)
module systemd-veritysetup (-)
word system-generators/systemd-veritysetup-generator (modules.d/*systemd-veritysetup/module-setup.sh)" \
		"$(dracut_api_missing "$t")"
	assertContains "$(dracut_api_missing "$SHUNIT_TMPDIR/none")" "no dracut in"
}

# Every function of dracut's the module's scripts call is in the list above.
test_the_list_names_every_dracut_function_the_module_calls() {
	local f
	for f in inst_binary inst_multiple inst_simple inst_script inst_hook inst_dir instmods \
		require_binaries dracut_module_included dracut_need_initqueue find_root_block_device \
		dinfo derror dfatal getcmdline getarg getargbool emergency_shell ismounted; do
		grep -Eq "\\b$f\\b" "$TOP"/dracut-module/*.sh ||
			fail "$f is listed but no script of the module calls it"
	done
	# and the other way: a dracut function called by a module script (outside its comments)
	# must be listed
	grep -hv '^[[:space:]]*#' "$TOP"/dracut-module/*.sh |
		grep -oE '\b(inst_[a-z_]+|dracut_[a-z_]+|d(info|warn|error|fatal|debug)|getarg[a-z]*|getcmdline|emergency_shell|ismounted|wait_for_dev|find_[a-z_]+|require_[a-z_]+|instmods)\b' |
		sort -u >"$SHUNIT_TMPDIR/called"
	while read -r f; do
		case $f in require_signature*) continue ;; esac
		grep -Eq "^fn +$f " <<<"$DRACUT_API" || fail "the module calls $f, which the list lacks"
	done <"$SHUNIT_TMPDIR/called"
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
