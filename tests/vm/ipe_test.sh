#!/bin/bash
# IPE (docs/signing.md, "IPE"), on Debian's 6.12 kernel booted as a signed UKI under OVMF
# Secure Boot, so the firmware's db key (snakeoil) is in the kernel's platform keyring. The
# initramfs policy says ipe_policy=/etc/verity-init/ipe.p7s: the agent loads that policy
# (docs/examples/ipe-verity-root.pol, signed with the db key) and activates it right before
# the switch (read before it, activated after it, right before init runs). The root's hash is signed with the db key too (a kernel-checked signature). On the
# booted system:
#   - a program on the signed root runs;
#   - the same program copied to a tmpfs is refused (exit 126), and the kernel's audit record
#     names the IPE rule;
#   - the same program on a second verity mount without a signature is refused (exit 126).
# And a policy signed by a key the kernel does not trust is refused by the kernel: the agent
# names the reason and takes the fail action; nothing is switched to.
# Always the 6.12 series (IPE arrived in 6.12).
VM_KERNEL_SERIES_REQUIRED=6.12
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"
# shellcheck source=tests/vm/sign_lib.sh
. "$(dirname "$0")/sign_lib.sh"
# shellcheck source=tests/vm/lib-uefi.sh
. "$(dirname "$0")/lib-uefi.sh"

POLICY_TEXT=$(cd "$VM_SRCDIR/../.." && pwd)/docs/examples/ipe-verity-root.pol

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 mkfs.ext4 debugfs cpio modprobe openssl || exit 1
	uefi_require || exit 1
	if [ ! -x "$VI_TOOL" ] || [ ! -x "$VM_AGENT" ]; then echo "no $VI_TOOL or $VM_AGENT" >&2; exit 1; fi
	D=$(vm_workdir ipe)
	DBKEY=$(uefi_db_key) || exit 1
	read -r OKEY OCRT < <(uefi_other_key "$D") || exit 1
	# the unsigned second verity device: the "other" test root
	URH=$(VM_ROOT_ID=other vm_verity_setup ext4 "$D/unsigned") || exit 1
	RH=$(ipe_root "$D") || exit 1
	"$VI_TOOL" sign "$D/hash.img" --data-device /dev/vda --pkcs7-key "$DBKEY" \
		--pkcs7-cert "$UEFI_DB_CERT" --p7s "$D/root.p7s" >/dev/null || exit 1
	ipe_sign "$DBKEY" "$UEFI_DB_CERT" "$D/ipe-db.p7s" || exit 1
	ipe_sign "$OKEY" "$OCRT" "$D/ipe-other.p7s" || exit 1
}

# ipe_sign KEY CERT OUT : the example policy signed as the kernel wants it (PKCS#7, attached).
ipe_sign() {
	openssl smime -sign -in "$POLICY_TEXT" -signer "$2" -inkey "$1" -noattr -nodetach \
		-binary -outform der -out "$3"
}

# ipe_root DIR : the test root plus the static agent and a hook that runs the checks; formatted
# into DIR/data.img + DIR/hash.img; prints the root hash.
ipe_root() {
	local d=$1 t=$1/tree
	rm -rf "$t"
	vm_rootfs_tree "$t" main || return 1
	mkdir -p "$t/usr/sbin" && cp "$VM_AGENT" "$t/usr/sbin/verity-init" || return 1
	cat >"$t/etc/vm-root-hook" <<HOOK
/bin/busybox true; echo "IPE-CHECK signed-root rc=\$?"
mount -t tmpfs tmpfs /tmp && cp /bin/busybox /tmp/busybox
/tmp/busybox true; echo "IPE-CHECK tmpfs rc=\$?"
/usr/sbin/verity-init setup --cmdline "verity.name=unsigned roothash=$URH verity.data=/dev/vdc verity.hash=/dev/vdd" >/dev/null 2>&1
echo "IPE-CHECK unsigned-setup rc=\$?"
mount -o ro /dev/mapper/unsigned /mnt
/mnt/bin/busybox true; echo "IPE-CHECK unsigned-verity rc=\$?"
HOOK
	vm_mkfs ext4 "$t" "$d/data.img" || return 1
	rm -f "$d/hash.img"
	vm_verity_format "$VM_VERITY_TOOL" "$d/data.img" "$d/hash.img"
}

