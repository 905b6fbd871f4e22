#!/bin/bash
# verity-image against veritysetup, both ways, over a covering parameter matrix:
# hash sha1/sha256/sha512 x block sizes 512/1024/4096 (data = hash and data != hash) x salt
# none/1/32/256 bytes x format 0/1, plus hash-after-data with --hash-offset, --no-superblock,
# a single block, and data sizes that are not multiples of the fan-out. For every case:
# same root hash and identical hash-device bytes (fixed UUID and salt), `veritysetup verify`
# accepts ours, our `verify` accepts veritysetup's, our `dump` equals `veritysetup dump`.
# Then corruption (reported at the right block), errors and exit codes, output modes.
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
}

# What veritysetup users type and have: options before the command, short options, upper-case
# algorithm names, --data-blocks=0, an old hash file being overwritten, root hash files with CRLF.
testVeritysetupHabits() {
	local ours theirs root
	head -c $((64 * 4096)) /dev/urandom >"$W/d"
	head -c 200000 /dev/urandom >"$W/pre"
	cp "$W/pre" "$W/ho" && cp "$W/pre" "$W/hv"
	ours=$("$VI" -h SHA1 -s ab --data-blocks=0 format "$W/d" "$W/ho" --uuid="${UUID^^}") ||
		{ fail "verity-image format failed"; return; }
	theirs=$(veritysetup -h SHA1 -s ab --data-blocks=0 format "$W/d" "$W/hv" --uuid="${UUID^^}") ||
		{ fail "veritysetup format failed"; return; }
	assertEquals "report" "$(printf '%s\n' "$theirs" | sed 1d)" "$(printf '%s\n' "$ours" | sed 1d)"
	cmp -s "$W/ho" "$W/hv"
	assertTrue "hash file written over old bytes: same bytes as veritysetup's" $?
	root=$(vi_root "$ours")
	printf '%s\r\n\n' "$root" >"$W/rh"
	"$VI" --verbose verify "$W/d" "$W/ho" --root-hash-file "$W/rh"
	assertEquals "root hash file with CRLF" 0 $?
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
	assertEquals "verity-image $(sed -n 's/^#define VERITY_INIT_VERSION "\(.*\)"/\1/p' "$ROOT/verity-init/verity-image.c")" \
		"$("$VI" --version)"
}

# shellcheck disable=SC1091
. /usr/share/shunit2/shunit2
