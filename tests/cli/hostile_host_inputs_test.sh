#!/bin/bash
# The host tools on inputs that come from elsewhere (docs/security.md, "Host tools: threat
# model"): verity-image's bundle, manifest, key and signature files longer than its buffers,
# FIFOs and other non-files in every input position (each run bounded by `timeout`), outputs
# that are symlinks, `sign --embed` on a hash device whose FEC parity the bundle would
# destroy; verity-init-mkinitramfs on a target tree whose modules and modprobe.d files are
# symlinks out of the tree or not modules at all, and the module options it writes.
# Under check-sanitize the same runs go through the ASan+UBSan build.
# Environment: BUILD = absolute build directory.
# shellcheck disable=SC2317  # test functions and helpers are called by shunit2

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
# shellcheck source=tests/cli/mkinitramfs_lib.sh
. "$ROOT/tests/cli/mkinitramfs_lib.sh"
VI=$BUILD/verity-image
MKRD=${MKRD:-$ROOT/verity-init/mkinitramfs/verity-init-mkinitramfs.sh}
BUNDLE_MAX=8192
# a run that hangs is killed after this many seconds; exit status 124 then
LIMIT=10

oneTimeSetUp() {
	[ -x "$VI" ] || { echo "verity-image not built: $VI" >&2; exit 1; }
	for t in minisign openssl timeout; do
		command -v "$t" >/dev/null || { echo "$t missing" >&2; exit 1; }
	done
	W=$SHUNIT_TMPDIR
	minisign -G -W -p "$W/k.pub" -s "$W/k.key" >/dev/null || exit 1
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$W/p7.key" -out "$W/p7.crt" \
		-days 2 -subj "/CN=verity-init hostile_host_inputs_test" 2>/dev/null || exit 1
	head -c $((256 * 4096)) /dev/urandom >"$W/data.img"
	"$VI" format "$W/data.img" "$W/hash.img" --root-hash-file "$W/rh" >/dev/null || exit 1
	# the hash file ends with the tree: its size is where an embedded bundle goes
	TREE_END=$(stat -c %s "$W/hash.img")
	"$VI" sign "$W/hash.img" --data-device /dev/vda --hash-device /dev/vdb \
		--minisign-key "$W/k.key" --version 3 --bundle "$W/bundle" \
		--manifest "$W/m" >/dev/null || exit 1
	mkfifo "$W/fifo"
	# verity-init-mkinitramfs: this machine's kernel modules and a static stand-in agent
	KVER=$(mkrd_pick_kver)
	[ -n "$KVER" ] || { echo "no kernel modules installed (tests/deps.sh installs linux-image-amd64)" >&2; exit 1; }
	printf 'int main(void) { return 0; }\n' >"$W/agent.c"
	cc -static -o "$W/agent" "$W/agent.c" || { echo "cannot build a static program" >&2; exit 1; }
	echo "root:\$y\$secret-hash:19000:0:99999:7:::" >"$W/secret"
}

# run CMD... : bounded by LIMIT seconds; status in RC, stderr+stdout in $W/out
run() {
	timeout "$LIMIT" "$@" >"$W/out" 2>&1
	RC=$?
}

# --- the bundle reader at and around its buffer's size -------------------------------------------

testBundleLargerThanBufferAccepted() {
	local img
	assertEquals "the bundle file is the buffer's size" $BUNDLE_MAX "$(stat -c %s "$W/bundle")"
	# a partition image: the bundle, then zeros to the partition's end
	for img in 8193 12288 1048576; do
		cp "$W/bundle" "$W/part.$img"
		truncate -s "$img" "$W/part.$img"
		run "$VI" check-manifest "$W/part.$img" --bundle --public-key "$W/k.pub"
		assertEquals "zero-padded partition image of $img bytes accepted: $(cat "$W/out")" 0 "$RC"
		assertContains "$img bytes: verified" "$(cat "$W/out")" "verified=yes"
	done
	# what follows the bundle region is not looked at
	{ cat "$W/bundle"; head -c 4096 /dev/urandom; } >"$W/part.junk"
	run "$VI" check-manifest "$W/part.junk" --bundle --public-key "$W/k.pub"
	assertEquals "bytes after the region ignored: $(cat "$W/out")" 0 "$RC"
}

