#!/bin/bash
# A/B slots under dracut with the verity-init module (docs/dracut.md, "A/B slots"), shell init and
# systemd in the initramfs: the image's policy says slots=a,b and carries the manifest key;
# `verity-init setup` (the initqueue job; verity-init-setup.service) runs the standalone agent's
# slot step (read the store, pick, verify the slot's manifest, take its try, activate it as the
# root mapping), falls back to the other slot within setup for failures before dracut mounts it,
# and the module's check before the switch (the pre-pivot hook; verity-init-pre-pivot.service)
# marks a slot whose init fails bad (the other slot is then the next boot's).
# Disks: vda = slots (root-a, root-a-verity, root-b, root-b-verity; read-only),
#        vdb = the store (partition verity-slots; writable).
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"
# shellcheck source=tests/vm/sign_lib.sh
. "$(dirname "$0")/sign_lib.sh"
# shellcheck source=tests/vm/slot_lib.sh
. "$(dirname "$0")/slot_lib.sh"

# dracut boots are slow on TCG (udev start-up and the device scan dominate)
DR_TIMEOUT=${VM_DRACUT_TIMEOUT:-300}
# no rootfstype=: a command line that shapes the mount makes an init failure not the slot's
# fault (docs/slots.md, "Which failure marks a slot bad")
CMDLINE="verity.fail=reboot"

# dracut_slot_image FLAVOUR OUT : the shell or systemd flavour with /etc/verity-init.conf =
# slots=a,b (and slot_full_read=yes, which the status file hands to mark-good) and
# keys/test.pub, through dracut.conf's verity_init_conf= and verity_init_keys=.
dracut_slot_image() {
	local fl=$1 out=$2 d=$VM_DIR/dracut-slot-conf-$1 mods=()
	rm -rf "$d" && mkdir -p "$d/conf" "$d/keys" || return 1
	printf 'slots=a,b\nslot_full_read=yes\n' >"$d/verity-init.conf" && cp "$SIGN_KEYS/test.pub" "$d/keys/" || return 1
	printf 'verity_init_conf="%s"\nverity_init_keys="%s"\n' "$d/verity-init.conf" "$d/keys" \
		>"$d/conf/50-slots.conf" || return 1
	[ "$fl" = systemd ] && mods=(-m "$VM_DRACUT_MODULES_SYSTEMD verity-init")
	vm_dracut_initramfs "$out" "${mods[@]}" --confdir "$d/conf"
}

oneTimeSetUp() {
	local key fl
	vm_require_tools qemu-system-x86_64 dracut veritysetup mkfs.ext4 debugfs sgdisk jq || exit 1
	[ -x "$VI_TOOL" ] || { echo "no $VI_TOOL" >&2; exit 1; }
	declare -gA RD
	for fl in shell systemd; do
		RD[$fl]=$VM_CACHE/dracut-$fl-slots-$VM_KVER.img
		key=$(vm_dracut_key "$fl-slots-full-read" "$(cat "$SIGN_KEYS/test.pub")" "${VM_DRACUT_AGENT:-}")
		vm_cached "$key" "${RD[$fl]}" dracut_slot_image "$fl" "${RD[$fl]}.tmp" || exit 1
	done
}

# slot_image DIR SLOT KEY : DIR/data.img and DIR/hash.img of a root whose marker says
# id=slotSLOT, its manifest (version 1) signed with KEY for slot SLOT's partitions.
slot_image() {
	local d=$1 s=$2
	VM_ROOT_ID=slot$s vm_verity_setup ext4 "$d" >/dev/null || return 1
	slot_sign "$d/hash.img" "$s" "$SIGN_KEYS/$3.key" 1
}

boot() {   # NAME DIR FLAVOUR
	vm_boot --timeout "$DR_TIMEOUT" --disk "$2/slots.img" --disk-rw "$2/store.img" "$1" "${RD[$3]}" \
		"$CMDLINE"
}

