#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# verity-init-mkinitramfs: build a standalone initramfs whose /init is the static verity-init
# agent (PID 1 mode) — no shell, no udev, only the agent, the kernel modules it loads and the
# image builder's policy and keys. See verity-init-mkinitramfs(8).
set -u -o pipefail

prog=verity-init-mkinitramfs
# dm-verity (dm-mod comes as its dependency), FEC's Reed-Solomon decoder, AF_ALG hashing for the
# pre-flight check and the hash algorithms a tree may use: the set the dracut module installs.
BASE_MODULES="dm-verity reed_solomon algif_hash crypto-sha256 crypto-sha512 crypto-sha1"
DEFAULT_FS="ext4 squashfs erofs"

usage() {
	cat <<EOF
Usage: $prog [OPTION...] OUTPUT
Build a standalone initramfs with the static verity-init agent as /init.

  -k, --kver VERSION      kernel whose modules to include (default: uname -r)
  -b, --basedir DIR       modules under DIR/lib/modules/VERSION (default: /)
  -m, --modules NAMES     more modules, dependencies resolved: the disk's driver
                          (e.g. "virtio_pci virtio_blk", "nvme", "ahci sd_mod")
  -f, --fs TYPES          root filesystem types (default: "$DEFAULT_FS")
      --no-base-modules   leave out dm-verity, reed_solomon, algif_hash and the
                          sha1/sha256/sha512 modules (a kernel with them built in)
  -a, --agent PATH        the static agent (default: the verity-init next to this
                          program, else /usr/sbin/verity-init)
  -c, --conf FILE         initramfs policy, installed as /etc/verity-init.conf
  -K, --keys DIR          minisign public keys (DIR/*.pub) for /etc/verity-init/keys
  -i, --include SRC DEST  add a file at DEST (absolute path in the image; repeatable)
  -z, --compress METHOD   gzip (default), xz, zstd, lz4 or none
      --epoch SECONDS     time stamp of every entry (default: \$SOURCE_DATE_EPOCH or 0)
  -v, --verbose           list the modules and files put in
  -h, --help              this text
EOF
}

die() {
	printf '%s: %s\n' "$prog" "$*" >&2
	exit 1
}

say() { [ "$verbose" = 1 ] && printf '%s\n' "$*" >&2; return 0; }

kver=$(uname -r)
basedir=/
extra=""
fs=$DEFAULT_FS
base=1
agent=""
conf=""
keys=""
comp=gzip
epoch=${SOURCE_DATE_EPOCH:-0}
verbose=0
includes=()

need() { [ $# -ge 2 ] || die "option $1 needs a value"; }
while [ $# -gt 0 ]; do
	case $1 in
	-k | --kver) need "$@"; kver=$2; shift 2 ;;
	-b | --basedir) need "$@"; basedir=$2; shift 2 ;;
	-m | --modules) need "$@"; extra="$extra $2"; shift 2 ;;
	-f | --fs) need "$@"; fs=$2; shift 2 ;;
	--no-base-modules) base=0; shift ;;
	-a | --agent) need "$@"; agent=$2; shift 2 ;;
	-c | --conf) need "$@"; conf=$2; shift 2 ;;
	-K | --keys) need "$@"; keys=$2; shift 2 ;;
	-i | --include)
		[ $# -ge 3 ] || die "option $1 needs SRC and DEST"
		includes+=("$2" "$3"); shift 3 ;;
	-z | --compress) need "$@"; comp=$2; shift 2 ;;
	--epoch) need "$@"; epoch=$2; shift 2 ;;
	-v | --verbose) verbose=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option '$1' (see --help)" ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { usage >&2; exit 1; }
out=$1

case $comp in
gzip) compress=(gzip -n -9) ;;
xz) compress=(xz -9 --check=crc32 -T1) ;;    # the kernel's xz decoder knows CRC32 only
zstd) compress=(zstd -q -19 -T1) ;;
lz4) compress=(lz4 -q -l -9) ;;                # the kernel reads lz4's legacy frames
none) compress=(cat) ;;
*) die "unknown compression '$comp' (gzip, xz, zstd, lz4 or none)" ;;
esac
command -v "${compress[0]}" >/dev/null || die "'${compress[0]}' not found (needed for --compress $comp)"
for t in modprobe cpio find sort; do
	command -v "$t" >/dev/null || die "'$t' not found"
done
[[ $epoch =~ ^[0-9]+$ ]] || die "--epoch: not a number of seconds: '$epoch'"
[[ $kver =~ ^[A-Za-z0-9._+~-]+$ ]] || die "--kver: not a kernel version: '$kver'"
basedir=${basedir%/}
moddir=$basedir/lib/modules/$kver
[ -d "$moddir" ] || moddir=$basedir/usr/lib/modules/$kver
[ -d "$moddir" ] || die "no modules for kernel $kver under ${basedir:-/} (lib/modules/$kver)"

# Pre-flight against the kernel's configuration, when it is installed: an image that kernel
# cannot unpack, or an agent it cannot run, would only show at boot.
kconfig=$basedir/boot/config-$kver
if [ -r "$kconfig" ]; then
	kconf_set() { grep -Eq "^$1=[ym]\$" "$kconfig"; }
	kconf_set CONFIG_BLK_DEV_INITRD || die "kernel $kver has no initramfs support (CONFIG_BLK_DEV_INITRD in $kconfig)"
	kconf_set CONFIG_DEVTMPFS || die "kernel $kver has no devtmpfs, which the agent mounts on /dev (CONFIG_DEVTMPFS in $kconfig)"
	case $comp in
	none) ;;
	*)
		opt=CONFIG_RD_$(printf '%s' "$comp" | tr '[:lower:]' '[:upper:]')
		kconf_set "$opt" || die "kernel $kver cannot unpack a $comp-compressed initramfs ($opt is not set in $kconfig): choose another --compress"
		;;
	esac
else
	say "no $kconfig: the kernel's support for $comp and devtmpfs not checked"
fi

if [ -z "$agent" ]; then
	here=$(dirname "$(readlink -f "$0")")
	for agent in "$here/verity-init" /usr/sbin/verity-init /sbin/verity-init ""; do
		[ -n "$agent" ] && [ -x "$agent" ] && break
	done
	[ -n "$agent" ] || die "no verity-init agent found (give --agent PATH)"
fi
{ [ -f "$agent" ] && [ -x "$agent" ]; } || die "agent '$agent' is not an executable file"
[ "$(head -c 4 "$agent" | od -An -c | tr -d ' ')" = '177ELF' ] || die "agent '$agent' is not an ELF program"
# /init runs before any library is there: a dynamically linked agent would not even start
if command -v ldd >/dev/null && ldd "$agent" 2>/dev/null | grep -q '=>'; then
	die "agent '$agent' is dynamically linked: build the static one (make static)"
fi
[ -z "$conf" ] || [ -r "$conf" ] || die "cannot read policy file '$conf'"
if [ -n "$keys" ]; then
	[ -d "$keys" ] || die "keys directory '$keys' not found"
	compgen -G "$keys/*.pub" >/dev/null || die "no *.pub key in '$keys'"
fi
for ((i = 0; i < ${#includes[@]}; i += 2)); do
	[ -r "${includes[i]}" ] || die "cannot read '${includes[i]}'"
	case ${includes[i + 1]} in
	/*) ;;
	*) die "--include destination must be an absolute path: '${includes[i + 1]}'" ;;
	esac
	case /${includes[i + 1]}/ in
	*/../* | */./* | //init/ | */etc/verity-init/modules/) die "--include destination not allowed: '${includes[i + 1]}'" ;;
	esac
done

stage=$(mktemp -d "${TMPDIR:-/tmp}/$prog.XXXXXX") || die "cannot make a staging directory"
tmpout=$out.tmp.$$
trap 'rm -rf "$stage" "$tmpout"' EXIT
root=$stage/root
mkdir -p "$root"/{dev,proc,sys,run,sysroot,etc/verity-init} || die "cannot populate $root"
{ cp "$agent" "$root/init" && chmod 0755 "$root/init"; } || die "cannot copy the agent"

# The modules in load order, dependencies first, each once; built-in ones need no file.
names=$extra
[ "$base" = 1 ] && names="$BASE_MODULES $names"
names="$names $fs"
list=$root/etc/verity-init/modules
: >"$list"
declare -A seen=()
nmod=0
for m in $names; do
	[[ $m =~ ^[A-Za-z0-9_.-]+$ ]] || die "not a module name: '$m'"
	# --ignore-install: a modprobe.d "install" command would replace the module's insmod line
	deps=$(modprobe ${basedir:+-d "$basedir"} -S "$kver" --ignore-install --show-depends "$m" 2>&1) ||
		die "module '$m' not found for kernel $kver: ${deps##*$'\n'}"
	while read -r what path _; do
		[ "$what" = insmod ] || continue
		src=$path
		rel=${path#"$basedir"}
		while [[ $rel == //* ]]; do rel=${rel#/}; done
		ko=$rel
		case $rel in
		*.ko.xz) ko=${rel%.xz}; dec=(xz -dc) ;;
		*.ko.zst) ko=${rel%.zst}; dec=(zstd -dcq) ;;
		*.ko.gz) ko=${rel%.gz}; dec=(gzip -dc) ;;
		*.ko) dec=(cat) ;;
		*) die "module file of unknown kind: $path" ;;
		esac
		[ -n "${seen[$ko]:-}" ] && continue
		seen[$ko]=1
		mkdir -p "$root$(dirname "$ko")" || die "cannot populate $root"
		# decompressed here: finit_module then works on kernels without in-kernel decompression
		"${dec[@]}" <"$src" >"$root$ko" || die "cannot read module $src"
		printf '%s\n' "$ko" >>"$list"
		nmod=$((nmod + 1))
		say "module $ko"
	done <<<"$deps"
