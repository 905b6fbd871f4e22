#!/bin/bash
# Managed recovery (policy managed=yes; docs/security.md, "After the switch") on the 6.12 kernel,
# whose dm-verity has panic-on-error (6.1 refuses it: hardening_status_test.sh), with a verified
# /usr under the verified root. Both mappings in the recommended mode, panic-on-corruption and
# panic-on-error. After the switch the root's init reads a file of /usr whose block QEMU's
# blkdebug fails with an I/O error: the kernel panics ("dm-verity device has I/O error") and
# efi-pstore keeps its log (OVMF, one variable store kept across the two boots). The next boot's
# agent reads that record, which is /usr's, while its variable names the root's hash: both
# mappings boot degraded, so the same read, a corrupted block of /usr and one of the root are all
# I/O errors and nothing panics.
VM_KERNEL_SERIES_REQUIRED=6.12
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
# shellcheck source=tests/vm/managed_lib.sh
. "$(dirname "$0")/managed_lib.sh"

oneTimeSetUp() {
	uefi_require || exit 1
	tpm_require || exit 1
	vm_require_tools qemu-system-x86_64 mkfs.ext4 debugfs dumpe2fs cpio || exit 1
	RD=$(agent_initramfs --policy "managed=yes" --modules "$MANAGED_MODULES") || exit 1
}

# Disks: vda, vdb the root's data and hash; vdc /usr's data through blkdebug (an I/O error on
# every read of /usr/managed-io's block), vdd /usr's hash. Boot 1 panics on that read; boot 2
# (swtpm attached) boots both mappings degraded, measures the degraded event before the two
# targets' own, and the running root confirms the boot.
test_usr_io_error_panics_then_root_and_usr_boot_degraded() {
	local w rh uh io ublk rblk cl disks tpm a x
	w=$(vm_workdir managed612-usr)
	rm -f "$w/vars.fd"
	rh=$(MANAGED_READS="/usr/managed-io /usr/managed-data /etc/managed-data" managed_root "$w/r" main) ||
		{ fail "root"; return; }
	uh=$(managed_usr "$w/u") || { fail "usr"; return; }
	io=$(vm_file_offset "$w/u/data.img" ext4 /managed-io) || { fail "offset"; return; }
	ublk=$(( $(vm_file_offset "$w/u/data.img" ext4 /managed-data) / 4096 ))
	rblk=$(( $(vm_file_offset "$w/r/data.img" ext4 /etc/managed-data) / 4096 ))
	printf '[inject-error]\nevent = "read_aio"\nerrno = "5"\nsector = "%s"\nonce = "off"\n' \
		$(( io / 512 )) >"$w/blkdebug.conf"
	disks=(--disk "$w/r/data.img" --disk "$w/r/hash.img"
		--qemu -drive --qemu "driver=raw,if=virtio,read-only=on,file.driver=blkdebug,file.config=$w/blkdebug.conf,file.image.driver=file,file.image.filename=$w/u/data.img"
		--disk "$w/u/hash.img")
	cl="roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root rootfstype=ext4 usrhash=$uh systemd.verity_usr_data=/dev/vdc systemd.verity_usr_hash=/dev/vdd verity.options=panic-on-corruption,panic-on-error verity.usr.options=panic-on-corruption,panic-on-error verity.fail=poweroff"

	managed_boot managed612-usr-1 "$RD" "$cl" "$w/vars.fd" "${disks[@]}" || return
	vm_assert_log_contains "$VM_LOG" 'Linux version 6\.12\.' "not the 6.12 kernel" || return
	vm_assert_marker "$VM_LOG" main || return
	sign_assert_status "$VM_LOG" managed normal || return
	sign_assert_status "$VM_LOG" on_corruption panic || return
	sign_assert_status "$VM_LOG" usrhash "$uh" || return
	vm_assert_log_contains "$VM_LOG" "I/O error, dev vdc, sector $(( io / 512 ))" "no injected I/O error" || return
	vm_assert_log_contains "$VM_LOG" 'Kernel panic - not syncing: dm-verity device has I/O error' \
		"the kernel did not panic on /usr's I/O error" || return
	vm_assert_log_lacks "$VM_LOG" 'MANAGED-READ' "the read came back" || return

	tpm=$(tpm_start "$w/tpm") || { fail "swtpm"; return; }
	a=()
	for x in $tpm; do a+=(--qemu "$x"); done
	managed_boot managed612-usr-2 "$RD" "$cl" "$w/vars.fd" "${disks[@]}" "${a[@]}" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: managed recovery: the last boot ended on a dm-verity I/O error \(pstore dmesg-efi_pstore-[0-9]+, Panic; [0-9]+ records\), removed' || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: root: degraded: its last boot ended on a dm-verity corruption; bad blocks are I/O errors \(was panic, on I/O errors panic\) until its root hash changes' || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: usr: mounted /dev/mapper/usr read-only on /sysroot/usr' || return
	# /usr: the I/O error and the corrupted block (the third virtio disk, minor 32); the root's
	# corrupted block (minor 0): each read an I/O error
	vm_assert_log_contains "$VM_LOG" 'MANAGED-READ failed /usr/managed-io' "/usr's I/O error was not an I/O error" || return
	vm_assert_log_contains "$VM_LOG" "I/O error, dev vdc, sector $(( io / 512 ))" "no injected I/O error" || return
	vm_assert_log_contains "$VM_LOG" 'MANAGED-READ failed /usr/managed-data' "/usr's corrupted block was read" || return
	vm_assert_log_contains "$VM_LOG" "device-mapper: verity: [0-9]+:32: data block $ublk is corrupted" || return
	vm_assert_log_contains "$VM_LOG" 'MANAGED-READ failed /etc/managed-data' "the root's corrupted block was read" || return
	vm_assert_log_contains "$VM_LOG" "device-mapper: verity: [0-9]+:0: data block $rblk is corrupted" || return
	vm_assert_log_lacks "$VM_LOG" 'Kernel panic' "a degraded mapping panicked" || return
	sign_assert_status "$VM_LOG" managed degraded || return
	sign_assert_status "$VM_LOG" on_corruption eio || return
	sign_assert_status "$VM_LOG" usrhash "$uh" || return
	vm_assert_log_order "$VM_LOG" "measured into PCR 14 .*: dm-verity-degraded:root:$rh" \
		"measured into PCR 14 .*: dm-verity:root\+usr:usr:usr:$uh:none" || return
	assertEquals "PCR 14 (sha256)" "$(tpm_expected_pcr sha256 "dm-verity-degraded:root:$rh" \
		"dm-verity:root+usr:root:root:$rh:none" "dm-verity:root+usr:usr:usr:$uh:none")" \
		"$(tpm_guest_pcr "$VM_LOG" sha256 14)" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: managed recovery: VerityInitManaged-[-0-9a-f]+ recorded \(degraded, 1 unconfirmed boot\)' || return
	vm_assert_log_contains "$VM_LOG" "MANAGED-CONFIRM verity-init: managed: the degraded boot of $rh confirmed"
}

# shellcheck source=/dev/null
. shunit2
