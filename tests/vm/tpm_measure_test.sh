#!/bin/bash
# TPM measurement (docs/signing.md, "TPM measurement"), with a real TPM 2.0 emulator (swtpm,
# QEMU tpm-tis, a fresh TPM per boot): before the switch the agent extends PCR 14 in every bank
# the TPM has with the digest of "dm-verity:NAME:ROOTHASH:SIGNER" and appends the record to
# /run/log/systemd/tpm2-measure.log. The root's init prints the PCRs and the log; the test
# recomputes the PCR on the host from the root hash, for an unsigned root and for another root
# signed with a manifest (another PCR value), and under dracut. Without a TPM the step is skipped with one log
# line (asserted on the first good boot of agent_boot_test.sh, which has no TPM); with
# require_tpm=yes in the initramfs policy the boot is refused instead. With tpm_measure=both the
# agent also measures as systemd >= 260 measures verity activations: systemd's word into its
# `verity` NvPCR (NV index 0x01d10202), which the root reads back with raw TPM commands; the
# host recomputes the index's value, its TPM name and the PCR 9 anchor.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"
# shellcheck source=tests/vm/sign_lib.sh
. "$(dirname "$0")/sign_lib.sh"
# shellcheck source=tests/vm/lib-tpm.sh
. "$(dirname "$0")/lib-tpm.sh"
# shellcheck source=tests/vm/lib-dracut.sh
. "$(dirname "$0")/lib-dracut.sh"
# shellcheck source=tests/vm/lib-debian.sh
. "$(dirname "$0")/lib-debian.sh"

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 mkfs.ext4 debugfs cpio modprobe openssl basenc || exit 1
	tpm_require || exit 1
	[ -x "$VI_TOOL" ] || { echo "no $VI_TOOL" >&2; exit 1; }
	D=$(vm_workdir tpm-root)
	RH=$(vm_verity_setup ext4 "$D") || exit 1
	KEYS="roothash=$RH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root verity.fail=poweroff"
	TEST_ID=$(sed -n 's/^untrusted comment: minisign public key //p' "$SIGN_KEYS/test.pub")
}

# measured_boot NAME INITRD CMDLINE DIR [vm_boot disk options...] : boot DIR's root (+ disks)
# with a fresh TPM (SeaBIOS and the bzImage: see tpm_start).
measured_boot() {
	local extra name=$1 rd=$2 cl=$3 dir=$4
	shift 4
	extra=$(tpm_start "$VM_WORKROOT/$name-tpm") || { fail "swtpm"; return 1; }
	VM_BIOS=seabios VM_BOOT_KERNEL=$VM_KERNEL VM_QEMU_EXTRA="$extra" \
		vm_boot --disk "$dir/data.img" --disk "$dir/hash.img" "$@" "$name" "$rd" "$cl"
	vm_assert_booted
}

# assert_measured LOG EVENT : the agent logged the measurement of EVENT; every bank the guest
# shows holds the value the host computes from EVENT alone; the guest's log has the record.
assert_measured() {
	local log=$1 ev=$2 alg want got n=0 d
	vm_assert_marker "$log" || return 1
	vm_assert_log_contains "$log" "verity-init\[[0-9]+\]: measured into PCR 14 \([a-z0-9,]*sha256[a-z0-9,]*\) in [0-9]+ us \([0-9]+ us own, [0-9]+ us the TPM.s answer\): $ev" \
		"the agent did not log the measurement of $ev" || return 1
	for alg in sha1 sha256 sha384 sha512; do
		got=$(tpm_guest_pcr "$log" "$alg" 14)
		[ -n "$got" ] || continue
		want=$(tpm_expected_pcr "$alg" "$ev")
		assertEquals "PCR 14 ($alg) in the guest" "$want" "$got" || return 1
		# no other PCR moved: the agent extends one
		[ "$(tpm_guest_pcr "$log" "$alg" 15)" = "$(tpm_guest_pcr "$log" "$alg" 13)" ] ||
			{ fail "PCR 13 and 15 ($alg) differ: something else was extended"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 1 ] || { fail "the guest showed no PCR bank"; return 1; }
	d=$(printf '%s' "$ev" | openssl dgst -sha256 -r | cut -d' ' -f1)
	vm_assert_log_contains "$log" "VERITY-TEST-MEASURE \{\"pcr\":14,\"digests\":\[.*\{\"hashAlg\":\"sha256\",\"digest\":\"$d\"\}.*\],\"content_type\":\"systemd\",\"content\":\{\"string\":\"$ev\",\"bootId\":\"[0-9a-f]{32}\",\"timestamp\":[0-9]+,\"eventType\":\"dm-verity\"\}\}" \
		"no matching record in /run/log/systemd/tpm2-measure.log"
}

