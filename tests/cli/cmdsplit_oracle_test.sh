#!/bin/sh
# lib/config/cmdsplit.c models how dracut's getarg and systemd split the kernel command line; this holds
# the models against the real programs of this machine on a corpus of nasty lines:
#  - dracut 059: dracut-getarg (dracut-util called through a link of that name) with $CMDLINE as
#    the getcmdline() of dracut-lib.sh builds it from /proc/cmdline — the functions are taken
#    from the installed dracut-lib.sh and run in a mount namespace with the line bind-mounted
#    over /proc/cmdline (needs root and unshare; skipped otherwise). For every key, its exit
#    status and output must be what the model's words say; on a trailing lone '"' it must crash.
#  - systemd 252: SYSTEMD_PROC_CMDLINE (honoured by proc_cmdline(), checked below) with
#    SYSTEMD_IN_INITRD=1. systemd-fstab-generator's sysroot.mount / sysusr-usr.mount must mount
#    the last root= / mount.usr= of the model of systemd's parser (backslashes literal);
#    `systemd-analyze condition ConditionKernelCommandLine=WORD` must hold for every word of the
#    model of that condition (which unescapes backslashes) and fail for the kernel's words that
#    model says it does not see. SYSTEMD_PROC_CMDLINE replaces read_one_line_file(), so lines with
#    \n or \r are held against dracut only (systemd reads /proc/cmdline only up to a line break,
#    which the model takes from systemd's read_line_full(); no oracle here shows it, as systemd
#    in a container reads PID 1's argv instead of /proc/cmdline).
# The driver tests/cli/cmdsplit_dump.c is built here against $BUILD/libverity.a.
# Environment: BUILD = build directory.
# shellcheck disable=SC2317  # test functions and helpers are called by shunit2

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
DUMP=$BUILD/tests/cmdsplit_dump
# shellcheck source=tests/cli/driver_lib.sh
. "$ROOT/tests/cli/driver_lib.sh"
DRACUT_UTIL=/usr/lib/dracut/dracut-util
DRACUT_LIB=/usr/lib/dracut/modules.d/99base/dracut-lib.sh
FSTAB_GEN=/usr/lib/systemd/system-generators/systemd-fstab-generator

# The corpus, in cmdsplit_dump's escapes (\n \r \t \v \f \\ \xHH), one line each.
corpus() {
	cat <<'END_OF_CORPUS'
quiet
BOOT_IMAGE=/vmlinuz-6.1.0-57-amd64 root=/dev/vda1 ro quiet
x='"' init=/bin/sh '"'
x='"' mount.usr=/dev/vdb '"' root=/dev/vda1
x="' init=/bin/sh '"
"init=/bin/sh" "root=/dev/vda2" "ro"
init=/bin/"sh" root=/dev/v"d"a x="a"b"c"
root=LABEL='my root' rd.shell=0
dyndbg="file foo.c +p" systemd.setenv="FOO=bar baz" "systemd.setenv=A=b c"
=init=/bin/sh "=" "a=" a="b"c "" b=""
root=/dev/a\\ b init=/sbin/init\\ c=\\"d e"
root=/dev/vda1 -- init=/bin/sh single
root=/dev/vda1\xa0init=/bin/sh
root=/dev/vda1\vmount.usr=/dev/vdb\fro
rd.break rd.shell=0 rdshell 'rd.shell=1' rd_shell=1
rd.shell=0 rd.shell rd.shell=off
root=/dev/vda1 root=/dev/vda2 mount.usr=/dev/vdb mount.usr=/dev/vdc
root="/dev/vd a" mount.usr='/dev/vd b'
root=/dev/v"d a"b mount.usr=/dev/v'd"b'
root=/dev/a\\"b c" mount.usr=/dev/x\\\\ x=\\'
"root=/dev/q" x=a\\ rd.break=pre-mount y=b\\
"" '' "a b"c d '"''"'
x="a   b"   y=\tz
it's root=/dev/vda1
\ttab\tseparated root=/dev/vda3\t
root="/dev/vd  \n  a" x=1\rinit=/bin/sh
  quiet\n\nrd.shell=0  \n
quiet rd.shell=0 "
END_OF_CORPUS
}

