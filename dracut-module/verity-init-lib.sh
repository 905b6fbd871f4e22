#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# verity-init-lib.sh: shell glue shared by the cmdline hook, the initqueue job, the systemd
# generator and the systemd service. Installed as /lib/verity-init-lib.sh. POSIX sh, sourced.
#
# Parsing is the agent's: `verity-init parse --shell` prints VERITY_*= assignments; nothing here
# interprets the kernel command line keys of verity-init itself.

type getarg > /dev/null 2>&1 || . /lib/dracut-lib.sh

# vi_forget PREFIX...: unset every shell variable whose name starts with one of the PREFIXes.
vi_forget() {
	# the caller's IFS and options (set -f) come back on return
	local - IFS _set _v _p
	# one fork for the builtin's output and no exec: a pipe to sed made this cost some 130 ms per
	# call in a slow emulated guest, and the hooks call it up to four times per boot
	_set=$(set)
	set -f
	IFS='
'
	for _v in $_set; do
		# NAME=value lines only; lines inside a multi-line value or a function body are skipped
		# or give a name no variable has
		case $_v in
			[A-Za-z_]*=*) _v=${_v%%=*} ;;
			*) continue ;;
		esac
		case $_v in
			*[!A-Za-z0-9_]*) continue ;;
		esac
		for _p in "$@"; do
			case $_v in
				"$_p"*) unset "$_v" ;;
			esac
		done
	done
	return 0
}

# The kernel hands every command line word NAME=value whose NAME has no dot to /init as an
# environment variable, and dracut's hooks inherit it: none of the module's settings or state may
# come from there (VI_SYSRQ=/dev/null would disarm the fail actions). Everything is fixed here;
# the tests redefine these after sourcing this file.
vi_forget VI_ VERITY_
VI_AGENT=/usr/sbin/verity-init
VI_RUNDIR=/run/verity-init
# the kernel's emergency actions
VI_SYSRQ=/proc/sysrq-trigger
# seconds an action gets to take effect before the next one in the list is tried
VI_ACTION_WAIT=10
VI_KMSG=/dev/kmsg
# where dracut's getarg also reads command line words from (the cmdline hook writes there)
# shellcheck disable=SC2034
VI_CMDLINE_D=/etc/cmdline.d
VI_MOUNTINFO=/proc/self/mountinfo
VI_SYSBLOCK=/sys/block
# dracut's command-line parser, which getarg and getargbool run
VI_DRACUT_GETARG=dracut-getarg
# where dracut's init.sh keeps the kernel's environment for the root's init
VI_EXPORT_ORIG=/tmp/export.orig

# vi_hang: the end of a failed boot when even the kernel's panic did not come: never return, never
# exit (an exit of dracut's /init, or of a hook's shell, ends in its emergency shell).
vi_hang() {
	while :; do sleep 3600; done
}

# The command line the agent sees: dracut's /etc/cmdline.d/*.conf and /etc/cmdline (host-only
# builds), then /proc/cmdline. The agent refuses a key repeated with another value; for root=,
# rootfstype=, rootflags= and init= the last word (the kernel's) wins.
vi_cmdline() {
	getcmdline
}

# vi_lastline TEXT: the last non-empty line (the agent logs to stderr too; its one-line reason
# comes last).
vi_lastline() {
	# shellcheck disable=SC2016 # sed script, not shell
	printf '%s\n' "$1" | sed -n '/./h; ${x;p;}'
}

