# shellcheck shell=sh
# Test drivers in C (tests/cli/*.c with a main()), linked against the build's libverity.a.
# Sourced by the cli tests; ROOT and BUILD set by the caller.

# cli_driver SOURCE OUT : tests/cli/SOURCE built into OUT with the tree's instrumentation (an
# ASan/UBSan tree, make check-sanitize's, links only with the same flags and runtime: clang).
# Test files run in parallel: each builds into a file of its own, renamed over OUT.
cli_driver() {
	cli_driver_cc=${CC:-cc}
	cli_driver_san=""
	[ -f "$BUILD/libverity.a" ] || { echo "libverity.a not built in $BUILD" >&2; return 1; }
	mkdir -p "$(dirname "$2")" || return 1
	if nm "$BUILD/libverity.a" 2>/dev/null | grep -q __asan; then
		cli_driver_san="-fsanitize=address,undefined"
		[ -z "${CC:-}" ] && command -v clang >/dev/null 2>&1 && cli_driver_cc=clang
	fi
	# shellcheck disable=SC2046,SC2086  # flags and libraries are words
	$cli_driver_cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror $cli_driver_san \
		-I"$ROOT/include" -o "$2.$$" "$ROOT/tests/cli/$1" "$BUILD/libverity.a" \
		$(pkg-config --libs devmapper blkid libsodium libcrypto 2>/dev/null) &&
		mv -f "$2.$$" "$2"
}

# records_build : $RECORDS, the agent's own records writer (tests/cli/agent_records.c): status
# files, the managed variable, the slot store's ran record, as a boot leaves them
RECORDS=$BUILD/tests/agent_records
records_build() {
	cli_driver agent_records.c "$RECORDS"
}
