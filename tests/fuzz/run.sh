#!/bin/sh
# Run libFuzzer targets: replay each target's checked-in corpus (tests/fuzz/corpus/<target>/,
# seeds plus crash reproducers), then fuzz it for TIME seconds. New inputs go to
# $BUILD/fuzz/corpus/<target>/ (never into the source tree); a crash leaves its input in
# $BUILD/fuzz/artifacts/ and fails the run.
# Targets run FUZZ_PARALLEL at a time (default: the number of CPUs); each prints its line when
# it ends.
# Usage: tests/fuzz/run.sh TIME BINARY...
set -eu

[ $# -ge 2 ] || { echo "usage: $0 TIME BINARY..." >&2; exit 2; }
src=$(cd "$(dirname "$0")" && pwd)

# One target (xargs runs this script again for each: --one TIME BINARY); exit 1 when it failed.
if [ "$1" = --one ]; then
	time_s=$2
	bin=$3
	fails=""
	name=$(basename "$bin")
	target=${name#fuzz_}
	seeds="$src/corpus/$target"
	work="$(dirname "$bin")/corpus/$target"
	arts="$(dirname "$bin")/artifacts"
	mkdir -p "$work" "$arts"
	[ -d "$seeds" ] || { echo "fuzz: $name: no seed corpus at $seeds" >&2; exit 1; }
	dict=""
	[ -f "$src/$target.dict" ] && dict="-dict=$src/$target.dict"
	log="$arts/$name.log"
	opts="-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 -artifact_prefix=$arts/$name- -print_final_stats=1"

	# Replay: every checked-in input once (-runs=0 executes the corpus and stops).
	# shellcheck disable=SC2086
	if ! "$bin" $opts -runs=0 "$seeds" >"$log.replay" 2>&1; then
		echo "fuzz: $name: corpus replay FAILED (see $log.replay)" >&2
		tail -n 30 "$log.replay" >&2
		exit 1
	fi
	# shellcheck disable=SC2086
	if "$bin" $opts $dict -max_total_time="$time_s" "$work" "$seeds" >"$log" 2>&1; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
		cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
		echo "fuzz: $name: ok, ${execs:-?} runs in ${time_s}s, ${cov:-cov: ?}," \
			"replayed $(find "$seeds" -type f | wc -l) corpus files"
	else
		echo "fuzz: $name: FAILED (see $log; crashing input under $arts)" >&2
		grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$log" >&2 || tail -n 30 "$log" >&2
		fails="$fails $name"
	fi
	[ -z "$fails" ] || exit 1
	exit 0
fi

time_s=$1
shift
: "${FUZZ_PARALLEL:=$(nproc 2>/dev/null || echo 2)}"
fails=""
for bin in "$@"; do
	echo "$bin"
done | xargs -P "$FUZZ_PARALLEL" -n 1 sh "$0" --one "$time_s" || fails=yes
if [ -n "$fails" ]; then
	echo "fuzz: failures (FAILED lines above)" >&2
	exit 1
fi
