#!/bin/bash
# shellcheck disable=SC2153 # DATA, HASH, ROOTHASH come from a vars file (vm_verity_setup)
# dracut with systemd in the initramfs + the verity-init module + systemd-veritysetup, booted in
# QEMU: the module's generator and unit set up the root, systemd's own verity generator
# stays out (masked by the module), and udev announces the mapping so systemd's device unit and
# sysroot.mount proceed.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

DR_TIMEOUT=${VM_DRACUT_TIMEOUT:-300}

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 dracut veritysetup mkfs.ext4 || exit 1
	RD=$(vm_dracut_image systemd) || exit 1
}

test_dracut_systemd_good_boot_systemd_keys() {
	local d
	d=$(vm_workdir dracut-systemd-good)
	vm_verity_setup ext4 "$d" >/dev/null || { fail "verity setup"; return; }
	# shellcheck source=/dev/null
	. "$d/vars"
	# systemd's keys and no root=: the generator mounts /dev/mapper/root on /sysroot
	vm_boot --timeout "$DR_TIMEOUT" --disk "$DATA" --disk "$HASH" dracut-systemd-good "$RD" \
		"roothash=$ROOTHASH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb rootfstype=ext4"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root ext4 || return
	vm_assert_log_contains "$VM_LOG" 'Finished .*verity-init-setup' "verity-init-setup.service did not run" || return
	vm_assert_log_lacks "$VM_LOG" 'systemd-veritysetup@' "systemd-veritysetup also ran" || return
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS result=ok' "agent status is not ok" || return
	vm_assert_log_lacks "$VM_LOG" '(EXT4-fs|SQUASHFS|erofs)[^:]*\(vd[a-z]' \
		"a file system on an unverified device was mounted"
}

# root=UUID= of the data partition (the ext4 inside it has that UUID): systemd-fstab-generator
# would mount the unverified partition on /sysroot; the module's sysroot.mount (early generator
# directory) wins and the pre-pivot check confirms /sysroot is the mapping.
test_dracut_systemd_root_uuid_of_data_partition_not_mounted() {
	local d uuid
	d=$(vm_workdir dracut-systemd-root-uuid)
	vm_verity_setup ext4 "$d" >/dev/null || { fail "verity setup"; return; }
	# shellcheck source=/dev/null
	. "$d/vars"
	# shellcheck disable=SC2015  # fail when blkid fails or prints nothing
	uuid=$(blkid -o value -s UUID "$DATA") && [ -n "$uuid" ] || { fail "no UUID on $DATA"; return; }
	vm_boot --timeout "$DR_TIMEOUT" --disk "$DATA" --disk "$HASH" dracut-systemd-root-uuid "$RD" \
		"roothash=$ROOTHASH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=UUID=$uuid rootfstype=ext4"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root ext4 || return
	vm_assert_log_lacks "$VM_LOG" '(EXT4-fs|SQUASHFS|erofs)[^:]*\(vd[a-z]' \
		"a file system on an unverified device was mounted"
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
