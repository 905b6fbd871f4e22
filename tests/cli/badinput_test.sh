#!/bin/sh
# Bad input, end to end through `verity-init setup` / `verity-init parse` on the host: every case
# must be refused with exit status 1 and one line naming the reason, before any mapping exists.
# Device cases use loop devices (root, losetup); they are refused at the devices, superblock or
# sizes stage, so the host needs no device-mapper. The catalogue in docs/security.md points here.
# Environment: BUILD = build directory.
# shellcheck disable=SC2317  # test functions and helpers are called by shunit2

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
# shellcheck source=tests/cli/policy_lib.sh
. "$ROOT/tests/cli/policy_lib.sh"
VI=$BUILD/verity-init
VIMG=$BUILD/verity-image
BS=4096
NB=64                      # data blocks
HOFF=$((NB * BS))          # hash area right after the data
NAME=vitest$$              # never "root": a mapping must not clash with a real one

oneTimeSetUp() {
	W=$SHUNIT_TMPDIR
	SKIP_LOOP=""
	if [ ! -x "$VI" ] || [ ! -x "$VIMG" ]; then
		echo "verity-init/verity-image not built in $BUILD" >&2
		exit 1
	fi
	if [ "$(id -u)" -ne 0 ]; then
		SKIP_LOOP="not root"
	elif ! command -v losetup >/dev/null 2>&1; then
		SKIP_LOOP="no losetup"
	else
		truncate -s 1M "$W/probe"
		l=$(losetup --show -f "$W/probe" 2>/dev/null) || SKIP_LOOP="loop devices unavailable"
		[ -n "${l:-}" ] && losetup -d "$l"
	fi
	# One good image: data, then superblock + tree at HOFF (veritysetup layout).
	head -c $((NB * BS)) /dev/urandom >"$W/good"
	truncate -s $((2 * NB * BS)) "$W/good"
	"$VIMG" format "$W/good" "$W/good" --data-blocks $NB --hash-offset $HOFF \
		--root-hash-file "$W/rh" >/dev/null || { echo "format failed" >&2; exit 1; }
	RH=$(cat "$W/rh")
}

tearDown() {
	# loop() runs in $(...) subshells: the devices are recorded in a file, not a variable.
	if [ -f "$W/loops" ]; then
		while read -r l; do
			losetup -d "$l" 2>/dev/null
		done <"$W/loops"
		rm -f "$W/loops"
	fi
	rm -rf "/dev/shm/$NAME"
	if command -v dmsetup >/dev/null 2>&1; then
		dmsetup remove "$NAME" >/dev/null 2>&1
	fi
	return 0
}

# loop FILE : attach FILE read-only to a free loop device; prints the device.
loop() {
	# Another run may grab the same free device between find and attach: retry.
	for _ in 1 2 3 4 5 6 7 8; do
		l=$(losetup --show -f -r "$1" 2>/dev/null) && break
		l=""
		sleep 0.3
	done
	[ -n "$l" ] || { echo "losetup failed for $1" >&2; return 1; }
	echo "$l" >>"$W/loops"
	echo "$l"
}

need_loop() {
	if [ -n "$SKIP_LOOP" ]; then
		echo "skip: $SKIP_LOOP"
		startSkipping
		return 1
	fi
	return 0
}

# refused WHAT EXPECTED-SUBSTRING CMDLINE : `verity-init setup` must exit 1 with the reason.
refused() {
	out=$("$VI" setup --cmdline "verity.name=$NAME verity.timeout=1 $3" 2>&1)
	rc=$?
	assertEquals "$1: exit status (output: $out)" 1 "$rc"
	assertContains "$1: reason" "$out" "$2"
	assertFalse "$1: a mapping exists" "[ -e /dev/mapper/$NAME ]"
}

# refused_parse WHAT EXPECTED-SUBSTRING CMDLINE : `verity-init parse` must refuse as well.
refused_parse() {
	out=$("$VI" parse --cmdline "$3" 2>&1)
	rc=$?
	assertEquals "$1: exit status (output: $out)" 1 "$rc"
	assertContains "$1: reason" "$out" "$2"
}

