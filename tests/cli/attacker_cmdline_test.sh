#!/bin/bash
# The attacker's command line: a catalogue of what someone who can edit an unsigned kernel command
# line tries, each case refused by `verity-init parse --cmdline LINE` (exit status 1) with the key
# it abuses named in the reason. Classes: shell code in device specs, quoting tricks the kernel,
# dracut and systemd read differently, the booted system's environment, hand-over switches
# (shells, units, runlevels), the version floor; and the dracut module's hooks of both init
# flavours run with the REAL agent and the REAL dracut-getarg on representative lines.
# Each test loops over variants; every assertion message names its variant.
# Environment: BUILD = build directory (the agent under test); MOD = the dracut module directory
# (default: this tree's dracut-module/), so the file can be run against another checkout.
# shellcheck disable=SC2317  # test functions and helpers are called by shunit2

TOP=$(cd "$(dirname "$0")/../.." && pwd)
: "${BUILD:=$TOP/build}"
: "${MOD:=$TOP/dracut-module}"
# shellcheck source=tests/cli/policy_lib.sh
. "$TOP/tests/cli/policy_lib.sh"
VI=$BUILD/verity-init
RH=$(printf '%064d' 0)                 # a well-formed sha256 root hash
BASE="roothash=$RH verity.data=/dev/vda verity.hash=/dev/vdb"
DRACUT_UTIL=/usr/lib/dracut/dracut-util
DRACUT_LIB=/usr/lib/dracut/modules.d/99base/dracut-lib.sh

oneTimeSetUp() {
	W=$SHUNIT_TMPDIR
	MARK=$W/pwned                      # what every injected command would create
	if [ ! -x "$VI" ]; then
		echo "verity-init not built in $BUILD" >&2
		exit 1
	fi
	# a host policy would change the default verdicts: the cases then run under an empty one
	HOST_POLICY=
	[ -e /etc/verity-init.conf ] && HOST_POLICY=1
	return 0
}

setUp() {
	rm -f "$MARK"
}

# no_policy CMD... : CMD as the agent runs without a policy file (an empty policy: the defaults)
no_policy() {
	if [ -n "$HOST_POLICY" ]; then
		with_policy "" "$@"
	else
		"$@"
	fi
}

# parse_out LINE : `verity-init parse --cmdline LINE` without a policy; sets OUT and RC
parse_out() {
	OUT=$(no_policy "$VI" parse --cmdline "$1" 2>&1 >/dev/null)
	RC=$?
}

# named KEY MESSAGE : does MESSAGE (the agent's last line) name KEY as the agent names a key:
# "KEY: ..." at its start, "... KEY '...'" (an option inside a key), 'KEY' or 'KEY='
named() {
	local m=${2##*verity-init: }
	case $m in
	"$1: "* | *" $1 '"* | *"'$1'"* | *"'$1='"*) return 0 ;;
	esac
	return 1
}

# refused_named WHAT KEY LINE [EXPECTED-SUBSTRING] : exit 1, KEY named, no marker file
refused_named() {
	parse_out "$3"
	assertEquals "$1: exit status (output: $OUT)" 1 "$RC"
	named "$2" "$OUT"
	assertTrue "$1: '$2' named in: $OUT" $?
	if [ -n "${4:-}" ]; then
		assertContains "$1: reason" "$OUT" "$4"
	fi
	assertFalse "$1: the injected command ran" "[ -e '$MARK' ]"
}

