#!/bin/bash
# Fail-closed checks of `verity-init setup` that need a real kernel (docs/security.md).
# Exit codes never lie: a mapping whose kernel status is not V after setup is a failure.
# A data block is corrupted; the first setup succeeds (the pre-flight check reads only the top of
# the tree), reading the whole mapping hits the bad block (EIO, status C), and a second setup,
# which finds the identical mapping and would reuse it, must refuse it because of the C.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 veritysetup mkfs.ext4 cpio modprobe busybox || exit 1
	[ -x "$VM_AGENT" ] || { vm_die "no $VM_AGENT (make static)"; exit 1; }
	RD=$SHUNIT_TMPDIR/hardening-status-initrd.img
	vm_initramfs --busybox --no-dmsetup --file "$VM_AGENT" /bin/verity-init \
		"$RD" "$VM_SRCDIR/init-hardening-status.sh" || exit 1
}

test_status_C_after_setup_is_a_failure() {
	local d rh size
	d=$(vm_workdir hardening-status)
	rh=$(vm_verity_setup ext4 "$d") || { fail "setup"; return; }
	# One byte in the last data block: not read by pre-flight, read by the full dd.
	size=$(vm_size "$d/data.img")
	vm_flip_byte "$d/data.img" $((size - 4096 + 100)) || { fail "corrupt"; return; }
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" hardening-status "$RD" \
		"roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb"
	vm_assert_log_contains "$VM_LOG" '^HARDENING-STATUS-DONE' "the scenario did not finish" || return
	vm_assert_log_contains "$VM_LOG" '^HSETUP1 rc=0 out=/dev/mapper/root' "first setup failed" || return
	vm_assert_log_contains "$VM_LOG" '^HREAD rc=[1-9]' "reading the corrupted block did not fail" || return
	vm_assert_log_contains "$VM_LOG" '^HSETUP2 rc=1 ' "second setup succeeded on a status-C mapping" || return
	vm_assert_log_contains "$VM_LOG" '^HSETUP2 .*not V' "second setup: reason is not the status" || return
	vm_assert_log_lacks "$VM_LOG" '^HSTATUS verdict=verified' "status still says verified" || return
}

# restart-on-error / panic-on-error need dm-verity 1.10 (Linux 6.12). On the 6.1 kernel the
# agent must refuse with the versions named (never silently drop the option: plain EIO is
# exploitable, CVE-2024-47725), before any table reaches the kernel, and take the fallback.
test_restart_on_error_refused_on_an_older_kernel() {
	# the refusal holds on a kernel whose dm-verity predates these options (6.1); 6.12 has them
	# (kernel612_sig_test shows them working)
	case $VM_KVER in 6.1.*) ;; *) startSkipping; return ;; esac
	local d rh rd
	# shellcheck disable=SC2119  # no options: the default agent initramfs
	rd=$(agent_initramfs) || { fail "initramfs"; return; }
	d=$(vm_workdir hardening-ioerr)
	rh=$(vm_verity_setup ext4 "$d") || { fail "setup"; return; }
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" hardening-ioerr "$rd" \
		"roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root systemd.verity_root_options=restart-on-error verity.fail=poweroff"
	vm_assert_booted || return
	agent_assert_refused "$VM_LOG" activate 'restart-on-error needs dm-verity target 1\.10 \(Linux 6\.12\), this kernel has 1\.[0-9]+\.[0-9]+: refused' || return
	# refused before activation: the kernel never got a verity table
	vm_assert_log_lacks "$VM_LOG" 'device-mapper: verity: sha256' "a verity target was created" || return
	agent_assert_fallback "$VM_LOG" poweroff
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