# formatted NAME [OPTION...] : $W/NAME, NB blocks of random data, formatted by verity-image (with
# OPTIONs) into $W/NAME.h, the root hash in $W/NAME.rh
formatted() {
	_f=$W/$1
	shift
	head -c $((NB * BS)) /dev/urandom >"$_f"
	"$VIMG" format "$_f" "$_f.h" "$@" --root-hash-file "$_f.rh" >/dev/null
}

# sb_patch FILE OFFSET-IN-SB PRINTF-BYTES : overwrite bytes of the superblock at HOFF.
sb_patch() {
	# shellcheck disable=SC2059  # $3 is a printf format of octal escapes, by design
	printf "$3" | dd of="$1" bs=1 seek=$((HOFF + $2)) conv=notrunc status=none
}

testGoodImageReachesActivation() {
	# The control case: everything before device-mapper passes; on this host the failure, if
	# any, is at the activate stage (no dm in the kernel), never earlier.
	need_loop || return 0
	d=$(loop "$W/good")
	out=$("$VI" setup --cmdline "verity.name=$NAME verity.timeout=1 verity.roothash=$RH verity.data=$d verity.options=hash-offset=$HOFF" 2>&1)
	case $out in
	*": devices:"* | *": superblock:"* | *": sizes:"* | *": preflight:"* | *": config:"*)
		fail "good image refused before activation: $out" ;;
	esac
}

testHashAreaOverlappingDataRefused() {
	need_loop || return 0
	# Superblock says 64 data blocks, but the hash area starts at block 32 of the same device.
	formatted ovl --data-blocks "$NB"
	dd if="$W/ovl.h" of="$W/ovl" bs="$BS" seek=$((NB / 2)) conv=notrunc status=none
	d=$(loop "$W/ovl")
	refused "overlap" "overlaps the data area" \
		"verity.roothash=$(cat "$W/ovl.rh") verity.data=$d verity.options=hash-offset=$((NB * BS / 2))"
}

testTruncatedHashDeviceRefused() {
	need_loop || return 0
	formatted td
	truncate -s "$BS" "$W/td.h"      # superblock kept, tree cut off
	d=$(loop "$W/td")
	h=$(loop "$W/td.h")
	refused "truncated hash device" "beyond the end" \
		"verity.roothash=$(cat "$W/td.rh") verity.data=$d verity.hash=$h"
}

testDataDeviceSmallerThanSuperblockRefused() {
	need_loop || return 0
	formatted sd
	truncate -s $((NB * BS / 2)) "$W/sd"
	d=$(loop "$W/sd")
	h=$(loop "$W/sd.h")
	refused "data device too small" "is larger than" \
		"verity.roothash=$(cat "$W/sd.rh") verity.data=$d verity.hash=$h"
}

testAmbiguousLabelAndUuidRefused() {
	need_loop || return 0
	command -v mkfs.ext4 >/dev/null 2>&1 || { echo "skip: no mkfs.ext4"; return 0; }
	# A second device carrying the same filesystem (a rogue USB stick) must not win a race.
	u=$(cat /proc/sys/kernel/random/uuid)
	mkfs.ext4 -q -F -L "$NAME" -U "$u" "$W/fs1" 4M >/dev/null 2>&1 || { fail "mkfs.ext4"; return; }
	cp "$W/fs1" "$W/fs2"
	h=$(loop "$W/good")
	loop "$W/fs1" >/dev/null
	loop "$W/fs2" >/dev/null
	refused "ambiguous LABEL=" "matches more than one device" \
		"verity.roothash=$RH verity.data=LABEL=$NAME verity.hash=$h"
	refused "ambiguous UUID=" "matches more than one device" \
		"verity.roothash=$RH verity.data=UUID=$u verity.hash=$h"
}

testSymlinksInDevToNonBlockTargetsRefused() {
	need_loop || return 0
	h=$(loop "$W/good")
	mkdir -p "/dev/shm/$NAME"
	ln -s /etc/passwd "/dev/shm/$NAME/to-file"
	ln -s /dev/null "/dev/shm/$NAME/to-chardev"
	ln -s "/dev/shm/$NAME/to-file" "/dev/shm/$NAME/chain"
	: >"/dev/shm/$NAME/regular"
	for n in to-file to-chardev chain regular; do
		refused "/dev symlink $n" "is not a block device" \
			"verity.roothash=$RH verity.data=/dev/shm/$NAME/$n verity.hash=$h"
	done
}

