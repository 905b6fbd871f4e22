#!/bin/bash
# The harness's own scenario: a standalone initramfs whose /init is init-dmsetup.sh
# creates the verity mapping with dmsetup and switches root. Also checks the harness's own image
# builders and corruption helpers on the host (veritysetup verify needs no device-mapper).
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 veritysetup dmsetup mkfs.ext4 debugfs mksquashfs \
		mkfs.erofs sgdisk cpio modprobe busybox || exit 1
	RD=$(vm_script_initramfs) || exit 1
}

# shellcheck disable=SC2153  # DATA, HASH, ROOTHASH, DISK, HASH_OFFSET come from DIR/vars
# boot_two_disks NAME DIR FSTYPE : boot DIR/data.img + DIR/hash.img with the script init.
boot_two_disks() {
	local name=$1 dir=$2 fs=$3
	# shellcheck source=/dev/null
	. "$dir/vars"
	vm_boot --disk "$DATA" --disk "$HASH" "$name" "$RD" \
		"roothash=$ROOTHASH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb rootfstype=$fs"
}

# Good boots: marker printed, / is the mapper device, read-only, of the right type. The ext4 one
# is the late-device boot below (its hash disk hot-plugged: the root is the same).
good_boot() {
	local fs=$1 d
	d=$(vm_workdir "dmsetup-good-$fs")
	vm_verity_setup "$fs" "$d" >/dev/null || { fail "verity setup ($fs)"; return; }
	boot_two_disks "dmsetup-good-$fs" "$d" "$fs"
	good_asserts "$fs"
}

good_asserts() {   # FSTYPE
	vm_assert_booted || return 1
	vm_assert_marker "$VM_LOG" main || return 1
	vm_assert_root_mapper "$VM_LOG" root "$1" || return 1
	vm_assert_log_contains "$VM_LOG" 'init-dmsetup: status: 0 [0-9]+ verity V' \
		"dm-verity status is not V (verified)"
}

test_dmsetup_ext4_boots_verified_root() {
	vm_shared_boot late-device late_device_boot
	good_asserts ext4
}
test_dmsetup_squashfs_boots_verified_root() { good_boot squashfs; }

# Negative twin: one byte of /sbin/init's data block flipped (inside its comment line, so the
# script itself would still run: only dm-verity can stop the marker).
bad_init_boot() {
	local fs=$1 d off
	d=$(vm_workdir "dmsetup-bad-init-$fs")
	vm_verity_setup "$fs" "$d" >/dev/null || { fail "verity setup ($fs)"; return; }
	off=$(vm_corrupt_file "$d/data.img" "$fs" /sbin/init) || { fail "corrupt /sbin/init"; return; }
	boot_two_disks "dmsetup-bad-init-$fs" "$d" "$fs"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	# The mapping and the mount succeed (dm-verity checks on read); the kernel refuses the
	# block holding init, so exec fails and PID 1 dies.
	vm_assert_log_contains "$VM_LOG" 'init-dmsetup: switch_root' "never reached switch_root" || return
	vm_assert_log_contains "$VM_LOG" "device-mapper: verity: [0-9]+:[0-9]+: data block $(( off / 4096 )) is corrupted" \
		"no dm-verity error for data block $(( off / 4096 ))" || return
	vm_assert_log_contains "$VM_LOG" "can't execute '/sbin/init'|Attempted to kill init" \
		"init exec failure not logged"
}

test_dmsetup_ext4_flipped_init_byte_refused() { bad_init_boot ext4; }
test_dmsetup_erofs_flipped_init_byte_refused() { bad_init_boot erofs; }

# Hash area after the data on one device (--hash-offset), erofs root.
test_dmsetup_erofs_hash_offset_boots() {
	local d
	d=$(vm_workdir dmsetup-erofs-combined)
	vm_verity_setup_combined erofs "$d" >/dev/null || { fail "verity setup"; return; }
	# shellcheck source=/dev/null
	. "$d/vars"
	vm_boot --disk "$DISK" dmsetup-erofs-combined "$RD" \
		"roothash=$ROOTHASH systemd.verity_root_data=/dev/vda systemd.verity_root_options=hash-offset=$HASH_OFFSET rootfstype=erofs"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root erofs
}

