# shellcheck shell=bash
# Shared harness of the QEMU boot tests (tests/vm/*_test.sh). Sourced, never executed; needs bash.
#
# It builds tiny root filesystems (ext4, squashfs, erofs) from busybox, protects them with
# dm-verity, corrupts chosen bytes, builds standalone initramfs images, boots Debian's kernel in
# QEMU with a hard timeout and asserts on the serial log. docs/testing.md documents every
# function; keep the two in step.
#
# Environment (all optional): BUILD (build dir, absolute; default <repo>/build), VM_TIMEOUT (s per
# boot, 120), VM_ACCEL (auto|tcg|kvm; auto = KVM only after a probe boot succeeded, else TCG),
# VM_KERNEL (default newest /boot/vmlinuz-*; booted as its extracted vmlinux when it has PVH), VM_KVER, VM_PARALLEL (boots at once, 2), VM_SLOT_DIR,
# VM_KEEP_LOGS (1: run.sh prunes no old logs), VM_VERITY_TOOL (auto|veritysetup|verity-image|path),
# VM_ROOT_ID, VM_MEM (MiB, 512), VM_BIOS (qboot|seabios|path), VM_QEMU_EXTRA (extra QEMU arguments), VM_VERBOSE (1: print the
# QEMU command line).

# --- locations --------------------------------------------------------------------------------
VM_SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_TOPDIR=$(cd "$VM_SRCDIR/../.." && pwd)
: "${BUILD:=$VM_TOPDIR/build}"
case $BUILD in /*) ;; *) BUILD=$(cd "$BUILD" 2>/dev/null && pwd || echo "$VM_TOPDIR/$BUILD") ;; esac
export BUILD
VM_DIR=$BUILD/vm
VM_LOGDIR=$VM_DIR/logs
VM_CACHE=$VM_DIR/cache
VM_WORKROOT=$VM_DIR/work

: "${VM_TIMEOUT:=120}"
: "${VM_ACCEL:=auto}"
: "${VM_PARALLEL:=2}"
# Where the VM_PARALLEL slot locks live: per build directory by default; point several build
# directories at one place (e.g. /tmp/vm-slots) to cap QEMUs machine-wide.
: "${VM_SLOT_DIR:=$BUILD/vm}"
: "${VM_MEM:=512}"
: "${VM_VERITY_TOOL:=auto}"
: "${VM_QEMU_EXTRA:=}"
# Firmware: qboot (qemu-system-data) boots the -kernel straight away; SeaBIOS costs seconds of
# emulated BIOS per boot under TCG. VM_BIOS=seabios keeps QEMU's default, or give a path.
: "${VM_BIOS:=qboot}"
# One id per run of run.sh (it exports it); a test file run alone gets its own.
: "${VM_RUN_ID:=$$-$(date +%s)}"
export VM_RUN_ID
# The test file every boot is counted against (run.sh's per-file boot table and budget): run.sh
# exports it for each file it runs; a file run alone is its own. Exported, so that the files
# other_kernel_test.sh runs again count as its boots.
: "${VM_TEST_FILE:=$(basename "$0" .sh)}"
export VM_TEST_FILE

VM_MARKER=VERITY-TEST-MARKER
# Every boot's command line starts with this. no_timer_check: on a loaded host the emulated timer
# can miss the kernel's early IO-APIC timer test ("IO-APIC + timer doesn't work!" panic, seen here).
VM_CMDLINE_BASE="console=ttyS0 panic=-1 no_timer_check"
# Fixed inputs of every image: same bytes on every build (reproducible, cacheable).
VM_EPOCH=1700000000
VM_FS_UUID=5a1e0c7e-0000-4000-8000-000000000001
VM_VERITY_SALT=7665726974792d696e69742d766d2d7465737473000000000000000000000001
VM_VERITY_UUID=5a1e0c7e-0000-4000-8000-0000000000aa
# Discoverable Partitions type GUIDs (x86-64 root and its verity partition).
VM_GPT_TYPE_ROOT=4f68bce3-e8cd-4db1-96e7-fbcaf984b709
VM_GPT_TYPE_VERITY=2c7357ed-ebd2-46d9-aec1-23d437ec2bf5

# Modules a standalone initramfs loads, by module name; dependencies are added in order.
VM_MODULES_DEFAULT="virtio_pci virtio_blk dm-mod dm-verity ext4 squashfs erofs algif_hash crypto-sha512"

mkdir -p "$VM_LOGDIR" "$VM_CACHE" "$VM_WORKROOT" "$VM_SLOT_DIR"

# --- messages ---------------------------------------------------------------------------------
vm_log() { printf 'vm: %s\n' "$*" >&2; }
vm_die() { printf 'vm: error: %s\n' "$*" >&2; return 1; }

# vm_require_tools TOOL... : fail with the missing names (tests call it from oneTimeSetUp).
vm_require_tools() {
	local t missing=""
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || [ -x "/usr/sbin/$t" ] || [ -x "/sbin/$t" ] ||
			missing="$missing $t"
	done
	[ -z "$missing" ] || { vm_die "missing tools:$missing (run tests/deps.sh)"; return 1; }
}

# --- kernel -----------------------------------------------------------------------------------
# The kernel series the suite boots: VM_KERNEL_SERIES=6.1 (default: bookworm's linux-image-amd64)
# or 6.12 (linux-image-6.12.*+deb12-amd64; dm-verity 1.10, the .platform keyring); the newest
# installed /boot/vmlinuz-SERIES.* is used. Installing another kernel never switches the suite.
# VM_KERNEL (a file) overrides the series; VM_KVER comes from its file name. Boots on the other
# series keep their logs and work directories apart ($BUILD/vm/logs-SERIES, work-SERIES): the
# same test run on both kernels at once (other_kernel_test.sh) must not share a scenario's files.
VM_KERNEL_SERIES_DEFAULT=6.1
# The series fetched from trixie-backports (fetch-kernel.sh) instead of installed: its tree
# (modules under usr/lib/modules, vmlinuz and config beside them) is VM_MODBASE, which every
# builder of an image takes as the modules' root ("" for the host's own).
VM_KERNEL_SERIES_BACKPORTS=7
: "${VM_MODBASE:=}"
# A file that needs one series whatever the suite's (IPE, the .platform keyring and dm-verity
# 1.10 are 6.12's) sets VM_KERNEL_SERIES_REQUIRED before sourcing this file: run.sh exports the
# default series' VM_KERNEL and VM_KVER, which are dropped unless VM_KERNEL is of that series.
if [ -n "${VM_KERNEL_SERIES_REQUIRED:-}" ]; then
	case ${VM_KERNEL:-} in
	*vmlinuz-"$VM_KERNEL_SERIES_REQUIRED".*) ;;
	*) unset VM_KERNEL VM_KVER; VM_KERNEL_SERIES=$VM_KERNEL_SERIES_REQUIRED ;;
	esac
fi
: "${VM_KERNEL_SERIES:=$VM_KERNEL_SERIES_DEFAULT}"
vm_pick_kernel() {
	if [ "$VM_KERNEL_SERIES" != "$VM_KERNEL_SERIES_DEFAULT" ] && [ -z "${VM_KERNEL:-}" ]; then
		VM_LOGDIR=$VM_DIR/logs-$VM_KERNEL_SERIES VM_WORKROOT=$VM_DIR/work-$VM_KERNEL_SERIES
		mkdir -p "$VM_LOGDIR" "$VM_WORKROOT"
	fi
	[ -n "${VM_KERNEL:-}" ] || VM_MODBASE=
	if [ -z "${VM_KERNEL:-}" ] && [ "$VM_KERNEL_SERIES" = "$VM_KERNEL_SERIES_BACKPORTS" ]; then
		# Debian's 7.x kernel is not installed on the host: fetched once from trixie-backports
		VM_KVER=$("$VM_SRCDIR/fetch-kernel.sh" trixie-backports "$VM_KERNEL_SERIES" "$BUILD/kernels") ||
			{ vm_die "cannot fetch Debian's $VM_KERNEL_SERIES.x kernel from trixie-backports"; return 1; }
		VM_MODBASE=$BUILD/kernels/$VM_KVER/root
		VM_KERNEL=$VM_MODBASE/usr/lib/modules/$VM_KVER/vmlinuz
	fi
	if [ -z "${VM_KERNEL:-}" ]; then
		# shellcheck disable=SC2012
		VM_KERNEL=$(ls -1 /boot/vmlinuz-"$VM_KERNEL_SERIES".* 2>/dev/null | sort -V | tail -n 1)
		[ -n "$VM_KERNEL" ] || { vm_die "no /boot/vmlinuz-$VM_KERNEL_SERIES.* for VM_KERNEL_SERIES=$VM_KERNEL_SERIES (tests/deps.sh installs 6.1 and 6.12)"; return 1; }
	fi
	[ -r "$VM_KERNEL" ] || { vm_die "VM_KERNEL=$VM_KERNEL is not readable"; return 1; }
	if [ -z "${VM_KVER:-}" ]; then
		VM_KVER=$(basename "$VM_KERNEL")
		VM_KVER=${VM_KVER#vmlinuz-}
	fi
	[ -d "$VM_MODBASE/lib/modules/$VM_KVER" ] || { vm_die "no $VM_MODBASE/lib/modules/$VM_KVER for $VM_KERNEL (set VM_KVER)"; return 1; }
	export VM_KERNEL VM_KVER VM_KERNEL_SERIES VM_MODBASE
}
vm_pick_kernel || return 1

# --- small utilities --------------------------------------------------------------------------
vm_size() { stat -c %s "$1"; }

# vm_workdir NAME : print a fresh empty directory $BUILD/vm/work/NAME for a scenario's files.
vm_workdir() {
	local d=$VM_WORKROOT/$1
	rm -rf "$d" && mkdir -p "$d" && echo "$d"
}

# Hash of the files and strings that define a cached artefact: a changed builder invalidates it.
vm_cache_key() {
	{
		sha256sum "$VM_SRCDIR/lib.sh" "$VM_SRCDIR/init-dmsetup.sh" 2>/dev/null
		printf '%s\n' "$@"
	} | sha256sum | cut -c1-16
}

# vm_cached KEY OUT CMD... : run CMD (which must create $OUT.tmp) once per key; atomic, locked
# (test files run in parallel), and reused by later runs while the inputs are unchanged.
vm_cached() {
	local key=$1 out=$2; shift 2
	local stamp=$out.key r=0
	if [ -e "$out" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$key" ]; then return 0; fi
	exec {lockfd}>"$out.lock"
	flock "$lockfd"
	if ! { [ -e "$out" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$key" ]; }; then
		rm -rf "$out" "$out.tmp" "$stamp"
		if "$@"; then
			mv "$out.tmp" "$out" && echo "$key" >"$stamp" || r=1
		else
			r=1; rm -rf "$out.tmp"
		fi
	fi
	exec {lockfd}>&-
	return $r
}

# _vm_extract_vmlinux BZIMAGE OUT : the uncompressed ELF kernel of an xz-compressed bzImage (the
# payload found through the setup header: boot protocol 2.08+), written to OUT.
_vm_extract_vmlinux() {
	local bz=$1 out=$2 sects proto poff plen magic
	proto=$(od -An -tu2 -j $((0x206)) -N2 "$bz" | tr -d ' ') || return 1
	[ "${proto:-0}" -ge $((0x208)) ] || return 1
	sects=$(od -An -tu1 -j $((0x1f1)) -N1 "$bz" | tr -d ' ')
	[ "${sects:-0}" -gt 0 ] || sects=4
	poff=$(od -An -tu4 -j $((0x248)) -N4 "$bz" | tr -d ' ')
	plen=$(od -An -tu4 -j $((0x24c)) -N4 "$bz" | tr -d ' ')
	poff=$(( (sects + 1) * 512 + poff ))
	magic=$(od -An -tx1 -j "$poff" -N6 "$bz" | tr -d ' \n')
	[ "$magic" = fd377a585a00 ] || return 1   # xz, as Debian builds it
	command -v xz >/dev/null || return 1
	tail -c +$((poff + 1)) "$bz" | head -c "$plen" | xz -dc --single-stream >"$out" 2>/dev/null || return 1
	[ "$(od -An -tx1 -N4 "$out" | tr -d ' \n')" = 7f454c46 ]
}

# vm_boot_kernel : set VM_BOOT_KERNEL, the kernel file QEMU boots (once per process). A bzImage
# decompresses itself inside the guest before the kernel's clock starts, which under TCG costs
# about as much wall time as the whole boot after it (12 s of a 24 s boot on a slow host). A
# kernel built with CONFIG_PVH boots as its uncompressed ELF image through QEMU's PVH entry
# straight away: the same kernel, so it is extracted once into the cache and used instead;
# VM_KERNEL itself when that is not possible.
VM_BOOT_KERNEL=
vm_boot_kernel() {
	[ -n "$VM_BOOT_KERNEL" ] && return 0
	local out=$VM_CACHE/vmlinux-$VM_KVER
	VM_BOOT_KERNEL=$VM_KERNEL
	if grep -qx 'CONFIG_PVH=y' "$VM_MODBASE/boot/config-$VM_KVER" "$VM_MODBASE/lib/modules/$VM_KVER/config" 2>/dev/null &&
	   mkdir -p "$VM_CACHE" &&
	   vm_cached "$(stat -c '%s %Y %i' "$VM_KERNEL")" "$out" _vm_extract_vmlinux "$VM_KERNEL" "$out.tmp"; then
		VM_BOOT_KERNEL=$out
	fi
}

# vm_flip_byte FILE OFFSET : invert every bit of one byte in place.
vm_flip_byte() {
	local f=$1 off=$2 old new
	old=$(od -A n -t u1 -j "$off" -N 1 "$f" | tr -d ' ')
	[ -n "$old" ] || { vm_die "vm_flip_byte: offset $off beyond $f"; return 1; }
	new=$(( old ^ 255 ))
	# shellcheck disable=SC2059
	printf "$(printf '\\%03o' "$new")" | dd of="$f" bs=1 seek="$off" count=1 conv=notrunc status=none
}

# vm_find_string IMAGE STRING : print the byte offset of STRING's only occurrence in IMAGE.
vm_find_string() {
	local img=$1 s=$2 hits
	hits=$(LC_ALL=C grep -obaF -- "$s" "$img" | cut -d: -f1)
	case $(printf '%s\n' "$hits" | grep -c .) in
		1) echo "$hits" ;;
		0) vm_die "'$s' not found in $img (compressed data?)"; return 1 ;;
		*) vm_die "'$s' occurs more than once in $img"; return 1 ;;
	esac
}

# --- root filesystem --------------------------------------------------------------------------
# The root's /sbin/init: prints one marker line, the agent's status file if there is one, powers
# off. Everything is read from the kernel so the log shows what really happened.
vm_root_init_script() {
	local id=$1
	cat <<EOF
#!/bin/sh
# vm-root-init id=$id
PATH=/bin:/sbin
# The initramfs may have moved /proc, /sys, /dev, /run here already; mount what is missing.
[ -r /proc/uptime ] || mount -t proc proc /proc
[ -d /sys/kernel ] || mount -t sysfs sysfs /sys
[ -c /dev/null ] || mount -t devtmpfs devtmpfs /dev
read -r up _ </proc/uptime
root=\$(awk '\$2 == "/" { l = \$0 } END { print l }' /proc/mounts)
echo "$VM_MARKER id=$id uptime=\$up root=\$root"
if [ -r /run/verity-init/status ]; then
	while read -r line; do echo "VERITY-TEST-STATUS \$line"; done </run/verity-init/status
fi
echo "VERITY-TEST-CMDLINE \$(cat /proc/cmdline)"
echo "VERITY-TEST-ARGS \$*"
echo "VERITY-TEST-ENV \${VERITY_TEST_ENV:-unset}"
# the whole environment PID 1 was started with, sorted, on one line, each variable after a '|'
echo "VERITY-TEST-ENVIRON \$(tr '\\0' '\\n' </proc/1/environ | sort | awk '{ printf "|%s", \$0 }')"
# a TPM's PCRs 8-15 and the userspace measurement log (tests/vm/tpm_measure_test.sh)
for b in /sys/class/tpm/tpm0/pcr-*; do
	[ -d "\$b" ] || continue
	for n in 8 9 10 11 12 13 14 15; do echo "VERITY-TEST-PCR \${b##*/pcr-} \$n \$(cat "\$b/\$n")"; done