test_unsigned_root_measured_into_pcr14() {
	local rd
	# shellcheck disable=SC2119
	rd=$(agent_initramfs) || { fail "initramfs"; return; }
	measured_boot tpm-unsigned "$rd" "$KEYS" "$D" || return
	vm_assert_root_mapper "$VM_LOG" root ext4 || return
	assert_measured "$VM_LOG" "dm-verity:root:$RH:none" || return
	PCR_UNSIGNED=$(tpm_guest_pcr "$VM_LOG" sha256 14)
}

# Another root, signed with a manifest: its own root hash and the key id in the event, so
# another PCR value.
test_other_root_with_manifest_gives_another_pcr() {
	local rd w rh
	w=$(vm_workdir tpm-manifest)
	rh=$(VM_ROOT_ID=other vm_verity_setup ext4 "$w") || { fail "setup"; return; }
	sign_manifest "$w/hash.img" 5 "$SIGN_KEYS/test.key" --embed || { fail "sign"; return; }
	rd=$(sign_initramfs "require_signature=yes") || { fail "initramfs"; return; }
	measured_boot tpm-manifest "$rd" \
		"verity.manifest=/dev/vdb verity.data=/dev/vda verity.hash=/dev/vdb root=/dev/mapper/root verity.fail=poweroff" "$w" || return
	vm_assert_marker "$VM_LOG" other || return
	assert_measured "$VM_LOG" "dm-verity:root:$rh:minisign:$TEST_ID" || return
	[ -n "${PCR_UNSIGNED:-}" ] || { fail "needs test_unsigned_root_measured_into_pcr14 first"; return; }
	assertNotEquals "another root, the same PCR" "$PCR_UNSIGNED" "$(tpm_guest_pcr "$VM_LOG" sha256 14)"
}

# A refused root, then the recovery root: before the fail action the agent extends
# "dm-verity-fallback:STAGE", so the PCR can no longer reach a good boot's value, then the
# recovery root is measured on top; the log replays to the PCR. With tpm_measure=both the
# NvPCR gets the fallback first too (its first write anchors it), then the recovery root's word.
test_fallback_is_measured_before_the_recovery_root() {
	local rd rec rrh bad nv='"nv_index":30474754,"digests":\[\{"hashAlg":"sha256","digest":"[0-9a-f]{64}"\}\],"content_type":"systemd","content":\{"nvIndexName":"verity","string":'
	rec=$(vm_workdir tpm-recovery)
	rrh=$(VM_ROOT_ID=recovery vm_verity_setup ext4 "$rec") || { fail "setup"; return; }
	bad=$(printf '%s' "$RH" | tr '0-9a-f' '1-9a-f0')
	rd=$(agent_initramfs --policy "tpm_measure=both") || { fail "initramfs"; return; }
	measured_boot tpm-fallback "$rd" "roothash=$bad systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root verity.fail=recovery,poweroff verity.recovery.roothash=$rrh verity.recovery.data=/dev/vdc verity.recovery.hash=/dev/vdd" "$D" \
		--disk "$rec/data.img" --disk "$rec/hash.img" || return
	vm_assert_marker "$VM_LOG" recovery || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: measured into PCR 14 .*: dm-verity-fallback:preflight' \
		"the fallback was not measured" || return
	vm_assert_log_order "$VM_LOG" 'dm-verity-fallback:preflight' "measured into PCR 14 .*: dm-verity:recovery:$rrh:none" || return
	assertEquals "PCR 14 (sha256) after the fallback and the recovery root" \
		"$(tpm_expected_pcr sha256 "dm-verity-fallback:preflight" "dm-verity:recovery:$rrh:none")" \
		"$(tpm_guest_pcr "$VM_LOG" sha256 14)" || return
	[ "$(grep -a -c 'VERITY-TEST-MEASURE {"pcr":14' "$VM_LOG")" = 2 ] ||
		{ fail "the log does not hold the two records"; return; }
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: measured into NvPCR verity \(NV index 0x01d10202, defined, anchored in PCR 9\) .*: dm-verity-fallback:preflight' \
		"the fallback did not go into the NvPCR first" || return
	vm_assert_log_order "$VM_LOG" "VERITY-TEST-MEASURE \\{$nv\"dm-verity-fallback:preflight\"" \
		"VERITY-TEST-MEASURE \\{$nv\"verity:recovery:$rrh:\"" || return
	[ "$(grep -a -c 'VERITY-TEST-MEASURE {"nv_index":30474754' "$VM_LOG")" = 2 ] ||
		fail "the log does not hold the two NvPCR records"
}

