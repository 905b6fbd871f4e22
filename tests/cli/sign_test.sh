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

# --- a set of outputs is put in place whole or not at all ------------------------------------
# The failing rename is a real filesystem rule, not an injected fault: an output whose old file
# belongs to another user in a sticky directory (a shared /tmp-like drop directory) cannot be
# replaced by the run's user (EPERM), although the run could create its temporary file there.
# The run's user is nobody; $C/out is its own directory, $C/shared root's mode-1777 one. $C is
# not in shunit2's directory, which nobody cannot enter.

RUNNER=65534
C=""

tearDown() {
	[ -z "$C" ] || rm -rf "$C"
	C=""
}

# commit_fixture : $C with the runner's inputs in $C/in, $C/out and $C/shared empty
commit_fixture() {
	C=$(mktemp -d "${TMPDIR:-/tmp}/sign_test.XXXXXX") || return 1
	mkdir -p "$C/in" "$C/out" "$C/shared"
	chmod 0755 "$C" "$C/in"
	chmod 1777 "$C/shared"
	cp "$W/k.key" "$W/p7.key" "$W/p7.crt" "$W/hash.img" "$C/in/"
	chown -R "$RUNNER:$RUNNER" "$C/in" "$C/out"
}

# as_runner CMD... : CMD as the unprivileged user; stdout in $OUT, stderr in $ERR, status $RC
as_runner() {
	OUT=$(setpriv --reuid=$RUNNER --regid=$RUNNER --clear-groups "$@" 2>"$W/err" </dev/null)
	RC=$?
	ERR=$(cat "$W/err")
}

# old_file PATH OWNER : PATH with content of its own (also kept as PATH.was), owned by OWNER
old_file() {
	printf 'old %s\n' "$1" >"$1"
	cp "$1" "$1.was"
	chown "$2:$2" "$1" "$1.was"
	chmod 0644 "$1"
}

# assert_untouched WHAT PATH... : every PATH byte-identical to PATH.was
assert_untouched() {
	local what=$1 f
	shift
	for f in "$@"; do
		assertTrue "$what: $f as it was" "cmp -s '$f' '$f.was'"
	done
}

# assert_no_leftovers WHAT DIR... : no temporary or backup file of an output in DIR
assert_no_leftovers() {
	local what=$1 d
	shift
	for d in "$@"; do
		assertEquals "$what: nothing left in $d" "" \
			"$(find "$d" -name '*.tmp*' -o -name '*.old*' | sort)"
	done
}

