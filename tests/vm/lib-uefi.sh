# shellcheck shell=bash
# UEFI Secure Boot harness of the VM tests: OVMF with the snakeoil keys (Debian's ovmf), an ESP
# image, Unified Kernel Images built by verity-init/mkinitramfs/verity-init-mkuki.sh, a bounded boot.
# Sourced after lib.sh (and agent_lib.sh when the agent is used). Functions start with uefi_.
#
# Firmware: /usr/share/OVMF/OVMF_CODE_4M.secboot.fd read-only (pflash unit 0) and a private copy
# of OVMF_VARS_4M.snakeoil.fd (unit 1), whose PK, KEK and db hold PkKek-1-snakeoil.pem; machine
# q35,smm=on with the secure pflash. --no-secure-boot uses OVMF_CODE_4M.fd + OVMF_VARS_4M.fd (no
# keys enrolled: Secure Boot off). The ESP is a FAT16 image without partition table on the q35
# AHCI controller (bootindex 0; writable: ide-hd takes no read-only node), so the test's virtio disks stay /dev/vda, /dev/vdb, ... as in
# every other scenario. A refused image leaves the firmware waiting for a key forever: every boot
# is bounded by a timeout.

UEFI_CODE=${UEFI_CODE:-/usr/share/OVMF/OVMF_CODE_4M.secboot.fd}
UEFI_VARS=${UEFI_VARS:-/usr/share/OVMF/OVMF_VARS_4M.snakeoil.fd}
UEFI_CODE_NOSB=${UEFI_CODE_NOSB:-/usr/share/OVMF/OVMF_CODE_4M.fd}
UEFI_VARS_NOSB=${UEFI_VARS_NOSB:-/usr/share/OVMF/OVMF_VARS_4M.fd}
UEFI_DB_CERT=${UEFI_DB_CERT:-/usr/share/ovmf/PkKek-1-snakeoil.pem}
UEFI_DB_KEY_ENC=${UEFI_DB_KEY_ENC:-/usr/share/ovmf/PkKek-1-snakeoil.key}   # passphrase "snakeoil"
UEFI_STUB=${UEFI_STUB:-/usr/lib/systemd/boot/efi/linuxx64.efi.stub}
UEFI_SDBOOT=${UEFI_SDBOOT:-/usr/lib/systemd/boot/efi/systemd-bootx64.efi}
UEFI_MKUKI=${UEFI_MKUKI:-$VM_TOPDIR/verity-init/mkinitramfs/verity-init-mkuki.sh}
: "${UEFI_TIMEOUT:=180}"   # a good UEFI boot under TCG: firmware 5-7 s, kernel at 9-16 s, more when loaded

# uefi_require : fail (message) unless OVMF, the stub, sbsign, mtools and dosfstools are present.
uefi_require() {
	local f
	for f in "$UEFI_CODE" "$UEFI_VARS" "$UEFI_CODE_NOSB" "$UEFI_VARS_NOSB" "$UEFI_DB_CERT" \
		 "$UEFI_DB_KEY_ENC" "$UEFI_STUB" "$UEFI_SDBOOT" "$UEFI_MKUKI"; do
		[ -r "$f" ] || { vm_die "missing $f (tests/deps.sh: ovmf systemd-boot-efi)"; return 1; }
	done
	vm_require_tools sbsign sbverify objcopy objdump mkfs.vfat mcopy mmd openssl
}

# uefi_db_key : print the path of the snakeoil db key, decrypted once into the cache.
uefi_db_key() {
	local out=$VM_CACHE/uefi-db-snakeoil.key
	vm_cached "$(sha256sum <"$UEFI_DB_KEY_ENC")" "$out" \
		openssl rsa -in "$UEFI_DB_KEY_ENC" -passin pass:snakeoil -out "$out.tmp" 2>/dev/null || return 1
	echo "$out"
}

# uefi_other_key DIR : print "KEY CERT" of a self-signed key that is NOT in the firmware's db.
uefi_other_key() {
	local d=$1
	[ -s "$d/other.key" ] ||
		openssl req -new -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 -subj "/CN=not in db/" \
			-keyout "$d/other.key" -out "$d/other.crt" >/dev/null 2>&1 || return 1
	echo "$d/other.key $d/other.crt"
}