# --- 1. shell code in a device spec ----------------------------------------------------------
# Every key that takes a device (or a path): "KEY|FORMS|BEFORE|OPTION|AFTER"; the value is
# BEFORE OPTION FORM PAYLOAD AFTER. FORMS: dev /dev/X, label LABEL=X, partlabel PARTLABEL=X,
# uuid UUID=X, path a file in the initramfs (verity.sig=, verity.manifest=) or init's path.
# "dm" marks a dm-mod.create= table: its value is already in kernel quotes (no whitespace or '"'
# variant there: both end or split the table, not a device).
device_keys() {
	local rr="verity.recovery.roothash=$RH"
	local table="sha256 $RH -\""
	cat <<EOF
verity.data|dev label partlabel uuid|roothash=$RH verity.data=|| verity.hash=/dev/vdb
verity.hash|dev label partlabel uuid|roothash=$RH verity.data=/dev/vda verity.hash=||
systemd.verity_root_data|dev label partlabel uuid|roothash=$RH systemd.verity_root_data=|| systemd.verity_root_hash=/dev/vdb
systemd.verity_root_hash|dev label partlabel uuid|roothash=$RH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=||
verity.recovery.data|dev label partlabel uuid|$BASE $rr verity.recovery.data=|| verity.recovery.hash=/dev/vdd
verity.recovery.hash|dev label partlabel uuid|$BASE $rr verity.recovery.data=/dev/vdc verity.recovery.hash=||
fec-device|dev label partlabel uuid|$BASE verity.options=|fec-device=|
fec-device|dev label partlabel uuid|roothash=$RH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb systemd.verity_root_options=|fec-device=|
fec-device|dev label partlabel uuid|$BASE $rr verity.recovery.data=/dev/vdc verity.recovery.hash=/dev/vdd verity.recovery.options=|fec-device=|
verity.sig|dev label partlabel uuid path|$BASE verity.sig=||
verity.manifest|dev label partlabel uuid path|$BASE verity.manifest=||
dm-mod.create|dm dev label partlabel uuid|dm-mod.create="vroot,,,ro,0 8 verity 1 || /dev/vdb 4096 4096 1 1 $table
dm-mod.create|dm dev label partlabel uuid|dm-mod.create="vroot,,,ro,0 8 verity 1 /dev/vda || 4096 4096 1 1 $table
init|path|$BASE init=||
EOF
}

form_value() {
	case $1 in
	dev) echo /dev/vd ;;
	label) echo LABEL=root ;;
	partlabel) echo PARTLABEL=root ;;
	uuid) echo UUID=0123abcd ;;
	path) echo /sbin/vi ;;
	esac
}

# The metacharacters, each as "NAME|PAYLOAD"; the ones that run something create $MARK.
# ${IFS} stands where a space would end the kernel's word.
payloads() {
	# shellcheck disable=SC2016 # the payloads are meant literally
	printf '%s\n' \
		"cmdsubst|\$(touch\${IFS}$MARK)" \
		'ifs|a${IFS}b' \
		"backtick|\`touch\${IFS}$MARK\`" \
		"semicolon|;touch\${IFS}$MARK" \
		"pipe||touch\${IFS}$MARK" \
		"ampersand|&touch\${IFS}$MARK" \
		"less|<$MARK" \
		"greater|>$MARK" \
		'lparen|(' 'rparen|)' 'lbrace|{' 'rbrace|}' 'star|*' 'question|?' \
		'lbracket|[' 'rbracket|]' 'tilde|~' 'bang|!' 'hash|#' \
		"squote|'x'" \
		'dquote|"x"' \
		'backslash|\q' \
		'space|'
}

testAttackerShellCodeInDeviceSpecs() {
	local key forms before opt after f form pname payload value line variant named_key n=0
	while IFS='|' read -r key forms before opt after; do
		for f in $forms; do
			[ "$f" = dm ] && continue
			form=$(form_value "$f")
			while IFS='|' read -r pname payload; do
				case "$pname:$forms" in
				space:dm* | dquote:dm*) continue ;;
				esac
				if [ "$pname" = space ]; then
					# whitespace inside the value, given in kernel quotes
					value="\"$opt${form}a b\""
				else
					value="$opt$form$payload"
				fi
				line="$before$value$after"
				variant="$key ${before%%=*}... form $f, $pname: $line"
				# a quote inside a word: the split check may refuse first; it names the
				# key it reads differently (the one the option is inside)
				named_key=$key
				case "$pname:$key" in
				[sd]quote:fec-device) named_key=${before##* } named_key=${named_key%=} ;;
				esac
				refused_named "$variant" "$named_key" "$line"
				n=$((n + 1))
			done <<EOF
$(payloads)
EOF
		done
	done <<EOF
$(device_keys)
EOF
	echo "device-spec variants: $n"
	assertTrue "variants run ($n)" "[ $n -ge 900 ]"
}

