#!/bin/bash
# shellcheck disable=SC2153 # DATA, HASH, ROOTHASH come from the vars file (vm_verity_setup)
# Benchmark (not a timed test): initramfs variants booting the same verity root, issues 4 and 5.
#
#   agent     standalone initramfs: the static verity-init as /init plus the kernel modules
#   systemd   dracut + systemd + systemd-veritysetup (roothash= + systemd.verity_root_*): the
#             anchor users compare with
#   module    dracut shell init + the verity-init module (the test image of dracut_shell_test.sh)
#   dmsetup   the same dracut module set with a minimal hook instead: one `dmsetup create` with a
#             precomputed table in the initqueue (the minimal dracut baseline)
#
# Same kernel, same ext4 root image, boots alternating between the variants, BENCH_RUNS each;
# prints the median guest uptime at the root's marker (its /sbin/init), the median time spent in
# the initramfs (marker minus the kernel's "Run /init" timestamp: the kernel's own start-up,
# identical for all variants, is the noisiest part on a loaded host), ratios to the systemd
# anchor and to the dmsetup baseline, the initramfs sizes (raw cpio and gzip), and the agent's own
# time from its kmsg record (start to exec of init, module loading and device wait excluded).
# Targets: agent <= 40 % of systemd; agent's own time <= 50 ms on TCG; module within 5 % of
# dmsetup and faster than systemd.
#
# Environment: BUILD (build dir, with the agent built), BENCH_RUNS (5), BENCH_VARIANTS (all four),
# VM_* (tests/vm/lib.sh).
set -uo pipefail

RUNS=${BENCH_RUNS:-5}
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/../vm/lib.sh" || exit 1
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/../vm/agent_lib.sh" || exit 1
VARIANTS=${BENCH_VARIANTS:-agent systemd module dmsetup}
export VM_ACCEL=tcg   # the anchors in measurements.md are TCG numbers

