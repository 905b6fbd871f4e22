#!/bin/bash
# shunit2 tests of the agent's dracut runtime (verity-init setup --fallback, fail, pre-pivot) on
# the host: the answers on stdout and the exit codes the module's glue reads, the fail list
# walked in order, the status file with the boot's first failure, the kernel log records. The
# kernel's emergency actions, the log and the run directory are files of the test (--sysrq,
# --kmsg, --rundir: with a --sysrq file the agent calls no reboot(2) and writes the letters
# there). No device is set up: the refusals come before any.

TOP=$(cd "$(dirname "$0")/../.." && pwd)
: "${BUILD:=$TOP/build}"
# shellcheck source=tests/cli/policy_lib.sh
. "$TOP/tests/cli/policy_lib.sh"
VI=$BUILD/verity-init
RH=$(printf '%064d' 0)
BASE="roothash=$RH verity.data=/dev/vi-absent-data verity.hash=/dev/vi-absent-hash"

ROOT=$TOP
# shellcheck source=tests/cli/driver_lib.sh
. "$ROOT/tests/cli/driver_lib.sh"

oneTimeSetUp() {
	[ -x "$VI" ] || { echo "verity-init not built in $BUILD" >&2; exit 1; }
	records_build || exit 1
	W=$SHUNIT_TMPDIR
}

setUp() {
	rm -rf "$W/run" "$W/kmsg" "$W/sysrq" "$W/newroot"
	mkdir -p "$W/newroot"
}

# agent ARGS... : the agent with the test's stand-ins (never the kernel's sysrq); sets OUT, RC
agent() {
	OUT=$(timeout 60 "$VI" "$@" --rundir "$W/run" --kmsg "$W/kmsg" --sysrq "$W/sysrq" 2>/dev/null)
	RC=$?
}

# agent_policy POLICY ARGS... : the same under POLICY
agent_policy() {
	local p=$1
	shift
	OUT=$(with_policy "$p" timeout 60 "$VI" "$@" --rundir "$W/run" --kmsg "$W/kmsg" --sysrq "$W/sysrq" 2>/dev/null)
	RC=$?
}

sysrq() { tr '\n' ' ' <"$W/sysrq" 2>/dev/null | sed 's/ $//'; }
# module_reads ANSWER: what the module's reader (vi_answer) takes of an answer: the resume entry,
# or "refused"
module_reads() {
	sh -c "getarg() { :; }; . '$TOP/dracut-module/verity-init-lib.sh'
		vi_answer \"\$1\" && echo \"next=\${VERITY_NEXT-}\" || echo refused" _ "$1"
}
status() { sed -n "s/^$1=//p" "$W/run/status" 2>/dev/null; }

test_setup_refused_line_walks_the_fail_list_and_answers() {
	agent setup --fallback --cmdline "roothash=zz verity.fail=reboot"
	assertEquals "nothing took effect: exit 1" 1 "$RC"
	assertContains "$OUT" "VERITY_RESULT=failed"
	assertContains "$OUT" "VERITY_ACTION=panic"
	assertContains "the reason, quoted for sh" "$OUT" "VERITY_REASON='roothash=zz: not hex"
	assertEquals "a refused line's verity.fail= is not used: the default, panic" c "$(sysrq)"
	assertContains "one record for the refusal" "$(cat "$W/kmsg")" \
		"verity-init[$(sed -n 's/.*verity-init\[\([0-9]*\)\].*/\1/p' "$W/kmsg" | head -n 1)]: command line refused: roothash=zz"
	assertContains "$(cat "$W/kmsg")" "fallback: panic (no verified root; refusing to continue)"
	assertEquals failed "$(status result)"
	assertEquals config "$(status stage)"
	assertEquals panic "$(status action)"
}