# vi_load: fill VERITY_* from the agent's parser.
# Returns 0 when a verity root is configured, 1 when the command line asks for none (or turns
# verity off with systemd.verity=0), 2 when the command line or the image's policy file is
# refused (VI_PARSE_ERROR holds the agent's one-line reason). VI_CMDLINE is the line it read.
vi_load() {
	local _out _rc
	VI_PARSE_ERROR=
	# only what this run of the agent prints
	vi_forget VERITY_
	[ -d "$VI_RUNDIR" ] || mkdir -p "$VI_RUNDIR"
	VI_CMDLINE=$(vi_cmdline)
	_out=$("$VI_AGENT" parse --shell --cmdline "$VI_CMDLINE" 2> "$VI_RUNDIR/parse.err")
	_rc=$?
	if [ $_rc -ne 0 ]; then
		VI_PARSE_ERROR=$(vi_lastline "$(cat "$VI_RUNDIR/parse.err")")
		VI_PARSE_ERROR=${VI_PARSE_ERROR#verity-init: }
		VI_PARSE_ERROR=${VI_PARSE_ERROR:-"verity-init parse failed (exit $_rc)"}
		# a refused line is not used; what the agent prints instead is the defaults plus the
		# initramfs policy (its fail actions), quoted for the shell like any parse output
		VERITY_FAIL=
		eval "$_out"
		VERITY_NAME=root
		return 2
	fi
	# The agent quotes every value for the shell (lib/config/config_print.c), so eval is safe here.
	eval "$_out"
	VERITY_NAME=${VERITY_NAME:-root}
	if [ "${VERITY_DISABLED:-0}" = 1 ]; then
		return 1   # systemd.verity=0, which the agent accepted only with allow_weak=verity-off
	fi
	if [ "${VERITY_ENABLED:-0}" != 1 ]; then
		# An image built with this module boots a verified root: dropping roothash= from the
		# command line must not turn that into an unverified boot of root=.
		[ "${VERITY_OFF_ALLOWED:-0}" = 1 ] && return 1
		VI_PARSE_ERROR="no root hash on the command line (roothash= or verity.roothash=) and the initramfs policy requires a verified root (allow_weak=verity-off to boot without)"
		return 2
	fi
	return 0
}

vi_log() {
	local _msg
	# one record per line in the kernel log, as the agent does: a control byte in a string that
	# came from the command line or a disk would start a record of its own (with its own
	# priority) or drive the console, so each becomes '?'
	_msg=$(printf '%s' "$1" | tr '\001-\037\177' '?')
	echo "<${2:-5}>verity-init-dracut: $_msg" >> "$VI_KMSG" 2> /dev/null || echo "verity-init-dracut: $_msg" >&2
}

# vi_getarg_ok: does dracut's own command-line parser work on this line? dracut-getarg (dracut
# 059) crashes on some lines (a trailing lone '"'), and getarg/getargbool then fall back to their
# defaults: rd.shell=0 would be read as the default, a shell. The agent refuses such lines; this
# is the second wall, for whatever the agent did not foresee.
vi_getarg_ok() {
	local _rc
	CMDLINE=$(getcmdline) "$VI_DRACUT_GETARG" rd.shell > /dev/null 2>&1
	_rc=$?
	[ $_rc -le 1 ]
}

# vi_shquote VALUE: VALUE quoted for sh, in single quotes.
vi_shquote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# vi_init_env: under dracut's shell init, what the root's init gets as its environment. dracut's
# init.sh saves the kernel's environment (every NAME=value word of the command line) in
# /tmp/export.orig and restores it before switch_root, and puts the kernel's PATH back: replace
# both with what the kernel gives init by default (HOME=/, TERM=linux), the command line's TERM
# and the names the initramfs policy lists (VERITY_INIT_ENV, from the agent). Under systemd the
# initramfs's PID 1 hands its own environment on; the agent refuses every name that is not
# allowed there (docs/security.md).
vi_init_env() {
	local _n _v _term=linux
	[ -z "${DRACUT_SYSTEMD:-}" ] || return 0
	case "${TERM:-}" in
		'' | *[!A-Za-z0-9._+-]*) ;;
		*) _term=$TERM ;;
	esac
	{
		echo "export HOME=/"
		echo "export TERM=$_term"
		for _n in ${VERITY_INIT_ENV:-}; do
			case "$_n" in
				'' | *[!A-Z0-9_]*) continue ;;
			esac
			eval "[ -n \"\${$_n+x}\" ]" || continue
			eval "_v=\$$_n"
			echo "export $_n=$(vi_shquote "$_v")"
		done
	} > "$VI_EXPORT_ORIG"
	# read by dracut's init.sh right before switch_root
	# shellcheck disable=SC2034
	OLDPATH=/usr/sbin:/usr/bin:/sbin:/bin
}

