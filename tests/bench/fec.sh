#!/bin/bash
# Benchmark of `format --fec-device` (Reed-Solomon parity) against veritysetup (not a timed test).
#
# Makes a BENCH_MB (256) MiB random file in /dev/shm and, for each of BENCH_ROOTS (2 24),
# alternates `veritysetup format --fec-device` and `verity-image format --fec-device`
# BENCH_RUNS (3) times; the FEC files of both tools are compared byte for byte first. Also
# times the same format without FEC, so that the FEC pass itself can be read off (the
# difference of the medians), and `verity-image verify --fec-device` (veritysetup's verify does
# not read the parity). Prints medians, ratios and peak RSS (/usr/bin/time -v).
#
# Environment: BUILD (build dir), BENCH_MB, BENCH_ROOTS, BENCH_RUNS, BENCH_DIR (/dev/shm).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
VI=$BUILD/verity-image
MB=${BENCH_MB:-256}
ROOTS=${BENCH_ROOTS:-2 24}
RUNS=${BENCH_RUNS:-3}
DIR=${BENCH_DIR:-/dev/shm}

for t in veritysetup /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "bench: $t missing" >&2; exit 1; }
done
[ -x "$VI" ] || { echo "bench: $VI not built (make all)" >&2; exit 1; }

W=$(mktemp -d "$DIR/verity-fec-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
SALT=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
UUID=11111111-2222-4333-8444-555555555555

echo "bench: $(date -u +%FT%TZ), $(nproc) CPUs ($(lscpu | sed -n 's/^Model name: *//p')), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench: verity-image vs $(veritysetup --version | head -n 1), $MB MiB, runs $RUNS"
openssl rand -out "$W/data" $((MB * 1048576)) 2>/dev/null || head -c $((MB * 1048576)) /dev/urandom >"$W/data"

# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh" || exit 1

# Without FEC, for the difference.
declare -a vs_n vi_n
for _ in $(seq "$RUNS"); do
	rm -f "$W/h.vs" "$W/h.vi"
	run_timed a veritysetup format "$W/data" "$W/h.vs" --salt "$SALT" --uuid "$UUID"
	vs_n+=("$a_s")
	run_timed b "$VI" format "$W/data" "$W/h.vi" --salt "$SALT" --uuid "$UUID"
	vi_n+=("$b_s")
done
printf 'no FEC      veritysetup %6.2f s   verity-image %6.2f s\n' "$(median "${vs_n[@]}")" "$(median "${vi_n[@]}")"

for r in $ROOTS; do
	declare -a vs_f=() vi_f=() vi_v=() vs_kb=() vi_kb=() vs_c=() vi_c=()
	for i in $(seq "$RUNS"); do
		rm -f "$W/h.vs" "$W/f.vs" "$W/h.vi" "$W/f.vi"
		run_timed a veritysetup format "$W/data" "$W/h.vs" --fec-device "$W/f.vs" --fec-roots "$r" \
			--salt "$SALT" --uuid "$UUID"
		vs_f+=("$a_s"); vs_kb+=("$a_kb"); vs_c+=("$a_cpu")
		run_timed b "$VI" format "$W/data" "$W/h.vi" --fec-device "$W/f.vi" --fec-roots "$r" \
			--salt "$SALT" --uuid "$UUID"
		vi_f+=("$b_s"); vi_kb+=("$b_kb"); vi_c+=("$b_cpu")
		if [ "$i" = 1 ] && ! { cmp -s "$W/f.vs" "$W/f.vi" && cmp -s "$W/h.vs" "$W/h.vi"; }; then
			echo "bench: roots $r: the files differ" >&2
			exit 1
		fi
		run_timed c "$VI" verify "$W/data" "$W/h.vi" "$(awk -F'\t' '/^Root hash:/ { print $2 }' "$W/out")" \
			--fec-device "$W/f.vi" --fec-roots "$r"
		vi_v+=("$c_s")
	done
	vs=$(median "${vs_f[@]}")
	vi=$(median "${vi_f[@]}")
	# the FEC pass alone: format with FEC minus format without
	vs_fec=$(awk -v a="$vs" -v b="$(median "${vs_n[@]}")" 'BEGIN { print a - b }')
	vi_fec=$(awk -v a="$vi" -v b="$(median "${vi_n[@]}")" 'BEGIN { print a - b }')
	printf 'roots %-2s    veritysetup %6.2f s   verity-image %6.2f s   ratio %5.1fx   FEC pass: %.2f s vs %.2f s (%.1fx)\n' \
		"$r" "$vs" "$vi" "$(awk -v a="$vs" -v b="$vi" 'BEGIN { print a / b }')" "$vs_fec" "$vi_fec" \
		"$(awk -v a="$vs_fec" -v b="$vi_fec" 'BEGIN { print (b > 0) ? a / b : 0 }')"
	printf '            CPU s %.2f vs %.2f; peak RSS %s KB vs %s KB; verity-image verify --fec-device %.2f s\n' \
		"$(median "${vs_c[@]}")" "$(median "${vi_c[@]}")" "$(maxof "${vs_kb[@]}")" "$(maxof "${vi_kb[@]}")" \
		"$(median "${vi_v[@]}")"
done
