#!/bin/bash
# Signed manifests (docs/signing.md, path 2): the initramfs-anchored manifest, booted for real.
# Positive: a manifest signed by `verity-image sign` and stored after the hash tree; one signed
# by the `minisign` tool and stored as a bundle on its own disk, with nothing but
# verity.manifest= on the command line; a bundle in a GPT partition named by PARTLABEL=.
# Refused (the root never runs, the fallback recovery root boots and prints the failed
# root's /run/verity-init/status): tampered manifest, signature by another key, valid manifest
# for another image (root hash differs), a contradicting command-line option, rollback below the
# initramfs' min_version; and a required signature that is missing (policy refusal, power-off).
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"
# shellcheck source=tests/vm/sign_lib.sh
. "$(dirname "$0")/sign_lib.sh"

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 veritysetup mkfs.ext4 debugfs cpio modprobe minisign sgdisk || exit 1
	[ -x "$VI_TOOL" ] || { echo "no $VI_TOOL" >&2; exit 1; }
	RD_REQ=$(sign_initramfs "require_signature=yes
min_version=2") || exit 1
	# the refusals fall back to a recovery root: no version floor there (a floor allows no
	# recovery root, which could not carry a manifest)
	RD_KEY=$(sign_initramfs "") || exit 1
	REC=$(vm_workdir sign-recovery)
	RRH=$(VM_ROOT_ID=recovery vm_verity_setup ext4 "$REC") || exit 1
	TEST_ID=$(sed -n 's/^untrusted comment: minisign public key //p' "$SIGN_KEYS/test.pub")
}

REC_KEYS="verity.fail=recovery,poweroff verity.recovery.data=/dev/vdc verity.recovery.hash=/dev/vdd"
AFTER_TREE="verity.manifest=/dev/vdb verity.data=/dev/vda verity.hash=/dev/vdb root=/dev/mapper/root"

# refused_boot NAME DIR CMDLINE [EXTRA-DISK] : boot DIR's root (+ the recovery root, + a disk)
# expecting the root to be refused and the recovery root to come up.
refused_boot() {
	local extra=()
	[ -n "${4:-}" ] && extra=(--disk "$4")
	vm_boot --disk "$2/data.img" --disk "$2/hash.img" --disk "$REC/data.img" \
		--disk "$REC/hash.img" "${extra[@]}" "$1" "$RD_KEY" \
		"$3 $REC_KEYS verity.recovery.roothash=$RRH"
	vm_assert_booted || return 1
	vm_assert_log_lacks "$VM_LOG" 'VERITY-TEST-MARKER id=main' "the refused root ran" || return 1
	vm_assert_marker "$VM_LOG" recovery || return 1
	sign_assert_status "$VM_LOG" result failed || return 1
	sign_assert_status "$VM_LOG" action recovery
}

test_manifest_after_tree_signed_by_verity_image_boots() {
	local d rh
	d=$(vm_workdir sign-after-tree)
	rh=$(vm_verity_setup ext4 "$d") || { fail "verity setup"; return; }
	sign_manifest "$d/hash.img" 3 "$SIGN_KEYS/test.key" --embed || { fail "sign"; return; }
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" sign-after-tree "$RD_REQ" \
		"$AFTER_TREE verity.fail=poweroff"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root ext4 || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: root: signed manifest version 3 from /dev/vdb \(after the hash tree\) verified with key $TEST_ID \(test.pub\)" || return
	sign_assert_status "$VM_LOG" result ok || return
	sign_assert_status "$VM_LOG" booted "$rh"
}