test_fail_reasons_walk_the_list_in_order() {
	agent fail --reason getarg --cmdline "$BASE verity.fail=reboot,poweroff"
	assertEquals 1 "$RC"
	assertEquals "reboot, power off, then the kernel's panic" "b o c" "$(sysrq)"
	assertContains "$(cat "$W/kmsg")" "dracut's command-line parser (dracut-getarg) fails on this command line"
	assertContains "$(cat "$W/kmsg")" "fallback: reboot"
	assertContains "$(cat "$W/kmsg")" "fallback: poweroff"
	assertEquals "dracut's command-line parser (dracut-getarg) fails on this command line" \
		"$(status reason)"
	# a refused line is the failure itself
	setUp
	agent fail --reason shell-asked --cmdline "$BASE rd.break"
	assertContains "$(cat "$W/kmsg")" "'rd.break' opens a root shell in the initramfs"
	assertEquals c "$(sysrq)"
	setUp
	agent fail --reason shell-unit --unit rescue.service --cmdline "$BASE verity.fail=poweroff"
	assertEquals o\ c "$(sysrq)"
	assertContains "$(status reason)" "rescue.service would open a shell in the initramfs"
}

# before-shell: a shell dracut or systemd opens outside the fail list. Refused where the policy
# allows none (the fail list runs, without its shell); allowed once the fallback is recorded, or
# where no TPM is or may be (this host: none, or the case is skipped); refused when the policy
# requires the TPM and it recorded nothing.
test_before_shell_measures_or_refuses() {
	agent_policy "" before-shell --unit debug-shell.service --cmdline "$BASE verity.fail=shell,poweroff"
	[ "$RC" = 77 ] && { echo "skip: no mount namespace or overlayfs"; return 0; }
	assertEquals "no shell allowed: nothing took effect but the fail list" 1 "$RC"
	assertEquals "the shell dropped from the list: poweroff, then the panic" "o c" "$(sysrq)"
	assertContains "$(status reason)" "debug-shell.service would open a shell: the initramfs policy allows none"
	if [ -e /dev/tpmrm0 ] || [ -e /sys/firmware/acpi/tables/TPM2 ]; then
		echo "skip: this host has a TPM"
		return 0
	fi
	setUp
	agent_policy "allow_shell=yes" before-shell --unit dracut-emergency-shell --cmdline "$BASE verity.fail=shell,reboot"
	assertEquals "allowed, no TPM anywhere: the shell may open ($(cat "$W/kmsg"))" 0 "$RC"
	assertContains "$(cat "$W/kmsg")" "fallback not measured: no TPM"
	assertContains "$(cat "$W/kmsg")" "dracut-emergency-shell: the shell may open"
	assertEquals "nothing of the fail list ran" "" "$(sysrq)"
	setUp
	agent_policy "allow_shell=yes
require_tpm=yes" before-shell --unit rescue.service --cmdline "$BASE verity.fail=shell,reboot"
	assertEquals "require_tpm=yes and no TPM: refused" 1 "$RC"
	assertEquals "reboot, then the panic: never the shell" "b c" "$(sysrq)"
	assertContains "$(status reason)" "rescue.service would open a shell: the TPM did not record the fallback and the policy requires it"
	# the opener's name is a unit's: nothing else reaches the log
	setUp
	agent_policy "allow_shell=yes" before-shell --unit 'x;reboot' --cmdline "$BASE"
	assertEquals "not a unit name: a usage error" 2 "$RC"
}

# Managed recovery: `setup --fallback` refused a degraded root that did not come up, or could
# not count its boot (the run directory's managed-no-reboot): a later walk of this boot (here
# `fail`; pre-pivot's and a resumed one's are the same walk) neither reboots nor panics.
test_walk_after_a_managed_refusal_neither_reboots_nor_panics() {
	mkdir -p "$W/run" && : >"$W/run/managed-no-reboot"
	agent fail --reason getarg --cmdline "$BASE verity.fail=reboot"
	# with the sysrq stand-in the walk goes on after each action (the kernel's would not):
	# the power-off comes where the list's end would panic, no reboot before it
	assertEquals "no reboot, a power-off before the panic" "o c" "$(sysrq)"
	assertContains "$(cat "$W/kmsg")" "fallback reboot: not taken: it would come back to the same degraded root"
	assertContains "$(cat "$W/kmsg")" "fallback: poweroff (a panic would reboot into the same degraded root)"
}

