#!/bin/bash
# dracut images made as a user of the distribution makes them: the Debian 12 root of
# lib-debian.sh with dracut 059 and the packages of `make deb` (verity-init, verity-init-dracut)
# installed by mmdebstrap, the initramfs generated inside that root by its own dracut from the
# module the package installed (tests/vm/debian-dracut-hook.sh), not from the build tree. That
# root, verified, boots to multi-user.target with systemd reporting "running": through both
# flavours (dracut's shell init, systemd in the initramfs) with systemd.volatile=overlay (the
# agent's pre-pivot stacks the overlay in both; init read through it); through the shell flavour
# with root and /usr both verified (the root without its /usr, the /usr image of lib-debian.sh on
# a GPT disk) and with usrhash= alone and systemd.volatile=yes (a tmpfs root, /usr found by the
# Discoverable Partitions). The other cells of layout and flavour (state in both, root + /usr and
# usrhash= under systemd, a tampered /usr) boot on Debian 13 (tests/vm/debian13_test.sh; docs/testing.md,
# "Debian releases and kernels").
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/lib-debian.sh
. "$(dirname "$0")/lib-debian.sh"

DEB_PKGDIR=${DEB_PKGDIR:-$BUILD/deb}
# dracut under TCG: udev start-up and the device scan add 10-20 s to the Debian boot
DEB_TIMEOUT=${DEB_TIMEOUT:-300}

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 mmdebstrap mksquashfs mkfs.erofs || exit 1
	[ -x "$VI_IMAGE" ] || { echo "no $VI_IMAGE (make)" >&2; exit 1; }
	# the packages of the tree under test, made again when missing or older than a source
	if [ "$DEB_PKGDIR" = "$BUILD/deb" ]; then debian_make_deb || exit 1; fi
	debian_use_packages "$DEB_PKGDIR" || exit 1
}

# overlay_asserts LOG HOW : running, / an overlay (writable, lost at power-off), init read
# through it from the verified root; HOW: who stacked it (pre-pivot, in both flavours).
overlay_asserts() {
	debian_assert_running "$1" || return 1
	debian_assert_mount "$1" / overlay overlay 'rw' || return 1
	debian_assert_writable "$1" /etc yes || return 1
	debian_assert_writable "$1" /var yes || return 1
	vm_assert_log_contains "$1" 'VERITY-TEST-STATUS result=ok' "the agent's status is not ok" ||
		return 1
	vm_assert_log_contains "$1" "verity-init\[[0-9]+\]: init /sbin/init read completely through the overlay $2 \(root below" \
		"init was not read through the overlay ($2)"
}

test_dracut_shell_overlay_boots_to_running() {
	debian_dracut_boot debian-dracut-shell-overlay shell erofs systemd.volatile=overlay || return
	vm_assert_booted || return
	overlay_asserts "$VM_LOG" 'stacked here'
}

test_dracut_systemd_overlay_boots_to_running() {
	debian_dracut_boot debian-dracut-systemd-overlay systemd squashfs systemd.volatile=overlay || return
	vm_assert_booted || return
	overlay_asserts "$VM_LOG" 'stacked here'
}

# root_usr_asserts LOG WHO : running, / and /usr the two verified mappings, read-only; init read
# through the layout, /usr mounted by WHO.
root_usr_asserts() {
	debian_assert_running "$1" || return 1
	debian_assert_mount "$1" / '/dev/(mapper/root|dm-[0-9]+)' erofs 'ro' || return 1
	debian_assert_mount "$1" /usr '/dev/(mapper/usr|dm-[0-9]+)' erofs 'ro' || return 1
	debian_assert_writable "$1" /etc no || return 1
	vm_assert_log_contains "$1" 'VERITY-TEST-STATUS usrhash='"$DEB_USRHASH" || return 1
	vm_assert_log_contains "$1" "verity-init\[[0-9]+\]: init /sbin/init read completely through the layout root\+usr \(/usr: usr $2 /sysroot/usr\)" \
		"init was not read through root+usr"
}

test_dracut_shell_root_and_usr_boot_to_running() {
	{ debian_usr_disk && debian_rest_root; } || { fail "the root and /usr images"; return; }
	debian_usr_boot debian-dracut-shell-usr shell "$DEB_USR_DISK" verity.fail=poweroff || return
	vm_assert_booted || return
	root_usr_asserts "$VM_LOG" 'mounted here on'
}

# tmpfs_boot NAME FLAVOUR : usrhash= alone, the /usr GPT disk found by its partition UUIDs, and a
# tmpfs root (systemd.volatile=yes); systemd.firstboot=off: an empty /etc would have
# systemd-firstboot ask at the console.
tmpfs_boot() {
	local rd
	rd=$(debian_initrd "$2") || { fail "the $2 image of the root"; return 1; }
	debian_usr_disk || { fail "the /usr disk"; return 1; }
	vm_boot --timeout "$DEB_TIMEOUT" --mem "$DEB_MEM" --disk "$DEB_USR_DISK" "$1" "$rd" \
		"usrhash=$DEB_USRHASH systemd.volatile=yes systemd.firstboot=off verity.fail=poweroff"
	vm_assert_booted || return 1
	debian_assert_running "$VM_LOG" || return 1
	debian_assert_mount "$VM_LOG" / tmpfs tmpfs 'rw' || return 1
	debian_assert_mount "$VM_LOG" /usr '/dev/(mapper/usr|dm-[0-9]+)' erofs 'ro' || return 1
	debian_assert_writable "$VM_LOG" /etc yes || return 1
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: usr: /dev/mapper/usr verified \(data vda1, hash vda2\)' || return 1
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: init /sbin/init read completely through the layout tmpfs\+usr' \
		"init was not read through tmpfs+usr" || return 1
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS usrhash='"$DEB_USRHASH"
}

test_dracut_shell_usrhash_tmpfs_root_boots_to_running() {
	tmpfs_boot debian-dracut-shell-tmpfs shell
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
