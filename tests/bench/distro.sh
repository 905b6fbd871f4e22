#!/bin/bash
# Benchmark (not a timed test): a real distribution's boot through each initramfs. The Debian
# root of tests/vm/lib-debian.sh (bookworm, or trixie with VM_DEBIAN_SUITE=trixie; systemd as
# PID 1, dracut and the packages of `make deb` installed), verified (erofs and its hash tree on a
# second disk), booted with systemd.volatile=state to multi-user.target by the same kernel
# (VM_KVER: Debian's 6.1 by default; VM_KERNEL_SERIES=6.12 for Debian 13's series), with the
# same disks and the same command line, through:
#
#   agent     the standalone initramfs of verity-init-mkinitramfs (the static agent as /init,
#             -m "virtio_pci virtio_blk", default filesystems and compression: gzip)
#   agent-erofs  the same made for this root's filesystem only (-f erofs): the agent loads every
#             module of its image, systemd only those asked for, so the default image's ext4
#             and squashfs drivers cost the agent what they never cost the anchor
#   shell     dracut's shell init + the verity-init module   } generated inside the root by its
#   systemd   systemd in the initramfs + the verity-init module } own dracut (059; dracut-ng 106
#                                                                 on trixie), gzip
#   anchor    systemd in the initramfs + dracut's systemd-veritysetup module, no verity-init
#             (roothash= + systemd.verity_root_data= + systemd.verity_root_hash=)
#
# Boots alternate between the variants (agent shell systemd anchor, agent ...), BENCH_RUNS rounds.
# Per boot, from the console: the marker's uptime once systemd reports the boot finished
# (`systemctl is-system-running --wait` in tests/vm/debian-root-hook.sh), `systemd-analyze time`
# (kernel, initrd, userspace), the time in the initramfs = the root's systemd start (kernel +
# initrd of systemd-analyze) minus the kernel's "Run /init" timestamp, the kernel's unpacking of
# the image (before "Run /init", not in that time), and the standalone agent's own record. Prints
# the medians, ratios to the anchor, the image sizes (gzip and raw) and the targets: the agent's
# time in the initramfs <= 15 % of the anchor's; each dracut + module variant <= the anchor.
#
# Environment: BUILD, BENCH_RUNS (3), BENCH_VARIANTS ("agent agent-erofs shell systemd anchor"),
# VM_DEBIAN_SUITE (bookworm, or trixie), VM_KERNEL_SERIES (6.1, 6.12, 7),
# DEB_PKGDIR ($BUILD/deb, where `make deb` is run again when the packages are missing or stale),
# DEB_TIMEOUT (300 s per boot), VM_* (tests/vm/lib.sh).
set -uo pipefail

RUNS=${BENCH_RUNS:-3}
VARIANTS=${BENCH_VARIANTS:-agent agent-erofs shell systemd anchor}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/../vm/lib.sh" || exit 1
# shellcheck source=tests/vm/lib-debian.sh
. "$here/../vm/lib-debian.sh" || exit 1
# shellcheck source=tests/bench/lib.sh
. "$here/lib.sh" || exit 1
export VM_ACCEL=tcg   # as the other boot benches: comparable across runs and machines
DEB_PKGDIR=${DEB_PKGDIR:-$BUILD/deb}
DEB_TIMEOUT=${DEB_TIMEOUT:-300}

echo "bench-distro: command: BUILD=$BUILD BENCH_RUNS=$RUNS BENCH_VARIANTS='$VARIANTS' VM_DEBIAN_SUITE=$DEB_SUITE VM_KERNEL_SERIES=$VM_KERNEL_SERIES tests/bench/distro.sh"
echo "bench-distro: $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), Debian $DEB_SUITE, kernel $VM_KVER, TCG"
vm_require_tools qemu-system-x86_64 mmdebstrap mkfs.erofs || exit 1
{ [ -x "$VI_STATIC" ] && [ -x "$VI_IMAGE" ]; } || { echo "bench-distro: make all static first" >&2; exit 1; }

# The root with dracut and the packages (made again when missing or older than a source), and
# the anchor's image generated inside it too.
if [ "$DEB_PKGDIR" = "$BUILD/deb" ]; then debian_make_deb || exit 1; fi
debian_use_packages "$DEB_PKGDIR" || exit 1
# Debian 13: the root of tests/vm/debian13_test.sh (the same images)
if [ "$DEB_SUITE" = bookworm ]; then DEB_EXTRA_ARGS+=(anchor); else debian_trixie_images || exit 1; fi
debian_verity erofs || exit 1
W=$(vm_workdir bench-distro)
declare -A IMG NAME
NAME=([agent]="standalone agent" [agent-erofs]="standalone agent, -f erofs" [shell]="dracut shell + module" [systemd]="dracut systemd + module"
	[anchor]="dracut systemd + systemd-veritysetup")