oneTimeSetUp() {
	cli_driver cmdsplit_dump.c "$DUMP" || exit 1
	corpus >"$SHUNIT_TMPDIR/corpus"
	BIN=$SHUNIT_TMPDIR/bin
	mkdir -p "$BIN"
	ln -sf "$DRACUT_UTIL" "$BIN/dracut-getarg"
	# getcmdline, getarg and getargbool exactly as installed; their logging is not needed
	DLIB=$SHUNIT_TMPDIR/dracut-getarg-lib.sh
	{
		echo 'debug_off() { :; }; debug_on() { :; }; warn() { :; }'
		for f in getcmdline getarg getargbool; do
			awk -v f="$f" '$0 ~ "^" f "\\(\\) \\{" { p = 1 } p { print } p && /^}/ { exit }' \
				"$DRACUT_LIB"
		done
	} >"$DLIB"
	CAN_BIND=0
	# shellcheck disable=SC2016  # expanded by the inner shell
	if [ "$(id -u)" -eq 0 ] && [ -x "$DRACUT_UTIL" ] && printf 'x' >"$SHUNIT_TMPDIR/probe" &&
		unshare -m sh -c 'mount --bind "$1" /proc/cmdline && [ "$(cat /proc/cmdline)" = x ]' \
			sh "$SHUNIT_TMPDIR/probe" 2>/dev/null; then
		CAN_BIND=1
	fi
	TAB=$(printf '\t')
}

# in_dracut LINEFILE SCRIPT: run SCRIPT (sh) with the getarg functions loaded, dracut-getarg in
# PATH and LINEFILE as /proc/cmdline, in a mount namespace of its own. SCRIPT's $1 is
# $SHUNIT_TMPDIR.
in_dracut() {
	# shellcheck disable=SC2016  # expanded by the inner shell
	unshare -m sh -c '
		mount --bind "$1" /proc/cmdline || exit 99
		PATH=$2:$PATH
		. "$3"
		script=$4
		shift 4
		eval "$script"' sh "$1" "$BIN" "$DLIB" "$2" "$SHUNIT_TMPDIR"
}

# What dracut-getarg answers for each key the model lists in $SHUNIT_TMPDIR/expected:
# "KEY RC OUTHEX" ("-": no output).
dracut_actual() {
	# shellcheck disable=SC2016  # expanded by the inner shell
	in_dracut "$1" '
		CMDLINE=$(getcmdline)
		export CMDLINE
		while read -r key rc hex; do
			dracut-getarg "$key" >"$1/getarg.out" 2>/dev/null
			rc=$?
			hex=$(od -An -tx1 <"$1/getarg.out" | tr -d " \n")
			echo "$key $rc ${hex:--}"
		done <"$1/expected"'
}

test_dracut_getarg_reads_as_modelled() {
	if [ "$CAN_BIND" -ne 1 ]; then
		startSkipping
		fail "needs root, unshare -m and $DRACUT_UTIL"
		return
	fi
	while IFS= read -r esc; do
		"$DUMP" raw "$esc" >"$SHUNIT_TMPDIR/line"
		"$DUMP" dracut "$esc" >"$SHUNIT_TMPDIR/expected"
		if [ "$(cat "$SHUNIT_TMPDIR/expected")" = fails ]; then
			# shellcheck disable=SC2016
			got=$(in_dracut "$SHUNIT_TMPDIR/line" \
				'CMDLINE=$(getcmdline) dracut-getarg rd.shell >/dev/null 2>&1; echo $?')
			assertEquals "dracut-getarg dies of SIGSEGV on: $esc" 139 "$got"
			continue
		fi
		assertEquals "dracut-getarg on: $esc" "$(cat "$SHUNIT_TMPDIR/expected")" \
			"$(dracut_actual "$SHUNIT_TMPDIR/line")"
	done <"$SHUNIT_TMPDIR/corpus"
}

# The crash's consequence: getargbool answers its default, rd.shell=0 is lost.
test_dracut_trailing_quote_loses_rd_shell_0() {
	if [ "$CAN_BIND" -ne 1 ]; then
		startSkipping
		fail "needs root, unshare -m and $DRACUT_UTIL"
		return
	fi
	printf 'quiet rd.shell=0\n' >"$SHUNIT_TMPDIR/line"
	assertEquals "without the quote, rd.shell=0 is off" "off" \
		"$(in_dracut "$SHUNIT_TMPDIR/line" 'getargbool 1 rd.shell && echo on || echo off')"
	printf 'quiet rd.shell=0 "\n' >"$SHUNIT_TMPDIR/line"
	assertEquals "with a trailing lone quote, the default (on) wins" "on" \
		"$(in_dracut "$SHUNIT_TMPDIR/line" \
			'getargbool 1 rd.shell 2>/dev/null && echo on || echo off' 2>/dev/null)"
	assertEquals "the model says dracut fails" "fails" "$("$DUMP" dracut 'quiet rd.shell=0 "')"
	assertContains "and the check refuses the line" \
		"$("$DUMP" check 'quiet rd.shell=0 "')" "dracut's getarg would crash"
}

