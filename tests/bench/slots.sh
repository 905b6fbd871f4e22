#!/bin/bash
# Benchmark (not a timed test): the A/B slot step's own time, read from the agent's kmsg record
#   "slot a: try taken, ... (store written in W us; the slot step N us own: read R us,
#    decision D us)"
# (docs/slots.md): reading the state store, the decision (the policy's slot count, the skip
# list, the pick, the version admission), apart from the store write with its fsync (W) and
# the slot's signed manifest (the signature step). Two slots of the vm tests' ext4 root, a store
# that already holds a state (as on every boot after the first), put back before each boot.
# Anchor: the agent's own time for the whole boot in the same run ("agent time ... N ms own").
# BENCH_RUNS boots (default 5). Environment: BUILD, BENCH_RUNS, VM_* (tests/vm/lib.sh).
set -uo pipefail

RUNS=${BENCH_RUNS:-5}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/../vm/lib.sh" || exit 1
# shellcheck source=tests/vm/agent_lib.sh
. "$here/../vm/agent_lib.sh" || exit 1
# shellcheck source=tests/vm/sign_lib.sh
. "$here/../vm/sign_lib.sh" || exit 1
# shellcheck source=tests/vm/slot_lib.sh
. "$here/../vm/slot_lib.sh" || exit 1
# shellcheck source=tests/bench/lib.sh
. "$here/lib.sh" || exit 1

w=$(vm_workdir bench-slots)
rd=$(sign_initramfs "slots=a,b") || exit 1
for s in a b; do
	VM_ROOT_ID=slot$s vm_verity_setup ext4 "$w/$s" >/dev/null || exit 1
	"$VI_TOOL" sign "$w/$s/hash.img" --data-device "PARTLABEL=root-$s" \
		--hash-device "PARTLABEL=root-$s-verity" --minisign-key "$SIGN_KEYS/test.key" \
		--version 3 --embed >/dev/null || exit 1
done
slot_disks "$w" "$w/a" "$w/b" || exit 1
# a store that has been written: slot a primary with its tries
truncate -s 8192 "$w/store.bin" && "$BUILD/verity-init" slot --store "$w/store.bin" set-primary a \
	>/dev/null || exit 1

# field LOG SED-REGEX : the first value the regex's group captures in the agent's records
field() { grep -a 'verity-init\[1\]' "$1" | sed -n "s/$2/\\1/p" | head -n 1; }

echo "bench-slots: kernel $VM_KERNEL, $RUNS runs, TCG, load $(cut -d' ' -f1-3 /proc/loadavg)"
ss=() rs=() ds=() ws=() os=()
for (( i = 1; i <= RUNS; i++ )); do
	slot_store_put "$w" || exit 1
	if ! vm_boot --disk "$w/slots.img" --disk-rw "$w/store.img" "bench-slots-$i" "$rd" \
		"root=/dev/mapper/root verity.fail=poweroff" 2>/dev/null ||
	   ! vm_marker_uptime "$VM_LOG" >/dev/null; then
		echo "bench-slots: boot $i failed ($VM_LOG)"; exit 1
	fi
	ws+=("$(field "$VM_LOG" '.*try taken.*(store written in \([0-9]*\) us;.*')")
	ss+=("$(field "$VM_LOG" '.*try taken.*the slot step \([0-9]*\) us own.*')")
	rs+=("$(field "$VM_LOG" '.*try taken.* read \([0-9]*\) us, decision.*')")
	ds+=("$(field "$VM_LOG" '.*try taken.* decision \([0-9]*\) us).*')")
	os+=("$(field "$VM_LOG" '.*agent time .* device wait, \([0-9]*\) ms own.*')")
	if [ -z "${ss[-1]}" ] || [ -z "${os[-1]}" ]; then echo "bench-slots: no record in $VM_LOG"; exit 1; fi
	echo "  run $i: slot step ${ss[-1]} us own (read ${rs[-1]} us, decision ${ds[-1]} us), store write ${ws[-1]} us; agent ${os[-1]} ms own"
done
awk -v s="$(median "${ss[@]}")" -v r="$(median "${rs[@]}")" -v d="$(median "${ds[@]}")" \
    -v w="$(median "${ws[@]}")" -v o="$(median "${os[@]}")" 'BEGIN {
	printf "bench-slots: medians: slot step %.2f ms own (read %.2f ms, decision %.2f ms), store write with fsync %.2f ms; agent own time %d ms\n", s / 1000, r / 1000, d / 1000, w / 1000, o
	printf "bench-slots: share of the agent own time: slot step %.3f, store write %.3f\n", s / 1000 / o, w / 1000 / o
}'
