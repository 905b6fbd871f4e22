#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# verity-init-lib.sh: shell glue shared by the cmdline hook, the initqueue job and the systemd
# units (setup; the pre-pivot unit's shell); the generator is the agent itself. Installed as
# /lib/verity-init-lib.sh. POSIX sh, sourced.
#
# The agent is the runtime: it parses (`verity-init parse --shell`), sets the root up, writes
# the status file and applies the fail list (`setup --fallback`, `fail`, `pre-pivot`); its
# answers are VERITY_KEY=VALUE lines, all read by vi_answer, never evaluated. What stays here is
# what only dracut can do: its hooks, its emergency shell, udev, root= and rflags, and its own
# reading of rd.break / rd.shell.

# Each hook and /sbin/verity-init-dracut sources this file first and defines nothing before it.
# dracut sources its hooks into one shell, the emergency hook even from inside
# vi_agent_after_shell (dracut's emergency_shell): a second load there returns at once, so the
# settings and what vi_load found stay. Whether this shell loaded it is told by _vi_lib, which
# is set below and never exported. The kernel puts every NAME=value word of its command line
# into the environment of dracut's shell, and bash imports a function from BASH_FUNC_name%%: a
# _vi_lib from there is exported (export -p, a special built-in, shows it; no imported function
# replaces it), and whatever functions were imported, the file loads: case is a reserved word,
# return a special built-in, while a function named [ would replace the test, in bash as sh.
case "${_vi_lib:-}" in
	loaded)
		case "$(export -p)" in
			*" _vi_lib="*) ;;
			*) return 0 ;;
		esac
		;;
esac

# Functions imported from the kernel's environment (bash: BASH_FUNC_name%%=, a word of the
# command line) must not stand in for the programs and built-ins this module runs: unset is a
# special built-in, which no function replaces. The agent refuses such words too.
unset -f type command printf read echo test [ cat sed tr mkdir rm mv cp sleep mount umount \
	udevadm dmsetup env modprobe 2> /dev/null
type getarg > /dev/null 2>&1 || . /lib/dracut-lib.sh
# loaded in this shell (unset first: an exported one from the environment loses its export)
unset _vi_lib
_vi_lib=loaded

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
# the kernel's emergency actions and log (the agent's: tests name files instead)
VI_SYSRQ=/proc/sysrq-trigger
VI_KMSG=/dev/kmsg
# where dracut's getarg also reads command line words from (the cmdline hook writes there)
# shellcheck disable=SC2034
VI_CMDLINE_D=/etc/cmdline.d
VI_SYSBLOCK=/sys/block
# dracut's command-line parser, which getarg and getargbool run
VI_DRACUT_GETARG=dracut-getarg
# where dracut's init.sh keeps the kernel's environment for the root's init
VI_EXPORT_ORIG=/tmp/export.orig
# what systemd as the initramfs's init creates before it runs anything of dracut (vi_systemd)
VI_SYSTEMD_DIR=/run/systemd/system
# dracut's shell init: queues a job for its main loop (the cmdline hook uses it)
# shellcheck disable=SC2034
VI_INITQUEUE=/sbin/initqueue
# dm_verity's module directory in sysfs, and what loads it (vi_dm_verity_load)
VI_DM_VERITY_SYSFS=/sys/module/dm_verity
VI_MODPROBE=modprobe

# vi_systemd: is systemd the initramfs's init (dracut's systemd flavour), not dracut's shell init?
# Told by what systemd creates, never by DRACUT_SYSTEMD: dracut's units set that variable, but
# under its shell init the kernel makes DRACUT_SYSTEMD=1 of the command line a variable of every
# hook, and the setup job would never be queued.
vi_systemd() {
	[ -d "$VI_SYSTEMD_DIR" ]
}

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

# vi_answer TEXT: read an answer of the agent, one VERITY_KEY=VALUE a line: what `parse --shell`
# prints (lib/config/config_print.c) and the dracut commands' answer (dracut-mode.c). Nothing
# of it is evaluated. VALUE is a word of [A-Za-z0-9._,:/+=@%-] or single-quoted, a quote inside
# written '\'' (vi_shell_quote in lib/util/strutil.c): what eval would read is what this
# reads. Only the keys the module uses are set, each once and after its value is checked
# against what the agent says for that key; the other lines are skipped unread. Returns 1 on a
# line of such a key that breaks this grammar (its '=' missing included), or a key given
# twice: the caller then trusts none of the answer. Character classes are the C locale's in
# every shell.
vi_answer() {
	local - IFS _line _k _g _v _rest _part _seen=' ' LC_ALL=C
	set -f
	IFS='
'
	for _line in $1; do
		_k=${_line%%=*}
		case $_k in
			VERITY_ENABLED | VERITY_USR_ENABLED | VERITY_DISABLED | VERITY_OFF_ALLOWED | \
				VERITY_SHELL_ALLOWED | VERITY_SLOTS) _g=bool ;;
			VERITY_NAME | VERITY_USR_NAME) _g=name ;;
			VERITY_LAYOUT) _g=layout ;;
			VERITY_ROOTFSTYPE | VERITY_USR_FSTYPE) _g=fstype ;;
			VERITY_ROOTFLAGS | VERITY_USR_FLAGS) _g=text ;;
			VERITY_INIT_ENV) _g=names ;;
			VERITY_NEXT) _g=number ;;
			*) continue ;;
		esac
		case $_line in
			"$_k="*) ;;
			*) return 1 ;;   # a key the module reads, without its '='
		esac
		case $_seen in
			*" $_k "*) return 1 ;;
		esac
		_seen="$_seen$_k "
		_v=${_line#*=}
		case $_v in
			\'*\')
				_rest=${_v#\'}
				_rest=${_rest%\'}
				_v=
				while :; do
					_part=${_rest%%"'\\''"*}
					case $_part in
						*\'*) return 1 ;;
					esac
					_v=$_v$_part
					[ "$_part" != "$_rest" ] || break
					_v=$_v\'
					_rest=${_rest#*"'\\''"}
				done
				;;
			*[!A-Za-z0-9._,:/+=@%-]*) return 1 ;;
		esac
		# mapping names as the agent allows them, the layouts and file system types it knows,
		# mount options without control bytes, the policy's init_env= names, digits
		case $_g:$_v in
			bool:[01] | layout:root | layout:root+usr | layout:tmpfs+usr | layout:writable+usr) ;;
			name:[A-Za-z0-9]*)
				case $_v in
					*[!A-Za-z0-9._-]*) return 1 ;;
				esac
				;;
			fstype:*[!A-Za-z0-9,]* | text:*[[:cntrl:]]* | names:*[!A-Z0-9_\ ]* | number:*[!0-9]*)
				return 1
				;;
			fstype:* | text:* | names:* | number:?*) ;;
			*) return 1 ;;
		esac
		# shellcheck disable=SC2034 # some are read by the hooks only
		case $_k in
			VERITY_ENABLED) VERITY_ENABLED=$_v ;;
			VERITY_USR_ENABLED) VERITY_USR_ENABLED=$_v ;;
			VERITY_DISABLED) VERITY_DISABLED=$_v ;;
			VERITY_OFF_ALLOWED) VERITY_OFF_ALLOWED=$_v ;;
			VERITY_SHELL_ALLOWED) VERITY_SHELL_ALLOWED=$_v ;;
			VERITY_SLOTS) VERITY_SLOTS=$_v ;;
			VERITY_NAME) VERITY_NAME=$_v ;;
			VERITY_USR_NAME) VERITY_USR_NAME=$_v ;;
			VERITY_LAYOUT) VERITY_LAYOUT=$_v ;;
			VERITY_ROOTFSTYPE) VERITY_ROOTFSTYPE=$_v ;;
			VERITY_USR_FSTYPE) VERITY_USR_FSTYPE=$_v ;;
			VERITY_ROOTFLAGS) VERITY_ROOTFLAGS=$_v ;;
			VERITY_USR_FLAGS) VERITY_USR_FLAGS=$_v ;;
			VERITY_INIT_ENV) VERITY_INIT_ENV=$_v ;;
			VERITY_NEXT) VERITY_NEXT=$_v ;;
		esac
	done
	return 0
}

