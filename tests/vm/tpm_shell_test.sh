#!/bin/bash
# No unmeasured shell where a TPM is or may be (docs/security.md): OVMF (Secure Boot off) starts
# an unsigned UKI with the standalone agent, a swtpm behind QEMU's tpm-tis, a wrong root hash,
# an initramfs policy that allows the shell (require_tpm=no, the default) and the fail list
# shell,reboot. With the TPM visible the fallback is measured and the shell opens, as before.
# With the TPM hidden from the kernel (its built-in drivers' initcalls blacklisted, or acpi=off)
# the fallback cannot be measured, so the shell is refused with one line naming why, and the
# next action (reboot) is taken. Without any TPM the shell still opens.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"
# shellcheck source=tests/vm/lib-uefi.sh
. "$(dirname "$0")/lib-uefi.sh"
# shellcheck source=tests/vm/lib-tpm.sh
. "$(dirname "$0")/lib-tpm.sh"

# Debian builds tpm_tis and tpm_crb into the kernel: module_blacklist= does not stop them, the
# blacklist of their init functions does (lib/boot/tpmhint.c knows both words).
HIDE_DRIVERS="initcall_blacklist=init_tis,crb_acpi_driver_init"
REFUSED='verity-init\[1\]: fallback shell: the TPM did not record the fallback \(no TPM device\) and'

oneTimeSetUp() {
	uefi_require || exit 1
	tpm_require || exit 1
	vm_require_tools qemu-system-x86_64 mkfs.ext4 cpio || exit 1
	D=$(vm_workdir tpm-shell)
	RH=$(vm_verity_setup ext4 "$D") || exit 1
	BAD=$(printf '%s' "$RH" | tr '0-9a-f' '1-9a-f0')
	RD=$(agent_initramfs --policy "allow_shell=yes" --busybox) || exit 1
}

# shell_boot NAME CMDLINE [--no-tpm] : the bad root under OVMF with a fresh swtpm (unless
# --no-tpm), the fail list shell,reboot; stops 2 s after a shell prompt shows (status 125).
shell_boot() {
	local name=$1 cl=$2 w extra a args=()
	w=$(vm_workdir "$name") || return 1
	if [ "${3:-}" != --no-tpm ]; then
		extra=$(tpm_start "$w/tpm") || { fail "swtpm"; return 1; }
		for a in $extra; do args+=(--qemu "$a"); done
	fi
	uefi_uki "$w/uki.efi" "$RD" "roothash=$BAD systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root verity.fail=shell,reboot $cl" --unsigned ||
		{ fail "uki"; return 1; }
	uefi_esp "$w/esp.img" "$w/uki.efi" || { fail "esp"; return 1; }
	uefi_boot --no-secure-boot --timeout 240 --until '^/ # ' --disk "$D/data.img" \
		--disk "$D/hash.img" "${args[@]}" "$name" "$w/esp.img"
	case $VM_STATUS in 0|125) ;; *) fail "$name: boot ended with status $VM_STATUS"; return 1 ;; esac
	agent_assert_refused "$VM_LOG" preflight
}

# assert_no_shell WHY-REGEX : the shell refused for WHY, the reboot taken, no prompt.
assert_no_shell() {
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: fallback not measured: .*no TPM" \
		"the agent did not say the fallback went unmeasured" || return 1
	vm_assert_log_contains "$VM_LOG" "$REFUSED $1" "the shell was not refused for /$1/" || return 1
	vm_assert_log_lacks "$VM_LOG" 'verity-init\[1\]: fallback: shell' "the shell was opened" || return 1
	vm_assert_log_lacks "$VM_LOG" '^/ # ' "a shell prompt on the console" || return 1
	agent_assert_fallback "$VM_LOG" reboot
}

test_visible_tpm_the_shell_opens_measured() {
	shell_boot tpm-shell-visible "" || return
	assertEquals "the shell waits at its prompt" 125 "$VM_STATUS"
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: measured into PCR 14 .*: dm-verity-fallback:preflight' \
		"the fallback was not measured" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: fallback: shell' || return
	vm_assert_log_contains "$VM_LOG" '^/ # ' "no shell prompt on the console"
}

# The ACPI TPM2 table is still there: the firmware announces the TPM the kernel does not show.
test_drivers_blacklisted_no_shell() {
	shell_boot tpm-shell-blacklist "$HIDE_DRIVERS" || return
	vm_assert_log_lacks "$VM_LOG" 'tpm_tis MSFT0101:00: 2.0 TPM' "the TPM driver ran" || return
	assert_no_shell 'the firmware announces one: ACPI TPM2 table'
}

# No ACPI at all: the kernel's first records still name the firmware's EFI TPM event log tables.
test_acpi_off_no_shell() {
	shell_boot tpm-shell-acpi-off "acpi=off" || return
	vm_assert_log_contains "$VM_LOG" 'efi: .*TPMEventLog=' "the kernel did not name the EFI TPM event log" || return
	assert_no_shell 'the firmware announces one: EFI TPM event log in the kernel log'
}

# No TPM, no word that hides one: the shell opens as before.
test_no_tpm_the_shell_opens() {
	shell_boot tpm-shell-none "" --no-tpm || return
	assertEquals "the shell waits at its prompt" 125 "$VM_STATUS"
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: fallback not measured: no TPM' || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: fallback: shell' || return
	vm_assert_log_contains "$VM_LOG" '^/ # ' "no shell prompt on the console"
}

# shellcheck source=/dev/null
. shunit2
