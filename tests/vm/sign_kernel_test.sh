#!/bin/bash
# Issue 6, path 1: kernel-verified root-hash signatures (CONFIG_DM_VERITY_VERIFY_ROOTHASH_SIG).
# `verity-image sign --p7s/--dps-sig` signs the hex root hash with tests/vm/keys/pkcs7-test.*;
# the agent hands the signature to the kernel keyring and names it in the table
# (root_hash_sig_key_desc). The stock Debian kernel does not trust that certificate, so the
# kernel must refuse the table and the agent must fall back: these tests assert that the refusal
# came from the kernel's signature check, for a roothash.p7s in the initramfs and for systemd's
# verity-signature partition JSON on a disk, and for a signature inline on the command line
# (systemd's root-hash-signature=base64:). A signature partition for another root hash is
# refused by the agent before the kernel sees it. (A kernel trusting the test key would need a
# custom build with CONFIG_SYSTEM_EXTRA_CERTIFICATE: see docs/signing.md.)
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"
# shellcheck source=tests/vm/sign_lib.sh
. "$(dirname "$0")/sign_lib.sh"

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 veritysetup mkfs.ext4 debugfs cpio modprobe openssl || exit 1
	[ -x "$VI_TOOL" ] || { echo "no $VI_TOOL" >&2; exit 1; }
	D=$(vm_workdir sign-kernel)
	RH=$(vm_verity_setup ext4 "$D") || exit 1
	"$VI_TOOL" sign "$D/hash.img" --data-device /dev/vda --pkcs7-key "$SIGN_KEYS/pkcs7-test.key" \
		--pkcs7-cert "$SIGN_KEYS/pkcs7-test.crt" --p7s "$D/roothash.p7s" \
		--dps-sig "$D/dps.img" >/dev/null || exit 1
	# without the certificate (-nocerts), small enough for the 2048-byte x86 command line
	printf %s "$RH" | openssl smime -sign -binary -noattr -nocerts -outform der \
		-signer "$SIGN_KEYS/pkcs7-test.crt" -inkey "$SIGN_KEYS/pkcs7-test.key" \
		-out "$D/roothash-nocerts.p7s" || exit 1
	RD_P7S=$(sign_initramfs "" "/etc/verity-init/roothash.p7s=$D/roothash.p7s") || exit 1
}

KEYS="systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root verity.fail=poweroff"

# kernel_refused LOG : the agent gave the kernel the signature, the kernel's check refused the
# table (and said why), the agent reported an activation failure and powered off.
kernel_refused() {
	local log=$1
	vm_assert_log_contains "$log" 'verity-init\[1\]: root: root hash signature \([0-9]+ bytes\) passed to the kernel as key verity-init:root' || return 1
	vm_assert_log_contains "$log" 'device-mapper: table: [0-9:]+: verity: Root hash verification failed' \
		"no refusal by the kernel's root hash signature check" || return 1
	agent_assert_refused "$log" activate || return 1
	vm_assert_log_contains "$log" 'verity-init\[1\]: root: refused table: .*root_hash_sig_key_desc verity-init:root' || return 1
	agent_assert_fallback "$log" poweroff
}

# roothash.p7s in the initramfs, named by verity.sig=, under an initramfs policy with
# require_signature=kernel and a command line that says dm_verity.require_signatures=0. One boot
# for the two tests below: the policy adds the module parameter and changes nothing of how the
# signature reaches the kernel, which refuses the untrusted key either way.
p7s_policy_boot() {
	local rd
	rd=$(sign_initramfs "require_signature=kernel" "/etc/verity-init/roothash.p7s=$D/roothash.p7s") ||
		{ vm_die "initramfs"; return 1; }
	vm_boot --disk "$D/data.img" --disk "$D/hash.img" sign-kernel-policy "$rd" \
		"roothash=$RH $KEYS verity.sig=/etc/verity-init/roothash.p7s dm_verity.require_signatures=0"
}

# require_signature=kernel in the policy forces dm_verity.require_signatures=1 on the module the
# agent loads, whatever the command line says; the kernel then checks the signature as before.
test_policy_requiring_kernel_signatures_forces_the_module_parameter() {
	vm_shared_boot p7s-policy p7s_policy_boot
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: dm_verity.require_signatures=Y, as the initramfs policy requires' \
		"the policy's module parameter was not in force" || return
	kernel_refused "$VM_LOG"
}

test_p7s_in_initramfs_untrusted_key_refused_by_kernel() {
	vm_shared_boot p7s-policy p7s_policy_boot
	vm_assert_booted || return
	kernel_refused "$VM_LOG"
}

# systemd's inline form: the DER signature itself, base64, in systemd.verity_root_options=
# (the initramfs also holds roothash.p7s, but nothing on this line names it)
test_inline_base64_signature_untrusted_key_refused_by_kernel() {
	local b64
	b64=$(base64 -w0 "$D/roothash-nocerts.p7s")
	vm_boot --disk "$D/data.img" --disk "$D/hash.img" sign-kernel-inline "$RD_P7S" \
		"roothash=$RH $KEYS systemd.verity_root_options=root-hash-signature=base64:$b64"
	vm_assert_booted || return
	kernel_refused "$VM_LOG"
}

test_dps_signature_partition_untrusted_key_refused_by_kernel() {
	vm_boot --disk "$D/data.img" --disk "$D/hash.img" --disk "$D/dps.img" sign-kernel-dps \
		"$RD_P7S" "roothash=$RH $KEYS verity.sig=/dev/vdc"
	vm_assert_booted || return
	kernel_refused "$VM_LOG"
}

test_dps_signature_for_another_root_hash_refused_by_agent() {
	local other
	other=$(printf '%s' "$RH" | tr '0-9a-f' '1-9a-f0')
	sed "s/$RH/$other/" "$D/dps.img" >"$D/dps-other.img"
	vm_boot --disk "$D/data.img" --disk "$D/hash.img" --disk "$D/dps-other.img" \
		sign-kernel-dps-other "$RD_P7S" "roothash=$RH $KEYS verity.sig=/dev/vdc"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: root: root hash signature: the signature partition is for another root hash' || return
	vm_assert_log_lacks "$VM_LOG" 'device-mapper: verity: sha256' "a verity target was created" || return
	agent_assert_fallback "$VM_LOG" poweroff
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
