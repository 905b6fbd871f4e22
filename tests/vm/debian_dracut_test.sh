#!/bin/bash
# dracut images made as a user of the distribution makes them: the Debian root of lib-debian.sh
# with dracut and the packages of `make deb` (verity-init, verity-init-dracut) installed by
# mmdebstrap, the initramfs generated inside that root by its own dracut from the module the
# package installed (tests/vm/debian-dracut-hook.sh), not from the build tree. That root, verified,
# boots through each image (dracut's shell init, systemd in the initramfs) to multi-user.target
# with systemd reporting "running", in each layout: systemd.volatile=state (the root read-only on
# the mapping, the root's systemd puts a tmpfs on /var); systemd.volatile=overlay (the agent's
# pre-pivot stacks the overlay in both flavours; init read through it); root and /usr both verified (the root without its /usr, the /usr image of
# lib-debian.sh on a GPT disk); usrhash= alone with systemd.volatile=yes (a tmpfs root, /usr
# found by the Discoverable Partitions). A flipped byte of systemd in the /usr image is refused
# in pre-pivot, before the switch, and the fallback (poweroff) is taken.
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
	dracut_boot debian-dracut-shell-overlay shell erofs systemd.volatile=overlay || return
	vm_assert_booted || return
	overlay_asserts "$VM_LOG" 'stacked here'
}

test_dracut_systemd_overlay_boots_to_running() {
	dracut_boot debian-dracut-systemd-overlay systemd squashfs systemd.volatile=overlay || return
	vm_assert_booted || return
	overlay_asserts "$VM_LOG" 'stacked here'
}

# usr_boot NAME FLAVOUR USRDISK WORDS... : root and /usr both verified: the root without its /usr
# (erofs, hash tree on the second disk) and the /usr GPT disk USRDISK, found from usrhash=.
usr_boot() {
	local name=$1 fl=$2 disk=$3 rd; shift 3
	rd=$(debian_initrd "$fl") || { fail "the $fl image of the root"; return 1; }
	vm_boot --timeout "$DEB_TIMEOUT" --mem "$DEB_MEM" --disk "$DEB_REST" --disk "$DEB_REST_HASH" \
		--disk "$disk" "$name" "$rd" "roothash=$DEB_REST_ROOTHASH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb usrhash=$DEB_USRHASH root=/dev/mapper/root $*"
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
	usr_boot debian-dracut-shell-usr shell "$DEB_USR_DISK" verity.fail=poweroff || return
	vm_assert_booted || return
	root_usr_asserts "$VM_LOG" 'mounted here on'
}

test_dracut_systemd_root_and_usr_boot_to_running() {
	{ debian_usr_disk && debian_rest_root; } || { fail "the root and /usr images"; return; }
	usr_boot debian-dracut-systemd-usr systemd "$DEB_USR_DISK" verity.fail=poweroff || return
	vm_assert_booted || return
	root_usr_asserts "$VM_LOG" 'mounted by systemd on'
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

test_dracut_systemd_usrhash_tmpfs_root_boots_to_running() {
	tmpfs_boot debian-dracut-systemd-tmpfs systemd
}

# A byte of systemd (what /sbin/init resolves to, on the verified /usr) flipped in a copy of the
# /usr disk, read against its untouched hash tree: pre-pivot's init check meets dm-verity's I/O
# error before the switch, the boot is refused and the fallback (poweroff) taken.
test_dracut_shell_tampered_usr_is_refused_before_the_switch() {
	local w off tar
	{ debian_usr_disk && debian_rest_root; } || { fail "the root and /usr images"; return; }
	tar=$(debian_root_tar) || { fail "the root"; return; }
	w=$(vm_workdir debian-dracut-usr-tampered)
	cp --sparse=always "$DEB_USR_DISK" "$w/disk.img" || { fail "copy of the /usr disk"; return; }
	# 64 bytes from the middle of the binary (data stored uncompressed and block-aligned by
	# _deb_mkfs): found once in the disk, one byte of them flipped
	tar -xOf "$tar" ./usr/lib/systemd/systemd | dd bs=4096 skip=8 count=1 status=none |
		head -c 64 >"$w/needle" || { fail "a piece of systemd"; return; }
	off=$(python3 -c 'import sys
d = open(sys.argv[1], "rb").read(); n = open(sys.argv[2], "rb").read()
i = d.find(n)
sys.exit(1) if i < 0 or d.find(n, i + 1) >= 0 else print(i + 7)' "$w/disk.img" "$w/needle") ||
		{ fail "systemd's bytes not found once in the /usr disk"; return; }
	vm_flip_byte "$w/disk.img" "$off" || { fail "flipping a byte"; return; }
	vm_log "flipped the byte at $off of the /usr disk (systemd, block 8)"
	usr_boot debian-dracut-shell-usr-tampered shell "$w/disk.img" verity.fail=poweroff
	rm -f "$w/disk.img"
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: usr: init failed: ' \
		"the init check did not refuse the tampered /usr" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: fallback: poweroff' \
		"the fallback was not taken" || return
	vm_assert_log_lacks "$VM_LOG" "$VM_MARKER" "the tampered system booted"
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
