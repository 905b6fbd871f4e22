#!/bin/bash
# A/B slot boot (docs/slots.md, "Booting a slot"): the agent reads the slot state store from a
# writable disk (the only device it writes), sets up the bootable slot of highest priority from
# the signed manifest stored after its hash tree, takes one try before the switch, and on a
# failure marks the slot bad and sets up the other one in the same boot. The store persists
# across boots and is read on the host afterwards (`verity-init slot status --json`).
# Disks: vda = slots (root-a, root-a-verity, root-b, root-b-verity; read-only),
#        vdb = the store (partition verity-slots; writable).
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"
# shellcheck source=tests/vm/sign_lib.sh
. "$(dirname "$0")/sign_lib.sh"
# shellcheck source=tests/vm/slot_lib.sh
. "$(dirname "$0")/slot_lib.sh"

CMDLINE="root=/dev/mapper/root verity.fail=poweroff"

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 veritysetup mkfs.ext4 debugfs cpio modprobe sgdisk jq || exit 1
	[ -x "$VI_TOOL" ] || { echo "no $VI_TOOL" >&2; exit 1; }
	RD=$(sign_initramfs "slots=a,b") || exit 1
	RD_MIN=$(sign_initramfs "slots=a,b
min_version=3") || exit 1
	RD3=$(sign_initramfs "slots=a,b,c") || exit 1
}

# slot_image DIR SLOT VERSION [sign options...] : DIR/data.img and DIR/hash.img of a root whose
# marker says id=slotSLOT, with its manifest (VERSION) signed for slot SLOT's partitions after
# the tree.
slot_image() {
	local d=$1 s=$2 v=$3 out; shift 3
	VM_ROOT_ID=slot$s vm_verity_setup ext4 "$d" >/dev/null || return 1
	out=$("$VI_TOOL" sign "$d/hash.img" --data-device "PARTLABEL=root-$s" \
		--hash-device "PARTLABEL=root-$s-verity" --minisign-key "$SIGN_KEYS/test.key" \
		--version "$v" --embed "$@" 2>&1) || { vm_die "sign slot $s: $out"; return 1; }
}

# boot NAME W [--disk-rw] : the slots disk read-only (or writable, to show the agent leaves it
# alone), the store writable.
boot() {
	local how=--disk
	[ "${3:-}" = --disk-rw ] && how=--disk-rw
	vm_boot "$how" "$2/slots.img" --disk-rw "$2/store.img" "$1" "$RD" "$CMDLINE"
}

# First boot on a blank store: slot a (primary) boots, its try is on disk. After mark-good
# (the floor rises to a's version 3) and set-primary b, slot b's manifest version 2 is below the
# floor: b is marked bad with the reason, and a boots in the same boot.
test_boots_slot_a_then_skips_a_version_below_the_floor() {
	local w j
	w=$(vm_workdir slot-floor)
	slot_image "$w/a" a 3 || { fail "image a"; return; }
	slot_image "$w/b" b 2 || { fail "image b"; return; }
	slot_disks "$w" "$w/a" "$w/b" || { fail "disks"; return; }
	boot slot-floor-1 "$w"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" slota || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: slot a: signed manifest version 3 from PARTLABEL=root-a-verity \(after the hash tree\) verified" || return
	vm_assert_log_order "$VM_LOG" "verity-init\[1\]: slot a: try taken, 2 left, version 3 recorded \(store written in [0-9]+ us; the slot step [0-9]+ us own: read [0-9]+ us, decision [0-9]+ us\)" \
		"verity-init\[1\]: exec /sbin/init" || return
	sign_assert_status "$VM_LOG" result ok || return
	sign_assert_status "$VM_LOG" slot a || return
	sign_assert_status "$VM_LOG" store /dev/vdb1 || return
	vm_assert_log_lacks "$VM_LOG" "VERITY-TEST-STATUS skipped=" "a skipped= line on a clean boot" || return
	j=$(slot_store_json "$w") || { fail "slot status: $j"; return; }
	assert_slot "$j" a '"priority":15,"tries":2,.*"version":3' || return
	assert_slot "$j" b '"tries":3,' || return

	printf 'result=ok\nslot=a\n' >"$w/status"
	"$BUILD/verity-init" slot --store "$w/store.bin" --status "$w/status" mark-good >/dev/null ||
		{ fail "mark-good on the host"; return; }
	"$BUILD/verity-init" slot --store "$w/store.bin" set-primary b || { fail "set-primary"; return; }
	slot_store_put "$w" || { fail "slot_store_put"; return; }
	boot slot-floor-2 "$w"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" slota || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: slot b marked bad \(version: manifest version 2 is below the rollback floor 3\)" || return
	sign_assert_status "$VM_LOG" slot a || return
	sign_assert_status "$VM_LOG" skipped "b:version:manifest version 2 is below the rollback floor 3" || return
	j=$(slot_store_json "$w") || { fail "slot status: $j"; return; }
	assert_slot "$j" b '"tries":0,.*"reason":"version: manifest version 2 is below the rollback floor 3"' || return
	assert_slot "$j" a '"tries":2,'
}

