#!/bin/bash
# Debian 13 "trixie" (systemd 257, dracut-ng 106) through the project, on Debian 13's kernel
# series (6.12): the fewest boots that show what differs from Debian 12, whose layouts
# debian_root_test.sh, debian_usr_test.sh, debian_dracut_test.sh and debian_tamper_test.sh
# boot one by one (docs/testing.md, "Debian releases and kernels"). One trixie root of
# lib-debian.sh (VM_DEBIAN_SUITE=trixie) with dracut and the packages of `make deb` installed by
# mmdebstrap, its initramfs images generated inside it by its own dracut-ng
# (tests/vm/debian-dracut-hook.sh); each boot a different layout:
#   the standalone agent: the read-only root (ext4); systemd.volatile=overlay (erofs);
#   dracut-ng's shell init: systemd.volatile=state; a flipped byte of systemd in a verified /usr
#     refused before the switch;
#   systemd 257 in the initramfs: usrhash= alone with systemd.volatile=yes (a tmpfs root, /usr
#     found by its partition UUIDs);
#   systemd 257 in the initramfs with dracut's own systemd-veritysetup module as well, root and
#     /usr both verified: verity-init sets up both mappings, systemd's veritysetup generator
#     stands down (the module masks it);
#   systemd 257 in the initramfs with A/B slots on Debian 13's 7.x kernel, with
#     systemd.volatile=state: slot a refused (its manifest's key), slot b boots in the same boot.
# Each boot ends in the root's systemd 257 reporting "running", or, tampered, in the fallback.
# Debian 13's own kernel series; its 7.x from trixie-backports: dmverity_keyring_test.sh
VM_KERNEL_SERIES_REQUIRED=6.12
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
VM_DEBIAN_SUITE=trixie
# shellcheck source=tests/vm/lib-debian.sh
. "$(dirname "$0")/lib-debian.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"
# shellcheck source=tests/vm/slot_lib.sh
. "$(dirname "$0")/slot_lib.sh"

DEB_PKGDIR=${DEB_PKGDIR:-$BUILD/deb}
DEB_TIMEOUT=${DEB_TIMEOUT:-300}
# what the boots must show they ran: Debian 13's systemd and dracut
TRIXIE_SYSTEMD=257
TRIXIE_DRACUT=106

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 mmdebstrap mksquashfs mkfs.erofs cpio modprobe zstd || exit 1
	[ -x "$VI_STATIC" ] || { echo "no $VI_STATIC (make static)" >&2; exit 1; }
	[ -x "$VI_IMAGE" ] || { echo "no $VI_IMAGE (make)" >&2; exit 1; }
	if [ "$DEB_PKGDIR" = "$BUILD/deb" ]; then debian_make_deb || exit 1; fi
	# one root for every boot: the standalone agent boots it too (dracut installed is unused there)
	debian_use_packages "$DEB_PKGDIR" || exit 1
	debian_trixie_images || exit 1
	RD=$(agent_mkinitramfs -m "virtio_pci virtio_blk" -z zstd) || exit 1
}

# trixie_asserts LOG : the root's init was Debian 13's systemd.
trixie_asserts() {
	vm_assert_log_contains "$1" "systemd\[1\]: systemd $TRIXIE_SYSTEMD(\.[0-9]+)?-[^ ]* running in system mode" \
		"the root's init is not systemd $TRIXIE_SYSTEMD"
}

# dracut_ng_asserts LOG FLAVOUR : the initramfs was the trixie root's dracut-ng's: shell init
# says its version; systemd in the initramfs says its own (the root's dracut put it there) and
# dracut's initrd-release greets.
dracut_ng_asserts() {
	case $2 in
	shell) vm_assert_log_contains "$1" "dracut: dracut-$TRIXIE_DRACUT(-[0-9]+)?" "not dracut $TRIXIE_DRACUT's shell init" ;;
	*) vm_assert_log_order "$1" "systemd\[1\]: systemd $TRIXIE_SYSTEMD(\.[0-9]+)?-[^ ]* running in system mode" \
		'systemd\[1\]: Running in initrd' "not systemd $TRIXIE_SYSTEMD in the initramfs" || return 1
		vm_assert_log_contains "$1" 'Booting initrd of .*dracut' "not dracut's initramfs" ;;
	esac
}

