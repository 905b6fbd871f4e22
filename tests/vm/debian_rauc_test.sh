#!/bin/bash
# A/B updates with RAUC end to end (docs/slots.md, "RAUC"): the Debian 13 root of lib-debian.sh with
# Debian's rauc and rauc-service and the verity-init package of `make deb` (the RAUC backend, the
# rauc.service drop-in, verity-init-mark-good.service, enabled), RAUC's system.conf from
# rauc/system.conf.example and a test CA as its keyring (tests/vm/debian-rauc-hook.sh). It boots
# through the standalone agent initramfs whose policy says slots=a,b, with the manifest key.
# Disks: vda = the slots (root-a, root-a-verity, root-b, root-b-verity; writable: RAUC writes
#        the slot that is not running), vdb = the store (verity-slots), vdc = the bundles (ext4,
#        label "bundles", read-only), made on the host with `rauc bundle`.
# One scenario in four boots, each test a step of it (a step fails at once when one before it
# failed):
#   1. slot a (version 1, a blank store): RAUC knows it runs a (the drop-in) and installs a broken
#      update into b (version 3, its manifest signed by a key the initramfs does not trust);
#   2. the agent refuses b and boots a in the same boot; the status says why; RAUC installs the
#      good update (version 2) into b;
#   3. b boots verified, is marked good at boot-complete.target, the floor rises to 2;
#   4. the old image (version 1) in both slots: each is refused, the fail action is taken.
# DEBIAN_RAUC_NO_DROPIN=1: the first boot runs rauc.service as Debian ships it, without the
# drop-in (verity_test.no-dropin): step 1 must fail, RAUC cannot tell which slot runs.
# The release: Debian 13 (RAUC 1.13) unless VM_DEBIAN_SUITE says bookworm (RAUC 1.8); `make
# check` boots 13 (docs/testing.md, "Debian releases and kernels").
VM_DEBIAN_SUITE=${VM_DEBIAN_SUITE:-trixie}
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/lib-debian.sh
. "$(dirname "$0")/lib-debian.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"

VI=$BUILD/verity-init
KEYS=$VM_SRCDIR/keys
RAUC_CONF=$VM_TOPDIR/rauc/system.conf.example
# A Debian boot under TCG on a loaded 2-core host: 30-90 s, and a RAUC install of the root image
DEB_TIMEOUT=${DEB_TIMEOUT:-400}
CMDLINE="root=/dev/mapper/root verity.fail=poweroff systemd.volatile=state"
# the store: partition 1 of vdb, 1 MiB from its start
STORE_OFF=1048576
STORE_LEN=1048576
# how far the scenario got (each step checks that the one before it passed)
STEP=0

