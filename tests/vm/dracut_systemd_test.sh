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

# tampered_program_refused WORKDIR ROOT-ID PATH BYTE : a root (VM_ROOT_ID ROOT-ID) whose PATH has
# byte BYTE of its first block flipped, booted with verity.fail=poweroff and no init=:
# verity-init-pre-pivot.service refuses PATH, the kernel powers off, systemd never switches.
tampered_program_refused() {
	local d off
	d=$(vm_workdir "$1")
	VM_ROOT_ID=$2 vm_verity_setup ext4 "$d" >/dev/null || { fail "verity setup"; return 1; }
	# shellcheck source=/dev/null
	. "$d/vars"
	off=$(vm_corrupt_file "$DATA" ext4 "$3" 0 "$4") || { fail "corrupt $3"; return 1; }
	vm_boot --timeout "$DR_TIMEOUT" --disk "$DATA" --disk "$HASH" "$1" "$RD" \
		"roothash=$ROOTHASH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb rootfstype=ext4 verity.fail=poweroff"
	vm_assert_booted || return 1
	vm_assert_no_marker "$VM_LOG" || return 1
	vm_assert_log_contains "$VM_LOG" "device-mapper: verity: [0-9]+:[0-9]+: data block $(( off / 4096 )) is corrupted" \
		"dm-verity did not report the corrupted block" || return 1
	vm_assert_log_contains "$VM_LOG" "verity-init\[[0-9]+\]: root: init failed: reading init $3 failed: Input/output error" \
		"the pre-pivot unit did not refuse $3" || return 1
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: fallback: poweroff' "verity.fail=poweroff not applied" || return 1
	vm_assert_log_contains "$VM_LOG" 'reboot: Power down' "the kernel did not power off" || return 1
	vm_assert_log_lacks "$VM_LOG" 'Starting .*Switch Root' "systemd went on to the switch"
}

# The check before the switch is verity-init-pre-pivot.service (the agent alone, no dracut hook):
# a flipped byte in /sbin/init is refused there, the fail list's poweroff taken, and systemd never
# switches to the root.
test_dracut_systemd_tampered_init_refused_before_the_switch() {
	tampered_program_refused dracut-systemd-bad-init main /sbin/init 12 || return
	vm_assert_log_contains "$VM_LOG" 'Starting .*verity-init-pre-p' "verity-init-pre-pivot.service did not run" || return
	vm_assert_log_lacks "$VM_LOG" 'dracut pre-pivot and cleanup hook' "dracut-pre-pivot.service ran for the module"
}

# Without init=, systemd's switch-root runs the new root's service manager (/lib/systemd/systemd
# on Debian), not /sbin/init: a flipped byte in it is refused before the switch too. (Without
# that check the switch happens, the manager cannot be executed, and systemd runs /sbin/init.)
test_dracut_systemd_tampered_service_manager_refused() {
	tampered_program_refused dracut-systemd-bad-manager sysmgr /lib/systemd/systemd 12
}

# A policy that allows the shell (an extra cpio archive appended to the image: the kernel unpacks
# it over the first): the pre-pivot unit hands the fail list's shell to dracut's emergency shell,
# which waits on the console. Nothing types into it: QEMU is stopped 2 s after dracut's
# emergency banner, printed right before its sulogin (a shell that ended would have the unit go on
# to the poweroff at once).
test_dracut_systemd_fallback_shell_is_dracuts_emergency_shell() {
	local d rd
	d=$(vm_workdir dracut-systemd-shell)
	vm_verity_setup ext4 "$d" >/dev/null || { fail "verity setup"; return; }
	# shellcheck source=/dev/null
	. "$d/vars"
	vm_corrupt_file "$DATA" ext4 /sbin/init >/dev/null || { fail "corrupt /sbin/init"; return; }
	mkdir -p "$d/extra/etc"
	echo "allow_shell=yes" >"$d/extra/etc/verity-init.conf"
	rd=$d/initrd-shell.img
	{ cat "$RD"; (cd "$d/extra" && find etc | cpio -o -H newc --quiet | gzip -n); } >"$rd" || { fail "image"; return; }
	vm_boot --timeout "$DR_TIMEOUT" --until 'Entering emergency mode' --disk "$DATA" --disk "$HASH" \
		dracut-systemd-shell "$rd" \
		"roothash=$ROOTHASH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb rootfstype=ext4 verity.fail=shell,poweroff"
	assertEquals "the emergency shell waits for input" 125 "$VM_STATUS"
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: root: init failed: reading init /sbin/init failed' \
		"the pre-pivot unit did not refuse init" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: fallback: shell' "the shell was not the action" || return
	vm_assert_log_contains "$VM_LOG" 'Entering emergency mode' "dracut's emergency shell did not open" || return
	vm_assert_log_lacks "$VM_LOG" 'reboot: Power down' "went on to the next action"
}

# The mapping root given another valid image's verity table between setup and pre-pivot
# (lib-dracut.sh's table-swap scenario, the systemd-swap image: the hook run by
# dracut-pre-mount.service before sysroot.mount): verity-init-pre-pivot.service refuses it
# against setup's record.
test_dracut_systemd_swapped_table_refused() {
	vm_dracut_swap_boot systemd dracut-systemd-swap
	vm_dracut_assert_swap_refused
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
