#!/bin/sh
# Run every tests/cli/*_test.sh (shunit2) and print one closing line:
#   cli: N passed, N failed
# counting test functions. A test fails when it has a failed assertion or returns non-zero; a
# file that dies before shunit2's "Ran N tests." counts as one more failure.
# Files run CLI_PARALLEL at a time (default: the number of CPUs), longest first by the durations
# of the last run ($BUILD/cli-durations); each file's output is printed whole when it ends, and
# the summary gives every file's wall time. The files share the built programs and the source
# tree (docs/testing.md); each writes in shunit2's temporary directory or files of its own name.
# Environment: BUILD = absolute build directory (programs under test); CLI_SKIP = names of files
# not to run (e.g. "debian_package_test"), said in the summary.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${BUILD:=$(cd "$here/../.." && pwd)/build}"
: "${CLI_PARALLEL:=$(nproc 2>/dev/null || echo 2)}"
: "${CLI_SKIP:=}"
export BUILD SHUNIT_COLOR=none

# One file: output to $out/NAME.log, exit code to NAME.rc, wall seconds to NAME.sec.
run_one() {
	t=$1
	n=$(basename "$t" .sh)
	sh_cmd="sh"
	if head -n 1 "$t" | grep -q bash; then sh_cmd="bash"; fi
	t0=$(date +%s)
	$sh_cmd "$t" >"$out/$n.log" 2>&1
	echo $? >"$out/$n.rc"
	echo $(($(date +%s) - t0)) >"$out/$n.sec"
	echo "== done $n.sh ($(cat "$out/$n.sec") s)"
}

if [ "${1:-}" = --one ]; then
	out=$CLI_OUT
	run_one "$2"
	exit 0
fi

out=$(mktemp -d "${TMPDIR:-/tmp}/cli-run.XXXXXX")
trap 'rm -rf "$out"' EXIT
durations=$BUILD/cli-durations
mkdir -p "$BUILD"
touch "$durations"

files=""
skipped=""
for t in "$here"/*_test.sh; do
	[ -e "$t" ] || continue
	n=$(basename "$t" .sh)
	case " $CLI_SKIP " in
	*" $n "*) skipped="$skipped $n"; continue ;;
	esac
	d=$(awk -v n="$n" '$1 == n { d = $2 } END { print d == "" ? 999999 : d }' "$durations")
	files="$files$d $t
"
done
order=$(printf '%s' "$files" | sort -k1,1nr -k2 | cut -d' ' -f2-)

# CLI_PARALLEL files at a time: xargs runs this script again for one file (--one FILE). A file
# whose child never wrote its exit code (xargs stopped, a child killed) is a failure by name.
CLI_OUT=$out
export CLI_OUT
printf '%s\n' "$order" | xargs -d '\n' -P "$CLI_PARALLEL" -n 1 sh "$0" --one
xargs_rc=$?
passed=0
failed=0
notrun=""
: >"$durations.new"
while IFS= read -r t; do
	n=$(basename "$t" .sh)
	if [ ! -e "$out/$n.rc" ] || [ ! -e "$out/$n.log" ]; then
		notrun="$notrun $n"
		failed=$((failed + 1))
		echo "== $n.sh: did not run (xargs exit $xargs_rc): 0 passed, 1 failed"
		continue
	fi
	echo "== $n.sh"
	cat "$out/$n.log"
	rc=$(cat "$out/$n.rc")
	counts=$(awk -v rc="$rc" '
		/^test[A-Za-z0-9_]*$/ { cur = $0; next }
		/ASSERT:|shunit2:ERROR .*returned non-zero/ { if (cur != "" && !(cur in bad)) { bad[cur] = 1; nbad++ } }
		/^Ran [0-9]+ tests?\./ { ran = $2 }
		END {
			if (ran == "") { print 0, nbad + 1; exit }
			if (rc != 0 && nbad == 0) nbad = 1
			print ran - nbad, nbad + 0
		}' "$out/$n.log")
	p=${counts% *}
	f=${counts#* }
	case $p$f in *[!0-9]* | "") p=0 f=1 ;; esac
	passed=$((passed + p))
	failed=$((failed + f))
	echo "== $n.sh: $p passed, $f failed"
	echo "$n $(cat "$out/$n.sec")" >>"$durations.new"
done <<EOF
$order
EOF
# files not run this time keep their last duration
awk 'NR == FNR { seen[$1] = 1; print; next } !($1 in seen)' "$durations.new" "$durations" >"$durations.all"
mv "$durations.all" "$durations"

echo "== wall seconds per file (CLI_PARALLEL=$CLI_PARALLEL)"
sort -k2,2nr "$durations.new" | awk '{ printf "  %-32s %5d\n", $1, $2 }'
rm -f "$durations.new"
[ -z "$notrun" ] || echo "cli: did not run:$notrun"
[ -z "$skipped" ] || echo "cli: not run (CLI_SKIP):$skipped"
echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
