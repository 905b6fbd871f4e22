#!/bin/bash
# Kernel-checked root-hash signatures that PASS (docs/signing.md), on Debian's 6.12 kernel:
# booted as a signed UKI under OVMF Secure Boot (tests/vm/lib-uefi.sh), it loads the firmware's
# db certificate (PkKek-1-snakeoil) into its .platform keyring, and dm-verity 1.10 with
# CONFIG_DM_VERITY_VERIFY_ROOTHASH_SIG_PLATFORM_KEYRING trusts that keyring. So the same db key
# that signs the UKI signs the root hash:
#   - roothash.p7s in the initramfs (verity.sig=/etc/verity-init/roothash.p7s), systemd's
#     verity-sig partition (verity.sig=/dev/vdc, verity-image sign --dps-sig) and the inline
#     root-hash-signature=base64: each boot when signed with the db key;
#   - a signature by another key is refused by the kernel with -ENOKEY, a db-key signature of
#     another root hash with -EKEYREJECTED (the dm table line names the reason);
#   - require_signature=kernel in the initramfs policy: a kernel-signed root boots (with
#     dm_verity.require_signatures forced to Y), a manifest-only root is refused by the policy
#     (panic), the same root boots with require_signature=yes.
# Both signatures made without the key on the build host (docs/signing.md, "Keys off the build
# host"): the db key imported into a SoftHSM2 token, the root hash signed through it
# (verity-image --pkcs7-key pkcs11:...), the UKI prepared, signed by sbsign --detached through
# the token as a signing service would, and joined: the firmware and the kernel accept both.
# Plus dm-verity 1.10's restart-on-error / panic-on-error, for real (the 6.1 kernel refuses
# them: hardening_status_test.sh): an I/O error (QEMU blkdebug) on the
# data block of /sbin/init restarts / panics the machine.
# Always the 6.12 series, whatever the suite's default.
VM_KERNEL_SERIES_REQUIRED=6.12
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"
# shellcheck source=tests/vm/sign_lib.sh
. "$(dirname "$0")/sign_lib.sh"
# shellcheck source=tests/vm/lib-uefi.sh
. "$(dirname "$0")/lib-uefi.sh"

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 veritysetup mkfs.ext4 debugfs cpio modprobe openssl minisign || exit 1
	uefi_require || exit 1
	[ -x "$VI_TOOL" ] || { echo "no $VI_TOOL" >&2; exit 1; }
	D=$(vm_workdir k612-sig)
	RH=$(vm_verity_setup ext4 "$D") || exit 1
	DBKEY=$(uefi_db_key) || exit 1
	read -r OKEY OCRT < <(uefi_other_key "$D") || exit 1
	OTHER=$(printf '%s' "$RH" | tr '0-9a-f' '1-9a-f0')
	# db key: roothash.p7s and the DPS signature partition
	"$VI_TOOL" sign "$D/hash.img" --data-device /dev/vda --pkcs7-key "$DBKEY" \
		--pkcs7-cert "$UEFI_DB_CERT" --p7s "$D/db.p7s" --dps-sig "$D/dps-db.img" >/dev/null || exit 1
	# another key, same root hash
	"$VI_TOOL" sign "$D/hash.img" --data-device /dev/vda --pkcs7-key "$OKEY" \
		--pkcs7-cert "$OCRT" --p7s "$D/other-key.p7s" >/dev/null || exit 1
	# the db key over another root hash (openssl, as the brief of signing.md shows)
	p7s "$OTHER" "$DBKEY" "$UEFI_DB_CERT" "$D/other-hash.p7s" || exit 1
	# inline: without the certificate, small enough for the command line
	p7s "$RH" "$DBKEY" "$UEFI_DB_CERT" "$D/db-nocerts.p7s" || exit 1
}

# p7s HEX KEY CERT OUT : the kernel's format: PKCS#7 over the ASCII hex root hash, no newline
p7s() {
	printf '%s' "$1" | openssl smime -sign -binary -noattr -nocerts -outform der \
		-signer "$3" -inkey "$2" -out "$4"
}

KEYS="systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root verity.fail=poweroff"

# uki_boot NAME INITRD CMDLINE [uefi_boot options...] : a signed UKI of the 6.12 kernel with
# INITRD and CMDLINE, booted under Secure Boot with the data and hash disks (+ options); then
# uki_asserts.
uki_boot() {
	uki_boot_only "$@" || { fail "uki"; return 1; }
	uki_asserts
}

