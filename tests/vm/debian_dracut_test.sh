#!/bin/bash
# dracut images made as a user of the distribution makes them: the Debian root of lib-debian.sh
# with dracut and the packages of `make deb` (verity-init, verity-init-dracut) installed by
# mmdebstrap, the initramfs generated inside that root by its own dracut from the module the
# package installed (tests/vm/debian-dracut-hook.sh), not from the build tree. That root, verified,
# boots through each image (dracut's shell init, systemd in the initramfs) to multi-user.target
# with systemd reporting "running", with systemd.volatile=state: the root read-only on the
# mapping, the root's systemd puts a tmpfs on /var. (systemd.volatile=overlay is not stacked by
# the dracut module: not tested here.)
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/lib-debian.sh
. "$(dirname "$0")/lib-debian.sh"

VI_IMAGE=$BUILD/verity-image
DEB_PKGDIR=${DEB_PKGDIR:-$BUILD/deb}
# dracut under TCG: udev start-up and the device scan add 10-20 s to the Debian boot
DEB_TIMEOUT=${DEB_TIMEOUT:-300}
DEB_MEM=768

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 mmdebstrap mksquashfs mkfs.erofs || exit 1
	[ -x "$VI_IMAGE" ] || { echo "no $VI_IMAGE (make)" >&2; exit 1; }
	# the packages of the tree under test, made again when missing or older than a source
	if [ "$DEB_PKGDIR" = "$BUILD/deb" ]; then debian_make_deb || exit 1; fi
	debian_use_packages "$DEB_PKGDIR" || exit 1
}

# dracut_boot NAME FLAVOUR FSTYPE WORDS... : the verified root of FSTYPE (hash tree on the second
# disk) booted through the FLAVOUR image generated inside it, with the command line verity-image
# prints for it, and WORDS.
dracut_boot() {
	local name=$1 fl=$2 fs=$3 rd words; shift 3
	rd=$(debian_initrd "$fl") || { fail "the $fl image of the root"; return 1; }
	debian_verity "$fs" || { fail "the $fs root image"; return 1; }
	words=$("$VI_IMAGE" cmdline "$DEB_HASH" /dev/vda /dev/vdb "$DEB_ROOTHASH") ||
		{ fail "verity-image cmdline"; return 1; }
	vm_boot --timeout "$DEB_TIMEOUT" --mem "$DEB_MEM" --disk "$DEB_DATA" --disk "$DEB_HASH" \
		"$name" "$rd" "$words root=/dev/mapper/root verity.fail=poweroff $*"
}

# state_asserts LOG : running, / the verified mapping read-only, /var a writable tmpfs.
state_asserts() {
	debian_assert_running "$1" || return 1
	debian_assert_mount "$1" / '/dev/(mapper/root|dm-[0-9]+)' "$2" 'ro' || return 1
	debian_assert_mount "$1" /var tmpfs tmpfs 'rw' || return 1
	debian_assert_writable "$1" /etc no || return 1
	debian_assert_writable "$1" /var yes || return 1
	vm_assert_log_contains "$1" 'VERITY-TEST-STATUS result=ok' "the agent's status is not ok" ||
		return 1
	vm_assert_log_contains "$1" 'verity-init\[[0-9]+\]: init /sbin/init read completely' \
		"the module's init check did not run"
}

test_dracut_shell_from_the_packages_boots_to_running() {
	dracut_boot debian-dracut-shell shell erofs systemd.volatile=state || return
	vm_assert_booted || return
	state_asserts "$VM_LOG" erofs
}

test_dracut_systemd_from_the_packages_boots_to_running() {
	dracut_boot debian-dracut-systemd systemd squashfs systemd.volatile=state || return
	vm_assert_booted || return
	state_asserts "$VM_LOG" squashfs
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
