#!/bin/bash
# verity-image against veritysetup, both ways, over a covering parameter matrix:
# hash sha1/sha256/sha512 x block sizes 512/1024/4096 (data = hash and data != hash) x salt
# none/1/32/256 bytes x format 0/1, plus hash-after-data with --hash-offset, --no-superblock,
# a single block, and data sizes that are not multiples of the fan-out. For every case:
# same root hash and identical hash-device bytes (fixed UUID and salt), `veritysetup verify`
# accepts ours, our `verify` accepts veritysetup's, our `dump` equals `veritysetup dump`.
# Then corruption (reported at the right block), errors and exit codes, output modes; and FEC
# (--fec-device): data, hash and FEC files byte-identical to veritysetup's over roots 2..24,
# block sizes 512/4096 and every placement, a corrupted parity byte found, refusals.
# Environment: BUILD = absolute build directory.
# shellcheck disable=SC2317  # test functions and helpers are called by shunit2

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
VI=$BUILD/verity-image
UUID=11111111-2222-4333-8444-555555555555

oneTimeSetUp() {
	[ -x "$VI" ] || { echo "verity-image not built: $VI" >&2; exit 1; }
	command -v veritysetup >/dev/null || { echo "veritysetup missing (cryptsetup-bin)" >&2; exit 1; }
	W=$SHUNIT_TMPDIR
	S1=ab
	S32=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
	S256=$(head -c 256 /dev/urandom | od -An -tx1 | tr -d ' \n')
}

# vi_root OUTPUT : the root hash from format's output.
vi_root() { printf '%s\n' "$1" | awk -F'\t' '/^Root hash:/ { print $2 }'; }

# vi_digests HASH : digest size in bytes
vi_digest() {
	case $1 in
	sha1) echo 20 ;; sha224 | sha3-224) echo 28 ;; sha384 | sha3-384) echo 48 ;;
	sha512 | sha3-512 | blake2b-512) echo 64 ;; *) echo 32 ;;
	esac
}

# vi_blocks_for HASH DBS HBS : a block count that is not a multiple of the fan-out and gives
# at least two levels where the image stays small.
vi_blocks_for() {
	local ds hpb=1
	ds=$(vi_digest "$1")
	while [ $((hpb * 2 * ds)) -le "$3" ]; do hpb=$((hpb * 2)); done
	if [ $(((hpb * hpb + 3) * $2)) -le 4194304 ]; then
		echo $((hpb * hpb + 3))    # three levels
	else
		echo $((2 * hpb + 3))      # two levels
	fi
}

# vi_interop HASH DBS HBS SALT FORMAT [BLOCKS] : one matrix case, both ways.
vi_interop() {
	local hash=$1 dbs=$2 hbs=$3 salt=$4 fmt=$5 blocks=${6:-} what
	local opts ours theirs root_o root_t
	[ -n "$blocks" ] || blocks=$(vi_blocks_for "$hash" "$dbs" "$hbs")
	what="$hash data=$dbs hash=$hbs salt=${#salt}/2B format=$fmt blocks=$blocks"
	# A ragged tail after the last whole block: both tools must ignore it.
	head -c $((blocks * dbs + 100)) /dev/urandom >"$W/d"
	rm -f "$W/ho" "$W/hv"
	opts="--hash $hash --data-block-size $dbs --hash-block-size $hbs --salt $salt --format $fmt --uuid $UUID"
	# shellcheck disable=SC2086
	ours=$("$VI" format "$W/d" "$W/ho" $opts) || { fail "$what: verity-image format failed"; return; }
	# shellcheck disable=SC2086
	theirs=$(veritysetup format "$W/d" "$W/hv" $opts) || { fail "$what: veritysetup format failed"; return; }
	root_o=$(vi_root "$ours")
	root_t=$(vi_root "$theirs")
	assertEquals "$what: root hash" "$root_t" "$root_o"
	# the whole report, line for line (the first names the hash file, which differs)
	assertEquals "$what: report" "$(printf '%s\n' "$theirs" | sed 1d)" "$(printf '%s\n' "$ours" | sed 1d)"
	assertTrue "$what: hash devices differ" "cmp -s '$W/ho' '$W/hv'"
	# Same lines as veritysetup (order aside: our root hash comes last).
	assertEquals "$what: format output" "$(printf '%s\n' "$theirs" | sed "s|$W/hv|X|" | sort)" \
		"$(printf '%s\n' "$ours" | sed "s|$W/ho|X|" | sort)"
	assertTrue "$what: veritysetup verify rejects ours" "veritysetup verify '$W/d' '$W/ho' $root_o"
	assertTrue "$what: our verify rejects veritysetup's" "'$VI' verify '$W/d' '$W/hv' $root_t"
	assertEquals "$what: dump" "$(veritysetup dump "$W/hv")" "$("$VI" dump "$W/hv")"
}

# Covering set rather than the full cross product (which takes minutes): every block-size pair
# with both formats, the four salts rotating so that each meets both formats, for each hash.
vi_matrix() {
	local hash=$1 bs fmt b=0 salts
	salts=(- "$S1" "$S32" "$S256")
	for bs in "512 512" "1024 1024" "4096 4096" "512 4096" "4096 1024" "1024 512"; do
		for fmt in 0 1; do
			# shellcheck disable=SC2086
			vi_interop "$hash" $bs "${salts[$(((b + fmt) % 4))]}" "$fmt"
		done
		b=$((b + 1))
	done
}

testMatrixSha1() { vi_matrix sha1; }
testMatrixSha256() { vi_matrix sha256; }
testMatrixSha512() { vi_matrix sha512; }

# The other digests both the kernel and OpenSSL know (one case each; block count from sha256's
# fan-out is fine for the 4096-byte blocks used here).
testOtherDigests() {
	local h
	for h in sha224 sha384 sha3-256 sha3-512 sm3 blake2b-512; do
		vi_interop "$h" 4096 4096 "$S32" 1 300
	done
	vi_interop sha384 1024 1024 "$S1" 0 300
}

