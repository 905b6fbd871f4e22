#!/bin/bash
# Standalone initramfs images from verity-init-mkinitramfs: size and boot time per compression.
# Builds one image per method (the static agent, the virtio disk driver, dm-verity with its
# default companions, ext4), then boots them round-robin N times each (ext4 root, systemd keys,
# QEMU/TCG) and prints per method: image size, medians of the kernel's unpacking time (from
# "Trying to unpack rootfs image" to "Freeing initrd memory": decompressing and writing the
# files, which /init waits for), of the "Run /init" timestamp, of the agent's module loading
# and own time, and of the guest uptime at the root's marker. The unpacking time is the figure
# that depends on the method; the others carry the host's noise.
# A method is a --compress word, alone (the tool's default for the modules) or with "-kept"
# (--keep-compressed-modules: .ko.xz as the kernel ships them, decompressed by the kernel at
# finit_module, which the module loading time shows) or "-decompressed" (--decompress-modules);
# e.g. "gzip-kept gzip-decompressed" on the 6.12 kernel (VM_KERNEL_SERIES=6.12), whose modules
# are .ko.xz.
# Usage: BUILD=... tests/bench/initramfs.sh [N] [METHODS] (default 3, "gzip xz zstd lz4 none")
set -u
n=${1:-3}
methods=${2:-gzip xz zstd lz4 none}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/../vm/lib.sh" || exit 1
# shellcheck source=tests/vm/agent_lib.sh
. "$here/../vm/agent_lib.sh" || exit 1
# shellcheck source=tests/bench/lib.sh
. "$here/lib.sh" || exit 1
mkrd=$here/../../verity-init/mkinitramfs/verity-init-mkinitramfs.sh

d=$(vm_workdir bench-initramfs)
rh=$(vm_verity_setup ext4 "$d") || exit 1
for m in $methods; do
	case $m in
	*-kept) mods=(--keep-compressed-modules) ;;
	*-decompressed) mods=(--decompress-modules) ;;
	*) mods=() ;;
	esac
	"$mkrd" -k "$VM_KVER" -a "$VM_AGENT" -m "virtio_pci virtio_blk" -f ext4 -z "${m%-*}" \
		"${mods[@]}" "$d/rd-$m.img" >/dev/null || exit 1
done

rows=$d/rows
: >"$rows"
printf 'round method unpack_s run_init_s modules_ms own_ms marker_s\n'
for i in $(seq 1 "$n"); do
	for m in $methods; do
		vm_boot --disk "$d/data.img" --disk "$d/hash.img" "bench-initramfs-$m-$i" "$d/rd-$m.img" \
			"roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root rootfstype=ext4" \
			2>/dev/null || { echo "$m run $i: boot failed (log $VM_LOG)" >&2; exit 1; }
		stamp() { grep -a "$1" "$VM_LOG" | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p' | head -n 1; }
		run=$(stamp 'Run /init as init process')
		unpack=$(awk -v a="$(stamp 'Trying to unpack rootfs image')" -v b="$(stamp 'Freeing initrd memory')" \
			'BEGIN { if (a != "" && b != "") printf "%.3f", b - a }')
		rec=$(grep -a -o 'agent time [0-9]* ms: [0-9]* ms module loading, [0-9]* ms device wait, [0-9]* ms own' "$VM_LOG" |
			awk '{ print $5, $13 }')
		up=$(vm_marker_uptime "$VM_LOG") || { echo "$m run $i: no marker (log $VM_LOG)" >&2; exit 1; }
		{ [ -n "$run" ] && [ -n "$rec" ] && [ -n "$unpack" ]; } || { echo "$m run $i: no timestamps (log $VM_LOG)" >&2; exit 1; }
		printf '%s %s %s %s %s %s\n' "$i" "$m" "$unpack" "$run" "$rec" "$up" | tee -a "$rows"
	done
done

printf '\nmethod size_bytes median_unpack_s median_run_init_s median_modules_ms median_own_ms median_marker_s\n'
for m in $methods; do
	printf '%s %s' "$m" "$(stat -c %s "$d/rd-$m.img")"
	for c in 3 4 5 6 7; do
		# shellcheck disable=SC2046  # one column's values as words
		printf ' %s' "$(median $(awk -v m="$m" -v c="$c" '$2 == m { print $c }' "$rows"))"
	done
	printf '\n'
done
echo "static agent: $(stat -c %s "$VM_AGENT") bytes; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