testDevicePathsOutsideDevRefused() {
	refused_parse "path outside /dev" "under /dev/" \
		"verity.roothash=$RH verity.data=/etc/passwd verity.hash=/dev/vdb"
	refused_parse "dot-dot out of /dev" "'..'" \
		"verity.roothash=$RH verity.data=/dev/../etc/passwd verity.hash=/dev/vdb"
	refused_parse "relative path" "not /dev/..." \
		"verity.roothash=$RH verity.data=vda verity.hash=/dev/vdb"
}

# tampered CASE SB-OFFSET BYTES EXPECTED : a copy of the good image with a patched superblock.
tampered() {
	cp "$W/good" "$W/$1"
	sb_patch "$W/$1" "$2" "$3"
	d=$(loop "$W/$1")
	refused "superblock: $1" "$4" "verity.roothash=$RH verity.data=$d verity.options=hash-offset=$HOFF"
}

testTamperedSuperblocksRefused() {
	need_loop || return 0
	# offsets: magic 0, version 8, hash_type 12, algorithm 32, data bs 64, hash bs 68,
	# data_blocks 72, salt_size 80, salt 88, padding 344
	tampered magic 0 'VERITY' "bad magic"
	tampered version 8 '\002' "version 2"
	tampered hashtype 12 '\007' "hash type 7"
	tampered algorithm 32 'md5\000\000\000' "unknown hash algorithm 'md5'"
	tampered blocksize 64 '\270\013\000\000' "not a power of two"         # 3000
	tampered bigblock 64 '\000\000\020\000' "not a power of two"          # 1 MiB
	tampered saltsize 80 '\054\001' "salt size 300"                      # 300 > 256
	tampered overflow 72 '\000\000\000\000\000\000\020\000' "overflows 64 bits"  # 2^52 x 4096
	tampered zeroblocks 72 '\000\000\000\000\000\000\000\000' "data_blocks is zero"
	tampered padding 400 '\001' "reserved superblock bytes"
}

testDiskStringsAreSanitized() {
	need_loop || return 0
	cp "$W/good" "$W/esc"
	# An algorithm name with terminal escapes and a kmsg-style newline.
	sb_patch "$W/esc" 32 'sha\033[2J\033]0;pwn\007\n<0>x'
	d=$(loop "$W/esc")
	out=$("$VI" setup --cmdline "verity.name=$NAME verity.timeout=1 verity.roothash=$RH verity.data=$d verity.options=hash-offset=$HOFF" 2>&1)
	assertEquals "refused" 1 $?
	assertContains "the name is shown escaped" "$out" '\x1b'
	printf '%s' "$out" | LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" &&
		fail "control bytes from the disk reached the output: $(printf '%s' "$out" | od -c | head -5)"
	assertEquals "one line" 1 "$(printf '%s\n' "$out" | wc -l)"
	# The host tool too.
	out=$("$VIMG" dump "$W/esc" --hash-offset "$HOFF" 2>&1)
	printf '%s' "$out" | LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" &&
		fail "verity-image dump printed control bytes from the disk"
	return 0
}

testSuperblockContradictingCommandLineRefused() {
	need_loop || return 0
	d=$(loop "$W/good")
	refused "hash= vs superblock" "hash" \
		"verity.roothash=$(printf '%040d' 0) verity.data=$d verity.options=hash-offset=$HOFF,hash=sha1"
	refused "data-block-size= vs superblock" "data-block-size" \
		"verity.roothash=$RH verity.data=$d verity.options=hash-offset=$HOFF,data-block-size=1024"
	refused "salt= vs superblock" "salt" \
		"verity.roothash=$RH verity.data=$d verity.options=hash-offset=$HOFF,salt=00"
}

testFewerDataBlocksRefusedWithoutPolicy() {
	# Lowering data_blocks truncates the device while the root hash still verifies.
	need_loop || return 0
	d=$(loop "$W/good")
	refused "data-blocks below the superblock's" "data-blocks" \
		"verity.roothash=$RH verity.data=$d verity.options=hash-offset=$HOFF,data-blocks=$((NB / 2))"
}