# agent_boot NAME FSTYPE WORDS... : the verified root of FSTYPE through the standalone agent.
agent_boot() {
	local name=$1; shift
	debian_boot_verified "$name" "$RD" "$@"
}

# --- dracut-ng: what the module relies on ---------------------------------------------------------

# The list of docs/dracut.md read in the root's own dracut (no boot).
test_trixie_dracut_has_what_the_module_relies_on() {
	local tar w
	tar=$(debian_root_tar) || { fail "the root"; return; }
	w=$(vm_workdir trixie-dracut-api)
	tar -C "$w" -xf "$tar" ./usr/lib/dracut ./usr/bin/dracut || { fail "dracut out of the root"; return; }
	grep -q "^DRACUT_VERSION=$TRIXIE_DRACUT\b" "$w/usr/lib/dracut/dracut-version.sh" ||
		{ fail "the root's dracut is not $TRIXIE_DRACUT"; return; }
	DRACUT_API_ROOTS=$w bash "$VM_TOPDIR/tests/cli/dracut_api_test.sh" -- \
		test_every_need_of_the_module_is_in_dracut >"$w/api.log" 2>&1 ||
		{ cat "$w/api.log" >&2; fail "dracut $TRIXIE_DRACUT lacks what the module relies on"; }
}

# --- the packages -------------------------------------------------------------------------------

# deb_paths_outside_usr DEB : the paths of DEB that are not /usr or under it (merged /usr: none).
deb_paths_outside_usr() {
	dpkg-deb -c "$1" | awk '{ print $6 }' | grep -Ev '^\./$|^\./usr(/|$)'
}

