#!/bin/sh
# A verified /usr through `verity-init parse`: systemd's keys and ours, what is printed for each
# layout (key=value and the shell form the dracut hooks eval), and the refusals a user meets, with
# the initramfs policy's consent to an unverified root= partition (in a private mount namespace).
# Environment: BUILD = build directory.
# shellcheck disable=SC2317  # test functions are called by shunit2

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
# shellcheck source=tests/cli/policy_lib.sh
. "$ROOT/tests/cli/policy_lib.sh"
VI=$BUILD/verity-init
UH=4f8b2d0e1c7a9b3d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5
RH=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff
RV="roothash=$RH verity.data=/dev/vda1 verity.hash=/dev/vda2"

oneTimeSetUp() {
	[ -x "$VI" ] || { echo "verity-init not built in $BUILD" >&2; exit 1; }
}

# parses CMDLINE: `parse` exits 0; the output is in $out
parses() {
	out=$("$VI" parse --cmdline "$1" 2>&1)
	assertEquals "parse '$1': exit status ($out)" 0 $?
}

# refused CMDLINE REASON: exit status 1, the reason as the last line
refused() {
	out=$("$VI" parse --cmdline "$1" 2>&1)
	assertEquals "parse '$1': exit status ($out)" 1 $?
	assertEquals "parse '$1': reason" "verity-init: $2" "$(printf '%s\n' "$out" | tail -n 1)"
}

testUsrhashAloneTmpfsRootDiscoversPartitions() {
	parses "usrhash=$UH systemd.volatile=yes"
	assertContains "$out" "
enabled=no
"
	assertContains "$out" "
usr.enabled=yes
usr.name=usr
usr.roothash=$UH
usr.data=PARTUUID=4f8b2d0e-1c7a-9b3d-5e6f-708192a3b4c5
usr.hash=PARTUUID=d6e7f809-1a2b-3c4d-5e6f-708192a3b4c5
"
	assertContains "$out" "usr.discovered=yes"
	assertContains "$out" "layout=tmpfs+usr"
	parses "rd.usrhash=$UH root=tmpfs"
	assertContains "root=tmpfs: same layout" "$out" "layout=tmpfs+usr"
}

testRootAndUsrBothVerified() {
	parses "$RV verity.usr.roothash=$UH verity.usr.data=PARTLABEL=usr verity.usr.hash=PARTLABEL=usr-verity verity.usr.sig=/etc/verity-init/usr.p7s mount.usr=/dev/mapper/usr mount.usrfstype=erofs mount.usrflags=noatime"
	assertContains "$out" "
enabled=yes
name=root
roothash=$RH
"
	assertContains "$out" "
usr.data=PARTLABEL=usr
usr.hash=PARTLABEL=usr-verity
"
	assertContains "$out" "
usr.sig=/etc/verity-init/usr.p7s
usr.mount=/dev/mapper/usr
usr.fstype=erofs
usr.flags=noatime
layout=root+usr
"
	out=$("$VI" parse --shell --cmdline "$RV usrhash=$UH systemd.verity_usr_options=panic-on-corruption" 2>&1)
	assertContains "shell form" "$out" "VERITY_USR_ROOTHASH='$UH'"
	assertContains "shell form: options" "$out" "VERITY_USR_OPTIONS='panic-on-corruption'"
	assertContains "shell form: layout" "$out" "VERITY_LAYOUT='root+usr'"
	# no /usr: nothing of it printed (the root's lines stay what they were)
	parses "$RV"
	assertNotContains "$out" "usr."
}

testUsrRefusals() {
	refused "usrhash=$UH" "a verified /usr needs a root: a verified one (roothash=), a tmpfs (systemd.volatile=yes), or root=DEVICE where the initramfs policy says allow_unverified_root=yes"
	refused "$RV mount.usr=/dev/vdb" "'mount.usr' would mount an unverified /usr under the verified init: give its root hash (usrhash=) or keep /usr on the verified root"
	refused "$RV usrhash=$UH mount.usr=/dev/vdb" "'mount.usr' must name the verified mapping /dev/mapper/usr: another device would be mounted on /usr unverified"
	refused "$RV systemd.volatile=yes" "a tmpfs root (systemd.volatile=yes) needs a verified /usr (usrhash=): use overlay or state for a verified root"
	refused "$RV usrhash=$UH systemd.volatile=overlay" "systemd.volatile=overlay with a separate verified /usr is not supported: use state, or yes without a root hash"
	refused "$RV usrhash=$UH systemd.volatile=yes" "a tmpfs root (systemd.volatile=yes, root=tmpfs) together with a verified root: give one of them"
	refused "usrhash=$UH root=tmpfs verity.usr.rothash=$UH" "unknown key 'verity.usr.rothash'"
}

# `setup` is the dracut module's call: it sets up a verified /usr under a verified or a tmpfs
# root (no longer refused as a configuration), never under an unverified root= partition, which
# only the standalone agent mounts: refused before any device is read
testSetupUsrLayouts() {
	out=$("$VI" setup --cmdline "$RV verity.timeout=1 usrhash=$UH" 2>&1)
	assertEquals "setup root+usr: exit status ($out)" 1 $?
	assertNotContains "setup root+usr: not a configuration refusal" "$out" "standalone agent"
	assertContains "setup root+usr: the devices are waited for" "$out" "root: devices: device /dev/vda1 not found"
	policy_run "allow_unverified_root=yes" "$VI" setup --cmdline \
		"usrhash=$UH root=/dev/vdb verity.timeout=1" || return 0
	assertEquals "setup writable+usr: exit status ($OUT)" 1 "$RC"
	assertEquals "setup writable+usr: reason" "verity-init: a verified /usr under an unverified root= partition is booted by the standalone agent (PID 1) only; under dracut: a verified root (roothash=) or a tmpfs root (systemd.volatile=yes)" "$OUT"
}

testWritableRootNeedsThePolicysConsent() {
	v="usrhash=$UH root=/dev/disk/by-partlabel/root rw"
	policy_run "" "$VI" parse --cmdline "$v" || return 0
	assertEquals "no consent: exit status ($OUT)" 1 "$RC"
	assertEquals "no consent: reason" "verity-init: root=PARTLABEL=root is not verified, only /usr: its /etc, units and ld.so.preload are not checked; the initramfs policy does not allow it (allow_unverified_root=yes would)" "$(printf '%s\n' "$OUT" | tail -n 1)"
	out=$(with_policy "allow_unverified_root=yes" "$VI" parse --cmdline "$v" 2>&1)
	assertEquals "consent: exit status ($out)" 0 $?
	assertContains "$out" "
root=PARTLABEL=root
"
	assertContains "$out" "layout=writable+usr
rw=yes"
	policy_refuses "bad policy value" "allow_unverified_root=perhaps" "$v" \
		"allow_unverified_root: not yes or no"
}

# shellcheck disable=SC1091
. /usr/share/shunit2/shunit2
