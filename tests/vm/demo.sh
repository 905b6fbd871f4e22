#!/bin/bash
# shellcheck disable=SC2153  # DATA, HASH come from the sourced vars file
# `make demo`: boot a dm-verity protected root in QEMU, then the same root with one byte flipped,
# and show what happens. Uses the static agent (build/static/verity-init) as the initramfs /init
# when it is built, else the test script init (tests/vm/init-dmsetup.sh); DEMO_INIT=agent|script
# chooses. Exit 0 when the good boot is verified and the tampered boot is refused.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh" || exit 1

t_start=$(date +%s)
bold=$(printf '\033[1m') green=$(printf '\033[32m') red=$(printf '\033[31m') norm=$(printf "\033[0m")
[ -t 1 ] || { bold="" green="" red="" norm=""; }
step() { printf '\n%s==> %s%s\n' "$bold" "$*" "$norm"; }
say() { printf '    %s\n' "$*"; }
# The lines of a boot log that tell the story (initramfs, dm-verity, the root's own output).
story() {
	grep -aE 'Run /init|verity-init\[1\]|init-dmsetup:|device-mapper: verity|VERITY-TEST-MARKER|switch_root:|Kernel panic|reboot: ' "$1" |
		sed -e 's/\r$//' -e 's/^/    | /' | cut -c1-160
}

vm_require_tools qemu-system-x86_64 veritysetup mkfs.ext4 debugfs cpio modprobe busybox || exit 1

agent=$BUILD/static/verity-init
mode=${DEMO_INIT:-}
if [ -z "$mode" ]; then
	if [ -x "$agent" ]; then mode=agent; else mode=script; fi
fi

step "1. A tiny root filesystem (busybox, ext4) whose /sbin/init prints a marker and powers off"
img=$(vm_base_image ext4) || exit 1
say "$img ($(( $(vm_size "$img") / 1024 )) KiB)"

step "2. Protect it with dm-verity (veritysetup format: hash tree in a separate file)"
d=$(vm_workdir demo)
rh=$(vm_verity_setup ext4 "$d") || exit 1
# shellcheck source=/dev/null
. "$d/vars"
say "data: $DATA   hash tree: $HASH ($(vm_size "$HASH") bytes)"
say "root hash: $rh"

step "3. A standalone initramfs"
if [ "$mode" = agent ]; then
	rd=$d/initramfs-agent.img
	vm_initramfs --no-busybox --no-dmsetup "$rd" "$agent" || exit 1
	say "/init = $agent (static, $(( $(vm_size "$agent") / 1024 )) KiB) + the kernel modules it loads"
	cmdline="roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root"
else
	rd=$(vm_script_initramfs) || exit 1
	say "/init = tests/vm/init-dmsetup.sh (busybox + dmsetup; the agent is not built: make static)"
	cmdline="roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb rootfstype=ext4"
fi
say "$rd ($(( $(vm_size "$rd") / 1024 )) KiB), kernel $VM_KERNEL"
say "kernel command line: $cmdline"

ok=1
step "4. Boot it in QEMU (TCG, the kernel's real dm-verity target)"
vm_boot --disk "$DATA" --disk "$HASH" demo-verified "$rd" "$cmdline" 2>/dev/null
story "$VM_LOG"
marker=$(vm_marker_line "$VM_LOG" || true)
case $marker in
*" root=/dev/mapper/root / ext4 ro,"*)
	say "${green}VERIFIED:${norm} the root's /sbin/init ran from /dev/mapper/root, mounted read-only"
	say "(boot took ${VM_WALL}s wall, marker at $(vm_marker_uptime "$VM_LOG")s guest uptime)" ;;
*)
	say "${red}UNEXPECTED:${norm} the verified boot did not reach the root (log: $VM_LOG)"; ok=0 ;;
esac

step "5. Tamper: flip one byte of /sbin/init in the data image (the hash tree is unchanged)"
off=$(vm_corrupt_file "$DATA" ext4 /sbin/init) || exit 1
say "flipped the byte at offset $off = data block $(( off / 4096 )) (a comment line of the script:"
say "without dm-verity the modified script would still run and print its marker)"

step "6. Boot the tampered image"
vm_boot --disk "$DATA" --disk "$HASH" demo-tampered "$rd" "$cmdline" 2>/dev/null
story "$VM_LOG"
if vm_marker_line "$VM_LOG" >/dev/null; then
	say "${red}UNEXPECTED:${norm} the tampered root ran its init (log: $VM_LOG)"; ok=0
elif grep -aq "data block $(( off / 4096 )) is corrupted" "$VM_LOG"; then
	say "${green}REFUSED:${norm} the kernel rejected data block $(( off / 4096 )); the tampered init never ran"
else
	say "${red}UNEXPECTED:${norm} no marker, but no dm-verity error either (log: $VM_LOG)"; ok=0
fi

step "Done in $(( $(date +%s) - t_start ))s. Full serial logs: $VM_LOGDIR/demo-verified.log, demo-tampered.log"
[ "$ok" = 1 ]
