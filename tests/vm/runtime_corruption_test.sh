#!/bin/bash
# Verification failures after the switch (docs/slots.md, "Corruption on the running system"):
# an A/B slot whose two files were corrupted on the data partition after its hash tree was
# built, so every check before the switch passes and the root boots. Its init starts
# `verity-init monitor`, reads one of the files (the kernel answers EIO and reports the block),
# shows `verity-init status --json`, then runs `verity-init slot mark-good`, which under the
# policy's slot_full_read=yes reads the whole mapping first and meets the other file's block,
# which nothing had read. In the same boot two more verity mappings, an erofs and a squashfs
# root whose /sbin/init was corrupted after their trees were built, are set up, mounted and
# read: the erofs block is named with its file, the squashfs one with the reason it cannot be
# (no FIEMAP). The erofs root also holds a file whose name carries a newline, a forged log
# record and a terminal escape; its block, corrupted too, is read, and every output shows the name
# escaped (docs/slots.md) without a forged line. The twin: the clean slot b, marked good after the
# same full read.
# Disks: vda = slots (root-a, root-a-verity, root-b, root-b-verity; read-only),
#        vdb = the store (partition verity-slots; writable),
#        vdc, vdd = the erofs data and hash, vde, vdf = the squashfs data and hash (slot a's boot).
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"
# shellcheck source=tests/vm/sign_lib.sh
. "$(dirname "$0")/sign_lib.sh"
# shellcheck source=tests/vm/slot_lib.sh
. "$(dirname "$0")/slot_lib.sh"

CMDLINE="root=/dev/mapper/root verity.fail=poweroff"
# A file name that would forge a kernel-log record of its own (a newline, then "<3>" and the
# agent's prefix) and clear a terminal, and the text every output must show instead.
HOSTILE=$'evil\n<3>verity-init[1]: forged\e[2J'
HOSTILE_SHOWN='evil\x0a<3>verity-init[1]: forged\x1b[2J'

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 mkfs.ext4 debugfs cpio modprobe sgdisk jq || exit 1
	[ -x "$VI_TOOL" ] || { echo "no $VI_TOOL" >&2; exit 1; }
	RD=$(sign_initramfs "slots=a,b
slot_full_read=yes") || exit 1
	W=$(vm_workdir runtime-corruption)
	slot_image "$W/a" a || exit 1
	slot_image "$W/b" b || exit 1
	# the two files' first blocks; the full read meets the lower one first, so that one is
	# never read by anything else, and the running system reads the other
	B1=$(block_of "$W/a/data.img" /etc/rt-one) && B2=$(block_of "$W/a/data.img" /etc/rt-two) ||
		exit 1
	if [ "$B1" -lt "$B2" ]; then
		UNREAD=/etc/rt-one BUNREAD=$B1 READ=/etc/rt-two BREAD=$B2
	else
		UNREAD=/etc/rt-two BUNREAD=$B2 READ=/etc/rt-one BREAD=$B1
	fi
	# after the tree and the signed manifest: the root passes every check before the switch
	vm_corrupt_file "$W/a/data.img" ext4 /etc/rt-one >/dev/null &&
		vm_corrupt_file "$W/a/data.img" ext4 /etc/rt-two >/dev/null || exit 1
	slot_disks "$W" "$W/a" "$W/b" || exit 1
	# the other filesystems: the vm tests' root, /sbin/init corrupted after the tree
	ERO_RH=$(hostile_erofs "$W/ero") && SQ_RH=$(vm_verity_setup squashfs "$W/sq") || exit 1
	ERO_BLOCK=$(( $(vm_corrupt_file "$W/ero/data.img" erofs /sbin/init) / 4096 )) &&
		SQ_BLOCK=$(( $(vm_corrupt_file "$W/sq/data.img" squashfs /sbin/init) / 4096 )) &&
		HOSTILE_BLOCK=$(( $(vm_corrupt_string "$W/ero/data.img" hostile-name-00000) / 4096 )) ||
		exit 1
}