oneTimeSetUp() {
	local deb
	vm_require_tools qemu-system-x86_64 mmdebstrap rauc sgdisk debugfs mkfs.ext4 jq zstd || exit 1
	[ -x "$VI_STATIC" ] || { echo "no $VI_STATIC (make static)" >&2; exit 1; }
	if ! [ -x "$VI_IMAGE" ] || ! [ -x "$VI" ]; then echo "no $VI_IMAGE, $VI (make)" >&2; exit 1; fi
	debian_make_deb || exit 1
	deb=("$DEB_PKGDIR"/verity-init_*.deb)
	if [ ${#deb[@]} != 1 ] || ! [ -r "${deb[0]}" ]; then echo "not one verity-init_*.deb" >&2; exit 1; fi
	DEB_INCLUDE=$DEB_INCLUDE,rauc,rauc-service,${deb[0]}
	DEB_EXTRA_HOOK=$VM_SRCDIR/debian-rauc-hook.sh
	DEB_EXTRA_ARGS=("$RAUC_CONF" "$KEYS/rauc-test.crt"
		"$(cat "$RAUC_CONF" "$KEYS/rauc-test.crt" | sha256sum | cut -c1-16)")
	W=$(vm_workdir debian-rauc)
	mkdir -p "$W/keys"
	cp "$KEYS/test.pub" "$W/keys/"
	printf 'slots=a,b\n' >"$W/policy.conf"
	RD=$W/initrd.img
	# squashfs with -m: RAUC mounts its bundles, and this root carries no modules of the test
	# kernel (the image loads a filesystem of --fs only when it mounts one of that type)
	"$MKRD" -k "$VM_KVER" -a "$VI_STATIC" -m "virtio_pci virtio_blk loop squashfs" -c "$W/policy.conf" \
		-K "$W/keys" -z zstd "$RD" >"$W/mkrd.out" 2>&1 || { cat "$W/mkrd.out" >&2; exit 1; }
	A=$(rauc_artefacts) || exit 1
	slot_disks || exit 1
}

# _rauc_sign HASH OUT SLOT VERSION KEY : OUT = HASH with a manifest of VERSION for SLOT's
# partitions embedded after the tree, signed with KEY.
_rauc_sign() {
	local out
	cp "$1" "$2" || return 1
	out=$("$VI_IMAGE" sign "$2" --data-device "PARTLABEL=root-$3" \
		--hash-device "PARTLABEL=root-$3-verity" --minisign-key "$5" --version "$4" --embed 2>&1) ||
		{ vm_die "sign $2: $out"; return 1; }
}

# _rauc_bundle DIR DATA HASH VERSION OUT : a bundle of DATA (image rootfs) and HASH (image verity).
_rauc_bundle() {
	local d=$1.in out
	mkdir -p "$d" && ln "$2" "$d/data.img" && ln "$3" "$d/hash.img" || return 1
	printf '[update]\ncompatible=Example Device\nversion=%s\n\n[image.rootfs]\nfilename=data.img\n\n[image.verity]\nfilename=hash.img\n' \
		"$4" >"$d/manifest.raucm"
	# data uncompressed: made in seconds, read in the guest without decompressing it under TCG
	out=$(rauc bundle --cert="$KEYS/rauc-test.crt" --key="$KEYS/rauc-test.key" \
		--mksquashfs-args="-noD -noF -no-fragments" "$d" "$5" 2>&1) ||
		{ vm_die "rauc bundle $5: $out"; return 1; }
	rm -rf "$d"
}

# _rauc_build DATA OUT.tmp : the images and bundles of the scenario (the root DATA is version 1).
_rauc_build() {
	local data=$1 o=$2 mib
	mkdir -p "$o/bundles" || return 1
	# version 2: the same root saying v2 in /etc/verity-test-image
	cp "$data" "$o/data-v2.img" && printf 'v2\n' >"$o/v2.txt" &&
	printf 'rm /etc/verity-test-image\nwrite %s /etc/verity-test-image\nsif /etc/verity-test-image mode 0100644\n' \
		"$o/v2.txt" | debugfs -w -f - "$o/data-v2.img" >/dev/null 2>&1 || return 1
	vm_verity_format verity-image "$data" "$o/hash-v1.img" >/dev/null &&
	vm_verity_format verity-image "$o/data-v2.img" "$o/hash-v2.img" >/dev/null || return 1
	_rauc_sign "$o/hash-v1.img" "$o/hash-a-v1.img" a 1 "$KEYS/test.key" &&
	_rauc_sign "$o/hash-v1.img" "$o/hash-b-v1.img" b 1 "$KEYS/test.key" &&
	_rauc_sign "$o/hash-v2.img" "$o/hash-b-v2.img" b 2 "$KEYS/test.key" &&
	_rauc_sign "$o/hash-v2.img" "$o/hash-b-v3-other.img" b 3 "$KEYS/other.key" || return 1
	_rauc_bundle "$o/b2" "$o/data-v2.img" "$o/hash-b-v2.img" 2 "$o/bundles/b-v2.raucb" &&
	_rauc_bundle "$o/b3" "$o/data-v2.img" "$o/hash-b-v3-other.img" 3 \
		"$o/bundles/b-v3-other.raucb" || return 1
	mib=$(( $(du -sm "$o/bundles" | cut -f1) + 16 ))
	E2FSPROGS_FAKE_TIME=$VM_EPOCH mkfs.ext4 -q -F -L bundles -O ^has_journal -d "$o/bundles" \
		"$o/bundles.img" "${mib}M" >/dev/null && rm -rf "$o/bundles" "$o/v2.txt"
}

# rauc_artefacts : print the directory of the cached images and bundles (built once per root).
rauc_artefacts() {
	local data key out
	data=$(debian_root_image ext4) || return 1
	out=${data%.ext4}.rauc
	key=$(vm_cache_key debian-rauc "$(cat "$data.key")" "$(sha256sum <"$VI_IMAGE")" \
		"$(declare -f _rauc_sign _rauc_bundle _rauc_build | sha256sum)" "$(rauc --version)" \
		"$(cat "$KEYS/test.key" "$KEYS/other.key" "$KEYS/rauc-test.key" | sha256sum)")
	vm_cached "$key" "$out" _rauc_build "$data" "$out.tmp" || return 1
	DATA_V1=$data
	echo "$out"
}

mib_sectors() { echo $(( ( ($(vm_size "$1") + 1048575) / 1048576 ) * 2048 )); }

# slot_disks : W/slots.img (a: version 1; b: empty, as a device leaves the factory), W/store.img
# (blank), each partition's first sector in PART_START[1..4].
slot_disks() {
	local d h s=2048 n
	DATA_V1=$(debian_root_image ext4) || return 1
	d=$(mib_sectors "$DATA_V1") h=$(mib_sectors "$A/hash-b-v3-other.img")
	PART_START=(0)
	for n in 1 2 3 4; do
		PART_START+=("$s")
		if [ $(( n % 2 )) = 1 ]; then s=$(( s + d )); else s=$(( s + h )); fi
	done
	rm -f "$W/slots.img" "$W/store.img"
	truncate -s $(( (s + 2048) * 512 )) "$W/slots.img"
	sgdisk -n "1:${PART_START[1]}:+$d" -c 1:root-a -n "2:${PART_START[2]}:+$h" -c 2:root-a-verity \
		-n "3:${PART_START[3]}:+$d" -c 3:root-b -n "4:${PART_START[4]}:+$h" -c 4:root-b-verity \
		"$W/slots.img" >/dev/null || { vm_die "sgdisk slots"; return 1; }
	put_part 1 "$DATA_V1" && put_part 2 "$A/hash-a-v1.img" || return 1
	truncate -s 4M "$W/store.img"
	sgdisk -n 1:2048:+2048 -c 1:verity-slots "$W/store.img" >/dev/null || { vm_die "sgdisk store"; return 1; }
}

# put_part N FILE : FILE at the start of partition N of the slots disk.
put_part() {
	dd if="$2" of="$W/slots.img" bs=1M seek=$(( PART_START[$1] * 512 )) oflag=seek_bytes \
		conv=notrunc status=none
}

# part_holds N FILE : partition N starts with FILE's bytes.
part_holds() {
	cmp -s -n "$(vm_size "$2")" "$2" <(tail -c +$(( PART_START[$1] * 512 + 1 )) "$W/slots.img")
}

# store_json : the store as the guest left it, through the host's `verity-init slot status --json`.
store_json() {
	dd if="$W/store.img" of="$W/store.bin" bs=64K skip=$(( STORE_OFF / 65536 )) \
		count=$(( STORE_LEN / 65536 )) status=none && "$VI" slot --store "$W/store.bin" status --json
}

# console_json LOG PREFIX : the JSON object the guest printed after PREFIX.
console_json() {
	local l
	l=$(debian_line "$1" "$2") || { _vm_fail "no $2 line" "$1"; return 1; }
	printf '%s\n' "${l#"$2" }"
}

# assert_jq JSON FILTER WHAT : jq -e FILTER holds for JSON.
assert_jq() {
	printf '%s\n' "$1" | jq -e "$2" >/dev/null 2>&1 ||
		{ fail "$3: $1 does not satisfy $2"; return 1; }
}

# rauc_boot NAME [WORDS...] : boot the slots with the agent's initramfs.
rauc_boot() {
	local name=$1; shift
	vm_boot --timeout "$DEB_TIMEOUT" --mem "$DEB_MEM" --disk-rw "$W/slots.img" \
		--disk-rw "$W/store.img" --disk "$A/bundles.img" "$name" "$RD" "$CMDLINE $*"
}

# step N : step N may run (the steps before it passed).
step() {
	[ "$STEP" = $(( $1 - 1 )) ] || { fail "step $(( $1 - 1 )) of the scenario failed"; return 1; }
}

test_step1_slot_a_installs_an_update_into_b_through_rauc() {
	local j sum
	step 1 || return
	sum=$(head -c "$(vm_size "$DATA_V1")" <(tail -c +$(( PART_START[1] * 512 + 1 )) "$W/slots.img") | sha256sum)
	rauc_boot debian-rauc-1 verity_test.rauc=b-v3-other.raucb \
		${DEBIAN_RAUC_NO_DROPIN:+verity_test.no-dropin}
	vm_assert_booted || return
	debian_assert_running "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: slot a: signed manifest version 1 from PARTLABEL=root-a-verity \(after the hash tree\) verified" || return
	sign_status "$VM_LOG" slot a || return
	sign_status "$VM_LOG" store /dev/vdb1 || return
	vm_assert_log_contains "$VM_LOG" "VERITY-TEST-IMAGE v1" || return
	vm_assert_log_contains "$VM_LOG" "VERITY-TEST-MARK-GOOD success 0" "mark-good did not run" || return
	j=$(console_json "$VM_LOG" VERITY-TEST-SLOTS) || return
	assert_jq "$j" '.current == "a" and .floor == 1 and (.slots[0] | .successful and .version == 1)' \
		"a marked good" || return
	# the drop-in told RAUC which slot runs: it installs into the other one
	vm_assert_log_contains "$VM_LOG" "VERITY-TEST-RAUC-STATUS RAUC_SYSTEM_BOOTED_BOOTNAME='a' RAUC_BOOT_PRIMARY='rootfs.0'" \
		"RAUC does not see slot a booted and primary" || return
	vm_assert_log_contains "$VM_LOG" "VERITY-TEST-RAUC-INSTALL b-v3-other.raucb rc=0" "rauc install failed" || return
	j=$(store_json) || { fail "slot status: $j"; return; }
	assert_jq "$j" '.primary == "b" and .floor == 1 and (.slots[1] | .priority == 15 and .bootable and (.successful | not)) and (.slots[0] | .priority == 14 and .successful)' \
		"b primary after the install" || return
	part_holds 3 "$A/data-v2.img" || { fail "root-b does not hold the bundle's data"; return; }
	part_holds 4 "$A/hash-b-v3-other.img" || { fail "root-b-verity does not hold the bundle's hash tree"; return; }
	[ "$(head -c "$(vm_size "$DATA_V1")" <(tail -c +$(( PART_START[1] * 512 + 1 )) "$W/slots.img") | sha256sum)" = "$sum" ] ||
		{ fail "the running slot a was written"; return; }
	STEP=1
}

test_step2_broken_b_ends_back_on_a_which_installs_the_good_update() {
	local j
	step 2 || return
	rauc_boot debian-rauc-2 verity_test.rauc=b-v2.raucb
	vm_assert_booted || return
	debian_assert_running "$VM_LOG" || return
	vm_assert_log_order "$VM_LOG" "verity-init\[1\]: slot b marked bad \(manifest: " \
		"verity-init\[1\]: slot a: priority 14, [0-9]+ tries left: setting up" || return
	sign_status "$VM_LOG" slot a || return
	sign_status "$VM_LOG" skipped "b:manifest:.*" || return
	vm_assert_log_contains "$VM_LOG" "VERITY-TEST-IMAGE v1" || return
	j=$(console_json "$VM_LOG" VERITY-TEST-SLOTS) || return
	assert_jq "$j" '.current == "a" and (.slots[1] | (.bootable | not) and (.reason | startswith("manifest: ")))' \
		"b bad with the reason" || return
	vm_assert_log_contains "$VM_LOG" "VERITY-TEST-RAUC-INSTALL b-v2.raucb rc=0" "rauc install failed" || return
	j=$(store_json) || { fail "slot status: $j"; return; }
	assert_jq "$j" '.primary == "b" and .floor == 1 and (.slots[1] | .bootable and .reason == "")' \
		"b primary again after the second install" || return
	part_holds 4 "$A/hash-b-v2.img" || { fail "root-b-verity does not hold the good update"; return; }
	STEP=2
}

test_step3_updated_b_boots_verified_and_marked_good_raises_the_floor() {
	local j
	step 3 || return
	rauc_boot debian-rauc-3
	vm_assert_booted || return
	debian_assert_running "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: slot b: signed manifest version 2 from PARTLABEL=root-b-verity \(after the hash tree\) verified" || return
	sign_status "$VM_LOG" slot b || return
	vm_assert_log_lacks "$VM_LOG" "VERITY-TEST-STATUS skipped=" "a slot skipped" || return
	vm_assert_log_contains "$VM_LOG" "VERITY-TEST-IMAGE v2" "not the updated root" || return
	vm_assert_log_contains "$VM_LOG" "VERITY-TEST-MARK-GOOD success 0" "mark-good did not run" || return
	vm_assert_log_contains "$VM_LOG" "VERITY-TEST-RAUC-STATUS RAUC_SYSTEM_BOOTED_BOOTNAME='b' RAUC_BOOT_PRIMARY='rootfs.1'" \
		"RAUC does not see slot b booted and primary" || return
	j=$(console_json "$VM_LOG" VERITY-TEST-SLOTS) || return
	assert_jq "$j" '.current == "b" and .floor == 2 and (.slots[1] | .successful and .version == 2)' \
		"b marked good, the floor at its version" || return
	j=$(store_json) || { fail "slot status: $j"; return; }
	assert_jq "$j" '.floor == 2 and .primary == "b"' "the floor on disk" || return
	STEP=3
}

test_step4_the_old_image_is_refused_in_either_slot() {
	local j
	step 4 || return
	# b gets the old image too (version 1, signed for b): no slot may boot
	if ! put_part 3 "$DATA_V1" || ! put_part 4 "$A/hash-b-v1.img"; then fail "old image into b"; return; fi
	vm_boot --timeout 120 --disk "$W/slots.img" --disk-rw "$W/store.img" debian-rauc-4 "$RD" "$CMDLINE"
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: A/B slots: no bootable slot left: .*b:version:manifest version 1 is below the rollback floor 2" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: A/B slots: no bootable slot left: .*a:version:manifest version 1 is below the rollback floor 2" || return
	agent_assert_fallback "$VM_LOG" poweroff || return
	vm_assert_log_lacks "$VM_LOG" "VERITY-TEST-MARKER|Welcome to" "a root ran" || return
	j=$(store_json) || { fail "slot status: $j"; return; }
	assert_jq "$j" '.floor == 2 and ([.slots[] | .bootable] == [false, false])' "both slots refused" ||
		return
	STEP=4
}

# sign_status LOG KEY REGEX : the marker printed KEY=<REGEX> from the agent's status file.
sign_status() {
	vm_assert_log_contains "$1" "VERITY-TEST-STATUS $2=$3" "status file: $2 does not match /$3/"
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
