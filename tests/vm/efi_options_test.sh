#!/bin/bash
# systemd reads the EFI variable SystemdOptions as more command line (docs/security.md): OVMF
# (Secure Boot off: no keys enrolled) keeps one variable store across two boots. Boot 1, a busybox initramfs writes
# SystemdOptions = "init=/bin/sh" through efivarfs, as root on any system of the machine could.
# Boot 2, the standalone agent's UKI with a good root hash refuses the command line for it and
# takes the fail list (poweroff); the same UKI boots the root with a store that has no such
# variable.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"
# shellcheck source=tests/vm/lib-uefi.sh
. "$(dirname "$0")/lib-uefi.sh"

VAR=SystemdOptions-8cf2644b-4b0b-428f-9387-6d876050dc67

oneTimeSetUp() {
	uefi_require || exit 1
	vm_require_tools qemu-system-x86_64 mkfs.ext4 cpio busybox || exit 1
	D=$(vm_workdir efi-options)
	RH=$(vm_verity_setup ext4 "$D") || exit 1
	# Debian builds efivarfs as a module: verity-init-mkinitramfs puts it in (a base module)
	RD=$(agent_initramfs --modules "$VM_MODULES_DEFAULT efivarfs") || exit 1
	CL="roothash=$RH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb rootfstype=ext4 verity.fail=poweroff"
	# attributes NV|BS|RT, then "init=/bin/sh" in UTF-16LE with its NUL, as bootctl writes it
	cat >"$D/write-var.sh" <<EOS
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
while read -r m; do insmod "\$m"; done </etc/verity-init/modules
mount -t efivarfs efivarfs /sys/firmware/efi/efivars
printf '\\007\\000\\000\\000i\\000n\\000i\\000t\\000=\\000/\\000b\\000i\\000n\\000/\\000s\\000h\\000\\000\\000' \\
	>/sys/firmware/efi/efivars/$VAR && echo "EFI-VARIABLE-WRITTEN \$(wc -c </sys/firmware/efi/efivars/$VAR)"
poweroff -f
EOS
	WRD=$D/initrd-write.img
	vm_initramfs --busybox --modules efivarfs "$WRD" "$D/write-var.sh" >/dev/null || exit 1
}

uki_boot() {   # NAME INITRD CMDLINE VARS
	local w
	w=$(vm_workdir "$1") || return 1
	uefi_uki "$w/uki.efi" "$2" "$3" --unsigned || { fail "uki"; return 1; }
	uefi_esp "$w/esp.img" "$w/uki.efi" || { fail "esp"; return 1; }
	# the Secure Boot build (its variable store is in SMM-guarded flash, which persists; the
	# plain build falls back to variables in RAM on this machine) with an empty store: no keys
	# enrolled, so Secure Boot is off
	UEFI_VARS=$UEFI_VARS_NOSB uefi_boot --timeout 240 --vars "$4" --disk "$D/data.img" \
		--disk "$D/hash.img" "$1" "$w/esp.img"
	[ "$VM_STATUS" = 0 ] || { fail "$1: boot ended with status $VM_STATUS"; return 1; }
}

test_without_the_variable_the_root_boots() {
	rm -f "$D/vars-clean.fd"
	uki_boot efi-options-clean "$RD" "$CL" "$D/vars-clean.fd" || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_log_lacks "$VM_LOG" "$VAR" "the agent named the variable"
}

test_systemd_options_variable_refuses_the_boot() {
	rm -f "$D/vars.fd"
	uki_boot efi-options-write "$WRD" "console=ttyS0" "$D/vars.fd" || return
	vm_assert_log_contains "$VM_LOG" 'EFI-VARIABLE-WRITTEN 30' "the variable was not written" || return
	uki_boot efi-options-refused "$RD" "$CL" "$D/vars.fd" || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\\[1\\]: command line refused: the EFI variable $VAR adds words to systemd's command line" \
		"the agent did not refuse the variable" || return
	agent_assert_fallback "$VM_LOG" poweroff
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