# --- 2. quoting ------------------------------------------------------------------------------
# A lone '"' at the end: the kernel reads the rest as one word, dracut 059's dracut-getarg
# crashes (getargbool then answers its default: the rd.shell=0 the module writes is lost).
testAttackerQuotingTrailingQuoteRefused() {
	local tail rc line
	for tail in 'rootflags=bogus "' 'quiet "' 'rd.shell=0 "' 'init=/sbin/init "' 'x=1 "'; do
		line="$BASE $tail"
		parse_out "$line"
		assertEquals "'$tail': exit status (output: $OUT)" 1 "$RC"
		assertContains "'$tail': reason" "$OUT" "unbalanced double quote (dracut's getarg would crash"
		if [ -x "$DRACUT_UTIL" ]; then
			mkdir -p "$W/bin" && ln -sf "$DRACUT_UTIL" "$W/bin/dracut-getarg"
			# (the shell's own "Segmentation fault" notice goes to /dev/null too)
			{ CMDLINE=$line "$W/bin/dracut-getarg" rd.shell >/dev/null 2>&1; } 2>/dev/null
			rc=$?
			assertTrue "'$tail': the real dracut-getarg crashes on it (exit status $rc)" \
				"[ $rc -ge 128 ]"
		fi
	done
	if [ -x "$DRACUT_UTIL" ]; then
		CMDLINE="$BASE rootflags=bogus" "$W/bin/dracut-getarg" rd.shell >/dev/null 2>&1
		assertEquals "control: dracut-getarg without the quote (rd.shell absent)" 1 $?
	else
		echo "skip: no $DRACUT_UTIL (dracut-core): crash not shown"
	fi
}