# A device that appears late: the hash disk is hot-plugged once the script waits for it.
late_device_boot() {
	local d
	d=$(vm_workdir dmsetup-late-device)
	vm_verity_setup ext4 "$d" >/dev/null || return 1
	# shellcheck source=/dev/null
	. "$d/vars"
	vm_boot --disk "$DATA" --hotadd 'log:init-dmsetup: waiting for' "$HASH" dmsetup-late-device "$RD" \
		"roothash=$ROOTHASH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb rootfstype=ext4 verity.timeout=60"
}

test_dmsetup_late_hash_device_is_used() {
	vm_shared_boot late-device late_device_boot
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" 'init-dmsetup: waiting for /dev/vda /dev/vdb' || return
	# vdb appeared after the script started waiting, and was used.
	vm_assert_log_order "$VM_LOG" 'init-dmsetup: waiting for' '\[vdb\]' || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root ext4
}

# The harness's own failure paths: a boot that never ends is killed at the timeout, reported as
# 124 with the log tail, and fails vm_assert_booted.
test_harness_timeout_kills_a_hung_boot() {
	local r err=$SHUNIT_TMPDIR/timeout.err
	vm_boot --timeout 4 harness-timeout "$RD" \
		"roothash=00 systemd.verity_root_data=/dev/vdz verity.timeout=600" 2>"$err"
	r=$?
	assertEquals "vm_boot status on timeout" 124 "$r"
	# QEMU gets SIGTERM at 4 s, SIGKILL 5 s later at worst.
	assertTrue "killed near the timeout, not later (${VM_WALL}s)" "awk 'BEGIN { exit !($VM_WALL < 10) }'"
	assertTrue "timeout message printed" "grep -q 'harness-timeout: TIMEOUT after 4s' '$err'"
	assertTrue "log tail printed" "grep -q '^    | ' '$err'"
	assertFalse "vm_assert_booted must fail" "( fail() { return 0; }; vm_assert_booted ) 2>/dev/null"
	assertFalse "no QEMU left running" \
		"grep -l 'harness-timeout[.]log' /proc/[0-9]*/cmdline 2>/dev/null | grep -q ."
}

# --- host-side checks of the builders (no boot) -----------------------------------------------
# The assertion helpers fail on logs they must reject (run in a subshell with fail() recording).
assert_rejects() {   # DESCRIPTION COMMAND...
	local d=$1; shift
	# shellcheck disable=SC2317  # fail is called by the helper
	assertEquals "$d" FAILED "$( { ( fail() { echo FAILED >&3; }; "$@" >/dev/null 2>&1 ) 3>&1; } | head -n1)"
}
assert_accepts() {
	local d=$1; shift
	# shellcheck disable=SC2317
	assertEquals "$d" "" "$( { ( fail() { echo FAILED >&3; }; "$@" >/dev/null 2>&1 ) 3>&1; } | head -n1)"
}

