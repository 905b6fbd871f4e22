#!/bin/bash
# Managed recovery after the switch (policy managed=yes; docs/security.md, "After the switch"):
# a root whose file is corrupted on its data image after formatting, read by the running system
# after the switch. With panic-on-corruption the kernel panics and its log lands in efi-pstore
# (OVMF, one variable store kept across the boots of a test); the next boot's agent reads the
# record, removes it, and
#   - with A/B slots marks the slot that ran bad and boots the other one at once (one reboot,
#     not three), also when both slots hold the same image;
#   - without slots boots the same root degraded: I/O errors for bad blocks, status
#     managed=degraded, the event dm-verity-degraded measured before the root's own, the boot
#     counted until the running root confirms it (`verity-init managed mark-good`); a degraded
#     boot that never came up is not repeated (no loop); a root hash that changed (an update)
#     boots in panic mode again.
# Under dracut (shell init) both: a root without slots boots degraded, an A/B slot is marked bad.
# Secure Boot off (the Secure Boot build of OVMF with an empty store, whose variables persist:
# tests/vm/efi_options_test.sh).
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"
# shellcheck source=tests/vm/lib-uefi.sh
. "$(dirname "$0")/lib-uefi.sh"
# shellcheck source=tests/vm/lib-tpm.sh
. "$(dirname "$0")/lib-tpm.sh"
# shellcheck source=tests/vm/sign_lib.sh
. "$(dirname "$0")/sign_lib.sh"
# shellcheck source=tests/vm/slot_lib.sh
. "$(dirname "$0")/slot_lib.sh"
# shellcheck source=tests/vm/managed_lib.sh
. "$(dirname "$0")/managed_lib.sh"