testSingleBlockAndExactFanout() {
	vi_interop sha256 4096 4096 "$S32" 1 1     # no tree: root = digest of the block
	vi_interop sha256 4096 4096 - 1 128        # exactly one hash block
	vi_interop sha256 4096 4096 - 0 129        # one more: a second level
	vi_interop sha512 512 512 "$S1" 1 64       # 8 per block: exactly two full levels
}

testHashOffsetSameFile() {
	local out root off=$((300 * 4096))
	head -c $((257 * 4096)) /dev/urandom >"$W/img"
	cp "$W/img" "$W/img2"
	out=$("$VI" format "$W/img" "$W/img" --data-blocks 257 --hash-offset "$off" --salt "$S32" --uuid "$UUID")
	assertEquals "format with a hash offset" 0 $?
	root=$(vi_root "$out")
	assertNull "no device size line with an offset" "$(printf '%s\n' "$out" | grep 'Hash device size')"
	assertTrue "veritysetup verify of ours" \
		"veritysetup verify '$W/img' '$W/img' $root --hash-offset $off"
	veritysetup format "$W/img2" "$W/img2" --data-blocks 257 --hash-offset "$off" --salt "$S32" \
		--uuid "$UUID" >/dev/null
	assertTrue "byte-identical image" "cmp -s '$W/img' '$W/img2'"
	assertTrue "our verify of veritysetup's" "'$VI' verify '$W/img2' '$W/img2' $root --hash-offset $off"
	assertEquals "dump at the offset" "$(veritysetup dump "$W/img2" --hash-offset "$off")" \
		"$("$VI" dump "$W/img2" --hash-offset "$off")"
	# Tree start rounds up past the superblock when the offset is not block-aligned.
	out=$("$VI" format "$W/img" "$W/img" --data-blocks 257 --hash-offset $((off + 1536)) \
		--salt "$S32" --uuid "$UUID")
	assertTrue "veritysetup verify, unaligned offset" \
		"veritysetup verify '$W/img' '$W/img' $(vi_root "$out") --hash-offset $((off + 1536))"
	# The hash area must not overlap the data.
	"$VI" format "$W/img" "$W/img" --hash-offset 4096 --data-blocks 257 2>"$W/err" >/dev/null
	assertEquals "overlap is invalid" 4 $?
	assertContains "$(cat "$W/err")" "inside the data"
}

testNoSuperblock() {
	local out root dbs hbs
	for dbs in 512 4096; do
		for hbs in 1024 4096; do
			head -c $((1000 * dbs + 7)) /dev/urandom >"$W/d"
			rm -f "$W/ho" "$W/hv"
			out=$("$VI" format "$W/d" "$W/ho" --no-superblock --salt "$S32" \
				--data-block-size "$dbs" --hash-block-size "$hbs")
			root=$(vi_root "$out")
			veritysetup format "$W/d" "$W/hv" --no-superblock --salt "$S32" \
				--data-block-size "$dbs" --hash-block-size "$hbs" >/dev/null
			assertTrue "no-superblock $dbs/$hbs: identical" "cmp -s '$W/ho' '$W/hv'"
			assertTrue "no-superblock $dbs/$hbs: veritysetup verify" \
				"veritysetup verify '$W/d' '$W/ho' $root --no-superblock --salt $S32 --data-block-size $dbs --hash-block-size $hbs"
			assertTrue "no-superblock $dbs/$hbs: our verify" \
				"'$VI' verify '$W/d' '$W/hv' $root --no-superblock --salt $S32 --data-block-size $dbs --hash-block-size $hbs"
			assertEquals "no UUID printed" "UUID:            	" \
				"$(printf '%s\n' "$out" | grep '^UUID')"
		done
	done
	"$VI" dump "$W/ho" 2>"$W/err"
	assertEquals "dump of a superblock-less device" 4 $?
	assertContains "$(cat "$W/err")" "bad magic"
}

