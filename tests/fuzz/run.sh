#!/bin/sh
# Run libFuzzer targets: replay each target's checked-in corpus (tests/fuzz/corpus/<target>/,
# seeds plus crash reproducers), then fuzz it for TIME seconds. New inputs go to
# $BUILD/fuzz/corpus/<target>/ (never into the source tree); a crash leaves its input in
# $BUILD/fuzz/artifacts/ and fails the run.
# Usage: tests/fuzz/run.sh TIME BINARY...
set -eu

[ $# -ge 2 ] || { echo "usage: $0 TIME BINARY..." >&2; exit 2; }
time_s=$1
shift
src=$(cd "$(dirname "$0")" && pwd)
fails=""

for bin in "$@"; do
	name=$(basename "$bin")
	target=${name#fuzz_}
	seeds="$src/corpus/$target"
	work="$(dirname "$bin")/corpus/$target"
	arts="$(dirname "$bin")/artifacts"
	mkdir -p "$work" "$arts"
	[ -d "$seeds" ] || { echo "fuzz: $name: no seed corpus at $seeds" >&2; fails="$fails $name"; continue; }
	dict=""
	[ -f "$src/$target.dict" ] && dict="-dict=$src/$target.dict"
	log="$arts/$name.log"
	opts="-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 -artifact_prefix=$arts/$name- -print_final_stats=1"

	# Replay: every checked-in input once (-runs=0 executes the corpus and stops).
	# shellcheck disable=SC2086
	if ! "$bin" $opts -runs=0 "$seeds" >"$log.replay" 2>&1; then
		echo "fuzz: $name: corpus replay FAILED (see $log.replay)" >&2
		tail -n 30 "$log.replay" >&2
		fails="$fails $name"
		continue
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
done

if [ -n "$fails" ]; then
	echo "fuzz: failures:$fails" >&2
	exit 1
fi