# uefi_uki OUT INITRD CMDLINE [mkuki options...] : a UKI of $VM_KERNEL (the bzImage: the stub
# starts it as an EFI application) with INITRD and the command line "$VM_CMDLINE_BASE CMDLINE",
# signed with the snakeoil db key unless the options say --unsigned or give --key/--cert.
uefi_uki() {
	local out=$1 initrd=$2 cmdline=$3 sign=1 key; shift 3
	local extra=()
	while [ $# -gt 0 ]; do
		case $1 in
		--unsigned) sign=0; shift ;;
		--key|--cert) sign=0; extra+=("$1" "$2"); shift 2 ;;
		*) extra+=("$1"); shift ;;
		esac
	done
	if [ "$sign" = 1 ]; then
		key=$(uefi_db_key) || return 1
		extra+=(--key "$key" --cert "$UEFI_DB_CERT")
	fi
	"$UEFI_MKUKI" --stub "$UEFI_STUB" --kernel "$VM_KERNEL" --initrd "$initrd" \
		--cmdline "$VM_CMDLINE_BASE $cmdline" "${extra[@]}" "$out"
}

# uefi_esp OUT EFI-APP [DEST=SRC...] : a FAT16 ESP image with EFI-APP as EFI/BOOT/BOOTX64.EFI
# (what the firmware starts with no boot entries) and each SRC at DEST (e.g.
# loader/entries/x.conf=FILE). Sized to its contents.
uefi_esp() {
	local out=$1 app=$2 kv kib dir; shift 2
	kib=$(( $(stat -L -c %s "$app") / 1024 ))
	for kv in "$@"; do kib=$(( kib + $(stat -L -c %s "${kv#*=}") / 1024 + 4 )); done
	kib=$(( (kib * 11 / 10 + 4096 + 1023) / 1024 * 1024 ))   # +10 % and 4 MiB for the FAT
	[ "$kib" -ge 16384 ] || kib=16384                         # FAT16 wants >= 16 MiB here
	rm -f "$out"
	mkfs.vfat -C -F 16 -n ESP "$out" "$kib" >/dev/null || { vm_die "mkfs.vfat failed"; return 1; }
	mmd -i "$out" ::/EFI ::/EFI/BOOT || return 1
	mcopy -i "$out" "$app" ::/EFI/BOOT/BOOTX64.EFI || return 1
	for kv in "$@"; do
		dir=$(dirname "${kv%%=*}")
		# parents one by one (mmd has no -p); existing ones are fine
		local p="" c
		for c in ${dir//\// }; do p="$p/$c"; mmd -i "$out" "::$p" 2>/dev/null || true; done
		mcopy -o -i "$out" "${kv#*=}" "::/${kv%%=*}" || { vm_die "mcopy ${kv#*=}"; return 1; }
	done
}

# uefi_boot [--disk FILE]... [--qemu ARG]... [--timeout S] [--mem MIB] [--no-secure-boot]
#           [--vars FILE] [--until REGEX] NAME ESP : boot OVMF from ESP (Secure Boot on, snakeoil
# db, unless --no-secure-boot). --vars: the variable store FILE itself, kept from boot to boot
# (else a copy of the template, removed afterwards). Serial console (firmware, stub, kernel) to $BUILD/vm/logs/NAME.log.
# --until REGEX stops QEMU 2 s after the log matches REGEX (status 125), e.g. the firmware's
# "Press any key to enter the Boot Manager Menu" after it refused every boot option.
# Returns 0 when the guest stopped by itself (power-off, or a panic with panic=-1), 124 on
# timeout, 125 (--until matched), 1 on a harness error. Sets VM_LOG, VM_STATUS, VM_WALL,
# VM_ACCEL_USED.
uefi_boot() {
	local timeout=$UEFI_TIMEOUT mem=$VM_MEM drives=() code=$UEFI_CODE vars=$UEFI_VARS name esp until="" keep=""
	while [ $# -gt 2 ]; do
		case $1 in
		--until) until=$2; shift 2 ;;
		--qemu) drives+=("$2"); shift 2 ;;
		--disk) drives+=(-drive "file=$2,format=raw,if=virtio,readonly=on"); shift 2 ;;
		--timeout) timeout=$2; shift 2 ;;
		--mem) mem=$2; shift 2 ;;
		--no-secure-boot) code=$UEFI_CODE_NOSB vars=$UEFI_VARS_NOSB; shift ;;
		--vars) keep=$2; shift 2 ;;
		*) break ;;
		esac
	done
	[ $# -eq 2 ] || { vm_die "usage: uefi_boot [options] NAME ESP"; return 1; }
	name=$1 esp=$2
	VM_LOG=$VM_LOGDIR/$name.log
	VM_ACCEL_USED=tcg   # KVM with SMM is not what this machine can do (lib.sh probes hang)
	local varsc=$VM_DIR/vars.$name.$$ t0 t1
	if [ -n "$keep" ]; then
		varsc=$keep
		[ -s "$varsc" ] || cp "$vars" "$varsc" || return 1
	else
		cp "$vars" "$varsc" || return 1
	fi
	# shellcheck disable=SC2054  # q35,smm=on is one QEMU argument
	local cmd=(qemu-system-x86_64 -accel tcg -machine q35,smm=on
		-global driver=cfi.pflash01,property=secure,value=on
		-drive "if=pflash,format=raw,unit=0,readonly=on,file=$code"
		-drive "if=pflash,format=raw,unit=1,file=$varsc"
		-m "$mem" -smp 1 -nographic -no-reboot -net none -serial "file:$VM_LOG" -monitor none
		-drive "if=none,id=esp,format=raw,file=$esp"
		-device "ide-hd,drive=esp,bus=ide.0,bootindex=0"
		"${drives[@]}")
	[ "${VM_VERBOSE:-0}" = 1 ] && vm_log "${cmd[*]}"
	: >"$VM_LOG"
	_vm_take_slot
	t0=$(date +%s.%N)
	# the firmware waits for a key forever after refusing every boot option: --until stops it
	# once the log says so
	_vm_run_bounded "$timeout" "$until" "$VM_LOG" "$VM_LOGDIR/$name.qemu" "${cmd[@]}"
	VM_STATUS=$?
	t1=$(date +%s.%N)
	# shellcheck disable=SC2154  # _vm_take_slot (lib.sh) set it
	exec {_vm_slot_fd}>&-
	[ -n "$keep" ] || rm -f "$varsc"
	if [ "$VM_STATUS" = 125 ]; then
		VM_WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
		vm_record_boot "$name" "$VM_WALL" "uefi-$VM_ACCEL_USED" 125
		vm_log "$name: stopped after ${VM_WALL}s wall: the log matched /$until/"
		VM_STATUS=125
		return 125
	fi
	VM_WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	vm_record_boot "$name" "$VM_WALL" "uefi-$VM_ACCEL_USED" "$VM_STATUS"
	if [ "$VM_STATUS" = 124 ] || [ "$VM_STATUS" = 137 ]; then
		vm_log "$name: stopped by the ${timeout}s timeout (UEFI, $VM_ACCEL_USED)"
		VM_STATUS=124
		return 124
	fi
	if [ "$VM_STATUS" != 0 ]; then
		vm_log "$name: qemu exited with $VM_STATUS: $(tail -n 5 "$VM_LOGDIR/$name.qemu")"
		return 1
	fi
	vm_log "$name: stopped after ${VM_WALL}s wall (UEFI, $VM_ACCEL_USED)$(
		u=$(vm_marker_uptime "$VM_LOG") && echo ", marker at ${u}s guest uptime")"
	return 0
}

