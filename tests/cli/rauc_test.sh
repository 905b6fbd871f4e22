#!/bin/sh
# RAUC itself (Debian's 1.8, `rauc service` on a private D-Bus system bus) driving verity-init's
# custom backend over a file-backed slot store: the booted slot comes from the agent's status
# file through the rauc.service drop-in's run-rauc, `rauc status` reads primary and states
# through the backend, and mark-active / mark-bad / mark-good change the store as docs/slots.md
# says. Skipped when rauc or dbus-daemon is missing (tests/deps.sh installs them).
# Environment: BUILD = build directory.
# shellcheck disable=SC2317  # test functions and helpers are called by shunit2

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
VI=$BUILD/verity-init
BACKEND=$ROOT/rauc/verity-init-rauc-backend.sh

# shellcheck source=tests/cli/driver_lib.sh
. "$ROOT/tests/cli/driver_lib.sh"

oneTimeSetUp() {
	[ -x "$VI" ] || { echo "verity-init not built in $BUILD" >&2; exit 1; }
	records_build || exit 1
	SKIP=""
	for t in rauc dbus-daemon openssl; do
		command -v "$t" >/dev/null || SKIP="$t missing (tests/deps.sh)"
	done
	[ -z "$SKIP" ] || return 0
	W=$SHUNIT_TMPDIR
	export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$W/bus"
	export VERITY_INIT="$VI" VERITY_INIT_STORE="$W/store.img" VERITY_INIT_STATUS="$W/status"
	cat >"$W/bus.conf" <<-EOF
	<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
	 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
	<busconfig>
	  <type>system</type>
	  <listen>unix:path=$W/bus</listen>
	  <auth>EXTERNAL</auth>
	  <policy context="default">
	    <allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/>
	  </policy>
	</busconfig>
	EOF
	DBUS_PID=$(dbus-daemon --config-file="$W/bus.conf" --fork --print-pid) ||
		{ SKIP="dbus-daemon does not start"; return 0; }
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$W/key.pem" -out "$W/cert.pem" \
		-subj /CN=verity-init-test -days 2 >/dev/null 2>&1
	truncate -s 4M "$W/root-a.img" "$W/root-a-verity.img" "$W/root-b.img" "$W/root-b-verity.img"
	mkdir -p "$W/data" "$W/mnt"
	# the example system.conf, with the test's files
	sed -e "s|^data-directory=.*|data-directory=$W/data|" \
		-e "s|^bootloader-custom-backend=.*|bootloader-custom-backend=$BACKEND|" \
		-e "s|^path=.*|path=$W/cert.pem|" \
		-e "s|/dev/disk/by-partlabel/root-|$W/root-|" -e "s|^\(device=.*\)$|\1.img|" \
		"$ROOT/rauc/system.conf.example" >"$W/system.conf"
}

oneTimeTearDown() {
	stop_rauc
	[ -z "${DBUS_PID-}" ] || kill "$DBUS_PID" 2>/dev/null
	return 0
}

setUp() {
	[ -z "$SKIP" ] || { startSkipping; echo "skip: $SKIP"; return; }
	rm -f "$W/store.img"
	truncate -s 1M "$W/store.img"
}

tearDown() {
	stop_rauc
}

# booted NAME: the agent's status file of an A/B boot; then `rauc service` as the drop-in runs it
boot_into() {
	stop_rauc
	"$RECORDS" status "$W" booted ab "$1" "$W/store.img" || fail "agent_records status"
	RAUC=$(command -v rauc) "$BACKEND" run-rauc --conf="$W/system.conf" --mount="$W/mnt" service \
		>"$W/service.log" 2>&1 &
	RAUC_PID=$!
	i=0
	until rauc status >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 100 ] || { fail "rauc service did not come up: $(cat "$W/service.log")"; return 1; }
		sleep 0.1
	done
}

stop_rauc() {
	[ -n "${RAUC_PID-}" ] || return 0
	kill "$RAUC_PID" 2>/dev/null
	wait "$RAUC_PID" 2>/dev/null
	RAUC_PID=""
}

# vslot ARGS...: verity-init slot as the running system calls it (the store from the status file)
vslot() {
	"$VI" slot --status "$W/status" "$@"
}

# rauc_var NAME: one variable of `rauc status --output-format=shell`
rauc_var() {
	rauc status --output-format=shell 2>/dev/null | sed -n "s/^$1='\(.*\)'$/\1/p"
}