testWeakeningOptionsRefusedWithoutPolicy() {
	[ ! -e /etc/verity-init.conf ] || { echo "skip: host has /etc/verity-init.conf"; return 0; }
	base="verity.roothash=$RH verity.data=/dev/vda verity.options=hash-offset=$HOFF"
	for w in ignore-corruption check-at-most-once ignore-zero-blocks; do
		refused "weakening $w" "$w" "$base,$w"
	done
	refused "superblock=false" "no-superblock" \
		"verity.roothash=$RH verity.data=/dev/vda verity.options=hash-offset=$HOFF,superblock=false,data-blocks=$NB,salt=-"
	out=$("$VI" setup --cmdline "systemd.verity=0" 2>&1)
	assertEquals "systemd.verity=0: exit status (output: $out)" 1 $?
	assertContains "systemd.verity=0: reason" "$out" "verity-off"
}

testShellNeverFromTheCommandLineAlone() {
	[ ! -e /etc/verity-init.conf ] || { echo "skip: host has /etc/verity-init.conf"; return 0; }
	out=$("$VI" parse --cmdline "verity.roothash=$RH verity.data=/dev/vda verity.options=hash-offset=$HOFF verity.fail=shell,reboot" 2>/dev/null)
	assertContains "shell dropped, reboot kept" "$out" "
fail=reboot
"
	out=$("$VI" parse --cmdline "verity.roothash=$RH verity.data=/dev/vda verity.options=hash-offset=$HOFF verity.fail=shell" 2>/dev/null)
	assertContains "shell alone becomes panic" "$out" "
fail=panic
"
}

# A refused command line is not used at all: `parse --shell` (what the dracut hooks eval) exits 1
# and prints the defaults plus the policy instead, never the refused line's fail list or root.
testRefusedCommandLineIsNotUsed() {
	[ ! -e /etc/verity-init.conf ] || { echo "skip: host has /etc/verity-init.conf"; return 0; }
	local rc
	out=$("$VI" parse --shell --cmdline "verity.roothash=$RH verity.data=/dev/vda verity.options=ignore-corruption verity.fail=reboot verity.recovery.roothash=$RH verity.recovery.data=/dev/vdc" 2>/dev/null)
	rc=$?
	assertEquals "refused" 1 "$rc"
	assertContains "$out" "VERITY_FAIL='panic'"
	assertContains "$out" "VERITY_ENABLED='0'"
	assertContains "$out" "VERITY_RECOVERY_ENABLED='0'"
	assertNotContains "$out" "reboot"
	assertNotContains "$out" "$RH"
}

testCommandLineSyntaxRefused() {
	big=$(head -c 5000 /dev/zero | tr '\0' 'a')
	refused_parse "oversized command line" "longer than 4096" "x=$big"
	refused_parse "unknown option word" "panic-on-corrupton" \
		"verity.roothash=$RH verity.data=/dev/vda verity.options=hash-offset=$HOFF,panic-on-corrupton"
	refused_parse "option twice, different values" "hash-offset" \
		"verity.roothash=$RH verity.data=/dev/vda verity.options=hash-offset=$HOFF,hash-offset=0"
	refused_parse "root hash twice, different values" "different values" \
		"roothash=$RH verity.roothash=$(printf '%064d' 1) verity.data=/dev/vda verity.hash=/dev/vdb"
	refused_parse "non-hex root hash" "not hex" \
		"verity.roothash=$(printf '%063dz' 0) verity.data=/dev/vda verity.hash=/dev/vdb"
	refused_parse "root hash of the wrong length" "digest size" \
		"verity.roothash=${RH}00 verity.data=/dev/vda verity.hash=/dev/vdb"
	refused_parse "unknown key in our namespace" "unknown key" "verity.rootash=$RH"
}

# A device derived from the root hash (systemd's rule) that never appears: the timeout says so,
# and only then: a given device that is missing is named as given.
testMissingDerivedPartitionNamed() {
	rh7=$(printf '%064d' 7)
	out=$("$VI" setup --cmdline "verity.name=$NAME verity.timeout=1 roothash=$rh7 verity.data=/dev/null-not-there" 2>&1)
	assertEquals "given data device missing: exit status ($out)" 1 $?
	assertContains "given data device missing: named" "$out" "/dev/null-not-there not found"
	assertNotContains "given data device missing: no derivation hint" "$out" "named after the root hash"
	need_loop || return
	d=$(loop "$W/good") || { fail "loop"; return; }
	refused "derived hash partition missing" \
		"no device matches PARTUUID=00000000-0000-0000-0000-000000000007 after 1 s (a device not given is the partition named after the root hash" \
		"roothash=$rh7 verity.data=$d"
}

