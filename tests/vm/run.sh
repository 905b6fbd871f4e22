#!/bin/bash
# Run the QEMU boot scenarios: every tests/vm/*_test.sh (or those whose name contains one of the
# arguments), VM_PARALLEL files at a time (boots are also capped at VM_PARALLEL by slot locks).
# Builds the shared images once first. Last line: "vm: N passed, N failed"; exit 1 if any failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export SHUNIT_COLOR=none
VM_RUN_ID=$$-$(date +%s)
export VM_RUN_ID
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh" || { echo "vm: 0 passed, 1 failed"; exit 1; }

files=()
for f in "$here"/*_test.sh; do
	[ -e "$f" ] || continue
	if [ $# -gt 0 ]; then
		keep=0
		for pat in "$@"; do case $(basename "$f") in *"$pat"*) keep=1 ;; esac; done
		[ "$keep" = 1 ] || continue
	fi
	files+=("$f")
done

# Other runs may share this build directory (several developers' shells, make check while a test
# file runs alone): never delete what they may be using. Old logs and work dirs (untouched for
# 30 min) are pruned unless VM_KEEP_LOGS=1; each boot rewrites its own log anyway.
if [ "${VM_KEEP_LOGS:-0}" != 1 ]; then
	find "$VM_LOGDIR" "$VM_WORKROOT" -mindepth 1 -maxdepth 1 -mmin +30 -exec rm -rf {} + 2>/dev/null
fi
find "$VM_DIR" -maxdepth 1 \( -name 'timings.*' -o -name 'accel-probe.*' -o -name 'results.*' \) \
	-mmin +30 -exec rm -rf {} + 2>/dev/null
out=$VM_DIR/results.$VM_RUN_ID
mkdir -p "$out"
overs=()
# Every boot's line (lib.sh's vm_record_boot): NAME WALL ACCEL STATUS FILE.
timings=$VM_DIR/timings.$VM_RUN_ID
touch "$timings"

t0=$(date +%s)
echo "vm: kernel $VM_KERNEL ($VM_KVER), accel $(vm_accel), timeout ${VM_TIMEOUT}s, parallel $VM_PARALLEL, formatter $(vm_verity_tool)"
# Shared artefacts once, before the scenarios race for them.
for fs in ext4 squashfs erofs; do
	vm_base_image "$fs" >/dev/null || { echo "vm: cannot build the $fs root image"; echo "vm: 0 passed, 1 failed"; exit 1; }
done
vm_script_initramfs >/dev/null || { echo "vm: cannot build the test initramfs"; echo "vm: 0 passed, 1 failed"; exit 1; }
echo "vm: images ready in $(( $(date +%s) - t0 ))s (cache $VM_CACHE)"

run_one() {   # FILE: run it, output to $out/NAME.out, exit code to $out/NAME.rc, wall s to NAME.wall
	local f=$1 n t0 r
	n=$(basename "$f" .sh)
	t0=$(date +%s)
	VM_TEST_FILE=$n bash "$f" >"$out/$n.out" 2>&1
	r=$?
	# the wall time first: NAME.rc tells report_done that the file has ended
	echo $(( $(date +%s) - t0 )) >"$out/$n.wall"
	echo "$n $(cat "$out/$n.wall")" >>"$durations"
	echo "$r" >"$out/$n.rc"
}

# Longest files first (durations of earlier runs in this build directory, else the checked-in
# ones of a clean run, tests/vm/durations; unknown ones first of all): with two files at a time
# the run ends sooner than in alphabetical order, also on a clean clone.
durations=$VM_CACHE/file-durations
touch "$durations"
mapfile -t files < <(for f in "${files[@]}"; do
	n=$(basename "$f" .sh)
	d=$(awk -v n="$n" '$1 == n { d = $2 } END { print d }' "$durations")
	[ -n "$d" ] || d=$(awk -v n="$n" '$1 == n { d = $2 } END { print d == "" ? 999999 : d }' \
		"$here/durations")
	echo "$d $f"
done | sort -k1,1nr -k2 | cut -d' ' -f2-)

# Count a file's tests from shunit2's output: a line that is a test function's name starts a test,
# ASSERT:/ERROR: lines mark it failed. A file that did not reach "Ran N tests" counts one failure.
# Prints "passed failed skipped-asserts".
summarise() {
	awk '
		/^test[A-Za-z0-9_]*$/ { n++; next }
		/^(shunit2:)?(ASSERT|ERROR|FATAL)/ { if (n) bad[n] = 1; else early = 1 }
		/^Ran [0-9]+ tests?\./ { ran = $2 }
		/skipped=[0-9]+/ { s = $0; sub(/.*skipped=/, "", s); skipped = s + 0 }
		END {
			f = 0; for (i = 1; i <= n; i++) if (bad[i]) f++
			extra = (ran == "" || early) ? 1 : 0
			printf "%d %d %d\n", n - f, f + extra, skipped
		}' "$1"
}

# file_boots NAME : "BOOTS SECONDS", the boots the file made so far and their wall time summed.
file_boots() {
	awk -v n="$1" '$5 == n { b++; s += $2 } END { printf "%d %.1f\n", b, s }' "$timings"
}

# One progress line per file as it ends (CI logs show where a long run is).
reported=" "
report_done() {
	local f n p fl s
	for f in "${files[@]}"; do
		n=$(basename "$f" .sh)
		[ -e "$out/$n.rc" ] || continue
		case $reported in *" $n "*) continue ;; esac
		reported="$reported$n "
		read -r p fl s < <(summarise "$out/$n.out")
		echo "vm: done  $n.sh: $p passed, $fl failed (exit $(cat "$out/$n.rc")), $(file_boots "$n" | cut -d' ' -f1) boots, $(cat "$out/$n.wall")s wall"
	done
}

running=0
for f in "${files[@]}"; do
	while [ "$running" -ge "$VM_PARALLEL" ]; do wait -n; running=$(( running - 1 )); report_done; done
	echo "vm: start $(basename "$f")"
	run_one "$f" &
	running=$(( running + 1 ))
done
while [ "$running" -gt 0 ]; do wait -n; running=$(( running - 1 )); report_done; done
wait
report_done

passed=0 failed=0 skipped=0
for f in "${files[@]}"; do
	n=$(basename "$f" .sh)
	echo "===== $n (exit $(cat "$out/$n.rc" 2>/dev/null || echo '?'))"
	cat "$out/$n.out"
	read -r p fl s < <(summarise "$out/$n.out")
	# shunit2 exits non-zero when a test failed; trust that even if the parse found nothing.
	if [ "$(cat "$out/$n.rc" 2>/dev/null || echo 1)" != 0 ] && [ "$fl" = 0 ]; then fl=1; fi
	passed=$(( passed + p )); failed=$(( failed + fl )); skipped=$(( skipped + s ))
done

echo "===== boot times (wall seconds, accel, qemu exit, test file)"
sort -k2,2nr "$timings" | awk '{ printf "  %-45s %7.2f  %-8s %3s  %s\n", $1, $2, $3, $4, $5; t += $2; n++ }
	END { if (n) printf "  %d boots, %.1f s of boot wall time\n", n, t }'

# Boots per file against tests/vm/budget (FILE BOOTS lines): a file that boots more often than its
# budget counts as one failure. The count is deterministic (a failing or skipped test boots less,
# never more); wall times vary with the host and are only shown.
budget=$here/budget
over=0 total_allowed=0
echo "===== boots per test file (budget: tests/vm/budget; wall seconds: the boots' sum, the file's run)"
printf '  %-28s %5s %6s %9s %8s\n' file boots budget "boot s" "file s"
for f in "${files[@]}"; do
	n=$(basename "$f" .sh)
	read -r b s < <(file_boots "$n")
	allowed=$(awk -v n="$n" '$1 == n { print $2 }' "$budget" 2>/dev/null)
	total_allowed=$(( total_allowed + ${allowed:-0} ))
	printf '  %-28s %5d %6s %9s %8s\n' "$n" "$b" "${allowed:--}" "$s" "$(cat "$out/$n.wall" 2>/dev/null || echo '?')"
	if [ "$b" -gt "${allowed:-0}" ]; then
		overs+=("vm: over budget: $n.sh booted $b times, its budget is ${allowed:-0} (merge the new assertions into a boot that proves the same thing, or raise its line in tests/vm/budget: docs/testing.md, \"The boot budget\")")
		over=$(( over + 1 ))
	fi
done
awk -v w="$(( $(date +%s) - t0 ))" -v p="$VM_PARALLEL" -v a="$total_allowed" '{ b++; s += $2 }
	END { printf "  %-28s %5d %6d %9.1f %8d   (boot s / %d = %.0f)\n", "total", b, a, s, w, p, s / p }' "$timings"
for l in "${overs[@]}"; do echo "$l"; done
failed=$(( failed + over ))
# A line for a file that is gone would keep boots in the budget that nothing spends.
awk '!/^#/ && NF { print $1 }' "$budget" 2>/dev/null | while read -r n; do
	[ -e "$here/$n.sh" ] || echo "vm: tests/vm/budget has a line for $n.sh, which does not exist"
done
# The latest run's per-file outputs in $BUILD/vm/results/.
rm -rf "$VM_DIR/results" && mv "$out" "$VM_DIR/results"
echo "vm: logs in $VM_LOGDIR, per-file output in $VM_DIR/results; total $(( $(date +%s) - t0 ))s wall"
[ "$skipped" -gt 0 ] && echo "vm: $skipped assertions skipped"
echo "vm: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "${#files[@]}" -gt 0 ]
