#!/bin/bash
# Good boots of the agent as PID 1: every way of describing a verity root
# ends with the root's marker printed from /dev/mapper/NAME mounted read-only, of the expected
# type, and the kernel's status V. Each scenario has a refused twin in agent_refuse_test.sh or
# below (tampered data where FEC cannot help).
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# agent_initramfs takes optional arguments (SC2119)
# shellcheck disable=SC2119
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 veritysetup mkfs.ext4 debugfs mksquashfs mkfs.erofs \
		sgdisk cpio modprobe || exit 1
	RD=$(agent_initramfs) || exit 1
	# superblock=false and dm-mod.create= tables weaken the check: policy-gated.
	RD_WEAK=$(agent_initramfs --policy "allow_weak=no-superblock") || exit 1
	RD_ENV=$(agent_initramfs --policy "init_env=VERITY_TEST_ENV") || exit 1
}

# good NAME FSTYPE [MAPPING] : the common assertions of a good boot.
good() {
	vm_assert_booted || return 1
	vm_assert_marker "$VM_LOG" main || return 1
	vm_assert_root_mapper "$VM_LOG" "${3:-root}" "$2" || return 1
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: ${3:-root}: /dev/mapper/${3:-root} verified .*status V" ||
		return 1
	# init gets fds 0-2 only, not the agent's (libdevmapper opens /dev/mapper/control without
	# O_CLOEXEC); the listing is the root init's `ls -l /proc/1/fd`
	vm_assert_log_contains "$VM_LOG" " 0 -> /dev/console" "no descriptor listing of pid 1" || return 1
	vm_assert_log_lacks "$VM_LOG" " [3-9] -> " "init inherited a descriptor from the agent"
}

# A squashfs root in the Chrome OS hash format (format 0: salt appended, digests packed) with
# systemd's keys and no type given, on a command line that carries words for init: one boot for
# the two tests below (the format and init's arguments and environment are independent).
squashfs_format0_boot() {
	local d rh
	d=$(vm_workdir agent-squashfs-format0)
	rh=$(vm_verity_setup squashfs "$d" --format=0) || return 1
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" agent-squashfs-format0 "$RD_ENV" \
		"roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root rd.break rd.shell VERITY_TEST_ENV=kept TERM=vt100 unlisted_word=1 -- arg1 other=x"
}

test_squashfs_systemd_keys_type_probed() {
	vm_shared_boot squashfs-format0 squashfs_format0_boot
	good agent-squashfs squashfs || return
	# what follows "--" belongs to init (not parsed as ours), and the agent passes it on
	vm_assert_log_contains "$VM_LOG" '^VERITY-TEST-ARGS arg1 other=x' \
		"init did not get the kernel's arguments after --"
	# init's environment: the kernel's defaults, the command line's TERM and what the policy
	# lists (init_env=VERITY_TEST_ENV); no other word of the command line
	vm_assert_log_contains "$VM_LOG" '^VERITY-TEST-ENVIRON \|HOME=/\|TERM=vt100\|VERITY_TEST_ENV=kept[[:space:]]*$' \
		"init's environment is not the fixed one plus the policy's names"
}

# LD_PRELOAD from the command line would reach the verified root's PID 1 through the kernel's
# environment (glibc maps a preload straight from a block device): refused, never handed on.
test_ld_preload_on_the_command_line_refused() {
	local d rh
	d=$(vm_workdir agent-ld-preload)
	rh=$(vm_verity_setup ext4 "$d") || { fail "setup"; return; }
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" agent-ld-preload "$RD_ENV" \
		"verity.roothash=$rh verity.data=/dev/vda verity.hash=/dev/vdb LD_PRELOAD=/dev/vdb verity.fail=poweroff"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\\[1\\]: policy: 'LD_PRELOAD=' sets the environment of the booted system: never allowed" \
		"the agent did not refuse LD_PRELOAD" || return
	# a refused line is not used at all: the built-in panic, not its verity.fail=
	agent_assert_fallback "$VM_LOG" panic
}

# Our keys; root= names the raw data device, which must never be mounted: the verified mapping
# is, with a warning.
test_erofs_our_keys_with_rootfstype() {
	local d rh
	d=$(vm_workdir agent-erofs)
	rh=$(vm_verity_setup erofs "$d") || { fail "setup"; return; }
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" agent-erofs "$RD" \
		"verity.roothash=$rh verity.data=/dev/vda verity.hash=/dev/vdb rootfstype=erofs root=/dev/vda"
	good agent-erofs erofs || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: root=/dev/vda ignored: mounting /dev/mapper/root'
}

# Hash area after the data on one device, found through the filesystem's LABEL.
test_hash_after_data_one_device_by_label() {
	local d rh
	d=$(vm_workdir agent-combined)
	rh=$(vm_verity_setup_combined ext4 "$d") || { fail "setup"; return; }
	# shellcheck source=/dev/null
	. "$d/vars"
	vm_boot --disk "$DISK" agent-combined "$RD" \
		"roothash=$rh systemd.verity_root_data=LABEL=vmroot systemd.verity_root_options=hash-offset=$HASH_OFFSET"
	good agent-combined ext4 || return
	vm_assert_log_contains "$VM_LOG" 'verified \(data vda, hash vda\)'
}

