#!/bin/bash
# The device maker's own key on a stock kernel: Debian's 7.x kernel (trixie-backports, fetched by
# tests/vm/fetch-kernel.sh) has dm-verity's .dm-verity keyring (Linux 7.0). The maker's
# certificate is in neither the firmware's db nor the kernel: it travels in the initramfs
# (verity-init-mkinitramfs --cert; the dracut module's /etc/verity-init/certs), inside a UKI
# signed for Secure Boot, so Secure Boot covers it. The agent gives dm_verity keyring_unsealed=1,
# adds the certificate, seals the keyring before any device is read, and the kernel checks the
# root hash's PKCS#7 signature against it (require_signature=kernel):
#   - the whole trust chain on 7.x in one boot: Secure Boot UKI, the kernel-checked signature by
#     the maker's key, the TPM measurement (swtpm) and the IPE policy (signed with the db key);
#     IPE lets the maker-signed root's programs run, not a copy on tmpfs; from the running
#     root, a key added to the .dm-verity keyring is refused (sealed), and
#     the command line's dm_verity.keyring_unsealed=0 does not keep the certificate out;
#   - the same image with a root signed by another key: refused by the kernel (-ENOKEY);
#   - certificates without require_signature=kernel in the policy: they fill and seal the
#     keyring all the same, the maker-signed root boots, and nothing asks for
#     dm_verity.require_signatures (that is the policy's to require);
#   - dracut (the host's, with the module) on the same kernel: the certificate put in by the
#     module, the keyring sealed by the agent's dracut runtime, the maker-signed root boots.
VM_KERNEL_SERIES_REQUIRED=7
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"
# shellcheck source=tests/vm/lib-uefi.sh
. "$(dirname "$0")/lib-uefi.sh"
# shellcheck source=tests/vm/lib-tpm.sh
. "$(dirname "$0")/lib-tpm.sh"
# shellcheck source=tests/vm/sign_lib.sh
. "$(dirname "$0")/sign_lib.sh"
# shellcheck source=tests/vm/lib-dracut.sh
. "$(dirname "$0")/lib-dracut.sh"

POLICY_TEXT=$VM_TOPDIR/docs/examples/ipe-verity-root.pol

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 mkfs.ext4 cpio modprobe openssl cc || exit 1
	uefi_require && tpm_require || exit 1
	if [ ! -x "$VI_TOOL" ] || [ ! -x "$VM_AGENT" ]; then echo "no $VI_TOOL or $VM_AGENT" >&2; exit 1; fi
	D=$(vm_workdir dmverity-keyring)
	DBKEY=$(uefi_db_key) || exit 1
	read -r OKEY OCRT < <(uefi_other_key "$D") || exit 1
	# the device maker's key: a code-signing certificate the kernel's X.509 parser takes
	openssl req -new -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 -subj "/CN=device maker/" \
		-addext "keyUsage=critical,digitalSignature" -addext "basicConstraints=critical,CA:FALSE" \
		-keyout "$D/maker.key" -out "$D/maker.pem" >/dev/null 2>&1 || exit 1
	openssl x509 -in "$D/maker.pem" -outform DER -out "$D/late.der" || exit 1
	cc -static -O2 -o "$D/addkey" "$VM_SRCDIR/tools/addkey.c" || exit 1
	RH=$(keyring_root "$D") || exit 1
	"$VI_TOOL" sign "$D/hash.img" --data-device /dev/vda --pkcs7-key "$D/maker.key" \
		--pkcs7-cert "$D/maker.pem" --p7s "$D/maker.p7s" >/dev/null || exit 1
	"$VI_TOOL" sign "$D/hash.img" --data-device /dev/vda --pkcs7-key "$OKEY" \
		--pkcs7-cert "$OCRT" --p7s "$D/other.p7s" >/dev/null || exit 1
	openssl smime -sign -in "$POLICY_TEXT" -signer "$UEFI_DB_CERT" -inkey "$DBKEY" -noattr \
		-nodetach -binary -outform der -out "$D/ipe.p7s" || exit 1
	printf 'require_signature=kernel\nipe_policy=/etc/verity-init/ipe.p7s\n' >"$D/policy.conf"
	printf 'fail=poweroff\n' >"$D/policy-nosig.conf"
}