# corrupt FILE OFFSET : flip one bit
corrupt() {
	local b
	b=$(od -An -tu1 -j "$2" -N 1 "$1" | tr -d ' ')
	# shellcheck disable=SC2059  # the format is the octal escape of one byte
	printf "$(printf '\\%03o' $((b ^ 1)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

testCorruptionLocated() {
	local out root err
	# 1000 blocks of 4096, sha256: level 1 = hash block 1, level 0 = hash blocks 2..9.
	head -c $((1000 * 4096)) /dev/urandom >"$W/d"
	out=$(veritysetup format "$W/d" "$W/h" --salt "$S1")
	root=$(vi_root "$out")
	cp "$W/d" "$W/d.bad"
	corrupt "$W/d.bad" $((777 * 4096 + 123))
	corrupt "$W/d.bad" $((901 * 4096))
	err=$("$VI" verify "$W/d.bad" "$W/h" "$root" 2>&1 >/dev/null)
	assertEquals "data corruption exit code" 2 $?
	assertEquals "first bad data block named" \
		"verity-image: verify: data block 777 (byte 3182592) does not match" "$err"
	assertFalse "veritysetup agrees it is bad" "veritysetup verify '$W/d.bad' '$W/h' $root 2>/dev/null"
	out=$("$VI" verify "$W/d.bad" "$W/h" "$root" --json 2>/dev/null)
	assertEquals '{"ok":false,"bad":"data","level":0,"index":777,"offset":3182592}' "$out"

	cp "$W/h" "$W/h.bad"
	corrupt "$W/h.bad" $((4 * 4096 + 5))
	err=$("$VI" verify "$W/d" "$W/h.bad" "$root" 2>&1 >/dev/null)
	assertEquals "hash corruption exit code" 2 $?
	assertEquals "level-0 hash block named" \
		"verity-image: verify: hash block 2 of level 0 (byte 16384) does not match" "$err"
	cp "$W/h" "$W/h.bad"
	corrupt "$W/h.bad" $((1 * 4096 + 4095))
	err=$("$VI" verify "$W/d" "$W/h.bad" "$root" 2>&1 >/dev/null)
	assertEquals "top hash block named" \
		"verity-image: verify: hash block 0 of level 1 (byte 4096) does not match" "$err"
	# Wrong root hash.
	"$VI" verify "$W/d" "$W/h" "$(printf '%s' "$root" | tr '0-9a-f' '1-9a-f0')" 2>/dev/null
	assertEquals "wrong root" 2 $?
	# Superblock damage is "invalid", not a mismatch.
	cp "$W/h" "$W/h.bad"
	corrupt "$W/h.bad" 0
	"$VI" verify "$W/d" "$W/h.bad" "$root" 2>"$W/err"
	assertEquals "bad magic exit code" 4 $?
	assertContains "$(cat "$W/err")" "bad magic"
	# Good one still passes, silently.
	out=$("$VI" verify "$W/d" "$W/h" "$root" 2>&1)
	assertEquals "verify ok exit" 0 $?
	assertNull "verify ok prints nothing" "$out"
}

testRootHashFileAndQuiet() {
	local out
	head -c 123456 /dev/urandom >"$W/d"
	out=$("$VI" format "$W/d" "$W/h" --root-hash-file "$W/rh" --quiet 2>"$W/err")
	assertEquals "quiet prints only the root" "$(cat "$W/rh")" "$out"
	assertNull "no progress when stderr is not a TTY" "$(cat "$W/err")"
	assertEquals "root hash file has no newline (as veritysetup)" 64 "$(wc -c <"$W/rh")"
	assertTrue "verify --root-hash-file" "'$VI' verify '$W/d' '$W/h' --root-hash-file '$W/rh'"
	assertTrue "veritysetup reads our root hash file" \
		"veritysetup verify '$W/d' '$W/h' --root-hash-file '$W/rh'"
	"$VI" verify "$W/d" "$W/h" 2>/dev/null
	assertEquals "missing root hash" 1 $?
}

# The root hash file is put in place as sign's outputs are: a new file renamed over the path
# once the tree is written, never the old file written over (a second name of it keeps the old
# bytes), no temporary file left; a directory there is refused.
testRootHashFileReplacedWhole() {
	local out
	head -c 123456 /dev/urandom >"$W/d"
	printf 'old root hash\n' >"$W/rhw"
	ln -f "$W/rhw" "$W/rhw.link"
	out=$("$VI" format "$W/d" "$W/h" --root-hash-file "$W/rhw" --quiet 2>&1)
	assertEquals "format: $out" 0 $?
	assertEquals "the new root hash file" "$out" "$(cat "$W/rhw")"
	assertEquals "the old file not written over" "old root hash" "$(cat "$W/rhw.link")"
	assertEquals "no temporary file left" "" "$(ls "$W"/rhw.tmp* "$W"/rhw.old* 2>/dev/null)"
	mkdir -p "$W/rhdir"
	out=$("$VI" format "$W/d" "$W/h" --root-hash-file "$W/rhdir" 2>&1)
	assertEquals "a directory: $out" 3 $?
	assertContains "$out" "$W/rhdir: exists and is not a regular file"
}

testJson() {
	local out root
	head -c 65536 /dev/urandom >"$W/d"
	out=$("$VI" format "$W/d" "$W/h" --json --salt 00ff --uuid "$UUID" --threads 1)
	assertContains "$out" '"data_blocks":16,'
	assertContains "$out" '"salt":"00ff"'
	assertContains "$out" "\"uuid\":\"$UUID\""
	assertContains "$out" '"hash_device_size":8192'
	assertContains "$out" '"root_hash":"'
	root=$(printf '%s' "$out" | sed 's/.*"root_hash":"\([0-9a-f]*\)".*/\1/')
	assertEquals "verify --json" '{"ok":true}' "$("$VI" verify "$W/d" "$W/h" "$root" --json)"
	cp "$W/h" "$W/h.short"
	truncate -s 4096 "$W/h.short"
	assertEquals "verify --json, I/O-class error" \
		'{"ok":false,"error":"hash device has 4096 bytes, the tree needs 8192"}' \
		"$("$VI" verify "$W/d" "$W/h.short" "$root" --json 2>/dev/null)"
	out=$("$VI" dump "$W/h" --json)
	assertContains "$out" '"hash_algorithm":"sha256"'
	assertNotContains "$out" 'root_hash'
	if command -v python3 >/dev/null; then
		assertTrue "dump --json parses" "printf '%s' '$out' | python3 -m json.tool"
	fi
}

testErrors() {
	local rc
	"$VI" 2>/dev/null; assertEquals "no command" 1 $?
	"$VI" frobnicate 2>/dev/null; assertEquals "unknown command" 1 $?
	"$VI" format "$W/nonexistent" "$W/h" 2>"$W/err"; rc=$?
	assertEquals "missing data file" 3 "$rc"
	assertEquals "one-line error" 1 "$(wc -l <"$W/err")"
	head -c 8192 /dev/urandom >"$W/d"
	"$VI" format "$W/d" "$W/h" --hash md4 2>/dev/null; assertEquals "unknown hash" 1 $?
	"$VI" format "$W/d" "$W/h" --data-block-size 3000 2>"$W/err"; assertEquals "bad block size (veritysetup: 1)" 1 $?
	assertContains "$(cat "$W/err")" "power of two"
	"$VI" format "$W/d" "$W/h" --data-block-size 1048576 2>/dev/null; assertEquals "block too big" 1 $?
	"$VI" format "$W/d" "$W/h" --data-block-size 0 2>/dev/null; assertEquals "block size 0" 1 $?
	"$VI" format "$W/d" "$W/h" --salt "$S256"00 2>/dev/null; assertEquals "salt > 256" 1 $?
	"$VI" format "$W/d" "$W/h" --salt abc 2>/dev/null; assertEquals "odd salt" 1 $?
	"$VI" format "$W/d" "$W/h" --data-blocks 3 2>"$W/err"; assertEquals "data too short" 3 $?
	assertContains "$(cat "$W/err")" "data device has 8192 bytes"
	"$VI" format "$W/d" "$W/h" --data-blocks 12x 2>/dev/null; assertEquals "junk number" 1 $?
	"$VI" format "$W/d" "$W/h" --hash-offset 1000 2>/dev/null; assertEquals "unaligned offset" 4 $?
	"$VI" format "$W/d" "$W/h" --format 2 2>/dev/null; assertEquals "format 2" 1 $?
	"$VI" format "$W/d" "$W/h" --uuid nope 2>/dev/null; assertEquals "bad uuid" 1 $?
	"$VI" format "$W/d" "$W/h" --bogus 2>/dev/null; assertEquals "unknown option" 1 $?
	"$VI" format "$W/d" "$W/h" --salt - >/dev/null; assertEquals "format ok" 0 $?
	"$VI" verify "$W/d" "$W/h" 0011 2>/dev/null; assertEquals "short root hash" 1 $?
	"$VI" verify "$W/d" "$W/h" "$(printf '%064d' 0)" --hash sha1 2>"$W/err"
	assertEquals "option contradicts the superblock" 4 $?
	assertContains "$(cat "$W/err")" "conflicts with the superblock"
	truncate -s 4096 "$W/h"
	"$VI" verify "$W/d" "$W/h" "$(printf '%064d' 0)" 2>"$W/err"
	assertEquals "truncated hash device" 3 $?
	"$VI" --help | grep -q "Exit codes"; assertEquals "help" 0 $?
}

testBlockDevice() {
	local loop root
	head -c $((4 * 1048576 + 65536)) /dev/urandom >"$W/blk"
	loop=$(losetup -f --show "$W/blk" 2>/dev/null) || { startSkipping; echo "skip: no loop device"; return; }
	# Data and tree on one block device: 1024 data blocks, superblock at 4 MiB.
	root=$("$VI" format "$loop" "$loop" --data-blocks 1024 --hash-offset 4194304 --quiet)
	assertEquals "format on a block device" 0 $?
	assertTrue "veritysetup verify on the block device" \
		"veritysetup verify '$loop' '$loop' $root --hash-offset 4194304"
	assertTrue "our verify on the block device" \
		"'$VI' verify '$loop' '$loop' $root --hash-offset 4194304"
	# Default data_blocks from the device size (BLKGETSIZE64), tree in a file.
	root=$("$VI" format "$loop" "$W/h" --quiet)
	assertEquals "data blocks from the device size" "Data blocks:     	1040" \
		"$("$VI" dump "$W/h" | grep '^Data blocks')"
	assertTrue "veritysetup verify, data on the block device" "veritysetup verify '$loop' '$W/h' $root"
	# FEC after the tree on the device: 1024 + 9 blocks need 10 parity blocks at block 1034,
	# the device has 1040: refused before anything is written (the superblock neither).
	dd if="$loop" bs=512 skip=8192 count=1 status=none >"$W/sb.before"
	"$VI" format "$loop" "$loop" --data-blocks 1024 --hash-offset 4194304 --fec-device "$loop" \
		--fec-offset $((1034 * 4096)) >/dev/null 2>"$W/err"
	assertEquals "FEC area past the end of the device" 3 $?
	assertContains "$(cat "$W/err")" "FEC device has 4259840 bytes, the parity area ends at byte 4276224"
	assertTrue "superblock untouched" "dd if='$loop' bs=512 skip=8192 count=1 status=none | cmp -s - '$W/sb.before'"
	# FEC of a file's image on the device, at an offset.
	head -c $((100 * 4096)) /dev/urandom >"$W/d"
	rm -f "$W/h"
	root=$("$VI" format "$W/d" "$W/h" --fec-device "$loop" --fec-offset 8192 --quiet)
	assertTrue "FEC on a block device: our verify" \
		"'$VI' verify '$W/d' '$W/h' $root --fec-device '$loop' --fec-offset 8192"
	assertTrue "FEC on a block device: veritysetup verify" \
		"veritysetup verify '$W/d' '$W/h' $root --fec-device '$loop' --fec-offset 8192"
	losetup -d "$loop"
}

testProgressOnlyOnTerminal() {
	command -v script >/dev/null || { startSkipping; echo "skip: script(1) missing"; return; }
	head -c $((64 * 1048576)) /dev/zero >"$W/big"
	# script(1) gives the command a pseudo-terminal: stderr is a TTY there.
	script -qec "'$VI' format '$W/big' '$W/h' --threads 1 >/dev/null" /dev/null >"$W/tty" 2>&1
	assertContains "progress bar on a terminal" "$(tr '\r' '\n' <"$W/tty")" "100.0% 64.0/64.0 MiB"
	script -qec "'$VI' format '$W/big' '$W/h' --quiet >/dev/null" /dev/null >"$W/tty" 2>&1
	assertNotContains "no bar with --quiet" "$(cat "$W/tty")" "MiB"
	script -qec "'$VI' format '$W/big' '$W/h' --json >/dev/null" /dev/null >"$W/tty" 2>&1
	assertNotContains "no bar with --json" "$(cat "$W/tty")" "MiB"
	"$VI" format "$W/big" "$W/h" >/dev/null 2>"$W/err"
	assertNull "no bar when stderr is not a terminal" "$(cat "$W/err")"
}

testCmdline() {
	local out root
	head -c 65536 /dev/urandom >"$W/d"
	root=$("$VI" format "$W/d" "$W/h" --quiet --salt - --hash sha512)
	out=$("$VI" cmdline "$W/h" PARTUUID=1234 /dev/vdb "$root")
	assertEquals "roothash=$root systemd.verity_root_data=PARTUUID=1234 systemd.verity_root_hash=/dev/vdb systemd.verity_root_options=hash=sha512,format=1,data-block-size=4096,hash-block-size=4096,hash-offset=0" "$out"
	out=$("$VI" cmdline "$W/h" /dev/vda /dev/vdb "$root" --style verity)
	assertContains "$out" "verity.roothash=$root verity.data=/dev/vda verity.hash=/dev/vdb verity.options=hash=sha512,"
	# accepted by format and verify (veritysetup's habit), never dropped silently from a line
	out=$("$VI" cmdline "$W/h" /dev/vda /dev/vdb "$root" --check-at-most-once 2>&1)
	assertEquals "cmdline --check-at-most-once refused" 1 $?
	assertContains "$out" "--check-at-most-once is not written into a command line"
}

# ---- FEC (--fec-device) -------------------------------------------------------------------

# vi_tree_end ARGS... : where the tree of a format with these arguments ends (bytes), from a
# scratch format without the FEC options.
vi_tree_end() {
	local -a a=()
	while [ $# -gt 0 ]; do
		case $1 in
		--fec-roots) shift ;;
		*) a+=("$1") ;;
		esac
		shift
	done
	"$VI" format "${a[@]}" --json | sed 's/.*"hash_device_size":\([0-9]*\).*/\1/'
}