# The packages built inside a trixie root by its own toolchain and debhelper, then checked by its
# lintian as debian_package_test.sh checks them on Debian 12; the files of these and of the
# packages of Debian 12 (which the boots here install) all under /usr.
test_trixie_builds_the_packages_lintian_clean() {
	local dir d lint
	dir=$(debian_built_packages) || { fail "the packages built in trixie"; return; }
	lint=$(cat "$dir/lintian.txt")
	vm_log "trixie's lintian: $(head -n 1 "$dir/lintian.txt" | cut -c1-100) ($(grep -c . "$dir/lintian.txt") lines)"
	assertEquals "trixie's lintian: errors and warnings" "" "$(grep -E '^[EW]: ' <<<"$lint")"
	assertEquals "trixie's lintian: unused overrides" "" \
		"$(grep -E 'unused-override|mismatched-override' <<<"$lint")"
	assertContains "trixie's lintian looked at the agent" "$lint" \
		"O: verity-init: statically-linked-binary [usr/sbin/verity-init]"
	for d in "$dir"/*.deb "$DEB_PKGDIR"/*.deb; do
		assertEquals "$(basename "$d"): files outside /usr" "" "$(deb_paths_outside_usr "$d")"
	done
	assertTrue "no verity-init-dracut built in trixie" "[ -f $dir/verity-init-dracut_*_all.deb ]"
}

# --- the standalone agent ------------------------------------------------------------------------

test_trixie_read_only_root_boots_through_the_agent() {
	agent_boot trixie-agent-ro ext4 || return
	vm_assert_booted || return
	debian_assert_running "$VM_LOG" || return
	trixie_asserts "$VM_LOG" || return
	debian_assert_mount "$VM_LOG" / '/dev/(mapper/root|dm-[0-9]+)' ext4 'ro' || return
	debian_assert_mount "$VM_LOG" /var '/dev/(mapper/root|dm-[0-9]+)' ext4 'ro' || return
	debian_assert_writable "$VM_LOG" /etc no || return
	debian_assert_writable "$VM_LOG" /var no || return
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS result=ok' || return
	debian_assert_stands_down "$VM_LOG" root
}

test_trixie_overlay_boots_through_the_agent() {
	agent_boot trixie-agent-overlay erofs systemd.volatile=overlay || return
	vm_assert_booted || return
	debian_assert_running "$VM_LOG" || return
	trixie_asserts "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: root: overlay on /sysroot: /dev/mapper/root below, tmpfs /run/verity-init/overlay/upper above .*init /sbin/init read through it from the verified root' || return
	debian_assert_mount "$VM_LOG" / overlay overlay 'rw' || return
	debian_assert_writable "$VM_LOG" /etc yes || return
	debian_assert_writable "$VM_LOG" /var yes
}

# --- dracut-ng, shell init -----------------------------------------------------------------------

test_trixie_dracut_shell_state_boots_to_running() {
	debian_dracut_boot trixie-dracut-shell-state shell erofs systemd.volatile=state || return
	vm_assert_booted || return
	debian_assert_running "$VM_LOG" || return
	trixie_asserts "$VM_LOG" || return
	dracut_ng_asserts "$VM_LOG" shell || return
	debian_assert_mount "$VM_LOG" / '/dev/(mapper/root|dm-[0-9]+)' erofs 'ro' || return
	debian_assert_mount "$VM_LOG" /var tmpfs tmpfs 'rw' || return
	debian_assert_writable "$VM_LOG" /etc no || return
	debian_assert_writable "$VM_LOG" /var yes || return
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS result=ok' || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: init /sbin/init read completely' \
		"the module's init check did not run"
}

# A byte of systemd flipped in a copy of the /usr disk, read against its untouched hash tree:
# refused in pre-pivot, before the switch, and the fallback taken.
test_trixie_dracut_shell_tampered_usr_is_refused() {
	local w off tar
	{ debian_usr_disk && debian_rest_root; } || { fail "the root and /usr images"; return; }
	tar=$(debian_root_tar) || { fail "the root"; return; }
	w=$(vm_workdir trixie-dracut-usr-tampered)
	cp --sparse=always "$DEB_USR_DISK" "$w/disk.img" || { fail "copy of the /usr disk"; return; }
	# fullblock: from a pipe, dd's skip and count would count short reads as blocks (the
	# needle from wherever the pipe's timing left it, under load ELF padding: zeros)
	tar -xOf "$tar" ./usr/lib/systemd/systemd | dd bs=4096 skip=8 count=1 iflag=fullblock \
		status=none | head -c 64 >"$w/needle" || { fail "a piece of systemd"; return; }
	off=$(python3 -c 'import sys
d = open(sys.argv[1], "rb").read(); n = open(sys.argv[2], "rb").read()
i = d.find(n)
sys.exit(1) if i < 0 or d.find(n, i + 1) >= 0 else print(i + 7)' "$w/disk.img" "$w/needle") ||
		{ fail "systemd's bytes not found once in the /usr disk"; return; }
	vm_flip_byte "$w/disk.img" "$off" || { fail "flipping a byte"; return; }
	debian_usr_boot trixie-dracut-shell-usr-tampered shell "$w/disk.img" verity.fail=poweroff
	rm -f "$w/disk.img"
	vm_assert_booted || return
	dracut_ng_asserts "$VM_LOG" shell || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: usr: init failed: ' \
		"the init check did not refuse the tampered /usr" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: fallback: poweroff' \
		"the fallback was not taken" || return
	vm_assert_log_lacks "$VM_LOG" "$VM_MARKER" "the tampered system booted"
}

# --- dracut-ng, systemd 257 in the initramfs -----------------------------------------------------

# root_usr_asserts LOG : running, / and /usr the two verified mappings, read-only, /usr mounted by
# systemd, init read through the layout.
root_usr_asserts() {
	debian_assert_running "$1" || return 1
	trixie_asserts "$1" || return 1
	debian_assert_mount "$1" / '/dev/(mapper/root|dm-[0-9]+)' erofs 'ro' || return 1
	debian_assert_mount "$1" /usr '/dev/(mapper/usr|dm-[0-9]+)' erofs 'ro' || return 1
	debian_assert_writable "$1" /etc no || return 1
	vm_assert_log_contains "$1" 'VERITY-TEST-STATUS usrhash='"$DEB_USRHASH" || return 1
	vm_assert_log_contains "$1" "verity-init\[[0-9]+\]: init /sbin/init read completely through the layout root\+usr \(/usr: usr mounted by systemd on /sysroot/usr\)" \
		"init was not read through root+usr"
}

test_trixie_dracut_systemd_usrhash_tmpfs_root_boots_to_running() {
	local rd
	rd=$(debian_initrd systemd) || { fail "the systemd image of the root"; return; }
	debian_usr_disk || { fail "the /usr disk"; return; }
	vm_boot --timeout "$DEB_TIMEOUT" --mem "$DEB_MEM" --disk "$DEB_USR_DISK" trixie-dracut-systemd-tmpfs \
		"$rd" "usrhash=$DEB_USRHASH systemd.volatile=yes systemd.firstboot=off verity.fail=poweroff"
	vm_assert_booted || return
	debian_assert_running "$VM_LOG" || return
	trixie_asserts "$VM_LOG" || return
	debian_assert_mount "$VM_LOG" / tmpfs tmpfs 'rw' || return
	debian_assert_mount "$VM_LOG" /usr '/dev/(mapper/usr|dm-[0-9]+)' erofs 'ro' || return
	debian_assert_writable "$VM_LOG" /etc yes || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: usr: /dev/mapper/usr verified \(data vda1, hash vda2\)' || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: init /sbin/init read completely through the layout tmpfs\+usr' \
		"init was not read through tmpfs+usr" || return
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS usrhash='"$DEB_USRHASH"
}

# systemd 257's veritysetup generator reads roothash= and usrhash= as the agent does. With
# dracut's own systemd-veritysetup module in the image as well, exactly one program sets up each
# mapping: in the initramfs verity-init sets up both, systemd's generator is masked there (said
# when the image is built and in the setup unit's name on the console) and no
# systemd-veritysetup@ unit runs before the switch. After it, the root's own generator (Debian
# 13: systemd-cryptsetup) finds each mapping active and stands down (its units' journal).
test_trixie_systemd_veritysetup_stands_down_for_verity_init() {
	local tar w
	tar=$(debian_root_tar) || { fail "the root"; return; }
	grep -q 'verity-init: systemd-veritysetup-generator masked' "$tar.log" ||
		{ fail "dracut did not say that it masked systemd's veritysetup generator"; return; }
	debian_usr_disk || { fail "the /usr disk"; return; }
	debian_usr_boot trixie-dracut-systemd-both systemd-both "$DEB_USR_DISK" verity.fail=poweroff || return
	vm_assert_booted || return
	dracut_ng_asserts "$VM_LOG" systemd || return
	root_usr_asserts "$VM_LOG" || return
	w=$(vm_workdir trixie-dracut-systemd-both)
	# the console up to the switch (the root's generator runs right after it)
	sed -n '1,/Starting .*initrd-switch-root\.service/p' "$VM_LOG" >"$w/initramfs.log"
	vm_assert_log_contains "$w/initramfs.log" 'Starting .*initrd-switch-root\.service' "no switch in the log" || return
	vm_assert_log_contains "$w/initramfs.log" 'verity-init\[[0-9]+\]: root: /dev/mapper/root verified' \
		"verity-init did not set up the root in the initramfs" || return
	vm_assert_log_contains "$w/initramfs.log" 'verity-init\[[0-9]+\]: usr: /dev/mapper/usr verified' \
		"verity-init did not set up /usr in the initramfs" || return
	# systemd shortens the unit's name on an 80-column console: "verity-init-setup.service…md-veri..."
	vm_assert_log_contains "$w/initramfs.log" 'Starting .*verity-init-setup\.service.*-veritysetup-generator masked\)' \
		"the console does not say that systemd's generator stands down" || return
	vm_assert_log_lacks "$w/initramfs.log" 'systemd-veritysetup@|veritysetup\[' \
		"systemd's veritysetup ran in the initramfs" || return
	debian_assert_stands_down "$VM_LOG" root usr
}

# A/B slots through dracut-ng on Debian 13's 7.x kernel (trixie-backports; its modules .ko.xz,
# which dracut-ng copies as they are): the image dracut-ng generated inside the root for that
# kernel, systemd 257 in it, its policy slots=a,b with the manifest key. Both slots hold the
# Debian 13 root (erofs), slot a's manifest signed by a key the image does not trust. On a blank
# store setup marks a bad with the reason and sets up b in the same boot; systemd 257 runs from
# slot b with systemd.volatile=state.
test_trixie_dracut_systemd_ab_on_the_7x_kernel_boots_b_when_a_is_refused() {
	local rd w s j
	rd=$(debian_initrd systemd-slots "$K7") || { fail "the slots image for $K7"; return; }
	debian_verity erofs || { fail "the erofs root image"; return; }
	w=$(vm_workdir trixie-dracut-slots)
	for s in a b; do
		if ! { mkdir -p "$w/$s" && ln -f "$DEB_DATA" "$w/$s/data.img" &&
			cp "$DEB_HASH" "$w/$s/hash.img"; }; then
			fail "slot $s's files"; return
		fi
	done
	slot_sign "$w/a/hash.img" a "$VM_SRCDIR/keys/other.key" 1 || { fail "sign slot a"; return; }
	slot_sign "$w/b/hash.img" b "$VM_SRCDIR/keys/test.key" 1 || { fail "sign slot b"; return; }
	slot_disks "$w" "$w/a" "$w/b" || { fail "the slot disks"; return; }
	rm -f "$w/a/data.img" "$w/b/data.img"
	VM_BOOT_KERNEL=$K7_BASE/usr/lib/modules/$K7/vmlinuz \
		vm_boot --timeout "$DEB_TIMEOUT" --mem "$DEB_MEM" --disk "$w/slots.img" --disk-rw "$w/store.img" \
		trixie-dracut-slots "$rd" "root=/dev/mapper/root verity.fail=poweroff systemd.volatile=state"
	rm -f "$w/slots.img"
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" "Linux version ${K7//+/\\+} " "not the 7.x kernel" || return
	dracut_ng_asserts "$VM_LOG" systemd || return
	debian_assert_running "$VM_LOG" || return
	trixie_asserts "$VM_LOG" || return
	vm_assert_log_order "$VM_LOG" "verity-init\[[0-9]+\]: slot a marked bad \(manifest: signed manifest refused: manifest signed by key [0-9A-F]+, which is not a trusted key\)" \
		"verity-init\[[0-9]+\]: slot b: priority 14, 3 tries left: setting up" || return
	# both slots hold the same root: the mapping is b's partitions (3 and 4 of the slot disk)
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: root: /dev/mapper/root verified \(data vda3, hash vda4\)' \
		"the root is not slot b's partitions" || return
	debian_assert_mount "$VM_LOG" / '/dev/(mapper/root|dm-[0-9]+)' erofs 'ro' || return
	debian_assert_mount "$VM_LOG" /var tmpfs tmpfs 'rw' || return
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS result=ok' || return
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS slot=b' "the status does not say slot b" || return
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS skipped=a:manifest:' \
		"the status does not say why slot a was skipped" || return
	j=$(slot_store_json "$w") || { fail "slot status: $j"; return; }
	assert_slot "$j" a '"tries":0,.*"reason":"manifest: ' || return
	assert_slot "$j" b '"tries":2,'
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
