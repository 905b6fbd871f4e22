#!/bin/sh
# `verity-init slot ...` on a file-backed slot store: every verb, `status --json` parsed with jq,
# a damaged copy and two, where the running slot comes from, and RAUC's custom backend
# (rauc/verity-init-rauc-backend.sh) driven the way RAUC calls it. The stores with manifest
# versions and sequence wrap are the fuzz target's seeds (tests/fuzz/corpus/slots/).
# Environment: BUILD = build directory.
# shellcheck disable=SC2317  # test functions and helpers are called by shunit2

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
VI=$BUILD/verity-init
BACKEND=$ROOT/rauc/verity-init-rauc-backend.sh
SEEDS=$ROOT/tests/fuzz/corpus/slots

# shellcheck source=tests/cli/driver_lib.sh
. "$ROOT/tests/cli/driver_lib.sh"

oneTimeSetUp() {
	[ -x "$VI" ] || { echo "verity-init not built in $BUILD" >&2; exit 1; }
	records_build || exit 1
	command -v jq >/dev/null || { echo "jq missing (make deps)" >&2; exit 1; }
}

setUp() {
	S=$SHUNIT_TMPDIR/store.img
	ST=$SHUNIT_TMPDIR/status
	rm -f "$S" "$ST"
	truncate -s 1M "$S"
}

# slot ARGS...: verity-init slot on the test store and status file
slot() {
	"$VI" slot --store "$S" --status "$ST" --cmdline "quiet" "$@"
}

# booted NAME: the status file the agent writes at an A/B boot
booted() {
	"$RECORDS" status "$(dirname "$ST")" booted ab "$1" "$S" || fail "agent_records status"
}

# j FILTER: jq over `slot status --json`
j() {
	slot status --json | jq -r "$1"
}

test_blank_store_reads_as_the_defaults() {
	out=$(slot status)
	assertContains "$out" "source=defaults"
	assertContains "$out" "copy0=invalid: no slot state (bad magic)"
	assertContains "$out" "primary=a"
	assertContains "$out" "slot.b.bootable=yes"
	assertEquals "defaults json" "defaults 0 0 a 2 15/3 14/3" \
		"$(j '[.source, .seq, .floor, .primary, (.slots|length), (.slots[]|"\(.priority)/\(.tries)")]|join(" ")')"
	# reading never writes
	assertEquals "store still blank" "" "$(tr -d '\0' <"$S" | head -c 1)"
}

# The ran record (the slot the agent last switched to, as its boot writes it) is shown by status
# and kept by every verb: only the next boot's agent replaces it.
test_ran_record_shown_and_kept() {
	h=1f5ab3a19be8140f8e9cb06442106fb3e71756eabafc0b696ca121519bdcf3dd
	assertContains "none on a blank store" "$(slot status)" "
ran=
"
	assertEquals "json null" "null" "$(j '.ran')"
	"$RECORDS" slot-ran "$S" a 254:1 "$h" || fail "agent_records slot-ran"
	assertContains "$(slot status)" "ran=a 254:1 $h"
	assertEquals "json" "a 254:1 $h" "$(j '[.ran.slot, .ran.device, .ran.root_hash]|join(" ")')"
	booted a
	slot mark-good >/dev/null || fail "mark-good"
	slot set-primary b || fail "set-primary b"
	slot set-state a bad || fail "set-state a bad"
	assertEquals "kept by mark-good, set-primary, set-state" "a 254:1 $h" \
		"$(j '[.ran.slot, .ran.device, .ran.root_hash]|join(" ")')"
}

