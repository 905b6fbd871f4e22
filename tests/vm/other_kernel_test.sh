#!/bin/bash
# The suite runs on one kernel series (VM_KERNEL_SERIES, default 6.1: tests/vm/lib.sh); this file
# runs the signature, option, FEC and standalone-image boots of other test files once more on the
# OTHER series (6.12 when the default is 6.1, and the other way round), so `make check` covers
# both Debian kernels. Each file is run with the selected test functions (shunit2's "-- NAME...");
# its logs and work directories go to $BUILD/vm/logs-SERIES / work-SERIES (lib.sh), so they never
# collide with the same file running on the default kernel at the same time.
#   agent_boot_test        the first good boot and a flipped init byte (all)
#   sign_kernel_test       PKCS#7 signatures the kernel refuses: untrusted key (all; on 6.12 too:
#                          the .platform keyring is empty without UEFI)
#   module_params_test     dm_verity module options (all)
#   agent_good_test        verity options (superblock-less with policy, dm-mod.create=) and FEC
#   mkinitramfs_test       the shipped verity-init-mkinitramfs (6.12: .ko.xz modules) (all)
# Not here: the restart-on-error refusal of hardening_status_test, which is
# 6.1 behaviour (6.12 has the option: kernel612_sig_test.sh tests it for real); signed manifests
# (sign_manifest_test), checked in user space before a table the other files' boots share.
# Output: each file's shunit2 output in turn (run.sh counts the test lines); exit 1 if any failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# the boots of the files run below count as this file's (run.sh's boot table and budget)
VM_TEST_FILE=${VM_TEST_FILE:-other_kernel_test}
export VM_TEST_FILE
# the default series, as lib.sh has it (without sourcing it: that would pick a kernel)
default=$(sed -n 's/^VM_KERNEL_SERIES_DEFAULT=//p' "$here/lib.sh")
current=${VM_KERNEL_SERIES:-$default}
case $current in
6.1) other=6.12 ;;
*) other=6.1 ;;
esac
: "${VM_OTHER_KERNEL_SERIES:=$other}"
echo "other_kernel: running selected tests on VM_KERNEL_SERIES=$VM_OTHER_KERNEL_SERIES (default $default)"

SELECTION=(
	"agent_boot_test.sh"
	"sign_kernel_test.sh"
	"module_params_test.sh"
	"agent_good_test.sh test_superblockless_with_policy test_dm_mod_create_table test_fec_repairs_corrupted_init_block test_fec_after_a_gap_on_the_hash_device_made_by_verity_image"
	"mkinitramfs_test.sh"
)

rc=0
for entry in "${SELECTION[@]}"; do
	read -r -a words <<<"$entry"
	f=${words[0]}
	tests=("${words[@]:1}")
	echo "other_kernel: $f${tests[*]:+ -- ${tests[*]}} on $VM_OTHER_KERNEL_SERIES"
	args=()
	[ ${#tests[@]} -gt 0 ] && args=(-- "${tests[@]}")
	# run.sh exported the default kernel's VM_KERNEL/VM_KVER: drop them so the series decides
	env -u VM_KERNEL -u VM_KVER VM_KERNEL_SERIES="$VM_OTHER_KERNEL_SERIES" \
		bash "$here/$f" "${args[@]}"
	r=$?
	if [ "$r" != 0 ]; then
		# a line run.sh counts as a failure of the last test even if the file died early
		echo "ASSERT:other_kernel: $f exited $r on $VM_OTHER_KERNEL_SERIES"
		rc=1
	fi
done
exit $rc