testHostileLongBundleRefused() {
	local n
	for n in 8191 8192 8193 65536; do
		head -c "$n" /dev/zero | tr '\0' 'A' >"$W/hostile.$n"
		run "$VI" check-manifest "$W/hostile.$n" --bundle --public-key "$W/k.pub"
		assertEquals "$n bytes of junk: refused as malformed: $(cat "$W/out")" 4 "$RC"
	done
}

# Each file that must fit its buffer is refused when one byte longer, accepted at its limit.
testInputFilesAtTheirLimits() {
	# a manifest of 4096 bytes (VI_MANIFEST_MAX) is read whole; one more byte is too large
	head -c 4097 /dev/zero | tr '\0' '#' >"$W/big.m"
	cp "$W/m.minisig" "$W/big.m.minisig"
	run "$VI" check-manifest "$W/big.m" --public-key "$W/k.pub"
	assertEquals "4097-byte manifest: refused: $(cat "$W/out")" 4 "$RC"
	assertContains "said why" "$(cat "$W/out")" "too large"
	# a key file padded past any minisign file: refused, not truncated into a valid key
	{ cat "$W/k.pub"; head -c 8192 /dev/zero | tr '\0' '\n'; } >"$W/long.pub"
	run "$VI" check-manifest "$W/m" --public-key "$W/long.pub"
	assertNotEquals "overlong public key file: refused: $(cat "$W/out")" 0 "$RC"
	assertTrue "no crash: $RC" "[ $RC -lt 124 ]"
	{ cat "$W/m.minisig"; head -c 8192 /dev/zero | tr '\0' '\n'; } >"$W/long.sig"
	run "$VI" check-manifest "$W/m" --signature "$W/long.sig" --public-key "$W/k.pub"
	assertNotEquals "overlong signature file: refused: $(cat "$W/out")" 0 "$RC"
	assertTrue "no crash: $RC" "[ $RC -lt 124 ]"
}

# --- FIFOs and other non-files as inputs -----------------------------------------------------------

# refused_input WHAT CMD... : the run ends within LIMIT, refused with exit 3 and the reason
refused_input() {
	local what=$1
	shift
	run "$@"
	assertNotEquals "$what: does not hang" 124 "$RC"
	assertEquals "$what: refused with exit 3: $(cat "$W/out")" 3 "$RC"
	assertContains "$what: says why" "$(cat "$W/out")" "not a regular file or block device"
}

