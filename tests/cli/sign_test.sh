#!/bin/bash
# verity-image sign / check-manifest against the real tools: what we sign verifies with
# `minisign -V` and (roothash.p7s) with `openssl smime -verify` over the hex root hash; what
# `minisign -S` signs verifies with our code (check-manifest runs the agent's
# vi_manifest_verify); a bundle embedded after the tree leaves `veritysetup verify` happy and
# is found again; tampering, foreign keys and rollback are refused with the right exit code.
# Environment: BUILD = absolute build directory.

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
VI=$BUILD/verity-image
PARTUUID=6e8a3b8c-5d0e-4e34-9d1e-8d3a0c4b7f21

oneTimeSetUp() {
	[ -x "$VI" ] || { echo "verity-image not built: $VI" >&2; exit 1; }
	for t in veritysetup minisign openssl mkfs.ext4; do
		command -v "$t" >/dev/null || { echo "$t missing" >&2; exit 1; }
	done
	W=$SHUNIT_TMPDIR
	minisign -G -W -p "$W/k.pub" -s "$W/k.key" >/dev/null || exit 1
	minisign -G -W -p "$W/other.pub" -s "$W/other.key" >/dev/null || exit 1
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$W/p7.key" -out "$W/p7.crt" \
		-days 2 -subj "/CN=verity-init sign_test" 2>/dev/null || exit 1
	truncate -s 8M "$W/data.img"
	mkfs.ext4 -q "$W/data.img"
	ROOTHASH=$(veritysetup format "$W/data.img" "$W/hash.img" | awk '/^Root hash:/ { print $3 }')
	[ ${#ROOTHASH} -eq 64 ] || { echo "veritysetup format failed" >&2; exit 1; }
}

# sign ARGS... : verity-image sign on the hash image with the test key, output in $OUT
sign() {
	OUT=$("$VI" sign "$W/hash.img" --data-device "PARTUUID=$PARTUUID" \
		--hash-device /dev/vdb "$@")
}

testSignedManifestVerifiesWithMinisign() {
	sign --minisign-key "$W/k.key" --version 5 --manifest "$W/m" --trusted-comment "release 5"
	assertEquals "sign exit" 0 $?
	assertContains "$OUT" "root_hash=$ROOTHASH"
	assertContains "$OUT" "manifest_version=5"
	assertEquals "manifest first line" "verity-manifest 1" "$(head -n 1 "$W/m")"
	assertContains "$(cat "$W/m")" "root-hash $ROOTHASH"
	assertContains "$(cat "$W/m")" "data-device PARTUUID=$PARTUUID"
	local v
	v=$(minisign -V -p "$W/k.pub" -m "$W/m" 2>&1)
	assertEquals "minisign -V accepts our signature" 0 $?
	assertContains "$v" "Trusted comment: release 5"
	# ... and refuses it for another key and for an edited manifest
	minisign -V -p "$W/other.pub" -m "$W/m" -x "$W/m.minisig" >/dev/null 2>&1
	assertNotEquals "minisign -V, other key" 0 $?
	sed 's/^version 5$/version 6/' "$W/m" >"$W/m6"
	minisign -V -p "$W/k.pub" -m "$W/m6" -x "$W/m.minisig" >/dev/null 2>&1
	assertNotEquals "minisign -V, edited manifest" 0 $?
}

testMinisignToolSignatureVerifiesWithOurs() {
	sign --minisign-key "$W/k.key" --version 9 --manifest "$W/t"
	# re-sign the manifest with the minisign tool itself (prehashed, its default)
	rm -f "$W/t.minisig"
	minisign -S -s "$W/k.key" -m "$W/t" -t "signed by minisign" >/dev/null
	assertEquals "minisign -S" 0 $?
	local v
	v=$("$VI" check-manifest "$W/t" --public-key "$W/other.pub" --public-key "$W/k.pub")
	assertEquals "check-manifest accepts minisign -S" 0 $?
	assertContains "$v" "verified=yes"
	assertContains "$v" "manifest_version=9"
	assertContains "$v" "key_file=$W/k.pub"
	assertContains "$v" "root_hash=$ROOTHASH"
	# minisign's legacy (non-prehashed) signatures are refused, as minisign -V refuses them
	minisign -S -l -s "$W/k.key" -m "$W/t" -x "$W/t.legacy" >/dev/null
	"$VI" check-manifest "$W/t" --signature "$W/t.legacy" --public-key "$W/k.pub" 2>/dev/null
	assertEquals "legacy signature refused" 2 $?
}

testRefusals() {
	local e
	sign --minisign-key "$W/k.key" --version 4 --manifest "$W/r"
	# another key
	e=$("$VI" check-manifest "$W/r" --public-key "$W/other.pub" 2>&1)
	assertEquals "unknown key: exit 2" 2 $?
	assertContains "$e" "which is not a trusted key"
	# tampered manifest (data-blocks lowered, the classic truncation)
	sed 's/^data-blocks 2048$/data-blocks 2047/' "$W/r" >"$W/rt"
	cp "$W/r.minisig" "$W/rt.minisig"
	assertNotEquals "tamper applied" "$(cat "$W/r")" "$(cat "$W/rt")"
	e=$("$VI" check-manifest "$W/rt" --public-key "$W/k.pub" 2>&1)
	assertEquals "tampered: exit 2" 2 $?
	assertContains "$e" "signature does not verify"
	# rollback below min_version
	e=$("$VI" check-manifest "$W/r" --public-key "$W/k.pub" --min-version 5 2>&1)
	assertEquals "rollback: exit 2" 2 $?
	assertContains "$e" "rollback refused"
	"$VI" check-manifest "$W/r" --public-key "$W/k.pub" --min-version 4 >/dev/null
	assertEquals "at min_version: accepted" 0 $?
	# a manifest with an unknown key is malformed even when validly signed
	{ cat "$W/r"; echo "name root"; } >"$W/ru"
	minisign -S -s "$W/k.key" -m "$W/ru" >/dev/null
	e=$("$VI" check-manifest "$W/ru" --public-key "$W/k.pub" 2>&1)
	assertEquals "unknown manifest key: exit 4" 4 $?
	assertContains "$e" "unknown key 'name'"
}

testEmbeddedAndBundle() {
	cp "$W/hash.img" "$W/hash2.img"
	OUT=$("$VI" sign "$W/hash2.img" --data-device /dev/vda --hash-device /dev/vdb \
		--minisign-key "$W/k.key" --version 2 --embed --bundle "$W/bundle")
	assertEquals "sign --embed" 0 $?
	assertContains "$OUT" "bundle_offset="
	# the tree is untouched: veritysetup still verifies data against the hash device
	veritysetup verify "$W/data.img" "$W/hash2.img" "$ROOTHASH"
	assertEquals "veritysetup verify after --embed" 0 $?
	local v
	v=$("$VI" check-manifest "$W/hash2.img" --embedded --public-key "$W/k.pub")
	assertEquals "embedded bundle found and verified" 0 $?
	assertContains "$v" "manifest_version=2"
	v=$("$VI" check-manifest "$W/bundle" --bundle --public-key "$W/k.pub")
	assertEquals "bundle file verified" 0 $?
	assertEquals "bundle is padded to 8 KiB" 8192 "$(stat -c %s "$W/bundle")"
	# re-embedding a newer version replaces the old one
	"$VI" sign "$W/hash2.img" --data-device /dev/vda --hash-device /dev/vdb \
		--minisign-key "$W/k.key" --version 3 --embed >/dev/null
	v=$("$VI" check-manifest "$W/hash2.img" --embedded --public-key "$W/k.pub")
	assertContains "$v" "manifest_version=3"
	# without a bundle there: refused
	"$VI" check-manifest "$W/hash.img" --embedded --public-key "$W/k.pub" 2>/dev/null
	assertEquals "no embedded bundle: exit 4" 4 $?
}

testPkcs7RootHashSignature() {
	sign --pkcs7-key "$W/p7.key" --pkcs7-cert "$W/p7.crt" --p7s "$W/roothash.p7s" \
		--dps-sig "$W/dps.json"
	assertEquals "sign --p7s" 0 $?
	# DER, detached, over the hex root hash WITHOUT a newline (systemd/mkosi/kernel)
	printf '%s' "$ROOTHASH" >"$W/rh"
	openssl smime -verify -binary -inform der -in "$W/roothash.p7s" -content "$W/rh" \
		-CAfile "$W/p7.crt" -out /dev/null 2>/dev/null
	assertEquals "openssl smime -verify over the hex root hash" 0 $?
	printf '%s\n' "$ROOTHASH" >"$W/rhnl"
	openssl smime -verify -binary -inform der -in "$W/roothash.p7s" -content "$W/rhnl" \
		-CAfile "$W/p7.crt" -out /dev/null 2>/dev/null
	assertNotEquals "not over hash + newline" 0 $?
	# no signed attributes (the kernel's PKCS#7 parser and systemd use PKCS7_NOATTR)
	openssl asn1parse -inform der -in "$W/roothash.p7s" | grep -q signingTime
	assertNotEquals "no signingTime attribute" 0 $?
	# the DPS JSON carries the same signature and the certificate's SHA-256
	local fpr sig
	fpr=$(openssl x509 -in "$W/p7.crt" -outform der | sha256sum | cut -d' ' -f1)
	assertContains "$(tr -d '\0' <"$W/dps.json")" "\"rootHash\":\"$ROOTHASH\""
	assertContains "$(tr -d '\0' <"$W/dps.json")" "\"certificateFingerprint\":\"$fpr\""
	sig=$(tr -d '\0' <"$W/dps.json" | sed 's/.*"signature":"\([^"]*\)".*/\1/')
	assertEquals "DPS signature = roothash.p7s" "$(base64 -w0 "$W/roothash.p7s")" "$sig"
	# a key that does not belong to the certificate
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$W/p7b.key" -out "$W/p7b.crt" \
		-days 2 -subj "/CN=other" 2>/dev/null
	"$VI" sign "$W/hash.img" --data-device /dev/vda --pkcs7-key "$W/p7b.key" \
		--pkcs7-cert "$W/p7.crt" --p7s "$W/bad.p7s" >/dev/null 2>&1
	assertEquals "mismatched key/cert: exit 4" 4 $?
}

testUsageAndInputErrors() {
	"$VI" sign "$W/hash.img" --minisign-key "$W/k.key" --version 1 --manifest "$W/x" 2>/dev/null
	assertEquals "no --data-device: usage" 1 $?
	"$VI" sign "$W/hash.img" --data-device /dev/vda --minisign-key "$W/k.key" \
		--manifest "$W/x" 2>/dev/null
	assertEquals "no --version: usage" 1 $?
	"$VI" sign "$W/hash.img" --data-device /dev/vda --hash-device /dev/vdb \
		--minisign-key "$W/k.key" --version 1 --manifest "$W/x" \
		--root-hash 0000000000000000000000000000000000000000000000000000000000000000 >/dev/null 2>&1
	assertEquals "wrong --root-hash: exit 2" 2 $?
	"$VI" sign "$W/data.img" --data-device /dev/vda --minisign-key "$W/k.key" --version 1 \
		--manifest "$W/x" 2>/dev/null
	assertEquals "no superblock: exit 4" 4 $?
	# a password-protected key is refused with the way out in the message
	local e
	printf 'pw\npw\n' | minisign -G -p "$W/enc.pub" -s "$W/enc.key" >/dev/null 2>&1
	e=$("$VI" sign "$W/hash.img" --data-device /dev/vda --hash-device /dev/vdb \
		--minisign-key "$W/enc.key" --version 1 --manifest "$W/x" 2>&1)
	assertEquals "encrypted key: exit 4" 4 $?
	assertContains "$e" "minisign -C -W"
	# the hash area on the data device needs --hash-offset, and a manifest says so
	"$VI" sign "$W/hash.img" --data-device /dev/vda --minisign-key "$W/k.key" --version 1 \
		--manifest "$W/x" 2>/dev/null
	assertEquals "hash on data device at offset 0: exit 4" 4 $?
}

# shellcheck disable=SC1091
. /usr/share/shunit2/shunit2