# systemd's zero-configuration rule: only roothash=, partitions found by PARTUUID.
test_gpt_discoverable_partitions_roothash_only() {
	local d rh
	d=$(vm_workdir agent-gpt)
	rh=$(vm_verity_setup_gpt ext4 "$d") || { fail "setup"; return; }
	# shellcheck source=/dev/null
	. "$d/vars"
	vm_boot --disk "$DISK" agent-gpt "$RD" "roothash=$rh"
	good agent-gpt ext4 || return
	vm_assert_log_contains "$VM_LOG" 'verified \(data vda1, hash vda2\)'
}

# The Chrome OS hash format: the pre-flight check hashes the way the kernel does for that format.
test_format0_squashfs() {
	vm_shared_boot squashfs-format0 squashfs_format0_boot
	good agent-format0 squashfs || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: root: /dev/mapper/root verified' || return
	vm_assert_log_lacks "$VM_LOG" 'pre-flight root hash check skipped'
}

# Without algif_hash (no AF_ALG) the pre-flight check cannot run: the agent says so and boots,
# the kernel still verifying every block.
test_no_af_alg_preflight_skipped_with_warning() {
	local d rh rd mods
	d=$(vm_workdir agent-no-afalg)
	rh=$(vm_verity_setup ext4 "$d") || { fail "setup"; return; }
	# shellcheck disable=SC2086 # one module name per word
	mods=$(printf '%s\n' $VM_MODULES_DEFAULT | grep -vx algif_hash | tr '\n' ' ')
	rd=$(agent_initramfs --modules "$mods") || { fail "initramfs"; return; }
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" agent-no-afalg "$rd" \
		"roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb"
	good agent-no-afalg ext4 || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: root: pre-flight root hash check skipped: .*the kernel still verifies every block'
}

# The same GPT disk named by PARTLABEL (data) and by the verity superblock's UUID (hash), which
# libblkid reads from the hash partition.
# systemd lines name devices by udev's links, which the standalone agent (no udev) looks up as
# tags; with only the data device given, the hash device is derived from the root hash, as
# systemd's generator does.
test_gpt_by_partuuid_link_hash_derived() {
	local d rh
	d=$(vm_workdir agent-gpt-link)
	rh=$(vm_verity_setup_gpt ext4 "$d") || { fail "setup"; return; }
	# shellcheck source=/dev/null
	. "$d/vars"
	vm_boot --disk "$DISK" agent-gpt-link "$RD" \
		"roothash=$rh systemd.verity_root_data=/dev/disk/by-partuuid/$DATA_PARTUUID root=/dev/mapper/root"
	good agent-gpt-link ext4 || return
	vm_assert_log_contains "$VM_LOG" 'verified \(data vda1, hash vda2\)'
}

test_gpt_partlabel_and_verity_uuid() {
	local d rh
	d=$(vm_workdir agent-gpt-tags)
	rh=$(vm_verity_setup_gpt ext4 "$d") || { fail "setup"; return; }
	# shellcheck source=/dev/null
	. "$d/vars"
	vm_boot --disk "$DISK" agent-gpt-tags "$RD" \
		"roothash=$rh systemd.verity_root_data=PARTLABEL=root systemd.verity_root_hash=UUID=$VM_VERITY_UUID"
	good agent-gpt-tags ext4 || return
	vm_assert_log_contains "$VM_LOG" 'verified \(data vda1, hash vda2\)'
}

# Without data-blocks= the data device's size counts, as with systemd and veritysetup (another
# count would give another tree, and the pre-flight check would refuse the root hash).
test_superblockless_with_policy() {
	local d rh
	d=$(vm_workdir agent-nosb)
	rh=$(vm_verity_setup ext4 "$d" --no-superblock) || { fail "setup"; return; }
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" agent-nosb "$RD_WEAK" \
		"roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb systemd.verity_root_options=superblock=false,salt=$VM_VERITY_SALT"
	good agent-nosb ext4
}

# No superblock, the tree after the data on one device, no data-blocks=: the data ends where
# hash-offset= puts the tree (the whole device would overlap it and be refused).
test_superblockless_one_device_data_up_to_hash_offset() {
	local d rh
	d=$(vm_workdir agent-nosb-combined)
	rh=$(vm_verity_setup_combined ext4 "$d" --no-superblock) || { fail "setup"; return; }
	# shellcheck source=/dev/null
	. "$d/vars"
	vm_boot --disk "$DISK" agent-nosb-combined "$RD_WEAK" \
		"roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_options=superblock=false,salt=$VM_VERITY_SALT,hash-offset=$HASH_OFFSET"
	good agent-nosb-combined ext4
}