done
if [ -r /run/log/systemd/tpm2-measure.log ]; then
	tr -d '\\036' </run/log/systemd/tpm2-measure.log | while read -r line; do echo "VERITY-TEST-MEASURE \$line"; done
fi
for d in /sys/block/dm-*; do
	[ -r "\$d/dm/name" ] && echo "VERITY-TEST-DM \${d##*/} \$(cat "\$d/dm/name") uuid=\$(cat "\$d/dm/uuid")"
done
# What this init inherited: ls runs in a child, so only PID 1's own descriptors are listed
# (0-2, and busybox ash's script descriptor, which it keeps at 10 or above).
echo "VERITY-TEST-FDS of pid 1:"
ls -l /proc/1/fd
# a scenario's own checks on the booted system (tests/vm/ipe_test.sh)
[ -r /etc/vm-root-hook ] && . /etc/vm-root-hook
poweroff -f
EOF
}

# vm_rootfs_tree DIR [ID] : populate DIR with the busybox root (ID goes into the marker).
vm_rootfs_tree() {
	local d=$1 id=${2:-main} a
	mkdir -p "$d"/{bin,sbin,etc,proc,sys,dev,run,tmp,mnt,usr/lib}
	cp /usr/bin/busybox "$d/bin/busybox"
	for a in sh mount umount cat echo awk poweroff reboot sleep ls dmesg sync tr sort; do
		ln -sf busybox "$d/bin/$a"
	done
	vm_root_init_script "$id" >"$d/sbin/init"
	if [ "$id" = sysmgr ]; then
		# a service manager where systemd's switch-root looks for one (SYSTEMD_BINARY_PATH),
		# which it runs in place of /sbin/init: the same script
		mkdir -p "$d/lib/systemd"
		vm_root_init_script "$id" >"$d/lib/systemd/systemd"
		chmod 0755 "$d/lib/systemd/systemd"
	fi
	printf 'NAME="verity-init test root"\nID=verity-test\nVERSION_ID=%s\n' "$id" >"$d/etc/os-release"
	echo "$id" >"$d/etc/vm-root-id"
	chmod 0755 "$d"/bin/busybox "$d/sbin/init"
	chmod 0644 "$d/etc/os-release" "$d/etc/vm-root-id"
	find "$d" -exec touch -h -d "@$VM_EPOCH" {} +
}