test_manifest_signed_by_minisign_tool_from_bundle_disk_boots() {
	local d rh
	d=$(vm_workdir sign-minisign-bundle)
	rh=$(vm_verity_setup ext4 "$d") || { fail "verity setup"; return; }
	sign_manifest "$d/hash.img" 5 "$SIGN_KEYS/test.key" --manifest "$d/m" || { fail "sign"; return; }
	rm -f "$d/m.minisig"
	minisign -S -s "$SIGN_KEYS/test.key" -m "$d/m" -t "signed with minisign" >/dev/null ||
		{ fail "minisign -S"; return; }
	cat "$d/m" "$d/m.minisig" >"$d/bundle.img" && truncate -s 1M "$d/bundle.img"
	# the command line names only the manifest: devices, root hash, options come from it
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" --disk "$d/bundle.img" \
		sign-minisign-bundle "$RD_REQ" "verity.manifest=/dev/vdc root=/dev/mapper/root verity.fail=poweroff"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root ext4 || return
	vm_assert_log_contains "$VM_LOG" "signed manifest version 5 from /dev/vdc \(bundle\) verified" || return
	sign_assert_status "$VM_LOG" booted "$rh"
}

# The bundle in a GPT partition found by its PARTLABEL (a root image update writes it next to
# the data and hash partitions).
test_manifest_bundle_in_partlabel_partition_boots() {
	local d rh
	d=$(vm_workdir sign-partlabel)
	rh=$(vm_verity_setup ext4 "$d") || { fail "verity setup"; return; }
	sign_manifest "$d/hash.img" 4 "$SIGN_KEYS/test.key" --bundle "$d/bundle" || { fail "sign"; return; }
	truncate -s 2M "$d/gpt.img"
	sgdisk -n 1:2048:+64K -c 1:root-manifest "$d/gpt.img" >/dev/null || { fail "sgdisk"; return; }
	dd if="$d/bundle" of="$d/gpt.img" bs=512 seek=2048 conv=notrunc status=none
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" --disk "$d/gpt.img" sign-partlabel \
		"$RD_REQ" "verity.manifest=PARTLABEL=root-manifest root=/dev/mapper/root verity.fail=poweroff"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_log_contains "$VM_LOG" "signed manifest version 4 from PARTLABEL=root-manifest \(bundle\) verified" || return
	sign_assert_status "$VM_LOG" booted "$rh"
}

test_tampered_manifest_refused() {
	local d
	d=$(vm_workdir sign-tampered)
	vm_verity_setup ext4 "$d" >/dev/null || { fail "verity setup"; return; }
	sign_manifest "$d/hash.img" 3 "$SIGN_KEYS/test.key" --embed || { fail "sign"; return; }
	# the attacker raises the version (anything else would do): the signature no longer holds
	sign_replace "$d/hash.img" "version 3" "version 9" || { fail "tamper"; return; }
	refused_boot sign-tampered "$d" "$AFTER_TREE" || return
	sign_assert_status "$VM_LOG" stage config || return
	sign_assert_status "$VM_LOG" reason "signed manifest refused: manifest signature \(key $TEST_ID\): signature does not verify"
}

test_manifest_signed_by_another_key_refused() {
	local d other
	d=$(vm_workdir sign-other-key)
	vm_verity_setup ext4 "$d" >/dev/null || { fail "verity setup"; return; }
	sign_manifest "$d/hash.img" 3 "$SIGN_KEYS/other.key" --embed || { fail "sign"; return; }
	other=$(sed -n 's/^untrusted comment: minisign public key //p' "$SIGN_KEYS/other.pub")
	refused_boot sign-other-key "$d" "$AFTER_TREE" || return
	sign_assert_status "$VM_LOG" reason "signed manifest refused: manifest signed by key $other, which is not a trusted key"
}

