#!/bin/bash
# The Debian root of lib-debian.sh split the way a /usr-verity distribution ships it: its /usr
# alone as an erofs image on a GPT disk (partitions usr and usr-verity, named by the two halves
# of the hash), booted with `usrhash=` alone and `systemd.volatile=yes` through the standalone
# agent initramfs (verity-init-mkinitramfs): a tmpfs root that systemd fills, the verified /usr
# under it, systemd as PID 1 to multi-user.target and "running"; and the rest of the root (an
# empty /usr to mount on) as a verified root of its own, with the same /usr: two targets; and
# that rest as a writable ext4 root partition under the same /usr, with the initramfs policy's
# allow_unverified_root=yes: Debian's own /etc/ld.so.cache and merged-/usr links pass the loader
# check.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/lib-debian.sh
. "$(dirname "$0")/lib-debian.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"

DEB_TIMEOUT=${DEB_TIMEOUT:-240}

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 mmdebstrap mkfs.erofs sgdisk cpio modprobe zstd || exit 1
	[ -x "$VI_STATIC" ] || { echo "no $VI_STATIC (make static)" >&2; exit 1; }
	[ -x "$VI_IMAGE" ] || { echo "no $VI_IMAGE (make)" >&2; exit 1; }
	local w
	RD=$(agent_mkinitramfs -m "virtio_pci virtio_blk" -z zstd) || exit 1
	w=$(vm_workdir debian-usr-rd)
	echo "allow_unverified_root=yes" >"$w/consent.conf"
	RD_CONSENT=$(agent_mkinitramfs -m "virtio_pci virtio_blk" -z zstd -c "$w/consent.conf") || exit 1
}

# debian_rest_ext4 : set DEB_REST_EXT4, the root without /usr as a (cached) ext4 image.
debian_rest_ext4() {
	local tar key
	tar=$(debian_root_tar) || return 1
	DEB_REST_EXT4=${tar%.tar}.rest.ext4
	key=$(vm_cache_key debian-rest-ext4 "$(basename "$tar")" \
		"$(declare -f _deb_mkfs _deb_build_rest | sha256sum)" "$(mkfs.ext4 -V 2>&1 | head -n1)")
	vm_cached "$key" "$DEB_REST_EXT4" _deb_build_rest "$tar" "$DEB_REST_EXT4.tmp" ext4
}

test_usrhash_alone_with_a_tmpfs_root_boots_to_running() {
	debian_usr_disk || { fail "the /usr disk"; return; }
	# systemd.firstboot=off: an empty /etc would have systemd-firstboot ask at the console
	vm_boot --timeout "$DEB_TIMEOUT" --mem "$DEB_MEM" --disk "$DEB_USR_DISK" debian-usr-tmpfs "$RD" \
		"usrhash=$DEB_USRHASH systemd.volatile=yes systemd.firstboot=off verity.fail=poweroff"
	vm_assert_booted || return
	debian_assert_running "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: usr: /dev/mapper/usr verified \(data vda1, hash vda2\)' || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: usr: mounted /dev/mapper/usr read-only on /sysroot/usr \(erofs\), root tmpfs \(layout tmpfs\+usr\)' || return
	debian_assert_mount "$VM_LOG" / tmpfs tmpfs 'rw' || return
	debian_assert_mount "$VM_LOG" /usr '/dev/(mapper/usr|dm-[0-9]+)' erofs 'ro' || return
	debian_assert_writable "$VM_LOG" /etc yes || return
	debian_assert_writable "$VM_LOG" /var yes || return
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS usrhash='"$DEB_USRHASH"
}

test_root_and_usr_both_verified_boot_to_running() {
	debian_usr_disk || { fail "the /usr disk"; return; }
	debian_rest_root || { fail "the root image"; return; }
	vm_boot --timeout "$DEB_TIMEOUT" --mem "$DEB_MEM" --disk "$DEB_REST" --disk "$DEB_REST_HASH" \
		--disk "$DEB_USR_DISK" debian-root-and-usr "$RD" \
		"roothash=$DEB_REST_ROOTHASH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb usrhash=$DEB_USRHASH verity.fail=poweroff"
	vm_assert_booted || return
	debian_assert_running "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: usr: mounted /dev/mapper/usr read-only on /sysroot/usr \(erofs\), root /dev/mapper/root \(layout root\+usr\)' || return
	debian_assert_mount "$VM_LOG" / '/dev/(mapper/root|dm-[0-9]+)' erofs 'ro' || return
	debian_assert_mount "$VM_LOG" /usr '/dev/(mapper/usr|dm-[0-9]+)' erofs 'ro' || return
	debian_assert_writable "$VM_LOG" /etc no || return
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS usrhash='"$DEB_USRHASH"
}

# The root partition unverified and writable (the policy consents), /usr verified under it:
# Debian's /etc/ld.so.cache, /lib64 -> usr/lib64 and systemd's PT_INTERP all lead onto /usr.
test_usr_under_a_writable_root_partition_boots_to_running() {
	local w
	debian_usr_disk || { fail "the /usr disk"; return; }
	debian_rest_ext4 || { fail "the root image"; return; }
	w=$(vm_workdir debian-usr-writable) || { fail "work dir"; return; }
	cp "$DEB_REST_EXT4" "$w/root.img" || { fail "copy"; return; }
	vm_boot --timeout "$DEB_TIMEOUT" --mem "$DEB_MEM" --disk-rw "$w/root.img" \
		--disk "$DEB_USR_DISK" debian-usr-writable "$RD_CONSENT" \
		"usrhash=$DEB_USRHASH root=/dev/vda rw verity.fail=poweroff"
	rm -f "$w/root.img"
	vm_assert_booted || return
	debian_assert_running "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: usr: mounted /dev/mapper/usr read-only on /sysroot/usr \(erofs\), root /dev/vda \(layout writable\+usr\), init /sbin/init read from a verified device, its interpreters too; no ld.so.preload, ld.so.cache only onto /usr' || return
	debian_assert_mount "$VM_LOG" / /dev/vda ext4 'rw' || return
	debian_assert_mount "$VM_LOG" /usr '/dev/(mapper/usr|dm-[0-9]+)' erofs 'ro' || return
	debian_assert_writable "$VM_LOG" /etc yes
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