# Root options that would fail only after the switch, or let something else in: rw by key
# (the kernel reads "rw=1" in the mount data as rw), noexec, f2fs (a multi-device f2fs opens
# devices by the paths in its superblock), an init= under what the switch mounts over the root.
testRootOptionsRefused() {
	v="verity.roothash=$RH verity.data=/dev/vda verity.hash=/dev/vdb"
	refused_parse "rootflags=rw=1" "rootflags=rw=1: a verity root is read-only" "$v rootflags=rw=1"
	refused_parse "rootflags=rw=" "a verity root is read-only" "$v rootflags=noatime,rw="
	refused_parse "rootflags=noexec" "rootflags=noexec: init could not be executed" \
		"$v rootflags=noexec"
	refused_parse "rootfstype=f2fs" "rootfstype=f2fs is not a single-device filesystem" \
		"$v rootfstype=f2fs"
	refused_parse "rootflags=X-mount.idmap=" \
		"rootflags=X-mount.idmap=u:0:1000:1 gives the verified files other owners" \
		"$v rootflags=noatime,X-mount.idmap=u:0:1000:1"
	refused_parse "mount.usrflags=X-mount.idmap=" "gives the verified files other owners" \
		"$v usrhash=$RH systemd.verity_usr_data=/dev/vdc systemd.verity_usr_hash=/dev/vdd mount.usrflags=X-mount.idmap=u:0:1000:1"
	refused_parse "init under /run" "under /dev, /proc, /sys or /run" "$v init=/run/init"
	refused_parse "init under /dev" "under /dev, /proc, /sys or /run" "$v init=/dev/shm/sh"
}

# systemd.volatile=yes is a tmpfs root under a verified /usr: with a verified root and no /usr it
# is refused by parse and by setup (no mapping made), whatever name it comes under; overlay and
# state parse.
testVolatileYesRefused() {
	v="verity.roothash=$RH verity.data=/dev/vda verity.hash=/dev/vdb"
	why="a tmpfs root (systemd.volatile=yes) needs a verified /usr (usrhash=)"
	refused_parse "systemd.volatile=yes" "verity-init: $why" "$v systemd.volatile=yes"
	refused_parse "bare systemd.volatile" "$why" "$v systemd.volatile"
	refused_parse "rd.verity.volatile=on" "$why" "$v rd.verity.volatile=on"
	refused "setup with systemd.volatile=yes" "$why" "$v systemd.volatile=yes"
	refused_parse "verity.volatile=state alone" "give systemd.volatile=state" \
		"$v verity.volatile=state"
	for m in overlay state no; do
		out=$("$VI" parse --cmdline "$v systemd.volatile=$m" 2>&1)
		assertEquals "systemd.volatile=$m parses ($out)" 0 $?
		assertContains "systemd.volatile=$m printed" "$out" "
volatile=$m
"
	done
}