# vm_mkfs FSTYPE TREE OUT : make an image (size a multiple of 4096) from TREE, reproducibly.
vm_mkfs() {
	local fs=$1 tree=$2 out=$3 kib a p
	rm -f "$out"
	case $fs in
	ext4)
		kib=$(du -sk "$tree" | cut -f1)
		kib=$(( (kib * 13 / 10 + 1024 + 1023) / 1024 * 1024 ))   # +30 % and 1 MiB metadata
		E2FSPROGS_FAKE_TIME=$VM_EPOCH mkfs.ext4 -q -F -b 4096 -L vmroot -U "$VM_FS_UUID" \
			-O ^has_journal -E "hash_seed=$VM_FS_UUID,root_owner=0:0" -N 64 \
			-d "$tree" "$out" "${kib}k" >/dev/null &&
		# mke2fs copies atime/ctime from the tree, which reading it changes: pin them.
		(cd "$tree" && find . | sed 's|^\.||; s|^$|/|') | while read -r p; do
			for a in atime ctime mtime crtime; do echo "sif \"$p\" $a @$VM_EPOCH"; done
			for a in atime_extra ctime_extra mtime_extra crtime_extra; do echo "sif \"$p\" $a 0"; done
		done | E2FSPROGS_FAKE_TIME=$VM_EPOCH debugfs -w -f - "$out" >/dev/null 2>&1 ;;
	squashfs)
		# Data blocks stored uncompressed (-noD -noF -no-fragments) so a file's bytes can be
		# found in the image for corruption tests; metadata stays compressed.
		mksquashfs "$tree" "$out" -quiet -no-progress -noappend -all-root -noD -noF \
			-no-fragments -no-xattrs -mkfs-time "$VM_EPOCH" -all-time "$VM_EPOCH" \
			-processors 1 >/dev/null ;;
	erofs)
		# noinline_data: small files get their own data block (not packed next to the inode),
		# so "a file's data block" means the same thing as on ext4.
		mkfs.erofs --quiet -Enoinline_data -T"$VM_EPOCH" -U"$VM_FS_UUID" --all-root "$out" "$tree" >/dev/null ;;
	*)	vm_die "vm_mkfs: unknown filesystem '$fs'"; return 1 ;;
	esac || { vm_die "vm_mkfs: $fs failed"; return 1; }
	truncate -s "%4096" "$out"
}

_vm_build_base() {   # FSTYPE ID OUT.tmp
	local tmp
	tmp=$(mktemp -d "$VM_CACHE/tree.XXXXXX") || return 1
	vm_rootfs_tree "$tmp/root" "$2" && vm_mkfs "$1" "$tmp/root" "$3"
	local r=$?
	rm -rf "$tmp"
	return $r
}

