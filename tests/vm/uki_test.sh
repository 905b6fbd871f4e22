#!/bin/bash
# The trust chain from the firmware: OVMF with Secure Boot (snakeoil PK/KEK/db) starts a Unified
# Kernel Image built by verity-init/mkinitramfs/verity-init-mkuki.sh (systemd-stub 252 + the kernel + the
# agent's initramfs + a .cmdline carrying the root hash) only when its PE signature is from a db
# key and covers the image as it is; the stub (which checks nothing itself) then hands the
# embedded command line to the kernel and ignores one passed by a loader.
#   - a UKI signed with the db key boots the verified root (marker, / on /dev/mapper/root), on
#     the boot of systemd-boot under Secure Boot below;
#   - an unsigned UKI, a UKI signed by a key not in db, and the signed UKI with one byte of its
#     .cmdline changed, are refused by the firmware (Access Denied) and no kernel starts;
#   - systemd-boot (signed too) starting the UKI with an entry whose "options" carry another root
#     hash: under Secure Boot the kernel gets the embedded line and boots the verified root; the
#     twin without Secure Boot shows the loader's options really reach the stub (there they win,
#     and the agent refuses the other root hash);
#   - verity-init-mkinitramfs --uki (initramfs + UKI, signed, in one step) boots the same way.
# Runs on the default kernel series (VM_KERNEL_SERIES); the 6.12 signature boots are in
# kernel612_sig_test.sh.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"
# shellcheck source=tests/vm/lib-uefi.sh
. "$(dirname "$0")/lib-uefi.sh"

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 veritysetup mkfs.ext4 debugfs cpio modprobe || exit 1
	uefi_require || exit 1
	D=$(vm_workdir uki)
	RH=$(vm_verity_setup ext4 "$D") || exit 1
	# shellcheck disable=SC2119
	RD=$(agent_initramfs) || exit 1
	KEYS="systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root verity.fail=poweroff"
	uefi_uki "$D/signed.efi" "$RD" "roothash=$RH $KEYS" || exit 1
	OTHER=$(printf '%s' "$RH" | tr '0-9a-f' '1-9a-f0')
}

# The signed UKI, started by the firmware through systemd-boot (its LoadImage checks the UKI
# against db as the firmware's boot manager does; verity-init-mkinitramfs's UKI below is started
# directly): one boot for this test and the loader test under Secure Boot.
test_signed_uki_boots_the_verified_root() {
	sbverify --cert "$UEFI_DB_CERT" "$D/signed.efi" >/dev/null 2>&1 || { fail "sbverify: the UKI is not signed by the db key"; return; }
	vm_shared_boot sdboot-sb sdboot_sb_boot
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" 'secureboot: Secure boot enabled' "the kernel did not see Secure Boot on" || return
	vm_assert_log_contains "$VM_LOG" "Command line: .*roothash=$RH " "the kernel did not get the embedded command line" || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root ext4
}

test_unsigned_uki_refused_by_firmware() {
	uefi_uki "$D/unsigned.efi" "$RD" "roothash=$RH $KEYS" --unsigned || { fail "uki"; return; }
	if sbverify --list "$D/unsigned.efi" 2>/dev/null | grep -q 'signature 1'; then fail "the UKI has a signature"; return; fi
	uefi_esp "$D/esp-unsigned.img" "$D/unsigned.efi" || { fail "esp"; return; }
	uefi_boot --timeout 90 --until "$UEFI_REFUSED_UNTIL" --disk "$D/data.img" --disk "$D/hash.img" \
		uki-unsigned "$D/esp-unsigned.img"
	uefi_assert_refused_by_firmware
}

# Signed, but with a key that is not in the firmware's db.
test_uki_signed_by_another_key_refused_by_firmware() {
	local ok oc
	read -r ok oc < <(uefi_other_key "$D") || { fail "key"; return; }
	uefi_uki "$D/otherkey.efi" "$RD" "roothash=$RH $KEYS" --key "$ok" --cert "$oc" || { fail "uki"; return; }
	sbverify --cert "$oc" "$D/otherkey.efi" >/dev/null 2>&1 || { fail "the UKI is not signed by the other key"; return; }
	uefi_esp "$D/esp-otherkey.img" "$D/otherkey.efi" || { fail "esp"; return; }
	uefi_boot --timeout 90 --until "$UEFI_REFUSED_UNTIL" --disk "$D/data.img" --disk "$D/hash.img" \
		uki-otherkey "$D/esp-otherkey.img"
	uefi_assert_refused_by_firmware
}