test_fail_refuses_what_is_not_its_grammar() {
	local u
	for u in "" "a b.service" "x;reboot" "$(printf 'a\nb')"; do
		agent fail --reason shell-unit --unit "$u" --cmdline "$BASE"
		assertEquals "unit '$u': usage" 2 "$RC"
	done
	agent fail --reason other --cmdline "$BASE"
	assertEquals "unknown reason: usage" 2 "$RC"
	agent fail --reason getarg --resume 99 --cmdline "$BASE"
	assertEquals "resume past the list: usage" 2 "$RC"
	agent pre-pivot --cmdline "$BASE"
	assertEquals "pre-pivot without --newroot: usage" 2 "$RC"
	assertFalse "no action taken" "[ -e '$W/sysrq' ]"
}

# shell: the agent cannot open dracut's emergency shell; it answers where to resume
test_shell_is_handed_back_and_the_list_resumes() {
	local p="allow_shell=yes"
	agent_policy "$p" setup --fallback --cmdline "roothash=zz"
	[ "$RC" = 77 ] && { startSkipping; fail "needs root and unshare for a policy"; return; }
	setUp
	agent_policy "$p" fail --reason getarg --cmdline "$BASE verity.fail=reboot,shell,poweroff"
	assertEquals "exit 3: open the shell" 3 "$RC"
	assertContains "$OUT" "VERITY_ACTION=shell"
	assertContains "$OUT" "VERITY_NEXT=2"
	assertEquals "the module resumes there" "next=2" "$(module_reads "$OUT")"
	assertEquals "reboot tried, nothing after the shell yet" "b" "$(sysrq)"
	assertEquals shell "$(status action)"
	agent_policy "$p" fail --reason getarg --resume 2 --cmdline "$BASE verity.fail=reboot,shell,poweroff"
	assertEquals "the list goes on after the shell" 1 "$RC"
	assertEquals "b o c" "$(sysrq)"
	assertEquals "the first failure's reason stays" \
		"dracut's command-line parser (dracut-getarg) fails on this command line" "$(status reason)"
	assertEquals panic "$(status action)"
}

# no TPM device here, so the fallback goes unmeasured; a command line that may hide a TPM
# (its driver blacklisted) then gets no shell: the walk goes on with the next action
test_unmeasured_shell_refused_when_the_command_line_may_hide_a_tpm() {
	local p="allow_shell=yes" cl="$BASE verity.fail=shell,poweroff"
	[ -e /dev/tpmrm0 ] && { startSkipping; fail "this host has a TPM: the fallback is measured"; return; }
	agent_policy "$p" fail --reason getarg --cmdline "$cl"
	[ "$RC" = 77 ] && { startSkipping; fail "needs root and unshare for a policy"; return; }
	[ "$RC" = 3 ] || { startSkipping; fail "the shell is refused on this host already (a TPM the firmware announces?)"; return; }
	setUp
	agent_policy "$p" fail --reason getarg --cmdline "$cl module_blacklist=nouveau,tpm_tis"
	assertEquals "no shell: power off, then the kernel's panic" 1 "$RC"
	assertNotContains "$OUT" "VERITY_ACTION=shell"
	assertEquals "o c" "$(sysrq)"
	assertContains "$(cat "$W/kmsg")" "fallback shell: the TPM did not record the fallback (no TPM device) and the command line may hide one: module_blacklist=nouveau,tpm_tis: the shell could load its driver"
	assertNotContains "$(cat "$W/kmsg")" "fallback: shell"
	assertContains "$(cat "$W/kmsg")" "fallback: poweroff"
}