uki_boot_only() {   # NAME INITRD CMDLINE [uefi_boot options...]
	local name=$1 rd=$2 cl=$3 w; shift 3
	w=$(vm_workdir "$name") || return 1
	{ uefi_uki "$w/uki.efi" "$rd" "$cl" && uefi_esp "$w/esp.img" "$w/uki.efi"; } || return 1
	uefi_boot --disk "$D/data.img" --disk "$D/hash.img" "$@" "$name" "$w/esp.img"
	return 0
}

# uki_asserts : the boot ended by itself, on the 6.12 kernel, under Secure Boot, with the db
# certificate in the platform keyring.
uki_asserts() {
	vm_assert_booted || return 1
	vm_assert_log_contains "$VM_LOG" 'Linux version 6\.12\.' "not the 6.12 kernel" || return 1
	vm_assert_log_contains "$VM_LOG" 'secureboot: Secure boot enabled' "Secure Boot was not on" || return 1
	vm_assert_log_contains "$VM_LOG" "integrity: Loaded X.509 cert 'SnakeOil" \
		"the kernel did not load the db certificate into its platform keyring" || return 1
}

# kernel_accepted LOG : the agent handed the signature to the kernel, the kernel accepted the
# table, the verified root ran.
kernel_accepted() {
	vm_assert_log_contains "$1" 'verity-init\[1\]: root: root hash signature \([0-9]+ bytes\) passed to the kernel as key verity-init:root' || return 1
	vm_assert_log_lacks "$1" 'Root hash verification failed' "the kernel refused the signature" || return 1
	vm_assert_marker "$1" main || return 1
	vm_assert_root_mapper "$1" root ext4
}

# kernel_refused LOG ERRNO : the kernel's signature check refused the table with ERRNO
# (-ENOKEY: no trusted key made the signature; -EKEYREJECTED: it does not match this root hash).
kernel_refused() {
	vm_assert_log_contains "$1" 'verity-init\[1\]: root: root hash signature \([0-9]+ bytes\) passed to the kernel' || return 1
	vm_assert_log_contains "$1" "device-mapper: table: [0-9:]+: verity: Root hash verification failed \\($2\\)" \
		"the kernel did not refuse the signature with $2" || return 1
	agent_assert_refused "$1" activate || return 1
	agent_assert_fallback "$1" poweroff
}

# roothash.p7s by the db key in an initramfs whose policy says require_signature=kernel: one boot
# for two tests (the p7s accepted; the policy's module parameter in force), since the policy
# changes nothing of how the signature reaches the kernel, which accepts it either way.
p7s_db_policy_boot() {
	local rd
	rd=$(sign_initramfs "require_signature=kernel" "/etc/verity-init/roothash.p7s=$D/db.p7s") || return 1
	uki_boot_only k612-policy-kernel "$rd" "roothash=$RH $KEYS verity.sig=/etc/verity-init/roothash.p7s"
}

test_p7s_in_initramfs_signed_by_db_key_boots() {
	vm_shared_boot p7s-db-policy p7s_db_policy_boot
	uki_asserts || return
	kernel_accepted "$VM_LOG"
}

test_p7s_signed_by_another_key_refused_ENOKEY() {
	local rd
	rd=$(sign_initramfs "" "/etc/verity-init/roothash.p7s=$D/other-key.p7s") || { fail "initramfs"; return; }
	uki_boot k612-p7s-otherkey "$rd" "roothash=$RH $KEYS verity.sig=/etc/verity-init/roothash.p7s" || return
	kernel_refused "$VM_LOG" -ENOKEY
}

test_p7s_by_db_key_for_another_root_hash_refused_EKEYREJECTED() {
	local rd
	rd=$(sign_initramfs "" "/etc/verity-init/roothash.p7s=$D/other-hash.p7s") || { fail "initramfs"; return; }
	uki_boot k612-p7s-otherhash "$rd" "roothash=$RH $KEYS verity.sig=/etc/verity-init/roothash.p7s" || return
	kernel_refused "$VM_LOG" -EKEYREJECTED
}

test_dps_signature_partition_signed_by_db_key_boots() {
	local rd
	rd=$(sign_initramfs "") || { fail "initramfs"; return; }
	uki_boot k612-dps-db "$rd" "roothash=$RH $KEYS verity.sig=/dev/vdc" --disk "$D/dps-db.img" || return
	kernel_accepted "$VM_LOG"
}