testFifoInputsRefused() {
	local f=$W/fifo rh
	rh=$(cat "$W/rh")
	refused_input "verify DATA" "$VI" verify "$f" "$W/hash.img" "$rh"
	refused_input "verify HASH" "$VI" verify "$W/data.img" "$f" "$rh"
	refused_input "verify --root-hash-file" "$VI" verify "$W/data.img" "$W/hash.img" \
		--root-hash-file "$f"
	refused_input "verify --fec-device" "$VI" verify "$W/data.img" "$W/hash.img" "$rh" \
		--fec-device "$f"
	refused_input "dump HASH" "$VI" dump "$f"
	refused_input "dump --fec-device" "$VI" dump "$W/hash.img" --fec-device "$f"
	refused_input "format DATA" "$VI" format "$f" "$W/h.out"
	refused_input "format HASH" "$VI" format "$W/data.img" "$f"
	refused_input "format --fec-device" "$VI" format "$W/data.img" "$W/h.out" --fec-device "$f"
	refused_input "cmdline HASH" "$VI" cmdline "$f" /dev/vda /dev/vdb "$rh"
	refused_input "cmdline --root-hash-file" "$VI" cmdline "$W/hash.img" /dev/vda /dev/vdb \
		--root-hash-file "$f"
	refused_input "check-manifest MANIFEST" "$VI" check-manifest "$f" --public-key "$W/k.pub" \
		--signature "$W/m.minisig"
	refused_input "check-manifest --bundle" "$VI" check-manifest "$f" --bundle \
		--public-key "$W/k.pub"
	refused_input "check-manifest --embedded" "$VI" check-manifest "$f" --embedded \
		--public-key "$W/k.pub"
	refused_input "check-manifest --public-key" "$VI" check-manifest "$W/m" --public-key "$f"
	refused_input "check-manifest --signature" "$VI" check-manifest "$W/m" --signature "$f" \
		--public-key "$W/k.pub"
	refused_input "sign HASH" "$VI" sign "$f" --data-device /dev/vda \
		--minisign-key "$W/k.key" --version 1 --manifest "$W/x.m"
	refused_input "sign --embed HASH" "$VI" sign "$f" --data-device /dev/vda \
		--minisign-key "$W/k.key" --version 1 --embed
	refused_input "sign --minisign-key" "$VI" sign "$W/hash.img" --data-device /dev/vda \
		--minisign-key "$f" --version 1 --manifest "$W/x.m"
	refused_input "sign --pkcs7-key" "$VI" sign "$W/hash.img" --data-device /dev/vda \
		--pkcs7-key "$f" --pkcs7-cert "$W/p7.crt" --p7s "$W/x.p7s"
	refused_input "sign --pkcs7-cert" "$VI" sign "$W/hash.img" --data-device /dev/vda \
		--pkcs7-key "$W/p7.key" --pkcs7-cert "$f" --p7s "$W/x.p7s"
}

testDirectoryAndCharDeviceInputsRefused() {
	refused_input "dump of a directory" "$VI" dump "$W"
	refused_input "check-manifest --bundle of /dev/zero" "$VI" check-manifest /dev/zero \
		--bundle --public-key "$W/k.pub"
	refused_input "public key /dev/zero" "$VI" check-manifest "$W/m" --public-key /dev/zero
}

# --- outputs that are symlinks ---------------------------------------------------------------------

testSymlinkOutputsRefused() {
	echo "precious" >"$W/precious"
	ln -sf "$W/precious" "$W/link"
	run "$VI" sign "$W/hash.img" --data-device /dev/vda --hash-device /dev/vdb --minisign-key "$W/k.key" --version 1 \
		--manifest "$W/link"
	assertEquals "sign --manifest through a symlink: refused: $(cat "$W/out")" 3 "$RC"
	run "$VI" sign "$W/hash.img" --data-device /dev/vda --hash-device /dev/vdb --minisign-key "$W/k.key" --version 1 \
		--bundle "$W/link"
	assertEquals "sign --bundle through a symlink: refused: $(cat "$W/out")" 3 "$RC"
	run "$VI" sign "$W/hash.img" --data-device /dev/vda --hash-device /dev/vdb --pkcs7-key "$W/p7.key" \
		--pkcs7-cert "$W/p7.crt" --p7s "$W/link"
	assertEquals "sign --p7s through a symlink: refused: $(cat "$W/out")" 3 "$RC"
	run "$VI" format "$W/data.img" "$W/h2.img" --root-hash-file "$W/link"
	assertEquals "format --root-hash-file through a symlink: refused: $(cat "$W/out")" 3 "$RC"
	assertTrue "the symlink is still a symlink" "[ -L '$W/link' ]"
	assertEquals "its target untouched" "precious" "$(cat "$W/precious")"
	# the hash device itself may be a symlink, as /dev/disk/by-partlabel/... are
	ln -sf "$W/h3.img" "$W/hlink"
	run "$VI" format "$W/data.img" "$W/hlink" --root-hash-file "$W/rh3"
	assertEquals "format HASH through a symlink: written: $(cat "$W/out")" 0 "$RC"
	assertTrue "still a symlink" "[ -L '$W/hlink' ]"
	assertTrue "verifies" "'$VI' verify '$W/data.img' '$W/h3.img' \"\$(cat '$W/rh3')\" >/dev/null"
}