# vm_base_image FSTYPE [ID] : print the path of the cached, read-only root image (build once).
# Copy it before changing it (vm_verity_setup* do).
vm_base_image() {
	local fs=$1 id=${2:-main} out key
	out=$VM_CACHE/root-$id.$fs
	key=$(vm_cache_key "root" "$fs" "$id" "$(sha256sum /usr/bin/busybox)" \
		"$(declare -f vm_rootfs_tree vm_root_init_script | sha256sum)" \
		"$(mkfs.ext4 -V 2>&1 | head -n1)" "$(mksquashfs -version 2>&1 | head -n1)" \
		"$(mkfs.erofs -V 2>&1 | head -n1)")
	vm_cached "$key" "$out" _vm_build_base "$fs" "$id" "$out.tmp" || return 1
	echo "$out"
}

# --- dm-verity formatting ---------------------------------------------------------------------
# The formatter: veritysetup, or our own verity-image (same "format" command line, byte-identical
# output: tested below); auto = verity-image once it is built, else veritysetup.
vm_verity_tool() {
	local t=${1:-$VM_VERITY_TOOL}
	if [ "$t" = auto ]; then
		if [ -x "$BUILD/verity-image" ]; then t=verity-image; else t=veritysetup; fi
	fi
	case $t in
	veritysetup) command -v veritysetup || echo /usr/sbin/veritysetup ;;
	verity-image) echo "$BUILD/verity-image" ;;
	*) echo "$t" ;;
	esac
}

# vm_verity_format TOOL DATA HASH [OPTION...] : format, print the root hash (hex) on stdout.
# TOOL: auto | veritysetup | verity-image | a path. Options are veritysetup's (e.g. --hash-offset=N,
# --no-superblock, --salt=HEX, --data-block-size=N). Fixed salt and uuid unless given.
vm_verity_format() {
	local tool data=$2 hash=$3 out rh
	tool=$(vm_verity_tool "$1"); shift 3
	local extra=()
	case " $* " in *" --salt"*|*" -s "*) ;; *) extra+=("--salt=$VM_VERITY_SALT") ;; esac
	case " $* " in *" --uuid"*|*" --no-superblock"*) ;; *) extra+=("--uuid=$VM_VERITY_UUID") ;; esac
	out=$("$tool" format "${extra[@]}" "$@" "$data" "$hash" 2>&1) ||
		{ vm_die "$tool format failed: $out"; return 1; }
	rh=$(printf '%s\n' "$out" | sed -n 's/^Root hash:[[:space:]]*\([0-9a-fA-F]*\).*/\1/p' | head -n1)
	[ -n "$rh" ] || { vm_die "no 'Root hash:' in the output of $tool: $out"; return 1; }
	echo "$rh"
}

# vm_verity_setup FSTYPE DIR [OPTION...] : DIR/data.img (copy of the base image) and DIR/hash.img;
# writes DIR/vars (ROOTHASH=..., DATA=..., HASH=..., FSTYPE=...) and prints the root hash.
# VM_ROOT_ID=recovery selects the image whose marker says id=recovery.
vm_verity_setup() {
	local fs=$1 dir=$2 base rh; shift 2
	base=$(vm_base_image "$fs" "${VM_ROOT_ID:-main}") || return 1
	mkdir -p "$dir"
	cp "$base" "$dir/data.img" && rm -f "$dir/hash.img" || return 1
	rh=$(vm_verity_format "$VM_VERITY_TOOL" "$dir/data.img" "$dir/hash.img" "$@") || return 1
	printf 'ROOTHASH=%s\nDATA=%s\nHASH=%s\nFSTYPE=%s\nHASH_OFFSET=0\n' \
		"$rh" "$dir/data.img" "$dir/hash.img" "$fs" >"$dir/vars"
	echo "$rh"
}

# vm_verity_setup_combined FSTYPE DIR [OPTION...] : one device DIR/disk.img, the hash area right
# after the data (--hash-offset = data size). DIR/vars has ROOTHASH, DISK, HASH_OFFSET, FSTYPE.
vm_verity_setup_combined() {
	local fs=$1 dir=$2 base rh off; shift 2
	base=$(vm_base_image "$fs" "${VM_ROOT_ID:-main}") || return 1
	mkdir -p "$dir"
	cp "$base" "$dir/disk.img" || return 1
	off=$(vm_size "$dir/disk.img")
	rh=$(vm_verity_format "$VM_VERITY_TOOL" "$dir/disk.img" "$dir/disk.img" \
		"--hash-offset=$off" "--data-blocks=$(( off / 4096 ))" "$@") || return 1
	printf 'ROOTHASH=%s\nDISK=%s\nDATA=%s\nHASH=%s\nHASH_OFFSET=%s\nFSTYPE=%s\n' \
		"$rh" "$dir/disk.img" "$dir/disk.img" "$dir/disk.img" "$off" "$fs" >"$dir/vars"
	echo "$rh"
}

# vm_roothash_uuid HEX HALF : the UUID systemd derives from the root hash (HALF: first|last 128 bits).
vm_roothash_uuid() {
	local h=$1 u
	case $2 in first) u=${h:0:32} ;; last) u=${h: -32} ;; *) return 1 ;; esac
	echo "${u:0:8}-${u:8:4}-${u:12:4}-${u:16:4}-${u:20:12}" | tr 'A-F' 'a-f'
}

# vm_verity_setup_gpt FSTYPE DIR [OPTION...] : DIR/disk.img, a GPT disk with partition 1 = data
# (type root-x86-64, PARTUUID = first 128 bits of the root hash) and partition 2 = hash tree (type
# root-x86-64-verity, PARTUUID = last 128 bits), as systemd's Discoverable Partitions want.
# DIR/vars: ROOTHASH DISK DATA_PARTUUID HASH_PARTUUID FSTYPE (+ DATA, HASH: the separate files).
vm_verity_setup_gpt() {
	local fs=$1 dir=$2 rh dsz hsz dsec hsec start1 start2 total du hu; shift 2
	rh=$(vm_verity_setup "$fs" "$dir" "$@") || return 1
	dsz=$(vm_size "$dir/data.img"); hsz=$(vm_size "$dir/hash.img")
	# Partitions rounded up to whole MiB (2048 sectors).
	dsec=$(( (dsz + 1048575) / 1048576 )); dsec=$(( dsec * 2048 ))
	hsec=$(( (hsz + 1048575) / 1048576 )); hsec=$(( hsec * 2048 ))
	start1=2048; start2=$(( start1 + dsec ))
	total=$(( (start2 + hsec + 2048) * 512 ))
	du=$(vm_roothash_uuid "$rh" first); hu=$(vm_roothash_uuid "$rh" last)
	rm -f "$dir/disk.img"
	truncate -s "$total" "$dir/disk.img"
	sgdisk --disk-guid=5a1e0c7e-0000-4000-8000-0000000000d1 \
		-n "1:$start1:+$dsec" -t "1:$VM_GPT_TYPE_ROOT" -u "1:$du" -c 1:root \
		-n "2:$start2:+$hsec" -t "2:$VM_GPT_TYPE_VERITY" -u "2:$hu" -c 2:root-verity \
		"$dir/disk.img" >/dev/null || { vm_die "sgdisk failed"; return 1; }
	dd if="$dir/data.img" of="$dir/disk.img" bs=1M seek=$(( start1 * 512 )) oflag=seek_bytes \
		conv=notrunc status=none &&
	dd if="$dir/hash.img" of="$dir/disk.img" bs=1M seek=$(( start2 * 512 )) oflag=seek_bytes \
		conv=notrunc status=none || return 1
	printf 'DISK=%s\nDATA_PARTUUID=%s\nHASH_PARTUUID=%s\nDATA_OFFSET=%s\nHASH_PART_OFFSET=%s\n' \
		"$dir/disk.img" "$du" "$hu" "$(( start1 * 512 ))" "$(( start2 * 512 ))" >>"$dir/vars"
	echo "$rh"
}

