#!/bin/sh
# Power loss while `verity-init slot` writes the store (docs/slots.md, "Power loss"): seeded runs
# of the writing verbs (mark-good, mark-bad, set-primary, set-state) over a store file, each one
# killed (SIGKILL) in the middle of one of its writes: the tests/cli/torn_write.c shim lets the
# K-th pwrite put only part of its bytes into the file, then kills the process, which neither
# finishes the record nor syncs nor writes the other copy. After each: the next reader finds the
# state before or after the command, never a mix, a slot to boot, and the next write succeeds
# with both copies valid again. Runs: SLOT_POWERLOSS_RUNS (default 100; seeds 1..N).
# Environment: BUILD = build directory.
# shellcheck disable=SC2317  # test functions and helpers are called by shunit2

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
VI=$BUILD/verity-init
SHIM=$BUILD/tests/torn_write.so
RUNS=${SLOT_POWERLOSS_RUNS:-100}

# shellcheck source=tests/cli/driver_lib.sh
. "$ROOT/tests/cli/driver_lib.sh"

oneTimeSetUp() {
	[ -x "$VI" ] || { echo "verity-init not built in $BUILD" >&2; exit 1; }
	records_build || exit 1
	mkdir -p "$BUILD/tests" || exit 1
	${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -shared -fPIC -o "$SHIM" \
		"$ROOT/tests/cli/torn_write.c" -ldl || exit 1
	# the store files in memory when possible: every write is synced (fdatasync), 7 per run
	W=$(mktemp -d /dev/shm/slot-powerloss.XXXXXX 2>/dev/null) || W=$SHUNIT_TMPDIR
	"$RECORDS" status "$W" booted ab b "$W/store" || exit 1
	# the shim comes after an ASan runtime (make check-sanitize)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
	export ASAN_OPTIONS
}

oneTimeTearDown() {
	[ "$W" = "$SHUNIT_TMPDIR" ] || rm -rf "$W"
}

# vs STORE ARGS... : verity-init slot on STORE, slot b running.
vs() {
	st=$1
	shift
	"$VI" slot --store "$st" --status "$W/status" "$@"
}

# state STORE : the state a reader decides on (not where it came from): floor, primary, slots.
state() {
	vs "$1" status | grep -Ev '^(store|source|seq|copy[0-9]+|current)='
}

oneline() { printf '%s' "$1" | tr '\n' ' '; }

# rnd N : a number in 0..N-1, the next of the run's sequence (a linear congruential generator
# seeded with the run's number: the same numbers on every host; the seed is in every failure).
rnd() {
	lcg=$(( (lcg * 1103515245 + 12345) % 2147483648 ))
	echo $(( (lcg / 65536) % $1 ))
}

# start STORE : a store as a running system may have it: blank (first write ever), or after a few
# changes.
start() {
	rm -f "$1"
	truncate -s 8K "$1"
	case $(rnd 4) in
	0) ;;
	1) vs "$1" set-primary b >/dev/null ;;
	2) vs "$1" set-primary b >/dev/null && vs "$1" mark-good >/dev/null ;;
	3) vs "$1" mark-good >/dev/null && vs "$1" set-state a bad >/dev/null ;;
	esac
}

# op : one writing verb with its arguments, chosen by the seed; none leaves no slot bootable
# when b runs (mark-bad and set-state bad only ever hit one slot of two that were bootable).
op() {
	case $(rnd 6) in
	0) echo mark-good ;;
	1) echo set-primary a ;;
	2) echo set-primary b ;;
	3) echo set-state b good ;;
	4) echo set-state a good ;;
	5) echo mark-bad --reason powerloss-test ;;
	esac
}

test_a_write_torn_anywhere_leaves_the_old_or_the_new_state() {
	seed=1
	killed=0 got_old=0 got_new=0
	while [ "$seed" -le "$RUNS" ]; do
		lcg=$seed
		start "$W/before"
		# shellcheck disable=SC2046  # the verb's words
		set -- $(op)
		# mark-bad on a store whose other slot is bad would leave none: the op is skipped
		if [ "$1" = mark-bad ] && [ "$(vs "$W/before" get-state a)" = bad ]; then
			set -- set-state b good
		fi
		cp "$W/before" "$W/after"
		vs "$W/after" "$@" >/dev/null 2>&1 || { fail "seed $seed: $* failed without a power loss"; return; }
		if ! old=$(state "$W/before") || ! new=$(state "$W/after"); then
			fail "seed $seed: the status of a whole store"; return
		fi
		cp "$W/before" "$W/torn"
		at="$(( $(rnd 2) + 1 )):$(rnd 1001)"
		VI_TORN_AT=$at LD_PRELOAD=$SHIM "$VI" slot --store "$W/torn" --status "$W/status" "$@" \
			>/dev/null 2>&1
		rc=$?
		# 137: killed by the shim; 0: the write was never reached (a verb that changed nothing)
		[ $rc = 137 ] && killed=$((killed + 1))
		[ $rc = 137 ] || [ $rc = 0 ] || { fail "seed $seed: $* under VI_TORN_AT=$at: exit $rc"; return; }
		got=$(state "$W/torn") || { fail "seed $seed: $* torn at $at: the store is unreadable"; return; }
		if [ "$got" = "$new" ] && [ "$new" != "$old" ]; then
			got_new=$((got_new + 1))
		elif [ "$got" = "$old" ] && [ "$new" != "$old" ]; then
			got_old=$((got_old + 1))
		elif [ "$got" != "$old" ]; then
			fail "seed $seed: $* torn at $at: the state is $(oneline "$got"), neither $(oneline "$old") nor $(oneline "$new")"
			return
		fi
		vs "$W/torn" get-primary >/dev/null ||
			{ fail "seed $seed: $* torn at $at: no bootable slot in $got"; return; }
		if ! vs "$W/torn" mark-good >/dev/null ||
		   [ "$(vs "$W/torn" status | grep -c '^copy[0-9]*=valid')" != 2 ]; then
			fail "seed $seed: $* torn at $at: the next write does not heal the store"; return
		fi
		seed=$((seed + 1))
	done
	# a test that cannot fail: most runs must really have been cut
	[ $killed -ge $((RUNS / 2)) ] || fail "only $killed of $RUNS runs were killed in a write"
	# and the cuts fell both before and after the point where the new state counts
	if [ $got_old = 0 ] || [ $got_new = 0 ]; then
		fail "the torn runs found only one side: $got_old the old state, $got_new the new one"
	fi
	echo "slot_powerloss: $RUNS seeded runs, $killed killed in a store write:" \
		"$got_old read back the state before, $got_new the state after"
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