# --- sign --embed and FEC parity ----------------------------------------------------------------

# FEC parity on the hash device right after the tree (where format accepts it): the bundle
# would land on the parity.
testEmbedRefusedOverFecOnHashDevice() {
	local rh
	cp "$W/hash.img" "$W/fh.img"
	"$VI" format "$W/data.img" "$W/fh.img" --fec-device "$W/fh.img" --fec-offset "$TREE_END" \
		--root-hash-file "$W/frh" >/dev/null || { fail "format with FEC"; return; }
	rh=$(cat "$W/frh")
	cp "$W/fh.img" "$W/fh.orig"
	run "$VI" sign "$W/fh.img" --data-device /dev/vda --hash-device /dev/vdb \
		--fec-device /dev/vdb --fec-offset "$TREE_END" --fec-roots 2 \
		--minisign-key "$W/k.key" --version 1 --embed
	assertEquals "sign --embed over the parity: refused: $(cat "$W/out")" 4 "$RC"
	assertContains "says FEC" "$(cat "$W/out")" "FEC"
	assertTrue "hash device untouched" "cmp -s '$W/fh.img' '$W/fh.orig'"
	run "$VI" verify "$W/data.img" "$W/fh.img" "$rh" --fec-device "$W/fh.img" \
		--fec-offset "$TREE_END"
	assertEquals "parity still verifies: $(cat "$W/out")" 0 "$RC"
	# FEC further on: the bundle would lie in the hash-device range the parity covers
	cp "$W/hash.img" "$W/fh2.img"
	"$VI" format "$W/data.img" "$W/fh2.img" --fec-device "$W/fh2.img" \
		--fec-offset $((TREE_END + 65536)) --root-hash-file "$W/frh2" >/dev/null ||
		{ fail "format with FEC further on"; return; }
	run "$VI" sign "$W/fh2.img" --data-device /dev/vda --hash-device /dev/vdb \
		--fec-device /dev/vdb --fec-offset $((TREE_END + 65536)) \
		--minisign-key "$W/k.key" --version 1 --embed
	assertEquals "sign --embed into the range FEC covers: refused: $(cat "$W/out")" 4 "$RC"
}

# FEC on a device of its own still covers the hash device up to its end.
testEmbedRefusedWithFecElsewhere() {
	cp "$W/hash.img" "$W/fe.img"
	run "$VI" sign "$W/fe.img" --data-device /dev/vda --hash-device /dev/vdb \
		--fec-device /dev/vdc --minisign-key "$W/k.key" --version 1 --embed
	assertEquals "sign --embed with FEC on another device: refused: $(cat "$W/out")" 4 "$RC"
	assertTrue "hash device untouched" "cmp -s '$W/fe.img' '$W/hash.img'"
	# a bundle partition is the way to have both
	run "$VI" sign "$W/fe.img" --data-device /dev/vda --hash-device /dev/vdb \
		--fec-device /dev/vdc --minisign-key "$W/k.key" --version 1 --bundle "$W/fe.bundle"
	assertEquals "--bundle with FEC: fine: $(cat "$W/out")" 0 "$RC"
}

# The hash area on the data device, right after the data: the bundle goes after the tree.
testEmbedOnSharedDeviceStillWorks() {
	local hoff=$((256 * 4096))
	cp "$W/data.img" "$W/shared.img"
	"$VI" format "$W/shared.img" "$W/shared.img" --data-blocks 256 --hash-offset $hoff \
		>/dev/null || { fail "format shared"; return; }
	run "$VI" sign "$W/shared.img" --hash-offset $hoff --data-device /dev/vda \
		--minisign-key "$W/k.key" --version 1 --embed
	assertEquals "embed after the tree on the data device: $(cat "$W/out")" 0 "$RC"
	run "$VI" check-manifest "$W/shared.img" --embedded --hash-offset $hoff --public-key "$W/k.pub"
	assertEquals "found again: $(cat "$W/out")" 0 "$RC"
}

