#!/bin/bash
# Tampering on a real distribution: the Debian root of lib-debian.sh (ext4, so that debugfs finds
# any file's blocks) with one flipped byte, booted through the standalone agent initramfs as
# debian_root_test.sh boots it. A flip in systemd itself (what /sbin/init resolves to) is refused
# by the agent's init check before the switch and the configured fallback is taken; a flip in a
# unit file that only the root's systemd reads, after the switch, is left to dm-verity's
# corruption mode: the kernel restarts (restart-on-corruption) or panics (panic-on-corruption).
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/lib-debian.sh
. "$(dirname "$0")/lib-debian.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"

DEB_TIMEOUT=${DEB_TIMEOUT:-240}
# /sbin/init -> /lib/systemd/systemd; /lib is /usr/lib (merged /usr)
SYSTEMD_BIN=/usr/lib/systemd/systemd
# systemd-journald.service is pulled in by sysinit.target on every boot; the initramfs never
# reads it. Byte 5 of its first block is inside its leading comment ("#  SPDX-License-..."):
# the unit would still load if the flip went unnoticed, so only dm-verity can stop the boot.
LATE_FILE=/usr/lib/systemd/system/systemd-journald.service
LATE_BYTE=5

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 mmdebstrap debugfs dumpe2fs cpio modprobe zstd || exit 1
	[ -x "$VI_STATIC" ] || { echo "no $VI_STATIC (make static)" >&2; exit 1; }
	[ -x "$VI_IMAGE" ] || { echo "no $VI_IMAGE (make)" >&2; exit 1; }
	RD=$(agent_mkinitramfs -m "virtio_pci virtio_blk" -z zstd) || exit 1
	debian_verity ext4 || exit 1
	CMDLINE=$("$VI_IMAGE" cmdline "$DEB_HASH" /dev/vda /dev/vdb "$DEB_ROOTHASH") || exit 1
}

# tampered_boot NAME PATH BLOCK BYTE MODE WORDS... : a copy of the verified ext4 root with one
# byte of PATH flipped (BYTE of its data block BLOCK), booted against the untouched hash tree;
# MODE (restart-on-corruption, panic-on-corruption, or - for none) joins the options verity-image
# printed for the image.
tampered_boot() {
	local name=$1 path=$2 blk=$3 byte=$4 mode=$5 w off words=$CMDLINE; shift 5
	[ "$mode" = - ] || words=${words/systemd.verity_root_options=/systemd.verity_root_options=$mode,}
	w=$(vm_workdir "$name")
	cp --sparse=always "$DEB_DATA" "$w/data.img" || { fail "copy of the root image"; return 1; }
	off=$(vm_corrupt_file "$w/data.img" ext4 "$path" "$blk" "$byte") ||
		{ fail "flipping a byte of $path"; return 1; }
	vm_log "$name: flipped the byte at $off ($path, block $blk)"
	# the block dm-verity must name (4 KiB blocks: the image's and the mapping's)
	TAMPERED_BLOCK=$(( off / 4096 ))
	vm_boot --timeout "$DEB_TIMEOUT" --mem "$DEB_MEM" --disk "$w/data.img" --disk "$DEB_HASH" \
		"$name" "$RD" "$words root=/dev/mapper/root $*"
	rm -f "$w/data.img"
}

# A block in the middle of systemd: the init check reads the whole binary through the verified
# mapping, so the flip is found before anything of the root runs.
test_tampered_systemd_is_refused_before_the_switch() {
	tampered_boot debian-tamper-init "$SYSTEMD_BIN" 4 100 - verity.fail=poweroff || return
	vm_assert_booted || return
	agent_assert_refused "$VM_LOG" init 'reading init /sbin/init failed: Input/output error' || return
	vm_assert_log_contains "$VM_LOG" "device-mapper: verity: .*: data block $TAMPERED_BLOCK is corrupted" \
		"dm-verity did not report the flipped block" || return
	agent_assert_fallback "$VM_LOG" poweroff || return
	vm_assert_log_lacks "$VM_LOG" 'Welcome to|systemd\[1\]' "the root's systemd ran"
}

# after_switch_assert LOG : the agent found nothing wrong before the switch, and the root's
# systemd was running when dm-verity met the flipped block.
after_switch_assert() {
	vm_assert_log_contains "$1" 'verity-init\[1\]: exec /sbin/init' "the agent did not switch" ||
		return 1
	vm_assert_log_contains "$1" 'systemd\[1\]: systemd [0-9].* running in system mode' \
		"the root's systemd did not start" || return 1
	vm_assert_log_contains "$1" "device-mapper: verity: .*: data block $TAMPERED_BLOCK is corrupted" \
		"dm-verity did not report the flipped block" || return 1
	vm_assert_no_marker "$1"
}

test_tampered_unit_file_restarts_with_restart_on_corruption() {
	tampered_boot debian-tamper-restart "$LATE_FILE" 0 "$LATE_BYTE" \
		restart-on-corruption verity.fail=poweroff || return
	vm_assert_booted || return
	after_switch_assert "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" "reboot: Restarting system with command 'dm-verity device corrupted'" \
		"no restart by dm-verity" || return
	vm_assert_log_lacks "$VM_LOG" 'Kernel panic' "a panic instead of the restart"
}

test_tampered_unit_file_panics_with_panic_on_corruption() {
	tampered_boot debian-tamper-panic "$LATE_FILE" 0 "$LATE_BYTE" \
		panic-on-corruption verity.fail=poweroff || return
	vm_assert_booted || return
	after_switch_assert "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" 'Kernel panic - not syncing: dm-verity device corrupted' \
		"no panic by dm-verity"
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
