#!/bin/bash
# Signing without the private key on the build host (docs/signing.md, "Keys off the build host"):
# a PKCS#11 token (SoftHSM2, reached through p11-kit's proxy by OpenSSL's pkcs11 engine, as in
# production) for the root-hash PKCS#7 signature and the UKI's Secure Boot signature; prepare /
# sign elsewhere / join for the manifest, the .p7s and the UKI; byte-identical rebuilds under
# SOURCE_DATE_EPOCH. The same key imported into the token signs byte-identically to the PEM file,
# so "verifies exactly as a file key's" is checked as equality, then with openssl/minisign/sbverify.
# Every refusal: one line naming the input, the documented exit code, no output file left.
# Environment: BUILD = absolute build directory. The token lives in $BUILD/pkcs11_test/ (a
# private SOFTHSM2_CONF), made anew each run.

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
VI=$BUILD/verity-image
MKUKI=$ROOT/verity-init/mkinitramfs/verity-init-mkuki.sh
PARTUUID=6e8a3b8c-5d0e-4e34-9d1e-8d3a0c4b7f21
PIN=4711
SOFTHSM_MODULE=/usr/lib/softhsm/libsofthsm2.so

oneTimeSetUp() {
	[ -x "$VI" ] || { echo "verity-image not built: $VI" >&2; exit 1; }
	for t in softhsm2-util pkcs11-tool openssl minisign mkfs.ext4 sbsign sbattach sbverify objcopy; do
		command -v "$t" >/dev/null || { echo "$t missing (tests/deps.sh)" >&2; exit 1; }
	done
	[ -e /usr/lib/x86_64-linux-gnu/engines-3/pkcs11.so ] ||
		{ echo "OpenSSL's pkcs11 engine missing (libengine-pkcs11-openssl)" >&2; exit 1; }
	# under make check-sanitize: libp11's own leak at exit (pkcs11_lsan.supp says which)
	if [ -n "${ASAN_OPTIONS:-}" ]; then
		export ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0"
		export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$ROOT/tests/cli/pkcs11_lsan.supp:print_suppressions=0"
	fi
	W=$SHUNIT_TMPDIR
	T=$BUILD/pkcs11_test
	rm -rf "$T"
	mkdir -p "$T/tokens"
	printf 'directories.tokendir = %s\nobjectstore.backend = file\nlog.level = ERROR\n' \
		"$T/tokens" >"$T/softhsm2.conf"
	export SOFTHSM2_CONF=$T/softhsm2.conf
	unset VERITY_INIT_PKCS11_PIN
	softhsm2-util --init-token --free --label verity-test --pin "$PIN" --so-pin 0000 >/dev/null || exit 1
	# a token whose user PIN was never set (SoftHSM2 has no PIN lockout: its one "not usable" state)
	pkcs11-tool --module "$SOFTHSM_MODULE" --init-token --label no-user-pin --so-pin 0000 \
		--slot-index 1 >/dev/null 2>&1 || exit 1
	# the release key: made as a PEM file, imported into the token (never extractable there), so
	# the token's signatures can be compared with the file's
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$W/db.key" -out "$W/db.crt" -days 2 \
		-subj "/CN=verity-init pkcs11_test" 2>/dev/null || exit 1
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$W/other.key" -out "$W/other.crt" -days 2 \
		-subj "/CN=verity-init pkcs11_test other" 2>/dev/null || exit 1
	openssl ecparam -name prime256v1 -genkey -noout -out "$W/ec.key" 2>/dev/null || exit 1
	p11 --write-object "$W/db.key" --type privkey --id 01 --label db >/dev/null 2>&1 || exit 1
	p11 --write-object "$W/db.crt" --type cert --id 01 --label db >/dev/null 2>&1 || exit 1
	URI="pkcs11:token=verity-test;object=db;type=private"
	# the manifest's Ed25519 key on a token of its own (libp11 0.4.12 cannot list a token's keys
	# when one of them is Ed25519: docs/signing.md)
	softhsm2-util --init-token --free --label verity-ed --pin "$PIN" --so-pin 0000 >/dev/null || exit 1
	pkcs11-tool --module "$SOFTHSM_MODULE" --token-label verity-ed --login --pin "$PIN" \
		--keypairgen --key-type EC:edwards25519 --id 02 --label manifest >/dev/null 2>&1 || exit 1
	printf '%s' "$PIN" >"$W/pin"
	chmod 0600 "$W/pin"
	minisign -G -W -p "$W/m.pub" -s "$W/m.key" >/dev/null || exit 1
	minisign -G -W -p "$W/o.pub" -s "$W/o.key" >/dev/null || exit 1
	truncate -s 8M "$W/data.img"
	mkfs.ext4 -q "$W/data.img"
	ROOTHASH=$(SOURCE_DATE_EPOCH=1700000000 "$VI" format "$W/data.img" "$W/hash.img" |
		sed -n 's/^Root hash:[[:space:]]*//p')
	[ ${#ROOTHASH} -eq 64 ] || { echo "no root hash" >&2; exit 1; }
	printf '%s' "$ROOTHASH" >"$W/rh.txt"
	for KERNEL in /boot/vmlinuz-*; do break; done
	[ -f "$KERNEL" ] || { echo "no kernel in /boot (linux-image-amd64)" >&2; exit 1; }
	printf 'initramfs stand-in\n' >"$W/initrd"
}

# authenticode SIG.pk7 : the image digest a detached Authenticode signature carries
authenticode() {
	openssl asn1parse -inform der -in "$1" 2>/dev/null |
		sed -n 's/.*l=  32 prim: OCTET STRING *\[HEX DUMP\]://p' | head -n 1
}

p11() { pkcs11-tool --module "$SOFTHSM_MODULE" --token-label verity-test --login --pin "$PIN" "$@"; }

# vsign ARGS... : verity-image sign on the test image; stdout in $OUT, stderr in $ERR, status $RC
vsign() {
	OUT=$("$VI" sign "$W/hash.img" --data-device "PARTUUID=$PARTUUID" --hash-device /dev/vdb \
		"$@" 2>"$W/err" </dev/null)
	RC=$?
	ERR=$(cat "$W/err")
}

# refused CODE WHAT FILE... : the last vsign failed with CODE, one error line, no FILE (nor a
# temporary file of it) left
refused() {
	local code=$1 what=$2 f
	shift 2
	assertEquals "$what: exit status" "$code" "$RC"
	assertEquals "$what: one error line: $ERR" 1 "$(printf '%s\n' "$ERR" | wc -l)"
	for f in "$@"; do
		assertFalse "$what: $f left behind" "[ -e '$f' ]"
		assertEquals "$what: no temporary file of $f" "" "$(ls "$f".tmp* 2>/dev/null)"
	done
}

testTokenPkcs7SignatureIsTheFileKeys() {
	vsign --pkcs7-key "$W/db.key" --pkcs7-cert "$W/db.crt" --p7s "$W/file.p7s" --dps-sig "$W/file.dps"
	assertEquals "file key" 0 "$RC"
	vsign --pkcs7-key "$URI?pin-source=file:$W/pin" --pkcs7-cert "$W/db.crt" \
		--p7s "$W/tok.p7s" --dps-sig "$W/tok.dps"
	assertEquals "token key: $ERR" 0 "$RC"
	assertContains "$OUT" "root_hash=$ROOTHASH"
	# RSA PKCS#1 v1.5 is deterministic: the same key on the token gives the same bytes
	assertTrue "p7s from the token = p7s from the file" "cmp -s '$W/file.p7s' '$W/tok.p7s'"
	assertTrue "DPS JSON from the token = from the file" "cmp -s '$W/file.dps' '$W/tok.dps'"
	openssl smime -verify -binary -inform der -in "$W/tok.p7s" -content "$W/rh.txt" \
		-CAfile "$W/db.crt" -purpose any -out /dev/null 2>/dev/null
	assertEquals "openssl smime -verify over the hex root hash" 0 $?
	# the PIN from the environment (no PIN in argv at all)
	OUT=$(VERITY_INIT_PKCS11_PIN=$PIN "$VI" sign "$W/hash.img" --data-device /dev/vda \
		--pkcs7-key "$URI" --pkcs7-cert "$W/db.crt" --p7s "$W/env.p7s" 2>&1 </dev/null)
	assertEquals "PIN from \$VERITY_INIT_PKCS11_PIN: $OUT" 0 $?
	assertTrue "same signature" "cmp -s '$W/file.p7s' '$W/env.p7s'"
}

testTokenRefusals() {
	printf '1111' >"$W/wrongpin"
	vsign --pkcs7-key "$URI?pin-source=file:$W/wrongpin" --pkcs7-cert "$W/db.crt" --p7s "$W/r.p7s"
	refused 6 "wrong PIN" "$W/r.p7s"
	assertContains "$ERR" "--pkcs7-key pkcs11:token=verity-test;object=db;type=private"
	assertContains "$ERR" "PIN incorrect (wrong PIN)"
	assertNotContains "the PIN is not printed" "$ERR" "1111"
	# a PIN in the URI itself would be in the process list: refused before the token is asked,
	# in the query or in the path, and never printed
	vsign --pkcs7-key "$URI?pin-value=$PIN" --pkcs7-cert "$W/db.crt" --p7s "$W/r.p7s"
	refused 1 "PIN in the URI's query" "$W/r.p7s"
	assertContains "$ERR" "a PIN in the URI (pin-value=) can be read by every user"
	assertNotContains "the PIN is not printed" "$ERR" "$PIN"
	vsign --pkcs7-key "pkcs11:pin-value=3333;token=verity-test;object=db;type=private" \
		--pkcs7-cert "$W/db.crt" --p7s "$W/r.p7s"
	refused 1 "PIN first in the URI's path" "$W/r.p7s"
	assertNotContains "the PIN is not printed" "$ERR" "3333"
	assertContains "$ERR" "--pkcs7-key pkcs11:token=verity-test;object=db;type=private: "
	vsign --pkcs7-key "pkcs11:token=no-such-token;object=db;type=private?pin-source=file:$W/pin" \
		--pkcs7-cert "$W/db.crt" --p7s "$W/r.p7s"
	refused 6 "missing token" "$W/r.p7s"
	assertContains "$ERR" "pkcs11:token=no-such-token;object=db;type=private: no private key from the token: object not found (no token matches, or it has no such private key)"
	vsign --pkcs7-key "pkcs11:token=verity-test;object=nokey;type=private?pin-source=file:$W/pin" \
		--pkcs7-cert "$W/db.crt" --p7s "$W/r.p7s"
	refused 6 "no such key" "$W/r.p7s"
	assertContains "$ERR" "object=nokey"
	vsign --pkcs7-key "$URI" --pkcs7-cert "$W/db.crt" --p7s "$W/r.p7s"
	refused 6 "no PIN" "$W/r.p7s"
	assertContains "$ERR" "no PIN was given"
	vsign --pkcs7-key "pkcs11:token=no-user-pin;object=db;type=private?pin-source=file:$W/pin" \
		--pkcs7-cert "$W/db.crt" --p7s "$W/r.p7s"
	refused 6 "token not usable" "$W/r.p7s"
	assertContains "$ERR" "User pin not initialized"
	vsign --pkcs7-key "$URI?pin-source=file:$W/pin" --pkcs7-cert "$W/other.crt" --p7s "$W/r.p7s" \
		--dps-sig "$W/r.dps"
	refused 4 "key of another certificate" "$W/r.p7s" "$W/r.dps"
	assertContains "$ERR" "does not belong to $W/other.crt"
	# the manifest's Ed25519 key cannot be used through the engine: said, with the way out
	vsign --minisign-key "$URI?pin-source=file:$W/pin" --version 3 --manifest "$W/r.man"
	refused 1 "minisign key on a token" "$W/r.man" "$W/r.man.minisig"
	assertContains "$ERR" "Ed25519, which OpenSSL's pkcs11 engine (libp11 0.4.12) cannot use"
	assertContains "$ERR" "--minisign-signing-helper"
	assertContains "$ERR" "--prepare-manifest"
}

testPkcs7PrepareAndJoin() {
	vsign --prepare-pkcs7 "$W/tbs"
	assertEquals "prepare" 0 "$RC"
	assertEquals "the bytes to be signed: the hex root hash, no newline" "$ROOTHASH" "$(cat "$W/tbs")"
	assertEquals "no newline" 64 "$(stat -c %s "$W/tbs")"
	assertContains "$OUT" "pkcs7_prepared_sha256=$(sha256sum "$W/tbs" | cut -d' ' -f1)"
	vsign --pkcs7-key "$W/db.key" --pkcs7-cert "$W/db.crt" --p7s "$W/direct.p7s" --dps-sig "$W/direct.dps"
	# a signing service with the token: a raw SHA256-RSA-PKCS signature of the prepared bytes
	p11 --sign -m SHA256-RSA-PKCS --id 01 -i "$W/tbs" -o "$W/raw.sig" >/dev/null 2>&1
	assertEquals "pkcs11-tool --sign" 0 $?
	vsign --pkcs7-signature "$W/raw.sig" --pkcs7-cert "$W/db.crt" --p7s "$W/joined.p7s" \
		--dps-sig "$W/joined.dps"
	assertEquals "join a raw signature: $ERR" 0 "$RC"
	assertContains "$OUT" "pkcs7_joined=$W/raw.sig"
	assertTrue "joined = signed here" "cmp -s '$W/direct.p7s' '$W/joined.p7s'"
	assertTrue "joined DPS JSON = signed here" "cmp -s '$W/direct.dps' '$W/joined.dps'"
	# a CMS/PKCS#7 signature made with openssl elsewhere is kept as it is
	openssl smime -sign -binary -noattr -outform der -signer "$W/db.crt" -inkey "$W/db.key" \
		-in "$W/tbs" -out "$W/cms.p7s"
	vsign --pkcs7-signature "$W/cms.p7s" --pkcs7-cert "$W/db.crt" --p7s "$W/joined2.p7s"
	assertEquals "join a PKCS#7: $ERR" 0 "$RC"
	assertTrue "kept as given" "cmp -s '$W/cms.p7s' '$W/joined2.p7s'"

	# refusals, nothing written
	printf 'ffff%s' "${ROOTHASH#ffff}" | rev >"$W/other.tbs"
	p11 --sign -m SHA256-RSA-PKCS --id 01 -i "$W/other.tbs" -o "$W/other.sig" >/dev/null 2>&1
	vsign --pkcs7-signature "$W/other.sig" --pkcs7-cert "$W/db.crt" --p7s "$W/r.p7s" --dps-sig "$W/r.dps"
	refused 2 "signature of other bytes" "$W/r.p7s" "$W/r.dps"
	assertContains "$ERR" "$W/other.sig: not a signature of the prepared bytes (the root hash $ROOTHASH)"
	vsign --pkcs7-signature "$W/raw.sig" --pkcs7-cert "$W/other.crt" --p7s "$W/r.p7s"
	refused 2 "signature by another key" "$W/r.p7s"
	head -c 200 "$W/raw.sig" >"$W/trunc.sig"
	vsign --pkcs7-signature "$W/trunc.sig" --pkcs7-cert "$W/db.crt" --p7s "$W/r.p7s"
	refused 4 "truncated raw signature" "$W/r.p7s"
	assertContains "$ERR" "$W/trunc.sig: 200 bytes, neither a DER PKCS#7 signature nor a raw signature"
	head -c 700 "$W/cms.p7s" >"$W/trunc.p7s"
	vsign --pkcs7-signature "$W/trunc.p7s" --pkcs7-cert "$W/db.crt" --p7s "$W/r.p7s"
	refused 4 "truncated PKCS#7" "$W/r.p7s"
	# the wrong algorithm: an ECDSA signature for an RSA certificate
	openssl dgst -sha256 -sign "$W/ec.key" -out "$W/ec.sig" "$W/tbs"
	vsign --pkcs7-signature "$W/ec.sig" --pkcs7-cert "$W/db.crt" --p7s "$W/r.p7s"
	refused 4 "ECDSA signature, RSA certificate" "$W/r.p7s"
	# a PKCS#7 by another signer, and one over other bytes
	openssl smime -sign -binary -noattr -outform der -signer "$W/other.crt" -inkey "$W/other.key" \
		-in "$W/tbs" -out "$W/other.p7s"
	vsign --pkcs7-signature "$W/other.p7s" --pkcs7-cert "$W/db.crt" --p7s "$W/r.p7s"
	refused 2 "PKCS#7 by another signer" "$W/r.p7s"
	openssl smime -sign -binary -noattr -outform der -signer "$W/db.crt" -inkey "$W/db.key" \
		-in "$W/other.tbs" -out "$W/otherbytes.p7s"
	vsign --pkcs7-signature "$W/otherbytes.p7s" --pkcs7-cert "$W/db.crt" --p7s "$W/r.p7s"
	refused 2 "PKCS#7 over other bytes" "$W/r.p7s"
	# an existing output stays as it was when the join is refused
	printf 'old\n' >"$W/keep.p7s"
	vsign --pkcs7-signature "$W/other.sig" --pkcs7-cert "$W/db.crt" --p7s "$W/keep.p7s"
	assertEquals "refused" 2 "$RC"
	assertEquals "old file untouched" "old" "$(cat "$W/keep.p7s")"
}

testManifestPrepareAndJoin() {
	cp "$W/hash.img" "$W/hash-join.img"
	vsign --prepare-manifest "$W/tbs.man" --version 7
	assertEquals "prepare" 0 "$RC"
	assertEquals "manifest first line" "verity-manifest 1" "$(head -n 1 "$W/tbs.man")"
	assertContains "$OUT" "manifest_prepared_sha256=$(sha256sum "$W/tbs.man" | cut -d' ' -f1)"
	assertFalse "no signature written" "[ -e '$W/tbs.man.minisig' ]"
	# elsewhere: minisign with the release key
	minisign -S -s "$W/m.key" -m "$W/tbs.man" -t "release 7" >/dev/null
	OUT=$("$VI" sign "$W/hash-join.img" --data-device "PARTUUID=$PARTUUID" --hash-device /dev/vdb \
		--version 7 --minisign-signature "$W/tbs.man.minisig" --public-key "$W/m.pub" \
		--embed --bundle "$W/j.bundle" --manifest "$W/j.man" 2>&1)
	assertEquals "join: $OUT" 0 $?
	assertTrue "the manifest joined is the one prepared" "cmp -s '$W/tbs.man' '$W/j.man'"
	assertTrue "its signature as made" "cmp -s '$W/tbs.man.minisig' '$W/j.man.minisig'"
	"$VI" check-manifest "$W/hash-join.img" --embedded --public-key "$W/m.pub" >/dev/null
	assertEquals "the embedded bundle verifies as the agent verifies it" 0 $?
	"$VI" check-manifest "$W/j.bundle" --bundle --public-key "$W/m.pub" >/dev/null
	assertEquals "the bundle verifies" 0 $?
	# the same as signing here with that key and comment
	vsign --minisign-key "$W/m.key" --version 7 --trusted-comment "release 7" --bundle "$W/d.bundle"
	assertTrue "joined bundle = bundle signed here" "cmp -s '$W/d.bundle' '$W/j.bundle'"

	cp "$W/hash.img" "$W/hash-ref.img"
	# a signature by another key; of another version; truncated: refused, nothing written
	minisign -S -s "$W/o.key" -m "$W/tbs.man" -x "$W/o.minisig" >/dev/null
	vsign --version 7 --minisign-signature "$W/o.minisig" --public-key "$W/m.pub" --embed \
		--manifest "$W/r.man" --bundle "$W/r.bundle"
	refused 2 "another key" "$W/r.man" "$W/r.man.minisig" "$W/r.bundle"
	assertContains "$ERR" "$W/o.minisig: not a signature of the prepared manifest by $W/m.pub"
	assertTrue "hash device untouched" "cmp -s '$W/hash.img' '$W/hash-ref.img'"
	vsign --version 8 --minisign-signature "$W/tbs.man.minisig" --public-key "$W/m.pub" --embed \
		--manifest "$W/r.man"
	refused 2 "signature of version 7 joined to version 8" "$W/r.man" "$W/r.man.minisig"
	assertTrue "hash device untouched" "cmp -s '$W/hash.img' '$W/hash-ref.img'"
	head -c 150 "$W/tbs.man.minisig" >"$W/trunc.minisig"
	vsign --version 7 --minisign-signature "$W/trunc.minisig" --public-key "$W/m.pub" \
		--manifest "$W/r.man"
	refused 4 "truncated signature" "$W/r.man" "$W/r.man.minisig"
	assertContains "$ERR" "$W/trunc.minisig: "
	# options of the join refused with the prepare
	vsign --prepare-manifest "$W/r.man" --version 7 --embed
	refused 1 "prepare with --embed" "$W/r.man"
}

# The manifest signed by the token's Ed25519 key (CKM_EDDSA): verity-image makes the two
# messages minisign signs and a helper program signs each on the token with pkcs11-tool (OpenSC);
# the result verifies with minisign -V and as the agent verifies it. A helper that fails, writes
# no signature, or signs with another key is refused and nothing is written.
testManifestSignedOnTheTokenThroughAHelper() {
	local pk
	# the token's public key as a minisign public key (key id 0807060504030201)
	pk=$(pkcs11-tool --module "$SOFTHSM_MODULE" --token-label verity-ed -O --type pubkey 2>/dev/null |
		sed -n 's/^ *EC_POINT: *0420\([0-9a-f]\{64\}\)$/\1/p')
	assertEquals "the token's Ed25519 public key" 64 "${#pk}"
	{
		echo "untrusted comment: minisign public key 807060504030201"
		{ printf 'Ed\001\002\003\004\005\006\007\010'; printf '%s' "$pk" | xxd -r -p; } | base64 -w0
		echo
	} >"$W/tok.pub"
	# the helper: "ed25519 PUBKEY" as arguments, the message on stdin, the signature on stdout
	cat >"$W/helper" <<'HELPER'
#!/bin/bash
set -e
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
[ "$1" = ed25519 ] && [ -r "$2" ]
cat >"$d/msg"
pkcs11-tool --module /usr/lib/softhsm/libsofthsm2.so --token-label verity-ed --login \
	--pin "$HELPER_PIN" --sign -m EDDSA --id 02 -i "$d/msg" -o "$d/sig" >/dev/null 2>&1
cat "$d/sig"
HELPER
	chmod 0755 "$W/helper"
	cp "$W/hash.img" "$W/hash-tok.img"
	OUT=$(HELPER_PIN=$PIN "$VI" sign "$W/hash-tok.img" --data-device "PARTUUID=$PARTUUID" \
		--hash-device /dev/vdb --version 6 --minisign-signing-helper "$W/helper" \
		--public-key "$W/tok.pub" --embed --manifest "$W/tok.man" 2>&1)
	assertEquals "signed on the token: $OUT" 0 $?
	assertContains "$OUT" "minisign_key_id=807060504030201"
	minisign -V -p "$W/tok.pub" -m "$W/tok.man" >/dev/null 2>&1
	assertEquals "minisign -V accepts the token's signature" 0 $?
	"$VI" check-manifest "$W/hash-tok.img" --embedded --public-key "$W/tok.pub" >/dev/null
	assertEquals "the embedded bundle verifies as the agent verifies it" 0 $?

	# refusals, nothing written
	cp "$W/hash.img" "$W/hash-ref2.img"
	HELPER_PIN=1111 vsign --version 6 --minisign-signing-helper "$W/helper" \
		--public-key "$W/tok.pub" --manifest "$W/r.man" --bundle "$W/r.bundle" --embed
	refused 6 "helper fails (wrong PIN)" "$W/r.man" "$W/r.man.minisig" "$W/r.bundle"
	assertContains "$ERR" "--minisign-signing-helper $W/helper: failed (exit status 1)"
	printf '#!/bin/sh\nprintf 0123456789\n' >"$W/short-helper"
	chmod 0755 "$W/short-helper"
	vsign --version 6 --minisign-signing-helper "$W/short-helper" --public-key "$W/tok.pub" \
		--manifest "$W/r.man"
	refused 6 "helper writes no signature" "$W/r.man" "$W/r.man.minisig"
	assertContains "$ERR" "wrote 10 bytes, not a 64-byte Ed25519 signature"
	vsign --version 6 --minisign-signing-helper "$W/no-such-helper" --public-key "$W/tok.pub" \
		--manifest "$W/r.man"
	refused 6 "no such helper" "$W/r.man" "$W/r.man.minisig"
	assertContains "$ERR" "could not be run"
	# the token's signatures checked with another public key under the same key id
	{
		sed -n 1p "$W/tok.pub"
		{ printf 'Ed\001\002\003\004\005\006\007\010'; sed -n 2p "$W/m.pub" | base64 -d | tail -c 32; } | base64 -w0
		echo
	} >"$W/wrong.pub"
	HELPER_PIN=$PIN vsign --version 6 --minisign-signing-helper "$W/helper" \
		--public-key "$W/wrong.pub" --embed --manifest "$W/r.man"
	refused 2 "signatures of another key" "$W/r.man" "$W/r.man.minisig"
	assertContains "$ERR" "its signatures do not verify with $W/wrong.pub"
	assertTrue "hash device untouched" "cmp -s '$W/hash.img' '$W/hash-ref2.img'"
}

testReproducibleBuilds() {
	local i
	export SOURCE_DATE_EPOCH=1700000000
	for i in 1 2; do
		"$VI" format "$W/data.img" "$W/repro$i.hash" >/dev/null
		"$VI" sign "$W/repro$i.hash" --data-device "PARTUUID=$PARTUUID" --hash-device /dev/vdb \
			--minisign-key "$W/m.key" --version 4 --embed --manifest "$W/repro$i.man" \
			--pkcs7-key "$URI?pin-source=file:$W/pin" --pkcs7-cert "$W/db.crt" \
			--p7s "$W/repro$i.p7s" >/dev/null
		bash "$MKUKI" --kernel "$KERNEL" --initrd "$W/initrd" --cmdline "roothash=$ROOTHASH" \
			--prepare "$W/repro$i.efi" >/dev/null
		sleep 1
	done
	unset SOURCE_DATE_EPOCH
	assertTrue "hash device (tree, salt, UUID, embedded bundle)" "cmp -s '$W/repro1.hash' '$W/repro2.hash'"
	assertTrue "manifest" "cmp -s '$W/repro1.man' '$W/repro2.man'"
	assertTrue "manifest signature (trusted comment's time from SOURCE_DATE_EPOCH)" \
		"cmp -s '$W/repro1.man.minisig' '$W/repro2.man.minisig'"
	assertContains "$(cat "$W/repro1.man.minisig")" "timestamp:1700000000"
	assertTrue "p7s signed on the token" "cmp -s '$W/repro1.p7s' '$W/repro2.p7s'"
	assertTrue "unsigned UKI" "cmp -s '$W/repro1.efi' '$W/repro2.efi'"
	# and without SOURCE_DATE_EPOCH the salt is random, as veritysetup's
	"$VI" format "$W/data.img" "$W/rand.hash" >/dev/null
	assertFalse "random salt without SOURCE_DATE_EPOCH" "cmp -s '$W/repro1.hash' '$W/rand.hash'"
}

testUkiTokenAndJoin() {
	local common=(--kernel "$KERNEL" --initrd "$W/initrd" --cmdline "roothash=$ROOTHASH")
	OUT=$(VERITY_INIT_PKCS11_PIN=$PIN bash "$MKUKI" "${common[@]}" --key "$URI" \
		--cert "$W/db.crt" "$W/tok.efi" 2>&1 </dev/null)
	assertEquals "UKI signed on the token: $OUT" 0 $?
	sbverify --cert "$W/db.crt" "$W/tok.efi" >/dev/null 2>&1
	assertEquals "sbverify" 0 $?
	bash "$MKUKI" "${common[@]}" --key "$W/db.key" --cert "$W/db.crt" "$W/file.efi" 2>/dev/null
	sbattach --detach "$W/tok.pk7" "$W/tok.efi" >/dev/null 2>&1
	sbattach --detach "$W/file.pk7" "$W/file.efi" >/dev/null 2>&1
	# the two differ only in sbsign's signingTime attribute: the same Authenticode digest of the
	# image (the first 32-byte OCTET STRING, in SpcIndirectDataContent), the same signer
	assertEquals "same Authenticode digest as the file key's" "$(authenticode "$W/file.pk7")" \
		"$(authenticode "$W/tok.pk7")"
	assertNotEquals "a digest was found" "" "$(authenticode "$W/tok.pk7")"

	OUT=$(bash "$MKUKI" "${common[@]}" --prepare "$W/unsigned.efi")
	assertEquals "prepare" 0 $?
	assertContains "$OUT" "uki_prepared_sha256=$(sha256sum "$W/unsigned.efi" | cut -d' ' -f1)"
	# the signing service, with the token
	sbsign --engine pkcs11 --key "$URI?pin-source=file:$W/pin" --cert "$W/db.crt" --detached \
		--output "$W/svc.pk7" "$W/unsigned.efi" >/dev/null 2>&1 </dev/null
	assertEquals "sbsign --detached on the token" 0 $?
	OUT=$(bash "$MKUKI" "${common[@]}" --join-signature "$W/svc.pk7" --cert "$W/db.crt" "$W/joined.efi" 2>&1)
	assertEquals "join: $OUT" 0 $?
	sbverify --cert "$W/db.crt" "$W/joined.efi" >/dev/null 2>&1
	assertEquals "the joined UKI verifies" 0 $?
	OUT=$(bash "$MKUKI" "${common[@]}" --join-signature "$W/svc.pk7" --cert "$W/db.crt" "$W/joined2.efi" 2>&1)
	assertTrue "joined twice: byte-identical" "cmp -s '$W/joined.efi' '$W/joined2.efi'"

	# refusals: exit 1, one line naming the input, no UKI
	ERR=$(bash "$MKUKI" --kernel "$KERNEL" --initrd "$W/initrd" --cmdline "roothash=0$ROOTHASH" \
		--join-signature "$W/svc.pk7" --cert "$W/db.crt" "$W/r.efi" 2>&1)
	RC=$?
	refused 1 "UKI join, signature of another UKI" "$W/r.efi"
	assertContains "$ERR" "--join-signature '$W/svc.pk7': not a signature of this UKI"
	ERR=$(bash "$MKUKI" "${common[@]}" --join-signature "$W/svc.pk7" --cert "$W/other.crt" "$W/r.efi" 2>&1)
	RC=$?
	refused 1 "UKI join, another certificate" "$W/r.efi"
	head -c 600 "$W/svc.pk7" >"$W/trunc.pk7"
	ERR=$(bash "$MKUKI" "${common[@]}" --join-signature "$W/trunc.pk7" --cert "$W/db.crt" "$W/r.efi" 2>&1)
	RC=$?
	refused 1 "UKI join, truncated signature" "$W/r.efi"
	assertContains "$ERR" "not a detached PKCS#7 signature"
	ERR=$(VERITY_INIT_PKCS11_PIN=1111 bash "$MKUKI" "${common[@]}" --key "$URI" --cert "$W/db.crt" \
		"$W/r.efi" 2>&1 </dev/null)
	RC=$?
	refused 1 "UKI, wrong PIN" "$W/r.efi"
	assertContains "$ERR" "the token refused the login"
	assertNotContains "PIN not printed" "$ERR" "1111"
	ERR=$(bash "$MKUKI" "${common[@]}" --key "pkcs11:token=no-such-token;object=db;type=private?pin-source=file:$W/pin" \
		--cert "$W/db.crt" "$W/r.efi" 2>&1 </dev/null)
	RC=$?
	refused 1 "UKI, missing token" "$W/r.efi"
	assertContains "$ERR" "no token matches"
	ERR=$(bash "$MKUKI" "${common[@]}" --key "$URI?pin-value=$PIN" --cert "$W/db.crt" "$W/r.efi" 2>&1 </dev/null)
	RC=$?
	refused 2 "UKI, a PIN in the URI" "$W/r.efi"
	assertContains "$ERR" "a PIN in the URI (pin-value=) can be read by every user"
	assertNotContains "UKI, a PIN in the URI: the PIN is not printed" "$ERR" "$PIN"
}

# shellcheck source=/dev/null
. shunit2
