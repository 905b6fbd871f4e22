#!/bin/sh
# Build hardening of the shipped binaries, read back from the ELF files (readelf/nm):
#  - dynamic programs (verity-image, verity-init): PIE, full RELRO (GNU_RELRO + BIND_NOW),
#    non-executable stack, stack protector and FORTIFY calls;
#  - static agent (build/static/verity-init): really static (no interpreter, no DT_NEEDED),
#    non-executable stack, our objects built with -fstack-protector-strong at -O (FORTIFY needs
#    optimization) and calling __stack_chk_fail and fortified __*_chk functions.
# Binaries that were not built are skipped, not failed. BUILD: the build directory.
# shellcheck disable=SC2317  # test functions and helpers are called by shunit2

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}

# Non-empty when $1 is instrumented by ASan (the sanitize tree is checked for the same flags,
# but ASan changes stack-protector instrumentation, so it is skipped there).
is_asan() {
	readelf --dyn-syms -W "$1" 2>/dev/null | grep -q '__asan_init'
}

check_dynamic() {
	bin=$1
	if [ ! -x "$bin" ]; then
		startSkipping
		echo "skip: $bin not built"
		return
	fi
	hdr=$(readelf -h -W "$bin")
	dyn=$(readelf -d -W "$bin")
	phdr=$(readelf -l -W "$bin")
	syms=$(readelf --dyn-syms -W "$bin")

	echo "$hdr" | grep -q 'Type: *DYN' || fail "$bin: not position-independent (ELF type)"
	echo "$dyn" | grep -q 'FLAGS_1.*PIE' || fail "$bin: no DF_1_PIE flag"
	echo "$phdr" | grep -q 'GNU_RELRO' || fail "$bin: no GNU_RELRO segment"
	echo "$dyn" | grep -Eq 'BIND_NOW|FLAGS_1.* NOW' || fail "$bin: no BIND_NOW (partial RELRO only)"
	echo "$phdr" | grep 'GNU_STACK' | grep -q 'RWE' && fail "$bin: executable stack"
	if is_asan "$bin"; then
		echo "note: $bin is an ASan build; stack protector/FORTIFY not checked"
		return
	fi
	echo "$syms" | grep -q '__stack_chk_fail' || fail "$bin: no stack protector (__stack_chk_fail)"
	echo "$syms" | grep -Eq ' __[a-z_]+_chk(@|$)' || fail "$bin: no FORTIFY (__*_chk) calls"
}

testVerityImageIsHardened() {
	check_dynamic "$BUILD/verity-image"
}

testDynamicAgentIsHardened() {
	check_dynamic "$BUILD/verity-init"
}

testStaticAgentIsStaticAndHardened() {
	bin=$BUILD/static/verity-init
	if [ ! -x "$bin" ] || [ ! -f "$bin.debug" ]; then
		startSkipping
		echo "skip: $bin (and .debug) not built (make static)"
		return
	fi
	readelf -l -W "$bin" | grep -q 'INTERP' && fail "static agent has a program interpreter"
	readelf -d -W "$bin" 2>/dev/null | grep -q 'NEEDED' && fail "static agent needs shared libraries"
	readelf -l -W "$bin" | grep 'GNU_STACK' | grep -q 'RWE' && fail "static agent: executable stack"

	# Compilation units of our own sources, with the flags gcc recorded (-grecord-gcc-switches
	# is gcc's default): every one must have the stack protector and optimization.
	cus=$(readelf --debug-dump=info "$bin.debug" 2>/dev/null |
		awk '/DW_AT_producer/ { p = $0 } /DW_AT_name/ && p != "" { print $NF "\t" p; p = "" }' |
		grep -E '^(lib(/[a-z]+)?|verity-init)/[a-z0-9_]+\.c')
	assertNotNull "no compilation units of lib/ or verity-init/ found in $bin.debug" "$cus"
	bad=$(echo "$cus" | grep -v -e '-fstack-protector-strong' -e '-fstack-protector-all' | cut -f1)
	assertNull "built without -fstack-protector-strong: $bad" "$bad"
	bad=$(echo "$cus" | grep -v -E ' -O[1-3sz]' | cut -f1)
	assertNull "built without optimization (FORTIFY inactive): $bad" "$bad"

	objs=$(find "$BUILD/static/lib" "$BUILD/static/verity-init" -name '*.o' 2>/dev/null)
	assertNotNull "no object files under $BUILD/static" "$objs"
	# shellcheck disable=SC2086
	undef=$(nm -u $objs 2>/dev/null)
	echo "$undef" | grep -q '__stack_chk_fail' || fail "our objects never call __stack_chk_fail"
	echo "$undef" | grep -Eq ' __[a-z_]+_chk$' || fail "our objects make no FORTIFY (__*_chk) call"
}

# shellcheck disable=SC1091
. /usr/share/shunit2/shunit2