# vi_fec WHAT BLOCKS BS LAYOUT [OPTIONS...] : both tools format copies of the same inputs with
# FEC; the data, hash and FEC files must be byte-identical and the reports equal, veritysetup
# must verify ours and our verify (which recomputes the parity) veritysetup's.
# LAYOUT: own (hash and FEC files of their own), on-hash (FEC right after the tree on the hash
# file), hash-on-data (tree after the data, FEC file of its own), all-on-data (tree then FEC
# after the data).
vi_fec() {
	local what=$1 blocks=$2 bs=$3 layout=$4 t h f end root ours theirs
	local -a opts loc
	shift 4
	opts=(--data-block-size "$bs" --hash-block-size "$bs" --salt "$S32" "$@")
	head -c $((blocks * bs + 100)) /dev/urandom >"$W/fd"
	case $layout in
	own) h=fh f=ff loc=() ;;
	on-hash) h=fh f=fh
		rm -f "$W/fx"; end=$(vi_tree_end "$W/fd" "$W/fx" "${opts[@]}")
		loc=(--fec-offset "$end") ;;
	hash-on-data) h=fd f=ff loc=(--hash-offset $((blocks * bs + 512))) ;;
	all-on-data) h=fd f=fd
		cp "$W/fd" "$W/fx"; end=$(vi_tree_end "$W/fx" "$W/fx" "${opts[@]}" --hash-offset $((blocks * bs)))
		loc=(--hash-offset $((blocks * bs)) --fec-offset "$end") ;;
	esac
	what="FEC $what ($layout)"
	for t in o v; do
		cp "$W/fd" "$W/fd.$t"
		rm -f "$W/fh.$t" "$W/ff.$t"
	done
	ours=$("$VI" format "$W/fd.o" "$W/$h.o" --fec-device "$W/$f.o" "${opts[@]}" "${loc[@]}" \
		--uuid "$UUID") || { fail "$what: verity-image format failed"; return; }
	theirs=$(veritysetup format "$W/fd.v" "$W/$h.v" --fec-device "$W/$f.v" "${opts[@]}" \
		"${loc[@]}" --uuid "$UUID") || { fail "$what: veritysetup format failed"; return; }
	assertEquals "$what: report" "$(printf '%s\n' "$theirs" | sed 1d)" \
		"$(printf '%s\n' "$ours" | sed 1d)"
	for t in fd fh ff; do
		[ -e "$W/$t.v" ] || continue
		assertTrue "$what: $t differs" "cmp -s '$W/$t.o' '$W/$t.v'"
	done
	root=$(vi_root "$ours")
	assertTrue "$what: veritysetup verify rejects ours" \
		"veritysetup verify '$W/fd.o' '$W/$h.o' $root --fec-device '$W/$f.o' ${opts[*]} ${loc[*]}"
	assertTrue "$what: our verify rejects veritysetup's" \
		"'$VI' verify '$W/fd.v' '$W/$h.v' $root --fec-device '$W/$f.v' ${opts[*]} ${loc[*]}"
}

