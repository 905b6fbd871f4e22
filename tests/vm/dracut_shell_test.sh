#!/bin/bash
# shellcheck disable=SC2153 # DATA, HASH, ROOTHASH come from a vars file (vm_verity_setup)
# dracut (shell init) + the verity-init module, real images booted in QEMU (issue 5).
# One image (tests/vm/lib-dracut.sh, built from `make install DESTDIR=...`), reused by every
# scenario: only the kernel command line differs.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

# dracut boots are slow on TCG (udev start-up and the device scan dominate)
DR_TIMEOUT=${VM_DRACUT_TIMEOUT:-300}

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 dracut veritysetup mkfs.ext4 mksquashfs || exit 1
	RD=$(vm_dracut_image shell) || exit 1
}

# setup_root NAME FSTYPE : fresh DIR with data.img + hash.img; sets D and the vars (ROOTHASH...)
setup_root() {
	D=$(vm_workdir "$1")
	vm_verity_setup "$2" "$D" >/dev/null || return 1
	# shellcheck source=/dev/null
	. "$D/vars"
}

# The unverified devices (vda/vdb) were never mounted; only dm devices may hold a file system.
assert_no_unverified_mount() {
	vm_assert_log_lacks "$VM_LOG" '(EXT4-fs|SQUASHFS|erofs)[^:]*\(vd[a-z]' \
		"a file system on an unverified device was mounted"
}

# Our keys on an ext4 root whose hash device is hot-added only once the setup job reports it is
# waiting for it (vm_boot --hotadd log:REGEX), so the device is late by construction: one boot
# for the good boot with our keys and for the late device (a device the job waited for is used
# as one that was there).
ours_late_boot() {
	setup_root dracut-shell-ours-late ext4 || return 1
	vm_boot --timeout "$DR_TIMEOUT" --disk "$DATA" \
		--hotadd 'log:verity-init\[[0-9]+\]: root: waiting up to .*/dev/vdb' "$HASH" \
		dracut-shell-ours-late "$RD" \
		"verity.roothash=$ROOTHASH verity.data=/dev/vda verity.hash=/dev/vdb rootfstype=ext4 verity.timeout=$DR_TIMEOUT"
}

test_dracut_shell_good_boot_our_keys() {
	vm_shared_boot ours-late ours_late_boot
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" main || return
	# no root= given: the module pointed dracut at the mapping, read-only, without fsck
	vm_assert_root_mapper "$VM_LOG" root ext4 || return
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS result=ok' "agent status is not ok" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: init /sbin/init read completely' \
		"pre-pivot init check did not run" || return
	vm_assert_log_lacks "$VM_LOG" '^\[[ 0-9.]+\] .*fsck' "fsck ran on the read-only root" || return
	assert_no_unverified_mount
}

test_dracut_shell_good_boot_systemd_keys() {
	setup_root dracut-shell-systemd-keys squashfs || { fail "verity setup"; return; }
	vm_boot --timeout "$DR_TIMEOUT" --disk "$DATA" --disk "$HASH" dracut-shell-systemd-keys "$RD" \
		"roothash=$ROOTHASH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root squashfs || return
	assert_no_unverified_mount
}

test_dracut_shell_wrong_root_hash_refused() {
	local bad
	setup_root dracut-shell-wrong-hash ext4 || { fail "verity setup"; return; }
	# last digit changed: a well-formed hash of the right length that does not match
	bad=${ROOTHASH%?}$(case ${ROOTHASH: -1} in 0) echo 1 ;; *) echo 0 ;; esac)
	vm_boot --timeout "$DR_TIMEOUT" --disk "$DATA" --disk "$HASH" dracut-shell-wrong-hash "$RD" \
		"verity.roothash=$bad verity.data=/dev/vda verity.hash=/dev/vdb rootfstype=ext4 verity.fail=reboot"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: root: [a-z-]+ failed: .*' \
		"no refusal logged" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: fallback: reboot' \
		"verity.fail=reboot not applied" || return
	vm_assert_log_contains "$VM_LOG" '(reboot: Restarting system|sysrq: Resetting)' "the kernel did not reboot" || return
	# refused before activation: nothing mounted at all
	vm_assert_log_lacks "$VM_LOG" '(EXT4-fs|SQUASHFS|erofs)[^:]*\((vd[a-z]|dm-)' \
		"a file system was mounted" || return
	vm_assert_log_lacks "$VM_LOG" 'Mounted root filesystem' "dracut mounted a root"
}

