#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# verity-init-mkinitramfs: build a standalone initramfs whose /init is the static verity-init
# agent (PID 1 mode) — no shell, no udev, only the agent, the kernel modules it loads and the
# image builder's policy and keys. See verity-init-mkinitramfs(8).
set -u -o pipefail
umask 022   # the archive records modes: the same bytes whatever the caller's umask

prog=verity-init-mkinitramfs
# dm-verity (dm-mod comes as its dependency), then, where the kernel has them: FEC's Reed-Solomon
# decoder, AF_ALG hashing for the pre-flight check and the hash algorithms a tree may use (the
# set the dracut module installs), overlayfs for systemd.volatile=overlay, and efivarfs: systemd
# reads the EFI variable SystemdOptions as more command line, which the agent must see to refuse.
BASE_MODULES="dm-verity"
BASE_OPTIONAL="reed_solomon algif_hash crypto-sha256 crypto-sha512 crypto-sha1 overlay efivarfs"
DEFAULT_FS="ext4 squashfs erofs"
# The types the agent mounts a root as (vi_root_fs_types, lib/config/rootopts.c): a -f module
# with an fs-TYPE alias of one of these goes into /etc/verity-init/fs/TYPE, which the agent
# loads only before it mounts a TYPE, as the kernel's request_module("fs-TYPE") would.
ROOT_FS_TYPES="ext4 ext3 ext2 squashfs erofs xfs vfat iso9660 udf cramfs romfs"