# keyring_root DIR : the test root with a hook that tries to add a key to the .dm-verity keyring
# from the running system (tools/addkey.c) and prints the keyring's /proc/keys line; formatted
# into DIR/data.img + DIR/hash.img; prints the root hash.
keyring_root() {
	local d=$1 t=$1/tree
	rm -rf "$t"
	vm_rootfs_tree "$t" main || return 1
	mkdir -p "$t/usr/sbin" && cp "$d/addkey" "$t/usr/sbin/addkey" && cp "$d/late.der" "$t/etc/late.der" || return 1
	cat >"$t/etc/vm-root-hook" <<'HOOK'
grep ' \.dm-verity: ' /proc/keys | while read -r line; do echo "KEYRING-LINE $line"; done
serial=$(awk '$8 == "keyring" && $9 == ".dm-verity:" { print $1 }' /proc/keys)
[ -n "$serial" ] && /usr/sbin/addkey "0x$serial" /etc/late.der
# IPE (when the image activated its policy): the signed root's programs run, a copy on tmpfs not
/bin/busybox true; echo "IPE-CHECK signed-root rc=$?"
mount -t tmpfs tmpfs /tmp && cp /bin/busybox /tmp/busybox
/tmp/busybox true; echo "IPE-CHECK tmpfs rc=$?"
HOOK
	vm_mkfs ext4 "$t" "$d/data.img" || return 1
	rm -f "$d/hash.img"
	vm_verity_format "$VM_VERITY_TOOL" "$d/data.img" "$d/hash.img"
}

KEYS="systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root verity.sig=/etc/verity-init/roothash.p7s verity.fail=poweroff"

# keyring_uki_boot NAME P7S [WORD...] : the standalone image (mkinitramfs --cert, the policy
# $KEYRING_POLICY or $D/policy.conf, P7S as the root's signature, the db-signed IPE policy) in
# a db-signed UKI, booted under Secure Boot with a fresh swtpm.
keyring_uki_boot() {
	local name=$1 p7s=$2 rd w tpm; shift 2
	w=$(vm_workdir "$name") || return 1
	rd=$(agent_mkinitramfs -m "virtio_pci virtio_blk" -f ext4 -c "${KEYRING_POLICY:-$D/policy.conf}" \
		--cert "$D/maker.pem" -i "$p7s" /etc/verity-init/roothash.p7s \
		-i "$D/ipe.p7s" /etc/verity-init/ipe.p7s) || return 1
	{ uefi_uki "$w/uki.efi" "$rd" "roothash=$RH $KEYS${*:+ $*}" && uefi_esp "$w/esp.img" "$w/uki.efi"; } ||
		return 1
	tpm=$(tpm_start "$VM_WORKROOT/$name-tpm") || return 1
	# shellcheck disable=SC2046,SC2086  # tpm_start's words are QEMU arguments
	uefi_boot $(printf -- '--qemu %s ' $tpm) --disk "$D/data.img" --disk "$D/hash.img" "$name" "$w/esp.img"
	return 0
}

keyring_sealed_assert() {   # LOG : the agent's line, and the running root's refused key
	vm_assert_log_contains "$1" 'verity-init\[1\]: \.dm-verity keyring [0-9]+: 1 of 1 certificates added, sealed in' \
		"the agent did not add the certificate and seal the keyring" || return 1
	vm_assert_log_contains "$1" 'KEYRING-LINE [0-9a-f]+ .* keyring +\.dm-verity: 1' \
		"the running root does not see one key in the .dm-verity keyring" || return 1
	vm_assert_log_contains "$1" 'ADDKEY refused Operation not permitted' \
		"a key added from the running root was not refused: the keyring is not sealed" || return 1
}