# The policy's own floor (min_version=3) applies to every slot: a's version 2 is refused when its
# manifest is verified, a is marked bad, b (version 3) boots.
test_version_below_the_policy_min_version_skipped() {
	local w j
	w=$(vm_workdir slot-min-version)
	slot_image "$w/a" a 2 || { fail "image a"; return; }
	slot_image "$w/b" b 3 || { fail "image b"; return; }
	slot_disks "$w" "$w/a" "$w/b" || { fail "disks"; return; }
	vm_boot --disk "$w/slots.img" --disk-rw "$w/store.img" slot-min-version "$RD_MIN" "$CMDLINE"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" slotb || return
	sign_assert_status "$VM_LOG" slot b || return
	sign_assert_status "$VM_LOG" skipped "a:manifest:.*manifest version 2 is below the minimum 3 \\(rollback refused\\)" || return
	j=$(slot_store_json "$w") || { fail "slot status: $j"; return; }
	assert_slot "$j" a '"tries":0,.*"reason":"manifest: .*manifest version 2 is below the minimum 3'
}

# Slot a's init is corrupted: the agent's init read fails (dm-verity), a is marked bad, and b is
# set up and booted in the same boot, without a reboot. The slots disk, attached writable, is
# unchanged afterwards: only the store was written.
test_corrupted_slot_falls_back_to_the_other_in_the_same_boot() {
	local w j sum
	w=$(vm_workdir slot-fallback)
	slot_image "$w/a" a 3 || { fail "image a"; return; }
	slot_image "$w/b" b 3 || { fail "image b"; return; }
	VM_ROOT_ID=slota vm_corrupt_file "$w/a/data.img" ext4 /sbin/init >/dev/null || { fail "corrupt"; return; }
	slot_disks "$w" "$w/a" "$w/b" || { fail "disks"; return; }
	# the slots disk writable this time: the store must be the only thing the agent writes
	sum=$(sha256sum <"$w/slots.img")
	boot slot-fallback "$w" --disk-rw
	vm_assert_booted || return
	[ "$(sha256sum <"$w/slots.img")" = "$sum" ] || { fail "the slots disk was written"; return; }
	vm_assert_marker "$VM_LOG" slotb || return
	vm_assert_log_lacks "$VM_LOG" "VERITY-TEST-MARKER id=slota" "slot a's root ran" || return
	vm_assert_log_order "$VM_LOG" "slot a marked bad \(init: " "slot b: priority 14, 3 tries left: setting up" || return
	sign_assert_status "$VM_LOG" result ok || return
	sign_assert_status "$VM_LOG" slot b || return
	sign_assert_status "$VM_LOG" skipped "a:init:reading init /sbin/init failed: Input/output error" || return
	j=$(slot_store_json "$w") || { fail "slot status: $j"; return; }
	assert_slot "$j" a '"tries":0,"successful":false,"bootable":false,.*"reason":"init: reading init /sbin/init failed: Input/output error \(a block failed verifi"' || return
	assert_slot "$j" b '"tries":2,'
}

