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

MKRD=$VM_SRCDIR/../../verity-init/verity-init-mkinitramfs.sh
VI_IMAGE=$BUILD/verity-image
VI_STATIC=$BUILD/static/verity-init
DEB_TIMEOUT=${DEB_TIMEOUT:-240}
DEB_MEM=768
# Discoverable Partitions type GUIDs: x86-64 usr and usr-verity.
USR_GPT_TYPE=8484680c-9521-48c6-9c11-b0720656f69e
USR_GPT_TYPE_VERITY=77ff5f63-e7b6-4633-acf4-1565b864c0e6

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 mmdebstrap mkfs.erofs sgdisk cpio modprobe zstd || exit 1
	[ -x "$VI_STATIC" ] || { echo "no $VI_STATIC (make static)" >&2; exit 1; }
	[ -x "$VI_IMAGE" ] || { echo "no $VI_IMAGE (make)" >&2; exit 1; }
	local w
	w=$(vm_workdir debian-usr-rd)
	RD=$w/initrd.img
	"$MKRD" -k "$VM_KVER" -a "$VI_STATIC" -m "virtio_pci virtio_blk" -z zstd "$RD" \
		>"$w/mkrd.out" 2>&1 || { cat "$w/mkrd.out" >&2; exit 1; }
	RD_CONSENT=$w/initrd-consent.img
	echo "allow_unverified_root=yes" >"$w/consent.conf"
	"$MKRD" -k "$VM_KVER" -a "$VI_STATIC" -m "virtio_pci virtio_blk" -z zstd \
		-c "$w/consent.conf" "$RD_CONSENT" >"$w/mkrd-consent.out" 2>&1 ||
		{ cat "$w/mkrd-consent.out" >&2; exit 1; }
}

# _deb_build_usr TAR OUT.tmp : the root's /usr as erofs. A tmpfs root starts with an empty /etc,
# so the marker unit and its multi-user.target want move into /usr's unit directory.
_deb_build_usr() {
	local tmp r u
	tmp=$(mktemp -d "$DEB_DIR/usrtree.XXXXXX") || return 1
	u=$tmp/usr/lib/systemd/system
	tar -C "$tmp" --numeric-owner -xpf "$1" &&
	cp "$tmp/etc/systemd/system/verity-test-marker.service" "$u/" &&
	mkdir -p "$u/multi-user.target.wants" &&
	ln -sf ../verity-test-marker.service "$u/multi-user.target.wants/verity-test-marker.service" &&
	_deb_mkfs erofs "$tmp/usr" "$2"
	r=$?
	rm -rf "$tmp"
	return $r
}

# _deb_build_usr_disk USR DIR.tmp : DIR/disk.img, GPT: 1 = USR (type usr-x86-64, PARTUUID = the
# first half of its root hash), 2 = its hash tree (usr-x86-64-verity, the last half); DIR/usrhash.
_deb_build_usr_disk() {
	local usr=$1 d=$2 uh dsec hsec s2
	mkdir -p "$d" && uh=$(vm_verity_format verity-image "$usr" "$d/hash.img") || return 1
	dsec=$(( ($(vm_size "$usr") + 1048575) / 1048576 )); dsec=$(( dsec * 2048 ))
	hsec=$(( ($(vm_size "$d/hash.img") + 1048575) / 1048576 )); hsec=$(( hsec * 2048 ))
	s2=$(( 2048 + dsec ))
	truncate -s $(( (s2 + hsec + 2048) * 512 )) "$d/disk.img" &&
	sgdisk -n "1:2048:+$dsec" -t "1:$USR_GPT_TYPE" -u "1:$(vm_roothash_uuid "$uh" first)" -c 1:usr \
		-n "2:$s2:+$hsec" -t "2:$USR_GPT_TYPE_VERITY" -u "2:$(vm_roothash_uuid "$uh" last)" \
		-c 2:usr-verity "$d/disk.img" >/dev/null &&
	dd if="$usr" of="$d/disk.img" bs=1M seek=$(( 2048 * 512 )) oflag=seek_bytes conv=notrunc \
		status=none &&
	dd if="$d/hash.img" of="$d/disk.img" bs=1M seek=$(( s2 * 512 )) oflag=seek_bytes \
		conv=notrunc status=none &&
	rm -f "$d/hash.img" && echo "$uh" >"$d/usrhash"
}

# _deb_build_rest TAR OUT.tmp [FSTYPE] : the root without the contents of /usr (erofs default).
_deb_build_rest() {
	local tmp r
	tmp=$(mktemp -d "$DEB_DIR/resttree.XXXXXX") || return 1
	tar -C "$tmp" --numeric-owner -xpf "$1" && find "$tmp/usr" -mindepth 1 -delete &&
	_deb_mkfs "${3:-erofs}" "$tmp" "$2"
	r=$?
	rm -rf "$tmp"
	return $r
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

_deb_build_rest_hash() {   # IMAGE DIR.tmp : DIR/hash.img and DIR/roothash
	local rh
	mkdir -p "$2" && rh=$(vm_verity_format verity-image "$1" "$2/hash.img") &&
		echo "$rh" >"$2/roothash"
}

# debian_rest_root : set DEB_REST (the root without /usr), DEB_REST_HASH, DEB_REST_ROOTHASH.
debian_rest_root() {
	local tar key
	tar=$(debian_root_tar) || return 1
	DEB_REST=${tar%.tar}.rest.erofs
	key=$(vm_cache_key debian-rest "$(basename "$tar")" \
		"$(declare -f _deb_mkfs _deb_build_rest | sha256sum)" "$(mkfs.erofs -V 2>&1 | head -n1)")
	vm_cached "$key" "$DEB_REST" _deb_build_rest "$tar" "$DEB_REST.tmp" || return 1
	key=$(vm_cache_key debian-rest-hash "$(cat "$DEB_REST.key")" "$(sha256sum <"$VI_IMAGE")")
	vm_cached "$key" "$DEB_REST.verity" _deb_build_rest_hash "$DEB_REST" "$DEB_REST.verity.tmp" ||
		return 1
	DEB_REST_HASH=$DEB_REST.verity/hash.img DEB_REST_ROOTHASH=$(cat "$DEB_REST.verity/roothash")
}

# debian_usr_disk : set DEB_USR_DISK and DEB_USRHASH (both cached by their inputs).
debian_usr_disk() {
	local tar usr key dir
	tar=$(debian_root_tar) || return 1
	usr=${tar%.tar}.usr.erofs
	key=$(vm_cache_key debian-usr "$(basename "$tar")" \
		"$(declare -f _deb_mkfs _deb_build_usr | sha256sum)" "$(mkfs.erofs -V 2>&1 | head -n1)")
	vm_cached "$key" "$usr" _deb_build_usr "$tar" "$usr.tmp" || return 1
	dir=$usr.gpt
	key=$(vm_cache_key debian-usr-gpt "$(cat "$usr.key")" "$(sha256sum <"$VI_IMAGE")" \
		"$(declare -f _deb_build_usr_disk | sha256sum)")
	vm_cached "$key" "$dir" _deb_build_usr_disk "$usr" "$dir.tmp" || return 1
	DEB_USR_DISK=$dir/disk.img DEB_USRHASH=$(cat "$dir/usrhash")
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
