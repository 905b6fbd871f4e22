#!/bin/bash
# Refused boots of the agent, including the fail-closed rules of docs/security.md: the root's
# marker never appears, the agent names the failing stage and reason, and the verity.fail=
# action really happens (kernel power-off / restart / panic, or the recovery root boots and
# reads /run/verity-init/status).
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# agent_initramfs takes optional arguments (SC2119)
# shellcheck disable=SC2119
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 veritysetup mkfs.ext4 debugfs sgdisk cpio modprobe || exit 1
	RD=$(agent_initramfs) || exit 1
}

KEYS="systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root"

boot_pair() {   # NAME DIR CMDLINE
	# shellcheck source=/dev/null
	. "$2/vars"
	# shellcheck disable=SC2153 # DATA, HASH come from the vars file
	vm_boot --disk "$DATA" --disk "$HASH" "$1" "$RD" "$3"
}

# refused_tampered NAME TAMPER STAGE REASON-REGEX FAIL : a fresh ext4 root with TAMPER, booted
# with verity.fail=FAIL (empty: none, the built-in panic): no marker, the agent refused it at
# STAGE (REASON-REGEX) and took FAIL. TAMPER: wrong-hash (every digit of the command line's root
# hash changed), hash-top / hash-leaf (a byte of hash block 0, the one the root hash covers / of
# the first leaf), sb-FIELD (a byte of that superblock field).
refused_tampered() {
	local name=$1 tamper=$2 stage=$3 re=$4 act=$5 d rh
	d=$(vm_workdir "$name")
	rh=$(vm_verity_setup ext4 "$d") || { fail "verity setup"; return 1; }
	case $tamper in
	wrong-hash) rh=$(printf '%s' "$rh" | tr '0-9a-f' '1-9a-f0') ;;
	hash-top) vm_corrupt_hash_block "$d/hash.img" 0 0 100 >/dev/null ;;
	hash-leaf) vm_corrupt_hash_block "$d/hash.img" 0 1 0 >/dev/null ;;
	sb-*) vm_corrupt_superblock "$d/hash.img" 0 "${tamper#sb-}" >/dev/null ;;
	esac || { fail "tampering ($tamper)"; return 1; }
	boot_pair "$name" "$d" "roothash=$rh $KEYS${act:+ verity.fail=$act}"
	vm_assert_booted || return 1
	agent_assert_refused "$VM_LOG" "$stage" "$re" || return 1
	agent_assert_fallback "$VM_LOG" "${act:-panic}"
}

test_wrong_root_hash_refused_before_activation_poweroff() {
	refused_tampered agent-wrong-hash wrong-hash preflight 'root hash mismatch' poweroff || return
	# refused before activation: the kernel never got a verity table
	vm_assert_log_lacks "$VM_LOG" 'device-mapper: verity: sha256' "a verity target was created"
}

test_flipped_top_hash_block_refused_by_preflight_reboot() {
	refused_tampered agent-bad-hash-top hash-top preflight 'root hash mismatch' reboot
}

# A lower-level hash block (the first leaf block: data blocks 0..127, the ext4 superblock among
# them) passes the pre-flight check; the kernel refuses those data blocks, so mount fails.
test_flipped_leaf_hash_block_refused_at_mount() {
	refused_tampered agent-bad-hash-leaf hash-leaf mount '' poweroff || return
	vm_assert_log_contains "$VM_LOG" 'device-mapper: verity: [0-9:]+: metadata block [0-9]+ is corrupted'
}

test_tampered_superblock_salt_refused() {
	refused_tampered agent-bad-sb-salt sb-salt preflight 'root hash mismatch' poweroff
}

test_tampered_superblock_magic_refused() {
	refused_tampered agent-bad-sb-magic sb-magic superblock '' ''
}

test_missing_device_refused_after_timeout() {
	local d rh
	d=$(vm_workdir agent-missing-dev)
	rh=$(vm_verity_setup ext4 "$d") || { fail "verity setup"; return; }
	boot_pair agent-missing-dev "$d" \
		"roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdq verity.timeout=2 verity.fail=poweroff"
	vm_assert_booted || return
	agent_assert_refused "$VM_LOG" devices 'device /dev/vdq not found after 2 s' || return
	agent_assert_fallback "$VM_LOG" poweroff
}

# A command line alone never opens a shell: without allow_shell in the initramfs policy the
# action is dropped and the next one is taken.
test_shell_fallback_needs_policy() {
	local d rh bad
	d=$(vm_workdir agent-no-shell)
	rh=$(vm_verity_setup ext4 "$d") || { fail "verity setup"; return; }
	bad=$(printf '%s' "$rh" | tr '0-9a-f' '1-9a-f0')
	boot_pair agent-no-shell "$d" "roothash=$bad $KEYS verity.fail=shell,poweroff"
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" 'fail action shell dropped: the initramfs policy does not allow a shell' || return
	vm_assert_log_lacks "$VM_LOG" 'fallback: shell' || return
	agent_assert_fallback "$VM_LOG" poweroff
}