# --- corruption -------------------------------------------------------------------------------
# vm_file_offset IMAGE FSTYPE PATH [BLOCK] : byte offset of a file's data block BLOCK (default 0)
# in a filesystem image. ext4: debugfs bmap. squashfs/erofs (data stored uncompressed): found by
# content -- /sbin/init by its unique "# vm-root-init id=ID" line (ID from VM_ROOT_ID, default
# main), any other PATH by VM_CORRUPT_STRING (unique text at the start of the file).
vm_file_offset() {
	local img=$1 fs=$2 path=$3 blk=${4:-0} pblk bs off
	case $fs in
	ext4)
		pblk=$(debugfs -R "bmap $path $blk" "$img" 2>/dev/null | tail -n1)
		case $pblk in ''|0|*[!0-9]*) vm_die "debugfs bmap $path $blk: '$pblk'"; return 1 ;; esac
		bs=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size:[[:space:]]*//p')
		echo $(( pblk * bs )) ;;
	squashfs|erofs)
		[ "$blk" = 0 ] || { vm_die "vm_file_offset: only block 0 on $fs"; return 1; }
		if [ "$path" = /sbin/init ]; then
			off=$(vm_find_string "$img" "# vm-root-init id=${VM_ROOT_ID:-main}") || return 1
			echo $(( off - 10 ))    # after "#!/bin/sh\n"
		else
			vm_find_string "$img" "${VM_CORRUPT_STRING:?set VM_CORRUPT_STRING for $path on $fs}"
		fi ;;
	*) vm_die "vm_file_offset: unknown filesystem '$fs'"; return 1 ;;
	esac
}

# vm_corrupt_file IMAGE FSTYPE PATH [BLOCK] [BYTE] : flip one byte (BYTE within the block) of a
# file's data block; prints the image offset. Default BYTE for /sbin/init is 12, inside its
# comment line: the script would still run if the flip went unnoticed, so only dm-verity can
# stop the marker (a test that cannot fail otherwise). Default for other files: 0.
vm_corrupt_file() {
	local img=$1 fs=$2 path=$3 blk=${4:-0} byte=${5:-} off
	off=$(vm_file_offset "$img" "$fs" "$path" "$blk") || return 1
	[ -n "$byte" ] || { [ "$path" = /sbin/init ] && [ "$blk" = 0 ] && byte=12 || byte=0; }
	off=$(( off + byte ))
	vm_flip_byte "$img" "$off" && echo "$off"
}

# vm_corrupt_string IMAGE STRING : flip the first byte of STRING's only occurrence.
vm_corrupt_string() {
	local off
	off=$(vm_find_string "$1" "$2") || return 1
	vm_flip_byte "$1" "$off" && echo "$off"
}

# vm_corrupt_hash_block HASHDEV [HASH_OFFSET] [INDEX] [BYTE] [SB_SIZE] : flip a byte of hash-tree
# block INDEX (4096-byte hash blocks). The tree starts at HASH_OFFSET + SB_SIZE (4096: the
# veritysetup superblock; 0 for --no-superblock). veritysetup stores the top level first: INDEX 0
# is the block the root hash covers, the leaves follow (1024 data blocks, sha256: 1 top block,
# then 8 leaves, leaf k covering data blocks 128(k-1) .. 128k-1). Prints the offset.
vm_corrupt_hash_block() {
	local dev=$1 hoff=${2:-0} idx=${3:-0} byte=${4:-0} sb=${5:-4096} off
	off=$(( hoff + sb + idx * 4096 + byte ))
	[ "$off" -lt "$(vm_size "$dev")" ] || { vm_die "hash block $idx beyond $dev"; return 1; }
	vm_flip_byte "$dev" "$off" && echo "$off"
}

# vm_corrupt_superblock HASHDEV [HASH_OFFSET] [FIELD] : tamper the veritysetup superblock.
# FIELD: magic | version | hash_type | uuid | algorithm | data_block_size | hash_block_size |
# data_blocks | salt_size | salt (default salt: still parses, the root hash no longer matches).
vm_corrupt_superblock() {
	local dev=$1 hoff=${2:-0} field=${3:-salt} rel
	case $field in
	magic) rel=0 ;; version) rel=8 ;; hash_type) rel=12 ;; uuid) rel=16 ;; algorithm) rel=32 ;;
	data_block_size) rel=65 ;; hash_block_size) rel=69 ;; data_blocks) rel=72 ;;
	salt_size) rel=80 ;; salt) rel=88 ;;
	*) vm_die "vm_corrupt_superblock: unknown field '$field'"; return 1 ;;
	esac
	vm_flip_byte "$dev" $(( hoff + rel )) && echo $(( hoff + rel ))
}

# --- initramfs --------------------------------------------------------------------------------
# vm_module_paths MODULE... : print the .ko paths to load, dependencies first, each once;
# built-in modules print nothing. One modprobe call per module (it takes one name).
vm_module_paths() {
	local m
	for m in "$@"; do
		modprobe ${VM_MODBASE:+-d "$VM_MODBASE"} -S "$VM_KVER" --show-depends "$m" ||
			{ vm_die "modprobe --show-depends $m failed for $VM_KVER"; return 1; }
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }'
}

