#!/bin/bash
# shunit2 tests of the dracut module: module-setup.sh's check/depends/installkernel/install run
# against stubbed dracut functions (as dracut's own module tests source module-setup.sh with a
# fake environment), and the shell glue (hooks, setup job) sourced with dracut-lib
# stubs and a fake agent: what the glue asks the agent, and what it does with the answers (the
# agent's own side of them: dracut_runtime_test.sh). No dracut run, no device: the VM tests (tests/vm/dracut_*_test.sh) boot real images.

TOP=$(cd "$(dirname "$0")/../.." && pwd)
MOD=$TOP/dracut-module
: "${BUILD:=$TOP/build}"

# --- stubs of dracut's module API; every call is recorded in $CALLS --------------------------
dinfo() { echo "dinfo $*" >>"$CALLS"; }
dfatal() { echo "dfatal $*" >>"$CALLS"; }
derror() { echo "derror $*" >>"$CALLS"; }
require_binaries() {
	local b
	for b in "$@"; do
		case " $MISSING_BINARIES " in *" $b "*) return 1 ;; esac
	done
}
find_root_block_device() { [ -n "$ROOT_MAJMIN" ] && echo "$ROOT_MAJMIN"; }
dmsetup() {
	echo "dmsetup $*" >>"$CALLS"
	[ -n "$DM_TABLE" ] || return 1
	echo "$DM_TABLE"
}
instmods() { echo "instmods hostonly=[$hostonly] $*" >>"$CALLS"; }
inst_binary() { echo "inst_binary $*" >>"$CALLS"; }
inst_multiple() { echo "inst_multiple $*" >>"$CALLS"; }
inst_simple() {
	echo "inst_simple $*" >>"$CALLS"
	[ -e "$1" ]
}
inst_script() {
	echo "inst_script $*" >>"$CALLS"
	mkdir -p "$initdir$(dirname "$2")" && cp "$1" "$initdir$2"
}
inst_hook() { echo "inst_hook $*" >>"$CALLS"; [ "$1" != "${FAIL_HOOK:-}" ]; }
inst_dir() { mkdir -p "$initdir$1"; }
dracut_module_included() { [[ " $INCLUDED " == *" $1 "* ]]; }
dracut_need_initqueue() { echo "dracut_need_initqueue" >>"$CALLS"; }

setUp() {
	CALLS=$SHUNIT_TMPDIR/calls
	: >"$CALLS"
	initdir=$SHUNIT_TMPDIR/initdir
	rm -rf "$initdir" && mkdir -p "$initdir"
	dracutsysrootdir=$SHUNIT_TMPDIR/sysroot
	rm -rf "$dracutsysrootdir" && mkdir -p "$dracutsysrootdir/usr/sbin" "$dracutsysrootdir/etc"
	AGENT=$SHUNIT_TMPDIR/agent
	printf '#!/bin/sh\nexit 0\n' >"$AGENT" && chmod 0755 "$AGENT"
	export VERITY_INIT_AGENT=$AGENT
	hostonly='' MISSING_BINARIES='' ROOT_MAJMIN='' DM_TABLE='' INCLUDED='' verity_init_conf=''
	unset verity_init_keys
	moddir=$MOD
	systemdutildir=/usr/lib/systemd
	systemdsystemunitdir=/usr/lib/systemd/system
	# shellcheck source=dracut-module/module-setup.sh
	. "$MOD/module-setup.sh"
}

calls() { cat "$CALLS"; }

# --- check() ----------------------------------------------------------------------------------
test_check_without_agent_refuses() {
	unset VERITY_INIT_AGENT
	check
	assertEquals "no agent anywhere: not installable" 1 $?
	assertContains "$(calls)" "no verity-init agent"
}

test_check_finds_the_installed_agent() {
	unset VERITY_INIT_AGENT
	cp "$AGENT" "$dracutsysrootdir/usr/sbin/verity-init"
	check
	assertEquals "agent in /usr/sbin: optional module" 255 $?
	assertEquals "$dracutsysrootdir/usr/sbin/verity-init" "$(verity_init_agent)"
}

test_check_ignores_a_non_executable_agent() {
	chmod 0644 "$AGENT"
	check
	assertEquals 1 $?
}

test_check_needs_udevadm() {
	MISSING_BINARIES=udevadm
	check
	assertEquals 1 $?
}

test_check_is_optional_by_default() {
	check
	assertEquals "only when asked for (--add)" 255 $?
	assertNotContains "not host-only: the host's root is not looked at" "$(calls)" dmsetup
}

test_check_hostonly_verity_root_includes_module() {
	hostonly=yes ROOT_MAJMIN=254:0
	DM_TABLE="0 32768 verity 1 8:1 8:2 4096 4096 4096 1 sha256 abcd 1234"
	check
	assertEquals "host boots a verity root" 0 $?
	assertContains "$(calls)" "dmsetup table -j 254 -m 0"
}

test_check_hostonly_other_dm_root_stays_optional() {
	hostonly=yes ROOT_MAJMIN=254:1
	DM_TABLE="0 32768 linear 8:1 0"
	check
	assertEquals 255 $?
}

test_check_hostonly_plain_disk_root_stays_optional() {
	hostonly=yes ROOT_MAJMIN=8:1
	check
	assertEquals "dmsetup fails for a non-dm device" 255 $?
}

# --- depends() / installkernel() ---------------------------------------------------------------
test_depends_on_dm_and_rootfs_block() {
	local out
	out=$(depends)
	assertEquals 0 $?
	assertEquals "dm rootfs-block" "$out"
}

test_installkernel_takes_target_fec_afalg_and_hashes_regardless_of_hostonly() {
	hostonly=yes
	installkernel
	local c
	c=$(grep '^instmods' "$CALLS")
	assertContains "hostonly cleared for the call" "$c" "hostonly=[]"
	for m in dm-verity reed_solomon algif_hash crypto-sha256 crypto-sha512 crypto-sha1 overlay efivarfs; do
		assertContains "$m" " $c " " $m"
	done
}

# --- install() --------------------------------------------------------------------------------
test_install_shell_init() {
	install
	assertEquals 0 $?
	local c
	c=$(calls)
	assertContains "$c" "inst_binary $AGENT /usr/sbin/verity-init"
	assertContains "$c" "inst_hook cmdline 30 $MOD/parse-verity-init.sh"
	assertContains "$c" "inst_hook pre-pivot 90 $MOD/verity-init-check-init.sh"
	assertContains "shell init: the tmpfs root's mount hook" "$c" \
		"inst_hook mount 50 $MOD/verity-init-mount.sh"
	assertContains "$c" "inst_simple $MOD/verity-init-lib.sh /lib/verity-init-lib.sh"
	assertContains "every shell dracut opens is measured first" "$c" \
		"inst_hook emergency 00 $MOD/verity-init-emergency.sh"
	assertContains "the shutdown initramfs's shells too" "$c" \
		"inst_hook shutdown-emergency 00 $MOD/verity-init-emergency.sh"
	assertContains "$c" "dracut_need_initqueue"
	assertTrue "setup program executable" "[ -x '$initdir/sbin/verity-init-dracut' ]"
	assertNotContains "no systemd unit without systemd" "$c" verity-init-setup.service
	assertNotContains "no config file outside host-only" "$c" /etc/verity-init.conf
}

test_install_without_agent_fails() {
	unset VERITY_INIT_AGENT
	(install; echo "install returned" >>"$CALLS")
	assertEquals "dracut ignores install()'s status: it must exit" 1 $?
	assertNotContains "$(calls)" "install returned"
	assertContains "$(calls)" "dfatal verity-init: agent binary not found"
}