test_assertions_reject_wrong_logs() {
	local l=$SHUNIT_TMPDIR/log
	printf '[ 1.0] x\nVERITY-TEST-MARKER id=main uptime=3.10 root=/dev/mapper/root / ext4 ro,relatime 0 0\n' >"$l"
	assert_accepts "good marker" vm_assert_marker "$l" main
	assert_accepts "good root" vm_assert_root_mapper "$l" root ext4
	assertEquals "uptime" 3.10 "$(vm_marker_uptime "$l")"
	assert_rejects "other id" vm_assert_marker "$l" recovery
	assert_rejects "other name" vm_assert_root_mapper "$l" other
	assert_rejects "other type" vm_assert_root_mapper "$l" root squashfs
	assert_rejects "marker present" vm_assert_no_marker "$l"
	assert_rejects "regex absent" vm_assert_log_contains "$l" 'data block [0-9]+ is corrupted'
	assert_rejects "regex present" vm_assert_log_lacks "$l" 'VERITY-TEST'
	assert_accepts "order" vm_assert_log_order "$l" 'x$' 'VERITY-TEST'
	assert_rejects "reverse order" vm_assert_log_order "$l" 'VERITY-TEST' 'x$'
	assert_rejects "order, one absent" vm_assert_log_order "$l" 'x$' 'absent'
	assertEquals "kernel time" 1.0 "$(vm_log_time "$l" 'x$')"
	printf 'VERITY-TEST-MARKER id=main uptime=3.10 root=/dev/mapper/root / ext4 rw,relatime 0 0\n' >"$l"
	assert_rejects "read-write root" vm_assert_root_mapper "$l" root ext4
	printf 'VERITY-TEST-MARKER id=main uptime=3.10 root=/dev/vda / ext4 ro,relatime 0 0\n' >"$l"
	assert_rejects "unverified device" vm_assert_root_mapper "$l" root ext4
	printf '[ 3.0] Kernel panic\n' >"$l"
	assert_rejects "no marker" vm_assert_marker "$l"
	assert_accepts "no marker wanted" vm_assert_no_marker "$l"
	assert_rejects "no marker, no root" vm_assert_root_mapper "$l" root
}

test_images_are_reproducible() {
	local fs a b
	for fs in ext4 squashfs erofs; do
		a=$(vm_base_image "$fs") || { fail "base image $fs"; return; }
		b=$SHUNIT_TMPDIR/again.$fs
		_vm_build_base "$fs" main "$b" || { fail "rebuild $fs"; return; }
		assertEquals "$fs image differs when rebuilt" "$(sha256sum <"$a")" "$(sha256sum <"$b")"
	done
}

test_corruption_helpers_break_verification() {
	local fs d rh
	for fs in ext4 squashfs erofs; do
		d=$SHUNIT_TMPDIR/c-$fs
		rh=$(vm_verity_setup "$fs" "$d") || { fail "setup $fs"; return; }
		assertTrue "$fs: fresh image must verify" "veritysetup verify $d/data.img $d/hash.img $rh"
		vm_corrupt_file "$d/data.img" "$fs" /sbin/init >/dev/null || { fail "corrupt $fs"; return; }
		assertFalse "$fs: flipped init byte must fail verify" \
			"veritysetup verify $d/data.img $d/hash.img $rh 2>/dev/null"
	done
	d=$SHUNIT_TMPDIR/c-hash
	rh=$(vm_verity_setup ext4 "$d") || { fail "setup"; return; }
	vm_corrupt_hash_block "$d/hash.img" 0 0 >/dev/null
	assertFalse "flipped hash block must fail verify" "veritysetup verify $d/data.img $d/hash.img $rh 2>/dev/null"
	rh=$(vm_verity_setup ext4 "$d") || { fail "setup"; return; }
	vm_corrupt_superblock "$d/hash.img" 0 salt >/dev/null
	assertFalse "tampered superblock must fail verify" "veritysetup verify $d/data.img $d/hash.img $rh 2>/dev/null"
	rh=$(vm_verity_setup_combined ext4 "$d") || { fail "setup combined"; return; }
	# shellcheck source=/dev/null
	. "$d/vars"
	assertTrue "combined image must verify" \
		"veritysetup verify --hash-offset=$HASH_OFFSET $DISK $DISK $rh"
}