needs_runner() {
	[ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
		setpriv --reuid=$RUNNER --regid=$RUNNER --clear-groups test -x "$VI" && return 0
	startSkipping
	fail "needs root (a file of another user), setpriv, and $VI runnable by uid $RUNNER"
	return 1
}

testSecondRenameFailsEveryOldFileStays() {
	needs_runner || return
	commit_fixture
	local inode
	old_file "$C/out/r.p7s" "$RUNNER"
	old_file "$C/shared/d.json" 0
	inode=$(stat -c %i "$C/out/r.p7s")
	as_runner "$VI" sign "$C/in/hash.img" --data-device /dev/vda --hash-device /dev/vdb \
		--pkcs7-key "$C/in/p7.key" --pkcs7-cert "$C/in/p7.crt" \
		--p7s "$C/out/r.p7s" --dps-sig "$C/shared/d.json"
	assertEquals "exit status: $ERR" 3 "$RC"
	assertEquals "one error line: $ERR" 1 "$(printf '%s\n' "$ERR" | wc -l)"
	assertContains "$ERR" "$C/shared/d.json: Operation not permitted"
	assert_untouched "second rename refused" "$C/out/r.p7s" "$C/shared/d.json"
	assertEquals "second rename refused: r.p7s is its old file again, not a copy" "$inode" \
		"$(stat -c %i "$C/out/r.p7s")"
	assert_no_leftovers "second rename refused" "$C/out" "$C/shared"
}

testFailedCommitLeavesEveryOutputAndTheHashDevice() {
	needs_runner || return
	commit_fixture
	local hash=$C/out/hash.img
	cp "$C/in/hash.img" "$hash"
	chown "$RUNNER:$RUNNER" "$hash"
	# a bundle there already, so that a new one written in the failed run would show
	setpriv --reuid=$RUNNER --regid=$RUNNER --clear-groups "$VI" sign "$hash" \
		--data-device /dev/vda --hash-device /dev/vdb --minisign-key "$C/in/k.key" \
		--version 1 --embed >/dev/null || fail "the first embed"
	cp "$hash" "$hash.was"
	old_file "$C/out/r.p7s" "$RUNNER"
	old_file "$C/shared/m" "$RUNNER"
	old_file "$C/shared/m.minisig" 0
	old_file "$C/out/b" "$RUNNER"
	# renamed in this order: r.p7s, d.json (new), m, then m.minisig is refused; b and the
	# bundle on the hash device would come after it
	as_runner "$VI" sign "$hash" --data-device /dev/vda --hash-device /dev/vdb \
		--pkcs7-key "$C/in/p7.key" --pkcs7-cert "$C/in/p7.crt" --p7s "$C/out/r.p7s" \
		--dps-sig "$C/out/d.json" --minisign-key "$C/in/k.key" --version 2 \
		--manifest "$C/shared/m" --bundle "$C/out/b" --embed
	assertEquals "exit status: $ERR" 3 "$RC"
	assertEquals "one error line: $ERR" 1 "$(printf '%s\n' "$ERR" | wc -l)"
	assertContains "$ERR" "$C/shared/m.minisig: Operation not permitted"
	assert_untouched "fourth rename refused" "$C/out/r.p7s" "$C/shared/m" \
		"$C/shared/m.minisig" "$C/out/b" "$hash"
	assertFalse "fourth rename refused: the new d.json removed again" "[ -e '$C/out/d.json' ]"
	assert_no_leftovers "fourth rename refused" "$C/out" "$C/shared"
	# the same run once the file is the runner's: every output replaced, nothing left over
	chown "$RUNNER:$RUNNER" "$C/shared/m.minisig"
	as_runner "$VI" sign "$hash" --data-device /dev/vda --hash-device /dev/vdb \
		--pkcs7-key "$C/in/p7.key" --pkcs7-cert "$C/in/p7.crt" --p7s "$C/out/r.p7s" \
		--dps-sig "$C/out/d.json" --minisign-key "$C/in/k.key" --version 2 \
		--manifest "$C/shared/m" --bundle "$C/out/b" --embed
	assertEquals "the same run, allowed: $ERR" 0 "$RC"
	assert_no_leftovers "the same run, allowed" "$C/out" "$C/shared"
	assertTrue "d.json written" "[ -s '$C/out/d.json' ]"
	"$VI" check-manifest "$C/shared/m" --public-key "$W/k.pub" --min-version 2 >/dev/null
	assertEquals "the new manifest and its signature" 0 $?
	"$VI" check-manifest "$C/out/b" --bundle --public-key "$W/k.pub" --min-version 2 >/dev/null
	assertEquals "the new bundle" 0 $?
	"$VI" check-manifest "$hash" --embedded --public-key "$W/k.pub" --min-version 2 >/dev/null
	assertEquals "the new embedded bundle" 0 $?
}

# The bundle on the hash device comes after every file: a hash image that must grow for it, on a
# full filesystem (a tmpfs of fixed size), refuses it (ENOSPC) once every file is in place.
testBundleWriteFailsEveryFileGoesBack() {
	if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
		startSkipping
		fail "needs root and unshare -m (a full tmpfs)"
		return
	fi
	C=$W/fullfs
	mkdir -p "$C/full"
	# veritysetup's hash image ends where the bundle region starts
	veritysetup format "$W/data.img" "$C/hash.img" >/dev/null || { fail "veritysetup format"; return; }
	cp "$C/hash.img" "$C/hash.img.was"
	old_file "$C/r.p7s" 0
	old_file "$C/m" 0
	old_file "$C/m.minisig" 0
	# shellcheck disable=SC2016 # expanded by the inner sh
	OUT=$(unshare -m sh -c '
		c=$1; shift
		mount -t tmpfs -o size=256k verity-test "$c/full" || exit 99
		cp "$c/hash.img" "$c/full/hash.img" || exit 99
		dd if=/dev/zero of="$c/full/fill" bs=4k 2>/dev/null
		"$@" "$c/full/hash.img" --p7s "$c/r.p7s" --manifest "$c/m" --embed
		rc=$?
		cp "$c/full/hash.img" "$c/hash.img.after"
		exit $rc' sh "$C" "$VI" sign --data-device /dev/vda --hash-device /dev/vdb \
		--pkcs7-key "$W/p7.key" --pkcs7-cert "$W/p7.crt" --minisign-key "$W/k.key" \
		--version 2 2>"$W/err")
	RC=$?
	ERR=$(cat "$W/err")
	assertEquals "exit status: $ERR" 3 "$RC"
	assertEquals "one error line: $ERR" 1 "$(printf '%s\n' "$ERR" | wc -l)"
	assertContains "the bundle named: $ERR" "$ERR" "writing the bundle at byte "
	assertContains "ENOSPC: $ERR" "$ERR" "of $C/full/hash.img: No space left on device"
	assert_untouched "bundle refused" "$C/r.p7s" "$C/m" "$C/m.minisig"
	assertTrue "bundle refused: the hash image as it was, its size too" \
		"cmp -s '$C/hash.img.after' '$C/hash.img.was'"
	assert_no_leftovers "bundle refused" "$C"
}

# shellcheck disable=SC1091
. /usr/share/shunit2/shunit2
