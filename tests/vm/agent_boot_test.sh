#!/bin/bash
# The agent as PID 1: good boots of verified roots, and refused boots where the marker
# never appears, the failure's stage and reason are logged and the fallback is taken.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# agent_initramfs takes optional arguments (SC2119)
# shellcheck disable=SC2119
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 veritysetup mkfs.ext4 debugfs mksquashfs mkfs.erofs \
		cpio modprobe || exit 1
	RD=$(agent_initramfs) || exit 1
}

SYSTEMD_KEYS="systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root"

# boot_pair NAME DIR CMDLINE-EXTRA : boot DIR/data.img + DIR/hash.img with the agent.
boot_pair() {
	# shellcheck source=/dev/null
	. "$2/vars"
	# shellcheck disable=SC2153 # DATA, HASH come from the vars file
	vm_boot --disk "$DATA" --disk "$HASH" "$1" "$RD" "$3"
}

test_ext4_systemd_keys_boots_verified_root() {
	local d rh
	d=$(vm_workdir agent-ext4-systemd)
	rh=$(vm_verity_setup ext4 "$d") || { fail "verity setup"; return; }
	boot_pair agent-ext4-systemd "$d" "roothash=$rh $SYSTEMD_KEYS"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root ext4 || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: root: /dev/mapper/root verified .*status V' || return
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS result=ok' "status file lacks result=ok" || return
	vm_assert_log_contains "$VM_LOG" "VERITY-TEST-STATUS booted=$rh" "status file lacks the booted hash" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: exec /sbin/init \(agent time [0-9]+ ms' || return
	# no TPM in this machine: the measurement (tpm_measure_test.sh) is skipped with one line
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: root: not measured: no TPM' \
		"no log line for the skipped measurement" || return
	vm_assert_log_lacks "$VM_LOG" 'VERITY-TEST-MEASURE' "a measurement log without a TPM"
}

test_ext4_flipped_init_byte_refused_with_panic() {
	local d rh
	d=$(vm_workdir agent-ext4-bad-init)
	rh=$(vm_verity_setup ext4 "$d") || { fail "verity setup"; return; }
	vm_corrupt_file "$d/data.img" ext4 /sbin/init >/dev/null || { fail "corrupt init"; return; }
	boot_pair agent-ext4-bad-init "$d" "roothash=$rh $SYSTEMD_KEYS"
	vm_assert_booted || return
	# Setup and mount succeed (the kernel checks blocks when read); reading init fails.
	agent_assert_refused "$VM_LOG" init 'reading init /sbin/init failed: Input/output error' || return
	vm_assert_log_contains "$VM_LOG" 'device-mapper: verity: [0-9:]+: data block [0-9]+ is corrupted' || return
	agent_assert_fallback "$VM_LOG" panic
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