# roots 2/3/11/24 x blocks 512/4096 x the four layouts, superblock or not; block counts chosen
# so that data + tree is not a multiple of 255 - roots (and one that is: 1012 + 9 = 4 x 255).
testFecMatrix() {
	vi_fec "roots 2, 1000 x 4096" 1000 4096 own
	vi_fec "roots 3, 777 x 4096" 777 4096 on-hash --fec-roots 3
	vi_fec "roots 11, 3001 x 512" 3001 512 hash-on-data --fec-roots 11
	vi_fec "roots 24, 1234 x 512, format 0 sha512" 1234 512 all-on-data --fec-roots 24 \
		--format 0 --hash sha512
	vi_fec "roots 24, 300 x 4096, no superblock" 300 4096 own --fec-roots 24 --no-superblock
	vi_fec "roots 2, 2000 x 512, no superblock" 2000 512 on-hash --no-superblock
	vi_fec "roots 11, one block" 1 4096 own --fec-roots 11
	vi_fec "roots 3, rsn multiple" 1012 4096 own --fec-roots 3
	vi_fec "roots 2, 700 x 4096" 700 4096 all-on-data
}

# Files that already hold something: a hash file larger than the tree (veritysetup's FEC covers
# all of it), an FEC file with foreign bytes before --fec-offset and after the area (kept).
testFecExistingFiles() {
	local t ours
	head -c $((500 * 4096)) /dev/urandom >"$W/fd"
	head -c 200000 /dev/urandom >"$W/fh"
	head -c 300000 /dev/urandom >"$W/ff"
	for t in o v; do cp "$W/fh" "$W/fh.$t"; cp "$W/ff" "$W/ff.$t"; done
	ours=$("$VI" format "$W/fd" "$W/fh.o" --fec-device "$W/ff.o" --fec-offset 8192 \
		--fec-roots 7 --salt "$S1" --uuid "$UUID")
	veritysetup format "$W/fd" "$W/fh.v" --fec-device "$W/ff.v" --fec-offset 8192 \
		--fec-roots 7 --salt "$S1" --uuid "$UUID" >/dev/null
	assertTrue "larger hash file: same hash file" "cmp -s '$W/fh.o' '$W/fh.v'"
	assertTrue "FEC file with foreign bytes: same file" "cmp -s '$W/ff.o' '$W/ff.v'"
	assertEquals "FEC file not shortened" 300000 "$(stat -c %s "$W/ff.o")"
	assertContains "whole hash file covered: 500 + 47 blocks, 3 rounds of 248" "$ours" \
		"FEC blocks:     	21"
	assertNotContains "no FEC device size at an offset" "$ours" "FEC device size"
	assertTrue "our verify" "'$VI' verify '$W/fd' '$W/fh.v' $(vi_root "$ours") \
		--fec-device '$W/ff.v' --fec-offset 8192 --fec-roots 7"
}