test_maker_signed_root_boots_on_7x_with_the_whole_trust_chain() {
	keyring_uki_boot keyring-maker "$D/maker.p7s" dm_verity.keyring_unsealed=0 ||
		{ fail "uki"; return; }
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" 'Linux version 7\.' "not Debian's 7.x kernel" || return
	vm_assert_log_contains "$VM_LOG" 'secureboot: Secure boot enabled' "Secure Boot was not on" || return
	vm_assert_log_lacks "$VM_LOG" "dm_verity: unknown parameter" || return
	vm_assert_log_lacks "$VM_LOG" "integrity: Loaded X.509 cert 'device maker" \
		"the maker's certificate reached the platform keyring: the test proves nothing" || return
	keyring_sealed_assert "$VM_LOG" || return
	vm_assert_log_order "$VM_LOG" 'verity-init\[1\]: \.dm-verity keyring' 'verity-init\[1\]: root: root hash signature' || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: root: root hash signature \([0-9]+ bytes\) passed to the kernel as key verity-init:root' || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: dm_verity.require_signatures=Y' || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: measured into PCR 14 ' "no TPM measurement" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: IPE policy verity_root from /etc/verity-init/ipe.p7s active' \
		"the IPE policy is not active" || return
	# IPE's dmverity_signature: the kernel checked the root's signature with the maker's key
	vm_assert_log_contains "$VM_LOG" 'IPE-CHECK signed-root rc=0' "IPE did not let the signed root run" || return
	vm_assert_log_contains "$VM_LOG" 'IPE-CHECK tmpfs rc=126' "IPE let a program on tmpfs run" || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root ext4
}

test_root_signed_by_another_key_refused_by_the_kernel() {
	keyring_uki_boot keyring-other "$D/other.p7s" || { fail "uki"; return; }
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: \.dm-verity keyring [0-9]+: 1 of 1 certificates added, sealed in' || return
	vm_assert_log_contains "$VM_LOG" "device-mapper: table: [0-9:]+: verity: Root hash verification failed \\(-ENOKEY\\)" \
		"the kernel did not refuse the other key's signature" || return
	vm_assert_no_marker "$VM_LOG" || return
	agent_assert_fallback "$VM_LOG" poweroff
}

# The certificates alone, under a policy that asks for no signature: the keyring is filled and
# sealed, the root's signature (given on the command line) is still the kernel's to check, and
# the dm_verity.require_signatures guard, which only require_signature=kernel asks for, does not
# refuse the boot.
test_certificates_without_require_signature_boot() {
	KEYRING_POLICY=$D/policy-nosig.conf keyring_uki_boot keyring-nosig "$D/maker.p7s" ||
		{ fail "uki"; return; }
	vm_assert_log_contains "$VM_LOG" 'Linux version 7\.' "not Debian's 7.x kernel" || return
	vm_assert_log_lacks "$VM_LOG" 'require_signatures is not Y' \
		"the policy asks for no signature, yet the kernel's guard refused the boot" || return
	keyring_sealed_assert "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: root: root hash signature \([0-9]+ bytes\) passed to the kernel as key verity-init:root' || return
	vm_assert_log_lacks "$VM_LOG" 'verity-init\[1\]: dm_verity.require_signatures=Y' || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root ext4
}

# dracut (the host's, shell flavour) with the module: the certificate from dracut.conf's
# verity_init_certs=, the policy require_signature=kernel, the maker's signature in the image.
keyring_dracut_image() {   # OUT
	local c=$D/dracut-conf
	rm -rf "$c" && mkdir -p "$c/conf" "$c/certs" || return 1
	openssl x509 -in "$D/maker.pem" -outform DER -out "$c/certs/maker.der" || return 1
	echo "require_signature=kernel" >"$c/verity-init.conf"
	printf 'verity_init_conf="%s"\nverity_init_certs="%s"\n' "$c/verity-init.conf" "$c/certs" \
		>"$c/conf/50-keyring.conf" || return 1
	vm_dracut_initramfs "$1" --confdir "$c/conf" --include "$D/maker.p7s" /etc/verity-init/roothash.p7s
}

test_dracut_image_carries_the_certificate_and_the_agent_seals() {
	local rd=$D/dracut.img
	keyring_dracut_image "$rd" || { fail "dracut image"; return; }
	vm_boot --disk "$D/data.img" --disk "$D/hash.img" keyring-dracut "$rd" "roothash=$RH $KEYS" ||
		{ fail "boot"; return; }
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" 'Linux version 7\.' "not Debian's 7.x kernel" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: \.dm-verity keyring [0-9]+: 1 of 1 certificates added, sealed in' \
		"the agent's dracut runtime did not add the certificate and seal the keyring" || return
	vm_assert_log_contains "$VM_LOG" 'KEYRING-LINE [0-9a-f]+ .* keyring +\.dm-verity: 1' || return
	vm_assert_log_contains "$VM_LOG" 'ADDKEY refused Operation not permitted' \
		"a key added from the running root was not refused: the keyring is not sealed" || return
	vm_assert_marker "$VM_LOG" main
}

# shellcheck source=/dev/null
. shunit2
