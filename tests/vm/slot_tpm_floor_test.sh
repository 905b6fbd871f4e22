#!/bin/bash
# The A/B rollback floor in a TPM NV counter (docs/slots.md, "The floor in a TPM NV counter"),
# with a TPM 2.0 emulator whose NV memory persists across boots (swtpm state kept). Policy
# slots=a,b and slot_floor=tpm: the agent defines the counter on the first boot and write-locks
# it at every boot, so the running root cannot increment it; slot a (version 2) boots and its
# init runs `verity-init slot mark-good`, and the next boot raises the counter to 2. Then the
# store is reset (its floor back to 0) and slot b (version 1) made primary: the agent refuses b
# because of the counter (blamed on the boot, not marked bad), and a boots again. A command line
# the agent refuses: the counter locked before the fail list. Without a
# TPM: no boot at all.
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
# shellcheck source=tests/vm/lib-tpm.sh
. "$(dirname "$0")/lib-tpm.sh"

CMDLINE="root=/dev/mapper/root verity.fail=poweroff"
NV=0x01005649

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 mkfs.ext4 debugfs cpio modprobe sgdisk jq || exit 1
	tpm_require || exit 1
	[ -x "$VI_TOOL" ] || { echo "no $VI_TOOL" >&2; exit 1; }
	RD=$(sign_initramfs "slots=a,b
slot_floor=tpm") || exit 1
	RD_REQ=$(sign_initramfs "slots=a,b
slot_floor=tpm
require_tpm=yes") || exit 1
	W=$(vm_workdir slot-tpm-floor)
	slot_image "$W/a" a 2 || exit 1
	slot_image "$W/b" b 1 || exit 1
}

# slot_image DIR SLOT VERSION : a root whose marker says id=slotSLOT and whose init marks the slot
# good and prints the floor's counter (the static agent as /usr/sbin/verity-init), its tree and
# its manifest (VERSION) signed for slot SLOT's partitions after the tree.
slot_image() {
	local d=$1 s=$2 v=$3 t=$1/tree
	rm -rf "$t" && mkdir -p "$d" || return 1
	vm_rootfs_tree "$t" "slot$s" || return 1
	mkdir -p "$t/usr/sbin" && cp "$VM_AGENT" "$t/usr/sbin/verity-init" || return 1
	for a in sed printf dd od; do ln -sf busybox "$t/bin/$a" || return 1; done
	# TPM2_NV_Increment of the floor's index, authorized by the index's own empty password:
	# what root (or the tss group) on the running system can send. Its answer, in hex.
	cat >"$t/etc/vm-root-hook" <<'HOOK'
/usr/sbin/verity-init slot mark-good 2>&1 | sed 's/^/TPMFLOOR-CHECK /'
/usr/sbin/verity-init slot mark-good --json 2>&1 | sed 's/^/TPMFLOOR-JSON /'
echo "TPMFLOOR-CHECK counter=$(/usr/sbin/verity-init slot tpm-floor 2>&1)"
exec 3<>/dev/tpmrm0
printf '\200\002\000\000\000\037\000\000\001\064\001\000\126\111\001\000\126\111\000\000\000\011\100\000\000\011\000\000\000\000\000' >&3
echo "TPMFLOOR-CHECK increment=$(dd bs=64 count=1 <&3 2>/dev/null | od -An -tx1 | tr -d ' \n')"
exec 3>&-
echo "TPMFLOOR-CHECK counter-after=$(/usr/sbin/verity-init slot tpm-floor 2>&1)"
HOOK
	vm_mkfs ext4 "$t" "$d/data.img" || return 1
	rm -f "$d/hash.img"
	vm_verity_format "$VM_VERITY_TOOL" "$d/data.img" "$d/hash.img" >"$d/roothash" || return 1
	slot_sign "$d/hash.img" "$s" "$SIGN_KEYS/test.key" "$v"
}

# store_reset_primary W SLOT : the store blanked (floor 0, defaults) and SLOT made primary, as
# someone who can write the disk would leave it.
store_reset_primary() {
	: >"$1/store.bin" && truncate -s 8192 "$1/store.bin" &&
	"$BUILD/verity-init" slot --store "$1/store.bin" set-primary "$2" &&
	dd if="$1/store.bin" of="$1/store.img" bs=4096 seek=$(( SLOT_STORE_OFF / 4096 )) conv=notrunc \
		status=none
}

# tpm_boot NAME INITRD : the slots and the store, with the TPM whose state is W/tpm (kept).
tpm_boot() {
	local extra
	extra=$(tpm_start_kept "$W/tpm") || { fail "swtpm"; return 1; }
	VM_BIOS=seabios VM_BOOT_KERNEL=$VM_KERNEL VM_QEMU_EXTRA="$extra" \
		vm_boot --disk "$W/slots.img" --disk-rw "$W/store.img" "$1" "$2" "$CMDLINE"
	vm_assert_booted
}

# TPM_RC_NV_LOCKED: the answer to NV_Increment on a write-locked index (tag, size 10, code).
LOCKED=80010000000a00000148

# assert_locked COUNTER : the root's NV_Increment was refused with TPM_RC_NV_LOCKED and the
# counter is COUNTER before and after it.
assert_locked() {
	vm_assert_log_contains "$VM_LOG" "TPMFLOOR-CHECK counter=$1" "the counter is not $1" || return
	vm_assert_log_contains "$VM_LOG" "TPMFLOOR-CHECK increment=$LOCKED" \
		"the root's NV_Increment was not refused with TPM_RC_NV_LOCKED" || return
	vm_assert_log_contains "$VM_LOG" "TPMFLOOR-CHECK counter-after=$1" \
		"the root's NV_Increment moved the counter"
}

# First boot on a blank TPM and store: the agent defines the counter (its first value, 1, is the
# floor) and locks it, a (version 2) boots, its init cannot increment the counter, mark-good
# records a as good and says the counter rises at the next boot. Second boot, same store: the
# agent raises the counter to 2 (a is good with version 2), then locks it. Third boot, same TPM,
# the store reset to floor 0 with b (version 1) primary: b is refused by the counter without
# being marked bad, a boots.
test_tpm_counter_floor_survives_a_reset_store() {
	local j
	rm -rf "$W/tpm"
	slot_disks "$W" "$W/a" "$W/b" || { fail "disks"; return; }
	tpm_boot slot-tpm-floor-1 "$RD" || return
	vm_assert_marker "$VM_LOG" slota || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: rollback floor 1 from TPM NV counter $NV, defined now \(the store's: 0; read in [0-9]+ us\)" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: TPM NV counter $NV write-locked until the next reboot \(in [0-9]+ us\)" || return
	sign_assert_status "$VM_LOG" floor_nv "$NV" || return
	vm_assert_log_contains "$VM_LOG" "TPMFLOOR-CHECK slot a marked good \(rollback floor 2; TPM NV counter $NV: 1, raised to 2 at the next boot\)" || return
	vm_assert_log_contains "$VM_LOG" "TPMFLOOR-JSON \{\"slot\":\"a\",\"floor\":2,\"floor_nv\":\"$NV\",\"tpm_floor\":1,\"tpm_floor_next_boot\":2\}" || return
	assert_locked 1 || return
	j=$(slot_store_json "$W") || { fail "slot status: $j"; return; }
	assertEquals "the store's floor after mark-good" 2 "$(printf '%s' "$j" | jq .floor)" || return

	tpm_boot slot-tpm-floor-2 "$RD" || return
	vm_assert_marker "$VM_LOG" slota || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: rollback floor 1 from TPM NV counter $NV \(the store's: 2; read in [0-9]+ us\)" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: rollback floor raised from 1 to 2: TPM NV counter $NV \(slot a marked good with version 2; in [0-9]+ us\)" || return
	vm_assert_log_contains "$VM_LOG" "TPMFLOOR-CHECK slot a marked good \(rollback floor 2; TPM NV counter $NV: 2\)" || return
	assert_locked 2 || return

	store_reset_primary "$W" b || { fail "store reset"; return; }
	j=$(slot_store_json "$W") || { fail "slot status: $j"; return; }
	assertEquals "the store's floor after the reset" 0 "$(printf '%s' "$j" | jq .floor)" || return
	tpm_boot slot-tpm-floor-3 "$RD" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: rollback floor 2 from TPM NV counter $NV \(the store's: 0;" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: slot b failed, not marked bad: its content is not to blame, 2 tries left \(version: manifest version 1 is below the TPM rollback floor 2\)" || return
	vm_assert_log_lacks "$VM_LOG" "VERITY-TEST-MARKER id=slotb" "slot b's root ran" || return
	vm_assert_marker "$VM_LOG" slota || return
	sign_assert_status "$VM_LOG" skipped "b:version:manifest version 1 is below the TPM rollback floor 2" || return
	assert_locked 2 || return
	j=$(slot_store_json "$W") || { fail "slot status: $j"; return; }
	assert_slot "$j" b '"tries":2,.*"bootable":true,.*"reason":"version: manifest version 1 is below the TPM rollback floor 2"'
}

# A failure before the slot step (here a command line the agent refuses): no slot is set up, and
# the fail list may hand over to a recovery root or a shell. The counter (defined by the test
# above, or by a boot of its own when run alone) is write-locked first all the same, so that
# nothing the fallback runs can raise it.
test_fallback_locks_the_counter() {
	slot_disks "$W" "$W/a" "$W/b" || { fail "disks"; return; }
	if [ ! -d "$W/tpm" ]; then
		tpm_boot slot-tpm-floor-define "$RD" || return
		vm_assert_marker "$VM_LOG" slota || return
	fi
	CMDLINE="$CMDLINE verity.bogus=1" tpm_boot slot-tpm-floor-refused "$RD" || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" "unknown key 'verity.bogus'" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: fallback: TPM NV counter $NV write-locked until the next reboot" \
		"the fallback ran with the counter unlocked" || return
	# a refused line's verity.fail= is not used: the policy's fail list (none: panic)
	agent_assert_fallback "$VM_LOG" panic
}

# A recovery root on the command line is refused under slots= (the policy step, before the
# store or the TPM is read): every root comes from a slot's signed manifest. First the rollback:
# the TPM hidden (acpi=off), so that no slot boots, and slot b's old root (version 1, below the
# counter) named as the recovery root.
test_recovery_root_from_the_command_line_cannot_roll_back() {
	local b
	b=$(cat "$W/b/roothash") || { fail "b's root hash"; return; }
	slot_disks "$W" "$W/a" "$W/b" || { fail "disks"; return; }
	CMDLINE="root=/dev/mapper/root acpi=off verity.fail=recovery verity.recovery.roothash=$b verity.recovery.data=PARTLABEL=root-b verity.recovery.hash=PARTLABEL=root-b-verity" \
		tpm_boot slot-tpm-floor-recovery-rollback "$RD" || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_lacks "$VM_LOG" "booting the recovery root" "the command line's recovery root was set up" || return
	vm_assert_log_contains "$VM_LOG" "boots A/B slots \(slots=\): every root comes from a slot's signed manifest, the command line may not name a recovery root" || return
	agent_assert_fallback "$VM_LOG" panic
}

# Then an attacker's unsigned squashfs on other disks, after both slots fail at the mount under a
# hostile rootfstype=, with require_tpm=yes and the TPM present: refused all the same, the
# counter locked before the policy's fail list.
test_unsigned_recovery_root_refused_with_a_tpm() {
	local rh
	rh=$(VM_ROOT_ID=attacker vm_verity_setup squashfs "$W/evil") || { fail "attacker root"; return; }
	slot_disks "$W" "$W/a" "$W/b" || { fail "disks"; return; }
	if [ ! -d "$W/tpm" ]; then
		tpm_boot slot-tpm-floor-define "$RD" || return
		vm_assert_marker "$VM_LOG" slota || return
	fi
	local extra
	extra=$(tpm_start_kept "$W/tpm") || { fail "swtpm"; return; }
	VM_BIOS=seabios VM_BOOT_KERNEL=$VM_KERNEL VM_QEMU_EXTRA="$extra" \
		vm_boot --disk "$W/slots.img" --disk-rw "$W/store.img" --disk "$W/evil/data.img" \
		--disk "$W/evil/hash.img" slot-tpm-floor-recovery-unsigned "$RD_REQ" \
		"root=/dev/mapper/root rootfstype=squashfs verity.fail=recovery verity.recovery.roothash=$rh verity.recovery.data=/dev/vdc verity.recovery.hash=/dev/vdd"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_lacks "$VM_LOG" "booting the recovery root" "the command line's recovery root was set up" || return
	vm_assert_log_contains "$VM_LOG" "the command line may not name a recovery root" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: fallback: TPM NV counter $NV write-locked until the next reboot" \
		"the fallback ran with the counter unlocked" || return
	agent_assert_fallback "$VM_LOG" panic
}

# The policy asks for the TPM floor and the machine has no TPM: no slot boots (the fail action),
# with require_tpm=yes or without.
test_no_tpm() {
	slot_disks "$W" "$W/a" "$W/b" || { fail "disks"; return; }
	vm_boot --disk "$W/slots.img" --disk-rw "$W/store.img" slot-tpm-floor-none "$RD_REQ" "$CMDLINE"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: A/B slots: rollback floor \(slot_floor=tpm\): no TPM \(/dev/tpmrm0\)" || return
	agent_assert_fallback "$VM_LOG" poweroff || return

	# without require_tpm=yes too: a TPM the command line can hide (acpi=off) must not turn
	# the floor into the store's alone, which whoever writes the disk can reset
	vm_boot --disk "$W/slots.img" --disk-rw "$W/store.img" slot-tpm-floor-optional "$RD" "$CMDLINE"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: A/B slots: rollback floor \(slot_floor=tpm\): no TPM \(/dev/tpmrm0\)" || return
	agent_assert_fallback "$VM_LOG" poweroff
}

# shellcheck source=/dev/null
. shunit2