# --- verity-init-mkinitramfs on a target tree it did not write -----------------------------------

# mk ARGS... : the builder with the stand-in agent and this kernel, bounded; RC, $W/out
mk() {
	run "$MKRD" -k "$KVER" -a "$W/agent" "$@"
}

# tree DIR MODULE... : mkrd_fake_tree for the kernel of this test
tree() {
	mkrd_fake_tree "$KVER" "$@"
}

# refused_tree WHAT WORDS ARGS... : the build from the tree ends within LIMIT with exit 1, the
# message holds WORDS, no output image, and the secret is nowhere
refused_tree() {
	local what=$1 words=$2
	shift 2
	rm -f "$W/rd"
	mk "$@" "$W/rd"
	assertNotEquals "$what: does not hang" 124 "$RC"
	assertEquals "$what: refused: $(cat "$W/out")" 1 "$RC"
	assertContains "$what: says why" "$(cat "$W/out")" "$words"
	assertFalse "$what: no image" "[ -e '$W/rd' ]"
}

testModuleSymlinksOutOfTheTreeRefused() {
	local b=$W/t1 ko
	tree "$b" crc16 || { fail "fake tree"; return; }
	ko=$b/lib/modules/$KVER/kernel/lib/crc16.ko
	ln -sf "$W/secret" "$ko"
	refused_tree "absolute symlink to a host file" "leads out of" \
		-b "$b" --no-base-modules -f "" -m crc16 -z none
	ln -sf ../../../../../../secret "$ko"
	assertTrue "the relative link does reach the secret" "cmp -s '$ko' '$W/secret'"
	refused_tree "relative symlink with .. out of the tree" "leads out of" \
		-b "$b" --no-base-modules -f "" -m crc16 -z none
	# a directory on the way that links out of the tree
	tree "$b" crc16 || { fail "fake tree"; return; }
	mkdir -p "$W/hostlib"
	cp "$W/secret" "$W/hostlib/crc16.ko"
	rm -rf "$b/lib/modules/$KVER/kernel/lib"
	ln -s "$W/hostlib" "$b/lib/modules/$KVER/kernel/lib"
	refused_tree "directory symlink out of the tree" "leads out of" \
		-b "$b" --no-base-modules -f "" -m crc16 -z none
}

testModuleSymlinkInsideTheTreeFollowed() {
	local b=$W/t2 ko src
	tree "$b" crc16 || { fail "fake tree"; return; }
	ko=$b/lib/modules/$KVER/kernel/lib/crc16.ko
	mkdir -p "$b/store"
	mv "$ko" "$b/store/crc16.ko"
	ln -s ../../../../../store/crc16.ko "$ko"
	mk -b "$b" --no-base-modules -f "" -m crc16 -z none "$W/rd"
	assertEquals "a link that stays in the tree: built: $(cat "$W/out")" 0 "$RC"
	src=$(modprobe -S "$KVER" --show-depends crc16 | awk '$1 == "insmod" { print $2 }')
	cpio -i --quiet --to-stdout "lib/modules/$KVER/kernel/lib/crc16.ko" <"$W/rd" >"$W/ko"
	assertTrue "the module the link names" "cmp -s '$W/ko' '$src'"
}