oneTimeSetUp() {
	uefi_require || exit 1
	tpm_require || exit 1
	vm_require_tools qemu-system-x86_64 mkfs.ext4 debugfs cpio sgdisk jq || exit 1
	RD=$(agent_initramfs --policy "managed=yes" --modules "$MANAGED_MODULES") || exit 1
	RD_SLOTS=$(agent_initramfs --policy "slots=a,b
managed=yes" --modules "$MANAGED_MODULES" \
		--file "$(sign_cfile "$SIGN_KEYS/test.pub")" /etc/verity-init/keys/test.pub) || exit 1
}

# Without slots: boot 1 panics on the corrupted block; boot 2 boots the same root degraded
# (the read fails with an I/O error, no panic), reports and measures it, and the running root
# confirms it; boots 3 and 4, with no record left, are degraded still (the agent's variable) and
# never come up (no confirmation); boot 5 does not boot that root again: the reboot of the fail
# list is not taken (it would loop), the machine powers off; boot 6, the same data under another
# root hash (an update), is in panic mode again and panics on the same block.
test_without_slots_degraded_until_the_root_hash_changes() {
	local w rh1 rh2 cl tpm a x
	w=$(vm_workdir managed-noslot)
	rm -f "$w/vars.fd"
	rh1=$(managed_root "$w/r1" main) || { fail "root 1"; return; }
	cl="systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root rootfstype=ext4 verity.options=panic-on-corruption verity.fail=poweroff"

	managed_boot managed-noslot-1 "$RD" "roothash=$rh1 $cl" "$w/vars.fd" \
		--disk "$w/r1/data.img" --disk "$w/r1/hash.img" || return
	assert_panicked "$VM_LOG" main || return
	sign_assert_status "$VM_LOG" managed normal || return
	sign_assert_status "$VM_LOG" on_corruption panic || return

	tpm=$(tpm_start "$w/tpm") || { fail "swtpm"; return; }
	a=()
	for x in $tpm; do a+=(--qemu "$x"); done
	managed_boot managed-noslot-2 "$RD" "roothash=$rh1 $cl" "$w/vars.fd" \
		--disk "$w/r1/data.img" --disk "$w/r1/hash.img" "${a[@]}" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: managed recovery: the last boot ended on a dm-verity corruption \(pstore dmesg-efi[_a-z]*-[0-9]+, Panic; [0-9]+ records\), removed' || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: root: degraded: its last boot ended on a dm-verity corruption; bad blocks are I/O errors \(was panic\) until its root hash changes' || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_log_contains "$VM_LOG" 'MANAGED-READ failed' "the read did not fail with an I/O error" || return
	vm_assert_log_contains "$VM_LOG" 'device-mapper: verity: [0-9]+:[0-9]+: data block [0-9]+ is corrupted' || return
	vm_assert_log_lacks "$VM_LOG" 'Kernel panic' "the degraded root panicked" || return
	sign_assert_status "$VM_LOG" managed degraded || return
	sign_assert_status "$VM_LOG" on_corruption eio || return
	vm_assert_log_contains "$VM_LOG" "VERITY-TEST-MEASURE .*\"string\":\"dm-verity-degraded:root:$rh1\"" \
		"no degraded event in the measurement log" || return
	vm_assert_log_order "$VM_LOG" "measured into PCR 14 .*: dm-verity-degraded:root:$rh1" \
		"measured into PCR 14 .*: dm-verity:root:$rh1:none" || return
	assertEquals "PCR 14 (sha256)" "$(tpm_expected_pcr sha256 "dm-verity-degraded:root:$rh1" "dm-verity:root:$rh1:none")" \
		"$(tpm_guest_pcr "$VM_LOG" sha256 14)" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: managed recovery: VerityInitManaged-[-0-9a-f]+ recorded \(degraded, 1 unconfirmed boot\)' || return
	vm_assert_log_lacks "$VM_LOG" 'verity-init\[1\]: managed recovery: (managed record|VerityInitManaged-[-0-9a-f]+: )' \
		"the agent's variable was not read or written" || return
	vm_assert_log_contains "$VM_LOG" "MANAGED-CONFIRM verity-init: managed: the degraded boot of $rh1 confirmed" || return

	# no record this time: the variable keeps the root degraded until its root hash changes;
	# this boot never comes up (no confirmation)
	managed_boot managed-noslot-3 "$RD" "roothash=$rh1 $cl managedtest=noconfirm" "$w/vars.fd" \
		--disk "$w/r1/data.img" --disk "$w/r1/hash.img" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: managed recovery: no dm-verity end in pstore' || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: root: degraded: it booted degraded before; bad blocks are I/O errors \(was panic\) until its root hash changes' || return
	vm_assert_log_contains "$VM_LOG" 'MANAGED-READ failed' "the read did not fail with an I/O error" || return
	vm_assert_log_lacks "$VM_LOG" 'Kernel panic' "the degraded root panicked" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: managed recovery: VerityInitManaged-[-0-9a-f]+ recorded \(degraded, 1 unconfirmed boot\)' || return
	vm_assert_log_lacks "$VM_LOG" 'MANAGED-CONFIRM' || return
	sign_assert_status "$VM_LOG" managed degraded || return

	# the second try of a degraded boot, which does not come up either
	managed_boot managed-noslot-4 "$RD" "roothash=$rh1 $cl managedtest=noconfirm" "$w/vars.fd" \
		--disk "$w/r1/data.img" --disk "$w/r1/hash.img" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: managed recovery: VerityInitManaged-[-0-9a-f]+ recorded \(degraded, 2 unconfirmed boots\)' || return
	vm_assert_marker "$VM_LOG" main || return

	# the same root is not booted again: its last degraded boots did not come up; the fail
	# list's reboot would come back here, so the machine powers off
	managed_boot managed-noslot-5 "$RD" "roothash=$rh1 ${cl/verity.fail=poweroff/verity.fail=reboot}" "$w/vars.fd" \
		--disk "$w/r1/data.img" --disk "$w/r1/hash.img" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: root: managed failed: its last degraded boots did not come up \(2, none confirmed by .verity-init managed mark-good.\): not booted again until its root hash changes' || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: fallback reboot: not taken: it would come back to the same degraded root' || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: fallback: poweroff \(a panic would reboot into the same degraded root\)' || return
	vm_assert_log_contains "$VM_LOG" 'reboot: Power down' "the machine did not power off" || return
	vm_assert_log_lacks "$VM_LOG" "$VM_MARKER" "the refused root ran" || return
	vm_assert_log_lacks "$VM_LOG" 'Restarting system' "a reboot was taken" || return

	# the same data, formatted with another salt: another root hash, as an update brings
	rh2=$(managed_root "$w/r2" main --salt 0102030405060708) || { fail "root 2"; return; }
	[ "$rh2" != "$rh1" ] || { fail "the root hash did not change"; return; }
	managed_boot managed-noslot-6 "$RD" "roothash=$rh2 $cl" "$w/vars.fd" \
		--disk "$w/r2/data.img" --disk "$w/r2/hash.img" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: managed recovery: no dm-verity end in pstore' || return
	vm_assert_log_lacks "$VM_LOG" 'root: degraded' "the updated root booted degraded" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: managed recovery: VerityInitManaged-[-0-9a-f]+ recorded \(restart\)' || return
	sign_assert_status "$VM_LOG" managed normal || return
	sign_assert_status "$VM_LOG" on_corruption panic || return
	assert_panicked "$VM_LOG" main
}

# managed_slots W MODE : both slots hold the same image (root id slot, formatted once: one root
# hash), as a device is first provisioned: its clean data is copied as slot b's, then slot a's
# /etc/managed-data block is corrupted. Each hash tree gets a manifest signed for its slot's
# partitions with on-corruption MODE; W/slots.img and a blank W/store.img.
managed_slots() {
	local w=$1 mode=$2 s
	MANAGED_CLEAN=1 managed_root "$w/a" slot >/dev/null || return 1
	mkdir -p "$w/b" && cp "$w/a/data.img" "$w/a/hash.img" "$w/b/" || return 1
	vm_corrupt_file "$w/a/data.img" ext4 /etc/managed-data >/dev/null || return 1
	for s in a b; do
		slot_sign "$w/$s/hash.img" "$s" "$SIGN_KEYS/test.key" 3 --on-corruption "$mode" || return 1
	done
	slot_disks "$w" "$w/a" "$w/b"
}

# With slots holding the same image, in restart mode (the manifests say on-corruption=restart)
# with the kernel's log dumped on a restart too (printk.always_kmsg_dump=1, docs/security.md):
# slot a restarts on its corrupted block after the switch; the next boot marks a bad for that
# and boots b at once, one reboot after the corruption instead of three, although b carries the
# root hash the agent's variable names; the boot after that boots b again (no loop).
test_slot_whose_boot_ended_on_corruption_is_marked_bad() {
	local w j cl
	w=$(vm_workdir managed-slot)
	rm -f "$w/vars.fd"
	managed_slots "$w" restart || { fail "slots"; return; }
	cl="root=/dev/mapper/root verity.fail=poweroff printk.always_kmsg_dump=1"
	managed_boot managed-slot-1 "$RD_SLOTS" "$cl" \
		"$w/vars.fd" --disk "$w/slots.img" --qemu -drive --qemu "file=$w/store.img,format=raw,if=virtio" || return
	vm_assert_marker "$VM_LOG" slot || return
	sign_assert_status "$VM_LOG" slot a || return
	vm_assert_log_contains "$VM_LOG" 'device-mapper: verity: [0-9]+:[0-9]+: data block [0-9]+ is corrupted' || return
	vm_assert_log_contains "$VM_LOG" "reboot: Restarting system with command 'dm-verity device corrupted'" \
		"slot a did not restart on the corruption" || return
	vm_assert_log_lacks "$VM_LOG" 'MANAGED-READ' "the read came back" || return
	j=$(slot_store_json "$w") || { fail "slot status: $j"; return; }
	assert_slot "$j" a '"tries":2,' || return
	assertEquals "the store's slot that ran" a "$(jq -r .ran.slot <<<"$j")" || return

	managed_boot managed-slot-2 "$RD_SLOTS" "$cl" \
		"$w/vars.fd" --disk "$w/slots.img" --qemu -drive --qemu "file=$w/store.img,format=raw,if=virtio" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: managed recovery: the last boot ended on a dm-verity corruption' || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: slot a marked bad \(corruption: its last boot ended on a dm-verity corruption \(pstore\)\)' || return
	vm_assert_log_lacks "$VM_LOG" 'verity-init\[1\]: slot b marked bad' "slot b, which did not run, was blamed too" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\\[1\\]: slot b: not blamed for the last boot's dm-verity corruption: another slot ran \\(slot a ran, from [0-9]+:[0-9]+\\)" || return
	vm_assert_marker "$VM_LOG" slot || return
	vm_assert_log_contains "$VM_LOG" 'MANAGED-READ ok' "slot b's read failed" || return
	sign_assert_status "$VM_LOG" slot b || return
	sign_assert_status "$VM_LOG" skipped "a:corruption:its last boot ended on a dm-verity corruption \\(pstore\\)" || return
	j=$(slot_store_json "$w") || { fail "slot status: $j"; return; }
	assert_slot "$j" a '"tries":0,.*"reason":"corruption: its last boot ended on a dm-verity corruption \(pstore\)"' || return
	assert_slot "$j" b '"tries":2,' || return

	# no record of a dm-verity end now (boot 2's power-off dumped a log without one)
	managed_boot managed-slot-3 "$RD_SLOTS" "$cl" \
		"$w/vars.fd" --disk "$w/slots.img" --qemu -drive --qemu "file=$w/store.img,format=raw,if=virtio" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: managed recovery: no dm-verity end in pstore' || return
	vm_assert_log_lacks "$VM_LOG" 'verity-init\[1\]: slot [ab] marked bad' "a slot was marked bad again" || return
	vm_assert_marker "$VM_LOG" slot || return
	vm_assert_log_contains "$VM_LOG" 'MANAGED-READ ok' "slot b's read failed" || return
	sign_assert_status "$VM_LOG" slot b || return
	sign_assert_status "$VM_LOG" skipped "a:not-bootable:corruption: its last boot ended on a dm-verity corruption \\(pstore\\)" || return
	j=$(slot_store_json "$w") || { fail "slot status: $j"; return; }
	assert_slot "$j" a '"tries":0,' || return
	assert_slot "$j" b '"tries":1,' || return
	assertEquals "the store's slot that ran" b "$(jq -r .ran.slot <<<"$j")"
}

# dracut_managed_image OUT : dracut's shell flavour with the module and the policy managed=yes
# (dracut.conf's verity_init_conf=): the module installs efi_pstore, its setup job loads it.
dracut_managed_image() {
	local d=$VM_DIR/dracut-managed-conf
	rm -rf "$d" && mkdir -p "$d/conf" || return 1
	echo "managed=yes" >"$d/verity-init.conf" &&
		printf 'verity_init_conf="%s"\n' "$d/verity-init.conf" >"$d/conf/50-managed.conf" || return 1
	vm_dracut_initramfs "$1" --confdir "$d/conf"
}

# Under dracut (shell init): the same corruption panics the first boot, the second boots the
# root degraded through the agent's setup job.
test_under_dracut_degraded_after_a_corruption() {
	local w rh cl rd key
	vm_require_tools dracut || return
	rd=$VM_CACHE/dracut-shell-managed-$VM_KVER.img
	key=$(vm_dracut_key shell-managed)
	vm_cached "$key" "$rd" dracut_managed_image "$rd.tmp" || { fail "dracut image"; return; }
	w=$(vm_workdir managed-dracut)
	rm -f "$w/vars.fd"
	rh=$(managed_root "$w/r1" main) || { fail "root"; return; }
	cl="roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root verity.options=panic-on-corruption verity.fail=poweroff"
	managed_boot managed-dracut-1 "$rd" "$cl" "$w/vars.fd" \
		--disk "$w/r1/data.img" --disk "$w/r1/hash.img" || return
	assert_panicked "$VM_LOG" main || return
	sign_assert_status "$VM_LOG" managed normal || return
	managed_boot managed-dracut-2 "$rd" "$cl" "$w/vars.fd" \
		--disk "$w/r1/data.img" --disk "$w/r1/hash.img" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: managed recovery: the last boot ended on a dm-verity corruption \(pstore dmesg-efi[_a-z]*-[0-9]+, Panic; [0-9]+ records\), removed' || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: root: degraded: its last boot ended on a dm-verity corruption' || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_log_contains "$VM_LOG" 'MANAGED-READ failed' "the read did not fail with an I/O error" || return
	vm_assert_log_lacks "$VM_LOG" 'Kernel panic' "the degraded root panicked" || return
	sign_assert_status "$VM_LOG" managed degraded || return
	sign_assert_status "$VM_LOG" on_corruption eio
}

# dracut_managed_slot_image OUT : dracut's shell flavour with the policy slots=a,b and
# managed=yes and the manifest key (dracut.conf's verity_init_conf= and verity_init_keys=).
dracut_managed_slot_image() {
	local d=$VM_DIR/dracut-managed-slot-conf
	rm -rf "$d" && mkdir -p "$d/conf" "$d/keys" || return 1
	printf 'slots=a,b\nmanaged=yes\n' >"$d/verity-init.conf" && cp "$SIGN_KEYS/test.pub" "$d/keys/" || return 1
	printf 'verity_init_conf="%s"\nverity_init_keys="%s"\n' "$d/verity-init.conf" "$d/keys" \
		>"$d/conf/50-managed-slots.conf" || return 1
	vm_dracut_initramfs "$1" --confdir "$d/conf"
}

# A/B slots under dracut (shell init), both holding the same image, in panic mode (the manifests'
# on-corruption=panic): slot a, set up by the agent's setup job and mounted by dracut, panics on
# its corrupted block after the switch; the next boot's setup job finds the record, marks a bad
# and sets up b in that boot.
test_under_dracut_slot_whose_boot_ended_on_corruption_is_marked_bad() {
	local w j rd key cl
	vm_require_tools dracut || return
	rd=$VM_CACHE/dracut-shell-managed-slots-$VM_KVER.img
	key=$(vm_dracut_key shell-managed-slots "$(cat "$SIGN_KEYS/test.pub")")
	vm_cached "$key" "$rd" dracut_managed_slot_image "$rd.tmp" || { fail "dracut image"; return; }
	w=$(vm_workdir managed-dracut-slot)
	rm -f "$w/vars.fd"
	managed_slots "$w" panic || { fail "slots"; return; }
	# no rootfstype=: a command line that shapes the mount would make a failure not the slot's
	cl="root=/dev/mapper/root verity.fail=poweroff"

	managed_boot managed-dracut-slot-1 "$rd" "$cl" "$w/vars.fd" \
		--disk "$w/slots.img" --qemu -drive --qemu "file=$w/store.img,format=raw,if=virtio" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: slot a: try taken, 2 left' || return
	sign_assert_status "$VM_LOG" slot a || return
	sign_assert_status "$VM_LOG" on_corruption panic || return
	assert_panicked "$VM_LOG" slot || return
	j=$(slot_store_json "$w") || { fail "slot status: $j"; return; }
	assert_slot "$j" a '"tries":2,' || return

	managed_boot managed-dracut-slot-2 "$rd" "$cl" "$w/vars.fd" \
		--disk "$w/slots.img" --qemu -drive --qemu "file=$w/store.img,format=raw,if=virtio" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: managed recovery: the last boot ended on a dm-verity corruption \(pstore dmesg-efi-[0-9]+, Panic; [0-9]+ records\), removed' || return
	vm_assert_log_order "$VM_LOG" 'verity-init\[[0-9]+\]: slot a marked bad \(corruption: its last boot ended on a dm-verity corruption \(pstore\)\)' \
		'verity-init\[[0-9]+\]: slot b: priority [0-9]+, 3 tries left: setting up' || return
	vm_assert_log_lacks "$VM_LOG" 'verity-init\[[0-9]+\]: slot b marked bad' "slot b, which did not run, was blamed too" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\\[[0-9]+\\]: slot b: not blamed for the last boot's dm-verity corruption: another slot ran \\(slot a ran, from [0-9]+:[0-9]+\\)" || return
	vm_assert_marker "$VM_LOG" slot || return
	vm_assert_log_contains "$VM_LOG" 'MANAGED-READ ok' "slot b's read failed" || return
	sign_assert_status "$VM_LOG" slot b || return
	sign_assert_status "$VM_LOG" skipped "a:corruption:its last boot ended on a dm-verity corruption \\(pstore\\)" || return
	j=$(slot_store_json "$w") || { fail "slot status: $j"; return; }
	assert_slot "$j" a '"tries":0,.*"reason":"corruption: its last boot ended on a dm-verity corruption \(pstore\)"' || return
	assert_slot "$j" b '"tries":2,'
}

# shellcheck source=/dev/null
. shunit2
