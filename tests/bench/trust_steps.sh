#!/bin/bash
# shellcheck disable=SC2153 # DATA, HASH, ROOTHASH come from the vars file (vm_verity_setup)
# Benchmark (not a timed test): the agent's own time for the trust steps it adds to a boot, read
# from its kmsg records, on the whole chain: Debian's 7.x kernel (trixie-backports) as a signed
# UKI under OVMF Secure Boot, a TPM 2.0 (swtpm), the root hash signed with the device maker's
# key, whose certificate the initramfs carries for dm-verity's .dm-verity keyring (not in the
# firmware's db), the example IPE policy signed with the db key.
#
#   dmkeyring the maker's certificate into the .dm-verity keyring and the seal, the agent's own
#             part and the kernel's ("... certificates added, sealed in N us (N us own, N us
#             the kernel's)")
#   keyring   reading roothash.p7s, checking its shape, adding it to the kernel's keyring
#             ("root hash signature (N bytes) passed to the kernel as key K (N us)")
#   measure   the PCR_Event command, its answer's digests, the log record, minus the TPM's answer
#             ("measured into PCR 14 (...) in N us (N us own, N us the TPM's answer)")
#   ipe       loading and activating the signed IPE policy ("IPE policy ... active (N us)")
# Anchor: the agent's own time for the whole boot in the same run ("agent time ... N ms own").
# BENCH_RUNS boots (default 3); prints the medians and each step's share of the agent's own time.
# Environment: BUILD, BENCH_RUNS, VM_* (tests/vm/lib.sh).
set -uo pipefail

RUNS=${BENCH_RUNS:-3}
unset VM_KERNEL VM_KVER
VM_KERNEL_SERIES=7
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/../vm/lib.sh" || exit 1
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/../vm/agent_lib.sh" || exit 1
# shellcheck source=tests/vm/sign_lib.sh
. "$(dirname "$0")/../vm/sign_lib.sh" || exit 1
# shellcheck source=tests/vm/lib-uefi.sh
. "$(dirname "$0")/../vm/lib-uefi.sh" || exit 1
# shellcheck source=tests/vm/lib-tpm.sh
. "$(dirname "$0")/../vm/lib-tpm.sh" || exit 1
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh" || exit 1
export VM_ACCEL=tcg
fail() { echo "bench: $*" >&2; }

uefi_require && tpm_require || exit 1
d=$(vm_workdir bench-trust)
vm_verity_setup ext4 "$d" >/dev/null || exit 1
# shellcheck source=/dev/null
. "$d/vars"
key=$(uefi_db_key) || exit 1
openssl req -new -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 -subj "/CN=device maker/" \
	-addext "keyUsage=critical,digitalSignature" -keyout "$d/maker.key" -out "$d/maker.pem" \
	>/dev/null 2>&1 || exit 1
openssl x509 -in "$d/maker.pem" -outform DER -out "$d/maker.der" || exit 1
"$VI_TOOL" sign "$HASH" --data-device /dev/vda --pkcs7-key "$d/maker.key" --pkcs7-cert "$d/maker.pem" \
	--p7s "$d/root.p7s" >/dev/null || exit 1
openssl smime -sign -in "$(cd "$VM_SRCDIR/../.." && pwd)/docs/examples/ipe-verity-root.pol" \
	-signer "$UEFI_DB_CERT" -inkey "$key" -noattr -nodetach -binary -outform der -out "$d/ipe.p7s" || exit 1
rd=$(sign_initramfs "ipe_policy=/etc/verity-init/ipe.p7s
require_tpm=yes
require_signature=kernel" "/etc/verity-init/roothash.p7s=$d/root.p7s" "/etc/verity-init/ipe.p7s=$d/ipe.p7s" \
	"/etc/verity-init/certs/maker.der=$d/maker.der") || exit 1
uefi_uki "$d/uki.efi" "$rd" "roothash=$ROOTHASH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb root=/dev/mapper/root verity.sig=/etc/verity-init/roothash.p7s verity.fail=poweroff" || exit 1
uefi_esp "$d/esp.img" "$d/uki.efi" || exit 1

# field LOG SED-REGEX : the first value the regex's group captures in the agent's records
field() { grep -a 'verity-init\[1\]' "$1" | sed -n "s/$2/\\1/p" | head -n 1; }

echo "bench-trust: kernel $VM_KERNEL, $RUNS runs, OVMF Secure Boot + swtpm, TCG, load $(cut -d' ' -f1-3 /proc/loadavg)"
ks=() ms=() ts=() is=() os=() cs=() cks=()
for (( i = 1; i <= RUNS; i++ )); do
	tpm_start "$VM_WORKROOT/bench-trust-tpm" >/dev/null || exit 1
	if ! uefi_boot --qemu -chardev --qemu "socket,id=chrtpm,path=$VM_WORKROOT/bench-trust-tpm/sock" \
		--qemu -tpmdev --qemu "emulator,id=tpm0,chardev=chrtpm" --qemu -device --qemu "tpm-tis,tpmdev=tpm0" \
		--disk "$DATA" --disk "$HASH" "bench-trust-$i" "$d/esp.img" 2>/dev/null ||
	   ! vm_marker_uptime "$VM_LOG" >/dev/null; then
		echo "bench-trust: boot $i failed ($VM_LOG)"; exit 1
	fi
	cs+=("$(field "$VM_LOG" '.*certificates added, sealed in [0-9]* us (\([0-9]*\) us own.*')")
	cks+=("$(field "$VM_LOG" '.*certificates added, sealed in [0-9]* us ([0-9]* us own, \([0-9]*\) us the kernel.*')")
	ks+=("$(field "$VM_LOG" '.*passed to the kernel as key [^ ]* (\([0-9]*\) us).*')")
	ms+=("$(field "$VM_LOG" '.*measured into PCR [0-9]* (.*) in [0-9]* us (\([0-9]*\) us own.*')")
	ts+=("$(field "$VM_LOG" '.* us own, \([0-9]*\) us the TPM.s answer.*')")
	is+=("$(field "$VM_LOG" '.*IPE policy .* active (\([0-9]*\) us).*')")
	os+=("$(field "$VM_LOG" '.*agent time .* device wait, \([0-9]*\) ms own.*')")
	echo "  run $i: dmkeyring ${cs[-1]} us own (+${cks[-1]} us the kernel), keyring ${ks[-1]} us, measure ${ms[-1]} us own (+${ts[-1]} us the TPM), ipe ${is[-1]} us; agent ${os[-1]} ms own"
done
awk -v c="$(median "${cs[@]}")" -v ck="$(median "${cks[@]}")" -v k="$(median "${ks[@]}")" -v m="$(median "${ms[@]}")" -v t="$(median "${ts[@]}")" \
    -v p="$(median "${is[@]}")" -v o="$(median "${os[@]}")" 'BEGIN {
	printf "bench-trust: medians: dmkeyring %.2f ms own (kernel %.2f ms), ", c / 1000, ck / 1000
	printf "keyring %.2f ms, measure %.2f ms own (TPM answer %.2f ms), ipe %.2f ms; agent own time %d ms\n", k / 1000, m / 1000, t / 1000, p / 1000, o
	printf "bench-trust: share of the agent own time: dmkeyring %.3f, ", c / 1000 / o
	printf "keyring %.3f, measure %.3f, ipe %.3f\n", k / 1000 / o, m / 1000 / o, p / 1000 / o
}'
