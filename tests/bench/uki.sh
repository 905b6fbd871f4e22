#!/bin/bash
# shellcheck disable=SC2153 # DATA, HASH, ROOTHASH come from the vars file (vm_verity_setup)
# Benchmark (not a timed test): what the signed-UKI chain costs at boot and on the ESP.
#
#   uki     OVMF with Secure Boot (snakeoil db) -> signed UKI (systemd-stub + kernel + the agent's
#           initramfs + .cmdline) -> agent -> verified root   (tests/vm/lib-uefi.sh)
#   direct  the same kernel, initramfs and command line booted by QEMU straight away (-kernel,
#           the harness's default: qboot, uncompressed vmlinux through PVH)  (tests/vm/lib.sh)
#   bzimage the same, but QEMU given the bzImage itself (it decompresses itself in the guest, as
#           inside the UKI): separates the firmware's share from the decompression's
#
# Same root image, boots alternating, BENCH_RUNS each (default 3); prints the median wall time
# from QEMU start to power-off, the median guest uptime at the root's marker, the ratios uki /
# direct, and the UKI's size against its parts (kernel + initramfs). TCG.
# Environment: BUILD, BENCH_RUNS, VM_KERNEL_SERIES (6.1 by default), VM_* (tests/vm/lib.sh).
set -uo pipefail

RUNS=${BENCH_RUNS:-3}
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/../vm/lib.sh" || exit 1
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/../vm/agent_lib.sh" || exit 1
# shellcheck source=tests/vm/lib-uefi.sh
. "$(dirname "$0")/../vm/lib-uefi.sh" || exit 1
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh" || exit 1
export VM_ACCEL=tcg
# vm_boot and uefi_boot take shunit2's fail only in assertions; define it for this script
fail() { echo "bench: $*" >&2; }

uefi_require || exit 1
d=$(vm_workdir bench-uki)
vm_verity_setup ext4 "$d" >/dev/null || exit 1
# shellcheck source=/dev/null
. "$d/vars"
# shellcheck disable=SC2119
rd=$(agent_initramfs) || exit 1
cl="roothash=$ROOTHASH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root verity.fail=poweroff"
uefi_uki "$d/uki.efi" "$rd" "$cl" || exit 1
uefi_esp "$d/esp.img" "$d/uki.efi" || exit 1

echo "bench-uki: kernel $VM_KERNEL, $RUNS runs each, TCG, load $(cut -d' ' -f1-3 /proc/loadavg)"
uw=() um=() dw=() dm=() bw=() bm=()
for (( i = 1; i <= RUNS; i++ )); do
	if ! { uefi_boot --disk "$DATA" --disk "$HASH" "bench-uki-$i" "$d/esp.img" 2>/dev/null &&
		m=$(vm_marker_uptime "$VM_LOG"); }; then echo "bench-uki: UKI boot $i failed ($VM_LOG)"; exit 1; fi
	uw+=("$VM_WALL") um+=("$m")
	if ! { vm_boot --disk "$DATA" --disk "$HASH" "bench-direct-$i" "$rd" "$cl" 2>/dev/null &&
		m=$(vm_marker_uptime "$VM_LOG"); }; then echo "bench-uki: direct boot $i failed ($VM_LOG)"; exit 1; fi
	dw+=("$VM_WALL") dm+=("$m")
	if ! { ( VM_BOOT_KERNEL=$VM_KERNEL; vm_boot --disk "$DATA" --disk "$HASH" "bench-bzimage-$i" "$rd" "$cl" 2>/dev/null &&
		echo "$VM_WALL $(vm_marker_uptime "$VM_LOG")" >"$d/bz" ) && read -r w m <"$d/bz"; }; then
		echo "bench-uki: bzImage boot $i failed"; exit 1
	fi
	bw+=("$w") bm+=("$m")
	echo "  run $i: uki ${uw[-1]} s wall (marker ${um[-1]} s), direct ${dw[-1]} s wall (marker ${dm[-1]} s), bzImage ${bw[-1]} s wall (marker ${bm[-1]} s)"
done
UW=$(median "${uw[@]}") UM=$(median "${um[@]}") DW=$(median "${dw[@]}") DM=$(median "${dm[@]}")
BW=$(median "${bw[@]}") BM=$(median "${bm[@]}")
ks=$(vm_size "$VM_KERNEL") is=$(vm_size "$rd") us=$(vm_size "$d/uki.efi")
awk -v uw="$UW" -v um="$UM" -v dw="$DW" -v dm="$DM" -v bw="$BW" -v bm="$BM" -v ks="$ks" -v is="$is" -v us="$us" 'BEGIN {
	printf "bench-uki: wall to power-off (median): uki %.2f s, direct %.2f s, ratio %.2f (+%.2f s)\n", uw, dw, uw / dw, uw - dw
	printf "bench-uki: bzImage via -kernel (median): %.2f s wall, marker %.2f s; uki / bzImage %.2f (+%.2f s: OVMF with Secure Boot and the stub)\n", bw, bm, uw / bw, uw - bw
	printf "bench-uki: guest uptime at the marker (median): uki %.2f s, direct %.2f s, ratio %.2f\n", um, dm, um / dm
	printf "bench-uki: UKI %d bytes = kernel %d + initramfs %d + %d (stub, .osrel, .cmdline, alignment, signature); ratio to kernel+initramfs %.3f\n", us, ks, is, us - ks - is, us / (ks + is)
}'
