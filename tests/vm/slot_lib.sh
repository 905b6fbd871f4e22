# shellcheck shell=bash
# The A/B slot disks of the vm tests and benches (docs/slots.md): a slots disk with the four
# partitions root-a, root-a-verity, root-b, root-b-verity, and a store disk whose one partition
# verity-slots holds the slot state. Sourced after lib.sh.
# Disks as the guest sees them: vda = slots (read-only), vdb = the store (writable).

SLOT_STORE_OFF=$(( 2048 * 512 ))

# slot_sign HASH SLOT KEY VERSION [OPTION...] : HASH (a hash tree image) gets a manifest of
# VERSION for SLOT's partitions (PARTLABEL=root-SLOT, root-SLOT-verity), signed with the minisign
# secret key KEY and embedded after the tree; OPTIONs go to `verity-image sign` as well.
slot_sign() {
	local out
	out=$("$BUILD/verity-image" sign "$1" --data-device "PARTLABEL=root-$2" \
		--hash-device "PARTLABEL=root-$2-verity" --minisign-key "$3" --version "$4" "${@:5}" \
		--embed 2>&1) || { vm_die "sign slot $2: $out"; return 1; }
}

# slot_mib FILE : FILE's size in 512-byte sectors, rounded up to whole MiB.
slot_mib() { echo $(( ( ($(vm_size "$1") + 1048575) / 1048576 ) * 2048 )); }

# slot_disks W ADIR BDIR : W/slots.img (the four slot partitions from ADIR's and BDIR's
# data.img and hash.img) and a blank W/store.img.
slot_disks() {
	local w=$1 a=$2 b=$3 s=2048 n=1 args=() f lab starts=()
	for f in "$a/data.img:root-a" "$a/hash.img:root-a-verity" "$b/data.img:root-b" \
		 "$b/hash.img:root-b-verity"; do
		lab=${f##*:}; f=${f%:*}
		args+=(-n "$n:$s:+$(slot_mib "$f")" -c "$n:$lab")
		starts+=("$s:$f")
		s=$(( s + $(slot_mib "$f") )); n=$(( n + 1 ))
	done
	rm -f "$w/slots.img" "$w/store.img"
	truncate -s $(( (s + 2048) * 512 )) "$w/slots.img"
	sgdisk "${args[@]}" "$w/slots.img" >/dev/null || { vm_die "sgdisk slots"; return 1; }
	for f in "${starts[@]}"; do
		dd if="${f#*:}" of="$w/slots.img" bs=1M seek=$(( ${f%%:*} * 512 )) oflag=seek_bytes \
			conv=notrunc status=none || return 1
	done
	truncate -s 4M "$w/store.img"
	sgdisk -n 1:2048:+2048 -c 1:verity-slots "$w/store.img" >/dev/null ||
		{ vm_die "sgdisk store"; return 1; }
}

# slot_store_json W : the store as the guest left it (copied to W/store.bin), through
# `verity-init slot status --json`.
slot_store_json() {
	dd if="$1/store.img" of="$1/store.bin" bs=4096 skip=$(( SLOT_STORE_OFF / 4096 )) count=2 \
		status=none && "$BUILD/verity-init" slot --store "$1/store.bin" status --json
}

# slot_store_put W : W/store.bin written back into the store partition (host-side changes).
slot_store_put() {
	dd if="$1/store.bin" of="$1/store.img" bs=4096 seek=$(( SLOT_STORE_OFF / 4096 )) \
		conv=notrunc status=none
}

# assert_slot JSON SLOT REGEX : slot SLOT's object in the store's JSON (jq -c) matches REGEX
# (a shunit2 failure otherwise).
assert_slot() {
	local obj
	obj=$(printf '%s\n' "$1" | jq -c --arg s "$2" '.slots[] | select(.name == $s)') ||
		{ fail "store: not JSON: $1"; return 1; }
	printf '%s\n' "$obj" | grep -Eq -- "$3" ||
		{ fail "store: slot $2 is $obj, expected /$3/"; return 1; }
}