test_install_systemd_flavour_masks_systemd_veritysetup_generator() {
	INCLUDED="systemd systemd-veritysetup"
	install
	assertEquals 0 $?
	assertContains "$(calls)" "inst_simple $MOD/verity-init-setup.service /usr/lib/systemd/system/verity-init-setup.service"
	assertEquals "the generator is the agent" /usr/sbin/verity-init \
		"$(readlink "$initdir/usr/lib/systemd/system-generators/verity-init-generator")"
	assertEquals "systemd's generator masked" /dev/null \
		"$(readlink "$initdir/etc/systemd/system-generators/systemd-veritysetup-generator")"
	assertContains "said to whoever builds the image" "$(calls)" \
		"dinfo verity-init: systemd-veritysetup-generator masked"
	assertContains "said on every boot, in the name systemd prints for the setup unit" \
		"$(cat "$initdir/usr/lib/systemd/system/verity-init-setup.service.d/veritysetup-masked.conf")" \
		"Description=Verified root device (verity-init; systemd-veritysetup-generator masked)"
}

# Unmasked, both programs would set up roothash=: a mask that cannot be made ends the build.
test_install_systemd_flavour_fails_when_the_mask_cannot_be_made() {
	INCLUDED="systemd systemd-veritysetup"
	mkdir -p "$initdir/etc/systemd/system-generators/systemd-veritysetup-generator/in-the-way"
	(install; echo "install returned" >>"$CALLS")
	assertEquals "dracut ignores install()'s status: it must exit" 1 $?
	assertNotContains "$(calls)" "install returned"
	assertContains "$(calls)" "dfatal verity-init: cannot mask systemd-veritysetup-generator"
}

# Without its generator the image would boot root= unverified (systemd-fstab-generator's
# sysroot.mount, no setup, no check before the switch): a link that cannot be made ends the build.
test_install_systemd_flavour_fails_without_its_generator() {
	INCLUDED="systemd"
	mkdir -p "$initdir/usr/lib/systemd/system-generators/verity-init-generator/in-the-way"
	(install; echo "install returned" >>"$CALLS")
	assertEquals "dracut ignores install()'s status: it must exit" 1 $?
	assertNotContains "$(calls)" "install returned"
	assertContains "$(calls)" "dfatal verity-init: cannot install the generator"
}

test_install_systemd_flavour_alone_masks_nothing() {
	INCLUDED="systemd"
	install
	assertEquals 0 $?
	assertFalse "nothing to mask" "[ -e '$initdir/etc/systemd/system-generators/systemd-veritysetup-generator' ]"
	assertFalse "no drop-in" "[ -e '$initdir/usr/lib/systemd/system/verity-init-setup.service.d' ]"
	assertEquals /usr/sbin/verity-init \
		"$(readlink "$initdir/usr/lib/systemd/system-generators/verity-init-generator")"
	assertNotContains "systemd mounts the tmpfs root itself (sysroot.mount)" "$(calls)" \
		"inst_hook mount"
}

# Under systemd the module runs no dracut hook: the generator reads the command line, setup and the
# check before the switch are units of their own, and the initqueue is not needed (each hook would
# start a shell with dracut's library, which the anchor image skips).
test_install_systemd_flavour_units_not_hooks() {
	INCLUDED="systemd"
	install
	assertEquals 0 $?
	local c
	c=$(calls)
	assertContains "$c" "inst_simple $MOD/verity-init-pre-pivot.service /usr/lib/systemd/system/verity-init-pre-pivot.service"
	assertNotContains "no cmdline hook" "$c" "inst_hook cmdline"
	assertNotContains "no pre-pivot hook" "$c" "inst_hook pre-pivot"
	assertNotContains "no initqueue" "$c" "dracut_need_initqueue"
	assertNotContains "no emergency hook (the shell units' ExecStartPre=)" "$c" "inst_hook emergency "
	assertContains "the shutdown initramfs's shells are dracut's: measured first" "$c" \
		"inst_hook shutdown-emergency 00 $MOD/verity-init-emergency.sh"
}

test_install_hostonly_carries_host_config() {
	hostonly=yes
	echo "fail=reboot" >"$dracutsysrootdir/etc/verity-init.conf"
	install
	assertEquals 0 $?
	assertContains "$(calls)" "inst_simple $dracutsysrootdir/etc/verity-init.conf /etc/verity-init.conf"
}

test_install_hostonly_without_host_config_adds_none() {
	hostonly=yes
	install
	assertEquals 0 $?
	assertNotContains "$(calls)" /etc/verity-init.conf
}

test_install_config_named_in_dracut_conf() {
	verity_init_conf=$SHUNIT_TMPDIR/policy.conf
	echo "allow_shell=yes" >"$verity_init_conf"
	install
	assertEquals 0 $?
	assertContains "$(calls)" "inst_simple $verity_init_conf /etc/verity-init.conf"
}

test_install_signing_keys_from_dracut_conf_or_host() {
	local k=$SHUNIT_TMPDIR/keys
	rm -rf "$k" && mkdir -p "$k" "$dracutsysrootdir/etc/verity-init/keys"
	echo key-a >"$k/a.pub"; echo key-b >"$k/b.pub"; echo no >"$k/readme.txt"
	echo host >"$dracutsysrootdir/etc/verity-init/keys/host.pub"
	verity_init_keys=$k
	install
	assertEquals 0 $?
	assertContains "$(calls)" "inst_simple $k/a.pub /etc/verity-init/keys/a.pub"
	assertContains "$(calls)" "inst_simple $k/b.pub /etc/verity-init/keys/b.pub"
	assertNotContains "only *.pub" "$(calls)" readme.txt
	assertNotContains "verity_init_keys= replaces the host's" "$(calls)" host.pub
	: >"$CALLS"
	unset verity_init_keys
	install
	assertContains "the host's keys by default" "$(calls)" \
		"inst_simple $dracutsysrootdir/etc/verity-init/keys/host.pub /etc/verity-init/keys/host.pub"
}

# require_signature=kernel: dracut's modprobe (udev) loads dm_verity with the kernel's own guard
test_install_policy_requiring_kernel_signatures_forces_the_module_parameter() {
	verity_init_conf=$SHUNIT_TMPDIR/policy.conf
	echo "require_signature=kernel" >"$verity_init_conf"
	install
	assertEquals "options dm_verity require_signatures=1" \
		"$(cat "$initdir/etc/modprobe.d/verity-init-policy.conf" 2>/dev/null)"
	echo "require_signature=yes" >"$verity_init_conf"
	rm -rf "$initdir" && mkdir -p "$initdir"
	install
	assertFalse "only for kernel-checked signatures" "[ -e '$initdir/etc/modprobe.d/verity-init-policy.conf' ]"
}

# managed=yes (managed recovery): the pstore backend and the marker the setup job loads it by
test_install_managed_policy_brings_the_pstore_backend() {
	verity_init_conf=$SHUNIT_TMPDIR/policy.conf
	printf 'fail=reboot\n Managed = on\n' >"$verity_init_conf"
	install
	assertContains "$(calls)" "instmods hostonly=[] efi_pstore"
	assertTrue "the marker" "[ -e '$initdir/etc/verity-init/managed' ]"
	echo "managed=no" >"$verity_init_conf"
	rm -rf "$initdir" && mkdir -p "$initdir"
	: >"$CALLS"
	install
	assertNotContains "$(calls)" "efi_pstore"
	assertFalse "no marker" "[ -e '$initdir/etc/verity-init/managed' ]"
}

test_install_missing_named_config_fails() {
	verity_init_conf=$SHUNIT_TMPDIR/absent.conf
	(install; echo "install returned" >>"$CALLS")
	assertEquals "dracut ignores install()'s status: it must exit" 1 $?
	assertContains "$(calls)" "dfatal verity-init: cannot install"
	assertNotContains "$(calls)" "install returned"
}

