#!/bin/bash
# Benchmark (not a timed test): the full read of `verity-init scrub` (1 MiB O_DIRECT reads at the
# idle I/O class, every block checked by dm-verity) against a plain sequential read of the same
# mapping in the same boot (`dd bs=1M` through the page cache, the caches dropped before each
# read): both go through dm-verity, so both rates include its hashing; the ratio says what the
# scrub's own way of reading costs. One boot of the vm tests' kernel under QEMU: an ext4 root
# with a 96 MiB file of random bytes; its init alternates the two reads BENCH_RUNS times
# (default 5) and prints each one's time from /proc/uptime.
# Environment: BUILD, BENCH_RUNS, VM_* (tests/vm/lib.sh).
set -uo pipefail

RUNS=${BENCH_RUNS:-5}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/../vm/lib.sh" || exit 1
# shellcheck source=tests/vm/agent_lib.sh
. "$here/../vm/agent_lib.sh" || exit 1
# shellcheck source=tests/bench/lib.sh
. "$here/lib.sh" || exit 1

w=$(vm_workdir bench-scrub)
t=$w/tree
rm -rf "$t"
vm_rootfs_tree "$t" main || exit 1
mkdir -p "$t/usr/sbin" && cp "$VM_AGENT" "$t/usr/sbin/verity-init" || exit 1
for a in dd sed; do ln -sf busybox "$t/bin/$a" || exit 1; done
head -c $(( 96 << 20 )) /dev/urandom >"$t/data.bin" || exit 1
cat >"$t/etc/vm-root-hook" <<HOOK
up() { read -r u _ </proc/uptime; echo "\$u"; }
for i in \$(seq $RUNS); do
	echo 3 >/proc/sys/vm/drop_caches; a=\$(up)
	dd if=/dev/mapper/root of=/dev/null bs=1M 2>/dev/null; b=\$(up)
	echo "BENCH-SCRUB plain \$i \$a \$b"
	echo 3 >/proc/sys/vm/drop_caches; a=\$(up)
	/usr/sbin/verity-init scrub --quiet root >/dev/null; rc=\$?; b=\$(up)
	echo "BENCH-SCRUB scrub \$i \$a \$b rc=\$rc"
done
HOOK
ln -sf busybox "$t/bin/seq" || exit 1
vm_mkfs ext4 "$t" "$w/data.img" || exit 1
rm -f "$w/hash.img"
rh=$(vm_verity_format "$VM_VERITY_TOOL" "$w/data.img" "$w/hash.img") || exit 1
rd=$(agent_initramfs) || exit 1

echo "bench-scrub: kernel $VM_KERNEL, $RUNS runs, $(vm_accel), load $(cut -d' ' -f1-3 /proc/loadavg)"
if ! vm_boot --timeout 900 --mem 768 --disk "$w/data.img" --disk "$w/hash.img" bench-scrub "$rd" \
	"roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root verity.fail=poweroff" ||
   ! vm_marker_uptime "$VM_LOG" >/dev/null; then
	echo "bench-scrub: the boot failed ($VM_LOG)"; exit 1
fi
# the mapping covers the whole data image (its data blocks)
size=$(vm_size "$w/data.img")
grep -a 'rc=[1-9]' <(grep -a '^BENCH-SCRUB scrub' "$VM_LOG") && { echo "bench-scrub: a scrub failed"; exit 1; }
ps=() ss=() rs=()
for (( i = 1; i <= RUNS; i++ )); do
	p=$(grep -a "^BENCH-SCRUB plain $i " "$VM_LOG" | awk '{ print $5 - $4 }')
	s=$(grep -a "^BENCH-SCRUB scrub $i " "$VM_LOG" | awk '{ print $5 - $4 }')
	if [ -z "$p" ] || [ -z "$s" ]; then echo "bench-scrub: run $i missing in $VM_LOG"; exit 1; fi
	ps+=("$p") ss+=("$s") rs+=("$(awk -v p="$p" -v s="$s" 'BEGIN { print p / s }')")
	awk -v n="$size" -v p="$p" -v s="$s" -v i="$i" 'BEGIN {
		printf "  run %d: plain read %.2f s (%.1f MiB/s), scrub %.2f s (%.1f MiB/s)\n", i, p, n / p / 1048576, s, n / s / 1048576 }'
done
awk -v n="$size" -v p="$(median "${ps[@]}")" -v s="$(median "${ss[@]}")" -v r="$(median "${rs[@]}")" 'BEGIN {
	printf "bench-scrub: %.0f MiB mapping; medians: plain read %.1f MiB/s, scrub %.1f MiB/s; scrub rate / plain rate %.2f (median of the runs)\n", n / 1048576, n / p / 1048576, n / s / 1048576, r }'