testNonModulesRefused() {
	local b=$W/t3 ko
	tree "$b" crc16 || { fail "fake tree"; return; }
	ko=$b/lib/modules/$KVER/kernel/lib/crc16.ko
	cp "$W/secret" "$ko"
	refused_tree "a text file as a module" "not an ELF kernel module" \
		-b "$b" --no-base-modules -f "" -m crc16 -z none
	# an ELF file that is no module: a program
	cp "$W/agent" "$ko"
	refused_tree "an ELF program as a module" "not an ELF kernel module" \
		-b "$b" --no-base-modules -f "" -m crc16 -z none
	# compressed: checked after decompression
	tree "$b" crc16 || { fail "fake tree"; return; }
	cp "$W/secret" "$ko" && xz -f "$ko" && depmod -b "$b" "$KVER" 2>/dev/null
	refused_tree "an .ko.xz holding a text file" "not an ELF kernel module" \
		-b "$b" --no-base-modules -f "" -m crc16 -z none
	# kept compressed (the kernel's config decompresses xz): the copy in the image is checked
	mkdir -p "$b/boot" && printf '%s=y\n' CONFIG_BLK_DEV_INITRD CONFIG_DEVTMPFS \
		CONFIG_MODULE_DECOMPRESS CONFIG_MODULE_COMPRESS_XZ >"$b/boot/config-$KVER"
	refused_tree "an .ko.xz holding a text file, kept as shipped" "not an ELF kernel module" \
		-b "$b" --no-base-modules -f "" -m crc16 -z none
	tree "$b" crc16 || { fail "fake tree"; return; }
	rm -f "$ko" && mkfifo "$ko"
	refused_tree "a FIFO as a module" "not a regular file" \
		-b "$b" --no-base-modules -f "" -m crc16 -z none
}

# A module kept compressed is checked in the copy the image holds: a source that changes after
# the tool read it (here: xz swaps it for a text file once it has run) cannot slip in.
testKeptModuleCheckedInTheImage() {
	local b=$W/t6 ko bin=$W/swapbin
	tree "$b" crc16 || { fail "fake tree"; return; }
	ko=$b/lib/modules/$KVER/kernel/lib/crc16.ko
	xz --check=crc32 -f "$ko" && depmod -b "$b" "$KVER" 2>/dev/null
	mkdir -p "$b/boot" "$bin" && printf '%s=y\n' CONFIG_BLK_DEV_INITRD CONFIG_DEVTMPFS \
		CONFIG_MODULE_DECOMPRESS CONFIG_MODULE_COMPRESS_XZ >"$b/boot/config-$KVER"
	xz --check=crc32 -c "$W/secret" >"$W/swapped.xz"
	# shellcheck disable=SC2016  # the wrapper's own $@ and $?
	printf '#!/bin/sh\n%s "$@"\nrc=$?\ncp "%s" "%s"\nexit $rc\n' "$(command -v xz)" \
		"$W/swapped.xz" "$ko.xz" >"$bin/xz"
	chmod +x "$bin/xz"
	rm -f "$W/rd"
	PATH=$bin:$PATH mk -b "$b" --no-base-modules -f "" -m crc16 -z none "$W/rd"
	assertEquals "built: $(cat "$W/out")" 0 "$RC"
	mkdir -p "$W/t6x" && (cd "$W/t6x" && cpio -idm --quiet <"$W/rd")
	assertEquals "the image holds the module as checked, not the swapped file" \
		"$(printf '\177ELF')" "$(xz -dc "$(find "$W/t6x" -name 'crc16.ko.xz')" | head -c 4)"
}

testModprobeDirOutOfTheTreeRefused() {
	local b=$W/t4
	tree "$b" crc16 || { fail "fake tree"; return; }
	mkdir -p "$b/etc/modprobe.d" "$W/hostconf"
	printf 'options crc16 leaked=1\n' >"$W/hostconf/host.conf"
	ln -s "$W/hostconf/host.conf" "$b/etc/modprobe.d/evil.conf"
	refused_tree "modprobe.d file linking out of the tree" "leads out of" \
		-b "$b" --no-base-modules -f "" -m crc16 -z none
	rm -rf "$b/etc/modprobe.d"
	ln -s "$W/hostconf" "$b/etc/modprobe.d"
	refused_tree "modprobe.d linking out of the tree" "leads out of" \
		-b "$b" --no-base-modules -f "" -m crc16 -z none
	rm -f "$b/etc/modprobe.d"
	mkdir -p "$b/etc/modprobe.d"
	mkfifo "$b/etc/modprobe.d/fifo.conf"
	refused_tree "a FIFO in modprobe.d" "not a regular file" \
		-b "$b" --no-base-modules -f "" -m crc16 -z none
	# masked (a link to /dev/null, as kmod has it): nothing read, fine
	rm -f "$b/etc/modprobe.d/fifo.conf"
	ln -s /dev/null "$b/etc/modprobe.d/masked.conf"
	mk -b "$b" --no-base-modules -f "" -m crc16 -z none "$W/rd"
	assertEquals "a masked file: built: $(cat "$W/out")" 0 "$RC"
}

