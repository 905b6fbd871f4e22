#!/bin/sh
# valgrind memcheck over the host tool on a small image: `verity-image format`, `verify` (good
# and corrupted), `dump`, single- and multi-threaded, with and without FEC; and over
# `verity-init parse`. Each run must be free of memcheck errors (invalid reads/writes,
# uninitialised values, definite or indirect leaks): valgrind exits 99 then, which no
# verity-image exit code uses.
# Skipped when valgrind is missing or the binary is an ASan build (the two do not mix).
# Environment: BUILD = build directory.
# shellcheck disable=SC2317  # test functions and helpers are called by shunit2

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
VI=$BUILD/verity-image
VG_ERR=99

oneTimeSetUp() {
	W=$SHUNIT_TMPDIR
	SKIP=""
	if ! command -v valgrind >/dev/null 2>&1; then
		SKIP="valgrind not installed"
	elif [ ! -x "$VI" ]; then
		SKIP="$VI not built"
	elif readelf --dyn-syms -W "$VI" 2>/dev/null | grep -q '__asan_init'; then
		SKIP="$VI is an ASan build"
	fi
	[ -z "$SKIP" ] || return 0
	# 300 data blocks of 4 KiB plus a ragged tail: two tree levels with 512-byte hash blocks.
	head -c $((300 * 4096 + 100)) /dev/urandom >"$W/data"
}

# shunit2's startSkipping only silences assertions; each test also returns early.
setUp() {
	if [ -n "$SKIP" ]; then
		echo "skip: $SKIP"
		startSkipping
	fi
}

# vg LOG ARGS... : run ARGS under memcheck; returns the program's exit code, or 99 on an error.
vg() {
	log=$1
	shift
	valgrind -q --error-exitcode="$VG_ERR" --leak-check=full \
		--show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
		--track-origins=yes --log-file="$log" "$@" >"$log.out" 2>&1
}

assertClean() {
	# $1 what, $2 rc, $3 log
	[ "$2" -ne "$VG_ERR" ] || { cat "$3"; fail "$1: memcheck errors (see above)"; return; }
	[ ! -s "$3" ] || { cat "$3"; fail "$1: valgrind printed a report"; }
}

testFormatVerifyDumpUnderMemcheck() {
	[ -z "$SKIP" ] || return 0
	vg "$W/fmt.log" "$VI" format "$W/data" "$W/hash" --hash-block-size 512 --salt 0a0b \
		--root-hash-file "$W/root" --threads 2
	rc=$?
	assertClean format "$rc" "$W/fmt.log"
	assertEquals "format exit code" 0 "$rc"
	root=$(cat "$W/root")
	assertEquals "root hash length" 64 ${#root}

	vg "$W/ver.log" "$VI" verify "$W/data" "$W/hash" "$root" --threads 2
	rc=$?
	assertClean verify "$rc" "$W/ver.log"
	assertEquals "verify exit code" 0 "$rc"

	vg "$W/ver1.log" "$VI" verify "$W/data" "$W/hash" "$root" --threads 1
	rc=$?
	assertClean "verify --threads 1" "$rc" "$W/ver1.log"
	assertEquals "verify --threads 1 exit code" 0 "$rc"

	vg "$W/dump.log" "$VI" dump "$W/hash" --json
	rc=$?
	assertClean dump "$rc" "$W/dump.log"
	assertEquals "dump exit code" 0 "$rc"
	grep -q '"data_blocks": *300' "$W/dump.log.out" || grep -qi 'data.blocks.*300' "$W/dump.log.out" ||
		fail "dump does not show 300 data blocks: $(cat "$W/dump.log.out")"
}

testCorruptionPathUnderMemcheck() {
	[ -z "$SKIP" ] || return 0
	cp "$W/data" "$W/bad"
	"$VI" format "$W/bad" "$W/badhash" --root-hash-file "$W/badroot" >/dev/null || fail "format"
	# Flip one byte in data block 123.
	printf '\377' | dd of="$W/bad" bs=1 seek=$((123 * 4096 + 7)) conv=notrunc status=none
	vg "$W/bad.log" "$VI" verify "$W/bad" "$W/badhash" "$(cat "$W/badroot")"
	rc=$?
	assertClean "verify of a corrupted image" "$rc" "$W/bad.log"
	assertEquals "verify of a corrupted image: exit code 2" 2 "$rc"
	grep -q '123' "$W/bad.log.out" || fail "failing block 123 not named: $(cat "$W/bad.log.out")"
}

testFecUnderMemcheck() {
	[ -z "$SKIP" ] || return 0
	head -c $((64 * 4096)) "$W/data" >"$W/fdata"
	vg "$W/fec.log" "$VI" format "$W/fdata" "$W/fhash" --fec-device "$W/fec" --fec-roots 24 \
		--root-hash-file "$W/froot" --threads 2
	rc=$?
	assertClean "format with FEC" "$rc" "$W/fec.log"
	assertEquals "format with FEC exit code" 0 "$rc"
	vg "$W/fecv.log" "$VI" verify "$W/fdata" "$W/fhash" --root-hash-file "$W/froot" \
		--fec-device "$W/fec" --fec-roots 24 --threads 2
	rc=$?
	assertClean "verify with FEC" "$rc" "$W/fecv.log"
	assertEquals "verify with FEC exit code" 0 "$rc"
	printf '\377' | dd of="$W/fec" bs=1 seek=1000 conv=notrunc status=none
	vg "$W/fecb.log" "$VI" verify "$W/fdata" "$W/fhash" --root-hash-file "$W/froot" \
		--fec-device "$W/fec" --fec-roots 24 --threads 1 --json
	rc=$?
	assertClean "verify of a corrupted FEC area" "$rc" "$W/fecb.log"
	assertEquals "verify of a corrupted FEC area: exit code 2" 2 "$rc"
}

testBadSuperblockUnderMemcheck() {
	[ -z "$SKIP" ] || return 0
	head -c 4096 /dev/zero >"$W/nosb"
	vg "$W/nosb.log" "$VI" dump "$W/nosb"
	rc=$?
	assertClean "dump of a zeroed superblock" "$rc" "$W/nosb.log"
	assertEquals "dump of a zeroed superblock: exit code 4" 4 "$rc"
}

testAgentParseUnderMemcheck() {
	[ -z "$SKIP" ] || return 0
	agent=$BUILD/verity-init
	[ -x "$agent" ] || { echo "skip: $agent not built"; return 0; }
	rh=$(printf '%064d' 7)
	vg "$W/parse.log" "$agent" parse --cmdline "roothash=$rh systemd.verity_root_data=PARTUUID=01234567-89ab-cdef-0123-456789abcdef systemd.verity_root_options=hash-offset=1M,panic-on-corruption verity.fail=reboot"
	rc=$?
	assertClean "verity-init parse" "$rc" "$W/parse.log"
	assertEquals "verity-init parse exit code" 0 "$rc"
	vg "$W/parse-shell.log" "$agent" parse --shell --cmdline "verity.roothash=$rh verity.data=LABEL=a'b verity.hash=/dev/vdb"
	rc=$?
	assertClean "verity-init parse --shell" "$rc" "$W/parse-shell.log"
	vg "$W/parse-bad.log" "$agent" parse --cmdline "roothash=$rh roothash=${rh%7}8 verity.data=/dev/vda"
	rc=$?
	assertClean "verity-init parse of a refused command line" "$rc" "$W/parse-bad.log"
	assertEquals "refused command line: exit code 1" 1 "$rc"
}

# shellcheck disable=SC1091
. /usr/share/shunit2/shunit2