# vi_load: fill VERITY_* from the agent's parser.
# Returns 0 when a verity root is configured (or the policy boots A/B slots), 1 when the command
# line asks for none (or turns verity off with systemd.verity=0), 2 when the command line or the image's policy file is
# refused, or names no root hash where the policy requires one (the agent's `setup --fallback`
# logs why and applies the policy). VI_CMDLINE is the line it read.
vi_load() {
	local _out _rc
	# only what this run of the agent prints
	vi_forget VERITY_
	VI_CMDLINE=$(vi_cmdline)
	# the reason of a refusal is the setup job's to log (the agent's record)
	_out=$("$VI_AGENT" parse --shell --cmdline "$VI_CMDLINE" 2> /dev/null)
	_rc=$?
	# for a refused line the agent prints the defaults and the initramfs policy's settings; an
	# answer out of its grammar counts as a refused line of which nothing is kept
	if ! vi_answer "$_out"; then
		vi_forget VERITY_
		_rc=1
	fi
	if [ $_rc -ne 0 ]; then
		VERITY_NAME=root
		return 2
	fi
	VERITY_NAME=${VERITY_NAME:-root}
	if [ "${VERITY_DISABLED:-0}" = 1 ]; then
		return 1   # systemd.verity=0, which the agent accepted only with allow_weak=verity-off
	fi
	# A/B slots (the policy's slots=): the root hash is the slot's signed manifest's
	if [ "${VERITY_ENABLED:-0}" != 1 ] && [ "${VERITY_USR_ENABLED:-0}" != 1 ] &&
		[ "${VERITY_SLOTS:-0}" != 1 ]; then
		# An image built with this module boots a verified root: dropping roothash= from the
		# command line must not turn that into an unverified boot of root=.
		[ "${VERITY_OFF_ALLOWED:-0}" = 1 ] && return 1
		return 2
	fi
	return 0
}