# vi_udev_announce NAME: make sure udev has processed the new dm device like any other, so the
# /dev/mapper and /dev/disk/by-* links exist and systemd gets a device unit for it. The agent
# creates the mapping in udev-sync mode when udev runs; a device made behind udev's back (no
# dm-name link) gets a synthetic change event.
vi_udev_announce() {
	local _dm _name
	[ -L "/dev/disk/by-id/dm-name-$1" ] && return 0
	# a static agent's libdevmapper cannot wait for udev: let the kernel's event finish first
	udevadm settle --timeout=10 > /dev/null 2>&1
	[ -L "/dev/disk/by-id/dm-name-$1" ] && return 0
	for _dm in "$VI_SYSBLOCK"/dm-*; do
		[ -r "$_dm/dm/name" ] || continue
		read -r _name < "$_dm/dm/name" || continue
		[ "$_name" = "$1" ] || continue
		vi_log "udev had not processed $1 (${_dm##*/}): triggering a change event"
		udevadm trigger --action=change "$_dm" > /dev/null 2>&1
		udevadm settle --timeout=10 > /dev/null 2>&1
		[ -L "/dev/disk/by-id/dm-name-$1" ] && return 0
		vi_log "udev did not announce $1: no /dev/disk/by-id/dm-name-$1" 3
		return 1
	done
	vi_log "no dm device named $1 in /sys/block" 3
	return 1
}

# vi_shell_allowed: `shell` is in VERITY_FAIL only when the image's policy allows it (the agent
# drops it otherwise, allow_shell= in /etc/verity-init.conf); rd.shell=0 still refuses it.
vi_shell_allowed() {
	vi_getarg_ok || return 1
	getargbool 1 rd.shell -d -y rdshell
}

# vi_dracut_shell_asked [LINE]: does the command line (dracut's reading of it: getarg/getargbool,
# the last word wins, only an exact 0/no/off is off) ask dracut for a breakpoint or emergency
# shell? LINE is the line as getcmdline gives it (read again when not given).
vi_dracut_shell_asked() {
	# dracut-getarg finds a key only where its name stands in the line as it is (quotes around a
	# word do not hide it): a line without these names asks for nothing, and the four processes
	# of getarg and getargbool are saved (0.2 s per boot in a slow emulated guest)
	case "${1-$(vi_cmdline)}" in
		*rd.break* | *rdbreak* | *rd.shell* | *rdshell*) ;;
		*) return 1 ;;
	esac
	getarg rd.break -d rdbreak > /dev/null || getargbool 0 rd.shell -d -y rdshell
}

# vi_sysrq CHAR: b reboots, o powers off, c panics -- at once: nothing is mounted read-write.
vi_sysrq() {
	echo "$1" >> "$VI_SYSRQ"
}

# vi_status_set KEY VALUE: set one line of the agent's status file (/run/verity-init/status,
# key=value), keeping the others: the module records what the agent did not see (a refused init,
# the action taken) in the same place, for the recovery root and for `verity-init status`.
vi_status_set() {
	local _f="$VI_RUNDIR/status" _line _found=0
	[ -d "$VI_RUNDIR" ] || mkdir -p "$VI_RUNDIR"
	{
		if [ -r "$_f" ]; then
			while IFS= read -r _line; do
				case "$_line" in
					"$1="*)
						printf '%s=%s\n' "$1" "$2"
						_found=1
						;;
					*) printf '%s\n' "$_line" ;;
				esac
			done < "$_f"
		fi
		[ $_found = 1 ] || printf '%s=%s\n' "$1" "$2"
	} > "$_f.tmp" && mv -f "$_f.tmp" "$_f"
}