test_realinitpath_refused() {
	realinitpath=/usr/lib/other/init
	(check; echo "check returned $?" >>"$CALLS")
	assertContains "dracut's --add then stops the build" "$(calls)" "check returned 1"
	assertContains "$(calls)" "derror dracut module 'verity-init' cannot be used with realinitpath="
	# host-only for a host that boots a verity root: would be included on its own, so it stops
	: >"$CALLS"
	hostonly=yes ROOT_MAJMIN=254:0
	DM_TABLE="0 32768 verity 1 8:1 8:2 4096 4096 4096 1 sha256 abcd 1234"
	(check; echo "check returned $?" >>"$CALLS")
	assertEquals "the build stops" 1 $?
	assertNotContains "$(calls)" "check returned"
	: >"$CALLS"
	(install; echo "install returned" >>"$CALLS")
	assertEquals 1 $?
	assertNotContains "nothing installed" "$(calls)" inst_
	assertNotContains "$(calls)" "install returned"
	unset realinitpath
}

test_install_stops_when_a_hook_cannot_be_installed() {
	FAIL_HOOK=pre-pivot
	(install; echo "install returned" >>"$CALLS")
	assertEquals "no image with half the module" 1 $?
	assertContains "$(calls)" "dfatal verity-init: cannot install the agent or the module's scripts"
	assertNotContains "$(calls)" "install returned"
	unset FAIL_HOOK
}

# --- the shell-init glue, sourced with dracut-lib stubs ---------------------------------------
# The hooks as the tests source them ($HOOKS): the one line naming the library, which exists
# in the image only, names the checkout's.
oneTimeSetUp() {
	local h
	HOOKS=$SHUNIT_TMPDIR/hooks
	mkdir -p "$HOOKS" || exit 1
	for h in parse-verity-init.sh verity-init-check-init.sh verity-init-dracut.sh \
		verity-init-emergency.sh verity-init-mount.sh; do
		[ "$(grep verity-init-lib "$MOD/$h")" = ". /lib/verity-init-lib.sh" ] || {
			echo "$h: not one line '. /lib/verity-init-lib.sh'" >&2
			exit 1
		}
		sed "s|^\. /lib/verity-init-lib\.sh\$|. '$MOD/verity-init-lib.sh'|" "$MOD/$h" >"$HOOKS/$h" || exit 1
	done
}

# run_glue SCRIPT: run a POSIX sh snippet with stubbed dracut-lib functions and a fake agent that
# prints $PARSE_OUT for `parse --shell`; prints the snippet's output.
run_glue() {
	cat >"$SHUNIT_TMPDIR/fake-agent" <<EOF
#!/bin/sh
case "\$1" in
parse) cat "$SHUNIT_TMPDIR/parse.out"; exit \${PARSE_RC:-0} ;;
setup | fail | pre-pivot)
	# the dracut runtime: every call recorded; the Nth call answers the Nth word of
	# AGENT_ANSWERS (0: a root is ready, 1: failed, 3:N: open a shell, then resume at N)
	echo "\$*" >>"$SHUNIT_TMPDIR/agent.calls"
	n=\$(wc -l <"$SHUNIT_TMPDIR/agent.calls")
	set -- \${AGENT_ANSWERS:-0}
	if [ \$# -ge "\$n" ]; then shift \$((n - 1)); else set -- 1; fi
	case "\${1:-1}" in
	3:*) printf 'VERITY_RESULT=failed\\nVERITY_ACTION=shell\\nVERITY_NEXT=%s\\n' "\${1#3:}"; exit 3 ;;
	0) echo VERITY_RESULT=ok; exit 0 ;;
	*) echo VERITY_RESULT=failed; exit "\$1" ;;
	esac ;;
esac
EOF
	chmod 0755 "$SHUNIT_TMPDIR/fake-agent"
	printf '%s\n' "$PARSE_OUT" >"$SHUNIT_TMPDIR/parse.out"
	# the real dracut-getarg (dracut-util under that name), which the hooks ask whether dracut can
	# parse the line at all
	mkdir -p "$SHUNIT_TMPDIR/bin"
	ln -sf /usr/lib/dracut/dracut-util "$SHUNIT_TMPDIR/bin/dracut-getarg"
	# the library's fixed settings, pointed into the scratch directory (after it is sourced: it
	# takes nothing from the environment); the end of a failed boot exits instead of hanging
	cat >"$SHUNIT_TMPDIR/test-settings.sh" <<EOF
VI_AGENT=$SHUNIT_TMPDIR/fake-agent
VI_SYSRQ=$SHUNIT_TMPDIR/sysrq
VI_KMSG=$SHUNIT_TMPDIR/kmsg
VI_RUNDIR=$SHUNIT_TMPDIR/run
VI_CMDLINE_D=$SHUNIT_TMPDIR/cmdline.d
VI_DRACUT_GETARG=\${TEST_DRACUT_GETARG:-$SHUNIT_TMPDIR/bin/dracut-getarg}
VI_EXPORT_ORIG=$SHUNIT_TMPDIR/export.orig
VI_INITQUEUE=$SHUNIT_TMPDIR/fake-initqueue
VI_SYSTEMD_DIR=$SHUNIT_TMPDIR/systemd-system
VI_DM_VERITY_SYSFS=$SHUNIT_TMPDIR/no-such-module
VI_MODPROBE=$SHUNIT_TMPDIR/fake-modprobe
vi_hang() { exit 1; }
# sim_flavour shell|systemd: what the library's vi_systemd finds (what systemd as the
# initramfs's init would have created); dracut's shell init unless a test says otherwise
sim_flavour() {
	rm -rf "\$VI_SYSTEMD_DIR"
	[ "\$1" = shell ] || mkdir -p "\$VI_SYSTEMD_DIR"
}
sim_flavour shell
EOF
	printf '#!/bin/sh\necho "initqueue $*" >>"%s/initqueue.calls"\n' "$SHUNIT_TMPDIR" \
		>"$SHUNIT_TMPDIR/fake-initqueue"
	chmod 0755 "$SHUNIT_TMPDIR/fake-initqueue"
	# modprobe: each call recorded, with the number of agent commands run before it
	printf '#!/bin/sh\necho "modprobe $* after $(cat "%s/agent.calls" 2>/dev/null | wc -l)" >>"%s/modprobe.calls"\n' \
		"$SHUNIT_TMPDIR" "$SHUNIT_TMPDIR" >"$SHUNIT_TMPDIR/fake-modprobe"
	chmod 0755 "$SHUNIT_TMPDIR/fake-modprobe"
	rm -f "$SHUNIT_TMPDIR/initqueue.calls"
	cat >"$SHUNIT_TMPDIR/dracut-lib.sh" <<EOF
