#!/bin/bash
# verity-init-mkinitramfs on the host: what goes into the archive (agent as /init, modules in
# load order with their dependencies, policy, keys, added files, /dev/console), reproducibility,
# the compressions the kernel can unpack, and the refusals. The images boot in
# tests/vm/mkinitramfs_test.sh.
# Environment: BUILD = build directory.
# shellcheck disable=SC2317  # test functions and helpers are called by shunit2

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
# shellcheck source=tests/cli/mkinitramfs_lib.sh
. "$ROOT/tests/cli/mkinitramfs_lib.sh"
MKRD=$ROOT/verity-init/mkinitramfs/verity-init-mkinitramfs.sh

oneTimeSetUp() {
	T=$SHUNIT_TMPDIR
	KVER=$(mkrd_pick_kver)
	[ -n "$KVER" ] || { echo "no kernel modules installed (tests/deps.sh installs linux-image-amd64)" >&2; exit 1; }
	# a static program stands in for the agent (make static is not needed for this test)
	printf 'int main(void) { return 0; }\n' >"$T/agent.c"
	cc -static -o "$T/agent" "$T/agent.c" || { echo "cannot build a static program" >&2; exit 1; }
}

# mk ARGS... : run the tool with the stand-in agent and this kernel; stderr+stdout in $T/out.
mk() {
	"$MKRD" -k "$KVER" -a "$T/agent" "$@" >"$T/out" 2>&1
}

# list IMG : the names in the main cpio archive of an uncompressed image (the /dev/console
# archive after it is 248 bytes; cpio stops at the first trailer).
list() { cpio -t --quiet <"$1"; }

test_contents_and_load_order() {
	mk -m virtio_blk -f ext4 -z none "$T/rd" || { fail "$(cat "$T/out")"; return; }
	local names mods
	names=$(list "$T/rd")
	# an entry is a whole line of the listing (assertContains greps for any of a pattern's lines)
	has_entry() { grep -qxF -- "$1" <<<"$names"; }
	for e in init dev proc sys run sysroot etc/verity-init/modules; do
		assertTrue "entry $e" "has_entry '$e'"
	done
	cpio -i --quiet --to-stdout init <"$T/rd" >"$T/init.out"
	assertTrue "/init is the agent" "cmp -s '$T/init.out' '$T/agent'"
	mods=$(cpio -i --quiet --to-stdout etc/verity-init/modules <"$T/rd")
	# every listed module is in the archive at that path
	while read -r m; do
		assertTrue "module file $m" "has_entry '${m#/}'"
	done <<<"$mods"
	# dependencies first
	before() { [ "$(grep -n "/$1.ko\$" <<<"$mods" | cut -d: -f1)" -lt "$(grep -n "/$2.ko\$" <<<"$mods" | cut -d: -f1)" ]; }
	assertTrue "dm-mod before dm-verity" "before dm-mod dm-verity"
	assertTrue "virtio_ring before virtio_blk" "before virtio_ring virtio_blk"
	assertTrue "af_alg before algif_hash" "before af_alg algif_hash"
	assertEquals "each module once" "$(sort <<<"$mods" | uniq -d)" ""
	# the filesystem's modules are in its own list (test_filesystem_lists)
	assertFalse "ext4 not in the base list" "grep -q '/ext4.ko$' <<<'$mods'"
	mods=$(cpio -i --quiet --to-stdout etc/verity-init/fs/ext4 <"$T/rd")
	assertTrue "jbd2 before ext4" "before jbd2 ext4"
	assertFalse "only the asked filesystems" "has_entry etc/verity-init/fs/squashfs"
	assertContains "summary line" "$(cat "$T/out")" "bytes, agent"
}

