#!/bin/sh
# Run each cmocka unit-test binary given as an argument; fail if any fails.
# cmocka prints its own summary ("[  PASSED  ] N test(s)." / "[  FAILED  ]") for every group.
set -u
failed=0
total=0
for t in "$@"; do
	total=$((total + 1))
	echo "== $(basename "$t")"
	if ! "$t"; then
		failed=$((failed + 1))
		echo "== $(basename "$t"): FAILED"
	fi
done
echo "unit: $((total - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