# `parse` prints a refusal once, as its last line "verity-init: REASON" (the dracut hooks read
# that line); other records carry the agent's pid, never 0.
testRefusalPrintedOnce() {
	err=$("$VI" parse --cmdline "verity.rootash=$RH" 2>&1 >/dev/null)
	assertEquals "one line" 1 "$(printf '%s\n' "$err" | wc -l)"
	assertContains "$err" "verity-init: unknown key 'verity.rootash'"
	err=$("$VI" parse --cmdline "verity.roothash=$RH verity.data=/dev/vda verity.hash=/dev/vdb verity.fail=shell,reboot" 2>&1 >/dev/null)
	assertContains "$err" "fail action shell dropped"
	assertNotContains "no pid 0 in a record" "$err" "verity-init[0]"
	# `setup` without /dev/kmsg (its records then go to stderr): still one line
	if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
		# shellcheck disable=SC2016  # expanded by the inner sh
		err=$(unshare -m sh -c 'mount -t tmpfs none /dev && exec "$1" setup --cmdline "$2"' \
			sh "$VI" "verity.rootash=$RH" 2>&1 >/dev/null)
		assertEquals "setup without /dev/kmsg: one line ($err)" \
			"verity-init: unknown key 'verity.rootash'" "$err"
		# and a failed activation (its kmsg record is the line)
		# shellcheck disable=SC2016  # expanded by the inner sh
		err=$(unshare -m sh -c 'mount -t tmpfs none /dev && exec "$1" setup --cmdline "$2"' \
			sh "$VI" "verity.roothash=$RH verity.data=/dev/vi-absent verity.timeout=1" 2>&1 >/dev/null)
		assertEquals "failed activation without /dev/kmsg: one line ($err)" 1 \
			"$(printf '%s\n' "$err" | wc -l)"
		assertContains "$err" "device /dev/vi-absent not found after 1 s"
	else
		echo "skip: setup without /dev/kmsg needs root and unshare"
	fi
}

# /proc/cmdline unreadable: a reason for the status file and the policy's fail actions, as for
# a refused command line (here `parse`, which reads it the same way PID 1 does).
testUnreadableCommandLineTakesThePolicy() {
	out=$(with_policy "fail=reboot" --no-cmdline "$VI" parse --shell 2>"$W/err")
	rc=$?
	if [ "$rc" -eq 77 ]; then echo "skip: no mount namespace or overlayfs"; return 0; fi
	assertEquals "refused" 1 "$rc"
	assertEquals "the reason, once" "verity-init: cannot read /proc/cmdline: Permission denied" \
		"$(cat "$W/err")"
	assertContains "the policy's fail actions" "$out" "VERITY_FAIL='reboot'"
	assertContains "$out" "VERITY_ENABLED='0'"
}

# The policy's init= is the only init= the command line may give: init= is not covered by the
# root hash or a signature, and init=/bin/sh on the verified root would be a shell.
testPolicyInitPinsInit() {
	v="verity.roothash=$RH verity.data=/dev/vda verity.hash=/dev/vdb"
	policy_run "init=/usr/lib/systemd/systemd" "$VI" parse --cmdline "$v init=/bin/sh" || return 0
	assertEquals "other init= refused ($OUT)" 1 "$RC"
	assertEquals "verity-init: init=/bin/sh: the initramfs policy allows only init=/usr/lib/systemd/systemd (or none: /sbin/init)" "$OUT"
	out=$(with_policy "init=/usr/lib/systemd/systemd" "$VI" parse --cmdline "$v init=/usr/lib/systemd/systemd" 2>&1)
	assertEquals "the same init= ($out)" 0 $?
	assertContains "$out" "
init=/usr/lib/systemd/systemd
"
	out=$(with_policy "init=/usr/lib/systemd/systemd" "$VI" parse --cmdline "$v" 2>&1)
	assertEquals "no init= ($out)" 0 $?
	assertContains "the default, as the kernel and dracut run it" "$out" "
init=/sbin/init
"
}

# dracut's getarg reads the words after "--" too: parse and setup (the module's calls) do as well
testWordsAfterDoubleDashReadAsDracutDoes() {
	# after "--" the kernel hands the words to init, but dracut's getarg and systemd read them
	# as settings: a key that matters there is refused, whatever it is
	refused_parse "real_init= after --" "'real_init' after '--'" \
		"verity.roothash=$RH verity.data=/dev/vda verity.hash=/dev/vdb -- real_init=/bin/sh"
	refused_parse "rd.break after --" "'rd.break' after '--'" \
		"verity.roothash=$RH verity.data=/dev/vda verity.hash=/dev/vdb -- rd.break=pre-pivot"
	refused_parse "init= after --" "'init' after '--'" \
		"verity.roothash=$RH verity.data=/dev/vda verity.hash=/dev/vdb -- init=/bin/other"
	out=$("$VI" parse --cmdline "verity.roothash=$RH verity.data=/dev/vda verity.hash=/dev/vdb -- arg other=x" 2>&1)
	assertEquals "init's own arguments accepted ($out)" 0 $?
}

# shellcheck disable=SC1091
. /usr/share/shunit2/shunit2