# An image built with the module boots a verified root: a command line without any root hash
# (an edited bootloader entry) is refused, root= naming the data device is never mounted.
test_dracut_shell_missing_roothash_refused() {
	setup_root dracut-shell-no-hash ext4 || { fail "verity setup"; return; }
	vm_boot --timeout "$DR_TIMEOUT" --disk "$DATA" --disk "$HASH" dracut-shell-no-hash "$RD" \
		"root=/dev/vda rootfstype=ext4 verity.fail=reboot"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: no root hash on the command line' \
		"no refusal logged" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: fallback: reboot' \
		"verity.fail=reboot not applied" || return
	vm_assert_log_contains "$VM_LOG" '(reboot: Restarting system|sysrq: Resetting)' "the kernel did not reboot" || return
	vm_assert_log_lacks "$VM_LOG" '(EXT4-fs|SQUASHFS|erofs)[^:]*\((vd[a-z]|dm-)' \
		"a file system was mounted"
}

# A flipped byte in /sbin/init: setup and mount succeed (dm-verity checks on read); the pre-pivot
# check reads init, the kernel refuses the block, and verity.fail=recovery,poweroff boots the
# recovery root (vdc/vdd) in its place.
test_dracut_shell_tampered_init_refused() {
	local off r
	setup_root dracut-shell-bad-init ext4 || { fail "verity setup"; return; }
	off=$(vm_corrupt_file "$DATA" ext4 /sbin/init) || { fail "corrupt /sbin/init"; return; }
	r=$D/recovery
	VM_ROOT_ID=recovery vm_verity_setup ext4 "$r" >/dev/null || { fail "recovery setup"; return; }
	vm_boot --timeout "$DR_TIMEOUT" --disk "$DATA" --disk "$HASH" --disk "$r/data.img" \
		--disk "$r/hash.img" dracut-shell-bad-init "$RD" \
		"verity.roothash=$ROOTHASH verity.data=/dev/vda verity.hash=/dev/vdb rootfstype=ext4 verity.fail=recovery,poweroff verity.recovery.roothash=$(sed -n 's/^ROOTHASH=//p' "$r/vars") verity.recovery.data=/dev/vdc verity.recovery.hash=/dev/vdd"
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" "device-mapper: verity: [0-9]+:[0-9]+: data block $(( off / 4096 )) is corrupted" \
		"dm-verity did not report the corrupted block" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: root: init failed: reading init /sbin/init failed: Input/output error' \
		"pre-pivot check did not refuse init" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: fallback: setting up the recovery root as root' \
		"verity.fail=recovery not applied" || return
	# the tampered root's init never ran; the recovery root's did, and sees why
	vm_assert_marker "$VM_LOG" recovery || return
	vm_assert_root_mapper "$VM_LOG" root ext4 || return
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS result=failed' "status does not say failed" || return
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS reason=reading init /sbin/init failed: Input/output error' \
		"status lacks the reason" || return
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS action=recovery' "status lacks the action" || return
	assert_no_unverified_mount
}

# Between setup and pre-pivot the mapping root gets the verity table of another valid image
# (lib-dracut.sh's table-swap scenario, the shell-swap image): pre-pivot compares the live table
# with setup's record and refuses it; neither root's init runs, the kernel restarts.
test_dracut_shell_swapped_table_refused() {
	vm_dracut_swap_boot shell dracut-shell-swap
	vm_dracut_assert_swap_refused || return
	vm_assert_log_contains "$VM_LOG" '(reboot: Restarting system|sysrq: Resetting)' "the kernel did not reboot"
}

# rd.break on the command line of an image whose policy allows no shell: refused in the cmdline
# hook, the policy applied at once (panic: the refused line's verity.fail= is not used), no
# breakpoint shell later.
test_dracut_shell_rd_break_refused() {
	setup_root dracut-shell-rd-break ext4 || { fail "verity setup"; return; }
	vm_boot --timeout "$DR_TIMEOUT" --disk "$DATA" --disk "$HASH" dracut-shell-rd-break "$RD" \
		"verity.roothash=$ROOTHASH verity.data=/dev/vda verity.hash=/dev/vdb rootfstype=ext4 rd.break=pre-mount verity.fail=reboot"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" \
		"verity-init\\[[0-9]+\\]: policy: 'rd.break' opens a root shell" \
		"rd.break not refused" || return
	# nothing of a refused line is used, not its verity.fail=: the policy's default, panic
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: fallback: panic' \
		"the policy was not applied" || return
	vm_assert_log_lacks "$VM_LOG" 'fallback: reboot' "the refused line's verity.fail= was used" || return
	vm_assert_log_contains "$VM_LOG" 'Kernel panic' "the kernel did not panic" || return
	vm_assert_log_lacks "$VM_LOG" 'Break before' "a dracut breakpoint shell was reached" || return
	assert_no_unverified_mount
}