# Boot 1 on a blank store: slot a (primary) is set up by the setup job and booted by dracut, its
# try on disk. Boot 2, slot a's manifest now signed by a key the image does not trust: setup
# marks a bad with the reason and sets up b in the same boot; dracut boots b.
a_then_b() {   # FLAVOUR
	local fl=$1 w j
	w=$(vm_workdir "dracut-slot-$fl")
	slot_image "$w/a" a test || { fail "image a"; return; }
	slot_image "$w/b" b test || { fail "image b"; return; }
	slot_disks "$w" "$w/a" "$w/b" || { fail "disks"; return; }
	boot "dracut-slot-$fl-1" "$w" "$fl"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" slota || return
	vm_assert_root_mapper "$VM_LOG" root ext4 || return
	vm_assert_log_order "$VM_LOG" "verity-init\[[0-9]+\]: slot a: try taken, 2 left, version 1 recorded" \
		"verity-init\[[0-9]+\]: init /sbin/init read completely" || return
	sign_assert_status "$VM_LOG" result ok || return
	sign_assert_status "$VM_LOG" slot a || return
	sign_assert_status "$VM_LOG" store /dev/vdb1 || return
	sign_assert_status "$VM_LOG" full_read yes || return
	vm_assert_log_lacks "$VM_LOG" "VERITY-TEST-STATUS skipped=" "a skipped= line on a clean boot" || return
	j=$(slot_store_json "$w") || { fail "slot status: $j"; return; }
	assert_slot "$j" a '"priority":15,"tries":2,.*"version":1' || return
	assert_slot "$j" b '"tries":3,' || return

	slot_image "$w/a" a other || { fail "image a (other key)"; return; }
	slot_disks "$w" "$w/a" "$w/b" || { fail "disks"; return; }
	slot_store_put "$w" || { fail "slot_store_put"; return; }
	boot "dracut-slot-$fl-2" "$w" "$fl"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" slotb || return
	vm_assert_log_lacks "$VM_LOG" "VERITY-TEST-MARKER id=slota" "slot a's root ran" || return
	vm_assert_log_order "$VM_LOG" "verity-init\[[0-9]+\]: slot a marked bad \(manifest: " \
		"verity-init\[[0-9]+\]: slot b: priority 14, 3 tries left: setting up" || return
	sign_assert_status "$VM_LOG" result ok || return
	sign_assert_status "$VM_LOG" slot b || return
	sign_assert_status "$VM_LOG" skipped "a:manifest:.*" || return
	j=$(slot_store_json "$w") || { fail "slot status: $j"; return; }
	assert_slot "$j" a '"tries":0,.*"reason":"manifest: ' || return
	assert_slot "$j" b '"tries":2,'
}

test_dracut_boots_slot_a_then_b_when_a_is_signed_by_another_key() {
	a_then_b shell
}

test_dracut_systemd_boots_slot_a_then_b_when_a_is_signed_by_another_key() {
	a_then_b systemd
}

# Slot a's init is corrupted: setup activates a, dracut mounts it, the module's pre-pivot check
# reads init and fails (dm-verity). Slot a is marked bad with the reason and the fail list is
# taken (reboot): under dracut the other slot cannot be set up once the root is mounted; the
# next boot picks b.
init_failure() {   # FLAVOUR
	local fl=$1 w j
	w=$(vm_workdir "dracut-slot-init-$fl")
	slot_image "$w/a" a test || { fail "image a"; return; }
	slot_image "$w/b" b test || { fail "image b"; return; }
	VM_ROOT_ID=slota vm_corrupt_file "$w/a/data.img" ext4 /sbin/init >/dev/null || { fail "corrupt"; return; }
	slot_disks "$w" "$w/a" "$w/b" || { fail "disks"; return; }
	boot "dracut-slot-init-$fl" "$w" "$fl"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_order "$VM_LOG" "verity-init\[[0-9]+\]: slot a: try taken" \
		"verity-init\[[0-9]+\]: slot a marked bad \(init: reading init /sbin/init failed: Input/output error" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: fallback: reboot' \
		"verity.fail=reboot not applied" || return
	j=$(slot_store_json "$w") || { fail "slot status: $j"; return; }
	assert_slot "$j" a '"tries":0,.*"reason":"init: reading init /sbin/init failed: Input/output error' || return
	assert_slot "$j" b '"tries":3,'
}

test_dracut_init_failure_marks_the_slot_bad() {
	init_failure shell
}

# under systemd the check is verity-init-pre-pivot.service, on the line setup saved
test_dracut_systemd_init_failure_marks_the_slot_bad() {
	init_failure systemd
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