# Both slots refused (a: its init, b: its hash tree): the policy's fail actions, as without slots.
test_both_slots_bad_takes_the_fail_action() {
	local w j
	w=$(vm_workdir slot-both-bad)
	slot_image "$w/a" a 3 || { fail "image a"; return; }
	slot_image "$w/b" b 3 || { fail "image b"; return; }
	VM_ROOT_ID=slota vm_corrupt_file "$w/a/data.img" ext4 /sbin/init >/dev/null ||
		{ fail "corrupt a"; return; }
	vm_corrupt_hash_block "$w/b/hash.img" 0 0 >/dev/null || { fail "corrupt b"; return; }
	slot_disks "$w" "$w/a" "$w/b" || { fail "disks"; return; }
	boot slot-both-bad "$w"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: A/B slots: no bootable slot left: a:init:.*;b:preflight:" || return
	agent_assert_fallback "$VM_LOG" poweroff || return
	j=$(slot_store_json "$w") || { fail "slot status: $j"; return; }
	assert_slot "$j" a '"tries":0,.*"reason":"init: ' || return
	assert_slot "$j" b '"tries":0,.*"reason":"preflight: '
}

# Slot a passes every check before the switch but fails after it (restart-on-corruption: the
# corrupted busybox is read only when init runs, the kernel restarts). Nothing can mark it bad:
# its tries, taken before each switch, run out, and the fourth boot skips it for b.
test_slot_failing_after_the_switch_runs_out_of_tries() {
	local w j n
	w=$(vm_workdir slot-tries)
	slot_image "$w/a" a 3 --on-corruption restart || { fail "image a"; return; }
	slot_image "$w/b" b 3 || { fail "image b"; return; }
	vm_corrupt_file "$w/a/data.img" ext4 /bin/busybox >/dev/null || { fail "corrupt"; return; }
	slot_disks "$w" "$w/a" "$w/b" || { fail "disks"; return; }
	for n in 3 2 1; do
		boot "slot-tries-$n" "$w"
		vm_assert_booted || return
		vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: slot a: priority 15, $n tries left: setting up" || return
		vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: exec /sbin/init" || return
		vm_assert_log_contains "$VM_LOG" "reboot: Restarting system" "no restart on corruption" || return
		vm_assert_no_marker "$VM_LOG" || return
		j=$(slot_store_json "$w") || { fail "slot status: $j"; return; }
		assert_slot "$j" a "\"tries\":$(( n - 1 ))," || return
	done
	boot slot-tries-out "$w"
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: slot a: not bootable \(priority 15, 0 tries left\)" || return
	vm_assert_marker "$VM_LOG" slotb || return
	sign_assert_status "$VM_LOG" slot b || return
	sign_assert_status "$VM_LOG" skipped "a:not-bootable:no tries left"
}

# A command line whose mount option ext4 refuses (rootflags=) makes both slots fail in one boot,
# for no fault of theirs: each loses one try and keeps the rest, the reason is recorded, and
# the next boot with a sound command line boots slot a.
test_command_line_mount_failure_leaves_the_slots_bootable() {
	local w j st
	w=$(vm_workdir slot-cmdline)
	slot_image "$w/a" a 3 || { fail "image a"; return; }
	slot_image "$w/b" b 3 || { fail "image b"; return; }
	slot_disks "$w" "$w/a" "$w/b" || { fail "disks"; return; }
	vm_boot --disk "$w/slots.img" --disk-rw "$w/store.img" slot-cmdline-1 "$RD" \
		"$CMDLINE rootflags=no_such_ext4_option"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: slot a failed, not marked bad: its content is not to blame, 2 tries left \(mount: mounting " || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: slot b failed, not marked bad: its content is not to blame, 2 tries left \(mount: " || return
	vm_assert_log_lacks "$VM_LOG" "marked bad \(" "a slot marked bad" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: A/B slots: no slot booted, tries are left for the next boot: a:mount:.*;b:mount:" || return
	agent_assert_fallback "$VM_LOG" poweroff || return
	j=$(slot_store_json "$w") || { fail "slot status: $j"; return; }
	assert_slot "$j" a '"priority":15,"tries":2,"successful":false,"bootable":true,.*"reason":"mount: mounting /dev/mapper/root .*Invalid argument' || return
	assert_slot "$j" b '"tries":2,"successful":false,"bootable":true,.*"reason":"mount: mounting /dev/mapper/root .*Invalid argument' || return
	st=$("$BUILD/verity-init" slot --store "$w/store.bin" status) || { fail "slot status"; return; }
	case $st in *"primary=a"*"slot.a.bootable=yes"*"slot.b.bootable=yes"*) ;;
	*) fail "slot status: $st"; return ;; esac

	boot slot-cmdline-2 "$w"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" slota || return
	sign_assert_status "$VM_LOG" slot a || return
	j=$(slot_store_json "$w") || { fail "slot status: $j"; return; }
	assert_slot "$j" a '"tries":1,' || return
	assert_slot "$j" b '"tries":2,'
}