usage() {
	cat <<EOF
Usage: $prog [OPTION...] OUTPUT
Build a standalone initramfs with the static verity-init agent as /init.

  -k, --kver VERSION      kernel whose modules to include (default: uname -r)
  -b, --basedir DIR       a target system's tree: modules under DIR/lib/modules/VERSION
                          (or DIR/usr/lib/...), modprobe.d and the kernel's config
                          (boot/config-VERSION, or config next to the modules) from DIR
  -m, --modules NAMES     more modules, dependencies resolved: the disk's driver
                          (e.g. "virtio_pci virtio_blk", "nvme", "ahci sd_mod")
  -f, --fs TYPES          root filesystem types (default: "$DEFAULT_FS")
      --no-base-modules   leave out dm-verity, reed_solomon, algif_hash, the
                          sha1/sha256/sha512 modules, overlay and efivarfs (a kernel with them built in;
                          otherwise those after dm-verity are added where they exist)
      --keep-compressed-modules
                          .ko.xz, .ko.zst and .ko.gz files as shipped, where the kernel's
                          config says it decompresses that format (CONFIG_MODULE_DECOMPRESS);
                          the others decompressed (default)
      --decompress-modules
                          every module decompressed (a kernel whose config is not known)
  -a, --agent PATH        the static agent (default: the verity-init next to this
                          program, else /usr/sbin/verity-init, /sbin/verity-init)
  -c, --conf FILE         initramfs policy, installed as /etc/verity-init.conf
  -K, --keys DIR          minisign public keys (DIR/*.pub) for /etc/verity-init/keys
      --cert FILE         an X.509 certificate (PEM or DER) for the kernel's .dm-verity
                          keyring (Linux 7.0+): root-hash signatures by its key pass
                          require_signature=kernel; into /etc/verity-init/certs as DER
                          (repeatable, at most 16)
  -i, --include SRC DEST  add a file at DEST (absolute path in the image; repeatable)
  -z, --compress METHOD   gzip (default), xz, zstd, lz4 or none
      --epoch SECONDS     time stamp of every entry (default: \$SOURCE_DATE_EPOCH or 0)
      --uki OUT.efi       also build a Unified Kernel Image for UEFI (verity-init-mkuki):
                          systemd-stub + --kernel + this initramfs + --cmdline
      --kernel FILE       the UKI's kernel (default: BASEDIR/boot/vmlinuz-VERSION, else
                          vmlinuz next to the modules)
      --cmdline TEXT      the UKI's embedded command line (with the root hash:
                          see verity-image cmdline); or --cmdline-file FILE
      --os-release FILE   the UKI's .osrel (default /etc/os-release)
      --sign-key KEY      sign the UKI for Secure Boot (sbsign) with KEY (PEM, or a
                          PKCS#11 URI: see verity-init-mkuki) ...
      --sign-cert CERT    ... and its certificate CERT (PEM); both or neither
      --sign-prepare      leave the UKI unsigned, to be signed elsewhere (sbsign --detached)
      --sign-join SIG     attach SIG, that detached signature, checked with --sign-cert
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
keepcomp=1
agent=""
conf=""
keys=""
certs=()
comp=gzip
epoch=${SOURCE_DATE_EPOCH:-0}
verbose=0
includes=()
uki="" ukernel="" ucmdline="" ucmdfile="" uosrel="" skey="" scert="" sprep=0 sjoin="" uki_opts=0

need() { [ $# -ge 2 ] || die "option $1 needs a value"; }
while [ $# -gt 0 ]; do
	case $1 in
	-k | --kver) need "$@"; kver=$2; shift 2 ;;
	-b | --basedir) need "$@"; basedir=$2; shift 2 ;;
	-m | --modules) need "$@"; extra="$extra $2"; shift 2 ;;
	-f | --fs) need "$@"; fs=$2; shift 2 ;;
	--no-base-modules) base=0; shift ;;
	--keep-compressed-modules) keepcomp=1; shift ;;
	--decompress-modules) keepcomp=0; shift ;;
	-a | --agent) need "$@"; agent=$2; shift 2 ;;
	-c | --conf) need "$@"; conf=$2; shift 2 ;;
	-K | --keys) need "$@"; keys=$2; shift 2 ;;
	--cert) need "$@"; certs+=("$2"); shift 2 ;;
	-i | --include)
		[ $# -ge 3 ] || die "option $1 needs SRC and DEST"
		includes+=("$2" "$3"); shift 3 ;;
	-z | --compress) need "$@"; comp=$2; shift 2 ;;
	--epoch) need "$@"; epoch=$2; shift 2 ;;
	--uki) need "$@"; uki=$2; shift 2 ;;
	--kernel) need "$@"; ukernel=$2; uki_opts=1; shift 2 ;;
	--cmdline) need "$@"; ucmdline=$2; uki_opts=1; shift 2 ;;
	--cmdline-file) need "$@"; ucmdfile=$2; uki_opts=1; shift 2 ;;
	--os-release) need "$@"; uosrel=$2; uki_opts=1; shift 2 ;;
	--sign-key) need "$@"; skey=$2; uki_opts=1; shift 2 ;;
	--sign-cert) need "$@"; scert=$2; uki_opts=1; shift 2 ;;
	--sign-prepare) sprep=1; uki_opts=1; shift ;;
	--sign-join) need "$@"; sjoin=$2; uki_opts=1; shift 2 ;;
	-v | --verbose) verbose=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option '$1' (see --help)" ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { usage >&2; exit 1; }
out=$1

# --uki: checked before anything is built (nothing is written when the UKI cannot be made)
if [ -z "$uki" ]; then
	[ "$uki_opts" = 0 ] || die "--kernel, --cmdline, --cmdline-file, --os-release, --sign-key, --sign-cert, --sign-prepare and --sign-join go only with --uki"
else
	[ -n "$ucmdline" ] || [ -n "$ucmdfile" ] ||
		die "--uki needs --cmdline or --cmdline-file (the command line carries the root hash)"
	[ -z "$ucmdline" ] || [ -z "$ucmdfile" ] || die "--cmdline and --cmdline-file: give one"
	if [ "$sprep" = 1 ] && { [ -n "$skey" ] || [ -n "$scert" ] || [ -n "$sjoin" ]; }; then
		die "--sign-prepare leaves the UKI unsigned: no --sign-key, --sign-cert or --sign-join"
	fi
	if [ -n "$sjoin" ]; then
		[ -z "$skey" ] || die "--sign-join and --sign-key exclude each other"
		[ -n "$scert" ] || die "--sign-join needs --sign-cert (the signature is checked against it)"
	elif { [ -n "$skey" ] && [ -z "$scert" ]; } || { [ -z "$skey" ] && [ -n "$scert" ]; }; then
		die "--sign-key and --sign-cert go together"
	fi
	if [ -n "${VERITY_INIT_MKUKI:-}" ]; then
		mkuki=$VERITY_INIT_MKUKI
	else
		mkuki=""
		for m in "$(dirname -- "$0")/verity-init-mkuki" "$(dirname -- "$0")/verity-init-mkuki.sh" \
			"$(command -v verity-init-mkuki 2>/dev/null)"; do
			[ -n "$m" ] && [ -x "$m" ] && { mkuki=$m; break; }
		done
	fi
	if [ -z "$mkuki" ] || [ ! -x "$mkuki" ]; then
		die "--uki: verity-init-mkuki not found (next to $prog or in PATH)"
	fi
	# a PKCS#11 URI is no file: verity-init-mkuki hands it to sbsign's pkcs11 engine
	skeyfile=$skey
	case $skey in pkcs11:*) skeyfile="" ;; esac
	for f in ${ucmdfile:+"$ucmdfile"} ${uosrel:+"$uosrel"} ${skeyfile:+"$skeyfile"} ${scert:+"$scert"} ${sjoin:+"$sjoin"}; do
		if [ ! -f "$f" ] || [ ! -r "$f" ]; then die "--uki: cannot read '$f'"; fi
	done
fi

case $comp in
gzip) compress=(gzip -n -9) ;;
# the kernel's xz decoder knows CRC32 only and allocates the dictionary at boot: 1 MiB, as dracut
xz) compress=(xz --check=crc32 --lzma2=dict=1MiB -T1) ;;
zstd) compress=(zstd -q -19 -T1) ;;
lz4) compress=(lz4 -q -l -9) ;;                # the kernel reads lz4's legacy frames
none) compress=(cat) ;;
*) die "unknown compression '$comp' (gzip, xz, zstd, lz4 or none)" ;;
esac
command -v "${compress[0]}" >/dev/null || die "'${compress[0]}' not found (needed for --compress $comp)"
for t in modprobe modinfo cpio find sort; do
	command -v "$t" >/dev/null || die "'$t' not found"
done
# newc stores 32-bit times in 8 hex digits; base 10 even with leading zeros
{ [[ $epoch =~ ^[0-9]{1,10}$ ]] && [ $((10#$epoch)) -le 4294967295 ]; } ||
	die "--epoch: not a number of seconds from 0 to 4294967295: '$epoch'"
epoch=$((10#$epoch))
[[ $kver =~ ^[A-Za-z0-9._+~-]+$ ]] || die "--kver: not a kernel version: '$kver'"
# absolute, so the paths modprobe prints can have it taken off; "" for the running system
basedir=$(realpath -m -- "$basedir") || die "--basedir: cannot resolve '$basedir'"
basedir=${basedir%/}
if [ -d "$basedir/lib/modules/$kver" ]; then
	modbase=$basedir
elif [ -d "$basedir/usr/lib/modules/$kver" ]; then
	modbase=$basedir/usr
else
	die "no modules for kernel $kver under ${basedir:-/} (lib/modules/$kver or usr/lib/modules/$kver)"
fi
# kernel_file NAME : the kernel's file NAME (vmlinuz, config) of this version: /boot's
# NAME-VERSION, else NAME in the modules directory (Debian's 7.x packages install only there);
# nothing when neither is a readable regular file (a FIFO planted in the tree would block grep)
kernel_file() {
	local f
	for f in "$basedir/boot/$1-$kver" "$modbase/lib/modules/$kver/$1"; do
		if [ -f "$f" ] && [ -r "$f" ]; then printf '%s\n' "$f"; return 0; fi
	done
}
if [ -n "$uki" ]; then
	# the UKI's kernel: the one whose modules go in, unless --kernel names another file
	[ -n "$ukernel" ] || ukernel=$(kernel_file vmlinuz)
	[ -n "$ukernel" ] || die "--uki: no kernel vmlinuz-$kver in ${basedir:-}/boot nor vmlinuz in $modbase/lib/modules/$kver (--kernel)"
	if [ ! -f "$ukernel" ] || [ ! -r "$ukernel" ]; then die "--uki: cannot read the kernel '$ukernel' (--kernel)"; fi
fi

# Pre-flight against the kernel's configuration, when it is installed: an image that kernel
# cannot unpack, or an agent it cannot run, would only show at boot.
kconfig=$(kernel_file config)
# kconf_set OPTION : OPTION is y or m in the kernel's config (false when there is none)
kconf_set() { [ -n "$kconfig" ] && grep -Eq "^$1=[ym]\$" "$kconfig"; }
if [ -n "$kconfig" ]; then
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
	say "no config-$kver in ${basedir:-}/boot nor config in $modbase/lib/modules/$kver: the kernel's support for $comp and devtmpfs not checked"
fi
# keeps FORMAT : whether a module compressed with FORMAT (xz, zstd, gzip: the kernel's words) goes
# in as shipped: the kernel decompresses it itself when finit_module is told so, which it can
# for the one format its config chose, and only with CONFIG_MODULE_DECOMPRESS
keeps() {
	[ "$keepcomp" = 1 ] && kconf_set CONFIG_MODULE_DECOMPRESS &&
		kconf_set "CONFIG_MODULE_COMPRESS_$(printf '%s' "$1" | tr '[:lower:]' '[:upper:]')"
}

if [ -z "$agent" ]; then
	here=$(dirname "$(readlink -f "$0")")
	for agent in "$here/verity-init" /usr/sbin/verity-init /sbin/verity-init ""; do
		[ -n "$agent" ] && [ -x "$agent" ] && break
	done
	[ -n "$agent" ] || die "no verity-init agent found (give --agent PATH)"
fi
{ [ -f "$agent" ] && [ -x "$agent" ]; } || die "agent '$agent' is not an executable file"
# elf_u FILE OFFSET SIZE : an unsigned little-endian field of SIZE bytes
elf_u() { od -An -v -j "$2" -N "$3" -t "u$3" "$1" | tr -d ' \n'; }
[ "$(head -c 4 "$agent" | od -An -c | tr -d ' ')" = '177ELF' ] || die "agent '$agent' is not an ELF program"
# /init runs before any library is there: an agent with a program interpreter (PT_INTERP, the
# dynamic loader) would not even start. Read from the program headers, never by running it.
has_interp() {
	local f=$1 class data phoff phentsize phnum k
	class=$(elf_u "$f" 4 1) data=$(elf_u "$f" 5 1)
	[ "$data" = 1 ] || return 2                    # big-endian: od reads host order
	case $class in
	2) phoff=$(elf_u "$f" 32 8) phentsize=$(elf_u "$f" 54 2) phnum=$(elf_u "$f" 56 2) ;;
	1) phoff=$(elf_u "$f" 28 4) phentsize=$(elf_u "$f" 42 2) phnum=$(elf_u "$f" 44 2) ;;
	*) return 2 ;;
	esac
	[ -n "$phoff" ] && [ -n "$phentsize" ] && [ -n "$phnum" ] || return 2
	for ((k = 0; k < phnum; k++)); do
		[ "$(elf_u "$f" $((phoff + k * phentsize)) 4)" = 3 ] && return 0
	done
	return 1
}
has_interp "$agent"
case $? in
0) die "agent '$agent' is dynamically linked: build the static one (make static)" ;;
2) say "agent '$agent': not a little-endian ELF this tool can read; static linking not checked" ;;
esac
# regular files only, here as for the tree: cp would wait for ever on a FIFO
[ -z "$conf" ] || { [ -f "$conf" ] && [ -r "$conf" ]; } || die "cannot read policy file '$conf' (a readable regular file)"
if [ -n "$keys" ]; then
	[ -d "$keys" ] || die "keys directory '$keys' not found"
	compgen -G "$keys/*.pub" >/dev/null || die "no *.pub key in '$keys'"
fi
# An added file goes to a new path of its own: never over /init, the module list, the policy
# (-c), the keys (-K), /dev/console or a directory. Destinations are normalised here and
# checked against what is already staged when they are copied.
for ((i = 0; i < ${#includes[@]}; i += 2)); do
	{ [ -f "${includes[i]}" ] && [ -r "${includes[i]}" ]; } || die "cannot read file '${includes[i]}'"
	d=$(printf '%s' "${includes[i + 1]}" | tr -s /)
	case $d in
	/*) ;;
	*) die "--include destination must be an absolute path: '${includes[i + 1]}'" ;;
	esac
	case $d/ in
	*/../* | */./* | // | */etc/verity-init.conf/ | */etc/verity-init/keys/* | */etc/verity-init/certs/* | /dev/console/)
		die "--include destination not allowed: '${includes[i + 1]}' (the policy, keys and certificates come from -c, -K and --cert)" ;;
	*/etc/verity-init/fs/*)
		die "--include destination not allowed: '${includes[i + 1]}' (the module lists come from -m and -f)" ;;
	esac
	case $d in
	*/) die "--include destination must name a file: '${includes[i + 1]}'" ;;
	esac
	includes[i + 1]=$d
done
# --cert: each a certificate openssl reads (PEM or DER), its name (without .pem/.crt/.der/.cer)
# [A-Za-z0-9._-] and unique: the agent takes /etc/verity-init/certs/NAME.der only
[ ${#certs[@]} -le 16 ] || die "--cert: at most 16 certificates (the agent's bound)"
cert_names=()
for c in "${certs[@]}"; do
	{ [ -f "$c" ] && [ -r "$c" ]; } || die "--cert: cannot read '$c'"
	command -v openssl >/dev/null || die "'openssl' not found (needed for --cert)"
	n=$(basename -- "$c")
	n=${n%.pem}; n=${n%.crt}; n=${n%.der}; n=${n%.cer}
	[[ $n =~ ^[A-Za-z0-9_-][A-Za-z0-9._-]{0,100}$ ]] || die "--cert: '$c': the file name must be [A-Za-z0-9._-]"
	for m in "${cert_names[@]}"; do [ "$m" != "$n" ] || die "--cert: two certificates named '$n'"; done
	openssl x509 -in "$c" -noout 2>/dev/null || openssl x509 -inform DER -in "$c" -noout 2>/dev/null ||
		die "--cert: '$c' is not an X.509 certificate (PEM or DER)"
	cert_names+=("$n")
done
[ -d "$out" ] && die "output '$out' is a directory"

stage=$(mktemp -d "${TMPDIR:-/tmp}/$prog.XXXXXX") || die "cannot make a staging directory"
tmpout=""
trap 'rm -rf "$stage" ${tmpout:+"$tmpout"}' EXIT
root=$stage/root
mkdir -p "$root"/{dev,proc,sys,run,sysroot,etc/verity-init} || die "cannot populate $root"
{ cp "$agent" "$root/init" && chmod 0755 "$root/init"; } || die "cannot copy the agent"

# Everything read from a target tree is resolved inside it: the tree is not the build host's,
# and a module or modprobe.d file there that is a symlink to /etc/shadow (absolute, or relative
# with "..") must not bring the host's file into the image.
# in_base PATH : PATH with every symlink and ".." resolved, printed when it stays inside the
# base directory (anywhere for the running system); status 1 when it leaves it, 2 when it
# does not resolve (missing, a dangling link or a loop)
in_base() {
	local real
	real=$(realpath -e -- "$1" 2>/dev/null) || return 2
	case $real in
	"$basedir"/*) printf '%s\n' "$real" ;;
	*) return 1 ;;
	esac
}
# base_file WHAT PATH : in_base PATH, which must be a regular file; dies otherwise
base_file() {
	local real rc
	real=$(in_base "$2")
	rc=$?
	[ "$rc" = 1 ] && die "$1 '$2' leads out of ${basedir:-/} (a symlink out of the tree, or '..'): refused"
	[ "$rc" = 0 ] || die "$1 '$2' cannot be resolved (missing, or a dangling symlink)"
	[ -f "$real" ] || die "$1 '$2' is not a regular file: refused"
	printf '%s\n' "$real"
}

# The target's modprobe.d: its *.conf files (the only ones kmod reads), each resolved inside
# the tree and staged, so that modprobe and the options below read copies of files that
# belong to the tree. A link to /dev/null masks a file in kmod: nothing to read there. For the
# running system, its own /etc/modprobe.d (modprobe reads the host's configuration anyway).
confdir=$stage/modprobe.d
mkdir -p "$confdir" || die "cannot populate $stage"
tconf=$basedir/etc/modprobe.d
if [ -e "$tconf" ] || [ -L "$tconf" ]; then
	rconf=$(in_base "$tconf")
	case $? in
	1) die "modprobe.d '$tconf' leads out of ${basedir:-/} (a symlink out of the tree, or '..'): refused" ;;
	2) die "modprobe.d '$tconf' cannot be resolved (a dangling symlink)" ;;
	esac
	[ -d "$rconf" ] || die "modprobe.d '$tconf' is not a directory"
	for f in "$rconf"/*.conf; do
		{ [ -e "$f" ] || [ -L "$f" ]; } || continue
		[ "$(readlink -- "$f")" = /dev/null ] && continue
		r=$(base_file "modprobe.d file" "$f") || exit 1
		cp -- "$r" "$confdir/${f##*/}" || die "cannot copy '$f'"
	done
fi

# The modules in load order, dependencies first, each once; built-in ones need no file.
# modprobe reads the target's modprobe.d (softdeps, aliases), not the build host's, when a
# base directory is given.
# --ignore-install: a modprobe.d "install" command would replace the module's insmod line
mpargs=(-S "$kver" --ignore-install --show-depends)
if [ -n "$basedir" ]; then
	mpargs+=(-d "$modbase" -C "$confdir")
fi
list=$root/etc/verity-init/modules
: >"$list"
declare -A seen=()   # image paths of the modules put in
declare -A inbase=() # those of the base list
chain=()             # resolve's result
# resolve OPTIONAL NAME : NAME's module files in load order (dependencies first) into chain,
# each staged in the image (once); OPTIONAL=1 turns a module the kernel does not have into a
# warning and status 1
resolve() {
	local optional=$1 m=$2 deps line
	chain=()
	[[ $m =~ ^[A-Za-z0-9_.:*?,+-]+$ && $m != -* ]] || die "not a module name or alias: '$m'"
	if ! deps=$(modprobe "${mpargs[@]}" -- "$m" 2>&1); then
		if [ "$optional" = 1 ]; then
			printf '%s: warning: module %s not found for kernel %s: left out\n' "$prog" "$m" "$kver" >&2
			return 1
		fi
		die "module '$m' not found for kernel $kver: ${deps##*$'\n'}"
	fi
	# the options modprobe appends come from the staged modprobe.d (written below as
	# /etc/modprobe.d/verity-init.conf) and from this host's /proc/cmdline: not taken
	while IFS= read -r line; do
		[[ $line =~ ^insmod\ (.*\.ko(\.xz|\.zst|\.gz)?)(\ (.*))?$ ]] || continue
		add_module_file "${BASH_REMATCH[1]}"
	done <<<"$deps"
}
# base_add KO : a staged module into the base list, once
base_add() {
	[ -n "${inbase[$1]:-}" ] && return 0
	inbase[$1]=1
	printf '%s\n' "$1" >>"$list"
}
# add_modules OPTIONAL NAME... : NAMEs and their dependencies into the base list
add_modules() {
	local optional=$1 m ko
	shift
	for m in "$@"; do
		resolve "$optional" "$m" || continue
		for ko in "${chain[@]}"; do base_add "$ko"; done
	done
}
declare -A fsmods=() fsseen=()   # per type: its modules, one a line; "TYPE KO" seen
fstypes=()                       # the types with a list, in the order of -f
# add_fs_modules NAME... : a filesystem whose modules carry fs-TYPE aliases of ROOT_FS_TYPES
# goes, dependencies first, into the list of each such TYPE (written below, without what the
# base list has); one without goes into the base list
add_fs_modules() {
	local m ko t types aliases dec fmt
	for m in "$@"; do
		resolve 0 "$m"
		types=""
		for ko in "${chain[@]}"; do
			# MODULE_ALIAS_FS, read from the staged file (an ELF module, checked), decompressed
			# here when it is kept compressed (modinfo need not know the format)
			decompressor "$ko" || die "module file of unknown kind: $ko"
			"${dec[@]}" <"$root$ko" >"$stage/alias.ko" || die "cannot read module $ko"
			aliases=$(modinfo -F alias -- "$stage/alias.ko" 2>/dev/null) || die "modinfo cannot read module $ko"
			while IFS= read -r t; do
				[[ $t =~ ^fs-([a-z0-9]+)$ ]] || continue
				t=${BASH_REMATCH[1]}
				case " $ROOT_FS_TYPES " in
				*" $t "*) types="$types $t" ;;
				esac
			done <<<"$aliases"
		done
		if [ -z "$types" ]; then
			for ko in "${chain[@]}"; do base_add "$ko"; done
			continue
		fi
		for t in $types; do
			[ -n "${fsmods[$t]+set}" ] || { fstypes+=("$t"); fsmods[$t]=""; }
			for ko in "${chain[@]}"; do
				[ -z "${fsseen[$t $ko]:-}" ] || continue
				fsseen[$t $ko]=1
				fsmods[$t]+=$ko$'\n'
			done
		done
	done
}
# is_module FILE : an ELF relocatable object (e_type ET_REL, either byte order), as every
# kernel module is
is_module() {
	[ "$(head -c 4 -- "$1" | od -An -c | tr -d ' ')" = '177ELF' ] || return 1
	case $(od -An -v -j 16 -N 2 -t u1 -- "$1" | tr -s ' ') in
	' 1 0' | ' 0 1') return 0 ;;
	*) return 1 ;;
	esac
}
# decompressor FILE : into dec, the command that writes FILE's module decompressed to stdout,
# and into fmt the kernel's word for its format ("" for a plain .ko); status 1 for another name
decompressor() {
	case $1 in
	*.ko.xz) dec=(xz -dc) fmt=xz ;;
	*.ko.zst) dec=(zstd -dcq) fmt=zstd ;;
	*.ko.gz) dec=(gzip -dc) fmt=gzip ;;
	*.ko) dec=(cat) fmt="" ;;
	*) return 1 ;;
	esac
}
kept=0          # modules put in as shipped (compressed)
declare -A keptfmt=()
# add_module_file PATH : one module file into the image (once), its image path onto chain
add_module_file() {
	local path=$1 src rel ko dec fmt plain=$stage/module.ko
	# modprobe prints the path from modules.dep, which may name any file: the module must be
	# under the modules directory, and what it resolves to inside the tree
	case $path in
	"$modbase"/*) ;;
	*) die "module '$path' is outside ${modbase:-/} (modules.dep names it): refused" ;;
	esac
	src=$(base_file module "$path") || exit 1
	rel=${path#"$modbase"}
	while [[ $rel == //* ]]; do rel=${rel#/}; done
	case /$rel/ in
	*/../* | */./*) die "module '$path' has '.' or '..' in its path: refused" ;;
	esac
	decompressor "$rel" || die "module file of unknown kind: $path"
	# as shipped, or decompressed under the .ko name (finit_module then works on kernels
	# without in-kernel decompression)
	ko=${rel%.ko*}.ko
	[ -z "$fmt" ] || ! keeps "$fmt" || ko=$rel
	if [ -n "${seen[$ko]:-}" ]; then
		chain+=("$ko")
		return 0
	fi
	seen[$ko]=1
	mkdir -p "$root$(dirname "$ko")" || die "cannot populate $root"
	# The check reads the bytes the image holds: a kept file is copied first and its copy is
	# decompressed for the check, so a source that changes between two reads cannot slip in.
	if [ "$ko" = "$rel" ] && [ -n "$fmt" ]; then
		cp -- "$src" "$root$ko" || die "cannot copy module $path"
		"${dec[@]}" <"$root$ko" >"$plain" || die "cannot read module $path"
		is_module "$plain" || die "module '$path' is not an ELF kernel module (after decompression): refused"
		kept=$((kept + 1))
		keptfmt[$fmt]=1
	else
		"${dec[@]}" <"$src" >"$plain" || die "cannot read module $path"
		mv -f -- "$plain" "$root$ko" || die "cannot stage module $path"
		is_module "$root$ko" || die "module '$path' is not an ELF kernel module (after decompression): refused"
	fi
	chain+=("$ko")
	say "module $ko"
}
set -f   # module names and aliases are words, never file patterns
# shellcheck disable=SC2086  # word lists
{
	if [ "$base" = 1 ]; then
		add_modules 0 $BASE_MODULES
		add_modules 1 $BASE_OPTIONAL
	fi
	add_modules 0 $extra
	# the policy's managed=yes (yes as the agent reads a boolean): the pstore backend the agent
	# reads the last boot's end from under UEFI, and efivarfs for its variable
	if [ -n "$conf" ] && grep -Eiq '^[[:blank:]]*managed[[:blank:]]*=[[:blank:]]*(1|yes|y|true|t|on)[[:blank:]]*$' "$conf"; then
		add_modules 1 efi_pstore efivarfs
	fi
	add_fs_modules $fs
}
set +f
fsdir=$root/etc/verity-init/fs
for t in "${fstypes[@]}"; do
	mods=""
	while IFS= read -r ko; do
		[ -n "$ko" ] && [ -z "${inbase[$ko]:-}" ] && mods+=$ko$'\n'
	done <<<"${fsmods[$t]}"
	[ -n "$mods" ] || continue   # all of it in the base list already (-m)
	{ mkdir -p "$fsdir" && printf '%s' "$mods" >"$fsdir/$t"; } || die "cannot write the module list of $t"
	say "fs/$t: $(printf '%s' "$mods" | tr '\n' ' ')"
done

# The modprobe.d options of the modules put in, for the agent to pass when it loads them: one
# "options NAME PARAMS" line per module (modprobe.d(5); NAME with '-' as '_', the lines of all
# files in kmod's order, by file name), as /etc/modprobe.d/verity-init.conf. Printable ASCII
# only (a tab counts as a blank): the agent reads the file in early boot.
declare -A incl=() params=()
for ko in "${!seen[@]}"; do
	n=${ko##*/}
	n=${n%.ko*}
	incl[${n//-/_}]=1
done
order=()
options_line() {
	local file=$1 line=$2 LC_ALL=C name words
	[[ $line =~ ^[[:blank:]]*options[[:blank:]]+([^[:blank:]]+)([[:blank:]]+(.*))?$ ]] || return 0
	name=${BASH_REMATCH[1]//-/_} words=${BASH_REMATCH[3]:-}
	# a module's name (an alias or anything else concerns no module put in)
	[[ $name =~ ^[A-Za-z0-9_]+$ ]] && [ -n "${incl[$name]:-}" ] || return 0
	[[ $line == *[![:print:][:blank:]]* ]] &&
		die "$file: options line for $name has characters outside printable ASCII: refused"
	# the agent refuses a backslash in an options line (modprobe would drop or join on it)
	[[ $line == *\\* ]] && die "$file: options line for $name has a backslash: refused"
	words=${words//$'\t'/ }
	while [[ $words == *' ' ]]; do words=${words% }; done
	[ -n "$words" ] || return 0
	[ -n "${params[$name]:-}" ] || order+=("$name")
	params[$name]=${params[$name]:+${params[$name]} }$words
}
while IFS= read -r f; do
	[ -n "$f" ] || continue
	while IFS= read -r line || [ -n "$line" ]; do
		options_line "$tconf/${f##*/}" "$line"
	done <"$f"
done < <(find "$confdir" -maxdepth 1 -type f -name '*.conf' | LC_ALL=C sort)
# the agent's bounds: 4096 bytes of parameters for one module, 64 KiB of modprobe.d in all
if [ ${#order[@]} -gt 0 ]; then
	mkdir -p "$root/etc/modprobe.d" || die "cannot populate $root"
	for n in "${order[@]}"; do
		[ ${#params[$n]} -lt 4096 ] || die "modprobe.d options for $n: longer than 4095 bytes"
		printf 'options %s %s\n' "$n" "${params[$n]}"
		say "options $n ${params[$n]}"
	done >"$root/etc/modprobe.d/verity-init.conf" || die "cannot write the module options"
	[ "$(stat -c %s "$root/etc/modprobe.d/verity-init.conf")" -le 65536 ] ||
		die "modprobe.d options: more than 64 KiB in all"
fi

if [ -n "$conf" ]; then
	cp "$conf" "$root/etc/verity-init.conf" || die "cannot copy '$conf'"
	say "policy $conf"
fi
if [ -n "$keys" ]; then
	mkdir -p "$root/etc/verity-init/keys" || die "cannot populate $root"
	for k in "$keys"/*.pub; do
		[ -f "$k" ] || die "key '$k' is not a regular file"
		cp "$k" "$root/etc/verity-init/keys/" || die "cannot copy '$k'"
		say "key $k"
	done
fi
if [ ${#certs[@]} -gt 0 ]; then
	mkdir -p "$root/etc/verity-init/certs" || die "cannot populate $root"
	for ((i = 0; i < ${#certs[@]}; i++)); do
		d=$root/etc/verity-init/certs/${cert_names[i]}.der
		{ openssl x509 -in "${certs[i]}" -outform DER -out "$d" 2>/dev/null ||
			openssl x509 -inform DER -in "${certs[i]}" -outform DER -out "$d"; } ||
			die "cannot convert '${certs[i]}'"
		say "certificate ${certs[i]} as /etc/verity-init/certs/${cert_names[i]}.der"
	done
	# dm_verity gets keyring_unsealed=1 from the agent; a kernel without the parameter
	# (older than 7.0) has no .dm-verity keyring and checks signatures against its own keyrings
	if ! modinfo -b "$modbase" -k "$kver" -F parm dm_verity 2>/dev/null | grep -q '^keyring_unsealed:'; then
		printf '%s: note: kernel %s has no .dm-verity keyring (dm_verity.keyring_unsealed, Linux 7.0+): the certificates are not used by it\n' "$prog" "$kver" >&2
	fi
fi
for ((i = 0; i < ${#includes[@]}; i += 2)); do
	d=$root${includes[i + 1]}
	{ [ -e "$d" ] || [ -L "$d" ]; } && die "--include destination already in the image: '${includes[i + 1]}'"
	{ mkdir -p "$(dirname "$d")" && cp -L -T -- "${includes[i]}" "$d"; } || die "cannot add '${includes[i]}'"
	say "file ${includes[i + 1]}"
done
# modes by kind, not by the sources' modes: directories 0755, files 0644 or 0755 if executable
{ find "$root" -type d -exec chmod 0755 {} + &&
	find "$root" -type f -perm -u+x -exec chmod 0755 {} + &&
	find "$root" -type f ! -perm -u+x -exec chmod 0644 {} +; } || die "cannot set modes"

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

tmpout=$(mktemp "$out.XXXXXX") || die "cannot write '$out'"
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
{ chmod 0644 "$tmpout" && mv -f -T -- "$tmpout" "$out"; } || die "cannot write '$out'"
tmpout=""
fsnote=""
[ ! -d "$fsdir" ] || fsnote=", loaded for their filesystem only: $(cd "$fsdir" && find . -type f | sed 's|^\./||' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
keptnote=""
[ "$kept" = 0 ] || keptnote=" ($kept as shipped: $(printf '%s\n' "${!keptfmt[@]}" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'))"
printf '%s: %s bytes, agent %s bytes, %d modules%s for %s%s\n' "$out" "$(stat -c %s "$out")" \
	"$(stat -c %s "$agent")" "${#seen[@]}" "$keptnote" "$kver" "$fsnote"

if [ -n "$uki" ]; then
	ua=(--kernel "$ukernel" --initrd "$out")
	if [ -n "$ucmdfile" ]; then ua+=(--cmdline-file "$ucmdfile"); else ua+=(--cmdline "$ucmdline"); fi
	[ -z "$uosrel" ] || ua+=(--os-release "$uosrel")
	[ -z "$skey" ] || ua+=(--key "$skey" --cert "$scert")
	[ -z "$sjoin" ] || ua+=(--join-signature "$sjoin" --cert "$scert")
	[ "$sprep" = 0 ] || ua+=(--prepare)
	[ "$verbose" = 1 ] && ua+=(-v)
	# a failed UKI leaves neither file behind (exit status 1: nothing written)
	"$mkuki" "${ua[@]}" "$uki" || { rm -f -- "$out"; die "--uki: the UKI was not built (see above); $out removed"; }
	printf '%s: %s bytes, UKI of %s%s\n' "$uki" "$(stat -c %s "$uki")" "$ukernel" "${skey:+, signed}${sjoin:+, signature joined}"
fi