testFecCorruption() {
	local out root err
	head -c $((1000 * 4096)) /dev/urandom >"$W/fd"
	rm -f "$W/fh" "$W/ff"
	out=$("$VI" format "$W/fd" "$W/fh" --fec-device "$W/ff" --fec-roots 5 --salt "$S1")
	root=$(vi_root "$out")
	# 1009 blocks, 5 rounds of 250: 20480 RS blocks of 5 parity bytes; byte 77777 is
	# parity byte 2 of RS block 15555.
	cp "$W/ff" "$W/ff.bad"
	corrupt "$W/ff.bad" 77777
	corrupt "$W/ff.bad" 90000
	err=$("$VI" verify "$W/fd" "$W/fh" "$root" --fec-device "$W/ff.bad" --fec-roots 5 2>&1 >/dev/null)
	assertEquals "FEC corruption exit code" 2 $?
	assertEquals "first bad parity named" \
		"verity-image: verify: FEC parity of RS block 15555 (byte 77777 of the FEC device) does not match (2 parity bytes differ)" "$err"
	assertEquals '{"ok":false,"bad":"fec","index":15555,"offset":77777}' \
		"$("$VI" verify "$W/fd" "$W/fh" "$root" --fec-device "$W/ff.bad" --fec-roots 5 --json 2>/dev/null)"
	# veritysetup does not read the parity of an image whose tree verifies.
	assertTrue "veritysetup verify ignores the parity" \
		"veritysetup verify '$W/fd' '$W/fh' $root --fec-device '$W/ff.bad' --fec-roots 5"
	# Wrong roots: a different layout, the parity does not match (or the file is short).
	"$VI" verify "$W/fd" "$W/fh" "$root" --fec-device "$W/ff" --fec-roots 4 2>/dev/null
	assertEquals "wrong --fec-roots" 2 $?
	"$VI" verify "$W/fd" "$W/fh" "$root" --fec-device "$W/ff" --fec-roots 6 2>"$W/err"
	assertEquals "short FEC file" 3 $?
	assertContains "$(cat "$W/err")" "FEC device has 102400 bytes"
	# Bad data: the tree reports it, and FEC what it can do (veritysetup: "Found 1 repairable
	# errors with FEC device." and exit 0; ours exits 2: the image does not match its hash).
	cp "$W/fd" "$W/fd.bad"
	corrupt "$W/fd.bad" 5000
	err=$("$VI" verify "$W/fd.bad" "$W/fh" "$root" --fec-device "$W/ff" --fec-roots 5 2>&1 >/dev/null)
	assertEquals "data corruption with FEC" 2 $?
	assertEquals "verity-image: verify: data block 1 (byte 4096) does not match; FEC would repair it (1 repairable errors)" "$err"
	# FEC cannot be read after the tree's mismatch: both said, in the text and in JSON
	head -c 1000 "$W/ff" >"$W/ff.short"
	out=$("$VI" verify "$W/fd.bad" "$W/fh" "$root" --fec-device "$W/ff.short" --fec-roots 5 \
		--json 2>/dev/null)
	assertEquals "short FEC after a mismatch" 2 $?
	assertContains "$out" '"bad":"data"'
	assertContains "$out" '"fec_error":"FEC device has 1000 bytes'
	# A wrong root hash: FEC finds the data and tree intact and says so.
	err=$("$VI" verify "$W/fd" "$W/fh" "$(printf '%064d' 7)" --fec-device "$W/ff" --fec-roots 5 2>&1 >/dev/null)
	assertEquals "wrong root hash with FEC" 2 $?
	assertContains "$err" "FEC finds no errors in the data and tree: the root hash does not match them"
	assertTrue "good image" "'$VI' verify '$W/fd' '$W/fh' $root --fec-device '$W/ff' --fec-roots 5"
}