# A second disk carrying a partition with slot a's label (a USB stick, say) makes slot a's data
# device ambiguous: not a's fault, so a loses one try and keeps the rest, and b boots.
test_duplicate_partition_label_costs_one_try() {
	local w j
	w=$(vm_workdir slot-dup)
	slot_image "$w/a" a 3 || { fail "image a"; return; }
	slot_image "$w/b" b 3 || { fail "image b"; return; }
	slot_disks "$w" "$w/a" "$w/b" || { fail "disks"; return; }
	truncate -s 4M "$w/stick.img"
	sgdisk -n 1:2048:+2048 -c 1:root-a "$w/stick.img" >/dev/null || { fail "sgdisk stick"; return; }
	vm_boot --disk "$w/slots.img" --disk-rw "$w/store.img" --disk "$w/stick.img" slot-dup "$RD" \
		"$CMDLINE"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" slotb || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: slot a failed, not marked bad: its content is not to blame, 2 tries left \(devices: PARTLABEL=root-a matches more than one device" || return
	sign_assert_status "$VM_LOG" slot b || return
	sign_assert_status "$VM_LOG" skipped "a:devices:PARTLABEL=root-a matches more than one device" || return
	j=$(slot_store_json "$w") || { fail "slot status: $j"; return; }
	assert_slot "$j" a '"priority":15,"tries":2,"successful":false,"bootable":true,.*"reason":"devices: PARTLABEL=root-a matches more than one device' || return
	assert_slot "$j" b '"tries":2,'
}

# The policy's slots= decides how many slots there are: a store written for two slots grows to
# the policy's three, the new slot never booted and not bootable (set-primary makes it so).
test_policy_slot_count_wins_over_the_store() {
	local w j
	w=$(vm_workdir slot-count)
	slot_image "$w/a" a 3 || { fail "image a"; return; }
	slot_image "$w/b" b 3 || { fail "image b"; return; }
	slot_disks "$w" "$w/a" "$w/b" || { fail "disks"; return; }
	truncate -s 8192 "$w/store.bin"
	"$BUILD/verity-init" slot --store "$w/store.bin" set-primary a || { fail "set-primary"; return; }
	slot_store_put "$w" || { fail "slot_store_put"; return; }
	vm_boot --disk "$w/slots.img" --disk-rw "$w/store.img" slot-count "$RD3" "$CMDLINE"
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: slot store has 2 slots, the policy 3: the store follows the policy" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: slot c: not bootable \(priority 0, 0 tries left\)" || return
	vm_assert_marker "$VM_LOG" slota || return
	sign_assert_status "$VM_LOG" skipped "c:not-bootable:priority 0" || return
	j=$(slot_store_json "$w") || { fail "slot status: $j"; return; }
	[ "$(printf '%s\n' "$j" | jq '.slots | length')" = 3 ] || { fail "store: not 3 slots: $j"; return; }
	assert_slot "$j" c '"priority":0,"tries":0,"successful":false,"bootable":false,"version":0,"reason":""' || return
	assert_slot "$j" a '"tries":2,'
}

# A store partition too small for its two copies (4 KiB) is refused: no slot is set up (its
# tries could never be saved), the policy's fail actions run, and the reason says why.
test_store_too_small_refused() {
	local w
	w=$(vm_workdir slot-small)
	slot_image "$w/a" a 3 || { fail "image a"; return; }
	slot_image "$w/b" b 3 || { fail "image b"; return; }
	slot_disks "$w" "$w/a" "$w/b" || { fail "disks"; return; }
	sgdisk -d 1 -n 1:2048:+8 -c 1:verity-slots "$w/store.img" >/dev/null || { fail "sgdisk"; return; }
	boot slot-small "$w"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: A/B slots: slot store PARTLABEL=verity-slots \(/dev/vdb1\): the slot store has 4096 bytes, fewer than the 8192 its two copies need" || return
	vm_assert_log_lacks "$VM_LOG" "setting up" "a slot set up" || return
	agent_assert_fallback "$VM_LOG" poweroff
}

# shellcheck source=/dev/null
. shunit2
