#!/bin/bash
# verity-init-mkinitramfs, booted for real: standalone initramfs images built by the shipped tool
# (not the harness's own builder) with the kernel's modules resolved by modprobe, compressed as
# the kernel must unpack them, and carrying the image builder's policy and keys. One boot with a
# signed manifest verified by the key the tool put in, one refused by the policy the tool put in,
# one plain boot with systemd's keys and the kernel's modules as it ships them (the .ko.xz of
# Debian's 6.12, which the kernel decompresses when the agent loads them; plain .ko on 6.1).
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"
# shellcheck source=tests/vm/sign_lib.sh
. "$(dirname "$0")/sign_lib.sh"

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 veritysetup mkfs.ext4 debugfs cpio modprobe xz zstd || exit 1
	[ -x "$VM_AGENT" ] || { echo "no $VM_AGENT (make static)" >&2; exit 1; }
	[ -x "$VI_TOOL" ] || { echo "no $VI_TOOL" >&2; exit 1; }
	local w
	w=$(vm_workdir mkrd-images)
	mkdir -p "$w/keys"
	cp "$SIGN_KEYS/test.pub" "$w/keys/"
	printf 'require_signature=yes\nmin_version=2\n' >"$w/policy.conf"
	RD_SIGNED=$w/signed.img
	"$MKRD" -k "$VM_KVER" -a "$VM_AGENT" -m "virtio_pci virtio_blk" -f ext4 \
		-c "$w/policy.conf" -K "$w/keys" -z xz "$RD_SIGNED" >"$w/signed.out" 2>&1 ||
		{ cat "$w/signed.out" >&2; exit 1; }
	RD_PLAIN=$w/plain.img
	"$MKRD" -k "$VM_KVER" -a "$VM_AGENT" -m "virtio_pci virtio_blk" -z zstd \
		--keep-compressed-modules "$RD_PLAIN" >"$w/plain.out" 2>&1 || { cat "$w/plain.out" >&2; exit 1; }
	# the modules the kernel ships compressed (.ko.xz on 6.12), kept so: its config has
	# CONFIG_MODULE_DECOMPRESS and the format
	PLAIN_KEPT=$(zstd -dcq "$RD_PLAIN" | cpio -i --quiet --to-stdout etc/verity-init/modules |
		grep -c '\.ko\.\(xz\|zst\|gz\)$')
	TEST_ID=$(sed -n 's/^untrusted comment: minisign public key //p' "$SIGN_KEYS/test.pub")
}

test_signed_manifest_boots_with_the_tools_policy_and_keys() {
	local d
	d=$(vm_workdir mkrd-signed)
	vm_verity_setup ext4 "$d" >/dev/null || { fail "verity setup"; return; }
	sign_manifest "$d/hash.img" 3 "$SIGN_KEYS/test.key" --embed || { fail "sign"; return; }
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" mkrd-signed "$RD_SIGNED" \
		"verity.manifest=/dev/vdb verity.data=/dev/vda verity.hash=/dev/vdb root=/dev/mapper/root verity.fail=poweroff"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root ext4 || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: root: signed manifest version 3 from /dev/vdb \(after the hash tree\) verified with key $TEST_ID \(test.pub\)" || return
	# -f ext4: its modules from /etc/verity-init/fs/ext4, before the probed type is mounted
	vm_assert_log_order "$VM_LOG" 'verity-init\[1\]: fs modules for ext4: [1-9][0-9]* loaded' \
		'verity-init\[1\]: root: mounted /dev/mapper/root read-only on /sysroot \(ext4\)'
}

# The same image, no signature: the policy file the tool installed refuses the root.
test_policy_from_the_tool_refuses_unsigned_root() {
	local d rh
	d=$(vm_workdir mkrd-unsigned)
	rh=$(vm_verity_setup ext4 "$d") || { fail "verity setup"; return; }
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" mkrd-unsigned "$RD_SIGNED" \
		"roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	# (the policy has a version floor too, which wants the signed manifest first)
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: policy: the initramfs policy has a version floor \(min_version=\): the root needs a signed manifest' || return
	agent_assert_fallback "$VM_LOG" panic
}

# Defaults (every root filesystem type, zstd), systemd's keys, the type probed: only that type's
# modules are loaded. The modules as the kernel ships them: on 6.12 the agent hands the .ko.xz
# files to the kernel, which decompresses them.
test_plain_image_boots_squashfs_with_systemd_keys() {
	local d rh
	d=$(vm_workdir mkrd-plain)
	rh=$(vm_verity_setup squashfs "$d") || { fail "verity setup"; return; }
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" mkrd-plain "$RD_PLAIN" \
		"roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root squashfs || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: root: /dev/mapper/root verified .*status V' || return
	# of the default filesystems' modules only the root's were loaded (the kernel's squashfs
	# driver, none of ext4's or erofs'), and only when its mount was tried
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: fs modules for squashfs: 1 loaded, 0 without hardware' || return
	vm_assert_log_lacks "$VM_LOG" 'verity-init\[1\]: fs modules for (ext[234]|erofs)' \
		"modules of another filesystem loaded" || return
	vm_assert_log_order "$VM_LOG" 'verity-init\[1\]: root: /dev/mapper/root verified' \
		'verity-init\[1\]: fs modules for squashfs' || return
	# every module of the base list loaded, whether kept compressed or not
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: [1-9][0-9]* modules loaded, [0-9]* without hardware' || return
	vm_assert_log_lacks "$VM_LOG" 'verity-init\[1\]: .*(loading module|module [^ ]* not loaded)' \
		"a module not loaded" || return
	if [ "$PLAIN_KEPT" -gt 0 ]; then
		vm_log "$PLAIN_KEPT modules kept compressed in the image"
		vm_assert_log_lacks "$VM_LOG" 'Exec format error' "a compressed module read as ELF" || return
	fi
	# the kernel unpacked the whole image, the /dev/console archive after the main one included
	# (this kernel's built-in initramfs has a /dev/console too, so the node itself is not
	# observable here; tests/cli/mkinitramfs_test.sh checks it)
	vm_assert_log_lacks "$VM_LOG" 'Initramfs unpacking failed' "the kernel could not unpack the image"
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