# A genuine manifest, but for another image: the root hash it binds is not this tree's.
test_valid_manifest_for_another_image_refused() {
	local d a rha
	a=$(vm_workdir sign-image-a)
	d=$(vm_workdir sign-image-b)
	rha=$(vm_verity_setup ext4 "$a") || { fail "verity setup a"; return; }
	VM_ROOT_ID=recovery vm_verity_setup ext4 "$d" >/dev/null || { fail "verity setup b"; return; }
	sign_manifest "$a/hash.img" 3 "$SIGN_KEYS/test.key" --bundle "$d/bundle.img" ||
		{ fail "sign"; return; }
	refused_boot sign-image-b "$d" "verity.manifest=/dev/vde root=/dev/mapper/root" \
		"$d/bundle.img" || return
	vm_assert_log_contains "$VM_LOG" "signed manifest version 3 from /dev/vde \(bundle\) verified" || return
	sign_assert_status "$VM_LOG" stage preflight || return
	sign_assert_status "$VM_LOG" roothash "$rha" || return
	sign_assert_status "$VM_LOG" reason ".*root hash mismatch"
}

test_contradicting_command_line_refused() {
	local d
	d=$(vm_workdir sign-contradiction)
	vm_verity_setup ext4 "$d" >/dev/null || { fail "verity setup"; return; }
	sign_manifest "$d/hash.img" 3 "$SIGN_KEYS/test.key" --embed || { fail "sign"; return; }
	refused_boot sign-contradiction "$d" "$AFTER_TREE verity.options=panic-on-corruption" || return
	sign_assert_status "$VM_LOG" reason "signed manifest refused: command line corruption option contradicts the signed manifest"
}

# A manifest below the initramfs' floor: refused with the reason, and (a floor allows no recovery
# root) the command line's fail action follows.
test_rollback_below_min_version_refused() {
	local d rd
	d=$(vm_workdir sign-rollback)
	vm_verity_setup ext4 "$d" >/dev/null || { fail "verity setup"; return; }
	sign_manifest "$d/hash.img" 1 "$SIGN_KEYS/test.key" --manifest "$d/m" || { fail "sign"; return; }
	# this one lives in the initramfs itself (the third kind of location)
	rd=$(sign_initramfs "min_version=2" "/etc/verity-init/manifest=$d/m" \
		"/etc/verity-init/manifest.minisig=$d/m.minisig") || { fail "initramfs"; return; }
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" sign-rollback "$rd" \
		"verity.manifest=/etc/verity-init/manifest root=/dev/mapper/root verity.fail=poweroff"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: root: signed manifest refused: manifest version 1 is below the minimum 2 \(rollback refused\)' \
		"the rollback was not refused with its reason" || return
	agent_assert_fallback "$VM_LOG" poweroff
}

# A root named by its root hash and a root hash signature (which carries no version), no
# manifest, under the policy with a version floor and require_signature=yes: one boot for the two
# tests below. The floor wants the manifest before anything else, so the policy refuses the line
# whatever signature it names.
floor_no_manifest_boot() {
	local d rh
	d=$(vm_workdir sign-floor-no-manifest)
	rh=$(vm_verity_setup ext4 "$d") || return 1
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" sign-floor-no-manifest "$RD_REQ" \
		"roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root verity.sig=/etc/verity-init/roothash.p7s verity.fail=poweroff"
}

# An old image with a valid root hash signature (which carries no version) under a floor: the
# policy wants the manifest.
test_signature_without_version_refused_under_a_floor() {
	vm_shared_boot floor-no-manifest floor_no_manifest_boot
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: policy: the initramfs policy has a version floor \(min_version=\): the root needs a signed manifest' \
		"no refusal by the version floor" || return
	agent_assert_fallback "$VM_LOG" panic
}

test_required_signature_missing_refused() {
	vm_shared_boot floor-no-manifest floor_no_manifest_boot
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	# (the policy also has a version floor, which wants the manifest before anything else)
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: policy: the initramfs policy has a version floor \(min_version=\): the root needs a signed manifest' || return
	vm_assert_log_lacks "$VM_LOG" 'device-mapper: verity: sha256' "a verity target was created" || return
	# the refused command line's verity.fail=poweroff is not used: the policy's default, panic
	vm_assert_log_lacks "$VM_LOG" 'fallback: poweroff' "the refused line's fail action was used" || return
	agent_assert_fallback "$VM_LOG" panic
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