# _vm_copy_with_libs BINARY ROOT : BINARY and its shared libraries (ldd) into ROOT.
_vm_copy_with_libs() {
	local bin=$1 root=$2 lib
	mkdir -p "$root$(dirname "$bin")"
	cp -L "$bin" "$root$bin"
	for lib in $(ldd "$bin" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

# vm_initramfs [OPTION...] OUT INIT : build a standalone initramfs (cpio newc) with INIT as /init.
#   --busybox           /bin/busybox plus applet links (default when INIT is a script: "#!")
#   --no-busybox        never add busybox
#   --dmsetup           /usr/sbin/dmsetup with its shared libraries (default for a script INIT)
#   --modules "M ..."   module names (default $VM_MODULES_DEFAULT); "" for none
#   --file SRC DEST     add a file (repeatable; DEST is an absolute path in the image)
#   --tree DIR          add a directory tree at / (repeatable)
#   --compress gzip|none (default gzip)
# Writes /etc/verity-init/modules: the .ko paths in load order, the files at those same paths.
vm_initramfs() {
	local bb=auto dm=auto mods=$VM_MODULES_DEFAULT comp=gzip files=() trees=() out init
	while [ $# -gt 2 ]; do
		case $1 in
		--busybox) bb=1; shift ;;
		--no-busybox) bb=0; shift ;;
		--dmsetup) dm=1; shift ;;
		--no-dmsetup) dm=0; shift ;;
		--modules) mods=$2; shift 2 ;;
		--file) files+=("$2" "$3"); shift 3 ;;
		--tree) trees+=("$2"); shift 2 ;;
		--compress) comp=$2; shift 2 ;;
		*) break ;;
		esac
	done
	[ $# -eq 2 ] || { vm_die "usage: vm_initramfs [options] OUT INIT"; return 1; }
	out=$1 init=$2
	[ -r "$init" ] || { vm_die "vm_initramfs: no init '$init'"; return 1; }
	if [ "$(head -c 2 "$init")" = "#!" ]; then
		[ "$bb" = auto ] && bb=1; [ "$dm" = auto ] && dm=1
	fi
	[ "$bb" = 1 ] || bb=0; [ "$dm" = 1 ] || dm=0

	local root ko a i
	root=$(mktemp -d "$VM_DIR/initramfs.XXXXXX") || return 1
	mkdir -p "$root"/{bin,sbin,etc/verity-init,proc,sys,dev,run,newroot,tmp}
	cp "$init" "$root/init" && chmod 0755 "$root/init"
	# Compressed modules (.ko.xz on 6.12) are stored decompressed under their .ko name: the
	# agent's finit_module and busybox insmod take plain ELF (the signature survives).
	# shellcheck disable=SC2086  # a list of names
	vm_module_paths $mods >"$root/etc/verity-init/modules.src" || { rm -rf "$root"; return 1; }
	while read -r ko; do
		local dst=$ko dec=(cat)
		case $ko in
		*.ko.xz) dst=${ko%.xz}; dec=(xz -dc) ;;
		*.ko.zst) dst=${ko%.zst}; dec=(zstd -dcq) ;;
		*.ko.gz) dst=${ko%.gz}; dec=(gzip -dc) ;;
		esac
		{ mkdir -p "$root$(dirname "$dst")" && "${dec[@]}" <"$ko" >"$root$dst" &&
			echo "$dst" >>"$root/etc/verity-init/modules"; } || { rm -rf "$root"; return 1; }
	done <"$root/etc/verity-init/modules.src"
	rm -f "$root/etc/verity-init/modules.src"
	touch "$root/etc/verity-init/modules"
	# The kernel opens /dev/console for /init's stdio before anything is mounted (most kernels
	# also carry one in their built-in initramfs; root can make it, others rely on that).
	mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || true
	if [ "$bb" = 1 ]; then
		cp /usr/bin/busybox "$root/bin/busybox"
		for a in sh ash mount umount cat echo sleep ls mkdir insmod switch_root poweroff reboot \
			 od dd awk sed grep tr cut head tail dmesg blockdev stat test printf hexdump; do
			ln -sf busybox "$root/bin/$a"
		done
	fi
	[ "$dm" = 1 ] && _vm_copy_with_libs "$(command -v dmsetup || echo /usr/sbin/dmsetup)" "$root"
	for (( i = 0; i < ${#files[@]}; i += 2 )); do
		mkdir -p "$root$(dirname "${files[i+1]}")"
		cp -L "${files[i]}" "$root${files[i+1]}" || { rm -rf "$root"; return 1; }
	done
	for i in "${trees[@]}"; do cp -a "$i/." "$root/" || { rm -rf "$root"; return 1; }; done
	# Reproducible archive: fixed times, sorted names, root-owned.
	find "$root" -exec touch -h -d "@$VM_EPOCH" {} +
	(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
		cpio --quiet -o -H newc -R 0:0 --reproducible) >"$out.cpio" || { rm -rf "$root"; return 1; }
	rm -rf "$root"
	case $comp in
	gzip) gzip -n -6 -c "$out.cpio" >"$out" && rm -f "$out.cpio" ;;
	none) mv "$out.cpio" "$out" ;;
	*) vm_die "vm_initramfs: unknown compression '$comp'"; return 1 ;;
	esac
}

# vm_script_initramfs : print the path of the cached initramfs whose /init is init-dmsetup.sh.
vm_script_initramfs() {
	local out=$VM_CACHE/initramfs-dmsetup-$VM_KVER.img key
	key=$(vm_cache_key "initramfs-dmsetup" "$VM_KVER" "$VM_MODULES_DEFAULT" \
		"$(sha256sum /usr/bin/busybox "$(command -v dmsetup || echo /usr/sbin/dmsetup)")")
	vm_cached "$key" "$out" vm_initramfs "$out.tmp" "$VM_SRCDIR/init-dmsetup.sh" || return 1
	echo "$out"
}

# Hook for dracut images (implemented in tests/vm/lib-dracut.sh, sourced below when present):
# vm_dracut_initramfs OUT [dracut options...] must build OUT.
if ! declare -F vm_dracut_initramfs >/dev/null; then
	vm_dracut_initramfs() { vm_die "vm_dracut_initramfs: not implemented (tests/vm/lib-dracut.sh)"; }
fi
# shellcheck source=/dev/null
[ -r "$VM_SRCDIR/lib-dracut.sh" ] && . "$VM_SRCDIR/lib-dracut.sh"

# --- boot runner ------------------------------------------------------------------------------
# vm_accel : print the accelerator to use (tcg unless VM_ACCEL=kvm|auto and a KVM probe boot of
# at most 15 s succeeded; the probe runs once per run, its result is cached).
vm_accel() {
	case $VM_ACCEL in
	tcg) echo tcg; return ;;
	kvm|auto) ;;
	*) vm_log "VM_ACCEL=$VM_ACCEL unknown, using tcg"; echo tcg; return ;;
	esac
	[ -w /dev/kvm ] || { echo tcg; return; }
	local probe=$VM_DIR/accel-probe.$VM_RUN_ID
	exec {pfd}>"$VM_DIR/accel-probe.lock"
	flock "$pfd"
	if [ ! -s "$probe" ]; then
		if _vm_probe_boot kvm; then echo kvm >"$probe"; else echo tcg >"$probe"; fi
	fi
	exec {pfd}>&-
	cat "$probe"
}

# _vm_probe_boot ACCEL : boot a do-nothing initramfs with ACCEL; success only if it printed its
# line and powered off within 15 s (KVM that hangs is killed and reported as unusable).
_vm_probe_boot() {
	local accel=$1 d r=1 cpu=()
	[ "$accel" = kvm ] && cpu=(-cpu host)
	d=$(mktemp -d "$VM_DIR/probe.XXXXXX") || return 1
	printf '#!/bin/busybox sh\n/bin/busybox echo ACCEL-PROBE-OK\n/bin/busybox poweroff -f\n' >"$d/init"
	vm_initramfs --busybox --no-dmsetup --modules "" "$d/rd" "$d/init" || { rm -rf "$d"; return 1; }
	vm_boot_kernel
	_vm_take_slot
	if timeout -k 2 15 qemu-system-x86_64 -accel "$accel" "${cpu[@]}" -m 256 -smp 1 -nographic \
		-no-reboot -net none -serial "file:$d/log" -monitor none -kernel "$VM_BOOT_KERNEL" \
		-initrd "$d/rd" -append "console=ttyS0 panic=-1 quiet" </dev/null >/dev/null 2>&1 &&
	   grep -q ACCEL-PROBE-OK "$d/log"; then
		r=0
	fi
	exec {_vm_slot_fd}>&-
	rm -rf "$d"
	return $r
}

# Take one of VM_PARALLEL slot locks (flock) for the whole run; sets _vm_slot_fd.
_vm_take_slot() {
	local i
	while :; do
		for (( i = 0; i < VM_PARALLEL; i++ )); do
			exec {_vm_slot_fd}>"$VM_SLOT_DIR/slot.$i.lock"
			if flock -n "$_vm_slot_fd"; then return 0; fi
			exec {_vm_slot_fd}>&-
		done
		sleep 0.2
	done
}