# hostile_erofs DIR : the vm tests' root as erofs, plus /names/$HOSTILE (two blocks of text), in
# DIR/data.img with its tree in DIR/hash.img; prints the root hash.
hostile_erofs() {
	local d=$1 t=$1/tree
	rm -rf "$t" && mkdir -p "$d" || return 1
	vm_rootfs_tree "$t" main && mkdir -p "$t/names" || return 1
	awk 'BEGIN { for (i = 0; i < 400; i++) printf "hostile-name-%05d\n", i }' \
		>"$t/names/$HOSTILE" || return 1
	vm_mkfs erofs "$t" "$d/data.img" && rm -f "$d/hash.img" || return 1
	vm_verity_format "$VM_VERITY_TOOL" "$d/data.img" "$d/hash.img"
}

# root_modules TREE MODULE... : the modules (dependencies first, decompressed) as
# TREE/lib/rtmod/NN-NAME.ko, for the root's init to insmod: the initramfs loads a filesystem's
# module only before a mount of that type, and the test root has no modprobe.
root_modules() {
	local t=$1 n=10 p; shift
	mkdir -p "$t/lib/rtmod" || return 1
	for p in $(vm_module_paths "$@"); do
		case $p in
		*.xz) xz -dc "$p" ;; *.zst) zstd -qdc "$p" ;; *.gz) gzip -dc "$p" ;; *) cat "$p" ;;
		esac >"$t/lib/rtmod/$n-$(basename "${p%.ko*}").ko" || return 1
		n=$(( n + 1 ))
	done
}

# block_of IMAGE PATH : the ext4 block (4096 bytes, the verity data block size) of PATH's first
# data block.
block_of() {
	local b
	b=$(debugfs -R "bmap $2 0" "$1" 2>/dev/null | tail -n1)
	case $b in ''|0|*[!0-9]*) vm_die "bmap $2: '$b'"; return 1 ;; esac
	echo "$b"
}