# sd_condition LINE WORD: does systemd see WORD on LINE? (0 yes)
sd_condition() {
	SYSTEMD_PROC_CMDLINE=$1 SYSTEMD_IN_INITRD=1 SYSTEMD_LOG_LEVEL=err \
		systemd-analyze condition "ConditionKernelCommandLine=$2" >/dev/null 2>&1
}

test_systemd_honours_SYSTEMD_PROC_CMDLINE() {
	sd_condition "verity-init-oracle-probe=1" "verity-init-oracle-probe=1"
	assertTrue "a word of SYSTEMD_PROC_CMDLINE is seen" $?
	sd_condition "something-else" "verity-init-oracle-probe=1"
	assertFalse "a word not in it is not" $?
}

test_systemd_words_as_modelled() {
	while IFS= read -r esc; do
		case $esc in *'\n'* | *'\r'*) continue ;; esac
		line=$("$DUMP" raw "$esc")
		"$DUMP" systemd "$esc" >"$SHUNIT_TMPDIR/sd"
		while IFS=$TAB read -r tag word; do
			case $tag in
			W)
				sd_condition "$line" "$word"
				assertTrue "systemd sees '$word' on: $esc" $?
				;;
			N)
				sd_condition "$line" "$word"
				assertFalse "systemd does not see '$word' on: $esc" $?
				;;
			esac
		done <"$SHUNIT_TMPDIR/sd"
	done <"$SHUNIT_TMPDIR/corpus"
}

# What= of a unit the generator wrote, "-" when there is none.
unit_what() {
	if [ -f "$1" ]; then sed -n 's/^What=//p' "$1"; else echo -; fi
}

test_systemd_fstab_generator_mounts_as_modelled() {
	if [ ! -x "$FSTAB_GEN" ]; then
		startSkipping
		fail "no $FSTAB_GEN"
		return
	fi
	out=$SHUNIT_TMPDIR/gen
	while IFS= read -r esc; do
		case $esc in *'\n'* | *'\r'*) continue ;; esac
		line=$("$DUMP" raw "$esc")
		rm -rf "$out" && mkdir -p "$out"
		SYSTEMD_PROC_CMDLINE=$line SYSTEMD_IN_INITRD=1 SYSTEMD_LOG_LEVEL=err \
			"$FSTAB_GEN" "$out" "$out" "$out" >/dev/null 2>&1
		"$DUMP" systemd "$esc" >"$SHUNIT_TMPDIR/sd"
		while IFS=$TAB read -r tag want; do
			case $tag in
			ROOT) unit=sysroot.mount ;;
			USR) unit=sysusr-usr.mount ;;
			*) continue ;;
			esac
			# the generator rewrites LABEL=, UUID=...: /dev paths and "none" are compared
			case $want in /dev/* | -) ;; *) continue ;; esac
			assertEquals "$tag on: $esc" "$want" "$(unit_what "$out/$unit")"
		done <"$SHUNIT_TMPDIR/sd"
	done <"$SHUNIT_TMPDIR/corpus"
}

# The attack against the real programs: the kernel (so the agent) and dracut's getarg see no
# init=, systemd does; the check refuses the line. Fully quoted, all agree and it is accepted.
test_attack_is_real_and_refused() {
	line="x='\"' init=/bin/sh '\"'"
	sd_condition "$line" "init=/bin/sh"
	assertTrue "real systemd reads init=/bin/sh" $?
	want="0 78 $(printf '%s' "'\"' init=/bin/sh '\"'" | od -An -tx1 | tr -d ' \n')
flags 0"
	assertEquals "the kernel reads one word, x=..." "$want" "$("$DUMP" words kernel "$line")"
	if [ "$CAN_BIND" -eq 1 ]; then
		printf '%s\n' "$line" >"$SHUNIT_TMPDIR/line"
		# shellcheck disable=SC2016
		assertEquals "real dracut-getarg finds no init" "1" \
			"$(in_dracut "$SHUNIT_TMPDIR/line" \
				'CMDLINE=$(getcmdline) dracut-getarg init; echo $?')"
	fi
	assertContains "refused" "$("$DUMP" check "$line")" "'init' is read differently by systemd"
	assertEquals "fully quoted, every reader agrees" "ok" "$("$DUMP" check '"init=/bin/sh"')"
	sd_condition '"init=/bin/sh"' "init=/bin/sh"
	assertTrue "and real systemd reads init=/bin/sh there too" $?
}

# shellcheck disable=SC1091
. /usr/share/shunit2/shunit2