# The harness formats with verity-image once it is built: it must agree with veritysetup byte for
# byte (hash image and root hash), with and without a separate hash device.
test_formatters_agree() {
	local fs base rh1 rh2 off d=$SHUNIT_TMPDIR/fmt
	[ -x "$BUILD/verity-image" ] || { startSkipping; fail "no $BUILD/verity-image"; return; }
	mkdir -p "$d"
	for fs in ext4 squashfs erofs; do
		base=$(vm_base_image "$fs") || { fail "base $fs"; return; }
		cp "$base" "$d/a"; cp "$base" "$d/b"; rm -f "$d/ha" "$d/hb"
		rh1=$(vm_verity_format veritysetup "$d/a" "$d/ha") || { fail "veritysetup $fs"; return; }
		rh2=$(vm_verity_format verity-image "$d/b" "$d/hb") || { fail "verity-image $fs"; return; }
		assertEquals "$fs root hash" "$rh1" "$rh2"
		assertTrue "$fs hash images identical" "cmp -s $d/ha $d/hb"
		off=$(vm_size "$d/a")
		rh1=$(vm_verity_format veritysetup "$d/a" "$d/a" --hash-offset="$off") || { fail "vs $fs"; return; }
		rh2=$(vm_verity_format verity-image "$d/b" "$d/b" --hash-offset="$off") || { fail "vi $fs"; return; }
		assertEquals "$fs root hash (hash offset)" "$rh1" "$rh2"
		assertTrue "$fs combined images identical" "cmp -s $d/a $d/b"
	done
}

test_gpt_partuuids_follow_roothash() {
	local d rh
	d=$SHUNIT_TMPDIR/gpt
	rh=$(vm_verity_setup_gpt ext4 "$d") || { fail "gpt setup"; return; }
	# shellcheck source=/dev/null
	. "$d/vars"
	assertEquals "data PARTUUID" "$(vm_roothash_uuid "$rh" first)" \
		"$(sgdisk -i 1 "$DISK" | sed -n 's/^Partition unique GUID: //p' | tr 'A-F' 'a-f')"
	assertEquals "hash PARTUUID" "$(vm_roothash_uuid "$rh" last)" \
		"$(sgdisk -i 2 "$DISK" | sed -n 's/^Partition unique GUID: //p' | tr 'A-F' 'a-f')"
	assertContains "data type" "$(sgdisk -i 1 "$DISK" | tr 'a-f' 'A-F')" "${VM_GPT_TYPE_ROOT^^}"
	# The partitions' contents verify against the root hash.
	dd if="$DISK" of="$d/p1" bs=4096 skip=$(( DATA_OFFSET / 4096 )) count=$(( $(vm_size "$DATA") / 4096 )) status=none
	dd if="$DISK" of="$d/p2" bs=4096 skip=$(( HASH_PART_OFFSET / 4096 )) count=$(( $(vm_size "$HASH") / 4096 )) status=none
	assertTrue "partitions verify" "veritysetup verify $d/p1 $d/p2 $rh"
}

test_initramfs_lists_modules_in_dependency_order() {
	local rd list
	rd=$(vm_script_initramfs) || { fail "initramfs"; return; }
	list=$(zcat "$rd" | cpio --quiet -i --to-stdout etc/verity-init/modules)
	assertContains "$list" "/dm-verity.ko"
	assertContains "$list" "/virtio_blk.ko"
	# dm-mod before dm-bufio before dm-verity; virtio before virtio_blk.
	assertTrue "dm-mod, dm-bufio, dm-verity in that order" "printf '%s\\n' '$list' |
		awk '/dm-mod\\.ko/{a=NR} /dm-bufio\\.ko/{b=NR} /dm-verity\\.ko/{c=NR} END{exit !(a && a<b && b<c)}'"
	assertTrue "virtio before virtio_blk" "printf '%s\\n' '$list' |
		awk '/\\/virtio\\.ko/{a=NR} /virtio_blk\\.ko/{b=NR} END{exit !(a && a<b)}'"
	assertEquals "each module once" "$(printf '%s\n' "$list" | sort | uniq -d)" ""
	# Every listed module is in the archive at that path.
	local ko missing=""
	for ko in $list; do
		zcat "$rd" | cpio --quiet -t 2>/dev/null | grep -qx "${ko#/}" || missing="$missing $ko"
	done
	assertEquals "modules missing from the archive" "" "$missing"
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
