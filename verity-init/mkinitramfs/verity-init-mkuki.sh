#!/bin/bash
# verity-init-mkuki: assemble a Unified Kernel Image (UKI) from systemd-stub, a kernel, an
# initramfs and a command line, and sign it for UEFI Secure Boot when given a key and certificate.
#
# The chain it builds: the firmware checks the PE signature of the whole file against its db;
# the stub (which verifies nothing itself) starts the embedded kernel with the embedded initramfs
# and the embedded .cmdline (under Secure Boot it ignores a command line passed by a loader), and
# that command line carries the root hash the initramfs hands to dm-verity. See docs/signing.md.
#
# Works with systemd 252 (bookworm: no ukify): sections .osrel .cmdline .linux .initrd are added
# with objcopy, each at the next 4 KiB boundary after the previous one, starting after the stub's
# last section. Hex arithmetic in the shell (mawk has no strtonum). The unsigned image depends on
# its inputs only (objcopy -p keeps the stub's PE time stamp), so a signing service can rebuild
# it and compare.
#
# The key need not be on this machine: --key takes a PKCS#11 URI (sbsign --engine pkcs11, the
# PIN from the URI's pin-source or \$VERITY_INIT_PKCS11_PIN); or --prepare writes the unsigned
# UKI for a signing service (sbsign --detached there) and --join-signature attaches the detached
# signature it returns, after sbverify checked it against --cert.
set -euo pipefail

prog=verity-init-mkuki
STUB_DEFAULT=/usr/lib/systemd/boot/efi/linuxx64.efi.stub

usage() {
	cat <<EOF
Usage: $prog --kernel VMLINUZ --initrd INITRD (--cmdline TEXT | --cmdline-file FILE)
             [--os-release FILE] [--stub FILE] [-v]
             [--key KEY.pem|pkcs11:URI --cert CERT.pem | --prepare
              | --join-signature SIG.pk7 --cert CERT.pem] OUT.efi

  --kernel FILE        the kernel image (bzImage with an EFI stub, e.g. /boot/vmlinuz-VER
                       or /usr/lib/modules/VER/vmlinuz)
  --initrd FILE        the initramfs (e.g. from verity-init-mkinitramfs)
  --cmdline TEXT       the kernel command line embedded as .cmdline (it carries the root hash:
                       verity-image cmdline prints one)
  --cmdline-file FILE  the same, read from FILE (a trailing newline is dropped)
  --os-release FILE    embedded as .osrel (default /etc/os-release, or /usr/lib/os-release)
  --stub FILE          the systemd-stub (default $STUB_DEFAULT)
  --key FILE|URI       sign with this private key (sbsign): Secure Boot db key, a PEM file
                       or a PKCS#11 URI (pkcs11:token=...;object=...; sbsign --engine pkcs11;
                       the PIN from the URI's pin-source=file:PATH or \$VERITY_INIT_PKCS11_PIN)
  --cert FILE          the certificate of --key (PEM); both or neither
  --prepare            write OUT.efi unsigned, to be signed elsewhere (sbsign --detached);
                       prints its SHA-256
  --join-signature SIG attach SIG, a detached Authenticode signature of the unsigned UKI
                       (sbsign --detached) made elsewhere, once sbverify checked it with --cert
  -v, --verbose        print the section layout
  -h, --help           this text

Without --key/--cert (or --join-signature) the UKI is left unsigned (a Secure Boot firmware
refuses it). Nothing is written when anything fails.
Exit status: 0 success, 1 error (the key or token unavailable, a signature that does not check),
2 usage error.
EOF
}

die() { printf '%s: error: %s\n' "$prog" "$*" >&2; exit 1; }
usage_die() { printf '%s: %s (try --help)\n' "$prog" "$*" >&2; exit 2; }
say() { [ "$verbose" = 1 ] && printf '%s: %s\n' "$prog" "$*" >&2; return 0; }

kernel="" initrd="" cmdline="" have_cmdline=0 osrel="" stub=$STUB_DEFAULT key="" cert="" out="" verbose=0
prepare=0 joinsig=""
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) [ $# -ge 2 ] || usage_die "$1 needs a value"; kernel=$2; shift 2 ;;
	--initrd) [ $# -ge 2 ] || usage_die "$1 needs a value"; initrd=$2; shift 2 ;;
	--cmdline) [ $# -ge 2 ] || usage_die "$1 needs a value"; cmdline=$2; have_cmdline=1; shift 2 ;;
	--cmdline-file)
		[ $# -ge 2 ] || usage_die "$1 needs a value"
		[ -r "$2" ] || die "cannot read the command line file '$2'"
		cmdline=$(cat "$2"); have_cmdline=1; shift 2 ;;
	--os-release) [ $# -ge 2 ] || usage_die "$1 needs a value"; osrel=$2; shift 2 ;;
	--stub) [ $# -ge 2 ] || usage_die "$1 needs a value"; stub=$2; shift 2 ;;
	--key) [ $# -ge 2 ] || usage_die "$1 needs a value"; key=$2; shift 2 ;;
	--cert) [ $# -ge 2 ] || usage_die "$1 needs a value"; cert=$2; shift 2 ;;
	--prepare) prepare=1; shift ;;
	--join-signature) [ $# -ge 2 ] || usage_die "$1 needs a value"; joinsig=$2; shift 2 ;;
	-v|--verbose) verbose=1; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	-*) usage_die "unknown option '$1'" ;;
	*) [ -z "$out" ] || usage_die "more than one output file"; out=$1; shift ;;
	esac