test_every_verb() {
	assertEquals "get-primary" "a" "$(slot get-primary)"
	slot set-primary b || fail "set-primary b"
	assertEquals "get-primary after set-primary" "b" "$(slot get-primary)"
	assertEquals "get-state b" "good" "$(slot get-state b)"
	assertEquals "after set-primary" "copy0 1 b 14 15 false" \
		"$(j '[.source, .seq, .primary, .slots[0].priority, .slots[1].priority, .slots[1].successful]|join(" ")')"
	assertEquals "both copies written" "true true 1 1" "$(j '[.copies[].valid, .copies[].seq]|join(" ")')"
	booted b
	assertEquals "get-current" "b" "$(slot get-current)"
	assertEquals "mark-good" "slot b marked good (rollback floor 0)" "$(slot mark-good)"
	assertEquals "b successful" "true 3 2" "$(j '[.slots[1].successful, .slots[1].tries, .seq]|join(" ")')"
	slot set-state a bad || fail "set-state a bad"
	assertEquals "get-state a" "bad" "$(slot get-state a)"
	assertEquals "a's reason" "set-state bad" "$(j '.slots[0].reason')"
	slot set-state a good || fail "set-state a good"
	assertEquals "get-state a good again" "good" "$(slot get-state a)"
	assertEquals "mark-bad" "slot b marked bad" "$(slot mark-bad --reason 'verity: "corrupted" \ block 9')"
	# the reason comes from the store, a disk: its line form (docs/design.md, "Names in
	# output"), the backslash doubled, alike in the JSON's value and the text
	assertEquals "reason in json" 'verity: "corrupted" \\ block 9' "$(j '.slots[1].reason')"
	# (compared whole: shunit2's assertContains echoes the text, and dash's echo reads the
	# backslashes)
	assertEquals "reason in text" 'verity: "corrupted" \\ block 9' \
		"$(slot status | sed -n 's/^slot\.b\.reason=//p')"
	assertEquals "primary after mark-bad" "a" "$(slot get-primary)"
}

# The floor rises on mark-good of the running slot only, to the version the agent recorded.
test_floor_rises_only_for_the_running_slot() {
	cp "$SEEDS/b-bad-copy1-newer" "$S"
	assertEquals "seed" "copy1 7 4 a 5" "$(j '[.source, .seq, .floor, .primary, .slots[1].version]|join(" ")')"
	assertEquals "b's reason" "activate: verity table refused by the kernel" "$(j '.slots[1].reason')"
	booted a
	slot set-state b good || fail "set-state b good"
	assertEquals "b good, not running: floor stays" "4" "$(j .floor)"
	slot set-primary b
	booted b
	out=$(slot mark-good --json) || fail "mark-good --json"
	assertEquals "running b marked good: floor is its version" "5" "$(j .floor)"
	assertEquals "mark-good --json, no TPM floor" "b 5 null null null" \
		"$(printf '%s' "$out" | jq -r '[.slot, .floor, .floor_nv, .tpm_floor, .tpm_floor_next_boot]|map(tostring)|join(" ")')"
}

# The floor rule (docs/slots.md, "The floor"): a version may become the floor, the store's now or
# the TPM counter's at the next boot, only from a slot that booted completely as the running slot
# (the status file's slot= with result=ok) and is marked good there. What the next boot raises
# the TPM counter to is a slot the store says is successful with the version it verifies, so
# `successful` is that record. Every verb and every RAUC backend call, the store before and after.
floor_state() {
	j '[.floor, (.slots[]|"\(.name):\(.successful):\(.version)")]|map(tostring)|join(" ")'
}

# RAUC's `mark-good other` from a: `set-state b good` for b, whose version 5 was recorded by a try
# that never finished. b becomes bootable; the floor stays and b is not recorded as successful,
# so the next boot cannot raise the TPM counter to 5 before b has run.
test_set_state_good_of_the_other_slot_does_not_count_for_the_floor() {
	for how in verb rauc; do
		cp "$SEEDS/b-bad-copy1-newer" "$S"
		booted a
		assertEquals "$how: before" "4 a:true:4 b:false:5" "$(floor_state)"
		if [ $how = verb ]; then
			slot set-state b good || fail "set-state b good"
		else
			rauc_call set-state b good || fail "rauc set-state b good"
		fi
		assertEquals "$how: b bootable, reason cleared" "true 3 " \
			"$(j '[.slots[1].bootable, .slots[1].tries, .slots[1].reason]|map(tostring)|join(" ")')"
		assertEquals "$how: floor and the TPM's next-boot target unchanged" "4 a:true:4 b:false:5" \
			"$(floor_state)"
		assertEquals "$how: get-state b" "good" "$(slot get-state b)"
	done
	# a slot that was successful, set good again while not running: no longer counts either
	booted b
	slot set-state a good || fail "set-state a good"
	assertEquals "a set good while b runs" "4 a:false:4 b:false:5" "$(floor_state)"
}