# vi_tmpfs_root DIR: the tmpfs root of layout tmpfs+usr on DIR, with the directories the switch
# moves the API file systems to (dracut's usable_root wants proc, sys and dev).
vi_tmpfs_root() {
	mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs "$1" || {
		vi_log "cannot mount a tmpfs root on $1" 3
		return 1
	}
	mkdir -p "$1/dev" "$1/proc" "$1/sys" "$1/run" "$1/usr"
}

# vi_root_mapping: the mapping dracut mounts on NEWROOT: the root's, or with a verified /usr
# under a tmpfs root (layout tmpfs+usr) the /usr mapping, which the agent's pre-pivot moves
# under the tmpfs it mounts there.
vi_root_mapping() {
	if [ "${VERITY_LAYOUT:-}" = tmpfs+usr ]; then
		printf '%s\n' "${VERITY_USR_NAME:-usr}"
	else
		printf '%s\n' "$VERITY_NAME"
	fi
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
	vi_systemd && return 0
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

# vi_before_shell OPENER: before a shell dracut or systemd opens outside the fail list (OPENER
# names it: a unit, or dracut-emergency-shell). Returns once "dm-verity-fallback:shell" is in the
# PCR; otherwise the agent applies the fail actions, and this never returns.
# vi_dm_verity_load: dm_verity loaded (with the image's modprobe.d: keyring_unsealed=1 when it
# carries certificates) before any agent command, whose first step adds the certificates and
# seals dm-verity's keyring: sealed before a shell opens or a table is loaded, never left to a
# later load by a table (the kernel's request_module) that no command of the agent follows.
vi_dm_verity_load() {
	[ -d "$VI_DM_VERITY_SYSFS" ] || "$VI_MODPROBE" -q dm_verity 2> /dev/null || :
}

vi_before_shell() {
	vi_dm_verity_load
	"$VI_AGENT" before-shell --unit "$1" --cmdline "$(vi_cmdline)" --rundir "$VI_RUNDIR" \
		--kmsg "$VI_KMSG" --sysrq "$VI_SYSRQ" > /dev/null || vi_hang
}

# vi_agent COMMAND [ARG...]: run one of the agent's dracut commands (setup --fallback, fail,
# pre-pivot), which set the root up or apply the fail list themselves. Returns 0 when a root
# is ready under the mapping name (the root, or the recovery root in its place); never returns
# otherwise. The agent hands back only what it cannot do, dracut's emergency shell: the answer
# VERITY_NEXT=N (exit 3) says where the list goes on once the shell is closed (vi_answer).
vi_agent() {
	vi_agent_after_shell '' "$@"
}

# vi_agent_after_shell N COMMAND [ARG...]: vi_agent, but the fail list reached the shell already
# at entry N (empty: not yet): open it first, then go on with the list from entry N.
vi_agent_after_shell() {
	local _out _rc _next="$1"
	shift
	case "$_next" in
		*[!0-9]*) vi_hang ;;
	esac
	while :; do
		if [ -n "$_next" ]; then
			if vi_shell_allowed; then
				emergency_shell -n verity-init "verity-init: no verified root (verity-init status says why)"
			else
				vi_log "fallback shell refused: rd.shell=0" 3
			fi
		fi
		vi_dm_verity_load
		# _next: digits only
		_out=$("$VI_AGENT" "$@" ${_next:+--resume "$_next"} --cmdline "$(vi_cmdline)" \
			--rundir "$VI_RUNDIR" --kmsg "$VI_KMSG" --sysrq "$VI_SYSRQ")
		_rc=$?
		[ $_rc = 0 ] && return 0
		[ $_rc = 3 ] || vi_hang
		unset VERITY_NEXT
		vi_answer "$_out" || vi_hang
		_next=${VERITY_NEXT:-}
		[ -n "$_next" ] || vi_hang
	done
}

# vi_setup: create the mapping with the agent (on failure it applies the policy: returns only
# when the recovery root took the root's place), announce it to udev.
vi_setup() {
	vi_load
	[ $? = 1 ] && return 0
	# managed recovery (the policy's managed=yes): the pstore backend, so that the agent finds
	# the record of a last boot that ended on a dm-verity corruption
	[ -e /etc/verity-init/managed ] && modprobe -q efi_pstore
	# the agent waits for the devices it resolved (bounded by verity.timeout=): no device
	# string of the command line reaches dracut's initqueue, which sources what it is given
	vi_agent setup --fallback
	[ "${VERITY_ENABLED:-0}" != 1 ] || vi_udev_announce "$VERITY_NAME"
	[ "${VERITY_USR_ENABLED:-0}" != 1 ] || vi_udev_announce "${VERITY_USR_NAME:-usr}"
	return 0
}