done
if [ $# -gt 0 ]; then
	if [ -n "$out" ] || [ $# -ne 1 ]; then usage_die "more than one output file"; fi
	out=$1
fi
[ -n "$out" ] || usage_die "no output file"
[ -n "$kernel" ] || usage_die "--kernel is required"
[ -n "$initrd" ] || usage_die "--initrd is required"
[ "$have_cmdline" = 1 ] || usage_die "--cmdline or --cmdline-file is required (the root hash belongs in it)"
[ -n "$cmdline" ] || usage_die "the command line is empty"
case $cmdline in *$'\n'*) usage_die "the command line has a newline in it" ;; esac
if [ "$prepare" = 1 ] && { [ -n "$key" ] || [ -n "$cert" ] || [ -n "$joinsig" ]; }; then
	usage_die "--prepare writes the unsigned UKI: no --key, --cert or --join-signature"
fi
if [ -n "$joinsig" ]; then
	[ -z "$key" ] || usage_die "--join-signature and --key exclude each other (join, or sign here)"
	[ -n "$cert" ] || usage_die "--join-signature needs --cert (the signature is checked against it)"
elif [ -n "$key" ] || [ -n "$cert" ]; then
	if [ -z "$key" ] || [ -z "$cert" ]; then usage_die "--key and --cert go together"; fi
fi
# a PKCS#11 URI is not a file: sbsign hands it to OpenSSL's pkcs11 engine
keyfile=$key
case $key in pkcs11:*) keyfile="" ;; esac
# a PIN on sbsign's command line is in /proc/PID/cmdline for every user to read
case $key in
pkcs11:*pin-value=*) usage_die "--key: a PIN in the URI (pin-value=) can be read by every user of this machine: give pin-source=file:PATH or \$VERITY_INIT_PKCS11_PIN" ;;
esac
if [ -z "$osrel" ]; then
	if [ -r /etc/os-release ]; then osrel=/etc/os-release; else osrel=/usr/lib/os-release; fi
fi
for f in "$kernel" "$initrd" "$osrel" "$stub" ${keyfile:+"$keyfile"} ${cert:+"$cert"} ${joinsig:+"$joinsig"}; do
	if ! [ -r "$f" ] || ! [ -f "$f" ]; then die "cannot read '$f'"; fi
done
command -v objcopy >/dev/null || die "objcopy not found (binutils)"
command -v objdump >/dev/null || die "objdump not found (binutils)"
if [ -n "$key" ]; then command -v sbsign >/dev/null || die "sbsign not found (sbsigntool)"; fi
if [ -n "$joinsig" ]; then
	for t in sbattach sbverify; do command -v $t >/dev/null || die "$t not found (sbsigntool)"; done
fi
# the kernel must be an EFI application (PE with the MZ header): the stub starts it as one
[ "$(head -c 2 "$kernel")" = MZ ] || die "'$kernel' is not a PE/EFI kernel image (no MZ header)"
[ "$(head -c 2 "$stub")" = MZ ] || die "'$stub' is not a PE/EFI stub"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/$prog.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT

# The stub's sections end where the last one (highest VMA) ends; the new ones start at the next
# 4 KiB boundary. objdump -h prints "Idx Name Size VMA ..." in hex; the shell does the sums.
end=0
while read -r _ name size vma _; do
	[[ $size =~ ^[0-9a-fA-F]+$ && $vma =~ ^[0-9a-fA-F]+$ ]] || continue
	e=$(( 0x$vma + 0x$size ))
	[ "$e" -gt "$end" ] && end=$e
	say "stub section $name vma 0x$vma size 0x$size"
done < <(objdump -h "$stub" | awk '$1 ~ /^[0-9]+$/ { print }')
[ "$end" -gt 0 ] || die "no sections found in the stub '$stub'"
align() { echo $(( ($1 + 4095) / 4096 * 4096 )); }

