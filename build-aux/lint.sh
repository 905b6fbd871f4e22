#!/bin/sh
# Static analysis for `make lint`: cppcheck and clang-tidy over lib/, verity-init/, tests/unit/
# and tests/fuzz/, with the checked-in configuration (.clang-tidy, build-aux/cppcheck.supp).
# Exit status non-zero on any finding. Usage: build-aux/lint.sh [FILE.c...]
set -eu

cd "$(dirname "$0")/.."

CLANG_TIDY=${CLANG_TIDY:-clang-tidy}
CPPCHECK=${CPPCHECK:-cppcheck}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

for tool in "$CLANG_TIDY" "$CPPCHECK"; do
	command -v "$tool" >/dev/null 2>&1 || { echo "lint: $tool not found (make deps)" >&2; exit 1; }
done

if [ $# -gt 0 ]; then
	files="$*"
else
	files=$(ls lib/*.c verity-init/*.c tests/unit/*.c tests/fuzz/*.c 2>/dev/null || true)
fi
[ -n "$files" ] || { echo "lint: no sources" >&2; exit 1; }

# The same flags the Makefile compiles with (minus warnings, which the compiler already enforces).
pkg_cflags=$($PKG_CONFIG --cflags devmapper blkid libcrypto libsodium cmocka 2>/dev/null || true)
flags="-std=c11 -D_GNU_SOURCE -D_FORTIFY_SOURCE=2 -O2 -Iinclude $pkg_cflags"

status=0

echo "lint: cppcheck $($CPPCHECK --version | sed 's/^Cppcheck //') on $(echo "$files" | wc -w) files"
# shellcheck disable=SC2086
if ! $CPPCHECK --std=c11 --enable=warning,style,performance,portability --inline-suppr \
	--library=posix --suppressions-list=build-aux/cppcheck.supp \
	-D_GNU_SOURCE -U__cplusplus -Iinclude --quiet --error-exitcode=1 -j "$JOBS" \
	--template='{file}:{line}: {severity}: {message} [{id}]' $files; then
	status=1
fi

echo "lint: clang-tidy $($CLANG_TIDY --version | sed -n 's/.*LLVM version //p')"
tidy_out=$(mktemp)
trap 'rm -f "$tidy_out"' EXIT
# A file that was clean with the same contents, the same headers, configuration and flags is not
# analysed again (clang-tidy is minutes on 2 cores): the cache key hashes all of them.
# LINT_CACHE=none disables the cache.
cache=${LINT_CACHE:-build/lint-cache}
[ "$cache" = none ] || mkdir -p "$cache"
common=$(cat include/*.h .clang-tidy tests/.clang-tidy 2>/dev/null | sha256sum | cut -c1-16)
# One process per file, JOBS at a time; xargs exits 123 when any invocation failed.
# shellcheck disable=SC2086,SC2016  # word splitting of the lists wanted; $1..$5 are sh -c's
if ! printf '%s\n' $files | xargs -P "$JOBS" -I{} sh -c '
	tidy=$1 f=$2 flags=$3 cache=$4 common=$5
	key=$common-$( (cat "$f"; echo "$f $flags $("$tidy" --version)") | sha256sum | cut -c1-32)
	[ "$cache" != none ] && [ -e "$cache/$key" ] && exit 0
	out=$("$tidy" --quiet "$f" -- $flags 2>/dev/null)
	rc=$?
	printf "%s\n" "$out"
	if [ "$rc" -eq 0 ] && ! printf "%s" "$out" | grep -qE "(error|warning):"; then
		[ "$cache" = none ] || : >"$cache/$key"
	fi
	exit "$rc"' sh "$CLANG_TIDY" {} "$flags" "$cache" "$common" >"$tidy_out"; then
	status=1
fi
grep -E '(error|warning):' "$tidy_out" || true

if [ "$status" -eq 0 ]; then
	echo "lint: clean"
else
	echo "lint: FAILED (findings above)" >&2
fi
exit "$status"