# dracut's reading of the command line: /etc/cmdline.d first, then the kernel's (TEST_CMDLINE)
getcmdline() { cat "$SHUNIT_TMPDIR"/cmdline.d/*.conf 2>/dev/null | tr '\\n' ' '; printf '%s' "\$TEST_CMDLINE"; }
# _getarg1 KEY: the last value of KEY in the line ("" for a bare KEY); 1 when absent
_getarg1() {
	local _w _v= _f=1
	for _w in \$(getcmdline); do
		case "\$_w" in "\$1") _f=0; _v= ;; "\$1="*) _f=0; _v=\${_w#"\$1="} ;; esac
	done
	[ \$_f = 0 ] && printf '%s' "\$_v"
	return \$_f
}
# getarg KEY[=] [-d] [-y KEY2]...: dracut's getarg (the first KEY found; -y KEY2 present is "1")
getarg() {
	while [ \$# -gt 0 ]; do
		case "\$1" in
		-d) shift ;;
		-y) if _getarg1 "\$2" >/dev/null; then echo 1; return 0; fi; shift 2 ;;
		*) _getarg1 "\${1%=}" && return 0; shift ;;
		esac
	done
	return 1
}
# getargbool DEFAULT KEY...: dracut's (only an exact 0, no or off is false)
getargbool() {
	local _b _d=\$1
	shift
	_b=\$(getarg "\$@") || _b=\${_b:-\$_d}
	case "\$_b" in 0 | no | off) return 1 ;; esac
	return 0
}
label_uuid_to_dev() { case "\$1" in PARTUUID=*) echo "/dev/disk/by-partuuid/\${1#PARTUUID=}" ;; UUID=*) echo "/dev/disk/by-uuid/\${1#UUID=}" ;; esac; }
wait_for_dev() { echo "wait_for_dev \$1"; }
emergency_shell() { echo "emergency_shell \$*"; }
udevadm() { :; }
EOF
	(
		cd "$SHUNIT_TMPDIR" || exit 1
		timeout 60 sh -c "
			getarg() { return 1; }
			. '$SHUNIT_TMPDIR/dracut-lib.sh'
			. '$MOD/verity-init-lib.sh'
			. '$SHUNIT_TMPDIR/test-settings.sh'
			$1" 2>&1
	)
}

test_cmdline_hook_points_root_at_mapping_and_waits_for_no_device_string() {
	local out
	PARSE_OUT="VERITY_ENABLED=1
VERITY_NAME='vroot'
VERITY_DATA='PARTUUID=1111ABCD'
VERITY_HASH='/dev/vdb'
VERITY_FEC=''"
	out=$(run_glue "
		root=UUID=data-fs-uuid rflags=''
		sim_flavour systemd
		fn() { . '$HOOKS/parse-verity-init.sh'; }
		fn
		echo \"root=\$root rootok=\$rootok rflags=\$rflags\"")
	assertContains "$out" "root=block:/dev/mapper/vroot rootok=1 rflags=ro"
	# dracut writes what wait_for_dev gets into an initqueue/finished script that it sources:
	# the agent waits for the devices itself, and dracut's rootfs-block waits for the mapping
	assertNotContains "no device of the command line goes to dracut" "$out" "wait_for_dev"
	assertFalse "systemd: no initqueue job (verity-init-setup.service sets the root up)" \
		"[ -e '$SHUNIT_TMPDIR/initqueue.calls' ]"
	assertEquals "fsck skipped for the read-only root; no dracut shell (the policy's default)" \
		"rd.skipfsck
rd.shell=0" "$(cat "$SHUNIT_TMPDIR/cmdline.d/90verity-init.conf")"
	assertContains "a root= naming another device is overridden, and said so" \
		"$(cat "$SHUNIT_TMPDIR/kmsg")" "root= ignored: the verified root is /dev/mapper/vroot"
	assertNotContains "the command line's root= is not copied into the log" \
		"$(cat "$SHUNIT_TMPDIR/kmsg")" "data-fs-uuid"
}

# Even a device string the agent let through never reaches a place where dracut or the shell
# evaluates it: the second wall behind the agent's device grammar.
test_cmdline_hook_device_strings_never_evaluated() {
	local out flavour
	PARSE_OUT="VERITY_ENABLED=1
VERITY_DATA='/dev/\$(touch $SHUNIT_TMPDIR/pwned)'
VERITY_HASH='LABEL=\`touch $SHUNIT_TMPDIR/pwned2\`'
VERITY_FEC='/dev/x;touch $SHUNIT_TMPDIR/pwned3'"
	for flavour in shell systemd; do
		out=$(run_glue "
			wait_for_dev() { echo \"wait_for_dev \$1\"; eval \"[ -e \\\"\$1\\\" ]\"; }
			root='' rflags=''
			sim_flavour $flavour
			fn() { . '$HOOKS/parse-verity-init.sh'; }
			fn
			vi_setup")
		assertNotContains "flavour '$flavour': $out" "$out" "wait_for_dev"
		assertFalse "flavour '$flavour': command substitution ran" "[ -e '$SHUNIT_TMPDIR/pwned' ]"
		assertFalse "flavour '$flavour': backtick ran" "[ -e '$SHUNIT_TMPDIR/pwned2' ]"
		assertFalse "flavour '$flavour': ; ran" "[ -e '$SHUNIT_TMPDIR/pwned3' ]"
	done
}

# dracut 059's dracut-getarg crashes on a line ending in a lone '"'; getargbool then answers its
# default and the rd.shell=0 the hook writes is never read. The hook fails closed at once, with
# the real dracut-getarg, even when the agent (here a fake one) accepted the line: the agent
# applies the policy (fail --reason getarg), and the hook never returns.
test_cmdline_hook_fails_closed_when_dracut_cannot_parse_the_line() {
	local out
	PARSE_OUT="VERITY_ENABLED=1
VERITY_FAIL=poweroff"
	out=$(TEST_CMDLINE='roothash=ab rootflags=bogus "' AGENT_ANSWERS=1 run_cmdline_hook)
	assertNotContains "the hook never returned: $out" "$out" fstype=
	assertEquals "the agent applies the policy at once" "fail --reason getarg" \
		"$(agent_calls)"
	# and a shell the policy allows is still not opened when dracut cannot read rd.shell=0
	out=$(TEST_CMDLINE='rd.shell=0 x "' run_glue "vi_shell_allowed && echo allowed || echo refused")
	assertEquals refused "$out"
	out=$(TEST_CMDLINE='x=1' run_glue "vi_shell_allowed && echo allowed || echo refused")
	assertEquals "control: dracut's default when it can parse the line" allowed "$out"
	out=$(TEST_CMDLINE='rd.shell=0' run_glue "vi_shell_allowed && echo allowed || echo refused")
	assertEquals "control: rd.shell=0 read" refused "$out"
}

# agent_calls: the agent's dracut commands the glue ran, one a line, without the arguments every
# call carries (--cmdline, --rundir, --kmsg, --sysrq)
agent_calls() {
	sed 's/ --cmdline .*//' "$SHUNIT_TMPDIR/agent.calls" 2>/dev/null
}

# Every string the module logs goes through the same sanitizing: a control byte from the command
# line or a disk cannot start a kernel log record of its own.
test_log_records_are_one_line() {
	PARSE_OUT=""
	run_glue "vi_log \"\$(printf 'a\\n<0>forged\\033[2J')\" 3" >/dev/null
	assertEquals "<3>verity-init-dracut: a?<0>forged?[2J" "$(cat "$SHUNIT_TMPDIR/kmsg")"
}

# dracut's init.sh gives the root's init the kernel's environment back (/tmp/export.orig, and
# the kernel's PATH): the module replaces both with a fixed environment plus the policy's names.
test_prepivot_root_init_gets_a_fixed_environment() {
	local out
	PARSE_OUT="VERITY_ENABLED=1
VERITY_INIT_ENV='LANG TZNAME'"
	out=$(LD_PRELOAD=/nonexistent/x.so TERM=vt100 LANG="C.UTF-8 'x'" OLDPATH=/dev/shm run_glue "
		export -p >'$SHUNIT_TMPDIR/export.orig'
		NEWROOT=/sysroot
		fn() { . '$HOOKS/verity-init-check-init.sh'; }
		fn
		echo \"OLDPATH=\$OLDPATH\"" 2>/dev/null)
	assertContains "$out" "OLDPATH=/usr/sbin:/usr/bin:/sbin:/bin"
	assertEquals "export HOME=/
export TERM=vt100
export LANG='C.UTF-8 '\\''x'\\'''" "$(cat "$SHUNIT_TMPDIR/export.orig")"
	# what dracut's init.sh then does with it
	out=$(env -i /bin/sh -c ". '$SHUNIT_TMPDIR/export.orig'
		printf '%s|%s|%s' \"\$LANG\" \"\${LD_PRELOAD-unset}\" \"\$HOME\"")
	assertEquals "C.UTF-8 'x'|unset|/" "$out"
}

