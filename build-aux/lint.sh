#!/bin/sh
# Static analysis for `make lint`, exit status non-zero on any finding:
#  - the layers: no include runs up lib/'s layers (build-aux/layers.sh, docs/design.md);
#  - C: cppcheck and clang-tidy over lib/, verity-init/, tests/unit/ and tests/fuzz/, with the
#    checked-in configuration (.clang-tidy, build-aux/cppcheck.supp);
#  - shell: shellcheck over every *.sh of build-aux/, dracut-module/, tests/ and verity-init/ at its
#    default severity (style and up), the dialect from each file's #! line or `# shellcheck shell=`
#    directive. All files are given in one run, so a `# shellcheck source=FILE` directive reaches
#    FILE. The dracut module's scripts get the options of tests/cli/module_setup_test.sh: its hooks
#    as POSIX sh with `local` (dracut's sh has it), module-setup.sh as bash with dracut's variables
#    (moddir, initdir, ...) defined by dracut; the libraries they source exist only in the image.
#    KNOWN_SC below lists findings in files under other work: printed, not failing.
# Usage: build-aux/lint.sh [FILE.c|FILE.sh...] (default: all of them)
#
# Shell style: indent with one tab per level (what most of the project's shell uses); a
# continuation line gets one more tab. Here-documents keep the indentation of the text they
# produce. dracut-module/ still indents with 4 spaces; build-aux/indent-tabs.py converts.
set -eu

cd "$(dirname "$0")/.."

CLANG_TIDY=${CLANG_TIDY:-clang-tidy}
CPPCHECK=${CPPCHECK:-cppcheck}
SHELLCHECK=${SHELLCHECK:-shellcheck}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# Findings known in files this script's owners may not edit, as FILE:CODE (any line). Each is
# printed on every run; remove the entry once the file is fixed (a stale entry is reported).
KNOWN_SC="tests/cli/badinput_test.sh:SC3043
tests/cli/module_setup_test.sh:SC2015
tests/cli/module_setup_test.sh:SC2016
tests/vm/dracut_shell_test.sh:SC2015"

if [ $# -gt 0 ]; then
	files=""
	sh_files=""
	for f in "$@"; do
		case $f in
		*.sh) sh_files="$sh_files $f" ;;
		*) files="$files $f" ;;
		esac
	done
