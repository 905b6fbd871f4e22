#!/bin/bash
# The agent's own time as PID 1: boots the standalone agent initramfs N times
# (ext4 root, systemd keys, QEMU/TCG) and reads the agent's "exec /sbin/init (agent time T ms:
# M ms module loading, W ms device wait, O ms own)" record, plus the guest uptime at the root's
# marker. Prints every run and the medians. Usage: BUILD=... tests/bench/agent_time.sh [N] [EXTRA]
# (EXTRA: more kernel command line, e.g. rootfstype=ext4). BENCH_MODULES="m1 m2 ..." builds the
# initramfs with only those modules (default: the harness's full list, all three filesystems).
set -u
n=${1:-5}
cmdline_extra=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/../vm/lib.sh" || exit 1
# shellcheck source=tests/vm/agent_lib.sh
. "$here/../vm/agent_lib.sh" || exit 1
# shellcheck source=tests/bench/lib.sh
. "$here/lib.sh" || exit 1

# shellcheck disable=SC2119 # agent_initramfs without options
if [ -n "${BENCH_MODULES:-}" ]; then
	rd=$(agent_initramfs --modules "$BENCH_MODULES") || exit 1
else
	rd=$(agent_initramfs) || exit 1
fi
d=$(vm_workdir bench-agent-time)
rh=$(vm_verity_setup ext4 "$d") || exit 1
printf 'run total_ms modules_ms wait_ms own_ms marker_s\n'
rows=""
for i in $(seq 1 "$n"); do
	vm_boot --disk "$d/data.img" --disk "$d/hash.img" "bench-agent-time-$i" "$rd" \
		"roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root $cmdline_extra" \
		2>/dev/null || { echo "run $i: boot failed (log $VM_LOG)" >&2; exit 1; }
	row=$(grep -a -o 'agent time [0-9]* ms: [0-9]* ms module loading, [0-9]* ms device wait, [0-9]* ms own' "$VM_LOG" |
		awk '{ print $3, $5, $9, $13 }')
	up=$(vm_marker_uptime "$VM_LOG") || { echo "run $i: no marker (log $VM_LOG)" >&2; exit 1; }
	[ -n "$row" ] || { echo "run $i: no agent time record (log $VM_LOG)" >&2; exit 1; }
	printf '%s %s %s\n' "$i" "$row" "$up"
	rows="$rows$row $up
"
done
printf 'median'
for c in 1 2 3 4 5; do
	# shellcheck disable=SC2046  # one column's values as words
	printf ' %s' "$(median $(printf '%s' "$rows" | awk -v c="$c" '{ print $c }'))"
done
printf '\n'
echo "static agent: $(stat -c %s "$VM_AGENT") bytes stripped ($VM_AGENT); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