# The baseline's dracut module: root=/dev/mapper/root, rd.skipfsck, and one initqueue job that
# runs dmsetup with the table from bench.table= (commas for spaces).
bench_dmsetup_module() {
	local d=$1
	mkdir -p "$d"
	cat >"$d/module-setup.sh" <<'EOF'
#!/bin/bash
check() { return 255; }
depends() { echo dm rootfs-block; }
installkernel() { hostonly='' instmods dm-verity; }
install() {
	inst_hook cmdline 30 "$moddir/parse-bench.sh"
	inst_script "$moddir/bench-setup.sh" /sbin/bench-setup
	dracut_need_initqueue
}
EOF
	cat >"$d/parse-bench.sh" <<'EOF'
#!/bin/sh
root=block:/dev/mapper/root
rootok=1
echo rd.skipfsck > /etc/cmdline.d/90bench.conf
wait_for_dev /dev/mapper/root
/sbin/initqueue --settled --onetime --unique --name bench-setup /sbin/bench-setup
EOF
	cat >"$d/bench-setup.sh" <<'EOF'
#!/bin/sh
. /lib/dracut-lib.sh
modprobe dm-verity
dmsetup create root --readonly --table "$(getarg bench.table= | tr , ' ')"
EOF
	chmod 0755 "$d"/*.sh
}

bench_build() {   # NAME OUT.tmp : the two images that are not the module's test image
	local base
	base=$(mktemp -d "$VM_DIR/bench-base.XXXXXX") || return 1
	case $1 in
	dmsetup)
		bench_dmsetup_module "$base-mod/90verity-bench-dmsetup"
		vm_dracut_basedir "$base" "$base-mod/90verity-bench-dmsetup" &&
		vm_dracut_run "$base" "$2" -m "$VM_DRACUT_MODULES verity-bench-dmsetup" ;;
	systemd)
		vm_dracut_basedir "$base" &&
		vm_dracut_run "$base" "$2" -m "$VM_DRACUT_MODULES_SYSTEMD systemd-veritysetup" ;;
	esac
	local r=$?
	rm -rf "$base" "$base-mod"
	return $r
}

bench_image() {   # NAME : print the cached image path
	local out=$VM_CACHE/bench-dracut-$1-$VM_KVER.img key
	key=$(vm_cache_key bench-dracut "$1" "$VM_KVER" "$(dracut --version 2>/dev/null)" \
		"$(sha256sum "$0" "$VM_SRCDIR/lib-dracut.sh")")
	vm_cached "$key" "$out" bench_build "$1" "$out.tmp" || return 1
	echo "$out"
}

echo "bench: $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), kernel $VM_KVER"
declare -A IMG
for v in $VARIANTS; do
	# shellcheck disable=SC2119 # agent_initramfs without options
	case $v in
	agent) IMG[agent]=$(agent_initramfs) || exit 1 ;;
	module) IMG[module]=$(vm_dracut_image shell) || exit 1 ;;
	dmsetup | systemd) IMG[$v]=$(bench_image "$v") || exit 1 ;;
	*) echo "bench: unknown variant $v" >&2; exit 2 ;;
	esac
done

W=$(vm_workdir bench-boot)
vm_verity_setup ext4 "$W" >/dev/null || exit 1
# shellcheck source=/dev/null
. "$W/vars"
TABLE=$(veritysetup dump "$HASH" | awk -v rh="$ROOTHASH" '
	/^Data blocks:/ { n = $3 } /^Data block size:/ { dbs = $4 } /^Hash block size:/ { hbs = $4 }
	/^Hash algorithm:/ { alg = $3 } /^Salt:/ { salt = $2 } /^Hash type:/ { t = $3 }
	END { printf "0,%d,verity,%d,/dev/vda,/dev/vdb,%d,%d,%d,1,%s,%s,%s", n * dbs / 512, t, dbs, hbs, n, alg, rh, salt }')
declare -A CMD
CMD[agent]="roothash=$ROOTHASH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root rootfstype=ext4"
CMD[module]="verity.roothash=$ROOTHASH verity.data=/dev/vda verity.hash=/dev/vdb rootfstype=ext4"
CMD[dmsetup]="bench.table=$TABLE rootfstype=ext4"
CMD[systemd]="roothash=$ROOTHASH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root rootfstype=ext4"

# initramfs_time LOG : marker uptime minus the kernel's "Run /init as init process" timestamp
initramfs_time() {
	local u r
	u=$(vm_marker_uptime "$1") || return 1
	r=$(grep -a -m1 'Run /init as init process' "$1" | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p')
	[ -n "$r" ] || return 1
	awk -v a="$u" -v b="$r" 'BEGIN { printf "%.2f", a - b }'
}

declare -A T I OWN
for (( i = 1; i <= RUNS; i++ )); do
	for v in $VARIANTS; do
		if vm_boot --timeout 300 --disk "$DATA" --disk "$HASH" "bench-boot-$v-$i" "${IMG[$v]}" "${CMD[$v]}" 2>/dev/null &&
		   u=$(vm_marker_uptime "$VM_LOG") && t=$(initramfs_time "$VM_LOG"); then
			T[$v]="${T[$v]:-} $u"
			I[$v]="${I[$v]:-} $t"
			own=""
			if [ "$v" = agent ]; then
				own=$(grep -a -o 'agent time [0-9]* ms: [0-9]* ms module loading, [0-9]* ms device wait, [0-9]* ms own' "$VM_LOG" |
					awk '{ print $13 }')
				OWN[agent]="${OWN[agent]:-} ${own:-}"
			fi
			echo "bench: run $i $v ${u}s guest uptime, ${t}s in the initramfs${own:+, agent own time ${own} ms} (${VM_WALL}s wall, load $(cut -d' ' -f1 /proc/loadavg))"
		else
			echo "bench: run $i $v FAILED (log $VM_LOG)"
		fi
	done
done

# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh" || exit 1
size_raw() { zcat "$1" 2>/dev/null | wc -c; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%.3f", a / b; else print "-" }'; }
# shellcheck disable=SC2086 # word lists on purpose
anchor_t=$(median ${T[systemd]:-}) anchor_i=$(median ${I[systemd]:-})
# shellcheck disable=SC2086
base_t=$(median ${T[dmsetup]:-}) base_i=$(median ${I[dmsetup]:-})
echo
echo "| variant | median uptime at root init (s) | vs systemd | vs dmsetup | median time in initramfs (s) | vs systemd | vs dmsetup | initramfs raw / gzip (MB) |"
echo "|---|---|---|---|---|---|---|---|"
for v in $VARIANTS; do
	# shellcheck disable=SC2086
	m=$(median ${T[$v]:-}) mi=$(median ${I[$v]:-}) n=$(printf '%s\n' ${T[$v]:-} | grep -c .)
	printf '| %s | %s (n=%s) | %s | %s | %s | %s | %s | %.2f / %.2f |\n' "$v" "${m:--}" "$n" \
		"$(ratio "$m" "$anchor_t")" "$(ratio "$m" "$base_t")" \
		"${mi:--}" "$(ratio "$mi" "$anchor_i")" "$(ratio "$mi" "$base_i")" \
		"$(awk -v s="$(size_raw "${IMG[$v]}")" 'BEGIN { print s / 1e6 }')" \
		"$(awk -v s="$(vm_size "${IMG[$v]}")" 'BEGIN { print s / 1e6 }')"
done
if [ -n "${OWN[agent]:-}" ]; then
	# shellcheck disable=SC2086
	echo "bench: agent's own time (start to exec of init, modules and device wait excluded): median $(median ${OWN[agent]}) ms over:${OWN[agent]}"
	echo "bench: static agent $(stat -c %s "$VM_AGENT") bytes stripped"
fi
echo "bench: load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