# mark-good (and set-state SLOT good, RAUC's `mark-good`) of the running slot after a complete
# boot raises the floor and records it for the TPM's next boot.
test_mark_good_of_the_running_slot_raises_the_floor() {
	for how in mark-good set-state rauc; do
		cp "$SEEDS/b-bad-copy1-newer" "$S"
		slot set-primary b || fail "set-primary b"
		assertEquals "$how: set-primary leaves the floor" "4 a:true:4 b:false:5" "$(floor_state)"
		booted b
		case $how in
		mark-good) slot mark-good >/dev/null || fail "mark-good" ;;
		set-state) slot set-state b good || fail "set-state b good" ;;
		rauc) rauc_call set-state b good || fail "rauc set-state b good" ;;
		esac
		assertEquals "$how: running b raises the floor to 5" "5 a:true:4 b:true:5" "$(floor_state)"
	done
}

# The agent recorded slot a, but its boot did not complete (result=failed: under dracut a failure
# after setup, the fail actions, maybe a recovery root that runs mark-good.service): a's version
# has not proven itself. mark-good refuses and leaves the store; set-state a good makes it
# bootable only.
test_a_slot_whose_boot_failed_does_not_count_for_the_floor() {
	cp "$SEEDS/b-bad-copy1-newer" "$S"
	slot set-primary b || fail "set-primary b"
	"$RECORDS" status "$(dirname "$ST")" recovery ab cd b "$S" || fail "agent_records status"
	before=$(sha256sum <"$S")
	out=$(slot mark-good 2>&1)
	assertEquals "mark-good: rc" "1" "$?"
	assertEquals "verity-init: slot: slot b did not boot completely (result=failed in $ST): not marked good" "$out"
	assertEquals "store unchanged" "$before" "$(sha256sum <"$S")"
	assertEquals "get-current still says b" "b" "$(slot get-current)"
	slot set-state b good || fail "set-state b good"
	assertEquals "set-state b good: bootable only" "4 a:true:4 b:false:5 true" \
		"$(floor_state) $(j '.slots[1].bootable')"
}

# The verbs that only read never write, and the ones that write lower or keep the floor.
test_other_verbs_leave_the_floor() {
	cp "$SEEDS/b-bad-copy1-newer" "$S"
	booted a
	before=$(sha256sum <"$S")
	for args in "status" "status --json" "get-primary" "get-current" "get-state a" "get-state b"; do
		# shellcheck disable=SC2086  # one word per argument
		slot $args >/dev/null || fail "$args"
		assertEquals "$args: store unchanged" "$before" "$(sha256sum <"$S")"
	done
	for call in "get-primary" "get-current" "get-state a" "get-state b"; do
		# shellcheck disable=SC2086
		rauc_call $call >/dev/null || fail "rauc $call"
		assertEquals "rauc $call: store unchanged" "$before" "$(sha256sum <"$S")"
	done
	slot tpm-floor >/dev/null 2>&1
	assertEquals "tpm-floor: store unchanged" "$before" "$(sha256sum <"$S")"
	rauc_call set-primary b || fail "rauc set-primary b"
	assertEquals "set-primary b" "4 a:true:4 b:false:5" "$(floor_state)"
	rauc_call set-state b bad || fail "rauc set-state b bad"
	assertEquals "set-state b bad" "4 a:true:4 b:false:5" "$(floor_state)"
	slot mark-bad >/dev/null || fail "mark-bad"
	assertEquals "mark-bad of the running a" "4 a:false:4 b:false:5" "$(floor_state)"
}

# The policy's slot_full_read=yes, as the agent writes it into the status file (full_read=yes):
# mark-good and RAUC's set-state good of the running slot read the running mapping first and
# refuse when it cannot be read (here: no such mapping; the VM test reads a real one);
# --no-full-read overrides the default, --full-read asks for it without one.
test_full_read_default_from_the_status_file() {
	booted b
	printf 'full_read=yes\n' >>"$ST"
	sed -i 's/^name=root$/name=vi-test-no-such-mapping/' "$ST"
	before=$(j '[.seq, .slots[1].successful]|join(" ")')
	out=$(slot mark-good 2>&1)
	assertEquals "mark-good refused: rc" "1" "$?"
	assertContains "$out" "slot b: full read of mapping vi-test-no-such-mapping: "
	assertContains "$out" ": not marked good"
	out=$(VERITY_INIT="$VI" VERITY_INIT_STORE="$S" VERITY_INIT_STATUS="$ST" \
		sh "$BACKEND" set-state b good 2>&1)
	assertEquals "RAUC's set-state b good refused: rc" "1" "$?"
	assertContains "$out" "full read of mapping vi-test-no-such-mapping: "
	assertEquals "the store untouched" "$before" "$(j '[.seq, .slots[1].successful]|join(" ")')"
	assertEquals "--no-full-read" "slot b marked good (rollback floor 0)" "$(slot mark-good --no-full-read)"
	# without the default, --full-read asks for it
	booted b
	sed -i 's/^name=root$/name=vi-test-no-such-mapping/' "$ST"
	slot mark-good --full-read >/dev/null 2>&1
	assertEquals "--full-read without the default: rc" "1" "$?"
	slot get-primary --full-read >/dev/null 2>&1
	assertEquals "--full-read with another verb: usage" "2" "$?"
}

