#!/bin/bash
# Benchmark of verity-image format/verify against veritysetup (not a timed test).
#
# Makes a 1 GiB random file in /dev/shm and, in one run, alternates `veritysetup format` and
# `verity-image format` (then the same for verify) BENCH_RUNS times, printing medians, the
# ratio, the GB/s achieved against the single-core and all-core SHA-256 rate that
# `openssl speed -evp sha256 -bytes 4096` measures in the same run, and peak RSS
# (/usr/bin/time -v). Peak RSS is also measured on a 4 GiB file to show it does not grow with
# the image. Targets (2-core machine): format and verify >= 2.5x faster than veritysetup,
# >= 80 % of the all-core SHA-256 rate, peak RSS <= 64 MB and independent of image size.
#
# Environment: BUILD (build dir), BENCH_RUNS (5), BENCH_DIR (/dev/shm), BENCH_BIG (1: also the
# 4 GiB RSS check), BENCH_STRICT (1: exit 1 when a target is missed), BENCH_NICE (e.g. -15: run
# every measured command, openssl speed included, at that nice level, so that other load on a
# shared machine disturbs the comparison less; needs root), BENCH_PAUSE (seconds of sleep
# between measured commands, 0; with BENCH_NICE it lets the other work on the machine proceed).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
VI=$BUILD/verity-image
RUNS=${BENCH_RUNS:-5}
DIR=${BENCH_DIR:-/dev/shm}
BIG=${BENCH_BIG:-1}
STRICT=${BENCH_STRICT:-0}
PAUSE=${BENCH_PAUSE:-0}
PRIO=()
[ -n "${BENCH_NICE:-}" ] && PRIO=(nice -n "$BENCH_NICE")
SIZE=$((1024 * 1024 * 1024))
NCPU=$(nproc)

for t in veritysetup openssl /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "bench: $t missing" >&2; exit 1; }
done
[ -x "$VI" ] || { echo "bench: $VI not built (make all)" >&2; exit 1; }

