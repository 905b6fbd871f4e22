#!/bin/bash
# A real distribution over a verified root: the Debian bookworm root of lib-debian.sh (systemd
# as PID 1) boots through the standalone agent initramfs (verity-init-mkinitramfs) to
# multi-user.target with systemd reporting "running": read-only as it is, and in the layouts with
# writable state: systemd.volatile=overlay (the agent stacks a tmpfs over the verified root) and
# systemd.volatile=state (the root stays read-only, the root's systemd puts a tmpfs on /var).
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/lib-debian.sh
. "$(dirname "$0")/lib-debian.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"

# A Debian boot under TCG on a loaded 2-core host: 30-90 s; the marker waits for the boot to end.
DEB_TIMEOUT=${DEB_TIMEOUT:-240}

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 mmdebstrap mksquashfs mkfs.erofs cpio modprobe zstd || exit 1
	[ -x "$VI_STATIC" ] || { echo "no $VI_STATIC (make static)" >&2; exit 1; }
	[ -x "$VI_IMAGE" ] || { echo "no $VI_IMAGE (make)" >&2; exit 1; }
	RD=$(agent_mkinitramfs -m "virtio_pci virtio_blk" -z zstd) || exit 1
	# the same without the overlay module (the base set left out, what the root needs named)
	RD_NO_OVERLAY=$(agent_mkinitramfs --no-base-modules -f erofs -z zstd \
		-m "virtio_pci virtio_blk dm-verity algif_hash crypto-sha256") || exit 1
}

# debian_boot NAME FSTYPE WORDS... : boot the verified Debian root of FSTYPE (hash tree on the
# second disk) with the command line verity-image prints for it, and WORDS.
debian_boot() {
	local name=$1; shift
	debian_boot_verified "$name" "${DEB_RD:-$RD}" "$@"
}

test_overlay_over_the_verified_root_boots_to_running() {
	debian_boot debian-overlay erofs systemd.volatile=overlay || return
	vm_assert_booted || return
	debian_assert_running "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: root: overlay on /sysroot: /dev/mapper/root below, tmpfs /run/verity-init/overlay/upper above .*init /sbin/init read through it from the verified root' || return
	debian_assert_mount "$VM_LOG" / overlay overlay 'rw' || return
	debian_assert_mount "$VM_LOG" /usr overlay overlay 'rw' || return
	debian_assert_writable "$VM_LOG" /etc yes || return
	debian_assert_writable "$VM_LOG" /var yes || return
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS result=ok'
}

test_state_keeps_the_verified_root_read_only_with_var_on_tmpfs() {
	debian_boot debian-state squashfs systemd.volatile=state || return
	vm_assert_booted || return
	debian_assert_running "$VM_LOG" || return
	debian_assert_mount "$VM_LOG" / '/dev/(mapper/root|dm-[0-9]+)' squashfs 'ro' || return
	debian_assert_mount "$VM_LOG" /usr '/dev/(mapper/root|dm-[0-9]+)' squashfs 'ro' || return
	debian_assert_mount "$VM_LOG" /var tmpfs tmpfs 'rw' || return
	debian_assert_writable "$VM_LOG" /etc no || return
	debian_assert_writable "$VM_LOG" /var yes || return
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS result=ok'
}

# No volatile mode: the whole root, /etc and /var too, is the verified mapping, read-only.
test_read_only_root_boots_to_running() {
	debian_boot debian-ro ext4 || return
	vm_assert_booted || return
	debian_assert_running "$VM_LOG" || return
	debian_assert_mount "$VM_LOG" / '/dev/(mapper/root|dm-[0-9]+)' ext4 'ro' || return
	debian_assert_mount "$VM_LOG" /var '/dev/(mapper/root|dm-[0-9]+)' ext4 'ro' || return
	debian_assert_writable "$VM_LOG" /etc no || return
	debian_assert_writable "$VM_LOG" /var no || return
	vm_assert_log_lacks "$VM_LOG" 'verity-init\[1\]: root: overlay' "an overlay without the key" || return
	debian_assert_stands_down "$VM_LOG" root
}

# An overlay that cannot be stacked (no overlay module in the image) is a failure of the mount
# stage like any other: the status file says so, the configured fallback is taken, and nothing
# of the root runs, not even read-only without the overlay that was asked for.
test_overlay_that_cannot_be_stacked_takes_the_fallback() {
	DEB_RD=$RD_NO_OVERLAY debian_boot debian-no-overlay erofs systemd.volatile=overlay || return
	vm_assert_booted || return
	agent_assert_refused "$VM_LOG" mount 'overlay: mounting the overlay on /sysroot failed: No such device \(no overlay module in the initramfs\?\)' || return
	agent_assert_fallback "$VM_LOG" poweroff || return
	vm_assert_log_lacks "$VM_LOG" 'VERITY-TEST-MARKER|Welcome to' "the root's init ran"
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