for v in $VARIANTS; do
	case $v in
	agent | agent-erofs)
		IMG[$v]=$W/initrd-$v.img
		fs=()
		[ "$v" = agent-erofs ] && fs=(-f erofs)
		"$here/../../verity-init/mkinitramfs/verity-init-mkinitramfs.sh" -k "$VM_KVER" -a "$VI_STATIC" \
			-m "virtio_pci virtio_blk" "${fs[@]}" "${IMG[$v]}" >"$W/mkrd.out" 2>&1 ||
			{ cat "$W/mkrd.out" >&2; exit 1; } ;;
	shell | systemd) IMG[$v]=$(debian_initrd "$v") || exit 1 ;;
	anchor) IMG[anchor]=$(debian_initrd systemd-veritysetup) || exit 1 ;;
	*) echo "bench-distro: unknown variant $v" >&2; exit 2 ;;
	esac
done
CMD="$("$VI_IMAGE" cmdline "$DEB_HASH" /dev/vda /dev/vdb "$DEB_ROOTHASH") root=/dev/mapper/root verity.fail=poweroff systemd.volatile=state" ||
	exit 1
echo "bench-distro: root $DEB_DATA ($(vm_size "$DEB_DATA") bytes), command line: $CMD"

# stamp LOG REGEX : the kernel timestamp (s) of the first console line matching REGEX
stamp() { grep -a -m1 -- "$2" "$1" | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p'; }

# analyze LOG FIELD : systemd-analyze's figure (s) for FIELD (kernel, initrd, userspace); nothing
# when the line has no such figure. Its values read "845ms", "2.015s", "1min 3.456s".
analyze() {
	debian_line "$1" VERITY-TEST-ANALYZE | awk -v f="($2)" '{
		sub(/.*Startup finished in /, ""); sub(/ = .*/, "")
		n = split($0, part, / \+ /)
		for (i = 1; i <= n; i++) {
			k = split(part[i], w, " ")
			if (w[k] != f) continue
			s = 0
			for (j = 1; j < k; j++) {
				v = w[j]
				if (v ~ /min$/) s += v * 60
				else if (v ~ /ms$/) s += v / 1000
				else if (v ~ /us$/) s += v / 1e6
				else if (v ~ /h$/) s += v * 3600
				else s += v
			}
			printf "%.3f\n", s
		}
	}'
}