W=$(mktemp -d "$DIR/verity-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
SALT=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')

echo "bench: $(date -u +%FT%TZ), nice ${BENCH_NICE:-0}, pause ${PAUSE}s, $NCPU CPUs ($(lscpu | sed -n 's/^Model name: *//p')), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench: $("$VI" --help >/dev/null && echo verity-image) vs $(veritysetup --version | head -n 1)"
# openssl's generator is much faster than /dev/urandom; the content only has to be incompressible.
openssl rand -out "$W/data" "$SIZE" 2>/dev/null || head -c "$SIZE" /dev/urandom >"$W/data"

# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh" || exit 1

# run_paced PREFIX CMD... : run_timed (lib.sh) after the pause, at the nice level
run_paced() {
	local pfx=$1
	shift
	sleep "$PAUSE"
	run_timed "$pfx" "${PRIO[@]}" "$@"
}

# SHA-256 limits in bytes/s, measured now (openssl prints 1000s of bytes per second).
sha_rate() {
	"${PRIO[@]}" openssl speed -evp sha256 -bytes 4096 -seconds 3 "$@" 2>/dev/null |
		awk '/^sha256 / { v = $NF; sub(/k$/, "", v); r = v * 1000 } END { print r }'
}
SHA1=$(sha_rate)
SHAN=$(sha_rate -multi "$NCPU")

declare -a vs_f vi_f vs_v vi_v vs_fkb vi_fkb vs_vkb vi_vkb vs_fc vi_fc vs_vc vi_vc
for _ in $(seq "$RUNS"); do
	run_paced a veritysetup format "$W/data" "$W/hash.vs" --salt "$SALT"
	vs_f+=("$a_s"); vs_fkb+=("$a_kb"); vs_fc+=("$a_cpu")
	run_paced b "$VI" format "$W/data" "$W/hash.vi" --salt "$SALT" --quiet
	vi_f+=("$b_s"); vi_fkb+=("$b_kb"); vi_fc+=("$b_cpu")
	ROOTHASH=$(cat "$W/out")
done
cmp -s <(tail -c +513 "$W/hash.vs") <(tail -c +513 "$W/hash.vi") ||
	{ echo "bench: hash trees differ" >&2; exit 1; }
for _ in $(seq "$RUNS"); do
	run_paced a veritysetup verify "$W/data" "$W/hash.vs" "$ROOTHASH"
	vs_v+=("$a_s"); vs_vkb+=("$a_kb"); vs_vc+=("$a_cpu")
	run_paced b "$VI" verify "$W/data" "$W/hash.vi" "$ROOTHASH"
	vi_v+=("$b_s"); vi_vkb+=("$b_kb"); vi_vc+=("$b_cpu")
done

if [ "$BIG" = 1 ]; then
	rm -f "$W/hash.vs"
	for _ in 1 2 3; do openssl rand "$SIZE" >>"$W/data"; done
	run_paced c "$VI" format "$W/data" "$W/hash.big" --salt "$SALT" --quiet
	# shellcheck disable=SC2154  # c_kb and c_s are set by run_timed through printf -v
	big_kb=$c_kb big_s=$c_s
fi

mvs_f=$(median "${vs_f[@]}") mvi_f=$(median "${vi_f[@]}")
mvs_v=$(median "${vs_v[@]}") mvi_v=$(median "${vi_v[@]}")
cvs_f=$(median "${vs_fc[@]}") cvi_f=$(median "${vi_fc[@]}")
cvs_v=$(median "${vs_vc[@]}") cvi_v=$(median "${vi_vc[@]}")
rss_vi=$(maxof "${vi_fkb[@]}" "${vi_vkb[@]}")
rss_vs=$(maxof "${vs_fkb[@]}" "${vs_vkb[@]}")

missed=0
check() { # NAME OK(1/0)
	if [ "$2" = 1 ]; then echo "  target met:    $1"; else echo "  target MISSED: $1"; missed=1; fi
}
ge() { awk -v a="$1" -v b="$2" 'BEGIN { print (a >= b) ? 1 : 0 }'; }

awk -v sz="$SIZE" -v s1="$SHA1" -v sn="$SHAN" -v n="$NCPU" -v runs="$RUNS" \
	-v vsf="$mvs_f" -v vif="$mvi_f" -v vsv="$mvs_v" -v viv="$mvi_v" \
	-v rvi="$rss_vi" -v rvs="$rss_vs" -v cvsf="$cvs_f" -v cvif="$cvi_f" -v cvsv="$cvs_v" \
	-v cviv="$cvi_v" 'BEGIN {
	printf "SHA-256 (openssl speed -evp sha256 -bytes 4096): 1 core %.2f GB/s, %d cores %.2f GB/s\n", s1 / 1e9, n, sn / 1e9
	printf "1 GiB, medians of %d alternating runs:\n", runs
	printf "  %-8s %12s %14s %8s %10s %12s\n", "", "veritysetup", "verity-image", "ratio", "GB/s", "% all-core"
	printf "  %-8s %11.3fs %13.3fs %7.2fx %10.2f %11.0f%%\n", "format", vsf, vif, vsf / vif, sz / vif / 1e9, 100 * sz / vif / sn
	printf "  %-8s %11.3fs %13.3fs %7.2fx %10.2f %11.0f%%\n", "verify", vsv, viv, vsv / viv, sz / viv / 1e9, 100 * sz / viv / sn
	printf "CPU seconds (user+sys, medians): format %.2f vs %.2f, verify %.2f vs %.2f (veritysetup vs verity-image)\n", cvsf, cvif, cvsv, cviv
	printf "peak RSS: verity-image %.1f MB, veritysetup %.1f MB (1 GiB)\n", rvi / 1024, rvs / 1024
}'
if [ "$BIG" = 1 ]; then
	awk -v kb="$big_kb" -v s="$big_s" 'BEGIN { printf "peak RSS: verity-image %.1f MB formatting 4 GiB (%.2f s)\n", kb / 1024, s }'
fi
echo "targets:"
check "format >= 2.5x veritysetup" "$(ge "$(awk -v a="$mvs_f" -v b="$mvi_f" 'BEGIN { print a / b }')" 2.5)"
check "verify >= 2.5x veritysetup" "$(ge "$(awk -v a="$mvs_v" -v b="$mvi_v" 'BEGIN { print a / b }')" 2.5)"
check "format >= 80% of all-core SHA-256" "$(ge "$(awk -v s="$SIZE" -v t="$mvi_f" -v r="$SHAN" 'BEGIN { print s / t / r }')" 0.8)"
check "verify >= 80% of all-core SHA-256" "$(ge "$(awk -v s="$SIZE" -v t="$mvi_v" -v r="$SHAN" 'BEGIN { print s / t / r }')" 0.8)"
check "peak RSS <= 64 MB" "$(ge 65536 "$rss_vi")"
if [ "$BIG" = 1 ]; then
	# "Independent of size": 4 GiB within 10 % (or 1 MB) of 1 GiB.
	check "RSS independent of size (4 GiB vs 1 GiB)" \
		"$(awk -v a="$big_kb" -v b="$rss_vi" 'BEGIN { d = a - b; if (d < 0) d = -d; print (d <= 1024 || d <= b / 10) ? 1 : 0 }')"
fi
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$STRICT" = 1 ] && [ "$missed" = 1 ] && exit 1
exit 0