# UEFI_REFUSED_UNTIL: what the firmware prints once it has refused every boot option and waits
# for a key forever (pass it to uefi_boot --until).
# shellcheck disable=SC2034  # used by the test files
UEFI_REFUSED_UNTIL='Press any key to enter the Boot Manager Menu'

# uefi_assert_refused_by_firmware : the last uefi_boot never ended by itself (stopped by --until
# at the firmware's "Press any key" wait, or by the timeout), the firmware refused to load the
# ESP's image ("failed to load Boot0001 ... Access Denied": its signature is not in db, or the
# image does not match it) and no kernel started (no "Linux version", no EFI stub line, no marker).
uefi_assert_refused_by_firmware() {
	case ${VM_STATUS:-0} in 124|125) ;; *)
		_vm_fail "the boot ended (status $VM_STATUS) instead of waiting in the firmware" "$VM_LOG"; return 1 ;;
	esac
	vm_assert_log_contains "$VM_LOG" 'BdsDxe: failed to load Boot[0-9A-F]+ .*HARDDISK.*: Access Denied' \
		"the firmware did not refuse the ESP's image with 'Access Denied'" || return 1
	vm_assert_log_contains "$VM_LOG" 'No bootable option or device was found' \
		"the firmware did not give up booting" || return 1
	vm_assert_log_lacks "$VM_LOG" 'Linux version [0-9]' "a kernel started" || return 1
	vm_assert_log_lacks "$VM_LOG" 'EFI stub: ' "the kernel's EFI stub ran" || return 1
	vm_assert_no_marker "$VM_LOG"
}