# '"' inside a word: systemd removes every one, the kernel only those around a word or a value
testAttackerQuotingQuotesInsideWordsRefused() {
	local v word key
	for v in 'init=/sbin/in"i"t|init' 'root=/dev/v"d"c|root' 'verity.fail=re"boo"t|verity.fail' \
		'systemd.unit=res"cue".target|systemd.unit' 'sys"temd.debug_sh"ell|systemd.debug_shell' \
		'LD_PRE"LOAD"=/x|LD_PRELOAD' 'rd.b"rea"k|rd.b"rea"k' 'verity.data=/dev/v"d"a|verity.data' \
		'"rd.shell"|rd.shell' 'rootflags=a"b"c|rootflags'; do
		word=${v%|*} key=${v##*|}
		refused_named "quote in '$word'" "$key" "$BASE $word"
	done
}

# One quote kind hides a key from the kernel (and dracut) but not from systemd: x='"' KEY '"'
# is one word to the kernel ('"' quotes), three to systemd ("'" quotes too).
testAttackerQuotingSingleQuotesHideKeysFromTheKernel() {
	local v word key
	for v in 'init=/bin/sh|init' 'mount.usr=/dev/vdc|mount.usr' 'root=/dev/vdc|root' \
		'rd.break|rd.break' 'systemd.unit=emergency.target|systemd.unit' 'LD_PRELOAD=/x|LD_PRELOAD'; do
		word=${v%|*} key=${v##*|}
		refused_named "x='\"' $word '\"'" "$key" "$BASE x='\"' $word '\"'" "is read differently by systemd"
	done
}

# The other kind, x="'" KEY "'", hides nothing: '"' quotes "'" for every reader, so KEY is a word
# of its own to all of them. The verdict is the one on KEY alone (no quote trick gets it
# through), and where KEY is init=, the policy's pin still holds.
testAttackerQuotingDoubleQuotesHideNothing() {
	local v word key out rc
	for v in 'rd.break|rd.break' 'mount.usr=/dev/vdc|mount.usr' 'systemd.debug_shell|systemd.debug_shell' \
		'LD_PRELOAD=/x|LD_PRELOAD' 'systemd.unit=rescue.target|systemd.unit'; do
		word=${v%|*} key=${v##*|}
		refused_named "x=\"'\" $word \"'\"" "$key" "$BASE x=\"'\" $word \"'\""
	done
	if [ -x "$DRACUT_UTIL" ]; then
		mkdir -p "$W/bin" && ln -sf "$DRACUT_UTIL" "$W/bin/dracut-getarg"
		out=$(CMDLINE="x=\"'\" init=/bin/sh \"'\"" "$W/bin/dracut-getarg" init)
		assertEquals "dracut reads init= in x=\"'\" init=/bin/sh \"'\"" /bin/sh "$out"
		out=$(CMDLINE="x='\"' init=/bin/sh '\"'" "$W/bin/dracut-getarg" init)
		assertEquals "dracut does not read init= in x='\"' init=/bin/sh '\"' (the kernel neither)" "" "$out"
	fi
	policy_refuses "x=\"'\" init=/bin/sh \"'\" against init=/sbin/init" "init=/sbin/init" \
		"$BASE x=\"'\" init=/bin/sh \"'\"" "init=/bin/sh: the initramfs policy allows only init=/sbin/init"
}

# After "--" the kernel hands the words to init; systemd and dracut read them as settings
testAttackerQuotingKeysAfterDoubleDashRefused() {
	local word key
	for word in init=/bin/sh rd.break rd.shell verity.fail=reboot systemd.unit=rescue.target \
		rd.systemd.unit=emergency.target systemd.debug_shell real_init=/bin/sh root=/dev/vdc \
		verity.roothash="$RH" rootflags=rw mount.usr=/dev/vdc; do
		key=${word%%=*}
		refused_named "'-- $word'" "$key" "$BASE -- $word" "after '--'"
	done
}

# --- 3. the environment of the booted system -------------------------------------------------
testAttackerEnvironmentNamesRefused() {
	local v word key
	for v in LD_PRELOAD=/x LD_LIBRARY_PATH=/x LD_AUDIT=/x GCONV_PATH=/x LOCPATH=/x NLSPATH=/x \
		MALLOC_CHECK_=3 GLIBC_TUNABLES=glibc.malloc.check=3 \
		'"SYSTEMD_PROC_CMDLINE=init=/bin/sh rd.shell"' PATH=/tmp BASH_ENV=/x ENV=/x IFS=/ \
		RD_DEBUG=1 systemd.setenv=LD_PRELOAD=/x rd.systemd.setenv=SYSTEMD_SULOGIN_FORCE=1 \
		systemd.setenv=PATH=/tmp; do
		word=${v#\"}
		case $word in *setenv=*) word=${word#*setenv=} ;; esac
		key=${word%%=*}
		refused_named "'$v'" "$key" "$BASE $v" "sets the environment of the booted system: never allowed"
	done
}

testAttackerEnvironmentOnlyThePolicysNames() {
	local p
	refused_named "FOO=bar without a policy" FOO "$BASE FOO=bar" "not in the initramfs policy's init_env="
	policy_run "init_env=FOO" "$VI" parse --cmdline "$BASE FOO=bar" || return 0
	assertEquals "FOO=bar with init_env=FOO accepted ($OUT)" 0 "$RC"
	policy_run "init_env=FOO" "$VI" parse --cmdline "$BASE BAR=1"
	assertEquals "BAR=1 with init_env=FOO: exit status ($OUT)" 1 "$RC"
	named BAR "$OUT"
	assertTrue "BAR named: $OUT" $?
	policy_refuses "LD_PRELOAD=/x with init_env=FOO" "init_env=FOO" "$BASE LD_PRELOAD=/x" \
		"'LD_PRELOAD=' sets the environment"
	# the policy cannot allow such a name either: the agent reports the policy line
	for p in init_env=LD_PRELOAD init_env=FOO,GLIBC_TUNABLES init_env=PATH; do
		policy_refuses "policy $p" "$p" "$BASE" "policy line 1: init_env: '${p##*[=,]}' loads code"
	done
}

# --- 4. hand-over switches: shells, units, runlevels -----------------------------------------
HANDOVER="systemd.debug_shell rd.systemd.debug_shell systemd.crash_shell systemd.unit=emergency.target
rd.systemd.unit=rescue.target systemd.unit=debug-shell.service systemd.wants=debug-shell.service
systemd.mask=verity-init-setup.service systemd.run=/bin/sh rd.systemd.run=/bin/sh resume=/dev/vdc
emergency rescue single -b s S 1 rd.break rd.shell rd.break=pre-pivot rd.shell=1 systemd.debug_shell=1
rd.systemd.wants=x.service"

testAttackerHandoverRefusedByDefault() {
	local word n=0
	for word in $HANDOVER; do
		OUT=$(with_policy "" "$VI" parse --cmdline "$BASE $word" 2>&1 >/dev/null)
		RC=$?
		if [ "$RC" -eq 77 ]; then
			[ -z "$HOST_POLICY" ] || { echo "skip: no mount namespace or overlayfs"; return 0; }
			parse_out "$BASE $word"
		fi
		assertEquals "'$word' without allow_shell: exit status ($OUT)" 1 "$RC"
		named "${word%%=*}" "$OUT"
		assertTrue "'$word': '${word%%=*}' named: $OUT" $?
		n=$((n + 1))
	done
	assertEquals "hand-over words" 24 "$n"
}

testAttackerHandoverAcceptedWithAllowShell() {
	local word
	for word in $HANDOVER; do
		policy_run "allow_shell=yes" "$VI" parse --cmdline "$BASE $word" || return 0
		assertEquals "'$word' with allow_shell=yes accepted ($OUT)" 0 "$RC"
	done
	# the policy allows the shells, not everything: the environment stays refused
	policy_refuses "setenv with allow_shell=yes" "allow_shell=yes" \
		"$BASE rd.systemd.setenv=SYSTEMD_SULOGIN_FORCE=1" "'SYSTEMD_SULOGIN_FORCE=' sets the environment"
}

# --- 5. the version floor --------------------------------------------------------------------
testAttackerVersionFloorNeedsAManifest() {
	local pol line what
	for pol in min_version=2 require_manifest=yes "min_version=2
require_manifest=yes"; do
		what=$(printf '%s' "$pol" | tr '\n' ' ')
		for line in "$BASE verity.sig=/etc/verity-init/root.p7s" "$BASE" \
			"roothash=$RH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb systemd.verity_root_options=root-hash-signature=/etc/x.p7s"; do
			policy_refuses "[$what] '$line'" "$pol" "$line" \
				"the root needs a signed manifest (verity.manifest=)" || return 0
		done
		# a recovery root cannot carry a manifest: none under a floor, even with the root's
		line="$BASE verity.manifest=/etc/verity-init/root.manifest verity.recovery.roothash=$RH verity.recovery.data=/dev/vdc verity.recovery.hash=/dev/vdd"
		policy_refuses "[$what] recovery root" "$pol" "$line" "no recovery root under this policy"
		# control: the root's manifest alone passes parse (its version is checked at setup)
		policy_run "$pol" "$VI" parse --cmdline "$BASE verity.manifest=/etc/verity-init/root.manifest"
		assertEquals "[$what] control with a manifest ($OUT)" 0 "$RC"
	done
}

# --- 5b. A/B slots: every root from a slot's signed manifest ---------------------------------
# Under slots= the command line names no root, recovery root or /usr: `parse` gives the verdict
# PID 1 and dracut's setup give (exit 1, the rule's reason), whatever else the policy holds.
testAttackerNoRootOutsideTheSlotsManifests() {
	local line out rc
	for line in "$BASE" "verity.manifest=/etc/verity-init/root.manifest" \
		"verity.fail=recovery verity.recovery.roothash=$RH verity.recovery.data=/dev/vdc verity.recovery.hash=/dev/vdd" \
		"usrhash=$RH systemd.volatile=yes" "usrhash=$RH root=/dev/vdc" \
		"dm-mod.create=\"root,,,ro,0 8 verity 1 /dev/vda /dev/vdb 4096 4096 1 1 sha256 $RH -\""; do
		policy_refuses "'$line'" "slots=a,b" "$line" \
			"boots A/B slots (slots=): every root comes from a slot's signed manifest" || return 0
	done
	# no verity at all, even where the policy allows that weakening: dracut would mount root=
	policy_refuses "systemd.verity=0 with allow_weak=verity-off" "slots=a,b
allow_weak=verity-off" "systemd.verity=0 root=/dev/sda2" "a root without verity (systemd.verity=0)"
	# the control: the slots' root, only mount and init options from the line
	out=$(with_policy "slots=a,b" "$VI" parse --cmdline "root=/dev/mapper/root rootflags=noatime" 2>&1)
	assertEquals "control ($out)" 0 $?
	assertContains "control: no root of the line" "$out" "enabled=no"
}

# --- 6. the dracut module, both init flavours, real agent and real dracut-getarg -------------
# dracut_env : the scratch initramfs: the real dracut-getarg (dracut-util under that name), the
# real getarg/getargbool of dracut-lib.sh over it, getcmdline printing the test line, and a
# wait_for_dev that evals its argument as dracut's sourced initqueue/finished script would.
dracut_env() {
	local d=$W/dr
	[ -x "$DRACUT_UTIL" ] && [ -r "$DRACUT_LIB" ] || return 1
	rm -rf "$d" && mkdir -p "$d/bin"
	ln -sf "$DRACUT_UTIL" "$d/bin/dracut-getarg"
	{
		echo 'debug_off() { :; }; debug_on() { :; }; warn() { :; }'
		# shellcheck disable=SC2016 # expanded by the hooks' shell
		echo 'getcmdline() { printf "%s" "$TEST_CMDLINE"; }'
		awk '/^getarg\(\)/,/^}/; /^getargbool\(\)/,/^}/' "$DRACUT_LIB"
		cat <<EOF
wait_for_dev() { echo "wait_for_dev \$1" >>'$d/calls'; eval "[ -e \\"\$1\\" ]"; }
initqueue() { echo "initqueue \$*" >>'$d/calls'; }
emergency_shell() { echo "emergency_shell \$*" >>'$d/calls'; }
label_uuid_to_dev() { printf '%s' "\$1"; }
udevadm() { :; }
dmsetup() { :; }
EOF
	} >"$d/lib.sh"
	cat >"$d/settings.sh" <<EOF
VI_AGENT=$VI
VI_SYSRQ=$d/sysrq
VI_KMSG=$d/kmsg
VI_ACTION_WAIT=0
VI_RUNDIR=$d/run
VI_CMDLINE_D=$d/cmdline.d
VI_DRACUT_GETARG=$d/bin/dracut-getarg
VI_EXPORT_ORIG=$d/export.orig
VI_SYSTEMD_DIR=$d/systemd-system
vi_hang() { exit 1; }
EOF
	# the hooks, loading the checkout's library (in the image: /lib/verity-init-lib.sh)
	local h
	for h in parse-verity-init.sh verity-init-dracut.sh; do
		sed "s|^\. /lib/verity-init-lib\.sh\$|. '$MOD/verity-init-lib.sh'|" "$MOD/$h" >"$d/$h"
	done
}

# run_dracut FLAVOUR LINE : the boot's order: (systemd) the generator; the cmdline hook; then what
# sets up the root (the initqueue job, or verity-init-setup.service): /sbin/verity-init-dracut
# setup. Prints markers for each stage that returned.
run_dracut() {
	local d=$W/dr
	rm -rf "$d/sysrq" "$d/kmsg" "$d/run" "$d/cmdline.d" "$d/calls" "$d/gen" "$d/gen-early" "$d/gen-late" \
		"$d/systemd-system" "$d/genroot"
	mkdir -p "$d/gen" "$d/gen-early" "$d/gen-late"
	# systemd as the initramfs's init: what it creates (the library's VI_SYSTEMD_DIR)
	[ -z "$1" ] || mkdir -p "$d/systemd-system"
	: >"$d/calls"
	(
		cd "$d" || exit 1
		TEST_CMDLINE=$2 PATH=$d/bin:$PATH no_policy timeout 30 sh -c "
			. '$d/lib.sh'
			. '$MOD/verity-init-lib.sh'
			. '$d/settings.sh'
			if vi_systemd; then
				mkdir -p '$d/genroot/proc'
				printf '%s\\n' \"\$TEST_CMDLINE\" >'$d/genroot/proc/cmdline'
				'$VI' generator --root '$d/genroot' '$d/gen' '$d/gen-early' '$d/gen-late'
				echo \"GENERATOR-EXIT=\$?\"
			fi
			root='' rflags='' fstype=''
			hook() { . '$d/parse-verity-init.sh'; }
			hook
			echo HOOK-RETURNED
			set -- setup
			. '$d/verity-init-dracut.sh'
			echo SETUP-RETURNED" 2>&1
	)
}

# One representative line per class 1-4: "AT-ONCE|EXPECTED-IN-KMSG|LINE"; AT-ONCE=1 where the
# cmdline hook itself must stop the boot (a shell dracut would open, a line dracut cannot parse),
# 0 where it hands the refusal to the setup job (which then must not return either).
dracut_lines() {
	cat <<EOF
0|verity.data: device|roothash=$RH verity.data=/dev/vd\$(touch\${IFS}$MARK) verity.hash=/dev/vdb
0|verity.hash: device|roothash=$RH verity.data=/dev/vda verity.hash=LABEL=x;touch\${IFS}$MARK
0|fec-device '|$BASE verity.options=fec-device=/dev/x\`touch\${IFS}$MARK\`
0|systemd.verity_root_data: device|roothash=$RH systemd.verity_root_data=PARTLABEL=a|touch\${IFS}$MARK
0|verity.recovery.data: device|$BASE verity.recovery.roothash=$RH verity.recovery.data=/dev/x>$MARK
0|init: path|$BASE init=/sbin/init;touch\${IFS}$MARK
1|unbalanced double quote|$BASE rootflags=bogus "
0|'init' is read differently|$BASE x='"' init=/bin/sh '"'
1|'rd.break' after '--'|$BASE -- rd.break=pre-pivot
0|'LD_PRELOAD='|$BASE LD_PRELOAD=/x
0|'LD_PRELOAD='|$BASE systemd.setenv=LD_PRELOAD=/x
0|'systemd.debug_shell'|$BASE systemd.debug_shell
1|'rd.break'|$BASE rd.break
1|'rd.shell'|$BASE rd.shell=1
EOF
}

# check_dracut FLAVOUR AT-ONCE EXPECTED LINE OUTPUT
check_dracut() {
	local v="flavour '${1:-shell}': $4" d=$W/dr
	assertNotContains "$v: the boot went on after the setup job: $5" "$5" SETUP-RETURNED
	if [ "$2" = 1 ]; then
		assertNotContains "$v: the cmdline hook returned" "$5" HOOK-RETURNED
	fi
	assertEquals "$v: the policy's action (panic) applied" c "$(head -n 1 "$d/sysrq" 2>/dev/null)"
	assertContains "$v: the agent's reason in the kernel log" "$(cat "$d/kmsg" 2>/dev/null)" "$3"
	assertEquals "$v: wait_for_dev calls" "" "$(grep -v '^wait_for_dev /dev/mapper/root$' "$d/calls" | grep wait_for_dev)"
	assertFalse "$v: the injected command ran" "[ -e '$MARK' ]"
	assertNotContains "$v: no dracut shell" "$(cat "$d/calls")" emergency_shell
}

testAttackerDracutShellInitFlavour() {
	local at exp line out n=0
	dracut_env || { startSkipping; fail "needs dracut-core ($DRACUT_UTIL, $DRACUT_LIB)"; return; }
	while IFS='|' read -r at exp line; do
		rm -f "$MARK"
		out=$(run_dracut "" "$line")
		check_dracut "" "$at" "$exp" "$line" "$out"
		n=$((n + 1))
	done <<EOF
$(dracut_lines)
EOF
	assertEquals "lines" 14 "$n"
}

testAttackerDracutSystemdFlavour() {
	local at exp line out n=0 d=$W/dr
	dracut_env || { startSkipping; fail "needs dracut-core ($DRACUT_UTIL, $DRACUT_LIB)"; return; }
	while IFS='|' read -r at exp line; do
		rm -f "$MARK"
		out=$(run_dracut 1 "$line")
		check_dracut 1 "$at" "$exp" "$line" "$out"
		# the generator: nothing of the line in a unit, the root is the mapping, and the setup
		# service (which applies the refusal) is pulled in
		assertContains "generator on '$line': $out" "$out" "GENERATOR-EXIT=0"
		assertTrue "generator on '$line': setup service required" \
			"[ -L '$d/gen/initrd-root-device.target.requires/verity-init-setup.service' ]"
		assertContains "generator on '$line': /sysroot is the mapping" \
			"$(cat "$d/gen-early/sysroot.mount" 2>/dev/null)" "What=/dev/mapper/root"
		assertEquals "generator on '$line': nothing of the line in the units" "" \
			"$(grep -rl -e touch -e 'pwned' -e '/dev/x' -e LD_PRELOAD "$d/gen" "$d/gen-early" "$d/gen-late" 2>/dev/null)"
		n=$((n + 1))
	done <<EOF
$(dracut_lines)
EOF
	assertEquals "lines" 14 "$n"
}

# bash imports a function from every environment variable named BASH_FUNC_name%% (or
# BASH_FUNC_name()), and the kernel makes each NAME=value word without a dot an environment
# variable of dracut's shell: such a word would replace the module's shell functions. Refused,
# with or without a verity root on the line; an ordinary lower-case word is not.
testShellFunctionImportWordsRefused() {
	local w out
	for w in 'BASH_FUNC_vi_load%%=() { return 1; }' 'BASH_FUNC_sed()=() { :; }' 'x%y=1'; do
		out=$("$VI" parse --cmdline "root=/dev/sdb1 \"$w\"" 2>&1)
		assertNotEquals "accepted: $w" 0 "$?"
		assertContains "$w" "$out" "a shell would import it as a function"
	done
	"$VI" parse --cmdline "root=/dev/sdb1 foo-bar=1 console=ttyS0" >/dev/null 2>&1
	assertEquals "an ordinary word" 0 "$?"
}

# The same import against the hooks themselves, in bash started as sh (dracut's /bin/sh): a
# function named [ that answers yes to the hooks' "is the library loaded" test would keep the
# library (and its unset -f of imported functions) out, and imported vi_* functions would stand
# in for it. Each hook's first step must load the library whatever functions were imported.
testHooksLoadTheLibraryWhateverFunctionsWereImported() {
	local d=$SHUNIT_TMPDIR/hooks h out
	if ! { mkdir -p "$d" && ln -sf "$(command -v bash)" "$d/sh"; }; then
		fail "bash as sh"
		return
	fi
	printf '_vi_lib=loaded\necho LIBRARY-LOADED\n' >"$d/lib.sh"
	for h in parse-verity-init.sh verity-init-check-init.sh verity-init-emergency.sh \
		verity-init-mount.sh; do
		sed "s|/lib/verity-init-lib.sh|$d/lib.sh|" "$MOD/$h" >"$d/$h"
		# shellcheck disable=SC2016 # the function's text, for bash to import
		out=$(env 'BASH_FUNC_[%%=() { case $3 in loaded) return 0;; esac; builtin [ "$@"; }' \
			"$d/sh" -c "getarg() { return 1; }; getargbool() { return 1; }; vi_load() { return 1; }
				vi_before_shell() { :; }; vi_init_env() { :; }; . '$d/$h'" 2>&1)
		assertContains "$h: the library was not loaded ($out)" "$out" LIBRARY-LOADED
	done
}

# shellcheck disable=SC1091
. /usr/share/shunit2/shunit2