# Hot-add after a delay through QMP on the FIFO pair MON.in / MON.out (no socat or python
# needed): a read-only raw block node, then a virtio-blk PCI device on it (ACPI hotplug on pc).
_vm_hotadd() {   # MONPREFIX WHEN FILE INDEX LOG
	local mon=$1 when=$2 file=$3 n=$4 log=$5
	case $when in
	log:*)	# once the serial log matches the regex (e.g. the initramfs started waiting)
		until grep -aEq -- "${when#log:}" "$log" 2>/dev/null; do sleep 0.2; done ;;
	*)	sleep "$when" ;;
	esac
	{
		printf '{"execute":"qmp_capabilities"}\n'
		printf '{"execute":"blockdev-add","arguments":{"driver":"raw","node-name":"hot%s","read-only":true,"file":{"driver":"file","filename":"%s","read-only":true}}}\n' "$n" "$file"
		printf '{"execute":"device_add","arguments":{"driver":"virtio-blk-pci","drive":"hot%s","id":"hotdev%s"}}\n' "$n" "$n"
	} >"$mon.in"
}

# _vm_run_bounded TIMEOUT UNTIL LOG OUT COMMAND... : run COMMAND (QEMU) under
# `timeout -k 5 TIMEOUT`, its output to OUT; with UNTIL (an extended regex; empty: none) stop it
# 2 s after LOG matches UNTIL (so that anything that would follow is in the log) and return 125.
# Else COMMAND's status (124 or 137 when the timeout ended it).
_vm_run_bounded() {
	local timeout=$1 until=$2 log=$3 out=$4 qpid wpid="" r; shift 4
	rm -f "$log.until"
	timeout -k 5 "$timeout" "$@" </dev/null >"$out" 2>&1 &
	qpid=$!
	if [ -n "$until" ]; then
		# (the watcher must not hold the slot lock: it could outlive QEMU)
		( exec {_vm_slot_fd}>&-
		  while kill -0 "$qpid" 2>/dev/null; do
			if grep -aEq -- "$until" "$log" 2>/dev/null; then
				sleep 2; : >"$log.until"; kill "$qpid" 2>/dev/null; break
			fi
			sleep 0.5
		  done ) &
		wpid=$!
	fi
	wait "$qpid"
	r=$?
	[ -n "$wpid" ] && { kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null; }
	if [ -e "$log.until" ]; then rm -f "$log.until"; return 125; fi
	return $r
}

# vm_record_boot NAME WALL ACCEL STATUS : one line of $VM_DIR/timings.$VM_RUN_ID for a boot that
# ran (every boot runner calls it once per QEMU): "NAME WALL ACCEL STATUS FILE", FILE the test
# file it counts against (VM_TEST_FILE). run.sh sums them per file and checks tests/vm/budget.
vm_record_boot() {
	echo "$1 $2 $3 $4 $VM_TEST_FILE" >>"$VM_DIR/timings.$VM_RUN_ID"
}