testModuleOptionsWritten() {
	local b=$W/t5 conf
	tree "$b" crc16 dm-verity || { fail "fake tree"; return; }
	mkdir -p "$b/etc/modprobe.d"
	printf '# comment\noptions crc16 foo=1\ninstall crc16 /bin/true\noptions\tdm-verity  use_tasklets=0 \n' >"$b/etc/modprobe.d/a.conf"
	printf 'options crc16 bar="x y"\noptions ext4 not=included\nblacklist pcspkr\n' >"$b/etc/modprobe.d/b.conf"
	printf 'options crc16 ignored=1\n' >"$b/etc/modprobe.d/c.txt"
	mk -b "$b" -f "" -m crc16 -z none "$W/rd"
	assertEquals "built: $(cat "$W/out")" 0 "$RC"
	conf=$(cpio -i --quiet --to-stdout etc/modprobe.d/verity-init.conf <"$W/rd")
	assertEquals "one options line per module put in, '-' as '_'" \
		"options crc16 foo=1 bar=\"x y\"
options dm_verity use_tasklets=0" "$conf"
	# none: no file
	rm -f "$b"/etc/modprobe.d/*
	mk -b "$b" -f "" -m crc16 -z none "$W/rd"
	assertEquals "built: $(cat "$W/out")" 0 "$RC"
	assertNotContains "no options: no file" "$(cpio -t --quiet <"$W/rd")" "verity-init.conf"
	# characters outside printable ASCII
	printf 'options crc16 a=\001\n' >"$b/etc/modprobe.d/ctl.conf"
	refused_tree "a control character" "outside printable ASCII" -b "$b" -f "" -m crc16 -z none
	printf 'options crc16 name=\303\251\n' >"$b/etc/modprobe.d/ctl.conf"
	refused_tree "UTF-8" "outside printable ASCII" -b "$b" -f "" -m crc16 -z none
	printf 'options crc16 a=1 \\\n b=2\n' >"$b/etc/modprobe.d/ctl.conf"
	refused_tree "a backslash" "backslash" -b "$b" -f "" -m crc16 -z none
	# ... of a module not put in: not looked at
	printf 'options ext4 name=\303\251\n' >"$b/etc/modprobe.d/ctl.conf"
	mk -b "$b" -f "" -m crc16 -z none "$W/rd"
	assertEquals "another module's line: not looked at: $(cat "$W/out")" 0 "$RC"
}

# The caller's own files: a FIFO among them must not stall the build either.
testFifoPolicyAndKeyRefused() {
	mkdir -p "$W/keys"
	rm -f "$W/keys/"*
	mkfifo "$W/keys/a.pub"
	refused_tree "a FIFO key" "not a regular file" --no-base-modules -f "" -K "$W/keys" -z none
	refused_tree "a FIFO policy" "regular file" --no-base-modules -f "" -c "$W/fifo" -z none
	# the target's kernel configuration is read for checks: a FIFO there is not waited on
	local b=$W/t6
	tree "$b" crc16 || { fail "fake tree"; return; }
	mkdir -p "$b/boot"
	mkfifo "$b/boot/config-$KVER"
	mk -b "$b" --no-base-modules -f "" -m crc16 -z none "$W/rd"
	assertEquals "FIFO kernel config: not read, built: $(cat "$W/out")" 0 "$RC"
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
