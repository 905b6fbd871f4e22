# shellcheck shell=bash
# A TPM 2.0 for a guest: swtpm (Debian's swtpm package) behind QEMU's tpm-tis device, a fresh
# TPM per boot so the PCRs start at zero (or one kept across boots: tpm_start_kept). Sourced
# after lib.sh.

tpm_require() {
	vm_require_tools swtpm
}

# tpm_start DIR : start a swtpm for one boot (it ends when QEMU disconnects) and print the QEMU
# arguments that attach it. DIR must not contain whitespace (VM_QEMU_EXTRA is split on it).
# Boot the bzImage under SeaBIOS (VM_BIOS=seabios VM_BOOT_KERNEL=$VM_KERNEL): with a tpm-tis
# device, qboot hands the kernel a memory map of 68 MiB whatever -m says (the kernel then panics
# out of memory) or, on the PVH entry, QEMU exits at once; SeaBIOS with the PVH entry gives the
# kernel ACPI tables the initramfs has overwritten (no TPM, no ACPI power-off).
tpm_start() {
	rm -rf "$1" || return 1
	tpm_start_kept "$1"
}

# tpm_start_kept DIR : as tpm_start, on the TPM state already in DIR if any: a TPM whose NV memory
# (NV indexes, counters) persists from one boot to the next (tests/vm/slot_tpm_floor_test.sh).
tpm_start_kept() {
	local d=$1 _
	mkdir -p "$d" && rm -f "$d/sock" || return 1
	swtpm socket --tpm2 --tpmstate "dir=$d" --ctrl "type=unixio,path=$d/sock" \
		--log "file=$d/swtpm.log" --terminate --daemon || { vm_die "swtpm did not start"; return 1; }
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ -S "$d/sock" ] && break
		sleep 0.2
	done
	[ -S "$d/sock" ] || { vm_die "no swtpm socket in $d"; return 1; }
	echo "-chardev socket,id=chrtpm,path=$d/sock -tpmdev emulator,id=tpm0,chardev=chrtpm -device tpm-tis,tpmdev=tpm0"
}

# tpm_expected_pcr ALG EVENT... : the value a PCR that started at zero holds after being extended
# with ALG(EVENT) for each EVENT in turn (lower-case hex).
tpm_expected_pcr() {
	local alg=$1 pcr d; shift
	# a PCR starts as zeros of its bank's digest size
	pcr=$(printf '' | openssl dgst "-$alg" -r | cut -d' ' -f1 | tr '0-9a-f' '0')
	for ev in "$@"; do
		d=$(printf '%s' "$ev" | openssl dgst "-$alg" -r | cut -d' ' -f1)
		pcr=$(printf '%s%s' "$pcr" "$d" | tr a-f A-F | basenc --base16 -d | openssl dgst "-$alg" -r | cut -d' ' -f1)
	done
	echo "$pcr"
}

# tpm_guest_pcr LOG ALG N : PCR N of bank ALG as the root's init read it (lower case).
tpm_guest_pcr() {
	grep -a -o -m1 "VERITY-TEST-PCR $2 $3 [0-9A-Fa-f]*" "$1" | awk '{ print tolower($4) }'
}