printf '%s' "$cmdline" >"$tmp/cmdline"
cp "$osrel" "$tmp/osrel"
args=()
addr=$(align "$end")
for s in osrel cmdline linux initrd; do
	case $s in
	osrel) f=$tmp/osrel ;;
	cmdline) f=$tmp/cmdline ;;
	linux) f=$kernel ;;
	initrd) f=$initrd ;;
	esac
	size=$(stat -L -c %s "$f")
	[ "$size" -gt 0 ] || die "$s is empty ($f)"
	args+=(--add-section ".$s=$f" --change-section-vma ".$s=$(printf '0x%x' "$addr")")
	say ".$s at $(printf '0x%x' "$addr"), $size bytes"
	addr=$(align $(( addr + size )))
done

# shown KEY : the key for messages, without a PIN a URI may carry
shown() { printf '%s' "$1" | sed -E 's/(pin-value=)[^;&?]*/\1.../g'; }

# sbsign_reason LOG : sbsign's and the engine's several lines as one reason
sbsign_reason() {
	if grep -q 'Login failed' "$1"; then
		echo "the token refused the login (wrong PIN, a locked PIN, or no PIN given: pin-source=file:PATH in the URI, or \$VERITY_INIT_PKCS11_PIN)"
	elif grep -q 'private key was not found' "$1"; then
		echo "no token matches, or it has no such private key"
	elif grep -q 'not a valid PKCS#11 URI' "$1"; then
		echo "not a PKCS#11 URI that OpenSSL's pkcs11 engine reads (RFC 7512)"
	elif grep -qi 'invalid engine\|engine.*not.*found\|could not load' "$1"; then
		echo "OpenSSL's pkcs11 engine is not installed (Debian: libengine-pkcs11-openssl)"
	else
		grep -v '^warning: ' "$1" | head -n 1 | sed -E 's/(pin-value=)[^;&?]*/\1.../g'
	fi
}

unsigned=$tmp/uki.efi
# -p: the stub's PE time stamp, not the clock (objcopy ignores SOURCE_DATE_EPOCH)
objcopy -p "${args[@]}" "$stub" "$unsigned" || die "objcopy failed"
if [ -n "$key" ]; then
	# sbsign warns about the gaps between sections (objcopy's layout); the firmware accepts it
	sargs=(--key "$key")
	case $key in
	pkcs11:*)
		sargs=(--engine pkcs11 --key "$key")
		# the PIN from the environment reaches the engine through a file only we can read,
		# never through argv
		if [ -n "${VERITY_INIT_PKCS11_PIN:-}" ] && [[ ! $key =~ [\;?\&:]pin-(source|value)= ]]; then
			(umask 077 && printf '%s' "$VERITY_INIT_PKCS11_PIN" >"$tmp/pin") || die "cannot write the PIN file"
			if [[ $key == *'?'* ]]; then sep='&'; else sep='?'; fi
			sargs=(--engine pkcs11 --key "$key${sep}pin-source=file:$tmp/pin")
		fi ;;
	esac
	sbsign "${sargs[@]}" --cert "$cert" --output "$tmp/signed.efi" "$unsigned" </dev/null >"$tmp/sbsign.log" 2>&1 ||
		die "sbsign could not sign with $(shown "$key"): $(sbsign_reason "$tmp/sbsign.log")"
	[ -s "$tmp/signed.efi" ] || die "sbsign could not sign with $(shown "$key"): $(sbsign_reason "$tmp/sbsign.log")"
	unsigned=$tmp/signed.efi
	say "signed with $cert"
elif [ -n "$joinsig" ]; then
	cp "$unsigned" "$tmp/joined.efi" || die "cannot copy the UKI"
	sbattach --attach "$joinsig" "$tmp/joined.efi" >"$tmp/sbattach.log" 2>&1 ||
		die "--join-signature '$joinsig': not a detached PKCS#7 signature (sbattach: $(grep -v -e '^warning: ' -e '^Signing ' -e ':error:' "$tmp/sbattach.log" | head -n 1); truncated, or another kind of file)"
	sbverify --cert "$cert" "$tmp/joined.efi" >"$tmp/sbverify.log" 2>&1 ||
		die "--join-signature '$joinsig': not a signature of this UKI by '$cert' (sbverify: $(grep -v '^warning: ' "$tmp/sbverify.log" | tail -n 1))"
	unsigned=$tmp/joined.efi
	say "joined $joinsig, checked with $cert"
elif [ "$prepare" = 1 ]; then
	echo "uki_prepared=$out"
	echo "uki_prepared_sha256=$(sha256sum "$unsigned" | cut -d' ' -f1)"
fi
# a name no one can foresee in the output's directory (a planted symlink is not followed)
outtmp=$(mktemp "$out.XXXXXX") || die "cannot write '$out'"
if ! { cp "$unsigned" "$outtmp" && mv -f "$outtmp" "$out"; }; then
	rm -f "$outtmp"; die "cannot write '$out'"
fi
say "wrote $out ($(stat -c %s "$out") bytes)"