# Under dracut (shell init) the agent's setup measures the root the same way, before dracut
# mounts it and switches.
test_dracut_setup_measures_the_root() {
	local rd
	rd=$(vm_dracut_image shell) || { fail "dracut image"; return; }
	measured_boot tpm-dracut "$rd" "verity.roothash=$RH verity.data=/dev/vda verity.hash=/dev/vdb rootfstype=ext4" "$D" \
		--timeout "${VM_DRACUT_TIMEOUT:-300}" || return
	vm_assert_root_mapper "$VM_LOG" root ext4 || return
	assert_measured "$VM_LOG" "dm-verity:root:$RH:none"
}

# A shell dracut opens outside the fail list, after setup measured the good root: rd.break=
# pre-mount with a policy that allows shells (an extra cpio archive over the image, as in
# dracut_systemd_test.sh). The shell reads PCR 14 itself (shell init: its login profile /.profile;
# systemd: dracut-emergency.service's last emergency hook, which runs right before its sulogin)
# and powers off. PCR 14 holds the good root's event and "dm-verity-fallback:shell" on top, never
# the value of a good boot.
# dracut_shell_pcr NAME IMAGE CMDLINE profile|hook : that boot, the PCR read where the last
# word says.
dracut_shell_pcr() {
	local name=$1 rd=$2 cl=$3 where=$4 w good
	w=$(vm_workdir "$name")
	rm -rf "$w/extra"
	# files only: a directory entry would replace the image's /lib link to usr/lib
	mkdir -p "$w/extra/etc" "$w/extra/usr/lib/dracut/hooks/emergency" || return 1
	echo "allow_shell=yes" >"$w/extra/etc/verity-init.conf"
	cat >"$w/extra/.profile" <<'PROFILE'
echo "VERITY-TEST-PCR sha256 14 $(cat /sys/class/tpm/tpm0/pcr-sha256/14)"
echo o > /proc/sysrq-trigger
PROFILE
	if [ "$where" = hook ]; then
		mv "$w/extra/.profile" "$w/extra/usr/lib/dracut/hooks/emergency/99-vitest-pcr.sh"
	fi
	{ cat "$rd"; (cd "$w/extra" && find . -type f | sed 's|^\./||' | cpio -o -H newc --quiet | gzip -n); } >"$w/initrd.img" ||
		{ fail "image"; return 1; }
	measured_boot "$name" "$w/initrd.img" "$cl rd.break=pre-mount" "$D" \
		--timeout "${VM_DRACUT_TIMEOUT:-300}" || return 1
	vm_assert_no_marker "$VM_LOG" || return 1
	# the good root's event as setup logged it, then the shell's
	good=$(sed -n 's/.*verity-init\[[0-9]*\]: measured into PCR 14 .*: \(dm-verity:root:.*\)$/\1/p' "$VM_LOG" | head -n1 | tr -d '\r')
	[ -n "$good" ] || { fail "setup did not measure the root"; return 1; }
	vm_assert_log_order "$VM_LOG" "measured into PCR 14 .*: dm-verity:root:" \
		"measured into PCR 14 .*: dm-verity-fallback:shell" || return 1
	assertNotEquals "the shell runs with PCR 14 at the good boot's value" \
		"$(tpm_expected_pcr sha256 "$good")" "$(tpm_guest_pcr "$VM_LOG" sha256 14)" || return 1
	assertEquals "PCR 14: the good root, then the shell's fallback" \
		"$(tpm_expected_pcr sha256 "$good" dm-verity-fallback:shell)" "$(tpm_guest_pcr "$VM_LOG" sha256 14)"
}