# boot_status BOOTNAME: RAUC's boot status of the slot with that bootname
boot_status() {
	rauc status --output-format=shell 2>/dev/null | awk -F= -v b="'$1'" '
		$1 ~ /^RAUC_SLOT_BOOTNAME_/ && $2 == b { n = substr($1, 20) }
		{ v[$1] = $2 }
		END { s = v["RAUC_SLOT_BOOT_STATUS_" n]; gsub("\x27", "", s); print s }'
}

test_rauc_reads_booted_primary_and_states() {
	boot_into a || return
	assertEquals "booted (run-rauc's --override-boot-slot)" "a" "$(rauc_var RAUC_SYSTEM_BOOTED_BOOTNAME)"
	assertEquals "primary (get-primary)" "rootfs.0" "$(rauc_var RAUC_BOOT_PRIMARY)"
	assertEquals "states (get-state)" "good good" "$(boot_status a) $(boot_status b)"
	vslot set-state b bad
	assertEquals "b bad in rauc" "bad" "$(boot_status b)"
}

# An update of b as RAUC does it, the reboot into b, `rauc status mark-good` there.
test_update_mark_active_then_good() {
	boot_into a || return
	rauc status mark-active other >/dev/null 2>&1 || fail "mark-active other: $(cat "$W/service.log")"
	assertEquals "next boot" "b" "$(vslot get-primary)"
	assertEquals "b primary for rauc" "rootfs.1" "$(rauc_var RAUC_BOOT_PRIMARY)"
	boot_into b || return
	assertEquals "booted b" "b" "$(rauc_var RAUC_SYSTEM_BOOTED_BOOTNAME)"
	rauc status mark-good >/dev/null 2>&1 || fail "mark-good"
	assertEquals "b successful in the store" "true 3" \
		"$(vslot status --json | jq -r '[.slots[1].successful, .slots[1].tries]|join(" ")')"
}

# `rauc status mark-good other` from a: RAUC calls set-state b good. b becomes bootable, but it has
# not booted as the running slot: the floor stays and b is not recorded as successful (the next
# boot would raise the TPM counter to a successful slot's version). RAUC's own mark-good of the
# booted slot raises it.
test_mark_good_other_leaves_the_floor() {
	boot_into a || return
	vslot set-primary b >/dev/null || fail "set-primary b"
	vslot set-state b bad >/dev/null || fail "set-state b bad"
	rauc status mark-good other >/dev/null 2>&1 || fail "mark-good other: $(cat "$W/service.log")"
	assertEquals "b good for rauc" "good" "$(boot_status b)"
	assertEquals "b bootable, not successful; floor 0" "true false 0" \
		"$(vslot status --json | jq -r '[.slots[1].bootable, .slots[1].successful, .floor]|map(tostring)|join(" ")')"
	rauc status mark-good >/dev/null 2>&1 || fail "mark-good"
	assertEquals "a successful" "true" "$(vslot status --json | jq -r '.slots[0].successful')"
}

# Debian's rauc.service without the drop-in (plain `rauc service`): RAUC 1.8 looks for the booted
# slot on the kernel command line, which on an A/B boot of the agent does not name it, and refuses.
test_without_run_rauc_the_booted_slot_is_unknown() {
	"$RECORDS" status "$W" booted ab a "$W/store.img" || fail "agent_records status"
	rauc --conf="$W/system.conf" --mount="$W/mnt" service >"$W/service.log" 2>&1 &
	RAUC_PID=$!
	i=0
	until rauc status >/dev/null 2>"$W/status.err"; do
		grep -q "booted slot not found" "$W/status.err" && break
		i=$((i + 1))
		[ $i -lt 100 ] || { fail "rauc service did not come up: $(cat "$W/service.log")"; return; }
		sleep 0.1
	done
	assertContains "rauc status" "$(cat "$W/status.err")" "Bootname or device of booted slot not found"
}

test_mark_bad_other() {
	boot_into b || return
	rauc status mark-bad other >/dev/null 2>&1 || fail "mark-bad other"
	assertEquals "a bad" "bad" "$(vslot get-state a)"
	assertEquals "a's reason" "set-state bad" "$(vslot status --json | jq -r '.slots[0].reason')"
	assertEquals "primary b" "b" "$(vslot get-primary)"
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