# slot_image DIR SLOT : a root whose marker says id=slotSLOT, with the static agent, two files of
# two blocks each, and a hook that runs the monitor, reads the file named by rt_read= on the
# command line (if any), shows the status and marks the slot good; its tree signed (version 1)
# for slot SLOT's partitions.
slot_image() {
	local d=$1 s=$2 t=$1/tree a
	rm -rf "$t" && mkdir -p "$d" || return 1
	vm_rootfs_tree "$t" "slot$s" || return 1
	mkdir -p "$t/usr/sbin" && cp "$VM_AGENT" "$t/usr/sbin/verity-init" || return 1
	for a in sed grep cp mkdir insmod; do ln -sf busybox "$t/bin/$a" || return 1; done
	root_modules "$t" erofs squashfs || return 1
	for a in one two; do
		awk -v w="rt-$a-$s" 'BEGIN { for (i = 0; i < 400; i++) printf "%s %05d padding line\n", w, i }' \
			>"$t/etc/rt-$a" || return 1
	done
	cat >"$t/etc/vm-root-hook" <<'HOOK'
vi=/usr/sbin/verity-init
rt_read=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^rt_read=//p')
$vi monitor >/run/monitor.log 2>&1 &
mon=$!
n=0; until grep -q 'monitor: watching' /run/monitor.log || [ $n -ge 60 ]; do sleep 1; n=$((n + 1)); done
# idle: the monitor's user and system CPU ticks before and after 3 s in which nothing happens
echo "RUNTIME-IDLE before $(cut -d' ' -f14,15 /proc/$mon/stat) wchan=$(cat /proc/$mon/wchan)"
sleep 3
echo "RUNTIME-IDLE after $(cut -d' ' -f14,15 /proc/$mon/stat)"
if [ -n "$rt_read" ]; then
	cat "$rt_read" >/dev/null 2>&1; echo "RUNTIME-CHECK read $rt_read rc=$?"
	n=0; until grep -q 'is corrupted' /run/monitor.log || [ $n -ge 60 ]; do sleep 1; n=$((n + 1)); done
	echo "RUNTIME-JSON-READ $($vi status --json)"
fi
out=$($vi slot mark-good 2>&1); rc=$?
echo "$out" | sed 's/^/RUNTIME-MARKGOOD /'
echo "RUNTIME-CHECK mark-good rc=$rc"
rt_ero=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^rt_ero=//p')
rt_sq=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^rt_sq=//p')
if [ -n "$rt_ero" ]; then
	for m in /lib/rtmod/*.ko; do insmod "$m" 2>/dev/null; done
	# `setup` writes the status file of the mapping it made: the boot's is kept
	cp /run/verity-init/status /run/status.boot
	$vi setup --cmdline "verity.name=ero roothash=$rt_ero verity.data=/dev/vdc verity.hash=/dev/vdd" >/dev/null 2>&1
	echo "RUNTIME-CHECK setup ero rc=$?"
	$vi setup --cmdline "verity.name=sq roothash=$rt_sq verity.data=/dev/vde verity.hash=/dev/vdf" >/dev/null 2>&1
	echo "RUNTIME-CHECK setup sq rc=$?"
	cp /run/status.boot /run/verity-init/status
	mkdir -p /run/ero /run/sq
	mount -t erofs -o ro /dev/mapper/ero /run/ero; echo "RUNTIME-CHECK mount ero rc=$?"
	mount -t squashfs -o ro /dev/mapper/sq /run/sq; echo "RUNTIME-CHECK mount sq rc=$?"
	cat /run/ero/sbin/init >/dev/null 2>&1; echo "RUNTIME-CHECK read ero rc=$?"
	cat /run/sq/sbin/init >/dev/null 2>&1; echo "RUNTIME-CHECK read sq rc=$?"
	for f in /run/ero/names/*; do cat "$f" >/dev/null 2>&1; echo "RUNTIME-CHECK read names rc=$?"; done
	n=0; until [ "$(grep -c 'is corrupted' /run/monitor.log)" -ge 5 ] || [ $n -ge 60 ]; do sleep 1; n=$((n + 1)); done
fi
sleep 2
sed 's/^/RUNTIME-MONITOR /' /run/monitor.log
sed 's/^/RUNTIME-RECORD /' /run/verity-init/corruption
echo "RUNTIME-JSON-END $($vi status --json)"
$vi status | sed 's/^/RUNTIME-TEXT /'
HOOK
	vm_mkfs ext4 "$t" "$d/data.img" || return 1
	rm -f "$d/hash.img"
	vm_verity_format "$VM_VERITY_TOOL" "$d/data.img" "$d/hash.img" >"$d/roothash" || return 1
	slot_sign "$d/hash.img" "$s" "$SIGN_KEYS/test.key" 1
}

# json_line LOG PREFIX : the JSON after PREFIX on the log's line, checked to be JSON.
json_line() {
	local j
	j=$(grep -a "^$2 " "$1" | tail -n1 | sed "s/^$2 //" | tr -d '\r')
	printf '%s\n' "$j" | jq -e . >/dev/null || { fail "$2: not JSON: $j"; return 1; }
	printf '%s\n' "$j"
}

slot_a_boot() {
	vm_boot --disk "$W/slots.img" --disk-rw "$W/store.img" --disk "$W/ero/data.img" \
		--disk "$W/ero/hash.img" --disk "$W/sq/data.img" --disk "$W/sq/hash.img" \
		runtime-corruption-a "$RD" "$CMDLINE rt_read=$READ rt_ero=$ERO_RH rt_sq=$SQ_RH"
}

# The running system reads a corrupted file: the kernel's own line names the block, the
# monitor's line and `status --json` name the file.
test_corruption_after_the_switch_is_reported_with_its_file() {
	local j
	vm_shared_boot slot-a slot_a_boot
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" slota || return
	vm_assert_log_contains "$VM_LOG" "RUNTIME-CHECK read $READ rc=1" "reading $READ did not fail" ||
		return
	vm_assert_log_contains "$VM_LOG" "device-mapper: verity: [0-9]+:[0-9]+: data block $BREAD is corrupted" \
		"no kernel line for block $BREAD" || return
	vm_assert_log_contains "$VM_LOG" "RUNTIME-MONITOR corruption: mapping root: data block $BREAD is corrupted: file $READ \(seen by (uevent|kmsg)\)" \
		"the monitor did not name $READ" || return
	j=$(json_line "$VM_LOG" RUNTIME-JSON-READ) || return
	assertEquals "status --json: the file of block $BREAD" "\"$READ\"" \
		"$(printf '%s' "$j" | jq -c ".corruption[] | select(.block == $BREAD) | .file")" || return
	assertEquals "status --json: the verdict" '"corruption detected"' \
		"$(printf '%s' "$j" | jq -c .mapping.verdict)" || return
	assertEquals "status --json: the agent's status file, key by key" '"a"' \
		"$(printf '%s' "$j" | jq -c .agent.slot)" || return
	assertEquals "status --json: the policy's full read" '"yes"' \
		"$(printf '%s' "$j" | jq -c .agent.full_read)"
}

# mark-good's full read meets the block nothing read and refuses; the store keeps the slot
# unproven; the monitor names that file too.
test_mark_good_full_read_refuses_a_corrupted_unread_block() {
	local j
	vm_shared_boot slot-a slot_a_boot
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" "RUNTIME-MARKGOOD verity-init: slot: slot a: full read of mapping root: data block $BUNREAD is corrupted \(or cannot be read\): not marked good" \
		"mark-good did not refuse with block $BUNREAD" || return
	vm_assert_log_contains "$VM_LOG" "RUNTIME-CHECK mark-good rc=1" || return
	vm_assert_log_contains "$VM_LOG" "RUNTIME-MONITOR corruption: mapping root: data block $BUNREAD is corrupted: file $UNREAD" \
		"the monitor did not name $UNREAD" || return
	j=$(json_line "$VM_LOG" RUNTIME-JSON-END) || return
	assertEquals "status --json: the file of block $BUNREAD" "\"$UNREAD\"" \
		"$(printf '%s' "$j" | jq -c ".corruption[] | select(.block == $BUNREAD) | .file")" || return
	# the same records as key=value lines, after the kernel's verdict and the status file's keys
	vm_assert_log_order "$VM_LOG" "RUNTIME-TEXT verdict=corruption detected" "RUNTIME-TEXT agent.slot=a" ||
		return
	vm_assert_log_order "$VM_LOG" "RUNTIME-TEXT agent.slot=a" "RUNTIME-TEXT corruption\.[0-9]+\.block=$BUNREAD" ||
		return
	vm_assert_log_contains "$VM_LOG" "RUNTIME-TEXT corruption\.[0-9]+\.file=$UNREAD" || return
	j=$(slot_store_json "$W") || { fail "slot status: $j"; return; }
	assert_slot "$j" a '"successful":false'
}

# erofs names the file of a block through FIEMAP as ext4 does; squashfs cannot (no FIEMAP, no
# bmap: docs/security.md), and the record says so instead of a path.
test_erofs_names_the_file_squashfs_says_why_not() {
	local j
	vm_shared_boot slot-a slot_a_boot
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" "RUNTIME-CHECK mount ero rc=0" "the erofs mapping was not mounted" ||
		return
	vm_assert_log_contains "$VM_LOG" "RUNTIME-CHECK mount sq rc=0" "the squashfs mapping was not mounted" ||
		return
	vm_assert_log_contains "$VM_LOG" "RUNTIME-CHECK read ero rc=1" || return
	vm_assert_log_contains "$VM_LOG" "RUNTIME-CHECK read sq rc=1" || return
	vm_assert_log_contains "$VM_LOG" "RUNTIME-MONITOR corruption: mapping ero: data block $ERO_BLOCK is corrupted: file /run/ero/sbin/init \(seen by (uevent|kmsg)\)" \
		"the monitor did not name the erofs file" || return
	vm_assert_log_contains "$VM_LOG" "RUNTIME-MONITOR corruption: mapping sq: data block $SQ_BLOCK is corrupted: \(squashfs maps no block to a file: no FIEMAP\)" \
		"the monitor did not say why the squashfs block has no file" || return
	j=$(json_line "$VM_LOG" RUNTIME-JSON-END) || return
	assertEquals "status --json: the squashfs record" "null (squashfs maps no block to a file: no FIEMAP)" \
		"$(printf '%s' "$j" | jq -r '.corruption[] | select(.mapping == "sq") | "\(.file) \(.note)"')"
}

# assert_log_has LOG STRING MESSAGE : the log holds STRING byte for byte (no pattern: the
# expected text is full of backslashes and brackets).
assert_log_has() {
	grep -aqF -- "$2" "$1" || { fail "$3: no line with '$2' (log: $1)"; vm_log_tail "$1"; return 1; }
}

# A file name with a newline, a forged record and a terminal escape: the monitor's line, the
# record, `status` and `status --json` show it escaped, \xHH for each byte outside printable
# ASCII (docs/slots.md), and no output holds a line of its own making or its raw escape.
test_a_hostile_file_name_is_escaped_in_every_output() {
	local j shown=/run/ero/names/$HOSTILE_SHOWN
	vm_shared_boot slot-a slot_a_boot
	vm_assert_booted || return
	vm_assert_log_contains "$VM_LOG" "RUNTIME-CHECK read names rc=1" \
		"reading the file with the hostile name did not fail" || return
	vm_assert_log_lacks "$VM_LOG" '^(RUNTIME-[A-Z]+ )?<3>verity-init\[1\]: forged' \
		"the file name forged a line" || return
	if grep -aqF -- $'forged\e' "$VM_LOG"; then
		fail "the file name's terminal escape reached the log raw"; return
	fi
	assert_log_has "$VM_LOG" "RUNTIME-MONITOR corruption: mapping ero: data block $HOSTILE_BLOCK is corrupted: file $shown (seen by " \
		"the monitor's line" || return
	assertEquals "the record of block $HOSTILE_BLOCK: its file" "$shown" \
		"$(grep -a "^RUNTIME-RECORD time=[0-9]* mapping=ero type=data block=$HOSTILE_BLOCK " "$VM_LOG" |
			tr -d '\r' | sed 's/^.* file=//')" || return
	assertEquals "status: corruption.N.file" "$shown" \
		"$(grep -a '^RUNTIME-TEXT corruption\.[0-9]*\.file=/run/ero/names/' "$VM_LOG" |
			tr -d '\r' | sed 's/^[^=]*=//')" || return
	j=$(json_line "$VM_LOG" RUNTIME-JSON-END) || return
	assertEquals "status --json: the file of block $HOSTILE_BLOCK" "$shown" \
		"$(printf '%s' "$j" | jq -r ".corruption[] | select(.mapping == \"ero\" and .block == $HOSTILE_BLOCK) | .file")"
}

# The twin: slot b, clean, is marked good after the same full read, and nothing is reported;
# the monitor, idle, spends no CPU.
test_mark_good_full_read_marks_a_clean_slot_good() {
	local j
	if ! { slot_store_json "$W" >/dev/null &&
		"$BUILD/verity-init" slot --store "$W/store.bin" set-primary b >/dev/null &&
		slot_store_put "$W"; }; then
		fail "set-primary b"; return
	fi
	vm_boot --disk "$W/slots.img" --disk-rw "$W/store.img" runtime-corruption-b "$RD" "$CMDLINE"
	vm_assert_booted || return
	vm_assert_marker "$VM_LOG" slotb || return
	vm_assert_log_contains "$VM_LOG" "RUNTIME-MARKGOOD verity-init: slot b: full read of mapping root: [0-9]+ MiB verified in" \
		"no full read before mark-good" || return
	vm_assert_log_contains "$VM_LOG" "RUNTIME-MARKGOOD slot b marked good" || return
	vm_assert_log_contains "$VM_LOG" "RUNTIME-MONITOR monitor: watching 1 verity mapping; 0 corrupted blocks recorded" ||
		return
	# no timer: idle, the monitor waits in poll() and spends no CPU tick
	vm_assert_log_contains "$VM_LOG" "RUNTIME-IDLE before [0-9]+ [0-9]+ wchan=do_sys_poll" \
		"the monitor does not wait in poll()" || return
	assertEquals "the monitor's CPU ticks over 3 idle seconds" \
		"$(grep -a '^RUNTIME-IDLE before' "$VM_LOG" | cut -d' ' -f3,4)" \
		"$(grep -a '^RUNTIME-IDLE after' "$VM_LOG" | cut -d' ' -f3,4 | tr -d '\r')" || return
	j=$(json_line "$VM_LOG" RUNTIME-JSON-END) || return
	assertEquals "status --json: nothing reported" '[]' "$(printf '%s' "$j" | jq -c .corruption)" ||
		return
	assertEquals "status --json: the verdict" '"verified"' "$(printf '%s' "$j" | jq -c .mapping.verdict)" ||
		return
	j=$(slot_store_json "$W") || { fail "slot status: $j"; return; }
	assert_slot "$j" b '"successful":true'
}

# shellcheck source=/dev/null
. shunit2
