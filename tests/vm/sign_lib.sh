# shellcheck shell=bash
# Helpers of the signing scenarios (tests/vm/sign_*_test.sh): test keys, signed images and
# initramfs variants carrying keys, a policy and files. Sourced after lib.sh and agent_lib.sh.

SIGN_KEYS=$VM_SRCDIR/keys
VI_TOOL=$BUILD/verity-image

# sign_cfile SRC : print a content-addressed copy of SRC under the cache, so an initramfs cached
# by its arguments changes whenever a file it carries changes.
sign_cfile() {
	local h out
	h=$(sha256sum <"$1" | cut -c1-16) || return 1
	out=$VM_CACHE/file-$h-$(basename "$1")
	if [ ! -e "$out" ]; then
		if ! { cp "$1" "$out.$$" && mv -f "$out.$$" "$out"; }; then
			vm_die "sign_cfile: $1"; return 1
		fi
	fi
	echo "$out"
}

# sign_initramfs POLICY [DEST=SRC...] : print a cached agent initramfs trusting keys/test.pub,
# with /etc/verity-init.conf = POLICY and each SRC at DEST.
sign_initramfs() {
	local policy=$1 files=() kv src; shift
	files+=(--file "$(sign_cfile "$SIGN_KEYS/test.pub")" /etc/verity-init/keys/test.pub)
	for kv in "$@"; do
		src=$(sign_cfile "${kv#*=}") || return 1
		files+=(--file "$src" "${kv%%=*}")
	done
	agent_initramfs --policy "$policy" "${files[@]}"
}

# sign_manifest HASHIMG VERSION KEY [verity-image sign options...] : sign the image's manifest
# (data /dev/vda, hash /dev/vdb unless options say otherwise); prints nothing, fails loudly.
sign_manifest() {
	local img=$1 ver=$2 key=$3 out; shift 3
	out=$("$VI_TOOL" sign "$img" --data-device /dev/vda --hash-device /dev/vdb \
		--minisign-key "$key" --version "$ver" "$@" 2>&1) ||
		{ vm_die "verity-image sign failed: $out"; return 1; }
}

# sign_replace FILE OLD NEW : overwrite the only occurrence of OLD with NEW (same length).
sign_replace() {
	local f=$1 old=$2 new=$3 off
	[ ${#old} -eq ${#new} ] || { vm_die "sign_replace: lengths differ"; return 1; }
	off=$(vm_find_string "$f" "$old") || return 1
	printf '%s' "$new" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
}

# sign_assert_status LOG KEY REGEX : the recovery root printed KEY=<value matching REGEX> from
# /run/verity-init/status (the failed root's record).
sign_assert_status() {
	vm_assert_log_contains "$1" "VERITY-TEST-STATUS $2=$3" "status file: $2 does not match /$3/"
}