# Damage FEC repairs, counted as veritysetup counts it: errors in data, tree and parity, spread
# over many RS blocks and several in one; then one RS block with more than roots / 2 errors.
testFecRepairableCountMatchesVeritysetup() {
	local out root err theirs n ours
	head -c $((1000 * 4096)) /dev/urandom >"$W/fd"
	rm -f "$W/fh" "$W/ff"
	out=$("$VI" format "$W/fd" "$W/fh" --fec-device "$W/ff" --fec-roots 5 --salt "$S1")
	root=$(vi_root "$out")
	cp "$W/fd" "$W/fd.bad"
	cp "$W/fh" "$W/fh.bad"
	cp "$W/ff" "$W/ff.bad"
	# stripes are 5 rounds x 4096 = 20480 bytes: 5000 and 25480 are two symbols of RS block
	# 5000; a run of 300 bytes is one symbol in each of 300 RS blocks
	for o in 5000 25480 $(seq 100000 100299) 3000000; do corrupt "$W/fd.bad" "$o"; done
	corrupt "$W/fh.bad" $((4096 + 77))   # the tree (input byte 1000 x 4096 + 77)
	corrupt "$W/ff.bad" 12345            # parity
	theirs=$(veritysetup verify "$W/fd.bad" "$W/fh.bad" "$root" --fec-device "$W/ff.bad" \
		--fec-roots 5 2>&1)
	assertEquals "veritysetup repairs ($theirs)" 0 $?
	n=$(printf '%s\n' "$theirs" | sed -n 's/^Found \([0-9]*\) repairable errors with FEC device.*/\1/p')
	assertEquals "veritysetup's count" 305 "$n"
	ours=$("$VI" verify "$W/fd.bad" "$W/fh.bad" "$root" --fec-device "$W/ff.bad" --fec-roots 5 \
		--json 2>/dev/null)
	assertEquals "ours refuses" 2 $?
	assertContains "same count as veritysetup ($ours)" "$ours" "\"fec_errors\":$n}"
	# Three more symbols in RS block 5000 (5 of 250): beyond repair for 5 roots. (Whether
	# RS decodes depends on the error pattern only, not on the random data.)
	for o in 45960 66440 86920; do corrupt "$W/fd.bad" "$o"; done
	theirs=$(veritysetup verify "$W/fd.bad" "$W/fh.bad" "$root" --fec-device "$W/ff.bad" \
		--fec-roots 5 2>&1)
	assertNotEquals "veritysetup cannot repair" 0 $?
	assertContains "$theirs" "Errors cannot be repaired with FEC device"
	err=$("$VI" verify "$W/fd.bad" "$W/fh.bad" "$root" --fec-device "$W/ff.bad" --fec-roots 5 \
		2>&1 >/dev/null)
	assertEquals "ours refuses" 2 $?
	assertContains "$err" "does not match; FEC cannot repair it (RS block 5000 is beyond repair)"
}

testFecRefusals() {
	local rc
	head -c $((300 * 4096)) /dev/urandom >"$W/fd"
	rm -f "$W/fh" "$W/ff"
	"$VI" format "$W/fd" "$W/fh" --fec-device "$W/ff" --fec-roots 1 2>"$W/err"
	assertEquals "roots 1 (veritysetup: 1)" 1 $?
	assertContains "$(cat "$W/err")" "--fec-roots must be 2..24"
	"$VI" format "$W/fd" "$W/fh" --fec-device "$W/ff" --fec-roots 25 2>/dev/null
	assertEquals "roots 25" 1 $?
	"$VI" format "$W/fd" "$W/fh" --fec-roots 3 2>"$W/err"
	assertEquals "--fec-roots without --fec-device" 1 $?
	assertContains "$(cat "$W/err")" "need --fec-device"
	"$VI" format "$W/fd" "$W/fh" --fec-device "$W/ff" --hash-block-size 1024 2>"$W/err"
	assertEquals "block sizes differ (veritysetup: 1)" 4 $?
	assertContains "$(cat "$W/err")" "block sizes must match for FEC"
	"$VI" format "$W/fd" "$W/fh" --fec-device "$W/ff" --fec-offset 1000 2>"$W/err"
	assertEquals "offset not a multiple of 512 (veritysetup: 1)" 4 $?
	assertContains "$(cat "$W/err")" "not a multiple of 512"
	# On the hash file: the tree (superblock + 4 blocks) ends at 20480; veritysetup accepts
	# 16384 and writes parity over the last tree block.
	rm -f "$W/fh"
	"$VI" format "$W/fd" "$W/fh" --fec-device "$W/fh" --fec-offset 16384 2>"$W/err"
	assertEquals "FEC over the tree" 4 $?
	assertContains "$(cat "$W/err")" "overlaps the hash area (ending at byte 20480)"
	assertFalse "nothing written" "[ -s '$W/fh' ]"
	cp "$W/fd" "$W/fd2"
	"$VI" format "$W/fd2" "$W/fh" --fec-device "$W/fd2" --fec-offset 4096 2>"$W/err"
	assertEquals "FEC in the data" 4 $?
	assertContains "$(cat "$W/err")" "lies inside the data"
	assertTrue "data file untouched" "cmp -s '$W/fd' '$W/fd2'"
	# Accepted as veritysetup does, with a warning: the kernel counts fec_start in blocks.
	"$VI" format "$W/fd" "$W/fh" --fec-device "$W/ff" --fec-offset 512 >/dev/null 2>"$W/err"
	rc=$?
	assertEquals "offset 512 with 4096-byte blocks" 0 "$rc"
	assertContains "$(cat "$W/err")" "WARNING: FEC offset 512 is not a multiple of the block size"
	"$VI" verify "$W/fd" "$W/fh" "$(printf '%064d' 0)" --fec-device "$W/nonexistent" 2>/dev/null
	assertEquals "missing FEC file" 3 $?
}

