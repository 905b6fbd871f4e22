# shellcheck shell=sh
# Helpers of the cli tests of verity-init-mkinitramfs (mkinitramfs_test.sh and
# hostile_host_inputs_test.sh). Sourced; prefix mkrd_.

# mkrd_pick_kver : print the version of an installed kernel whose modules are stored
# uncompressed, as the fixtures expect (they copy and replace crc16.ko; with both of Debian's
# kernels installed, 6.12's are .ko.xz). Nothing when there is none.
mkrd_pick_kver() {
	_k=""
	for _d in /lib/modules/*/modules.dep; do
		[ -e "$_d" ] && [ -e "$(dirname "$_d")/kernel/lib/crc16.ko" ] &&
			_k=$(basename "$(dirname "$_d")")
	done
	printf '%s' "$_k"
}

# mkrd_fake_tree KVER DIR MODULE... : a fresh DIR/lib/modules/KVER with copies of this machine's
# MODULE files (and their dependencies), depmod run over it.
mkrd_fake_tree() {
	_kv=$1 _b=$2
	shift 2
	rm -rf "$_b"
	for _p in $(for _m in "$@"; do modprobe -S "$_kv" --show-depends "$_m"; done |
		awk '$1 == "insmod" { print $2 }'); do
		_rel=${_p#/lib/modules/"$_kv"/}
		_rel=${_rel#/usr/lib/modules/"$_kv"/}
		mkdir -p "$_b/lib/modules/$_kv/$(dirname "$_rel")" &&
			cp "$_p" "$_b/lib/modules/$_kv/$_rel" || return 1
	done
	depmod -b "$_b" "$_kv" 2>/dev/null
}

# mkrd_usr_xz_tree KVER DIR MODULE... : mkrd_fake_tree laid out as Debian's 7.x packages install
# a kernel: DIR/usr/lib/modules/KVER only (no lib/, no boot/), every module as .ko.xz, depmod
# run over it.
mkrd_usr_xz_tree() {
	_kv=$1 _b=$2
	mkrd_fake_tree "$@" || return 1
	mkdir -p "$_b/usr/lib" && mv "$_b/lib/modules" "$_b/usr/lib/" && rmdir "$_b/lib" &&
		find "$_b/usr/lib/modules/$_kv" -name '*.ko' -exec xz --check=crc32 {} + &&
		depmod -b "$_b/usr" "$_kv" 2>/dev/null
}
