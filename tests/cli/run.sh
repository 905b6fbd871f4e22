#!/bin/sh
# Run every tests/cli/*_test.sh (shunit2) and print one closing line:
#   cli: N passed, N failed
# counting test functions. A test fails when it has a failed assertion or returns non-zero; a
# file that dies before shunit2's "Ran N tests." counts as one more failure.
# Environment: BUILD = absolute build directory (programs under test).
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${BUILD:=$(cd "$here/../.." && pwd)/build}"
export BUILD SHUNIT_COLOR=none

passed=0
failed=0
log=$(mktemp "${TMPDIR:-/tmp}/cli-run.XXXXXX")
trap 'rm -f "$log"' EXIT

for t in "$here"/*_test.sh; do
	[ -e "$t" ] || continue
	echo "== $(basename "$t")"
	sh_cmd='sh'
	head -n 1 "$t" | grep -q bash && sh_cmd=bash
	$sh_cmd "$t" >"$log" 2>&1
	rc=$?
	cat "$log"
	# shellcheck disable=SC2046
	set -- $(awk -v rc="$rc" '
		/^test[A-Za-z0-9_]*$/ { cur = $0; next }
		/ASSERT:|shunit2:ERROR .*returned non-zero/ { if (cur != "" && !(cur in bad)) { bad[cur] = 1; nbad++ } }
		/^Ran [0-9]+ tests?\./ { ran = $2 }
		END {
			if (ran == "") { print 0, nbad + 1; exit }
			if (rc != 0 && nbad == 0) nbad = 1
			print ran - nbad, nbad + 0
		}' "$log")
	passed=$((passed + $1))
	failed=$((failed + $2))
	echo "== $(basename "$t"): $1 passed, $2 failed"
done

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