test_sequence_wrap() {
	cp "$SEEDS/four-slots-wrap" "$S"
	assertEquals "copy 1 (seq 0) is newer than copy 0 (seq 2^64-1)" "copy1 0 9 4 d" \
		"$(j '[.source, .seq, .floor, (.slots|length), .slots[3].name]|join(" ")')"
	slot set-primary d || fail "set-primary d"
	assertEquals "next seq" "1" "$(j .seq)"
	assertEquals "get-primary" "d" "$(slot get-primary)"
}

test_damaged_copies() {
	slot set-primary b || fail "set-primary"
	# copy 0 (bytes 0..511) damaged: copy 1 holds the same state
	printf 'XXXXXXXX' | dd of="$S" bs=1 seek=40 conv=notrunc status=none
	out=$(slot status)
	assertContains "$out" "copy0=invalid: checksum mismatch"
	assertContains "$out" "source=copy1"
	assertContains "$out" "primary=b"
	# the next write repairs it
	slot set-state a bad || fail "set-state"
	assertEquals "repaired" "true true copy0" "$(j '[.copies[].valid, .source]|join(" ")')"
	# both damaged: the defaults, a bootable slot
	printf 'XXXXXXXX' | dd of="$S" bs=1 seek=40 conv=notrunc status=none
	printf 'XXXXXXXX' | dd of="$S" bs=1 seek=4136 conv=notrunc status=none
	assertEquals "both bad" "defaults a 0" "$(j '[.source, .primary, .floor]|join(" ")')"
	assertEquals "get-primary" "a" "$(slot get-primary)"
}

test_where_the_running_slot_comes_from() {
	out=$("$VI" slot --store "$S" --status "$ST" --cmdline "quiet" get-current 2>&1)
	assertEquals "unknown: rc 1" "1" "$?"
	assertEquals "verity-init: slot: the running slot is not known: no slot= in $ST and no verity.slot= on the kernel command line" "$out"
	assertEquals "command line" "b" "$("$VI" slot --status "$ST" --cmdline "ro verity.slot=a verity.slot=b" get-current)"
	"$VI" slot --status "$ST" --cmdline "verity.slot=a verity.slot=toolongforaslotname" get-current >/dev/null 2>&1
	assertEquals "the last word wins, also when it is no slot name" "1" "$?"
	booted a
	assertEquals "status file first" "a" "$("$VI" slot --status "$ST" --cmdline "verity.slot=b" get-current)"
	booted z
	"$VI" slot --status "$ST" --cmdline "verity.slot=b" get-current >/dev/null 2>&1
	assertEquals "a name that is no slot is ignored, and the A/B boot's record is not replaced by the command line" "1" "$?"
	# the agent ran an A/B boot (store=) and booted no slot (a recovery root runs): the command
	# line does not get to name the running slot, which mark-good would treat as proven
	"$RECORDS" status "$(dirname "$ST")" failed ab poweroff - "$S" || fail "agent_records status"
	"$VI" slot --status "$ST" --cmdline "verity.slot=b" get-current >/dev/null 2>&1
	assertEquals "A/B boot without a booted slot: unknown" "1" "$?"
	"$VI" slot --status "$ST" --cmdline "verity.slot=b" mark-good >/dev/null 2>&1
	assertEquals "mark-good refused" "1" "$?"
	# no status file (a boot the agent did not record): verity.slot= names the running slot for
	# get-current and RAUC, but mark-good refuses: the floor rises on the agent's record only
	rm -f "$ST"
	slot set-primary b || fail "set-primary b"
	before=$(sha256sum <"$S")
	out=$("$VI" slot --store "$S" --status "$ST" --cmdline "verity.slot=b" mark-good 2>&1)
	assertEquals "mark-good without a status file: rc 1" "1" "$?"
	assertEquals "verity-init: slot: slot b: no status file $ST: the agent did not record this boot, and verity.slot= on the command line does not count for the rollback floor: not marked good" "$out"
	assertEquals "store unchanged" "$before" "$(sha256sum <"$S")"
	assertEquals "get-current still answers" "b" "$("$VI" slot --status "$ST" --cmdline "verity.slot=b" get-current)"
	# the store the agent recorded is the default store
	booted a
	"$VI" slot --status "$ST" set-primary b || fail "set-primary through store="
	assertEquals "written to the recorded store" "b" "$(slot get-primary)"
}

