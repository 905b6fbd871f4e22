#!/bin/bash
# shellcheck disable=SC2153 # DATA, HASH, ROOTHASH come from a vars file (vm_verity_setup)
# An editable kernel command line against real dracut images (shell and systemd init) and the
# real kernel: shell code in a device string never runs, a line dracut's own parser crashes on
# opens no shell, the command line's environment never reaches the verified root's init, and a
# quote that hides init= from the agent but not from systemd is refused. The images carry no
# policy file: the strictest defaults (no shell, panic).
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

DR_TIMEOUT=${VM_DRACUT_TIMEOUT:-300}
# what an injected command writes to the kernel log if it ever runs
PWNED=VERITY-PWNED

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 dracut veritysetup mkfs.ext4 || exit 1
	RD_SHELL=$(vm_dracut_image shell) || exit 1
	RD_SYSTEMD=$(vm_dracut_image systemd) || exit 1
	D=$(vm_workdir attacker-cmdline)
	vm_verity_setup ext4 "$D" >/dev/null || exit 1
	# shellcheck source=/dev/null
	. "$D/vars"
	GOOD="verity.roothash=$ROOTHASH verity.data=/dev/vda verity.hash=/dev/vdb rootfstype=ext4"
}

# refused_and_panicked LOG REASON-REGEX : the module logged the refusal, the policy's default
# (panic) followed, and neither init nor a shell ever ran.
refused_and_panicked() {
	local log=$1
	vm_assert_no_marker "$log" || return 1
	vm_assert_log_contains "$log" "verity-init\\[[0-9]+\\]: (command line refused: |policy: )?$2" \
		"no refusal matching /$2/" || return 1
	vm_assert_log_contains "$log" 'verity-init\[[0-9]+\]: fallback: panic' "the policy was not applied" ||
		return 1
	vm_assert_log_contains "$log" 'Kernel panic' "the kernel did not panic" || return 1
	vm_assert_log_lacks "$log" '(Dropping to debug shell|Entering emergency mode|emergency shell|sh: can.t access tty)' \
		"a shell was opened" || return 1
	# (the command line itself is in the log too: only a record of its own counts)
	vm_assert_log_lacks "$log" "^\\[[ 0-9.]+\\] $PWNED" "injected shell code ran" || return 1
	vm_assert_log_lacks "$log" '(EXT4-fs|SQUASHFS|erofs)[^:]*\(vd[a-z]' \
		"a file system on an unverified device was mounted"
}

# dracut writes the devices it is asked to wait for into initqueue/finished scripts, which it
# sources: a command substitution in a device string would run as root before anything is
# verified.
test_attacker_device_string_shell_code_never_runs_dracut_shell() {
	vm_boot --timeout "$DR_TIMEOUT" --disk "$DATA" --disk "$HASH" attacker-devspec-shell "$RD_SHELL" \
		"verity.roothash=$ROOTHASH verity.data=/dev/vda verity.hash=/dev/\$(echo\${IFS}$PWNED>/dev/kmsg) rootfstype=ext4"
	vm_assert_booted || return
	refused_and_panicked "$VM_LOG" "verity.hash: device .* is not allowed"
}

test_attacker_device_string_shell_code_never_runs_dracut_systemd() {
	vm_boot --timeout "$DR_TIMEOUT" --disk "$DATA" --disk "$HASH" attacker-devspec-systemd "$RD_SYSTEMD" \
		"roothash=$ROOTHASH systemd.verity_root_data=LABEL=\`echo\${IFS}$PWNED>/dev/kmsg\` systemd.verity_root_hash=/dev/vdb rootfstype=ext4"
	vm_assert_booted || return
	refused_and_panicked "$VM_LOG" "systemd.verity_root_data: device .* is not allowed"
}

# dracut 059's dracut-getarg crashes on a line that ends in a lone '"'; getargbool then answers
# its default and the module's rd.shell=0 is never read: a failing mount (rootflags=bogus)
# would end in dracut's emergency shell.
test_attacker_trailing_quote_opens_no_shell() {
	vm_boot --timeout "$DR_TIMEOUT" --disk "$DATA" --disk "$HASH" attacker-quote "$RD_SHELL" \
		"$GOOD rootflags=bogus \""
	vm_assert_booted || return
	refused_and_panicked "$VM_LOG" ".*unbalanced double quote"
}

# The kernel hands LD_PRELOAD=... to /init as an environment variable, and dracut's init.sh
# gives it back to the root's init: refused, whatever the flavour.
test_attacker_ld_preload_refused() {
	vm_boot --timeout "$DR_TIMEOUT" --disk "$DATA" --disk "$HASH" attacker-ld-preload "$RD_SHELL" \
		"$GOOD LD_PRELOAD=/dev/vdb"
	vm_assert_booted || return
	refused_and_panicked "$VM_LOG" "'LD_PRELOAD=' sets the environment of the booted system"
}

# A good boot under dracut's shell init: the root's init gets a fixed environment (HOME, TERM,
# dracut's own), not the command line's other NAME=value words.
test_attacker_root_init_environment_is_fixed_dracut_shell() {
	vm_boot --timeout "$DR_TIMEOUT" --disk "$DATA" --disk "$HASH" attacker-env-shell "$RD_SHELL" \
		"$GOOD TERM=vt100 lowercase_word=kept"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root ext4 || return
	vm_assert_log_contains "$VM_LOG" '^VERITY-TEST-ENVIRON .*\|HOME=/\|.*\|TERM=vt100' \
		"init's environment lacks the fixed part" || return
	# (dracut's own CMDLINE variable holds the whole line; no variable of its words may)
	vm_assert_log_lacks "$VM_LOG" '^VERITY-TEST-ENVIRON .*\|lowercase_word=' \
		"a command-line word reached init's environment"
}

# systemd unquotes ' as well as ": in x='"' init=/bin/sh '"' the kernel and dracut see init= only
# inside a quoted word, systemd's switch-root reads init=/bin/sh. Refused before anything runs.
test_attacker_quote_hiding_init_from_the_agent_refused_dracut_systemd() {
	vm_boot --timeout "$DR_TIMEOUT" --disk "$DATA" --disk "$HASH" attacker-hidden-init "$RD_SYSTEMD" \
		"roothash=$ROOTHASH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb rootfstype=ext4 x='\"' init=/bin/sh '\"'"
	vm_assert_booted || return
	refused_and_panicked "$VM_LOG" "command line: 'init' is read differently by systemd"
}

# The initramfs's systemd acts on these before any job of the module runs, refused or not: the
# shell units apply the policy first (the generator's drop-ins), so no shell opens.
test_attacker_systemd_initrd_shells_never_open() {
	local line n=0
	for line in "rd.systemd.unit=emergency.target" \
		"rd.systemd.unit=basic.target rd.systemd.debug_shell=ttyS0" "rd.emergency"; do
		n=$((n + 1))
		vm_boot --timeout "$DR_TIMEOUT" --disk "$DATA" --disk "$HASH" "attacker-initrd-shell-$n" \
			"$RD_SYSTEMD" "roothash=$ROOTHASH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb rootfstype=ext4 $line"
		vm_assert_booted || return
		vm_assert_log_lacks "$VM_LOG" '(Press Enter for maintenance|Started .*debug-shell|Started .*Early root shell)' \
			"'$line': a shell opened" || return
		refused_and_panicked "$VM_LOG" ".*" || return
	done
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
