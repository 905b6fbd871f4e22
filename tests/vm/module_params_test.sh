#!/bin/bash
# Module parameters of the standalone agent: the kernel applies MODULE.PARAM=value words of its
# command line only to built-in code, so the agent (which loads dm-mod and dm-verity itself)
# must hand them to finit_module as modprobe would, together with the initramfs's modprobe.d
# options lines. What a user sees: the booted root reads the value back from sysfs, and
# dm_verity.require_signatures=1 makes the kernel refuse an unsigned root.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"

KEYS="systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root"

# The test root's init plus lines with the parameters of dm_verity and dm_mod as sysfs has them
# (an ext4 root of its own, so the shared images and their init stay as they are).
_mp_build_root() {   # OUT.tmp (a directory: data.img, hash.img, roothash)
	local out=$1
	mkdir -p "$out" &&
	vm_rootfs_tree "$out/tree" main &&
	awk '/^poweroff -f$/ {
		print "for f in /sys/module/dm_verity/parameters/* /sys/module/dm_mod/parameters/swap_bios; do"
		print "\tm=${f#/sys/module/}; echo \"VERITY-TEST-MODPARAM ${m%%/*}.${f##*/}=$(cat \"$f\")\""
		print "done"
	} { print }' "$out/tree/sbin/init" >"$out/init" &&
	cat "$out/init" >"$out/tree/sbin/init" && rm -f "$out/init" &&
	touch -d "@$VM_EPOCH" "$out/tree/sbin/init" &&
	vm_mkfs ext4 "$out/tree" "$out/data.img" && rm -rf "$out/tree" &&
	vm_verity_format "$VM_VERITY_TOOL" "$out/data.img" "$out/hash.img" >"$out/roothash"
}

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 veritysetup mkfs.ext4 debugfs cpio modprobe || exit 1
	local key
	key=$(vm_cache_key modparams-root "$(sha256sum <"$0")" "$(sha256sum /usr/bin/busybox)" \
		"$(mkfs.ext4 -V 2>&1 | head -n1)" "$(vm_verity_tool)")
	ROOT=$VM_CACHE/root-modparams
	vm_cached "$key" "$ROOT" _mp_build_root "$ROOT.tmp" || exit 1
	RH=$(cat "$ROOT/roothash")
	grep -q VERITY-TEST-MODPARAM "$ROOT/data.img" || { echo "root image lacks the sysfs lines"; exit 1; }
	RD=$(agent_initramfs) || exit 1
}

# mp_boot NAME INITRD CMDLINE-EXTRA : boot copies of the cached root (each boot its own files).
mp_boot() {
	local d
	d=$(vm_workdir "$1")
	cp "$ROOT/data.img" "$ROOT/hash.img" "$d/" || return 1
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" "$1" "$2" "roothash=$RH $KEYS $3"
}

# mp_assert_param LOG MODULE.PARAM VALUE : the root's init read VALUE from sysfs.
mp_assert_param() {
	vm_assert_log_contains "$1" "^VERITY-TEST-MODPARAM $2=$3"$'\r'"?\$" \
		"the booted root reads $2=$(grep -a "^VERITY-TEST-MODPARAM $2=" "$1" | tr -d '\r' |
			sed 's/.*=//'), expected $3"
}

# The initramfs's modprobe.d: its options apply, and the command line's word reaches the module
# after them (the kernel applies the last assignment of a parameter). (The same word after "--",
# which the kernel hands to init but systemd and dracut would read, is refused with the whole
# line: cli tests.)
test_modprobe_d_options_then_cmdline() {
	local conf rd text
	# a continued line too, as modprobe.d(5) allows (backslash, newline, tab)
	text=$(printf '# written by verity-init-mkinitramfs\n%s\n%s\n\t%s\n' \
		'options dm_verity prefetch_cluster=8192' "options dm-mod \\" 'swap_bios=100')
	conf=$VM_CACHE/modparams-$(printf '%s' "$text" | sha256sum | cut -c1-16).conf
	printf '%s\n' "$text" >"$conf"
	rd=$(agent_initramfs --file "$conf" /etc/modprobe.d/verity-init.conf) ||
		{ fail "initramfs"; return; }
	mp_boot modparams-conf "$rd" "dm-verity.prefetch_cluster=16384" || { fail "boot"; return; }
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" main || return
	vm_assert_root_mapper "$VM_LOG" root ext4 || return
	mp_assert_param "$VM_LOG" dm_verity.prefetch_cluster 16384 || return
	mp_assert_param "$VM_LOG" dm_mod.swap_bios 100
}

# A value the module cannot parse: the kernel refuses the module with it (modprobe would stop
# there; 6.1 quotes it as `lots'); the agent says so and loads it without the command line's
# words, so the boot goes on.
test_unparsable_value_warned_module_still_loaded() {
	mp_boot modparams-bad-value "$RD" "dm_verity.prefetch_cluster=lots" || { fail "boot"; return; }
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" "dm_verity: .lots' invalid for parameter .prefetch_cluster'" \
		"the kernel did not refuse the value" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: module dm_verity loaded without the command line's parameters: the kernel refused 'prefetch_cluster=lots'" \
		"no warning from the agent" || return
	vm_assert_marker "$VM_LOG" main || return
	mp_assert_param "$VM_LOG" dm_verity.prefetch_cluster 262144
}

# Signatures required on the command line, none given: the kernel itself refuses the table and
# the agent takes its fallback; nothing is mounted.
test_require_signatures_refuses_unsigned_root() {
	mp_boot modparams-sigs "$RD" "dm_verity.require_signatures=1 verity.fail=poweroff" ||
		{ fail "boot"; return; }
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" 'device-mapper: table: [0-9:]+: verity: Root hash verification failed \(-ENOKEY\)' \
		"the kernel did not refuse the unsigned root hash" || return
	agent_assert_refused "$VM_LOG" activate || return
	agent_assert_fallback "$VM_LOG" poweroff
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