# With allow_shell=yes in the initramfs policy the shell action is honoured: /bin/sh runs on
# the console. Nothing types into it: QEMU is stopped 2 s after its prompt shows (a shell that
# ended would have the agent power off at once).
test_shell_fallback_with_policy() {
	local d rh bad rd
	d=$(vm_workdir agent-shell)
	rh=$(vm_verity_setup ext4 "$d") || { fail "verity setup"; return; }
	bad=$(printf '%s' "$rh" | tr '0-9a-f' '1-9a-f0')
	rd=$(agent_initramfs --policy "allow_shell=yes" --busybox) || { fail "initramfs"; return; }
	vm_boot --timeout 45 --until '^/ # ' --disk "$d/data.img" --disk "$d/hash.img" agent-shell "$rd" \
		"roothash=$bad $KEYS verity.fail=shell,poweroff"
	assertEquals "the shell waits at its prompt" 125 "$VM_STATUS"
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: fallback: shell' || return
	vm_assert_log_contains "$VM_LOG" '^/ # ' "no shell prompt on the console" || return
	vm_assert_log_lacks "$VM_LOG" 'reboot: Power down' "went on to the next action"
}

# The same PARTUUID on two disks (a second, rogue copy) is ambiguous and refused.
test_ambiguous_partuuid_refused() {
	local d rh
	d=$(vm_workdir agent-ambiguous)
	rh=$(vm_verity_setup_gpt ext4 "$d") || { fail "gpt setup"; return; }
	# shellcheck source=/dev/null
	. "$d/vars"
	cp "$DISK" "$d/rogue.img"
	vm_boot --disk "$DISK" --disk "$d/rogue.img" agent-ambiguous "$RD" \
		"roothash=$rh verity.fail=poweroff"
	vm_assert_booted || return
	agent_assert_refused "$VM_LOG" devices "PARTUUID=$DATA_PARTUUID matches more than one device" || return
	agent_assert_fallback "$VM_LOG" poweroff
}

# A malformed command line is refused as a whole, and the initramfs policy's fail actions (not
# the built-in panic) are taken; the kernel's /dev/kmsg rate limit does not swallow the reason.
test_malformed_cmdline_takes_policy_fail_action() {
	local d rh rd
	d=$(vm_workdir agent-bad-cmdline)
	rh=$(vm_verity_setup ext4 "$d") || { fail "verity setup"; return; }
	rd=$(agent_initramfs --policy "fail=poweroff") || { fail "initramfs"; return; }
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" agent-bad-cmdline "$rd" \
		"roothash=${rh:0:63}z $KEYS"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: command line refused: ' || return
	vm_assert_log_lacks "$VM_LOG" 'device-mapper: verity' "a mapping was created" || return
	vm_assert_log_lacks "$VM_LOG" 'output lines suppressed' || return
	agent_assert_fallback "$VM_LOG" poweroff
}

# A command line the initramfs policy refuses (here: ignore-corruption, not allowed) is not used
# at all, not even its fallback list or its recovery root: the policy's fail action is taken and
# the recovery root named by that command line is never set up.
test_policy_refused_cmdline_never_boots_its_recovery() {
	local d r rh rrh rd
	d=$(vm_workdir agent-policy-refused)
	r=$(vm_workdir agent-policy-refused-rec)
	rh=$(vm_verity_setup ext4 "$d") || { fail "verity setup"; return; }
	rrh=$(VM_ROOT_ID=recovery vm_verity_setup ext4 "$r") || { fail "recovery setup"; return; }
	rd=$(agent_initramfs --policy "fail=poweroff") || { fail "initramfs"; return; }
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" --disk "$r/data.img" --disk "$r/hash.img" \
		agent-policy-refused "$rd" \
		"roothash=$rh $KEYS systemd.verity_root_options=ignore-corruption verity.fail=recovery,reboot verity.recovery.data=/dev/vdc verity.recovery.hash=/dev/vdd verity.recovery.roothash=$rrh"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: policy: .*ignore-corruption' || return
	vm_assert_log_lacks "$VM_LOG" 'booting the recovery root' "the refused command line's recovery root was tried" || return
	vm_assert_log_lacks "$VM_LOG" 'device-mapper: verity' "a mapping was created" || return
	agent_assert_fallback "$VM_LOG" poweroff
}

# Recovery: the main root fails (tampered init); the recovery root boots, verified, and reads
# why in /run/verity-init/status.
test_recovery_root_boots_and_sees_status() {
	local d r rh rrh
	d=$(vm_workdir agent-recovery-main)
	r=$(vm_workdir agent-recovery-rec)
	rh=$(vm_verity_setup ext4 "$d") || { fail "verity setup"; return; }
	vm_corrupt_file "$d/data.img" ext4 /sbin/init >/dev/null || { fail "corrupt"; return; }
	rrh=$(VM_ROOT_ID=recovery vm_verity_setup ext4 "$r") || { fail "recovery setup"; return; }
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" --disk "$r/data.img" --disk "$r/hash.img" \
		agent-recovery "$RD" \
		"roothash=$rh $KEYS verity.fail=recovery,poweroff verity.recovery.data=/dev/vdc verity.recovery.hash=/dev/vdd verity.recovery.roothash=$rrh"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" recovery || return
	vm_assert_root_mapper "$VM_LOG" recovery ext4 || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: root: init failed' || return
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS result=failed' || return
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS stage=init' || return
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS reason=reading init /sbin/init failed: Input/output error' || return
	vm_assert_log_contains "$VM_LOG" "VERITY-TEST-STATUS roothash=$rh" || return
	vm_assert_log_contains "$VM_LOG" 'VERITY-TEST-STATUS action=recovery' || return
	vm_assert_log_contains "$VM_LOG" "VERITY-TEST-STATUS booted=$rrh"
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