# One byte of the signed UKI's .cmdline (inside the root hash) changed after signing: the
# Authenticode hash no longer matches the signature.
test_uki_with_one_cmdline_byte_changed_refused_by_firmware() {
	local off
	cp "$D/signed.efi" "$D/tampered.efi"
	# objdump -h: "Idx Name Size VMA LMA File-off Algn"; the root hash starts after "roothash="
	off=$(objdump -h "$D/tampered.efi" | awk '$2 == ".cmdline" { print $6 }')
	[ -n "$off" ] || { fail "no .cmdline section"; return; }
	off=$(( 0x$off + $(vm_find_string "$D/tampered.efi" "roothash=$RH") - 0x$off + 9 ))
	vm_flip_byte "$D/tampered.efi" "$off" || { fail "flip"; return; }
	if sbverify --cert "$UEFI_DB_CERT" "$D/tampered.efi" >/dev/null 2>&1; then
		fail "sbverify still accepts the changed UKI"; return
	fi
	uefi_esp "$D/esp-tampered.img" "$D/tampered.efi" || { fail "esp"; return; }
	uefi_boot --timeout 90 --until "$UEFI_REFUSED_UNTIL" --disk "$D/data.img" --disk "$D/hash.img" \
		uki-tampered "$D/esp-tampered.img"
	uefi_assert_refused_by_firmware
}

# systemd-boot as the loader: BOOTX64.EFI = systemd-bootx64.efi (signed with the db key), one
# entry starting the UKI with "options" that name another root hash and a token.
_sdboot_esp() {   # OUT
	local key
	key=$(uefi_db_key) || return 1
	sbsign --key "$key" --cert "$UEFI_DB_CERT" --output "$D/sdboot.efi" "$UEFI_SDBOOT" >/dev/null 2>&1 || return 1
	printf 'timeout 0\ndefault verity.conf\n' >"$D/loader.conf"
	printf 'title verity\nefi /EFI/Linux/uki.efi\noptions %s roothash=%s %s LOADER_OPTIONS_USED\n' \
		"$VM_CMDLINE_BASE" "$OTHER" "$KEYS" >"$D/verity.conf"
	uefi_esp "$1" "$D/sdboot.efi" loader/loader.conf="$D/loader.conf" \
		loader/entries/verity.conf="$D/verity.conf" EFI/Linux/uki.efi="$D/signed.efi"
}

sdboot_sb_boot() {
	_sdboot_esp "$D/esp-sdboot.img" || return 1
	uefi_boot --disk "$D/data.img" --disk "$D/hash.img" uki-sdboot-sb "$D/esp-sdboot.img"
}

test_loader_options_do_not_override_the_embedded_cmdline_under_secure_boot() {
	vm_shared_boot sdboot-sb sdboot_sb_boot
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" 'secureboot: Secure boot enabled' "Secure Boot was not on" || return
	vm_assert_log_contains "$VM_LOG" "Command line: .*roothash=$RH " "the kernel did not get the embedded root hash" || return
	vm_assert_log_lacks "$VM_LOG" 'Command line: .*LOADER_OPTIONS_USED' "the loader's options reached the kernel" || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root ext4
}

# The twin: same ESP, firmware without Secure Boot. The loader's options do reach the stub and,
# without Secure Boot, replace the embedded line: the agent sees the other root hash and refuses.
test_loader_options_win_without_secure_boot() {
	_sdboot_esp "$D/esp-sdboot-nosb.img" || { fail "esp"; return; }
	uefi_boot --no-secure-boot --disk "$D/data.img" --disk "$D/hash.img" uki-sdboot-nosb "$D/esp-sdboot-nosb.img"
	vm_assert_booted || return
	vm_assert_log_lacks "$VM_LOG" 'secureboot: Secure boot enabled' "Secure Boot was on" || return
	vm_assert_log_contains "$VM_LOG" "Command line: .*roothash=$OTHER .*LOADER_OPTIONS_USED" \
		"the loader's options did not reach the kernel (the Secure Boot test would prove nothing)" || return
	agent_assert_refused "$VM_LOG" preflight 'root hash mismatch' || return
	agent_assert_fallback "$VM_LOG" poweroff
}

# The one-step path: verity-init-mkinitramfs --uki builds the initramfs, then the UKI (through
# verity-init-mkuki), signed with the db key; the firmware starts it and the root is verified.
test_uki_from_mkinitramfs_boots() {
	local key
	key=$(uefi_db_key) || { fail "key"; return; }
	"$VM_TOPDIR/verity-init/mkinitramfs/verity-init-mkinitramfs.sh" -k "$VM_KVER" -a "$VM_AGENT" \
		-m "virtio_pci virtio_blk" -f ext4 --uki "$D/mk.efi" --kernel "$VM_KERNEL" \
		--cmdline "$VM_CMDLINE_BASE roothash=$RH $KEYS" --sign-key "$key" --sign-cert "$UEFI_DB_CERT" \
		"$D/mk-initrd.img" >"$D/mk.out" 2>&1 || { fail "verity-init-mkinitramfs --uki: $(cat "$D/mk.out")"; return; }
	sbverify --cert "$UEFI_DB_CERT" "$D/mk.efi" >/dev/null 2>&1 || { fail "the UKI is not signed by the db key"; return; }
	uefi_esp "$D/esp-mk.img" "$D/mk.efi" || { fail "esp"; return; }
	uefi_boot --disk "$D/data.img" --disk "$D/hash.img" uki-mkinitramfs "$D/esp-mk.img"
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" 'secureboot: Secure boot enabled' "Secure Boot was not on" || return
	vm_assert_log_contains "$VM_LOG" "Command line: .*roothash=$RH " "the kernel did not get the embedded command line" || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root ext4
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
