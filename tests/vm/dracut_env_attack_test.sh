#!/bin/bash
# shellcheck disable=SC2153 # DATA, HASH, ROOTHASH come from a vars file (vm_verity_setup)
# The kernel makes every NAME=value word of its command line (no dot in NAME, before "--") a
# variable of /init's environment, which dracut's shell init and every hook it sources inherit.
# Two such words against the real shell-flavour image (bash as /bin/sh) and a wrong root hash:
# DRACUT_SYSTEMD=1 (dracut's sign of systemd in the initramfs) and a bash function import
# replacing the module's vi_load. The agent refuses both lines, and its fail list (the policy's
# default, panic: no policy file in the image) must end the boot; the root is never mounted.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

DR_TIMEOUT=${VM_DRACUT_TIMEOUT:-300}

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 dracut veritysetup mkfs.ext4 || exit 1
	RD_SHELL=$(vm_dracut_image shell) || exit 1
	D=$(vm_workdir dracut-env-attack)
	vm_verity_setup ext4 "$D" >/dev/null || exit 1
	# shellcheck source=/dev/null
	. "$D/vars"
	# last digit changed: well-formed, does not match the data
	BAD=${ROOTHASH%?}$(case ${ROOTHASH: -1} in 0) echo 1 ;; *) echo 0 ;; esac)
}

# refused_and_panicked LOG REASON-REGEX : the agent logged the refusal and applied the policy
# (panic); neither the root's init nor a shell ran, no file system was mounted.
refused_and_panicked() {
	local log=$1
	vm_assert_no_marker "$log" || return 1
	vm_assert_log_contains "$log" "verity-init\\[[0-9]+\\]: (command line refused: |policy: )?$2" \
		"no refusal matching /$2/" || return 1
	vm_assert_log_contains "$log" 'verity-init\[[0-9]+\]: fallback: panic' \
		"the agent's fail list did not run" || return 1
	vm_assert_log_contains "$log" 'Kernel panic' "the kernel did not panic" || return 1
	vm_assert_log_lacks "$log" '(Could not boot|Dropping to debug shell|emergency shell)' \
		"dracut's own timeout or shell ended the boot" || return 1
	vm_assert_log_lacks "$log" '(EXT4-fs|SQUASHFS|erofs)[^:]*\((vd[a-z]|dm-)' "a file system was mounted"
}

# DRACUT_SYSTEMD=1 told the module it ran under systemd, so its setup job was never queued:
# dracut waited for /dev/mapper/root until its own timeout, without the agent's status, log or
# fail list. rd.retry=20 only shortens that timeout (to about 40 s of waiting), so a module that
# queues no job fails this test in a minute instead of at the boot's timeout.
test_dracut_systemd_word_on_shell_flavour_runs_the_fail_list() {
	vm_boot --timeout "$DR_TIMEOUT" --disk "$DATA" --disk "$HASH" dracut-env-dracut-systemd "$RD_SHELL" \
		"verity.roothash=$BAD verity.data=/dev/vda verity.hash=/dev/vdb rootfstype=ext4 rd.retry=20 DRACUT_SYSTEMD=1"
	vm_assert_booted || return
	refused_and_panicked "$VM_LOG" "'DRACUT_SYSTEMD=' sets the environment of the booted system"
}

# bash imports vi_load from BASH_FUNC_vi_load%%: a module that took an existing vi_load for its
# own never asked the agent (the stand-in answers "no verity root"), and dracut mounted root=,
# the unverified data device, and ran its init. The word is quoted for the kernel, which hands
# "BASH_FUNC_vi_load%%=() { return 1; }" to /init.
test_bash_function_import_never_mounts_the_root_unverified() {
	vm_boot --timeout "$DR_TIMEOUT" --disk "$DATA" --disk "$HASH" dracut-env-bash-func "$RD_SHELL" \
		"verity.roothash=$BAD verity.data=/dev/vda verity.hash=/dev/vdb root=/dev/vda rootfstype=ext4 rd.retry=20 \"BASH_FUNC_vi_load%%=() { return 1; }\""
	vm_assert_booted || return
	refused_and_panicked "$VM_LOG" "BASH_FUNC_vi_load%%=: reaches init's environment under a name no program takes as a variable"
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