# vi_recovery: the `recovery` action. Sets up the recovery root (verity.recovery.*) under the
# main root's mapping name, so the root= dracut waits for and mounts is the recovery root. In
# pre-pivot (VI_NEWROOT: what was mounted there, or its init, was refused) anything still mounted
# there is unmounted and the mapping removed first, and the recovery root is mounted and its init
# checked in its place (shell init only: under systemd, /sysroot belongs to sysroot.mount). Used
# once per boot.
vi_recovery() {
	local _line _err _rc
	if [ "${VERITY_RECOVERY_ENABLED:-0}" != 1 ]; then
		vi_log "action recovery: no recovery root configured" 4
		return 1
	fi
	if [ -n "${VI_NO_RECOVERY:-}" ]; then
		# the command line stays dracut's: it would open its shell in the recovery boot too
		vi_log "action recovery: $VI_NO_RECOVERY" 4
		return 1
	fi
	if [ -e "$VI_RUNDIR/dracut-recovery" ]; then
		vi_log "action recovery: already tried in this boot" 4
		return 1
	fi
	: > "$VI_RUNDIR/dracut-recovery"
	if [ -n "${VI_NEWROOT:-}" ]; then
		if [ -n "${DRACUT_SYSTEMD:-}" ]; then
			vi_log "action recovery: not available under systemd once /sysroot is mounted" 4
			return 1
		fi
		vi_umount_root "$VI_NEWROOT" || return 1
	fi
	if [ -e "/dev/mapper/$VERITY_NAME" ]; then
		dmsetup remove "$VERITY_NAME" || return 1
	fi
	_line="verity.roothash=$VERITY_RECOVERY_ROOTHASH verity.name=$VERITY_NAME"
	_line="$_line verity.data=\"$VERITY_RECOVERY_DATA\""
	[ -n "$VERITY_RECOVERY_HASH" ] && _line="$_line verity.hash=\"$VERITY_RECOVERY_HASH\""
	[ -n "$VERITY_RECOVERY_OPTIONS" ] && _line="$_line verity.options=\"$VERITY_RECOVERY_OPTIONS\""
	vi_log "action: recovery (root hash $VERITY_RECOVERY_ROOTHASH)" 2
	# the agent rewrites the status file for the root it sets up: keep the failure's
	cp -f "$VI_RUNDIR/status" "$VI_RUNDIR/status.failed" 2> /dev/null
	_err=$("$VI_AGENT" setup --cmdline "$_line" 2>&1 > /dev/null)
	_rc=$?
	[ -r "$VI_RUNDIR/status.failed" ] && mv -f "$VI_RUNDIR/status.failed" "$VI_RUNDIR/status"
	if [ $_rc -ne 0 ]; then
		vi_log "recovery root refused: $(vi_lastline "$_err")" 2
		return 1
	fi
	vi_udev_announce "$VERITY_NAME"
	if [ -n "${VI_NEWROOT:-}" ]; then
		mount -o ro "/dev/mapper/$VERITY_NAME" "$VI_NEWROOT" || return 1
		if ! vi_check_init "$VI_NEWROOT" "${VERITY_INIT:-/sbin/init}"; then
			vi_log "recovery root refused: $VI_INIT_ERROR" 2
			vi_umount_root "$VI_NEWROOT"
			return 1
		fi
	fi
	vi_status_set booted "$VERITY_RECOVERY_ROOTHASH"
	vi_log "booting the recovery root" 4
	return 0
}

