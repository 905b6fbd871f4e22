# shellcheck shell=bash
# Helpers of the agent's boot scenarios (tests/vm/agent_*_test.sh): an initramfs whose /init is
# the static verity-init, and assertions on its log lines. Sourced after lib.sh.

VM_AGENT=${VM_AGENT:-$BUILD/static/verity-init}
# The standalone agent's initramfs tool, as installed (verity-init-mkinitramfs).
# shellcheck disable=SC2034  # the test files read it
MKRD=$VM_SRCDIR/../../verity-init/mkinitramfs/verity-init-mkinitramfs.sh

# agent_initramfs [--policy TEXT] [vm_initramfs options...] : print the path of a cached
# initramfs with the static agent as /init (plus /etc/verity-init.conf when --policy is given).
# shellcheck disable=SC2120 # its arguments are optional
agent_initramfs() {
	local policy="" key out pf=()
	if [ "${1:-}" = --policy ]; then policy=$2; shift 2; fi
	[ -x "$VM_AGENT" ] || { vm_die "no $VM_AGENT (make static)"; return 1; }
	key=$(vm_cache_key "agent-initramfs" "$VM_KVER" "$VM_MODULES_DEFAULT" "$policy" "$*" \
		"$(sha256sum <"$VM_AGENT")")
	out=$VM_CACHE/initramfs-agent-$key.img
	if [ -n "$policy" ]; then
		printf '%s\n' "$policy" >"$VM_CACHE/policy-$key.conf"
		pf=(--file "$VM_CACHE/policy-$key.conf" /etc/verity-init.conf)
	fi
	vm_cached "$key" "$out" vm_initramfs --no-busybox --no-dmsetup "${pf[@]}" "$@" \
		"$out.tmp" "$VM_AGENT" || return 1
	echo "$out"
}

# agent_mkinitramfs [verity-init-mkinitramfs options...] : print the path of a cached image that
# the shipped verity-init-mkinitramfs built for VM_KVER with the static agent and these options.
# The bytes of a file or directory named among them (a policy, a key directory) are part of the
# key. The three Debian files ask for the same plain image: built once a run.
agent_mkinitramfs() {
	local a sums="" key out
	for a in "$@"; do
		[ -e "$a" ] && sums="$sums $(find "$a" -type f -print0 | sort -z | xargs -0 cat | sha256sum)"
	done
	key=$(vm_cache_key mkinitramfs "$VM_KVER" "$*" "$sums" "$(sha256sum <"$VM_AGENT")" \
		"$(sha256sum <"$MKRD")")
	out=$VM_CACHE/mkinitramfs-$key.img
	vm_cached "$key" "$out" _agent_mkinitramfs "$out.tmp" "$@" || return 1
	echo "$out"
}

_agent_mkinitramfs() {   # OUT OPTION...
	local out=$1; shift
	"$MKRD" -k "$VM_KVER" ${VM_MODBASE:+-b "$VM_MODBASE"} -a "$VM_AGENT" "$@" "$out" >"$out.log" 2>&1 ||
		{ cat "$out.log" >&2; return 1; }
}

# agent_assert_refused LOG STAGE [REASON-REGEX] : no marker, the agent logged a failure of STAGE
# (matching REASON-REGEX when given) and did not mount anything from the failed mapping.
agent_assert_refused() {
	local log=$1 stage=$2 re=${3:-}
	vm_assert_no_marker "$log" || return 1
	vm_assert_log_contains "$log" "verity-init\[1\]: [a-z]+: $stage failed: ${re}" \
		"agent did not report a $stage failure${re:+ matching /$re/}" || return 1
	vm_assert_log_lacks "$log" 'verity-init\[1\]: exec ' "agent exec'd an init after a failure"
}

# agent_assert_fallback LOG ACTION : the agent took ACTION (and the kernel shows it happened).
agent_assert_fallback() {
	local log=$1 act=$2
	vm_assert_log_contains "$log" "verity-init\[1\]: fallback: $act" "fallback $act not taken" ||
		return 1
	case $act in
	poweroff) vm_assert_log_contains "$log" 'reboot: Power down' "no power-off by the kernel" ;;
	reboot) vm_assert_log_contains "$log" 'reboot: Restarting system' "no reboot by the kernel" ;;
	panic) vm_assert_log_contains "$log" 'Kernel panic - not syncing: Attempted to kill init' \
		"no kernel panic after the panic fallback" ;;
	esac
}