declare -A UP INRD UNPACK SAK SAI SAU OWN
for (( i = 1; i <= RUNS; i++ )); do
	for v in $VARIANTS; do
		if ! vm_boot --timeout "$DEB_TIMEOUT" --mem "$DEB_MEM" --disk "$DEB_DATA" --disk "$DEB_HASH" \
			"bench-distro-$v-$i" "${IMG[$v]}" "$CMD" 2>/dev/null; then
			echo "bench-distro: run $i $v FAILED (log $VM_LOG)"; continue
		fi
		l=$(debian_line "$VM_LOG" "$VM_MARKER") || l=""
		case $l in
		*" state=running"*) ;;
		*) echo "bench-distro: run $i $v FAILED: not running: '${l:-no marker}' (log $VM_LOG)"; continue ;;
		esac
		up=$(vm_marker_uptime "$VM_LOG")
		run=$(stamp "$VM_LOG" 'Run /init as init process')
		sk=$(analyze "$VM_LOG" kernel) si=$(analyze "$VM_LOG" initrd) su=$(analyze "$VM_LOG" userspace)
		unpack=$(awk -v a="$(stamp "$VM_LOG" 'Trying to unpack rootfs image')" \
			-v b="$(stamp "$VM_LOG" 'Freeing initrd memory')" 'BEGIN { if (a != "" && b != "") printf "%.3f", b - a }')
		if [ -z "$run" ] || [ -z "$sk" ] || [ -z "$su" ]; then
			echo "bench-distro: run $i $v FAILED: no 'Run /init' or systemd-analyze line (log $VM_LOG)"; continue
		fi
		inrd=$(awk -v k="$sk" -v i="${si:-0}" -v r="$run" 'BEGIN { printf "%.3f", k + i - r }')
		UP[$v]="${UP[$v]:-} $up" INRD[$v]="${INRD[$v]:-} $inrd" UNPACK[$v]="${UNPACK[$v]:-} $unpack"
		SAK[$v]="${SAK[$v]:-} $sk" SAI[$v]="${SAI[$v]:-} ${si:-}" SAU[$v]="${SAU[$v]:-} $su"
		own=""
		if [ "${v%-erofs}" = agent ]; then
			own=$(grep -a -o 'agent time [0-9]* ms: [0-9]* ms module loading, [0-9]* ms device wait, [0-9]* ms own' "$VM_LOG" |
				awk '{ print $3 "/" $5 "/" $9 "/" $13 }')
			OWN[$v]="${OWN[$v]:-} ${own:-}"
		fi
		echo "bench-distro: run $i $v: marker ${up}s, in the initramfs ${inrd}s (Run /init ${run}s), unpacking ${unpack:-?}s, systemd-analyze kernel ${sk}s${si:+ initrd ${si}s} userspace ${su}s${own:+, agent total/modules/wait/own ${own} ms} (${VM_WALL}s wall, load $(cut -d' ' -f1 /proc/loadavg))"
	done
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%.3f", a / b; else print "-" }'; }
med() { median "$@"; }
# shellcheck disable=SC2086 # word lists on purpose
a_up=$(med ${UP[anchor]:-}) a_in=$(med ${INRD[anchor]:-})
a_size=$( [ -n "${IMG[anchor]:-}" ] && vm_size "${IMG[anchor]}")
echo
echo "| variant | boots | marker uptime (s) | vs anchor | in the initramfs (s) | vs anchor | unpacking (s) | systemd-analyze kernel / initrd / userspace (s) | image gzip / raw (bytes) | size vs anchor |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for v in $VARIANTS; do
	# shellcheck disable=SC2086
	m=$(med ${UP[$v]:-}) mi=$(med ${INRD[$v]:-}) n=$(printf '%s\n' ${UP[$v]:-} | grep -c .)
	sz=$(vm_size "${IMG[$v]}")
	# shellcheck disable=SC2086
	printf '| %s | %s | %s | %s | %s | %s | %s | %s / %s / %s | %s / %s | %s |\n' "${NAME[$v]}" "$n" \
		"${m:--}" "$(ratio "$m" "$a_up")" "${mi:--}" "$(ratio "$mi" "$a_in")" "$(med ${UNPACK[$v]:-})" \
		"$(med ${SAK[$v]:-})" "$(med ${SAI[$v]:-} | grep . || echo -)" "$(med ${SAU[$v]:-})" \
		"$sz" "$(zcat "${IMG[$v]}" | wc -c)" "$(ratio "$sz" "$a_size")"
done
for v in agent agent-erofs; do
	[ -n "${OWN[$v]:-}" ] || continue
	echo "bench-distro: ${NAME[$v]}'s record, total / module loading / device wait / own (ms):${OWN[$v]}"
	# shellcheck disable=SC2086,SC2046 # word lists on purpose
	for c in 1 2 3 4; do printf '%s ' "$(med $(printf '%s\n' ${OWN[$v]} | cut -d/ -f$c))"; done |
		awk '{ printf "bench-distro: medians: total %s ms, module loading %s ms, device wait %s ms, own %s ms\n", $1, $2, $3, $4 }'
done
# shellcheck disable=SC2086
if [ -n "$a_in" ]; then
	for v in agent agent-erofs; do
		[ -n "${INRD[$v]:-}" ] || continue
		r=$(ratio "$(med ${INRD[$v]:-})" "$a_in")
		echo "bench-distro: target: ${NAME[$v]} in the initramfs <= 0.15 of the anchor's: $r ($(awk -v r="$r" 'BEGIN { print (r != "-" && r <= 0.15) ? "met" : "NOT met" }'))"
	done
	for v in shell systemd; do
		[ -n "${INRD[$v]:-}" ] || continue
		r=$(ratio "$(med ${INRD[$v]:-})" "$a_in") ru=$(ratio "$(med ${UP[$v]:-})" "$a_up")
		echo "bench-distro: target: ${NAME[$v]} <= the anchor: in the initramfs $r, marker uptime $ru ($(awk -v r="$r" -v u="$ru" 'BEGIN { print (r != "-" && r <= 1 && u <= 1) ? "met" : "NOT met" }'))"
	done
fi
echo "bench-distro: load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