# vm_boot [OPTION...] NAME INITRD CMDLINE : boot the kernel with INITRD and the command line
# "$VM_CMDLINE_BASE CMDLINE"; serial console to
# $BUILD/vm/logs/NAME.log. Returns 0 when the guest stopped by itself (power-off, or a panic:
# panic=-1 + -no-reboot), 124 on timeout (log tail printed), 1 on a harness error.
#   --disk FILE         attach FILE read-only as the next virtio disk (vda, vdb, ...)
#   --disk-rw FILE      attach FILE writable
#   --hotadd WHEN FILE  hot-add FILE (read-only virtio disk, the next /dev/vdX) when WHEN is met:
#                       SECS after QEMU started, or "log:REGEX" once the serial log matches REGEX
#   --timeout SECS      instead of VM_TIMEOUT
#   --until REGEX       stop QEMU 2 s after the serial log matches REGEX and return 125 (a boot
#                       that would wait for input forever, e.g. at a shell prompt)
#   --mem MIB           instead of VM_MEM
# Sets VM_LOG (the log path), VM_WALL (seconds, 2 decimals), VM_STATUS (exit code), VM_ACCEL_USED.
vm_boot() {
	local timeout=$VM_TIMEOUT mem=$VM_MEM drives=() hot=() name initrd cmdline until=""
	while [ $# -gt 3 ]; do
		case $1 in
		--disk) drives+=(-drive "file=$2,format=raw,if=virtio,readonly=on"); shift 2 ;;
		--disk-rw) drives+=(-drive "file=$2,format=raw,if=virtio"); shift 2 ;;
		--hotadd) hot+=("$2" "$3"); shift 3 ;;
		--timeout) timeout=$2; shift 2 ;;
		--until) until=$2; shift 2 ;;
		--mem) mem=$2; shift 2 ;;
		*) break ;;
		esac
	done
	[ $# -eq 3 ] || { vm_die "usage: vm_boot [options] NAME INITRD CMDLINE"; return 1; }
	name=$1 initrd=$2 cmdline=$3
	VM_LOG=$VM_LOGDIR/$name.log
	VM_ACCEL_USED=$(vm_accel)
	local mon=$VM_DIR/mon.$name.$$ cpu=() i pids=() t0 t1
	[ "$VM_ACCEL_USED" = kvm ] && cpu=(-cpu host)
	local bios=()
	case $VM_BIOS in
	seabios|default|'') ;;
	qboot) [ -r /usr/share/qemu/qboot.rom ] && bios=(-bios /usr/share/qemu/qboot.rom) ;;
	*) bios=(-bios "$VM_BIOS") ;;
	esac
	local mona=(-monitor none)
	if [ ${#hot[@]} -gt 0 ]; then
		rm -f "$mon.in" "$mon.out"; mkfifo "$mon.in" "$mon.out"
		mona=(-chardev "pipe,id=mon0,path=$mon" -mon "chardev=mon0,mode=control")
	fi
	vm_boot_kernel
	local cmd=(qemu-system-x86_64 -accel "$VM_ACCEL_USED" "${cpu[@]}" "${bios[@]}" -m "$mem" -smp 1
		-nographic -no-reboot -net none -serial "file:$VM_LOG" "${mona[@]}"
		-kernel "$VM_BOOT_KERNEL" -initrd "$initrd" -append "$VM_CMDLINE_BASE $cmdline"
		"${drives[@]}")
	# shellcheck disable=SC2086
	set -- $VM_QEMU_EXTRA
	cmd+=("$@")
	[ "${VM_VERBOSE:-0}" = 1 ] && vm_log "${cmd[*]}"
	: >"$VM_LOG"
	_vm_take_slot
	t0=$(date +%s.%N)
	for (( i = 0; i < ${#hot[@]}; i += 2 )); do
		# (the helpers must not hold the slot lock: a sleeping child could outlive QEMU)
		( exec {_vm_slot_fd}>&-; _vm_hotadd "$mon" "${hot[i]}" "${hot[i+1]}" "$(( i / 2 ))" "$VM_LOG" ) &
		pids+=($!)
	done
	# QMP's replies go to NAME.monitor (read it when a hot-add did not happen).
	[ ${#hot[@]} -gt 0 ] && { ( exec {_vm_slot_fd}>&-; exec cat "$mon.out" >"$VM_LOGDIR/$name.monitor" ) & pids+=($!); }
	_vm_run_bounded "$timeout" "$until" "$VM_LOG" "$VM_LOGDIR/$name.qemu" "${cmd[@]}"
	VM_STATUS=$?
	t1=$(date +%s.%N)
	exec {_vm_slot_fd}>&-
	for i in "${pids[@]}"; do kill "$i" 2>/dev/null; wait "$i" 2>/dev/null; done
	rm -f "$mon.in" "$mon.out"
	VM_WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	vm_record_boot "$name" "$VM_WALL" "$VM_ACCEL_USED" "$VM_STATUS"
	if [ "$VM_STATUS" = 125 ]; then
		vm_log "$name: stopped after ${VM_WALL}s wall: the log matched /$until/"
		return 125
	fi
	if [ "$VM_STATUS" = 124 ] || [ "$VM_STATUS" = 137 ]; then
		vm_log "$name: TIMEOUT after ${timeout}s ($VM_ACCEL_USED); last 30 lines of $VM_LOG:"
		vm_log_tail "$VM_LOG"
		VM_STATUS=124
		return 124
	fi
	if [ "$VM_STATUS" != 0 ]; then
		vm_log "$name: qemu exited with $VM_STATUS: $(tail -n 5 "$VM_LOGDIR/$name.qemu")"
		return 1
	fi
	vm_log "$name: stopped after ${VM_WALL}s wall ($VM_ACCEL_USED)$(
		u=$(vm_marker_uptime "$VM_LOG") && echo ", marker at ${u}s guest uptime")"
	return 0
}

# vm_shared_boot KEY COMMAND... : run COMMAND (a boot: vm_boot, uefi_boot or a file's own boot
# function) the first time a test of this file asks for KEY; a later call with the same KEY boots
# nothing and gives back what that boot left: its return status, VM_LOG, VM_STATUS, VM_WALL and
# VM_ACCEL_USED. Tests whose assertions hold on one booted system (the same image, initramfs and
# command line) call it with the same KEY and COMMAND, so a file boots it once while each test
# still runs alone (`-- test_name`). shunit2 runs a file's tests in one shell, which keeps the
# record.
declare -gA _VM_SHARED=()
vm_shared_boot() {
	local key=$1 r; shift
	if [ -n "${_VM_SHARED[$key]:-}" ]; then
		read -r r VM_STATUS VM_WALL VM_ACCEL_USED VM_LOG <<<"${_VM_SHARED[$key]}"
		vm_log "$key: shared boot, its log $VM_LOG"
		return "$r"
	fi
	# a command that fails before it boots leaves no earlier boot's status behind
	VM_STATUS=1 VM_LOG=/dev/null
	"$@"
	r=$?
	_VM_SHARED[$key]="$r ${VM_STATUS:-1} ${VM_WALL:-0} ${VM_ACCEL_USED:-tcg} ${VM_LOG:-/dev/null}"
	return "$r"
}

# --- log reading and assertions ---------------------------------------------------------------
vm_log_tail() { tail -n "${2:-30}" "$1" | sed 's/^/    | /' >&2; }

# vm_marker_line LOG : the root's marker line (fails when absent).
vm_marker_line() {
	local l
	l=$(grep -a -o -m1 "$VM_MARKER id=.*" "$1") || return 1
	printf '%s\n' "${l%$'\r'}"
}
# vm_marker_uptime LOG : guest uptime (s) when the root's init ran.
vm_marker_uptime() { vm_marker_line "$1" | sed -n 's/.* uptime=\([0-9.]*\).*/\1/p' | grep .; }

_vm_fail() {   # MESSAGE LOG
	fail "$1 (log: $2)"
	vm_log_tail "$2"
}

# vm_assert_marker LOG [ID] : the root's /sbin/init ran (and is the image ID when given).
vm_assert_marker() {
	local l
	if ! l=$(vm_marker_line "$1"); then _vm_fail "no $VM_MARKER line" "$1"; return 1; fi
	if [ -n "${2:-}" ] && ! printf '%s' "$l" | grep -q " id=$2 "; then
		_vm_fail "marker is not from root id=$2: $l" "$1"; return 1
	fi
}

# vm_assert_no_marker LOG : the root's /sbin/init never ran.
vm_assert_no_marker() {
	if vm_marker_line "$1" >/dev/null; then
		_vm_fail "$VM_MARKER printed but must not be: $(vm_marker_line "$1")" "$1"; return 1
	fi
}

# vm_assert_root_mapper LOG NAME [FSTYPE] : the marker shows / on /dev/mapper/NAME (or its
# /dev/dm-N alias) mounted read-only.
vm_assert_root_mapper() {
	local log=$1 name=$2 fs=${3:-} l dev type opts
	l=$(vm_marker_line "$log") || { _vm_fail "no $VM_MARKER line" "$log"; return 1; }
	# shellcheck disable=SC2086  # split the /proc/mounts fields
	set -- ${l#* root=}
	dev=${1:-} type=${3:-} opts=${4:-}
	if [ "$dev" != "/dev/mapper/$name" ] && ! case $dev in /dev/dm-*) true ;; *) false ;; esac; then
		_vm_fail "/ is '$dev', expected /dev/mapper/$name: $l" "$log"; return 1
	fi
	case ",$opts," in *,ro,*) ;; *) _vm_fail "/ is not mounted ro: $l" "$log"; return 1 ;; esac
	if [ -n "$fs" ] && [ "$type" != "$fs" ]; then
		_vm_fail "/ is $type, expected $fs: $l" "$log"; return 1
	fi
}

# vm_assert_log_contains LOG REGEX [MESSAGE] : extended regex somewhere in the log.
vm_assert_log_contains() {
	grep -aEq -- "$2" "$1" || { _vm_fail "${3:-log lacks /$2/}" "$1"; return 1; }
}

# vm_assert_log_lacks LOG REGEX [MESSAGE]
vm_assert_log_lacks() {
	! grep -aEq -- "$2" "$1" || {
		_vm_fail "${3:-log has /$2/}: $(grep -aE -m1 -- "$2" "$1")" "$1"; return 1; }
}

# vm_assert_log_order LOG REGEX1 REGEX2 [MESSAGE] : a line matching REGEX2 comes after the first
# line matching REGEX1 (e.g. a disk appeared after the agent started waiting for it).
vm_assert_log_order() {
	local a b
	a=$(grep -anE -m1 -- "$2" "$1" | cut -d: -f1)
	b=$(grep -anE -- "$3" "$1" | tail -n1 | cut -d: -f1)
	if [ -z "$a" ] || [ -z "$b" ] || [ "$b" -le "$a" ]; then
		_vm_fail "${4:-/$3/ (line ${b:-none}) not after /$2/ (line ${a:-none})}" "$1"; return 1
	fi
}

# vm_log_time LOG REGEX : the kernel timestamp (s) of the first "[ t ]" line matching REGEX.
vm_log_time() {
	grep -aE -m1 -- "$2" "$1" | sed -n 's/^\[ *\([0-9]*\.[0-9]*\)\].*/\1/p' | grep .
}

# vm_assert_booted : the last vm_boot ended by itself (no timeout, no harness error).
vm_assert_booted() {
	[ "${VM_STATUS:-1}" = 0 ] || { _vm_fail "boot did not end cleanly (status $VM_STATUS)" "$VM_LOG"; return 1; }
}