test_inline_base64_signature_by_db_key_boots() {
	local rd b64
	rd=$(sign_initramfs "") || { fail "initramfs"; return; }
	b64=$(base64 -w0 "$D/db-nocerts.p7s")
	uki_boot k612-inline-db "$rd" "roothash=$RH $KEYS systemd.verity_root_options=root-hash-signature=base64:$b64" || return
	kernel_accepted "$VM_LOG"
}

test_policy_require_signature_kernel_boots_a_kernel_signed_root() {
	vm_shared_boot p7s-db-policy p7s_db_policy_boot
	uki_asserts || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: dm_verity.require_signatures=Y, as the initramfs policy requires' \
		"the policy's module parameter was not in force" || return
	kernel_accepted "$VM_LOG"
}

# A root with a valid signed manifest (checked by the agent, not the kernel): refused by
# require_signature=kernel before anything is activated.
test_policy_require_signature_kernel_refuses_a_manifest_only_root() {
	local rd w
	w=$(vm_workdir k612-manifest)
	cp "$D/data.img" "$D/hash.img" "$w/" || { fail "copy"; return; }
	sign_manifest "$w/hash.img" 3 "$SIGN_KEYS/test.key" --embed || { fail "sign"; return; }
	rd=$(sign_initramfs "require_signature=kernel") || { fail "initramfs"; return; }
	if ! { uefi_uki "$w/uki.efi" "$rd" "verity.manifest=/dev/vdb verity.data=/dev/vda verity.hash=/dev/vdb root=/dev/mapper/root verity.fail=poweroff" &&
		uefi_esp "$w/esp.img" "$w/uki.efi"; }; then fail "uki"; return; fi
	uefi_boot --disk "$w/data.img" --disk "$w/hash.img" k612-policy-manifest "$w/esp.img"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: .*the initramfs policy requires a signature the kernel checks \(require_signature=kernel\).*a manifest alone is checked by the agent' \
		"the policy did not refuse the manifest-only root" || return
	vm_assert_log_lacks "$VM_LOG" 'device-mapper: verity: sha256' "a verity target was created" || return
	# a policy refusal distrusts the whole command line, verity.fail= included: the policy's panic
	agent_assert_fallback "$VM_LOG" panic
}

# The twin of the refusal above: the same manifest-signed root boots without the policy (so the
# refusal is the policy's, not a broken manifest).
test_manifest_only_root_boots_without_the_kernel_policy() {
	local rd w
	w=$VM_WORKROOT/k612-manifest
	[ -e "$w/hash.img" ] || { fail "needs test_policy_require_signature_kernel_refuses_a_manifest_only_root first"; return; }
	rd=$(sign_initramfs "require_signature=yes") || { fail "initramfs"; return; }
	vm_boot --disk "$w/data.img" --disk "$w/hash.img" k612-manifest-ok "$rd" \
		"verity.manifest=/dev/vdb verity.data=/dev/vda verity.hash=/dev/vdb root=/dev/mapper/root verity.fail=poweroff"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root ext4
}