# vi_fail REASON: apply verity.fail= in order. Returns only when the recovery root took the
# failed root's place; otherwise the unverified device must not be mounted, so the last resort
# after the list is a kernel panic.
vi_fail() {
	local _reason="$1" _action _actions _old
	_actions=$(printf '%s' "${VERITY_FAIL:-panic}" | tr ',' ' ')
	vi_log "root verification failed: $_reason" 2
	_old=$(sed -n 's/^reason=//p' "$VI_RUNDIR/status" 2> /dev/null)
	vi_status_set result failed
	[ -n "$_old" ] || vi_status_set reason "$_reason"
	for _action in $_actions; do
		vi_status_set action "$_action"
		case "$_action" in
			recovery)
				vi_recovery && return 0
				continue
				;;
			shell)
				if vi_shell_allowed; then
					vi_log "action: shell" 2
					emergency_shell -n verity-init "verity-init: $_reason"
				else
					vi_log "action shell refused: rd.shell=0" 3
				fi
				continue
				;;
			reboot)
				vi_log "action: reboot" 2
				vi_sysrq b
				;;
			poweroff)
				vi_log "action: poweroff" 2
				vi_sysrq o
				;;
			panic)
				vi_log "action: panic" 2
				vi_sysrq c
				;;
			*)
				vi_log "unknown action $_action ignored" 3
				continue
				;;
		esac
		sleep "$VI_ACTION_WAIT"
	done
	vi_status_set action panic
	vi_log "action: panic (end of the verity.fail list)" 2
	vi_sysrq c
	# no panic: never go on to mount anything
	vi_hang
}

# vi_mounted DIR: is something mounted on DIR?
vi_mounted() {
	local _id _pid _mm _root _mp _rest
	while read -r _id _pid _mm _root _mp _rest; do
		[ "$_mp" = "$1" ] && return 0
	done < "$VI_MOUNTINFO"
	return 1
}

# vi_umount_root DIR: unmount DIR with everything mounted inside it (nothing that is not the
# verified root may stay there), if anything is mounted.
vi_umount_root() {
	vi_mounted "$1" || return 0
	umount -R "$1" 2> /dev/null || umount -l "$1"
}

# vi_check_init ROOT PATH: ROOT must be the mapping /dev/mapper/$VERITY_NAME (root= or an fstab
# generator could have mounted something else) and the init program must come from it (not from
# a /usr mounted inside it), read completely once: dm-verity checks each block when it is read,
# so a tampered init would only fail at exec, after the switch, when nothing can fall back any
# more. The agent resolves PATH inside ROOT (openat2 RESOLVE_IN_ROOT) and compares devices.
# shellcheck disable=SC2034 # VI_INIT_ERROR is read by the caller
vi_check_init() {
	local _err
	_err=$("$VI_AGENT" check-init --name "$VERITY_NAME" --init "$2" "$1" 2>&1 > /dev/null) && return 0
	_err=$(vi_lastline "$_err")
	VI_INIT_ERROR=${_err#verity-init: }
	VI_INIT_ERROR=${VI_INIT_ERROR:-"verity-init check-init failed"}
	return 1
}

# vi_setup: create the mapping with the agent, announce it to udev; on failure apply the policy.
vi_setup() {
	local _rc _err
	vi_load
	_rc=$?
	case $_rc in
		0) ;;
		1) return 0 ;;
		*)
			# returns only when the policy's recovery root was set up in its place
			vi_fail "${VI_PARSE_ERROR:-malformed command line}"
			return 0
			;;
	esac
	# the agent waits for the devices it resolved (bounded by verity.timeout=): no device
	# string of the command line reaches dracut's initqueue, which sources what it is given
	_err=$("$VI_AGENT" setup --cmdline "$(vi_cmdline)" 2>&1 > /dev/null)
	_rc=$?
	if [ $_rc -ne 0 ]; then
		_err=$(vi_lastline "$_err")
		vi_fail "${_err:-verity-init setup failed (exit $_rc)}"
	fi
	vi_udev_announce "$VERITY_NAME"
	return 0
}