KEYS="systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root verity.sig=/etc/verity-init/roothash.p7s verity.fail=poweroff"

# ipe_boot NAME POLICY-P7S [WORD...] : the signed UKI with the agent, the IPE policy and the
# root's signature, the command line KEYS and WORDs, booted with the root and the unsigned verity
# disks; then the boot ended by itself under Secure Boot.
ipe_boot() {
	ipe_boot_only "$@" || { fail "initramfs or uki"; return 1; }
	ipe_booted
}

ipe_booted() {
	vm_assert_booted || return 1
	vm_assert_log_contains "$VM_LOG" 'secureboot: Secure boot enabled' "Secure Boot was not on"
}

ipe_boot_only() {   # NAME POLICY-P7S [WORD...]
	local name=$1 p7s=$2 rd w; shift 2
	w=$(vm_workdir "$name") || return 1
	rd=$(sign_initramfs "ipe_policy=/etc/verity-init/ipe.p7s" \
		"/etc/verity-init/roothash.p7s=$D/root.p7s" "/etc/verity-init/ipe.p7s=$p7s") || return 1
	{ uefi_uki "$w/uki.efi" "$rd" "roothash=$RH $KEYS${*:+ $*}" && uefi_esp "$w/esp.img" "$w/uki.efi"; } ||
		return 1
	uefi_boot --disk "$D/data.img" --disk "$D/hash.img" --disk "$D/unsigned/data.img" \
		--disk "$D/unsigned/hash.img" "$name" "$w/esp.img"
	return 0
}

# The db-signed policy on a command line with ipe.enforce=0, which starts IPE permissive (denials
# only audited): the agent switches IPE to enforcing before init runs.
ipe_permissive_boot() {
	ipe_boot_only ipe-permissive "$D/ipe-db.p7s" ipe.enforce=0
}

ipe_check() {   # LOG NAME RC
	vm_assert_log_contains "$1" "IPE-CHECK $2 rc=$3" "IPE check $2: not rc=$3: $(grep -a -o "IPE-CHECK $2 rc=[0-9]*" "$1")"
}

# IPE enforcing from the kernel's start (no ipe.enforce= word), as a device boots: a boot of its
# own, since the permissive boot below proves the agent's switch, not this path.
test_ipe_policy_allows_only_the_signed_root() {
	ipe_boot ipe-db "$D/ipe-db.p7s" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: IPE policy verity_root from /etc/verity-init/ipe.p7s active' \
		"the agent did not activate the IPE policy" || return
	vm_assert_log_order "$VM_LOG" 'verity-init\[1\]: root: mounted' 'verity-init\[1\]: IPE policy verity_root' || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root ext4 || return
	ipe_check "$VM_LOG" signed-root 0 || return
	ipe_check "$VM_LOG" tmpfs 126 || return
	vm_assert_log_contains "$VM_LOG" 'audit: .*ipe_op=EXECUTE .*rule="DEFAULT op=EXECUTE action=DENY"' \
		"no audit record of IPE's refusal" || return
	# the second verity device is set up and mounted (the agent in the root is allowed to run),
	# but what it holds is not signed: refused
	ipe_check "$VM_LOG" unsigned-setup 0 || return
	ipe_check "$VM_LOG" unsigned-verity 126
}

test_ipe_policy_signed_by_another_key_refused() {
	ipe_boot ipe-other "$D/ipe-other.p7s" || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: root: ipe failed: IPE refused the policy: signed by a key the kernel does not trust' \
		"the agent did not report the kernel's refusal of the policy" || return
	agent_assert_fallback "$VM_LOG" poweroff
}

# ipe.enforce=0 on the command line starts IPE permissive (denials only audited): the agent
# switches it to enforcing and says so.
test_ipe_permissive_command_line_is_overridden() {
	vm_shared_boot ipe-permissive ipe_permissive_boot
	ipe_booted || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: IPE policy verity_root from /etc/verity-init/ipe.p7s active, switched from permissive \(ipe.enforce=0\) to enforcing' \
		"the agent did not switch IPE to enforcing" || return
	vm_assert_marker "$VM_LOG" main || return
	ipe_check "$VM_LOG" signed-root 0 || return
	ipe_check "$VM_LOG" tmpfs 126
}

# shellcheck source=/dev/null
. shunit2
