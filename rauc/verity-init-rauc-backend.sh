#!/bin/sh
# RAUC's custom boot-loader backend for verity-init's A/B slots (docs/slots.md), installed as
# $(LIBEXECDIR)/verity-init-rauc-backend and named in RAUC's system.conf:
#
#   [system]
#   bootloader=custom
#   [handlers]
#   bootloader-custom-backend=/usr/lib/verity-init/verity-init-rauc-backend
#
# RAUC runs it as `BACKEND VERB [BOOTNAME [STATE]]`, reads stdout (trimmed) for the get verbs and
# the exit status for all of them (0 = success). Each verb maps onto one `verity-init slot` verb:
#   get-primary                  -> the slot the next boot takes
#   set-primary BOOTNAME         -> boot it next, with fresh tries
#   get-state BOOTNAME           -> good | bad
#   set-state BOOTNAME good|bad  -> good: bootable (as mark-good, floor and all, only for the
#                                   running slot after a complete boot); bad: not bootable
#   get-current                  -> the running slot (called by RAUC releases newer than 1.8)
# One more verb, for the rauc.service drop-in (RAUC 1.8 does not call get-current):
#   run-rauc ARGS...             -> exec rauc --override-boot-slot=RUNNING ARGS...
#
# Environment (for tests and unusual layouts): VERITY_INIT (the program), VERITY_INIT_STORE
# (--store), VERITY_INIT_STATUS (--status), RAUC (the rauc program of run-rauc).
set -u

vi=${VERITY_INIT:-/usr/sbin/verity-init}

# slot VERB ARGS...: `verity-init slot [OPTIONS] VERB ARGS...`
slot() {
	[ -z "${VERITY_INIT_STORE-}" ] || set -- --store "$VERITY_INIT_STORE" "$@"
	[ -z "${VERITY_INIT_STATUS-}" ] || set -- --status "$VERITY_INIT_STATUS" "$@"
	"$vi" slot "$@"
}

usage() {
	echo "usage: $0 get-primary | set-primary BOOTNAME | get-state BOOTNAME |" \
		"set-state BOOTNAME good|bad | get-current | run-rauc ARGS..." >&2
	exit 2
}

[ $# -ge 1 ] || usage
verb=$1
shift
case $verb in
get-primary | get-current)
	[ $# -eq 0 ] || usage
	slot "$verb"
	;;
set-primary | get-state)
	[ $# -eq 1 ] || usage
	slot "$verb" "$1"
	;;
set-state)
	[ $# -eq 2 ] || usage
	slot set-state "$1" "$2"
	;;
run-rauc)
	if current=$(slot get-current 2>/dev/null); then
		exec "${RAUC:-/usr/bin/rauc}" --override-boot-slot="$current" "$@"
	fi
	# not an A/B boot of verity-init: RAUC finds the booted slot itself
	exec "${RAUC:-/usr/bin/rauc}" "$@"
	;;
*)
	usage
	;;
esac