# fs_list IMG TYPE : the module list of TYPE in an uncompressed image
fs_list() { cpio -i --quiet --to-stdout "etc/verity-init/fs/$2" <"$1"; }
# fs_types IMG : the types with a list, sorted, on one line
fs_types() { list "$1" | sed -n 's|^etc/verity-init/fs/||p' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'; }

# A filesystem's modules (those with an fs-TYPE alias, and their dependencies) go into one list
# per type, which the agent loads only before it mounts that type; what the base list has is
# not repeated there; a -f module without such an alias stays in the base list.
test_filesystem_lists() {
	local base ext4 erofs names m
	mk -m virtio_blk -z none "$T/fs-default" || { fail "$(cat "$T/out")"; return; }
	names=$(list "$T/fs-default")
	assertEquals "default filesystems: their types" "erofs ext2 ext3 ext4 squashfs" \
		"$(fs_types "$T/fs-default")"
	assertContains "summary names them" "$(cat "$T/out")" \
		"loaded for their filesystem only: erofs ext2 ext3 ext4 squashfs"
	base=$(cpio -i --quiet --to-stdout etc/verity-init/modules <"$T/fs-default")
	for m in ext4 jbd2 mbcache squashfs erofs; do
		assertFalse "$m not in the base list" "grep -q '/$m.ko$' <<<'$base'"
	done
	assertContains "dm-verity in the base list" "$base" "/dm-verity.ko"
	ext4=$(fs_list "$T/fs-default" ext4)
	assertEquals "the ext4 module last in fs/ext4" "ext4.ko" "$(tail -n 1 <<<"$ext4" | sed 's|.*/||')"
	assertTrue "jbd2 before ext4" \
		"[ $(grep -n '/jbd2.ko$' <<<"$ext4" | cut -d: -f1) -lt $(grep -n '/ext4.ko$' <<<"$ext4" | cut -d: -f1) ]"
	assertEquals "ext3 (its fs-ext3 alias) the same list" "$ext4" "$(fs_list "$T/fs-default" ext3)"
	assertEquals "squashfs" "squashfs.ko" "$(fs_list "$T/fs-default" squashfs | sed 's|.*/||')"
	erofs=$(fs_list "$T/fs-default" erofs)
	assertEquals "the erofs module last in fs/erofs" "erofs.ko" "$(tail -n 1 <<<"$erofs" | sed 's|.*/||')"
	for m in $ext4 $erofs; do
		assertTrue "module file $m" "grep -qxF -- '${m#/}' <<<'$names'"
		assertFalse "$m not in the base list too" "grep -qxF -- '$m' <<<'$base'"
	done
	# -f erofs: one list
	mk -m virtio_blk -f erofs -z none "$T/fs-erofs" || { fail "$(cat "$T/out")"; return; }
	assertEquals "-f erofs: only its list" "erofs" "$(fs_types "$T/fs-erofs")"
	assertEquals "-f erofs: the same modules" "$erofs" "$(fs_list "$T/fs-erofs" erofs)"
	# a -f module without an fs- alias (fat: vfat's library) stays in the base list; one that
	# -m put into the base list is not repeated in a filesystem's list
	mk --no-base-modules -m ext4 -f "fat erofs" -z none "$T/fs-mixed" || { fail "$(cat "$T/out")"; return; }
	base=$(cpio -i --quiet --to-stdout etc/verity-init/modules <"$T/fs-mixed")
	assertContains "fat in the base list" "$base" "/fat.ko"
	assertContains "-m ext4 in the base list" "$base" "/ext4.ko"
	assertEquals "only erofs has a list" "erofs" "$(fs_types "$T/fs-mixed")"
	erofs=$(fs_list "$T/fs-mixed" erofs)
	assertContains "erofs" "$erofs" "/erofs.ko"
	for m in $erofs; do
		assertFalse "$m (in the base list) not repeated" "grep -qxF -- '$m' <<<'$base'"
	done
	# the list files are the tool's own
	mk -i "$T/agent.c" /etc/verity-init/fs/xfs "$T/fs-x"
	assertEquals "--include into fs/ refused" 1 $?
	assertContains "$(cat "$T/out")" "the module lists come from -m and -f"
}

# The types the tool makes lists for are the ones the agent mounts a root as (and asks for).
test_filesystem_types_match_the_agent() {
	local c sh
	c=$(sed -n '/^const char \*const vi_root_fs_types\[\] = {/,/};/p' "$ROOT/lib/config/rootopts.c" |
		grep -o '"[a-z0-9]*"' | tr -d '"' | tr '\n' ' ' | sed 's/ $//')
	sh=$(sed -n 's/^ROOT_FS_TYPES="\(.*\)"$/\1/p' "$MKRD")
	assertNotEquals "read from rootopts.c" "" "$c"
	assertEquals "ROOT_FS_TYPES = vi_root_fs_types" "$c" "$sh"
}

test_console_node_in_second_archive() {
	mk --no-base-modules -f "" -z none "$T/rd" || { fail "$(cat "$T/out")"; return; }
	local l
	l=$(tail -c 248 "$T/rd" | cpio -tv --quiet 2>&1)
	assertContains "character device, mode 0600" "$l" "crw-------"
	assertContains "name" "$l" "dev/console"
	assertTrue "major 5, minor 1: $l" "grep -Eq ' 5, +1 ' <<<'$l'"
	assertEquals "nothing else there" "$(printf '%s\n' "$l" | wc -l)" "1"
	assertEquals "no modules" "" "$(cpio -i --quiet --to-stdout etc/verity-init/modules <"$T/rd")"
}

test_reproducible() {
	local rc
	mk -m virtio_blk "$T/a" || { fail "$(cat "$T/out")"; return; }
	sleep 1
	mk -m virtio_blk "$T/b" || { fail "$(cat "$T/out")"; return; }
	assertTrue "same bytes twice" "cmp -s '$T/a' '$T/b'"
	SOURCE_DATE_EPOCH=1700000000 mk -m virtio_blk "$T/c" || { fail "$(cat "$T/out")"; return; }
	assertFalse "SOURCE_DATE_EPOCH used" "cmp -s '$T/a' '$T/c'"
	assertContains "gzip by default" "$(file -b "$T/a")" "gzip"
	# the caller's umask and the sources' modes do not reach the archive
	(umask 077 && mk -m virtio_blk "$T/u") || { fail "$(cat "$T/out")"; return; }
	assertTrue "same bytes under umask 077" "cmp -s '$T/a' '$T/u'"
	# base 10 even with a leading zero; newc has 32 bits for the time
	{ mk --epoch 010 -z none --no-base-modules -f "" "$T/e1" &&
		mk --epoch 10 -z none --no-base-modules -f "" "$T/e2"; } || { fail "$(cat "$T/out")"; return; }
	assertTrue "--epoch 010 is 10" "cmp -s '$T/e1' '$T/e2'"
	mk --epoch 08 -z none --no-base-modules -f "" "$T/e3"
	rc=$?
	assertEquals "--epoch 08 is 8: $(cat "$T/out")" 0 "$rc"
	mk --epoch 4294967296 "$T/e4"
	assertEquals "epoch beyond 32 bits refused" 1 $?
}

test_policy_keys_and_files() {
	mkdir -p "$T/keys"
	echo "untrusted comment: k1" >"$T/keys/a.pub"
	echo "untrusted comment: k2" >"$T/keys/b.pub"
	echo "not a key" >"$T/keys/readme"
	echo "require_signature=yes" >"$T/policy"
	echo "manifest" >"$T/m"
	mk --no-base-modules -f "" -c "$T/policy" -K "$T/keys" -i "$T/m" /etc/verity-init/manifest \
		-z none "$T/rd" || { fail "$(cat "$T/out")"; return; }
	assertEquals "policy" "require_signature=yes" \
		"$(cpio -i --quiet --to-stdout etc/verity-init.conf <"$T/rd")"
	assertEquals "keys" "untrusted comment: k1
untrusted comment: k2" "$(cpio -i --quiet --to-stdout 'etc/verity-init/keys/*' <"$T/rd")"
	assertNotContains "only *.pub" "$(list "$T/rd")" "readme"
	assertEquals "added file" "manifest" \
		"$(cpio -i --quiet --to-stdout etc/verity-init/manifest <"$T/rd")"
}

# managed=yes in the policy (managed recovery, docs/security.md): the pstore backend efi_pstore
# and efivarfs go into the base list, also without the base modules; not without the key.
test_managed_policy_adds_the_pstore_backend() {
	printf 'fail=reboot\n  Managed = Yes\n' >"$T/policy-managed"
	mk --no-base-modules -f "" -c "$T/policy-managed" -z none "$T/rd" || { fail "$(cat "$T/out")"; return; }
	local mods
	mods=$(cpio -i --quiet --to-stdout etc/verity-init/modules <"$T/rd")
	assertContains "efi_pstore listed" "$mods" "/efi-pstore.ko"
	assertContains "efivarfs listed" "$mods" "/efivarfs.ko"
	printf 'managed=no\n' >"$T/policy-managed"
	mk --no-base-modules -f "" -c "$T/policy-managed" -z none "$T/rd" || { fail "$(cat "$T/out")"; return; }
	mods=$(cpio -i --quiet --to-stdout etc/verity-init/modules <"$T/rd")
	assertNotContains "no efi_pstore" "$mods" "efi-pstore"
}

# A module stored compressed (.ko.xz) goes in decompressed, under the .ko name, when the
# kernel's config is not there to say that the kernel decompresses it.
test_compressed_module_from_basedir() {
	local b=$T/base src
	src=$(modprobe -S "$KVER" --show-depends crc16 | awk '$1 == "insmod" { print $2 }')
	[ -n "$src" ] || { startSkipping; return; }
	mkdir -p "$b/lib/modules/$KVER/kernel/lib"
	{ cp "$src" "$b/lib/modules/$KVER/kernel/lib/crc16.ko" &&
		xz "$b/lib/modules/$KVER/kernel/lib/crc16.ko" &&
		depmod -b "$b" "$KVER" 2>/dev/null; } || { fail "fake module tree"; return; }
	mk -b "$b" --no-base-modules -f "" -m crc16 -z none "$T/rd" || { fail "$(cat "$T/out")"; return; }
	assertEquals "listed as .ko, basedir stripped" "/lib/modules/$KVER/kernel/lib/crc16.ko" \
		"$(cpio -i --quiet --to-stdout etc/verity-init/modules <"$T/rd")"
	cpio -i --quiet --to-stdout "lib/modules/$KVER/kernel/lib/crc16.ko" <"$T/rd" >"$T/ko"
	assertTrue "decompressed" "cmp -s '$T/ko' '$src'"
}

# fake_tree DIR MODULE... : mkrd_fake_tree for the kernel of this test
fake_tree() {
	mkrd_fake_tree "$KVER" "$@"
}

# A target tree: its own modprobe.d (options written into the image, install commands), a
# relative or blank-containing base directory, modules under usr/lib/modules, optional base
# modules missing.
test_target_tree() {
	local b="$T/tree with space"
	fake_tree "$b" crc16 dm-verity || { fail "fake tree"; return; }
	mkdir -p "$b/etc/modprobe.d"
	printf 'options crc16 foo=1\ninstall crc16 /bin/true\n' >"$b/etc/modprobe.d/t.conf"
	(cd "$T" && mk -b "tree with space" -f "" -m crc16 -z none "$T/rd") || { fail "$(cat "$T/out")"; return; }
	local mods
	mods=$(cpio -i --quiet --to-stdout etc/verity-init/modules <"$T/rd")
	assertContains "install command ignored" "$mods" "/lib/modules/$KVER/kernel/lib/crc16.ko"
	assertNotContains "base directory taken off" "$mods" "tree with space"
	assertContains "dm-verity" "$mods" "/dm-verity.ko"
	assertEquals "options written for the agent" "options crc16 foo=1" \
		"$(cpio -i --quiet --to-stdout etc/modprobe.d/verity-init.conf <"$T/rd")"
	assertContains "optional base module missing: warned" "$(cat "$T/out")" "warning: module algif_hash not found"
	# the same tree under usr/lib/modules (merged /usr)
	local u=$T/usrtree
	mkdir -p "$u/usr/lib"
	cp -a "$b/lib/modules" "$u/usr/lib/"
	mk -b "$u" -f "" -m crc16 -z none "$T/rd2" || { fail "$(cat "$T/out")"; return; }
	assertEquals "usr/lib/modules tree: same list" "$mods" \
		"$(cpio -i --quiet --to-stdout etc/verity-init/modules <"$T/rd2")"
	# dm-verity itself is not optional
	mk -b "$T/base" -f "" -z none "$T/rd3"   # test_compressed_module_from_basedir's tree: crc16 only
	assertEquals "no dm-verity: refused" 1 $?
}

# kconfig FILE [OPTION=VALUE...] : a kernel config that can unpack a gzip image, with OPTIONs
kconfig() {
	local f=$1
	shift
	printf 'CONFIG_BLK_DEV_INITRD=y\nCONFIG_DEVTMPFS=y\nCONFIG_RD_GZIP=y\n' >"$f"
	[ $# -eq 0 ] || printf '%s\n' "$@" >>"$f"
}
# listed IMG [TYPE] : the base module list of an uncompressed image, or TYPE's
listed() { cpio -i --quiet --to-stdout "etc/verity-init/${2:+fs/}${2:-modules}" <"$1"; }

# Debian's 6.12 and 7.x kernels decompress their own .ko.xz (CONFIG_MODULE_DECOMPRESS with
# CONFIG_MODULE_COMPRESS_XZ): by default the modules go in as shipped, the list naming the
# .ko.xz files the agent hands to the kernel; otherwise, or with --decompress-modules, as .ko.
# The tree has the 7.x layout: modules and config under usr/lib/modules/VERSION, no /boot.
test_compressed_modules_kept_where_the_kernel_decompresses() {
	local b=$T/xzt m=$T/xzt/usr/lib/modules/$KVER src
	mkrd_usr_xz_tree "$KVER" "$b" crc16 ext4 || { fail "fake tree"; return; }
	src=$m/kernel/lib/crc16.ko.xz
	mkdir -p "$b/etc/modprobe.d"
	printf 'options crc16 foo=1\n' >"$b/etc/modprobe.d/t.conf"
	kconfig "$m/config" CONFIG_MODULE_DECOMPRESS=y CONFIG_MODULE_COMPRESS_XZ=y
	mk -b "$b" --no-base-modules -m crc16 -f ext4 -z none "$T/kept" || { fail "$(cat "$T/out")"; return; }
	assertEquals "listed as shipped" "/lib/modules/$KVER/kernel/lib/crc16.ko.xz" "$(listed "$T/kept")"
	cpio -i --quiet --to-stdout "lib/modules/$KVER/kernel/lib/crc16.ko.xz" <"$T/kept" >"$T/ko"
	assertTrue "the file as shipped" "cmp -s '$T/ko' '$src'"
	assertEquals "the filesystem's list too: all .ko.xz" "" "$(listed "$T/kept" ext4 | grep -v '\.ko\.xz$')"
	assertContains "ext4 in its list" "$(listed "$T/kept" ext4)" "/kernel/fs/ext4/ext4.ko.xz"
	assertEquals "options for the module by its name" "options crc16 foo=1" \
		"$(cpio -i --quiet --to-stdout etc/modprobe.d/verity-init.conf <"$T/kept")"
	assertContains "summary" "$(cat "$T/out")" "as shipped: xz)"

	mk -b "$b" --no-base-modules -m crc16 -f "" -z none --decompress-modules "$T/dec" ||
		{ fail "$(cat "$T/out")"; return; }
	assertEquals "--decompress-modules" "/lib/modules/$KVER/kernel/lib/crc16.ko" "$(listed "$T/dec")"
	cpio -i --quiet --to-stdout "lib/modules/$KVER/kernel/lib/crc16.ko" <"$T/dec" >"$T/ko"
	assertTrue "decompressed" "xz -dc '$src' | cmp -s - '$T/ko'"
	assertNotContains "summary" "$(cat "$T/out")" "as shipped"

	# decompressed_with OPTION... : with a config of these options, crc16 goes in as .ko
	decompressed_with() {
		kconfig "$m/config" "$@"
		mk -b "$b" --no-base-modules -m crc16 -f "" -z none "$T/dec" || { fail "$(cat "$T/out")"; return; }
		assertEquals "config '$*': decompressed" "/lib/modules/$KVER/kernel/lib/crc16.ko" "$(listed "$T/dec")"
	}
	decompressed_with CONFIG_MODULE_DECOMPRESS=y CONFIG_MODULE_COMPRESS_ZSTD=y
	decompressed_with CONFIG_MODULE_COMPRESS_XZ=y
	decompressed_with "# CONFIG_MODULE_DECOMPRESS is not set" CONFIG_MODULE_COMPRESS_XZ=y
	rm -f "$m/config"
	mk -b "$b" --no-base-modules -m crc16 -f "" -z none --keep-compressed-modules "$T/dec" ||
		{ fail "$(cat "$T/out")"; return; }
	assertEquals "no config: decompressed" "/lib/modules/$KVER/kernel/lib/crc16.ko" "$(listed "$T/dec")"
}

# The 7.x layout: the config and vmlinuz next to the modules when /boot has none; /boot's win.
test_kernel_files_next_to_the_modules() {
	local b=$T/usrk m=$T/usrk/usr/lib/modules/$KVER
	mkrd_usr_xz_tree "$KVER" "$b" crc16 || { fail "fake tree"; return; }
	kconfig "$m/config" "# CONFIG_RD_ZSTD is not set"
	mk -b "$b" --no-base-modules -m crc16 -f "" -z zstd "$T/u.img"
	assertEquals "its config read: zstd refused" 1 $?
	assertContains "$(cat "$T/out")" "CONFIG_RD_ZSTD is not set in $m/config"
	mkdir -p "$b/boot"
	kconfig "$b/boot/config-$KVER" CONFIG_RD_ZSTD=y
	mk -b "$b" --no-base-modules -m crc16 -f "" -z zstd "$T/u.img"
	assertEquals "/boot's config first: $(cat "$T/out")" 0 $?
	rm -rf "${b:?}/boot"
	mk -b "$b" --no-base-modules -m crc16 -f "" --uki "$T/u.efi" --cmdline "roothash=00" "$T/u.img"
	assertEquals "--uki without a kernel anywhere" 1 $?
	assertContains "$(cat "$T/out")" "no kernel vmlinuz-$KVER in $b/boot nor vmlinuz in $b/usr/lib/modules/$KVER"
	if ! command -v objcopy >/dev/null || [ ! -r /usr/lib/systemd/boot/efi/linuxx64.efi.stub ] ||
		[ ! -r "/boot/vmlinuz-$KVER" ]; then
		startSkipping; fail "objcopy, systemd-stub or the kernel missing"; return
	fi
	cp "/boot/vmlinuz-$KVER" "$m/vmlinuz"
	mk -b "$b" --no-base-modules -m crc16 -f "" --uki "$T/u.efi" --cmdline "roothash=00" "$T/u.img" ||
		{ fail "$(cat "$T/out")"; return; }
	section "$T/u.efi" .linux "$T/u.linux"
	assertTrue ".linux is the modules directory's vmlinuz" "cmp -s '$T/u.linux' '$m/vmlinuz'"
}

test_compressions_the_kernel_reads() {
	mk --no-base-modules -f "" -z xz "$T/x" || { fail "$(cat "$T/out")"; return; }
	assertContains "xz with CRC32 (the kernel's decoder has no CRC64)" \
		"$(xz --robot --list "$T/x" | awk '$1 == "totals" { print $7 }')" "CRC32"
	mk --no-base-modules -f "" -z lz4 "$T/l" || { fail "$(cat "$T/out")"; return; }
	assertEquals "lz4 legacy frame" "02214c18" "$(head -c 4 "$T/l" | od -An -tx1 | tr -d ' ')"
	mk --no-base-modules -f "" -z zstd "$T/z" || { fail "$(cat "$T/out")"; return; }
	assertEquals "zstd frame" "28b52ffd" "$(head -c 4 "$T/z" | od -An -tx1 | tr -d ' ')"
	zstd -dcq "$T/z" >"$T/z.cpio"
	assertContains "zstd content" "$(list "$T/z.cpio")" "init"
}

test_refusals() {
	local dyn=$BUILD/verity-init out=$T/refused.img rc
	if [ -x "$dyn" ]; then
		"$MKRD" -k "$KVER" -a "$dyn" "$out" >"$T/out" 2>&1
		assertEquals "dynamic agent refused" 1 $?
		assertContains "$(cat "$T/out")" "is dynamically linked"
	fi
	"$MKRD" -k "$KVER" -a "$T/agent.c" "$out" >"$T/out" 2>&1
	assertEquals "not a program" 1 $?
	mk -m no_such_module "$out"
	assertEquals "unknown module" 1 $?
	assertContains "$(cat "$T/out")" "module 'no_such_module' not found for kernel $KVER"
	mk -i "$T/agent.c" etc/x "$out"
	assertEquals "relative destination" 1 $?
	mk -i "$T/agent.c" /init "$out"
	assertEquals "replacing /init" 1 $?
	mk -i "$T/agent.c" /etc/../init "$out"
	assertEquals "dot-dot" 1 $?
	local dest
	mkdir -p "$T/incl"
	cp "$T/agent.c" "$T/incl/init"
	cp "$T/agent.c" "$T/incl/modules"
	for dest in //init / /etc//verity-init/modules /etc/verity-init /etc/verity-init/ \
		/etc/verity-init.conf /etc/verity-init/keys/x.pub /dev/console /lib/modules/x/ /sysroot; do
		mk -i "$T/incl/init" "$dest" "$out"
		rc=$?
		assertEquals "--include to $dest refused: $(cat "$T/out")" 1 "$rc"
	done
	mk -i "$T/incl" /x "$out"
	assertEquals "a directory as source" 1 $?
	mk -z bzip9 "$out"
	assertEquals "unknown compression" 1 $?
	mk -K "$T/nonexistent" "$out"
	assertEquals "missing keys directory" 1 $?
	"$MKRD" -k 0.0-nonexistent -a "$T/agent" "$out" >"$T/out" 2>&1
	assertEquals "no modules for that kernel" 1 $?
	assertContains "$(cat "$T/out")" "no modules for kernel 0.0-nonexistent"
	mk "$out" extra-arg
	assertEquals "two outputs" 1 $?
	# a failure after the temporary output exists: the compressor fails
	mkdir -p "$T/fakebin"
	printf '#!/bin/sh\nexit 1\n' >"$T/fakebin/gzip"
	chmod +x "$T/fakebin/gzip"
	PATH="$T/fakebin:$PATH" mk --no-base-modules -f "" "$out"
	assertEquals "compressor failing" 1 $?
	assertFalse "no output left behind" "ls '$out'* 2>/dev/null | grep -q ."
	mkdir -p "$T/outdir"
	mk --no-base-modules -f "" "$T/outdir"
	assertEquals "output is a directory" 1 $?
	assertEquals "nothing put into it" "" "$(ls "$T/outdir")"
	"$MKRD" --help >"$T/out" 2>&1
	assertEquals "--help" 0 $?
	assertContains "$(cat "$T/out")" "Usage: verity-init-mkinitramfs"
}

# With the kernel's config installed (BASEDIR/boot/config-VERSION), an image the kernel could not
# unpack, or a kernel without devtmpfs, is refused before anything is written.
test_kernel_config_preflight() {
	local b=$T/kc out=$T/kc.img rc
	mkdir -p "$b/lib/modules/$KVER" "$b/boot"
	printf 'CONFIG_BLK_DEV_INITRD=y\nCONFIG_DEVTMPFS=y\nCONFIG_RD_GZIP=y\n# CONFIG_RD_ZSTD is not set\n' \
		>"$b/boot/config-$KVER"
	"$MKRD" -b "$b" -k "$KVER" -a "$T/agent" --no-base-modules -f "" -z zstd "$out" >"$T/out" 2>&1
	assertEquals "zstd refused" 1 $?
	assertContains "$(cat "$T/out")" "cannot unpack a zstd-compressed initramfs (CONFIG_RD_ZSTD is not set"
	assertFalse "nothing written" "[ -e '$out' ]"
	"$MKRD" -b "$b" -k "$KVER" -a "$T/agent" --no-base-modules -f "" -z gzip "$out" >"$T/out" 2>&1
	rc=$?
	assertEquals "gzip accepted: $(cat "$T/out")" 0 "$rc"
	"$MKRD" -b "$b" -k "$KVER" -a "$T/agent" --no-base-modules -f "" -z none "$out" >"$T/out" 2>&1
	assertEquals "none needs no decompressor" 0 $?
	sed -i 's/^CONFIG_DEVTMPFS=y$/# CONFIG_DEVTMPFS is not set/' "$b/boot/config-$KVER"
	"$MKRD" -b "$b" -k "$KVER" -a "$T/agent" --no-base-modules -f "" -z gzip "$out" >"$T/out" 2>&1
	assertEquals "no devtmpfs refused" 1 $?
	assertContains "$(cat "$T/out")" "has no devtmpfs"
}

test_shellcheck_clean() {
	command -v shellcheck >/dev/null || { startSkipping; fail "shellcheck missing"; return; }
	local out
	out=$(shellcheck -s bash "$MKRD" 2>&1)
	assertEquals "shellcheck" "" "$out"
}

# --- --uki: a Unified Kernel Image (verity-init/mkinitramfs/verity-init-mkuki.sh) ---------------------------
# uki_key : a throw-away signing key and certificate in $T (made once)
uki_key() {
	[ -s "$T/db.key" ] || openssl req -new -x509 -newkey rsa:2048 -nodes -sha256 -days 1 \
		-subj "/CN=mkinitramfs test db/" -keyout "$T/db.key" -out "$T/db.crt" >/dev/null 2>&1
}
# section IMG NAME OUT : the bytes of one PE section
section() { objcopy -O binary --only-section="$2" "$1" "$3"; }

test_uki_built_signed_with_the_initramfs_and_cmdline() {
	for t in objcopy objdump sbsign sbverify openssl; do
		command -v "$t" >/dev/null || { startSkipping; fail "$t missing (tests/deps.sh)"; return; }
	done
	[ -r /usr/lib/systemd/boot/efi/linuxx64.efi.stub ] || { startSkipping; fail "no systemd-stub (systemd-boot-efi)"; return; }
	[ -r "/boot/vmlinuz-$KVER" ] || { startSkipping; fail "no /boot/vmlinuz-$KVER"; return; }
	uki_key || { fail "openssl"; return; }
	local cl="console=ttyS0 roothash=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef root=/dev/mapper/root"
	mk -m virtio_blk -f ext4 --uki "$T/uki.efi" --cmdline "$cl" --sign-key "$T/db.key" \
		--sign-cert "$T/db.crt" "$T/rd-uki" || { fail "$(cat "$T/out")"; return; }
	assertTrue "initramfs written" "[ -s '$T/rd-uki' ]"
	assertTrue "signed with the key: $(sbverify --cert "$T/db.crt" "$T/uki.efi" 2>&1)" \
		"sbverify --cert '$T/db.crt' '$T/uki.efi'"
	section "$T/uki.efi" .cmdline "$T/s.cmdline"
	assertEquals ".cmdline" "$cl" "$(cat "$T/s.cmdline")"
	section "$T/uki.efi" .initrd "$T/s.initrd"
	assertTrue ".initrd is the initramfs" "cmp -s '$T/s.initrd' '$T/rd-uki'"
	section "$T/uki.efi" .linux "$T/s.linux"
	assertTrue ".linux is the kernel of -k" "cmp -s '$T/s.linux' '/boot/vmlinuz-$KVER'"
	section "$T/uki.efi" .osrel "$T/s.osrel"
	assertTrue ".osrel is /etc/os-release" "cmp -s '$T/s.osrel' /etc/os-release"
	# the four sections after the stub's, in order, each on a 4 KiB boundary, none overlapping
	local layout
	layout=$(objdump -h "$T/uki.efi" | awk '$1 ~ /^[0-9]+$/ { print $2, $3, $4 }')
	assertEquals "order" ".osrel .cmdline .linux .initrd" "$(awk '{ print $1 }' <<<"$layout" | tail -n 4 | tr '\n' ' ' | sed 's/ $//')"
	local prev_end=0 name size vma
	while read -r name size vma; do
		case $name in .osrel|.cmdline|.linux|.initrd)
			assertEquals "$name at a 4 KiB boundary" 0 $(( 0x$vma % 4096 )) ;;
		esac
		assertTrue "$name after the previous section" "[ $(( 0x$vma )) -ge $prev_end ]"
		prev_end=$(( 0x$vma + 0x$size ))
	done <<<"$layout"
}

test_uki_unsigned_without_a_key() {
	if ! command -v sbverify >/dev/null || [ ! -r /usr/lib/systemd/boot/efi/linuxx64.efi.stub ] ||
		[ ! -r "/boot/vmlinuz-$KVER" ]; then
		startSkipping; fail "sbverify, systemd-stub or the kernel missing"; return
	fi
	printf 'console=ttyS0 roothash=00\n' >"$T/cl"
	mk -m virtio_blk -f ext4 --uki "$T/uki-u.efi" --cmdline-file "$T/cl" "$T/rd-u" || { fail "$(cat "$T/out")"; return; }
	assertFalse "no signature" "sbverify --list '$T/uki-u.efi' 2>/dev/null | grep -q 'signature 1'"
	section "$T/uki-u.efi" .cmdline "$T/s.cl"
	assertEquals "--cmdline-file without its newline" "console=ttyS0 roothash=00" "$(cat "$T/s.cl")"
}

# A UKI signed elsewhere: --sign-prepare leaves it unsigned, the signing service signs it
# (sbsign --detached), --sign-join attaches that signature to the same build made again: the
# initramfs and the UKI are byte-identical under one SOURCE_DATE_EPOCH, the joined UKI verifies.
# A signature for another build is refused and neither file is left.
test_uki_sign_prepare_then_join() {
	for t in sbsign sbattach sbverify openssl; do
		command -v "$t" >/dev/null || { startSkipping; fail "$t missing (tests/deps.sh)"; return; }
	done
	if [ ! -r /usr/lib/systemd/boot/efi/linuxx64.efi.stub ] || [ ! -r "/boot/vmlinuz-$KVER" ]; then
		startSkipping; fail "systemd-stub or the kernel missing"; return
	fi
	uki_key || { fail "openssl"; return; }
	local cl="console=ttyS0 roothash=00"
	SOURCE_DATE_EPOCH=1700000000 mk -m virtio_blk -f ext4 --uki "$T/p.efi" --cmdline "$cl" \
		--sign-prepare "$T/rd-p" || { fail "$(cat "$T/out")"; return; }
	assertContains "prepare prints the digest" "$(cat "$T/out")" "uki_prepared_sha256=$(sha256sum "$T/p.efi" | cut -d' ' -f1)"
	sbsign --key "$T/db.key" --cert "$T/db.crt" --detached --output "$T/p.pk7" "$T/p.efi" >/dev/null 2>&1 ||
		{ fail "sbsign --detached"; return; }
	sleep 1
	SOURCE_DATE_EPOCH=1700000000 mk -m virtio_blk -f ext4 --uki "$T/j.efi" --cmdline "$cl" \
		--sign-cert "$T/db.crt" --sign-join "$T/p.pk7" "$T/rd-j" || { fail "$(cat "$T/out")"; return; }
	assertTrue "the initramfs built again is byte-identical" "cmp -s '$T/rd-p' '$T/rd-j'"
	# the signature covers the prepared UKI's Authenticode digest: it verifies only on the same bytes
	assertTrue "the joined UKI verifies: $(sbverify --cert "$T/db.crt" "$T/j.efi" 2>&1)" \
		"sbverify --cert '$T/db.crt' '$T/j.efi'"
	# another command line: another UKI, the signature does not fit
	SOURCE_DATE_EPOCH=1700000000 mk -m virtio_blk -f ext4 --uki "$T/x.efi" --cmdline "$cl x" \
		--sign-cert "$T/db.crt" --sign-join "$T/p.pk7" "$T/rd-x"
	assertEquals "a signature of another UKI" 1 $?
	assertContains "$(cat "$T/out")" "not a signature of this UKI"
	assertFalse "no UKI" "[ -e '$T/x.efi' ]"
	assertFalse "no initramfs" "[ -e '$T/rd-x' ]"
	mk --uki "$T/x.efi" --cmdline "$cl" --sign-join "$T/p.pk7" "$T/rd-x"
	assertEquals "--sign-join without --sign-cert" 1 $?
	assertContains "$(cat "$T/out")" "--sign-join needs --sign-cert"
	# --sign-key takes a PKCS#11 URI, which is no file: it reaches sbsign's pkcs11 engine (here a
	# token that does not exist; tests/cli/pkcs11_test.sh signs on a real one)
	if [ -e /usr/lib/x86_64-linux-gnu/engines-3/pkcs11.so ]; then
		printf '0000' >"$T/pin"
		mk -m virtio_blk -f ext4 --uki "$T/x.efi" --cmdline "$cl" --sign-cert "$T/db.crt" \
			--sign-key "pkcs11:token=no-such-token;object=db;type=private?pin-source=file:$T/pin" "$T/rd-x"
		assertEquals "a URI for a missing token" 1 $?
		assertContains "the URI went to sbsign" "$(cat "$T/out")" "no token matches"
		assertNotContains "no PIN shown" "$(cat "$T/out")" "0000"
		assertFalse "no UKI" "[ -e '$T/x.efi' ]"
		assertFalse "no initramfs" "[ -e '$T/rd-x' ]"
	fi
}

test_uki_option_refusals_write_nothing() {
	uki_key || { fail "openssl"; return; }
	mk --uki "$T/x.efi" "$T/x.rd"
	assertEquals "--uki without a command line" 1 $?
	assertContains "$(cat "$T/out")" "--uki needs --cmdline"
	mk --uki "$T/x.efi" --cmdline "roothash=00" --sign-key "$T/db.key" "$T/x.rd"
	assertEquals "key without certificate" 1 $?
	assertContains "$(cat "$T/out")" "--sign-key and --sign-cert go together"
	mk --cmdline "roothash=00" "$T/x.rd"
	assertEquals "--cmdline without --uki" 1 $?
	assertContains "$(cat "$T/out")" "only with --uki"
	mk --uki "$T/x.efi" --cmdline "roothash=00" --kernel "$T/no-such-kernel" "$T/x.rd"
	assertEquals "missing kernel" 1 $?
	assertContains "$(cat "$T/out")" "no-such-kernel"
	assertFalse "no initramfs written" "[ -e '$T/x.rd' ]"
	assertFalse "no UKI written" "[ -e '$T/x.efi' ]"
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