# one status file for the boot: a failure found by an earlier step stays its reason
test_status_keeps_the_boots_first_failure() {
	mkdir -p "$W/run"
	"$RECORDS" status "$W/run" recovery abcd cdcd || fail "agent_records status"
	agent fail --reason getarg --cmdline "$BASE verity.fail=poweroff"
	assertEquals "init not found on the root" "$(status reason)"
	assertEquals init "$(status stage)"
	assertEquals abcd "$(status roothash)"
	assertEquals panic "$(status action)"
	# a boot that got as far as result=ok: the new failure is the first
	"$RECORDS" status "$W/run" booted abcd || fail "agent_records status"
	agent fail --reason getarg --cmdline "$BASE"
	assertContains "$(status reason)" "dracut-getarg"
}

# record TEXT... : RUNDIR/setup/mappings as setup writes it, the map lines TEXT, the end line's
# count and CRC-32 (gzip's trailer holds the CRC-32 of its input, little-endian)
record() {
	local body crc
	body="verity-init mappings 1
$(printf '%s\n' "$@")"
	[ $# -gt 0 ] || body="verity-init mappings 1"
	crc=$(printf '%s\n' "$body" | gzip -c | tail -c 8 | od -An -tx1 -N4 |
		awk '{ printf "%s%s%s%s", $4, $3, $2, $1 }')
	mkdir -p "$W/run/setup" && chmod 0700 "$W/run/setup"
	printf '%s\nend count=%s crc32=%s\n' "$body" "$#" "$crc" >"$W/run/setup/mappings"
	chmod 0600 "$W/run/setup/mappings"
}

# pre-pivot: the mapping is not what setup recorded (no record, a record changed, a mapping
# that is gone, the record open to others): refused, stage activate, the policy applied; no
# recovery root without one on the command line
test_pre_pivot_refuses_a_mapping_setup_did_not_record() {
	agent pre-pivot --newroot "$W/newroot" --init /sbin/init \
		--cmdline "$BASE verity.name=vi-test-absent verity.fail=reboot"
	assertEquals 1 "$RC"
	assertContains "$(cat "$W/kmsg")" "vi-test-absent: activate failed: no record of the mappings setup made"
	assertEquals "b c" "$(sysrq)"
	assertEquals activate "$(status stage)"
	setUp
	record "map name=vi-test-absent uuid= table=0 8 verity 1 7:0 7:1 4096 4096 1 1 sha256 $RH -"
	agent pre-pivot --newroot "$W/newroot" --init /sbin/init \
		--cmdline "$BASE verity.name=vi-test-absent verity.fail=reboot"
	assertEquals 1 "$RC"
	assertContains "$(cat "$W/kmsg")" "vi-test-absent: activate failed: mapping vi-test-absent that setup made: "
	assertEquals "b c" "$(sysrq)"
	# refused: the record goes with the mappings
	assertFalse "the record stayed" "[ -e '$W/run/setup/mappings' ]"
	setUp
	record "map name=vi-test-absent uuid= table=0 8 verity 1 7:0 7:1 4096 4096 1 1 sha256 $RH -"
	sed -i 's/table=0 8 /table=0 9 /' "$W/run/setup/mappings"
	agent pre-pivot --newroot "$W/newroot" --init /sbin/init \
		--cmdline "$BASE verity.name=vi-test-absent verity.fail=reboot"
	assertContains "$(cat "$W/kmsg")" "the record of the mappings setup made is refused: mapping record: the end line's count or checksum does not match"
	setUp
	record "map name=other uuid= table=0 8 verity 1"
	agent pre-pivot --newroot "$W/newroot" --init /sbin/init \
		--cmdline "$BASE verity.name=vi-test-absent verity.fail=reboot"
	assertContains "$(cat "$W/kmsg")" "mapping vi-test-absent is not in the record of the mappings setup made"
	setUp
	record
	chmod 0755 "$W/run/setup"
	agent pre-pivot --newroot "$W/newroot" --init /sbin/init \
		--cmdline "$BASE verity.name=vi-test-absent verity.fail=reboot"
	assertContains "$(cat "$W/kmsg")" "setup is not ours or is open to others"
	assertEquals "b c" "$(sysrq)"
	# a refused line is switched to only after setup put the recovery root in its place
	setUp
	agent pre-pivot --newroot "$W/newroot" --init /sbin/init --cmdline "roothash=zz"
	assertEquals 1 "$RC"
	assertContains "$(cat "$W/kmsg")" "command line refused: roothash=zz"
	assertEquals c "$(sysrq)"
}

# systemd flavour: verity-init-pre-pivot.service runs the agent alone, on the line setup saved
test_pre_pivot_unit_uses_the_line_setup_saved() {
	agent setup --fallback --cmdline "$BASE verity.name=vi-test-absent verity.fail=reboot"
	assertEquals "the line setup used, kept for the pre-pivot unit" \
		"$BASE verity.name=vi-test-absent verity.fail=reboot" "$(cat "$W/run/cmdline")"
	assertEquals "root's only" 600 "$(stat -c %a "$W/run/cmdline")"
	rm -f "$W/sysrq" "$W/kmsg"
	agent pre-pivot --newroot "$W/newroot" --systemd --saved-cmdline
	assertEquals 1 "$RC"
	# setup set nothing up (no devices), so it recorded no mapping
	assertContains "the saved line's mapping name and fail list" "$(cat "$W/kmsg")" \
		"vi-test-absent: activate failed: no record of the mappings setup made"
	assertEquals "b c" "$(sysrq)"
	# the line is the saved one, not --cmdline's, and never both
	agent pre-pivot --newroot "$W/newroot" --systemd --saved-cmdline --cmdline "$BASE"
	assertEquals "usage" 2 "$RC"
	agent pre-pivot --newroot "$W/newroot" --saved-cmdline
	assertEquals "the unit is systemd's only: usage" 2 "$RC"
}

test_pre_pivot_unit_without_a_saved_line_refuses() {
	agent pre-pivot --newroot "$W/newroot" --systemd --saved-cmdline
	assertEquals 1 "$RC"
	assertContains "$(cat "$W/kmsg")" "the command line setup used ($W/run/cmdline): No such file or directory"
	assertEquals "the default fail list" c "$(sysrq)"
	assertEquals config "$(status stage)"
	# a link in its place is not read
	setUp
	mkdir -p "$W/run"
	printf '%s' "$BASE verity.fail=reboot" >"$W/line"
	ln -s "$W/line" "$W/run/cmdline"
	agent pre-pivot --newroot "$W/newroot" --systemd --saved-cmdline
	assertEquals 1 "$RC"
	assertEquals c "$(sysrq)"
}

# the answer's words are the only thing the glue reads: never anything from the command line
test_answer_words_are_fixed() {
	agent setup --fallback --cmdline "roothash=zz\$(reboot) verity.fail=reboot"
	assertEquals "result, action, reason" 3 "$(printf '%s\n' "$OUT" | wc -l)"
	assertEquals "VERITY_RESULT=failed
VERITY_ACTION=panic" "$(printf '%s\n' "$OUT" | head -n 2)"
	# the reason evaluates to itself
	local VERITY_REASON=
	eval "$(printf '%s\n' "$OUT" | grep '^VERITY_REASON=')"
	# shellcheck disable=SC2016 # the text itself, never expanded
	assertContains "$VERITY_REASON" 'roothash=zz$(reboot)'
	assertEquals "the module reads no resume entry in it" "next=" "$(module_reads "$OUT")"
}

# ipe_policy= needs the standalone agent: under dracut the setup is refused before any device
# is touched (stage ipe), and the fail list is walked
test_setup_refuses_an_ipe_policy_under_dracut() {
	agent_policy "ipe_policy=/etc/verity-init/ipe.p7s
fail=poweroff" setup --fallback --cmdline "$BASE"
	[ "$RC" = 77 ] && { startSkipping; fail "needs root and unshare for a policy"; return; }
	assertEquals "power-off asked of the kernel, then its panic" "o c" "$(sysrq)"
	assertEquals "stage" "ipe" "$(status stage)"
	assertContains "$(status reason)" "ipe_policy= needs the standalone agent"
	assertContains "$(cat "$W/kmsg")" "root: ipe failed: ipe_policy= needs the standalone agent"
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