test_refusals() {
	out=$("$VI" slot --store "$SHUNIT_TMPDIR/none" status 2>&1)
	assertEquals "missing store: rc" "1" "$?"
	assertEquals "verity-init: slot: cannot open the slot store $SHUNIT_TMPDIR/none: No such file or directory" "$out"
	out=$(slot get-state z 2>&1)
	assertEquals "no such slot: rc" "1" "$?"
	assertEquals "verity-init: slot: no slot 'z' (the store has 2: a..b)" "$out"
	slot mark-good >/dev/null 2>&1
	assertEquals "mark-good without a running slot" "1" "$?"
	for args in "" "frobnicate" "set-state a maybe" "get-state" "status extra" "get-primary --json" \
		"mark-good --reason x" "--store"; do
		# shellcheck disable=SC2086  # one word per argument
		"$VI" slot $args >/dev/null 2>&1
		assertEquals "usage: slot $args" "2" "$?"
	done
	# every slot set bad: get-primary says so
	slot set-state a bad && slot set-state b bad
	out=$(slot get-primary 2>&1)
	assertEquals "none bootable: rc" "1" "$?"
	assertEquals "verity-init: slot: no bootable slot" "$out"
}

# A store too small for its second copy is refused by every verb, readers too, and left as it
# was: its writes could never complete, so no try would ever count.
test_store_smaller_than_two_copies_refused() {
	for size in 0 4096 8191; do
		rm -f "$S"
		truncate -s "$size" "$S"
		out=$(slot status 2>&1)
		assertEquals "$size bytes: status rc" "1" "$?"
		assertEquals "$size bytes" "verity-init: slot: $S: the slot store has $size bytes, fewer than the 8192 its two copies need" "$out"
		slot set-primary b >/dev/null 2>&1
		assertEquals "$size bytes: set-primary rc" "1" "$?"
		assertEquals "$size bytes: not written" "$size" "$(wc -c <"$S")"
		assertEquals "$size bytes: still blank" "" "$(tr -d '\0' <"$S" | head -c 1)"
	done
	rm -f "$S"
	truncate -s 8192 "$S"
	slot set-primary b || fail "8192 bytes: set-primary"
	assertEquals "8192 bytes: written" "b 1" "$(j '[.primary, .seq]|join(" ")')"
	out=$("$VI" slot --store /dev/null status 2>&1)
	assertEquals "not a file or block device" "verity-init: slot: cannot open the slot store /dev/null: Block device required" "$out"
}

# A slot whose last boot failed for a reason the agent did not blame on it (here a mount option
# from the command line, for both slots in one boot) keeps its other tries: it is still good to
# RAUC, still the primary, and the reason is shown.
test_failure_not_blamed_on_the_slot() {
	cp "$SEEDS/boot-failure-not-blamed" "$S"
	assertEquals "both bootable, a primary" "a true true 2 2" \
		"$(j '[.primary, .slots[].bootable, .slots[].tries]|map(tostring)|join(" ")')"
	assertEquals "a's reason" "mount: mounting /dev/mapper/root failed: Invalid argument" "$(j '.slots[0].reason')"
	assertEquals "get-state a" "good" "$(slot get-state a)"
	assertEquals "get-state b" "good" "$(slot get-state b)"
	assertContains "$(slot status)" "slot.b.reason=mount: mounting /dev/mapper/root failed: Invalid argument"
	# mark-good of the slot that then boots clears its reason and gives its tries back
	booted a
	slot mark-good >/dev/null || fail "mark-good"
	assertEquals "a after mark-good" "3  3" "$(j '[.slots[0].tries, .slots[0].reason, .floor]|map(tostring)|join(" ")')"
}