test_dracut_shell_breakpoint_extends_the_fallback() {
	local rd
	rd=$(vm_dracut_image shell) || { fail "dracut image"; return; }
	dracut_shell_pcr tpm-dracut-break "$rd" \
		"verity.roothash=$RH verity.data=/dev/vda verity.hash=/dev/vdb rootfstype=ext4" profile
}

test_dracut_systemd_breakpoint_extends_the_fallback() {
	local rd
	rd=$(vm_dracut_image systemd) || { fail "dracut image"; return; }
	dracut_shell_pcr tpm-dracut-systemd-break "$rd" \
		"roothash=$RH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb rootfstype=ext4" hook
}

# NVPCR_NAME : the TPM name of the NvPCR as the agent defines it, once written (nameAlg sha256 and
# SHA-256 of its public area: index, nameAlg, attributes with TPMA_NV_WRITTEN, the policy, the
# size), computed here from include/tpm2.h's values.
NVPCR_POLICY=45e0ba58e5a0655e573912570dd5377691c00e1c523cf781a7ff794a854340cd
NVPCR_FIRST=3c326323670e28ad37bd57f63b4cc34d26ab205ef22f275c58d47fab2485466e
nvpcr_name() {
	echo "000b$(printf '01d10202000b2c0600480020%s0020' "$NVPCR_POLICY" | tr a-f A-F |
		basenc --base16 -d | openssl dgst -sha256 -r | cut -d' ' -f1)"
}

# nvpcr_expected WORD... : the NvPCR's value after systemd's anchor (32 zero bytes) and each
# WORD: SHA-256(value | SHA-256(WORD)), from 32 zero bytes.
nvpcr_expected() {
	local v d z
	z=$(printf '%064d' 0)
	v=$(printf '%s%s' "$z" "$z" | basenc --base16 -d | openssl dgst -sha256 -r | cut -d' ' -f1)
	for w in "$@"; do
		d=$(printf '%s' "$w" | openssl dgst -sha256 -r | cut -d' ' -f1)
		v=$(printf '%s%s' "$v" "$d" | tr a-f A-F | basenc --base16 -d | openssl dgst -sha256 -r | cut -d' ' -f1)
	done
	echo "$v"
}

# A root whose init reads the NvPCR with what root on the running system can send: NV_Read of its
# 32 bytes (authorized by the index's own empty password), NV_ReadPublic, and systemd's marker.
nvpcr_root() {
	local d=$1 t=$1/tree
	rm -rf "$t" && mkdir -p "$d" || return 1
	vm_rootfs_tree "$t" nvpcr || return 1
	for a in printf dd od; do ln -sf busybox "$t/bin/$a" || return 1; done
	cat >"$t/etc/vm-root-hook" <<'HOOK'
exec 3<>/dev/tpmrm0
printf '\200\002\000\000\000\043\000\000\001\116\001\321\002\002\001\321\002\002\000\000\000\011\100\000\000\011\000\000\000\000\000\000\040\000\000' >&3
echo "VERITY-TEST-NVREAD $(dd bs=4096 count=1 <&3 2>/dev/null | od -An -tx1 -v | tr -d ' \n')"
printf '\200\001\000\000\000\016\000\000\001\151\001\321\002\002' >&3
echo "VERITY-TEST-NVPUBLIC $(dd bs=4096 count=1 <&3 2>/dev/null | od -An -tx1 -v | tr -d ' \n')"
exec 3>&-
echo "VERITY-TEST-NVAUTH $(cat /run/systemd/nvpcr/verity.auth 2>&1)"
HOOK
	vm_mkfs ext4 "$t" "$d/data.img" || return 1
	rm -f "$d/hash.img"
	vm_verity_format "$VM_VERITY_TOOL" "$d/data.img" "$d/hash.img"
}