# run_cmdline_hook : the cmdline hook (systemd flavour: nothing queued); prints fstype and rflags
run_cmdline_hook() {
	run_glue "
		root='' rflags='' fstype=''
		sim_flavour systemd
		fn() { . '$HOOKS/parse-verity-init.sh'; }
		fn
		echo \"fstype=\$fstype rflags=\$rflags\""
}

test_cmdline_hook_mount_options_are_the_agents() {
	PARSE_OUT="VERITY_ENABLED=1
VERITY_ROOTFSTYPE=erofs
VERITY_ROOTFLAGS=noatime
VERITY_SHELL_ALLOWED=1"
	assertContains "$(run_cmdline_hook)" "fstype=erofs rflags=noatime,ro"
	assertEquals "the policy allows a shell: dracut's stays as it is" rd.skipfsck \
		"$(cat "$SHUNIT_TMPDIR/cmdline.d/90verity-init.conf")"
	# refused line: none of its options (the printed defaults are not trusted either)
	PARSE_OUT="VERITY_ROOTFSTYPE=xfs
VERITY_ROOTFLAGS=logdev=/dev/vdc"
	assertContains "$(PARSE_RC=1 run_cmdline_hook)" "fstype=auto rflags=ro"
	assertFalse "no action yet: the setup job applies the policy" "[ -e '$SHUNIT_TMPDIR/sysrq' ]"
}

test_cmdline_hook_refused_shell_request_fails_at_once() {
	local out
	PARSE_OUT="VERITY_FAIL=reboot"
	out=$(TEST_CMDLINE="roothash=ab rd.break=pre-pivot" PARSE_RC=1 AGENT_ANSWERS=1 run_cmdline_hook)
	assertNotContains "the hook never returned" "$out" fstype=
	assertEquals "the policy, before any later breakpoint" "fail --reason shell-asked" \
		"$(agent_calls)"
	rm -f "$SHUNIT_TMPDIR/agent.calls"
	out=$(TEST_CMDLINE="roothash=ab rd.shell" PARSE_RC=1 AGENT_ANSWERS=1 run_cmdline_hook)
	assertEquals "rd.shell too" "fail --reason shell-asked" "$(agent_calls)"
	# even when the agent answered "a root is ready" (it never does for these): no return
	rm -f "$SHUNIT_TMPDIR/agent.calls"
	out=$(TEST_CMDLINE="roothash=ab rd.shell" PARSE_RC=1 AGENT_ANSWERS=0 run_cmdline_hook)
	assertNotContains "the hook never returned" "$out" fstype=
}

# The kernel passes NAME=value words without a dot to /init as environment variables, and dracut's
# hooks inherit them: the library takes none of its settings or state from there.
test_settings_never_from_the_environment() {
	local out
	# vi_load keeps only what the agent printed (this also writes the dracut-lib stubs)
	PARSE_OUT="VERITY_ENABLED=1"
	out=$(run_glue "VERITY_SHELL_ALLOWED=1 VERITY_OFF_ALLOWED=1; vi_load; echo \"rc=\$? [\${VERITY_SHELL_ALLOWED-}\${VERITY_OFF_ALLOWED-}]\"")
	assertEquals "rc=0 []" "$out"
	# nothing from the environment
	out=$(cd "$SHUNIT_TMPDIR" && env VI_SYSRQ=/dev/null VI_HANG=0 VI_AGENT=/bin/true \
		VI_KMSG=/dev/null VI_RUNDIR=/tmp/x VI_CMDLINE_D=/tmp/y VI_EXPORT_ORIG=/tmp/z \
		VI_SYSTEMD_DIR=/ VI_INITQUEUE=/bin/true \
		VERITY_OFF_ALLOWED=1 VERITY_SHELL_ALLOWED=1 VERITY_ENABLED=1 \
		sh -c ". '$SHUNIT_TMPDIR/dracut-lib.sh'; . '$MOD/verity-init-lib.sh'
		echo \"\$VI_SYSRQ \$VI_AGENT \$VI_KMSG \$VI_RUNDIR \$VI_CMDLINE_D \$VI_EXPORT_ORIG\"
		echo \"\$VI_SYSTEMD_DIR \$VI_INITQUEUE\"
		echo \"[\${VI_HANG-}\${VERITY_OFF_ALLOWED-}\${VERITY_SHELL_ALLOWED-}\${VERITY_ENABLED-}]\"" 2>&1)
	assertEquals "/proc/sysrq-trigger /usr/sbin/verity-init /dev/kmsg /run/verity-init /etc/cmdline.d /tmp/export.orig
/run/systemd/system /sbin/initqueue
[]" "$out"
}

# DRACUT_SYSTEMD=1 on the command line is a variable of every hook under dracut's shell init (and
# exported: dracut-lib.sh exports it). The module tells the flavours apart by what systemd
# creates: the setup job is still queued, the pre-pivot check keeps the recovery root open, the
# root's init still gets the fixed environment.
test_shell_flavour_whatever_dracut_systemd_says() {
	local out
	PARSE_OUT="VERITY_ENABLED=1"
	rm -f "$SHUNIT_TMPDIR/agent.calls"
	out=$(DRACUT_SYSTEMD=1 TERM=vt100 run_glue "
		root='' rflags='' fstype=''
		fn() { . '$HOOKS/parse-verity-init.sh'; }
		fn
		NEWROOT=/sysroot
		export -p >'$SHUNIT_TMPDIR/export.orig'
		fn() { . '$HOOKS/verity-init-check-init.sh'; }
		fn
		echo \"hook-done \$DRACUT_SYSTEMD\"")
	assertContains "$out" "hook-done 1"
	assertEquals "the setup job queued" \
		"initqueue --settled --onetime --unique --name verity-init-setup /sbin/verity-init-dracut setup" \
		"$(cat "$SHUNIT_TMPDIR/initqueue.calls" 2>/dev/null)"
	assertEquals "pre-pivot as under shell init" "pre-pivot --newroot /sysroot --init " "$(agent_calls)"
	assertEquals "the root's init gets the fixed environment" "export HOME=/
export TERM=vt100" "$(cat "$SHUNIT_TMPDIR/export.orig")"
}

# vi_forget reads `set` itself (no sed): only whole NAME=value lines count, the lines of a
# multi-line value name nothing, globs stay words, and the caller's IFS and set -f come back;
# in both shells dracut may run its hooks with.
test_forget_takes_only_variables_and_restores_the_shell() {
	local sh out
	PARSE_OUT="" run_glue ":" >/dev/null   # writes the dracut-lib.sh stub
	for sh in dash bash; do
		command -v "$sh" >/dev/null || continue
		out=$(cd "$SHUNIT_TMPDIR" && env VERITY_ENV=1 VI_ENV='a *' "$sh" -c ". '$SHUNIT_TMPDIR/dracut-lib.sh'; . '$MOD/verity-init-lib.sh'
			VERITY_A=1 VI_G='*' OTHER=1 VIX=1 VERITYX=1
			VERITY_B='x
VERITY_INNER=2
 VERITY_IND=3
VERITY_BAD NAME=4'
			VERITY_INNER=kept_only_if_forget_skips_it
			unset IFS
			vi_forget VI_ VERITY_
			set | grep -E '^(VERITY|VI|OTHER)' | sed 's/=.*//' | sort | tr '\\n' ' '
			echo \"[\${IFS-unset}] [\${-%%f*}]\"
			set -f; IFS=:; VERITY_Z=1; vi_forget VERITY_
			echo \"[\${VERITY_Z-unset}] [\$IFS] \$(case \$- in *f*) echo f ;; esac)\"" 2>&1)
		assertEquals "$sh" "OTHER VERITYX VIX [unset] [$(cd / && "$sh" -c 'echo "${-%%f*}"')]
[unset] [:] f" "$out"
	done
}