# RAUC calls BACKEND VERB [BOOTNAME [STATE]], takes trimmed stdout and the exit status.
rauc_call() {
	VERITY_INIT=$VI VERITY_INIT_STORE=$S VERITY_INIT_STATUS=$ST "$BACKEND" "$@"
}

test_rauc_backend_as_rauc_calls_it() {
	booted a
	assertEquals "get-primary" "a" "$(rauc_call get-primary)"
	assertEquals "get-current" "a" "$(rauc_call get-current)"
	# an install into b: RAUC marks it bad, writes it, makes it primary
	rauc_call set-state b bad || fail "set-state b bad"
	assertEquals "get-state b" "bad" "$(rauc_call get-state b)"
	assertEquals "get-primary while b is written" "a" "$(rauc_call get-primary)"
	out=$(rauc_call set-primary b)
	assertEquals "set-primary: rc" "0" "$?"
	assertEquals "set-primary prints nothing" "" "$out"
	assertEquals "get-primary" "b" "$(rauc_call get-primary)"
	assertEquals "get-state b" "good" "$(rauc_call get-state b)"
	# after the reboot into b, `rauc status mark-good` = set-state b good
	booted b
	rauc_call set-state b good || fail "set-state b good"
	assertEquals "b successful" "true" "$(j '.slots[1].successful')"
	# what RAUC refuses to take as an answer must not be printed with status 0
	rauc_call get-state c >/dev/null 2>&1
	assertNotEquals "unknown bootname" "0" "$?"
	rauc_call set-state b maybe >/dev/null 2>&1
	assertNotEquals "unknown state" "0" "$?"
	rauc_call get-primary extra >/dev/null 2>&1
	assertEquals "extra argument" "2" "$?"
	rauc_call frobnicate >/dev/null 2>&1
	assertEquals "unknown verb" "2" "$?"
}

# The rauc.service drop-in: rauc gets --override-boot-slot from the agent's record.
test_rauc_service_gets_the_booted_slot() {
	printf '#!/bin/sh\necho "$@"\n' >"$SHUNIT_TMPDIR/rauc"
	chmod 0755 "$SHUNIT_TMPDIR/rauc"
	booted b
	assertEquals "--override-boot-slot=b --mount=/run/rauc service" \
		"$(RAUC=$SHUNIT_TMPDIR/rauc rauc_call run-rauc --mount=/run/rauc service)"
	rm -f "$ST"
	assertEquals "no A/B boot: unchanged" "--mount=/run/rauc service" \
		"$(RAUC=$SHUNIT_TMPDIR/rauc rauc_call run-rauc --mount=/run/rauc service)"
	assertContains "$(cat "$ROOT/rauc/rauc-verity-init.conf")" \
		"ExecStart=/usr/lib/verity-init/verity-init-rauc-backend run-rauc --mount=/run/rauc service"
}

# A boot whose floor is a TPM counter (floor_nv= in the status file): mark-good reads the counter
# (the next boot raises it) before it writes the store, so without the TPM it fails and the
# store is unchanged.
# (The counter itself, under swtpm: tests/vm/slot_tpm_floor_test.sh.)
test_mark_good_with_a_tpm_floor_needs_the_tpm() {
	[ -e /dev/tpmrm0 ] && startSkipping
	booted a
	echo "floor_nv=0x01005649" >>"$ST"
	slot set-primary a || fail "set-primary"
	before=$(sha256sum <"$S")
	out=$(slot mark-good 2>&1)
	assertEquals "mark-good without the TPM" "1" "$?"
	assertEquals "verity-init: slot: rollback floor (TPM NV counter 0x01005649): no TPM (/dev/tpmrm0)" "$out"
	assertEquals "store unchanged" "$before" "$(sha256sum <"$S")"
	out=$(slot tpm-floor 2>&1)
	assertEquals "tpm-floor without the TPM" "1" "$?"
	assertEquals "verity-init: slot: no TPM (/dev/tpmrm0)" "$out"
	# a floor_nv= that is no owner-range index is refused, not sent to a TPM
	booted a
	echo "floor_nv=0x81000001" >>"$ST"
	assertContains "$(slot mark-good 2>&1)" "floor_nv=0x81000001 in the status file is not an NV index"
	rm -f "$ST"
	assertEquals "no A/B boot: mark-good has no running slot" "1" "$(slot mark-good >/dev/null 2>&1; echo $?)"
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