else
	files=$(ls lib/*/*.c verity-init/*/*.c tests/unit/*.c tests/fuzz/*.c 2>/dev/null || true)
	sh_files=$(find build-aux dracut-module rauc tests verity-init -name '*.sh' -type f | LC_ALL=C sort)
fi
[ -n "$files$sh_files" ] || { echo "lint: no sources" >&2; exit 1; }

need=""
[ -z "$files" ] || need="$CLANG_TIDY $CPPCHECK"
[ -z "$sh_files" ] || need="$need $SHELLCHECK"
for tool in $need; do
	command -v "$tool" >/dev/null 2>&1 || { echo "lint: $tool not found (make deps)" >&2; exit 1; }
done

status=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cache=${LINT_CACHE:-build/lint-cache}
[ "$cache" = none ] || mkdir -p "$cache"

# --- shell ------------------------------------------------------------------------------------
# shellcheck disable=SC2086  # the file lists are split on whitespace (no name has a space)
lint_shell() {
	mod_sh=""
	mod_bash=""
	for f in $sh_files; do
		case $f in
		dracut-module/module-setup.sh) mod_bash="$mod_bash $f" ;;
		dracut-module/*) mod_sh="$mod_sh $f" ;;
		esac
	done
	echo "lint: shellcheck $($SHELLCHECK --version | sed -n 's/^version: //p') on $(echo $sh_files | wc -w) files"
	# Clean runs are cached: the key hashes every file's name and contents, this script and the
	# version of the tool (the findings of a run depend on nothing else).
	key=sc-$( (cat "$0"; $SHELLCHECK --version; for f in $sh_files; do echo "$f"; cat "$f"; done) |
		sha256sum | cut -c1-32)
	if [ "$cache" != none ] && [ -e "$cache/$key" ]; then
		cat "$cache/$key"
		echo "lint: shellcheck: unchanged since a clean run"
		return 0
	fi
	# The module's scripts are inputs of the first run (the tests source them) but reported
	# from their own runs, with the module's options.
	{
		$SHELLCHECK -f gcc $sh_files 2>&1 | grep -v '^dracut-module/' || true
		[ -z "$mod_sh" ] || $SHELLCHECK -f gcc -s sh -e SC1090,SC1091,SC3043 $mod_sh 2>&1 || true
		[ -z "$mod_bash" ] || $SHELLCHECK -f gcc -s bash -e SC1090,SC1091,SC2154 $mod_bash 2>&1 || true
	} >"$tmp/sc.out"
	: >"$tmp/sc.known-re"
	for k in $KNOWN_SC; do
		printf '^%s:[0-9]+:[0-9]+: .*\\[%s\\]$\n' "${k%%:*}" "${k#*:}" >>"$tmp/sc.known-re"
	done
	grep -Ef "$tmp/sc.known-re" "$tmp/sc.out" >"$tmp/sc.known" || true
	grep -vEf "$tmp/sc.known-re" "$tmp/sc.out" >"$tmp/sc.new" || true
	if [ -s "$tmp/sc.known" ]; then
		{
			echo "lint: shellcheck: $(wc -l <"$tmp/sc.known") known findings (KNOWN_SC in build-aux/lint.sh, not failing):"
			sed 's/^/  known: /' "$tmp/sc.known"
		} >"$tmp/sc.report"
	else
		: >"$tmp/sc.report"
	fi
	for k in $KNOWN_SC; do
		case " $sh_files " in *" ${k%%:*} "*) ;; *) continue ;; esac
		grep "^${k%%:*}:" "$tmp/sc.known" | grep -qF "[${k#*:}]" ||
			echo "lint: shellcheck: KNOWN_SC entry $k no longer found: remove it" >>"$tmp/sc.report"
	done
	cat "$tmp/sc.report"
	if [ -s "$tmp/sc.new" ]; then
		cat "$tmp/sc.new"
		return 1
	fi
	[ "$cache" = none ] || cp "$tmp/sc.report" "$cache/$key"
	return 0
}

# One shellcheck process checks the tests with the files they source (which must be
# on its command line): it runs beside the C checks, which use the other cores, and its report
# is printed at the end.
shell_pid=""
if [ -n "$sh_files" ]; then
	# (in an || list, as it was called before: set -e does not stop it half way)
	{ lint_shell || exit 1; } >"$tmp/shell.report" 2>&1 &
	shell_pid=$!
fi
# shell_done: wait for shellcheck, print its report, count its result.
shell_done() {
	[ -n "$shell_pid" ] || return 0
	wait "$shell_pid" || status=1
	cat "$tmp/shell.report"
	shell_pid=""
}
# The layer rule (docs/design.md), on a whole-tree run only: it reads every include line.
if [ $# -eq 0 ]; then
	build-aux/layers.sh || status=1
fi
if [ -z "$files" ]; then
	shell_done
	if [ "$status" -eq 0 ]; then echo "lint: clean"; else echo "lint: FAILED (findings above)" >&2; fi
	exit "$status"
fi

# --- C ----------------------------------------------------------------------------------------
# The same flags the Makefile compiles with (minus warnings, which the compiler already enforces).
pkg_cflags=$($PKG_CONFIG --cflags devmapper blkid libcrypto libsodium cmocka 2>/dev/null || true)
flags="-std=c11 -D_GNU_SOURCE -D_FORTIFY_SOURCE=2 -O2 -Iinclude $pkg_cflags"

echo "lint: cppcheck $($CPPCHECK --version | sed 's/^Cppcheck //') on $(echo "$files" | wc -w) files"
# shellcheck disable=SC2086
if ! $CPPCHECK --std=c11 --enable=warning,style,performance,portability --inline-suppr \
	--library=posix --suppressions-list=build-aux/cppcheck.supp \
	-D_GNU_SOURCE -U__cplusplus -Iinclude --quiet --error-exitcode=1 -j "$JOBS" \
	--template='{file}:{line}: {severity}: {message} [{id}]' $files; then
	status=1
fi

echo "lint: clang-tidy $($CLANG_TIDY --version | sed -n 's/.*LLVM version //p')"
tidy_out=$tmp/tidy.out
# A file that was clean with the same contents, the same headers, configuration and flags is not
# analysed again (clang-tidy is minutes on 2 cores): the cache key hashes all of them.
# LINT_CACHE=none disables the cache (for shellcheck too).
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
shell_done

if [ "$status" -eq 0 ]; then
	echo "lint: clean"
else
	echo "lint: FAILED (findings above)" >&2
fi
exit "$status"