testFecDumpJsonCmdline() {
	local out root
	head -c $((1000 * 4096)) /dev/urandom >"$W/fd"
	rm -f "$W/fh" "$W/ff"
	root=$("$VI" format "$W/fd" "$W/fh" --fec-device "$W/ff" --fec-roots 5 --quiet)
	assertEquals "dump with FEC options" \
		"$(veritysetup dump "$W/fh" --fec-device "$W/ff" --fec-roots 5)" \
		"$("$VI" dump "$W/fh" --fec-device "$W/ff" --fec-roots 5)"
	out=$("$VI" dump "$W/fh" --fec-device "$W/ff" --fec-roots 5 --json)
	assertContains "$out" "\"fec\":{\"device\":\"$W/ff\",\"offset\":0,\"roots\":5,\"fec_blocks\":1009,\"rounds\":5,\"parity_blocks\":25,\"size\":102400}"
	# a path with a newline, a terminal escape, a byte that is not UTF-8 and a backslash: its
	# line form as every JSON string's value (docs/design.md, "Names in output"), valid JSON
	cp "$W/ff" "$W/ff"$'\n\e[2J\xff\\'
	out=$("$VI" dump "$W/fh" --fec-device "$W/ff"$'\n\e[2J\xff\\' --fec-roots 5 --json)
	assertContains "$out" "\"device\":\"$W/ff"'\\x0a\\x1b[2J\\xff\\\\",'
	assertEquals "the value a JSON reader prints" "$W/ff\\x0a\\x1b[2J\\xff\\\\" \
		"$(printf '%s\n' "$out" | jq -r .fec.device)"
	out=$("$VI" cmdline "$W/fh" PARTUUID=1234 /dev/vdb "$root" --fec-device PARTLABEL=fec --fec-roots 5)
	assertEquals "roothash=$root systemd.verity_root_data=PARTUUID=1234 systemd.verity_root_hash=/dev/vdb systemd.verity_root_options=hash=sha256,format=1,data-block-size=4096,hash-block-size=4096,hash-offset=0,fec-device=PARTLABEL=fec,fec-offset=0,fec-roots=5" "$out"
	out=$("$VI" cmdline "$W/fh" /dev/vda /dev/vdb "$root" --style verity --fec-device /dev/vdc --fec-offset 8192)
	assertContains "$out" ",hash-offset=0,fec-device=/dev/vdc,fec-offset=8192,fec-roots=2"
	"$VI" cmdline "$W/fh" /dev/vda /dev/vdb "$root" --fec-device /dev/vdc --fec-offset 512 2>/dev/null
	assertEquals "cmdline: offset the kernel cannot express" 4 $?
	"$VI" cmdline "$W/fh" /dev/vda /dev/vdb "$root" --fec-device "LABEL=a,b" 2>/dev/null
	assertEquals "cmdline: comma in the FEC spec" 1 $?
}

# What veritysetup users type and have: options before the command, short options, upper-case
# algorithm names, --data-blocks=0, an old hash file being overwritten, root hash files with CRLF.
testVeritysetupHabits() {
	local ours theirs root out
	head -c $((64 * 4096)) /dev/urandom >"$W/d"
	head -c 200000 /dev/urandom >"$W/pre"
	cp "$W/pre" "$W/ho" && cp "$W/pre" "$W/hv"
	# (--check-at-most-once: an open option veritysetup's format and verify accept and ignore)
	# (-v: the report ends with "Command successful.")
	ours=$("$VI" -v -h SHA1 -s ab --data-blocks=0 format "$W/d" "$W/ho" --uuid="${UUID^^}" \
		--check-at-most-once) || { fail "verity-image format failed"; return; }
	theirs=$(veritysetup -v -h SHA1 -s ab --data-blocks=0 format "$W/d" "$W/hv" --uuid="${UUID^^}" \
		--check-at-most-once) || { fail "veritysetup format failed"; return; }
	assertContains "$ours" "Command successful."
	assertEquals "report" "$(printf '%s\n' "$theirs" | sed 1d)" "$(printf '%s\n' "$ours" | sed 1d)"
	cmp -s "$W/ho" "$W/hv"
	assertTrue "hash file written over old bytes: same bytes as veritysetup's" $?
	root=$(vi_root "$ours")
	printf '%s\r\n\n' "$root" >"$W/rh"
	out=$("$VI" --verbose verify "$W/d" "$W/ho" --root-hash-file "$W/rh" --check-at-most-once)
	assertEquals "root hash file with CRLF" 0 $?
	assertEquals "verbose verify, as veritysetup -v" \
		"$(veritysetup --verbose verify "$W/d" "$W/ho" --root-hash-file "$W/rh")" "$out"
	# a failure ends as veritysetup -v's does, with our exit status and its meaning
	assertEquals "when it fails" "Command failed with code -2 (verification failed)." \
		"$("$VI" -v verify "$W/d" "$W/ho" "$(printf '%040d' 0)" 2>/dev/null)"
	assertEquals "--debug implies -v, as in veritysetup" "Command failed with code -3 (I/O error)." \
		"$("$VI" --debug dump "$W/missing" 2>/dev/null)"
	assertEquals "and in the same form" "Command failed with code -4 (wrong device or file specified)." \
		"$(veritysetup --debug dump "$W/missing" 2>/dev/null | tail -n 1)"
	assertEquals "never with --json" "" \
		"$("$VI" -v --json verify "$W/d" "$W/ho" "$(printf '%040d' 0)" 2>/dev/null | grep Command)"
	"$VI" verify "$W/d" "$W/ho" "$root" --root-hash-file="$W/rh"
	assertEquals "root hash twice, the same" 0 $?
	"$VI" verify "$W/d" "$W/ho" "$(printf '%040d' 0)" --root-hash-file="$W/rh" 2>/dev/null
	assertEquals "root hash twice, different" 1 $?
	# a single block: no tree, the file still ends where the hash area does
	head -c 4096 /dev/urandom >"$W/d1"
	rm -f "$W/ho" "$W/hv"
	"$VI" format "$W/d1" "$W/ho" -s ab --uuid="$UUID" >/dev/null &&
		veritysetup format "$W/d1" "$W/hv" -s ab --uuid="$UUID" >/dev/null
	cmp -s "$W/ho" "$W/hv"
	assertTrue "one-block image: same file as veritysetup's" $?
	# where veritysetup's parser puts the command: clusters, abbreviations, after "--"
	for args in "-vs ab format" "--sal ab format" "--salt ab -- format" "-sab format"; do
		rm -f "$W/hc"
		# shellcheck disable=SC2086
		"$VI" --uuid="$UUID" $args "$W/d1" "$W/hc" >/dev/null
		assertEquals "'$args' accepted" 0 $?
		cmp -s "$W/hc" "$W/hv"
		assertTrue "'$args': the same image" $?
	done
	assertContains "$("$VI" -v --version)" "verity-image"
	assertContains "$("$VI" --hash sha1 --help)" "Usage: verity-image"
	assertEquals "verity-image $(sed -n 's/^#define VERITY_INIT_VERSION "\(.*\)"/\1/p' "$ROOT/verity-init/image/prog.h")" \
		"$("$VI" --version)"
}

# shellcheck disable=SC1091
. /usr/share/shunit2/shunit2