# dracut sources its hooks into one shell, and each hook loads the library first: loaded there
# already, it returns at once (the settings, the hooks' state and a function the caller
# redefined stay). A _vi_lib=loaded from the kernel's environment (exported) and functions bash
# imports from it, [ and vi_load among them, keep it from loading nothing: in bash as sh, as
# dracut runs it, and in dash.
test_library_loads_once_per_shell_whatever_the_environment_says() {
	local sh out
	PARSE_OUT="" run_glue ":" >/dev/null   # writes the dracut-lib.sh stub
	mkdir -p "$SHUNIT_TMPDIR/bash-as-sh" && ln -sf "$(command -v bash)" "$SHUNIT_TMPDIR/bash-as-sh/sh"
	for sh in dash "$SHUNIT_TMPDIR/bash-as-sh/sh"; do
		command -v "$sh" >/dev/null || continue
		out=$(cd "$SHUNIT_TMPDIR" && timeout 60 "$sh" -c ". ./dracut-lib.sh; . '$MOD/verity-init-lib.sh'
			VI_AGENT=/test-agent VERITY_NAME=kept
			vi_hang() { echo test-hang; }
			. '$MOD/verity-init-lib.sh'
			echo \"\$VI_AGENT \$VERITY_NAME \$(vi_hang)\"" 2>&1)
		assertEquals "$sh: a second load in the same shell" "/test-agent kept test-hang" "$out"
		# shellcheck disable=SC2016 # the functions' text, for bash to import
		out=$(cd "$SHUNIT_TMPDIR" && env _vi_lib=loaded VI_AGENT=/test-agent \
			'BASH_FUNC_[%%=() { case $3 in loaded) return 0;; esac; builtin [ "$@"; }' \
			'BASH_FUNC_vi_load%%=() { echo imported; }' \
			timeout 60 "$sh" -c ". ./dracut-lib.sh; . '$MOD/verity-init-lib.sh'
			echo \"\$VI_AGENT \$_vi_lib [\$(export -p | grep -c _vi_lib)]\"
			VI_AGENT=/bin/false; vi_load; echo \"vi_load \$?\"" 2>&1)
		assertEquals "$sh: loaded over the environment's _vi_lib and functions" \
			"/usr/sbin/verity-init loaded [0]
vi_load 2" "$out"
	done
}