# dracut.conf's realinitpath= would put rd.distroinit= (an init nobody checks) into every image's
# command line: the build itself is refused, with the reason, and writes no image.
test_dracut_shell_realinitpath_build_refused() {
	local d out
	d=$(vm_workdir dracut-realinitpath)
	rm -rf "$d/conf" "$d/initrd.img" && mkdir -p "$d/conf" || { fail "workdir"; return; }
	echo 'realinitpath="/usr/lib/other/init"' >"$d/conf/50-realinit.conf"
	out=$(vm_dracut_initramfs "$d/initrd.img" --confdir "$d/conf" 2>&1)
	assertNotEquals "dracut built an image with realinitpath= ($out)" 0 $?
	assertTrue "an image was written" "[ ! -s '$d/initrd.img' ]"
	assertContains "the reason, from the module" "$(cat "$d/initrd.img.log")" \
		"cannot be used with realinitpath=\"/usr/lib/other/init\""
}

# rd.shell=false opens dracut's shell (its getargbool counts only 0/no/off as off) and, from the
# kernel's command line, overrides the module's rd.shell=0 in cmdline.d: refused like rd.shell.
# After "--" too: the kernel hands those words to init, but dracut's getarg reads them.
test_dracut_shell_rd_shell_false_refused() {
	setup_root dracut-shell-rd-shell-false ext4 || { fail "verity setup"; return; }
	vm_boot --timeout "$DR_TIMEOUT" --disk "$DATA" --disk "$HASH" dracut-shell-rd-shell-false "$RD" \
		"verity.roothash=$ROOTHASH verity.data=/dev/vda verity.hash=/dev/vdb rootfstype=ext4 -- rd.shell=false"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" \
		"verity-init\\[[0-9]+\\]: command line refused: command line: 'rd.shell' after '--' is an argument for init" \
		"rd.shell=false not refused" || return
	vm_assert_log_contains "$VM_LOG" 'Kernel panic' "the kernel did not panic" || return
	vm_assert_log_lacks "$VM_LOG" 'Dropping to debug shell' "dracut's emergency shell was reached" || return
	assert_no_unverified_mount
}

# A /usr listed in the verified root's fstab on another, unverified device: dracut's usrmount
# mounts it in pre-pivot (priority 50) and /sbin/init -> /usr/sbin/init would run from it. The
# module's check (priority 90) finds init on a device other than the mapping and refuses.
test_dracut_shell_init_on_unverified_usr_refused() {
	local t rh
	D=$(vm_workdir dracut-shell-usr)
	t=$D/tree
	rm -rf "$t" && vm_rootfs_tree "$t/root" main || { fail "root tree"; return; }
	mkdir -p "$t/root/usr/sbin" "$t/usr/sbin" &&
		mv "$t/root/sbin/init" "$t/root/usr/sbin/init" &&
		ln -s /usr/sbin/init "$t/root/sbin/init" &&
		echo "/dev/vdc /usr ext4 ro 0 0" >"$t/root/etc/fstab" &&
		vm_root_init_script unverified >"$t/usr/sbin/init" && chmod 0755 "$t/usr/sbin/init" &&
		vm_mkfs ext4 "$t/root" "$D/data.img" && vm_mkfs ext4 "$t/usr" "$D/usr.img" ||
		{ fail "images"; return; }
	rm -f "$D/hash.img"
	rh=$(vm_verity_format "$VM_VERITY_TOOL" "$D/data.img" "$D/hash.img") || { fail "format"; return; }
	RD_USR=${RD_USR:-$(vm_dracut_image shell-usrmount)} || { fail "dracut image"; return; }
	vm_boot --timeout "$DR_TIMEOUT" --disk "$D/data.img" --disk "$D/hash.img" --disk "$D/usr.img" \
		dracut-shell-usr "$RD_USR" \
		"verity.roothash=$rh verity.data=/dev/vda verity.hash=/dev/vdb rootfstype=ext4 verity.fail=reboot"
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" 'EXT4-fs \(vdc\)' "usrmount did not mount the unverified /usr" || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" \
		'verity-init\[[0-9]+\]: root: init failed: init /sbin/init is on device [0-9]+:[0-9]+, not on the verified mapping' \
		"pre-pivot check did not refuse init from /usr" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: fallback: reboot' \
		"verity.fail=reboot not applied" || return
	vm_assert_log_contains "$VM_LOG" '(reboot: Restarting system|sysrq: Resetting)' "the kernel did not reboot"
}

test_dracut_shell_late_device() {
	vm_shared_boot ours-late ours_late_boot
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: root: waiting up to [0-9]+ s: device /dev/vdb not found' \
		"the hash device was not late" || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root ext4
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