done

if [ -n "$conf" ]; then
	{ cp "$conf" "$root/etc/verity-init.conf" && chmod 0644 "$root/etc/verity-init.conf"; } ||
		die "cannot copy '$conf'"
	say "policy $conf"
fi
if [ -n "$keys" ]; then
	mkdir -p "$root/etc/verity-init/keys" || die "cannot populate $root"
	for k in "$keys"/*.pub; do
		cp "$k" "$root/etc/verity-init/keys/" || die "cannot copy '$k'"
		say "key $k"
	done
fi
for ((i = 0; i < ${#includes[@]}; i += 2)); do
	d=$root${includes[i + 1]}
	{ mkdir -p "$(dirname "$d")" && cp -L "${includes[i]}" "$d"; } || die "cannot add '${includes[i]}'"
	say "file ${includes[i + 1]}"
done

# newc_entry NAME MODE RDEVMAJOR RDEVMINOR INO : one header-only cpio newc entry (a device node
# or the trailer), padded to 4 bytes.
newc_entry() {
	local name=$1 mode=$2 rmaj=$3 rmin=$4 ino=$5 n pad
	n=$((${#name} + 1))
	printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X' \
		"$ino" "$mode" 0 0 1 "$epoch" 0 0 0 "$rmaj" "$rmin" "$n" 0
	printf '%s\0' "$name"
	pad=$(((4 - (110 + n) % 4) % 4))
	[ "$pad" -eq 0 ] || head -c "$pad" /dev/zero
}

# Reproducible: sorted names, one time stamp, owner root. /dev/console, which the kernel opens
# for /init's standard streams before anything is mounted, comes as a second archive after the
# first (which made /dev): making the node needs no root privilege that way.
find "$root" -exec touch -h -d "@$epoch" {} + || die "cannot set time stamps"
{
	(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
		cpio --quiet -o -H newc -R 0:0 --reproducible) &&
		newc_entry dev/console $((8#020600)) 5 1 1 &&
		newc_entry 'TRAILER!!!' 0 0 0 0
} | "${compress[@]}" >"$tmpout" || die "cannot write '$out'"
mv -f "$tmpout" "$out" || die "cannot write '$out'"
printf '%s: %s bytes, agent %s bytes, %d modules for %s\n' "$out" "$(stat -c %s "$out")" \
	"$(stat -c %s "$agent")" "$nmod" "$kver"