# The same command line without the policy's consent is refused before any device is used.
test_superblockless_refused_without_policy() {
	local d rh
	d=$(vm_workdir agent-nosb-refused)
	rh=$(vm_verity_setup ext4 "$d" --no-superblock) || { fail "setup"; return; }
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" agent-nosb-refused "$RD" \
		"roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb systemd.verity_root_options=superblock=false,data-blocks=$(( $(vm_size "$d/data.img") / 4096 )),salt=$VM_VERITY_SALT verity.fail=poweroff"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: policy: .*superblock' || return
	# nothing of a refused command line is used, its verity.fail=poweroff neither: the
	# (policy-less) default, panic
	vm_assert_log_lacks "$VM_LOG" 'fallback: poweroff' "the refused line's fail action was used" || return
	agent_assert_fallback "$VM_LOG" panic
}

test_dm_mod_create_table() {
	local d rh blocks
	d=$(vm_workdir agent-dmcreate)
	rh=$(vm_verity_setup ext4 "$d") || { fail "setup"; return; }
	blocks=$(( $(vm_size "$d/data.img") / 4096 ))
	# vda = 254:0, vdb = 254:16 (virtio-blk, 16 minors per disk); hash start 1 = after the
	# veritysetup superblock.
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" agent-dmcreate "$RD_WEAK" \
		"dm-mod.create=\"root,verity-test-uuid,7,ro,0 $(( blocks * 8 )) verity 1 254:0 254:16 4096 4096 $blocks 1 sha256 $rh $VM_VERITY_SALT\" root=/dev/dm-7"
	good agent-dmcreate ext4 || return
	# dm-mod.create's <uuid> and <minor> are honoured, as dm-init does
	vm_assert_log_contains "$VM_LOG" '^VERITY-TEST-DM dm-7 root uuid=verity-test-uuid' \
		"the mapping is not dm-7 with the given uuid"
}

# The hash disk is hot-plugged once the agent has loaded its modules (and so is about to look for
# the devices): the agent waits, re-scans on the uevent, and uses it.
test_late_device_hotplugged() {
	local d rh
	d=$(vm_workdir agent-late)
	rh=$(vm_verity_setup ext4 "$d") || { fail "setup"; return; }
	vm_boot --disk "$d/data.img" --hotadd 'log:verity-init\[1\]: [0-9]+ modules loaded' "$d/hash.img" \
		agent-late "$RD" \
		"roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb verity.timeout=60"
	good agent-late ext4 || return
	# the wait really happened (and was reported apart from the agent's own time)
	vm_assert_log_contains "$VM_LOG" 'agent time [0-9]+ ms: [0-9]+ ms module loading, [1-9][0-9]{2,} ms device wait'
}

# FEC made by veritysetup --fec-device: a corrupted byte in init's data block is repaired by the
# kernel (without FEC the same image is refused: agent_boot_test.sh).
test_fec_repairs_corrupted_init_block() {
	local d rh
	d=$(vm_workdir agent-fec)
	# veritysetup itself makes the FEC data: the agent must repair with its --fec-device output
	rh=$(VM_VERITY_TOOL=veritysetup vm_verity_setup ext4 "$d" --fec-device="$d/fec.img" \
		--fec-roots=2) || { fail "setup"; return; }
	vm_corrupt_file "$d/data.img" ext4 /sbin/init >/dev/null || { fail "corrupt"; return; }
	vm_corrupt_file "$d/data.img" ext4 /sbin/init 0 40 >/dev/null || { fail "corrupt"; return; }
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" --disk "$d/fec.img" agent-fec "$RD" \
		"roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb systemd.verity_root_options=fec-device=/dev/vdc,fec-roots=2"
	good agent-fec ext4 || return
	vm_assert_log_contains "$VM_LOG" 'verity-fec: [0-9:]+: FEC [0-9]+: corrected [0-9]+ errors'
}

# FEC made by verity-image on the hash device, 1 MiB in: the parity covers the hash device up to
# the FEC area, far past the tree, as veritysetup and libcryptsetup count it. The table's
# fec_blocks must say the same or the kernel decodes with the wrong interleave and cannot repair.
test_fec_after_a_gap_on_the_hash_device_made_by_verity_image() {
	local d rh
	d=$(vm_workdir agent-fec-gap)
	rh=$(VM_VERITY_TOOL=verity-image vm_verity_setup ext4 "$d" --fec-device="$d/hash.img" \
		--fec-offset=1048576 --fec-roots=4) || { fail "setup"; return; }
	vm_corrupt_file "$d/data.img" ext4 /sbin/init >/dev/null || { fail "corrupt"; return; }
	vm_corrupt_file "$d/data.img" ext4 /sbin/init 0 40 >/dev/null || { fail "corrupt"; return; }
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" agent-fec-gap "$RD" \
		"roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb systemd.verity_root_options=fec-device=/dev/vdb,fec-offset=1048576,fec-roots=4"
	good agent-fec-gap ext4 || return
	vm_assert_log_contains "$VM_LOG" 'verity-fec: [0-9:]+: FEC [0-9]+: corrected [0-9]+ errors'
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