# tpm_measure=both: PCR 14 as before, and systemd's measurement: the NvPCR holds the anchor and
# the root's word, its public area is systemd's NvPCR with the agent's policy, the log has
# systemd's NvPCR record and PCR 9's anchor record, PCR 9 holds the anchor, and systemd's marker
# is in /run.
test_nvpcr_measured_as_systemd_measures() {
	local w rd rh word name got anchor
	w=$(vm_workdir tpm-nvpcr)
	rh=$(nvpcr_root "$w") || { fail "root"; return; }
	rd=$(agent_initramfs --policy "tpm_measure=both") || { fail "initramfs"; return; }
	measured_boot tpm-nvpcr "$rd" "roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root verity.fail=poweroff" "$w" || return
	vm_assert_marker "$VM_LOG" nvpcr || return
	word="verity:root:$rh:"
	name=$(nvpcr_name)
	anchor="nvpcr-init:verity:0x1d10202:$name"
	vm_assert_log_contains "$VM_LOG" "verity-init\[[0-9]+\]: measured into NvPCR verity \(NV index 0x01d10202, defined, anchored in PCR 9\) in [0-9]+ us \([0-9]+ us the TPM.s answers\): $word" \
		"the agent did not log the NvPCR measurement" || return
	# PCR 14 holds the agent's own event, as with tpm_measure=pcr
	assertEquals "PCR 14 (sha256)" "$(tpm_expected_pcr sha256 "dm-verity:root:$rh:none")" \
		"$(tpm_guest_pcr "$VM_LOG" sha256 14)" || return
	# NV_Read: TPM_RC_SUCCESS, parameters, the 32 bytes
	got=$(grep -a -o -m1 'VERITY-TEST-NVREAD [0-9a-f]*' "$VM_LOG" | cut -d' ' -f2)
	assertEquals "NV_Read's answer head" "80020000003500000000000000220020" "${got:0:32}" || return
	assertEquals "the NvPCR's value" "$(nvpcr_expected "$word")" "${got:32:64}" || return
	# NV_ReadPublic: systemd's NvPCR (written), the agent's policy, the name computed here
	got=$(grep -a -o -m1 'VERITY-TEST-NVPUBLIC [0-9a-f]*' "$VM_LOG" | cut -d' ' -f2)
	assertEquals "the NvPCR's public area and name" \
		"80010000005e00000000002e01d10202000b2c0600480020${NVPCR_POLICY}00200022$name" "$got" || return
	assertEquals "PCR 9 (sha256): the anchor" "$(tpm_expected_pcr sha256 "$anchor")" \
		"$(tpm_guest_pcr "$VM_LOG" sha256 9)" || return
	vm_assert_log_contains "$VM_LOG" "VERITY-TEST-NVAUTH $NVPCR_FIRST" "no systemd marker" || return
	vm_assert_log_contains "$VM_LOG" "VERITY-TEST-MEASURE \{\"nv_index\":30474754,\"digests\":\[\{\"hashAlg\":\"sha256\",\"digest\":\"$(printf '%s' "$word" | openssl dgst -sha256 -r | cut -d' ' -f1)\"\}\],\"content_type\":\"systemd\",\"content\":\{\"nvIndexName\":\"verity\",\"string\":\"$word\",\"bootId\":\"[0-9a-f]{32}\",\"timestamp\":[0-9]+,\"eventType\":\"dm-verity\"\}\}" \
		"no NvPCR record in /run/log/systemd/tpm2-measure.log" || return
	vm_assert_log_contains "$VM_LOG" "VERITY-TEST-MEASURE \{\"pcr\":9,\"digests\":\[.*\{\"hashAlg\":\"sha256\",\"digest\":\"$(printf '%s' "$anchor" | openssl dgst -sha256 -r | cut -d' ' -f1)\"\}.*\],\"content_type\":\"systemd\",\"content\":\{\"string\":\"$anchor\",\"bootId\":\"[0-9a-f]{32}\",\"timestamp\":[0-9]+,\"eventType\":\"nvpcr-init\"\}\}" \
		"no anchor record in /run/log/systemd/tpm2-measure.log"
}