# The db key on a PKCS#11 token (SoftHSM2, a private SOFTHSM2_CONF in the work directory): the
# root-hash signature made on the token, the UKI prepared here, signed on the token by sbsign
# --detached (the signing service) and joined. One boot: the firmware accepts the joined UKI
# under Secure Boot, the kernel the token's root-hash signature, the root runs.
test_token_signed_root_hash_and_joined_uki_boot() {
	local w rd uri pin=4711 out
	for t in softhsm2-util pkcs11-tool sbattach; do
		command -v $t >/dev/null || { fail "$t missing (tests/deps.sh)"; return; }
	done
	w=$(vm_workdir k612-token)
	rm -rf "$w/tokens" && mkdir -p "$w/tokens"
	printf 'directories.tokendir = %s\nobjectstore.backend = file\nlog.level = ERROR\n' \
		"$w/tokens" >"$w/softhsm2.conf"
	export SOFTHSM2_CONF=$w/softhsm2.conf
	if ! { softhsm2-util --init-token --free --label db-token --pin "$pin" --so-pin 0000 >/dev/null &&
		pkcs11-tool --module /usr/lib/softhsm/libsofthsm2.so --token-label db-token --login \
			--pin "$pin" --write-object "$(uefi_db_key)" --type privkey --id 01 --label db \
			>/dev/null 2>&1; }; then fail "token"; return; fi
	uri="pkcs11:token=db-token;object=db;type=private"
	out=$(VERITY_INIT_PKCS11_PIN=$pin "$VI_TOOL" sign "$D/hash.img" --data-device /dev/vda \
		--pkcs7-key "$uri" --pkcs7-cert "$UEFI_DB_CERT" --p7s "$w/token.p7s" 2>&1) ||
		{ fail "verity-image sign on the token: $out"; return; }
	rd=$(sign_initramfs "" "/etc/verity-init/roothash.p7s=$w/token.p7s") || { fail "initramfs"; return; }
	local cl="roothash=$RH $KEYS verity.sig=/etc/verity-init/roothash.p7s"
	uefi_uki "$w/unsigned.efi" "$rd" "$cl" --unsigned --prepare >/dev/null || { fail "prepare"; return; }
	printf '%s' "$pin" >"$w/pin"
	sbsign --engine pkcs11 --key "$uri?pin-source=file:$w/pin" --cert "$UEFI_DB_CERT" \
		--detached --output "$w/uki.pk7" "$w/unsigned.efi" >/dev/null 2>&1 </dev/null ||
		{ fail "sbsign --detached on the token"; return; }
	if ! { uefi_uki "$w/uki.efi" "$rd" "$cl" --join-signature "$w/uki.pk7" --cert "$UEFI_DB_CERT" &&
		uefi_esp "$w/esp.img" "$w/uki.efi"; }; then fail "join"; return; fi
	unset SOFTHSM2_CONF
	uefi_boot --disk "$D/data.img" --disk "$D/hash.img" k612-token "$w/esp.img"
	uki_asserts || return
	kernel_accepted "$VM_LOG"
}

# restart-on-error / panic-on-error (dm-verity 1.10): an I/O error (not a hash mismatch) reading
# /sbin/init's data block, injected by QEMU's blkdebug on the data disk (/dev/vdb here; the hash
# disk is /dev/vda). Plain -kernel boots: no firmware needed.
_ioerr_boot() {   # NAME OPTION
	local w rh off rd
	w=$(vm_workdir "$1")
	rh=$(vm_verity_setup ext4 "$w") || { fail "setup"; return 1; }
	off=$(vm_file_offset "$w/data.img" ext4 /sbin/init) || { fail "offset"; return 1; }
	printf '[inject-error]\nevent = "read_aio"\nerrno = "5"\nsector = "%s"\nonce = "off"\n' \
		$(( off / 512 )) >"$w/blkdebug.conf"
	# shellcheck disable=SC2119
	rd=$(agent_initramfs) || { fail "initramfs"; return 1; }
	VM_QEMU_EXTRA="-drive driver=raw,if=virtio,read-only=on,file.driver=blkdebug,file.config=$w/blkdebug.conf,file.image.driver=file,file.image.filename=$w/data.img" \
	vm_boot --disk "$w/hash.img" "$1" "$rd" \
		"roothash=$rh systemd.verity_root_data=/dev/vdb systemd.verity_root_hash=/dev/vda root=/dev/mapper/root systemd.verity_root_options=$2 verity.fail=poweroff"
	vm_assert_booted || return 1
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: root: /dev/mapper/root verified .*status V' \
		"the agent did not activate the root with $2" || return 1
	vm_assert_log_contains "$VM_LOG" "I/O error, dev vdb, sector $(( off / 512 ))" "no injected I/O error" || return 1
	vm_assert_log_lacks "$VM_LOG" 'verity-init\[1\]: fallback' "the agent fell back instead" || return 1
	vm_assert_no_marker "$VM_LOG"
}

test_restart_on_error_restarts_on_an_io_error() {
	_ioerr_boot k612-restart-on-error restart-on-error || return
	vm_assert_log_contains "$VM_LOG" "reboot: Restarting system with command 'dm-verity device has I/O error'" \
		"the kernel did not restart on the I/O error"
}

test_panic_on_error_panics_on_an_io_error() {
	_ioerr_boot k612-panic-on-error panic-on-error || return
	vm_assert_log_contains "$VM_LOG" 'Kernel panic - not syncing: dm-verity device has I/O error' \
		"the kernel did not panic on the I/O error"
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