# The agent's answers on the way into the shell: what the real agent prints for `parse --shell`
# is read (vi_answer, no eval) as eval would read it, for every key the module uses; the others
# never become variables of the hooks.
test_agent_answers_read_as_eval_reads_them() {
	[ -x "$BUILD/verity-init" ] || { startSkipping; fail "needs $BUILD/verity-init"; return; }
	local line sh out want keys="ENABLED USR_ENABLED DISABLED OFF_ALLOWED SHELL_ALLOWED SLOTS NAME"
	keys="$keys USR_NAME LAYOUT ROOTFSTYPE USR_FSTYPE ROOTFLAGS USR_FLAGS INIT_ENV NEXT DATA HASH"
	# shellcheck disable=SC2016 # for the shells below
	local show='for k in '$keys'; do eval "printf '\''%s=[%s]\n'\'' $k \"\${VERITY_$k-unset}\""; done'
	PARSE_OUT="" run_glue ":" >/dev/null   # writes the dracut-lib.sh stub
	while IFS= read -r line; do
		PARSE_OUT=$("$BUILD/verity-init" parse --shell --cmdline "$line" 2>/dev/null)
		assertNotEquals "parsed: $line" "" "$PARSE_OUT"
		for sh in dash bash; do
			command -v "$sh" >/dev/null || continue
			want=$("$sh" -c "eval \"\$1\"; $show" _ "$PARSE_OUT" | sed 's/^\(DATA\|HASH\)=.*/\1=[unset]/')
			out=$(cd "$SHUNIT_TMPDIR" && "$sh" -c ". ./dracut-lib.sh; . '$MOD/verity-init-lib.sh'
				vi_answer \"\$1\" || echo refused
				$show" _ "$PARSE_OUT" 2>&1)
			assertEquals "$sh: $line" "$want" "$out"
		done
	done <<EOF
roothash=$(printf '%064d' 0) verity.data=/dev/vda verity.hash=/dev/vdb verity.name=v.r_1 rootfstype=ext4,erofs rootflags="noatime,a b'c" x=1
usrhash=$(printf '%064d' 1) systemd.volatile=yes mount.usrfstype=erofs mount.usrflags=noatime verity.usr.name=u-1
roothash=$(printf '%064d' 0) verity.data=/dev/disk/by-label/x\\x24\\x28reboot\\x29\\x20\\x60x\\x60 verity.hash=/dev/vdb
EOF
}

# An answer out of the agent's grammar (a key twice, a value the agent never prints for its key,
# quoting eval would read otherwise) is not used at all: vi_load treats the line as refused,
# with none of the answer's settings.
test_answer_out_of_grammar_trusts_nothing() {
	local bad out
	for bad in "VERITY_SHELL_ALLOWED='0'
VERITY_SHELL_ALLOWED=1" "VERITY_NAME='../x'" "VERITY_NAME='-x'" "VERITY_ROOTFLAGS='a'b'" \
		"VERITY_ROOTFLAGS=a\$(touch pwned)" "VERITY_ROOTFSTYPE='ext4 x'" "VERITY_LAYOUT='usr'" \
		"VERITY_OFF_ALLOWED=yes" "VERITY_INIT_ENV='LD_PRELOAD x'" "VERITY_USR_FLAGS='a	b'" \
		"VERITY_NAME" \
		"VERITY_REASON='a line
VERITY_SHELL_ALLOWED=1'"; do
		PARSE_OUT="VERITY_ENABLED=1
VERITY_SHELL_ALLOWED=1
VERITY_ROOTFLAGS=noatime
$bad"
		out=$(run_glue "vi_load; echo \"rc=\$? [\${VERITY_ENABLED-}\${VERITY_SHELL_ALLOWED-}\${VERITY_ROOTFLAGS-}] \$VERITY_NAME\"")
		assertEquals "$bad" "rc=2 [] root" "$out"
	done
	# the same lines within the grammar
	PARSE_OUT="VERITY_ENABLED=1
VERITY_SHELL_ALLOWED=1
VERITY_ROOTFLAGS='a'\\''b'
VERITY_NAME=v.1
VERITY_REASON='not read
by the module'"
	out=$(run_glue "vi_load; echo \"rc=\$? [\${VERITY_ENABLED-}\${VERITY_SHELL_ALLOWED-}\${VERITY_ROOTFLAGS-}] \$VERITY_NAME\"")
	assertEquals "rc=0 [11a'b] v.1" "$out"
}

# The agent and dracut's own parser (the real getarg / getargbool of dracut-lib.sh over the real
# dracut-getarg) on the same words: whatever dracut would open a shell for, the agent refuses, and
# the hook's check (vi_dracut_shell_asked) says so too.
test_agent_refuses_every_shell_dracut_would_open() {
	local lib=/usr/lib/dracut/modules.d/99base/dracut-lib.sh util=/usr/lib/dracut/dracut-util
	[ -r "$lib" ] && [ -x "$util" ] && [ -x "$BUILD/verity-init" ] || {
		startSkipping; fail "needs dracut and $BUILD/verity-init"; return; }
	local d=$SHUNIT_TMPDIR/realdracut line dracut agent hook out n=0
	mkdir -p "$d/bin" && ln -sf "$util" "$d/bin/dracut-getarg"
	{
		echo 'debug_off() { :; }; debug_on() { :; }; warn() { :; }'
		echo 'getcmdline() { printf "%s" "$TEST_CMDLINE"; }'
		awk '/^getarg\(\)/,/^}/; /^getargbool\(\)/,/^}/' "$lib"
	} >"$d/lib.sh"
	while IFS= read -r line; do
		n=$((n + 1))
		# dracut's emergency_shell condition, rd.shell off unless the line turns it on
		dracut=$(TEST_CMDLINE="$line" PATH="$d/bin:$PATH" sh -c ". '$d/lib.sh'
			if getargbool 0 rd.shell -d -y rdshell || getarg rd.break -d rdbreak >/dev/null; then
				echo shell; else echo none; fi")
		hook=$(TEST_CMDLINE="$line" PATH="$d/bin:$PATH" sh -c ". '$d/lib.sh'; . '$MOD/verity-init-lib.sh'
			if vi_dracut_shell_asked; then echo shell; else echo none; fi")
		out=$("$BUILD/verity-init" parse --cmdline "roothash=$(printf '%064d' 0) $line" 2>&1)
		# refused as a shell, or (after "--") as a setting the kernel would hand to init
		case "$out" in *"opens a root shell"* | *"after '--'"*) agent=shell ;; *) agent=none ;; esac
		assertEquals "dracut on '$line'" shell "$dracut"
		assertEquals "agent on '$line' (dracut opens a shell)" shell "$agent"
		assertEquals "hook on '$line' (dracut opens a shell)" shell "$hook"
	done <<'LINES'
rd.shell
rd.shell=1
rd.shell=false
rd.shell=No
rd.shell=OFF
rd.shell=n
rd.shell=
rd.shell=""
"rd.shell=1"
rd.shell="yes"
rd.shell=0 rd.shell
rd.shell=off rd.shell=true
rdshell
rdshell=0
rd.break
rd.break=pre-pivot
rd.break=cmdline
rdbreak
rdbreak=0
-- rd.break=pre-mount
quiet -- rd.shell=false
rd.shell=0 -- rd.shell
LINES
	assertEquals "lines checked (each one a shell for dracut)" 22 "$n"
	# dracut does not see rd.break in rd.b"rea"k, systemd (which unquotes every ") does: the
	# line is refused, as the consumers disagree
	out=$("$BUILD/verity-init" parse --cmdline "roothash=$(printf '%064d' 0) rd.b\"rea\"k" 2>&1)
	assertContains "$out" "is read differently by systemd"
	# and what dracut counts as off, the agent accepts
	for line in "rd.shell=0" "rd.shell=no" "rd.shell=off" 'rd.shell="0"' "rd.shellx rd.breakx=1" \
		"quiet ro" "rd_shell rd-break"; do
		dracut=$(TEST_CMDLINE="$line" PATH="$d/bin:$PATH" sh -c ". '$d/lib.sh'
			if getargbool 0 rd.shell -d -y rdshell || getarg rd.break -d rdbreak >/dev/null; then
				echo shell; else echo none; fi")
		assertEquals "dracut on '$line'" none "$dracut"
		# the hook's shortcut for lines without the names, and its full check
		hook=$(TEST_CMDLINE="$line" PATH="$d/bin:$PATH" sh -c ". '$d/lib.sh'; . '$MOD/verity-init-lib.sh'
			if vi_dracut_shell_asked; then echo shell; else echo none; fi")
		assertEquals "hook on '$line'" none "$hook"
		"$BUILD/verity-init" parse --cmdline "roothash=$(printf '%064d' 0) $line" >/dev/null 2>&1
		assertEquals "agent accepts '$line'" 0 $?
	done
}

test_cmdline_hook_reads_shell_switches_as_dracut_does() {
	local out
	# an accepted line (an agent reading a word differently) still cannot open dracut's shell:
	# dracut's getargbool counts rd.shell=false as on, and the kernel's word comes after
	# the module's rd.shell=0 in cmdline.d
	PARSE_OUT="VERITY_ENABLED=1
VERITY_FAIL='recovery,reboot'
VERITY_RECOVERY_ENABLED=1
VERITY_RECOVERY_ROOTHASH=cdcd
VERITY_RECOVERY_DATA=/dev/vdc"
	mkdir -p "$SHUNIT_TMPDIR/cmdline.d" && echo rd.shell=0 >"$SHUNIT_TMPDIR/cmdline.d/10image.conf"
	out=$(TEST_CMDLINE="roothash=ab rd.shell=false" AGENT_ANSWERS=1 run_cmdline_hook)
	assertNotContains "the hook never returned" "$out" fstype=
	assertEquals "the policy at once (the agent: no recovery root for this reason)" \
		"fail --reason shell-asked" "$(agent_calls)"
	rm -rf "$SHUNIT_TMPDIR/agent.calls" "$SHUNIT_TMPDIR/cmdline.d"
	out=$(TEST_CMDLINE="roothash=ab rdshell=0" AGENT_ANSWERS=1 run_cmdline_hook)
	assertEquals "rdshell with any value" "fail --reason shell-asked" "$(agent_calls)"
	rm -f "$SHUNIT_TMPDIR/agent.calls"
	# off as dracut reads it; and anything when the policy allows a shell
	out=$(TEST_CMDLINE="roothash=ab rd.shell=1 rd.shell=off" run_cmdline_hook)
	assertContains "$out" "fstype=auto rflags=ro"
	PARSE_OUT="VERITY_ENABLED=1
VERITY_SHELL_ALLOWED=1"
	out=$(TEST_CMDLINE="roothash=ab rd.shell=false rd.break" run_cmdline_hook)
	assertContains "$out" "fstype=auto rflags=ro"
	assertEquals "no agent call" "" "$(agent_calls)"
}

# dracut's init.sh runs init= as dracut reads it (after a refused line the agent checks that one,
# if setup booted the recovery root), and never lets real_init= / rd.distroinit= be checked.
test_prepivot_passes_the_init_dracut_will_run() {
	local out
	PARSE_OUT="VERITY_FAIL=recovery"
	out=$(TEST_CMDLINE="bad init=/bin/other" PARSE_RC=1 run_prepivot :)
	assertContains "$out" hook-done
	assertEquals "pre-pivot --newroot /sysroot --init /bin/other" "$(agent_calls)"
	rm -f "$SHUNIT_TMPDIR/agent.calls"
	out=$(TEST_CMDLINE="bad real_init=/bin/other" PARSE_RC=1 AGENT_ANSWERS=1 run_prepivot :)
	assertNotContains "refused by the agent: the hook never returns" "$out" hook-done
	assertEquals "pre-pivot --newroot /sysroot --other-init" "$(agent_calls)"
}

test_cmdline_hook_leaves_non_verity_boots_alone_only_if_the_policy_allows() {
	local out
	PARSE_OUT="VERITY_ENABLED=0
VERITY_OFF_ALLOWED=1"
	out=$(run_glue "
		root=/dev/vda1
		fn() { . '$HOOKS/parse-verity-init.sh'; }
		fn
		echo \"root=\$root\"")
	assertEquals "root=/dev/vda1" "$out"
	# without allow_weak=verity-off a missing root hash is a refusal, not an unverified boot
	PARSE_OUT="VERITY_ENABLED=0"
	out=$(run_glue "
		initqueue() { :; }
		root=/dev/vda1
		fn() { . '$HOOKS/parse-verity-init.sh'; }
		fn
		echo \"root=\$root\"")
	assertContains "$out" "root=block:/dev/mapper/root"
	out=$(AGENT_ANSWERS=1 run_glue "vi_setup; echo set-up")
	assertNotContains "the setup job never returns" "$out" set-up
	assertEquals "the agent refuses and applies the policy" "setup --fallback" "$(agent_calls)"
}


# The agent hands a shell back (exit 3, VERITY_NEXT=N): dracut's emergency shell, where rd.shell
# lets dracut open one, then the same command from entry N of the list.
test_agent_shell_answer_opens_dracuts_shell_then_resumes() {
	local out
	PARSE_OUT="VERITY_ENABLED=1"
	out=$(AGENT_ANSWERS="3:1 3:2 1" run_glue "vi_setup; echo set-up")
	assertEquals "two shells" 2 "$(printf '%s\n' "$out" | grep -c 'emergency_shell -n verity-init')"
	assertEquals "resumed where the agent said" "setup --fallback
setup --fallback --resume 1
setup --fallback --resume 2" "$(agent_calls)"
	assertNotContains "failed in the end: never returns" "$out" set-up
	rm -f "$SHUNIT_TMPDIR/agent.calls"
	out=$(TEST_CMDLINE=rd.shell=0 AGENT_ANSWERS="3:1 0" run_glue "vi_setup; echo set-up")
	assertNotContains "rd.shell=0 refuses the shell" "$out" emergency_shell
	assertContains "$(cat "$SHUNIT_TMPDIR/kmsg")" "fallback shell refused: rd.shell=0"
	assertEquals "and the list goes on" "setup --fallback
setup --fallback --resume 1" "$(agent_calls)"
	assertContains "recovered: the boot goes on" "$out" set-up
	# an answer without a place to resume: never go on
	printf '%s\n' '#!/bin/sh' 'case "$1" in parse) echo VERITY_ENABLED=1 ;;' \
		'*) echo "VERITY_NEXT=1;reboot"; exit 3 ;; esac' >"$SHUNIT_TMPDIR/odd-agent"
	chmod 0755 "$SHUNIT_TMPDIR/odd-agent"
	out=$(run_glue "VI_AGENT='$SHUNIT_TMPDIR/odd-agent'; vi_setup; echo set-up")
	assertNotContains "$out" emergency_shell
	assertNotContains "$out" set-up
}


test_setup_job_hands_the_line_to_the_agent_and_announces_the_root() {
	local out
	PARSE_OUT="VERITY_ENABLED=1
VERITY_NAME=vroot"
	rm -f "$SHUNIT_TMPDIR/agent.calls" "$SHUNIT_TMPDIR/modprobe.calls"
	out=$(TEST_CMDLINE="roothash=ab verity.name=vroot" run_glue "
		udevadm() { echo \"udevadm \$*\" >>'$SHUNIT_TMPDIR/udev.log'; }
		vi_setup && echo set-up")
	assertContains "$out" set-up
	assertContains "udev asked about the mapping" "$(cat "$SHUNIT_TMPDIR/udev.log")" "udevadm settle"
	rm -f "$SHUNIT_TMPDIR/udev.log"
	assertEquals "dracut's command line and the test stand-ins, as arguments" \
		"setup --fallback --cmdline roothash=ab verity.name=vroot --rundir $SHUNIT_TMPDIR/run --kmsg $SHUNIT_TMPDIR/kmsg --sysrq $SHUNIT_TMPDIR/sysrq" \
		"$(cat "$SHUNIT_TMPDIR/agent.calls")"
	# dm_verity is loaded before the agent runs, whose first step seals its keyring
	assertEquals "modprobe -q dm_verity after 0" "$(cat "$SHUNIT_TMPDIR/modprobe.calls")"
	rm -f "$SHUNIT_TMPDIR/modprobe.calls"
	# a refused line: the agent logs why and applies the policy
	rm -f "$SHUNIT_TMPDIR/agent.calls"
	out=$(PARSE_RC=1 AGENT_ANSWERS=1 run_glue "vi_setup && echo set-up")
	assertNotContains "$out" set-up
	assertEquals "setup --fallback" "$(agent_calls)"
}

# the pre-pivot hook, sourced as dracut does (shell init)
run_prepivot() {
	run_glue "NEWROOT=/sysroot; $1; . '$HOOKS/verity-init-check-init.sh'; echo hook-done"
}

test_prepivot_good_root_switches() {
	local out
	PARSE_OUT="VERITY_ENABLED=1"
	out=$(run_prepivot :)
	assertContains "$out" hook-done
	assertEquals "pre-pivot --newroot /sysroot --init " "$(agent_calls)"
	assertContains "a fixed environment for init" "$(cat "$SHUNIT_TMPDIR/export.orig")" "export HOME=/"
	# no verity root asked for: nothing to check
	rm -f "$SHUNIT_TMPDIR/agent.calls"
	PARSE_OUT="VERITY_ENABLED=0
VERITY_OFF_ALLOWED=1"
	out=$(run_prepivot :)
	assertContains "$out" hook-done
	assertEquals "" "$(agent_calls)"
}


test_prepivot_refused_root_never_switches() {
	local out
	PARSE_OUT="VERITY_FAIL=poweroff"
	out=$(PARSE_RC=1 AGENT_ANSWERS=1 run_prepivot :)
	assertNotContains "the hook never returned" "$out" hook-done
	assertEquals "pre-pivot --newroot /sysroot --init " "$(agent_calls)"
	# the recovery root in its place (the agent mounted it): the boot goes on
	rm -f "$SHUNIT_TMPDIR/agent.calls"
	PARSE_OUT="VERITY_ENABLED=1"
	out=$(AGENT_ANSWERS=0 run_prepivot :)
	assertContains "$out" hook-done
}

test_refuse_shell_applies_the_fail_actions() {
	local out
	PARSE_OUT="VERITY_FAIL=poweroff"
	out=$(PARSE_RC=1 AGENT_ANSWERS=0 run_glue "set -- refuse-shell emergency.service; . '$HOOKS/verity-init-dracut.sh'; echo returned")
	assertNotContains "the shell unit never starts, whatever the answer: $out" "$out" returned
	assertEquals "the agent applies the policy" "fail --reason shell-unit --unit emergency.service" \
		"$(agent_calls)"
}

tearDown() {
	rm -rf "$SHUNIT_TMPDIR/sysrq" "$SHUNIT_TMPDIR/kmsg" "$SHUNIT_TMPDIR/run" \
		"$SHUNIT_TMPDIR/agent.calls" "$SHUNIT_TMPDIR/cmdline.d" "$SHUNIT_TMPDIR/export.orig"
	unset PARSE_RC AGENT_ANSWERS TEST_CMDLINE
}

test_module_scripts_pass_shellcheck() {
	command -v shellcheck >/dev/null || { startSkipping; fail "shellcheck missing"; return; }
	local out
	out=$(cd "$MOD" && shellcheck -s sh -e SC1090,SC1091,SC3043 parse-verity-init.sh verity-init-check-init.sh \
		verity-init-mount.sh verity-init-lib.sh verity-init-dracut.sh 2>&1)
	assertEquals "POSIX sh hooks" "" "$out"
	out=$(cd "$MOD" && shellcheck -s bash -e SC1090,SC1091,SC2154 module-setup.sh 2>&1)
	assertEquals "module-setup.sh" "" "$out"
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
