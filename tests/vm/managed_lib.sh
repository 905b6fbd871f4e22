# shellcheck shell=bash
# Helpers of the managed recovery scenarios (tests/vm/managed_test.sh, managed612_test.sh): roots
# whose files are corrupted after formatting and read by the running system after the switch,
# booted as unsigned UKIs under OVMF with one variable store kept across a test's boots
# (efi-pstore keeps the kernel's log of a panic there). Sourced after lib.sh, agent_lib.sh and
# lib-uefi.sh.

# The initramfs modules: efi_pstore keeps and gives back the record, efivarfs the agent's variable.
# shellcheck disable=SC2034  # the test files read it
MANAGED_MODULES="$VM_MODULES_DEFAULT efivarfs efi_pstore"

# managed_root DIR ID [format options...] : DIR/data.img (root ID, whose init reads the files
# MANAGED_READS names, default /etc/managed-data, after the switch, one MANAGED-READ line each,
# then confirms its boot with `verity-init managed mark-good` unless the command line says
# managedtest=noconfirm: a boot that never comes up) with /etc/managed-data's block corrupted
# after formatting (unless MANAGED_CLEAN=1), DIR/hash.img; prints the root hash.
managed_root() {
	local d=$1 id=$2 t=$1/tree rh; shift 2
	rm -rf "$t" && mkdir -p "$d" || return 1
	vm_rootfs_tree "$t" "$id" || return 1
	head -c 4096 /dev/zero | tr '\0' 'm' >"$t/etc/managed-data"
	echo "${MANAGED_READS:-/etc/managed-data}" >"$t/etc/managed-reads"
	mkdir -p "$t/usr/sbin" && cp "$VM_AGENT" "$t/usr/sbin/verity-init" || return 1
	cat >"$t/etc/vm-root-hook" <<'HOOK'
for f in $(cat /etc/managed-reads); do
	if cat "$f" >/dev/null 2>&1; then echo "MANAGED-READ ok $f"; else echo "MANAGED-READ failed $f"; fi
done
if ! grep -q managedtest=noconfirm /proc/cmdline; then
	mount -t efivarfs efivarfs /sys/firmware/efi/efivars 2>/dev/null
	echo "MANAGED-CONFIRM $(/usr/sbin/verity-init managed mark-good 2>&1)"
fi
HOOK
	vm_mkfs ext4 "$t" "$d/data.img" || return 1
	rm -f "$d/hash.img"
	rh=$(vm_verity_format "$VM_VERITY_TOOL" "$d/data.img" "$d/hash.img" "$@") || return 1
	if [ "${MANAGED_CLEAN:-0}" != 1 ]; then
		vm_corrupt_file "$d/data.img" ext4 /etc/managed-data >/dev/null || return 1
	fi
	echo "$rh"
}

# managed_usr DIR : DIR/data.img, a /usr (ext4) with the agent at /usr/sbin/verity-init (where
# managed_root's init runs it: the root's own copy is under this mount) and two files the root's
# init can read, /usr/managed-io and /usr/managed-data, the second's block corrupted after
# formatting; DIR/hash.img; prints the root hash.
managed_usr() {
	local d=$1 t=$1/tree uh
	rm -rf "$t" && mkdir -p "$t/sbin" || return 1
	cp "$VM_AGENT" "$t/sbin/verity-init" || return 1
	head -c 4096 /dev/zero | tr '\0' 'i' >"$t/managed-io"
	head -c 4096 /dev/zero | tr '\0' 'u' >"$t/managed-data"
	find "$t" -exec touch -h -d "@$VM_EPOCH" {} +
	vm_mkfs ext4 "$t" "$d/data.img" || return 1
	rm -f "$d/hash.img"
	uh=$(vm_verity_format "$VM_VERITY_TOOL" "$d/data.img" "$d/hash.img") || return 1
	vm_corrupt_file "$d/data.img" ext4 /managed-data >/dev/null || return 1
	echo "$uh"
}

# managed_boot NAME INITRD CMDLINE VARS [uefi_boot options...] : the unsigned UKI of INITRD and
# CMDLINE on an ESP, booted with the variable store VARS kept.
managed_boot() {
	local name=$1 rd=$2 cl=$3 vars=$4 w; shift 4
	w=$(vm_workdir "$name") || return 1
	uefi_uki "$w/uki.efi" "$rd" "$cl" --unsigned || { fail "uki"; return 1; }
	uefi_esp "$w/esp.img" "$w/uki.efi" || { fail "esp"; return 1; }
	UEFI_VARS=$UEFI_VARS_NOSB uefi_boot --timeout 300 --vars "$vars" "$@" "$name" "$w/esp.img"
	[ "$VM_STATUS" = 0 ] || { fail "$name: boot ended with status $VM_STATUS"; return 1; }
}

# assert_panicked LOG ID : root ID ran and its read of the corrupted file ended in dm-verity's
# panic, nothing after it.
assert_panicked() {
	vm_assert_marker "$1" "$2" || return 1
	vm_assert_log_contains "$1" 'device-mapper: verity: [0-9]+:[0-9]+: data block [0-9]+ is corrupted' || return 1
	vm_assert_log_contains "$1" 'Kernel panic - not syncing: dm-verity device corrupted' || return 1
	vm_assert_log_lacks "$1" 'MANAGED-READ' "the read came back"
}
