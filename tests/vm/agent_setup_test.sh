#!/bin/bash
# `verity-init setup` and `verity-init status` outside PID 1 (the dracut hook's way): the mapping
# is created, an identical existing mapping is reused, a different one under the same name is
# refused (fail closed), and status shows the table, the kernel's verdict and the status file.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# agent_initramfs takes optional arguments (SC2119)
# shellcheck disable=SC2119
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 veritysetup mkfs.ext4 cpio modprobe busybox || exit 1
	[ -x "$VM_AGENT" ] || { vm_die "no $VM_AGENT (make static)"; exit 1; }
	RD=$SHUNIT_TMPDIR/setup-initrd.img
	vm_initramfs --busybox --file "$VM_AGENT" /bin/verity-init \
		"$RD" "$VM_SRCDIR/init-agent-setup.sh" || exit 1
}

test_setup_reuse_refuse_status() {
	local d rh
	d=$(vm_workdir agent-setup)
	rh=$(vm_verity_setup ext4 "$d") || { fail "setup"; return; }
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" agent-setup "$RD" \
		"roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb"
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" '^SETUP1 rc=0 out=/dev/mapper/root' "first setup failed" || return
	vm_assert_log_contains "$VM_LOG" 'root: /dev/mapper/root verified .*existing identical mapping reused' || return
	vm_assert_log_contains "$VM_LOG" '^SETUP2 rc=0 out=/dev/mapper/root' "second setup failed" || return
	vm_assert_log_contains "$VM_LOG" 'a different mapping named root exists already: refused' || return
	vm_assert_log_contains "$VM_LOG" '^SETUP3 rc=1' "setup with another root hash did not fail" || return
	vm_assert_log_contains "$VM_LOG" 'mapping root exists but is suspended: refused' || return
	vm_assert_log_contains "$VM_LOG" '^SETUP4 rc=1' "setup reused a suspended mapping" || return
	vm_assert_log_contains "$VM_LOG" "^STATUS table=1 254:0 254:16 4096 4096 [0-9]+ 1 sha256 $rh " || return
	vm_assert_log_contains "$VM_LOG" '^STATUS verdict=verified' || return
	# the refused third setup is what the status file describes now
	vm_assert_log_contains "$VM_LOG" '^STATUS agent.result=failed' || return
	vm_assert_log_contains "$VM_LOG" '^STATUS agent.stage=activate' || return
	vm_assert_log_contains "$VM_LOG" '^STATUS agent.reason=mapping root exists but is suspended' || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root ext4
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