# sid_root : set DEB_DATA, DEB_HASH, DEB_ROOTHASH to a Debian sid root with systemd-tpm (systemd
# >= 260) and tests/vm/debian-nvpcr-hook.sh's init, built by mmdebstrap from the host's archive
# (tests/vm/lib-debian.sh, cached under $BUILD/debian-root). Fails when the archive has no sid.
sid_root() {
	local src=$BUILD/debian-root/sid.list
	# the host's archive, its sid suite; a mirror frozen at a date serves a sid whose Release
	# file has expired: its date is not what this root is for
	mkdir -p "$BUILD/debian-root" &&
	sed -n 's/^URIs: *\(.*\)/deb [check-valid-until=no] \1 sid main/p' "$DEB_SOURCES" | grep -v security |
		head -n 1 >"$src" && [ -s "$src" ] || return 1
	DEB_SUITE=sid DEB_SOURCES=$src DEB_INCLUDE=systemd,systemd-tpm,libtss2-tcti-device0t64 \
		DEB_HOOK=$VM_SRCDIR/debian-nvpcr-hook.sh debian_verity ext4
}

# systemd's own tool reads the agent's measurement: a sid root (systemd >= 260) booted with
# tpm_measure=nvpcr, whose init runs `systemd-analyze nvpcrs verity`; it reports the value the
# host computes from the root hash. Skipped where no sid root can be built (no archive with sid,
# no network).
test_systemd_reads_the_nvpcr() {
	local rd extra got want
	if ! sid_root; then
		startSkipping
		echo "no Debian sid root with systemd >= 260 (mmdebstrap from the host's archive)" >&2
		return
	fi
	rd=$(agent_initramfs --policy "tpm_measure=nvpcr") || { fail "initramfs"; return; }
	extra=$(tpm_start "$VM_WORKROOT/tpm-sid-tpm") || { fail "swtpm"; return; }
	VM_BIOS=seabios VM_BOOT_KERNEL=$VM_KERNEL VM_QEMU_EXTRA="$extra" \
		vm_boot --timeout "${DEB_TIMEOUT:-300}" --mem "$DEB_MEM" --disk "$DEB_DATA" --disk "$DEB_HASH" \
		tpm-sid "$rd" "roothash=$DEB_ROOTHASH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root verity.fail=poweroff init=/usr/lib/verity-test/nvpcr-init"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" sid || return
	got=$(grep -a -o -m1 'VERITY-TEST-SYSTEMD systemd [0-9]*' "$VM_LOG" | awk '{ print $3 }')
	[ "${got:-0}" -ge 260 ] || { fail "systemd ${got:-unknown} in the sid root, not >= 260"; return; }
	want=$(nvpcr_expected "verity:root:$DEB_ROOTHASH:")
	vm_assert_log_contains "$VM_LOG" "VERITY-TEST-SDNVPCR \[\{\"name\":\"verity\",\"nvindex\":30474754,\"priority\":[0-9]+,\"value\":\"$want\"\}\]" \
		"systemd-analyze nvpcrs did not read the value the host computes ($want)"
}

test_require_tpm_without_tpm_refuses_the_boot() {
	local rd
	rd=$(agent_initramfs --policy "require_tpm=yes") || { fail "initramfs"; return; }
	vm_boot --disk "$D/data.img" --disk "$D/hash.img" tpm-required "$rd" "$KEYS"
	vm_assert_booted || return
	agent_assert_refused "$VM_LOG" measure 'no TPM' || return
	agent_assert_fallback "$VM_LOG" poweroff
}

# shellcheck source=/dev/null
. shunit2
