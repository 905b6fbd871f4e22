# shellcheck shell=bash
# The Debian test root (tests/vm/debian_*_test.sh): a Debian system built by mmdebstrap
# (minbase, systemd as /sbin/init, udev, dbus, merged /usr) with the marker unit of
# tests/vm/debian-root-hook.sh, as ext4, squashfs and erofs images with their hash trees.
# Sourced after lib.sh. Everything is cached under $BUILD/debian-root/, named by the hash of its
# inputs: the mmdebstrap run (about 30 s with a warm network, 170 MB) once per change of the
# package list, the hook or the suite; each image once per root and filesystem.
#
# The release: VM_DEBIAN_SUITE=bookworm (Debian 12, the default, the host's own release and
# archive) or trixie (Debian 13: systemd 257, dracut-ng 106), set before sourcing this file
# (tests/vm/debian13_test.sh sets trixie). Another suite than the host's comes from the host's
# mirror through a sources list of its own (debian_sources), never the host's apt configuration.

DEB_SUITE=${VM_DEBIAN_SUITE:-bookworm}
case $DEB_SUITE in
bookworm | trixie) ;;
*) vm_die "VM_DEBIAN_SUITE=$DEB_SUITE: bookworm or trixie"; return 1 ;;
esac
DEB_INCLUDE=systemd-sysv,udev,dbus
# Documentation, manuals and translations are not needed to boot (a smaller image, a faster copy).
DEB_DPKGOPTS=(--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*'
	--dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*')
DEB_HOOK=$VM_SRCDIR/debian-root-hook.sh
DEB_DIR=$BUILD/debian-root
# A second customize hook and its arguments (debian_use_packages sets them).
DEB_EXTRA_HOOK=""
DEB_EXTRA_ARGS=()
mkdir -p "$DEB_DIR"
# The apt sources of the root: for bookworm the host's (the same archive or snapshot as the
# host's packages); for another suite one line naming the host's mirror and that suite, signed
# by the archive keyring (which holds Debian 13's keys on Debian 12).
debian_sources() {
	local mirror f
	if [ "$DEB_SUITE" = bookworm ]; then
		f=${DEB_SOURCES:-/etc/apt/sources.list.d/debian.sources}
		[ -r "$f" ] || f=/etc/apt/sources.list
		echo "$f"; return 0
	fi
	mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)\/*$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
	[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
	[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
	f=$DEB_DIR/sources.$DEB_SUITE.list
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $DEB_SUITE main" >"$f.$$" &&
		mv "$f.$$" "$f" && echo "$f"
}
DEB_SOURCES=$(debian_sources) || return 1
# The programs the Debian tests boot and sign with, and the guest's memory. Each test bounds a
# boot with its own DEB_TIMEOUT.
# shellcheck disable=SC2034  # the test files read them
{
	VI_IMAGE=$BUILD/verity-image
	VI_STATIC=$BUILD/static/verity-init
	DEB_MEM=768
}

# debian_root_key : the hash of the root's inputs (suite, packages and the bytes of each local
# .deb, dpkg options, hooks and their arguments, and the bytes of an argument that is a file).
debian_root_key() {
	local p
	{
		printf '%s\n' "$DEB_SUITE" "$DEB_INCLUDE" "${DEB_DPKGOPTS[@]}" "${DEB_EXTRA_ARGS[@]}"
		for p in ${DEB_INCLUDE//,/ }; do
			case $p in *.deb) sha256sum <"$p" ;; esac
		done
		for p in "${DEB_EXTRA_ARGS[@]}"; do
			[ ! -f "$p" ] || sha256sum <"$p"
		done
		cat "$DEB_HOOK" ${DEB_EXTRA_HOOK:+"$DEB_EXTRA_HOOK"} | sha256sum
	} | sha256sum | cut -c1-32
}

# debian_packages_fresh DEBDIR : DEBDIR has the packages, newer than every source they are built
# from (code, the module, debian/, the systemd and RAUC files, the man pages docs/*.8).
debian_packages_fresh() {
	local deb=("$1"/verity-init_*.deb)
	[ -r "${deb[0]}" ] || return 1
	[ -z "$(cd "$VM_TOPDIR" && find lib include verity-init dracut-module debian systemd rauc \
		docs Makefile -type f ! \( -path 'docs/*' ! -name '*.8' \) -newer "${deb[0]}" \
		-print -quit 2>/dev/null)" ]
}

# debian_make_deb : $BUILD/deb has the packages of the tree under test: `make deb` again when they
# are missing or older than a source. Locked: two test files may ask at the same time. Sets
# DEB_PKGDIR to this process's own hard links of them ($BUILD/deb-snapshot/PID), taken under the
# lock: another file's `make deb`, or the cli layer's debian_package_test, removes $BUILD/deb
# and builds it again while this file's root is still being made from them.
debian_make_deb() {
	local r=0 log=$VM_LOGDIR/debian-make-deb.log snap=$BUILD/deb-snapshot/$$
	exec {debfd}>"$BUILD/deb.lock"
	flock "$debfd"
	if ! debian_packages_fresh "$BUILD/deb"; then
		vm_log "make deb (the packages are missing or older than the sources)"
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$VM_TOPDIR" deb BUILD="$BUILD" \
			>"$log" 2>&1 || { vm_log_tail "$log"; r=1; }
	fi
	if [ $r = 0 ]; then
		mkdir -p "${snap%/*}"
		find "${snap%/*}" -mindepth 1 -maxdepth 1 -mmin +1440 -exec rm -rf {} + 2>/dev/null
		{ rm -rf "$snap" && mkdir "$snap" && ln "$BUILD/deb"/*.deb "$snap"/; } ||
			{ vm_die "cannot link the packages into $snap"; r=1; }
		# shellcheck disable=SC2034  # read by the calling file
		DEB_PKGDIR=$snap
	fi
	exec {debfd}>&-
	return $r
}

# debian_use_packages DEBDIR : the root of the calling test file gets dracut and the packages of
# DEBDIR (`make deb`: verity-init, verity-init-dracut) installed by mmdebstrap, and the dracut
# images of tests/vm/debian-dracut-hook.sh generated inside it for the test kernel (debian_initrd).
# The caller may add the hook's arguments to DEB_EXTRA_ARGS (its words, e.g. "anchor" or
# "anchor,both,slots", then a second kernel's version and modules and the manifest key:
# debian_trixie_images).
debian_use_packages() {
	local dir=$1 p f debs=""
	for p in verity-init verity-init-dracut; do
		f=("$dir/${p}_"*.deb)
		if [ ${#f[@]} != 1 ] || ! [ -r "${f[0]}" ]; then
			vm_die "not one ${p}_*.deb in $dir (make deb)"; return 1
		fi
		case ${f[0]} in *[,\'[:space:]]*) vm_die "an unusable path ${f[0]}"; return 1 ;; esac
		debs=$debs,${f[0]}
	done
	[ -d "$VM_MODBASE/lib/modules/$VM_KVER" ] ||
		{ vm_die "no $VM_MODBASE/lib/modules/$VM_KVER for dracut"; return 1; }
	DEB_INCLUDE=$DEB_INCLUDE,dracut$debs
	# Debian 13 moved systemd-veritysetup and its generator out of systemd into
	# systemd-cryptsetup, which dracut-core recommends (apt brings it with dracut): dracut's
	# systemd-veritysetup module needs it, and the root's systemd runs the generator after the
	# switch on the same command line
	[ "$DEB_SUITE" = bookworm ] || DEB_INCLUDE=$DEB_INCLUDE,systemd-cryptsetup
	DEB_EXTRA_HOOK=$VM_SRCDIR/debian-dracut-hook.sh
	DEB_EXTRA_ARGS=("$VM_KVER" "$VM_MODBASE/lib/modules/$VM_KVER")
}

# debian_trixie_images : after debian_use_packages, the images of the Debian 13 root that
# tests/vm/debian13_test.sh boots and tests/bench/distro.sh times (one root for both): the image
# with both owners of roothash=, the bench's anchor, and the A/B image (slots=a,b, the manifest
# key tests/vm/keys/test.pub) for Debian 13's 7.x kernel (trixie-backports, fetched once into
# $BUILD/kernels by tests/vm/fetch-kernel.sh). Sets K7 (its version) and K7_BASE (its unpacked
# tree).
debian_trixie_images() {
	K7=$("$VM_SRCDIR/fetch-kernel.sh" trixie-backports 7 "$BUILD/kernels") ||
		{ vm_die "cannot fetch Debian 13's 7.x kernel"; return 1; }
	K7_BASE=$BUILD/kernels/$K7/root
	DEB_EXTRA_ARGS+=("anchor,both,slots" "$K7" "$K7_BASE/usr/lib/modules/$K7" "$VM_SRCDIR/keys/test.pub")
}

_deb_mmdebstrap() {   # OUT.tmp
	# one log per root: two test files may build their roots at the same time
	local t0 r log=${1%.tmp}.log
	# the hook's path goes into mmdebstrap's hook command line, single-quoted
	case $DEB_HOOK in *\'*) vm_die "a quote in the path $DEB_HOOK"; return 1 ;; esac
	local hooks=(--customize-hook="sh '$DEB_HOOK' \"\$1\"") a
	if [ -n "$DEB_EXTRA_HOOK" ]; then
		case $DEB_EXTRA_HOOK${DEB_EXTRA_ARGS[*]} in *\'*) vm_die "a quote in $DEB_EXTRA_HOOK"; return 1 ;; esac
		a=$(printf " '%s'" "${DEB_EXTRA_ARGS[@]}")
		hooks+=(--customize-hook="sh '$DEB_EXTRA_HOOK' \"\$1\"$a")
	fi
	# apt hands a local .deb's path to dpkg inside the chroot: mmdebstrap's hook makes it exist there
	case ,$DEB_INCLUDE, in *.deb,*) hooks+=(--hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount) ;; esac
	t0=$(date +%s)
	SOURCE_DATE_EPOCH=$VM_EPOCH mmdebstrap --quiet --variant=minbase --format=tar \
		--include="$DEB_INCLUDE" "${DEB_DPKGOPTS[@]}" "${hooks[@]}" \
		"$DEB_SUITE" "$1" "$DEB_SOURCES" >"$log" 2>&1
	r=$?
	[ $r = 0 ] || { vm_log_tail "$log"; vm_die "mmdebstrap failed ($r)"; return 1; }
	vm_log "debian root: mmdebstrap took $(( $(date +%s) - t0 ))s, $(( $(vm_size "$1") / 1048576 )) MiB"
}

# debian_root_tar : print the path of the cached root tarball (build it first when missing).
# Roots of other inputs unused for an hour are removed (a changed hook leaves 770 MB each).
debian_root_tar() {
	local key out
	command -v mmdebstrap >/dev/null || { vm_die "no mmdebstrap (run tests/deps.sh)"; return 1; }
	key=$(debian_root_key)
	out=$DEB_DIR/$key.tar
	vm_cached "$key" "$out" _deb_mmdebstrap "$out.tmp" || return 1
	# in use: its images too (the roots of other test files are kept while they are used).
	# By change time, not modification time: a tree another test file is extracting right now
	# (tree.*, usrtree.*, resttree.*) gets its modification time from the tarball, hours old,
	# but its change time is now, which no extraction can set back
	touch -c "$DEB_DIR/$key"*
	find "$DEB_DIR" -mindepth 1 -maxdepth 1 ! -name "$key*" -cmin +60 \
		-exec rm -rf {} + 2>/dev/null
	echo "$out"
}

# _deb_mkfs FSTYPE TREE OUT : a root image of TREE that keeps owners and modes (unlike vm_mkfs,
# whose busybox roots are all root's), size a multiple of 4096. squashfs and erofs keep the data
# uncompressed, as vm_mkfs does, so that a file's bytes can be found in the image.
_deb_mkfs() {
	local fs=$1 tree=$2 out=$3 mib
	rm -f "$out"
	case $fs in
	ext4)
		mib=$(du -sm "$tree" | cut -f1)
		mib=$(( mib * 13 / 10 + 32 ))
		E2FSPROGS_FAKE_TIME=$VM_EPOCH mkfs.ext4 -q -F -b 4096 -L debroot -U "$VM_FS_UUID" \
			-O ^has_journal -E "hash_seed=$VM_FS_UUID" -d "$tree" "$out" "${mib}M" >/dev/null ;;
	squashfs)
		mksquashfs "$tree" "$out" -quiet -no-progress -noappend -noD -noF -no-fragments \
			-mkfs-time "$VM_EPOCH" -all-time "$VM_EPOCH" >/dev/null ;;
	erofs)
		mkfs.erofs --quiet -Enoinline_data -T"$VM_EPOCH" -U"$VM_FS_UUID" "$out" "$tree" >/dev/null ;;
	*) vm_die "_deb_mkfs: unknown filesystem '$fs'"; return 1 ;;
	esac || { vm_die "_deb_mkfs: $fs failed"; return 1; }
	truncate -s "%4096" "$out"
}

_deb_build_image() {   # FSTYPE TAR OUT.tmp
	local tmp r
	tmp=$(mktemp -d "$DEB_DIR/tree.XXXXXX") || return 1
	tar -C "$tmp" --numeric-owner -xpf "$2" && _deb_mkfs "$1" "$tmp" "$3"
	r=$?
	rm -rf "$tmp"
	return $r
}

# debian_root_image FSTYPE : print the path of the cached, read-only root image.
debian_root_image() {
	local fs=$1 tar key out
	tar=$(debian_root_tar) || return 1
	out=${tar%.tar}.$fs
	key=$(vm_cache_key debian-image "$fs" "$(basename "$tar")" \
		"$(declare -f _deb_mkfs _deb_build_image | sha256sum)" \
		"$(mkfs.ext4 -V 2>&1 | head -n1)" "$(mksquashfs -version 2>&1 | head -n1)" \
		"$(mkfs.erofs -V 2>&1 | head -n1)")
	vm_cached "$key" "$out" _deb_build_image "$fs" "$tar" "$out.tmp" || return 1
	echo "$out"
}

_deb_build_hash() {   # IMAGE DIR.tmp : DIR/hash.img (verity-image format) and DIR/roothash
	local rh
	mkdir -p "$2" && rh=$(vm_verity_format verity-image "$1" "$2/hash.img") &&
		echo "$rh" >"$2/roothash"
}

# debian_verity FSTYPE : set DEB_DATA (the image, to attach read-only), DEB_HASH (its cached hash
# tree, formatted by build/verity-image) and DEB_ROOTHASH.
debian_verity() {
	local fs=$1 key dir
	DEB_DATA=$(debian_root_image "$fs") || return 1
	dir=$DEB_DATA.verity
	key=$(vm_cache_key debian-hash "$(cat "$DEB_DATA.key")" "$(sha256sum <"$BUILD/verity-image")")
	vm_cached "$key" "$dir" _deb_build_hash "$DEB_DATA" "$dir.tmp" || return 1
	# shellcheck disable=SC2034  # the test files read them
	DEB_HASH=$dir/hash.img DEB_ROOTHASH=$(cat "$dir/roothash")
}

_deb_extract_initrd() {   # TAR FLAVOUR KVER OUT.tmp
	tar -xOf "$1" "./boot/initrd.img-$3-$2" >"$4" 2>/dev/null || true
	[ -s "$4" ] || { vm_die "no /boot/initrd.img-$3-$2 in $1"; return 1; }
}

# debian_initrd FLAVOUR [KVER] : print the path of the dracut image (shell, systemd) generated
# inside the root of debian_use_packages for the test kernel (or KVER, the hook's second kernel),
# taken out of its tree.
debian_initrd() {
	local fl=$1 k=${2:-$VM_KVER} tar out
	[ -n "$DEB_EXTRA_HOOK" ] || { vm_die "debian_initrd: no debian_use_packages"; return 1; }
	tar=$(debian_root_tar) || return 1
	out=${tar%.tar}.initrd-$fl
	[ "$k" = "$VM_KVER" ] || out=${tar%.tar}.initrd-$k-$fl
	vm_cached "$(basename "$tar")" "$out" _deb_extract_initrd "$tar" "$fl" "$k" "$out.tmp" || return 1
	echo "$out"
}

# --- the marker's lines -------------------------------------------------------------------------
# debian_line LOG PREFIX [ARG] : the first console line starting with PREFIX (and ARG), CR dropped.
debian_line() {
	local l
	l=$(grep -a -o -m1 -- "$2 ${3:+$3 }.*" "$1") || return 1
	printf '%s\n' "${l%$'\r'}"
}

# debian_boot_verified NAME INITRD FSTYPE WORDS... : the verified root of FSTYPE (hash tree on
# the second disk) booted through INITRD with the command line verity-image prints for it, and
# WORDS.
debian_boot_verified() {
	local name=$1 rd=$2 fs=$3 words; shift 3
	debian_verity "$fs" || { fail "the $fs root image"; return 1; }
	words=$("$VI_IMAGE" cmdline "$DEB_HASH" /dev/vda /dev/vdb "$DEB_ROOTHASH") ||
		{ fail "verity-image cmdline"; return 1; }
	vm_boot --timeout "$DEB_TIMEOUT" --mem "$DEB_MEM" --disk "$DEB_DATA" --disk "$DEB_HASH" \
		"$name" "$rd" "$words root=/dev/mapper/root verity.fail=poweroff $*"
}

# debian_dracut_boot NAME FLAVOUR FSTYPE WORDS... : the same through the dracut image FLAVOUR
# generated inside the root (debian_initrd).
debian_dracut_boot() {
	local name=$1 fl=$2 rd; shift 2
	rd=$(debian_initrd "$fl") || { fail "the $fl image of the root"; return 1; }
	debian_boot_verified "$name" "$rd" "$@"
}

# debian_usr_boot NAME FLAVOUR USRDISK WORDS... : root and /usr both verified through the dracut
# image FLAVOUR (the root without its /usr, erofs, hash tree on the second disk; the /usr GPT
# disk USRDISK found from usrhash=).
debian_usr_boot() {
	local name=$1 fl=$2 disk=$3 rd; shift 3
	rd=$(debian_initrd "$fl") || { fail "the $fl image of the root"; return 1; }
	{ debian_usr_disk && debian_rest_root; } || { fail "the root and /usr images"; return 1; }
	vm_boot --timeout "$DEB_TIMEOUT" --mem "$DEB_MEM" --disk "$DEB_REST" --disk "$DEB_REST_HASH" \
		--disk "$disk" "$name" "$rd" "roothash=$DEB_REST_ROOTHASH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb usrhash=$DEB_USRHASH root=/dev/mapper/root $*"
}

# debian_assert_running LOG : the marker ran and systemd reported "running" (else the failed
# units are named).
debian_assert_running() {
	local log=$1 l failed
	l=$(debian_line "$log" "$VM_MARKER") || { _vm_fail "no $VM_MARKER line" "$log"; return 1; }
	case $l in
	*" state=running"*) ;;
	*)	failed=$(grep -a -o 'VERITY-TEST-FAILED [^[:cntrl:]]*' "$log" | cut -d' ' -f2 | tr '\n' ' ')
		_vm_fail "system not running: $l; failed units: ${failed:-none}" "$log"; return 1 ;;
	esac
	vm_assert_log_contains "$log" 'VERITY-TEST-END' "the marker did not finish"
}

# debian_assert_stands_down LOG NAME... : after the switch the root's own systemd-veritysetup-generator
# (it reads the same command line) made a unit for each mapping NAME, which the agent's drop-in
# (/run/systemd/system.control/systemd-veritysetup@NAME.service.d) skipped: no second program opened it
# (systemd 252: "was skipped because of an unmet condition check (…)"; 257: "skipped, unmet
# condition check …").
debian_assert_stands_down() {
	local log=$1 n; shift
	for n in "$@"; do
		vm_assert_log_contains "$log" "VERITY-TEST-VERITYSETUP .*systemd-veritysetup@$n\.service.* skipped,? (because of an )?unmet condition check \(?ConditionPathExists=!/dev/mapper/$n" \
			"the root's systemd-veritysetup@$n did not stand down" || return 1
		vm_assert_log_lacks "$log" "systemd-veritysetup\[[0-9]+\]: Volume $n already active" \
			"systemd's veritysetup opened $n again" || return 1
	done
	vm_assert_log_lacks "$log" 'VERITY-TEST-FAILED systemd-veritysetup@' "a veritysetup unit failed"
}

# debian_assert_mount LOG DIR SOURCE-REGEX FSTYPE OPTS-REGEX : findmnt's line for DIR.
debian_assert_mount() {
	local log=$1 dir=$2 src=$3 fs=$4 opts=$5 l
	l=$(debian_line "$log" VERITY-TEST-MOUNT "$dir") || { _vm_fail "no mount line for $dir" "$log"; return 1; }
	# shellcheck disable=SC2086  # the marker's fields
	set -- ${l#VERITY-TEST-MOUNT "$dir" }
	if ! [[ ${1:-} =~ ^$src$ ]] || [ "${2:-}" != "$fs" ] || ! [[ ,${3:-}, =~ ,$opts, ]]; then
		_vm_fail "$dir: '$l', expected source /$src/, type $fs, options with /$opts/" "$log"
		return 1
	fi
}

# debian_assert_writable LOG DIR yes|no
debian_assert_writable() {
	local l
	l=$(debian_line "$1" VERITY-TEST-WRITABLE "$2") || { _vm_fail "no writable line for $2" "$1"; return 1; }
	[ "$l" = "VERITY-TEST-WRITABLE $2 $3" ] || { _vm_fail "$2 writable: expected $3, got '$l'" "$1"; return 1; }
}

# --- the root split for a verified /usr (debian_usr_test.sh, debian_dracut_test.sh) ---------------
# Discoverable Partitions type GUIDs: x86-64 usr and usr-verity.
USR_GPT_TYPE=8484680c-9521-48c6-9c11-b0720656f69e
USR_GPT_TYPE_VERITY=77ff5f63-e7b6-4633-acf4-1565b864c0e6

# _deb_build_usr TAR OUT.tmp : the root's /usr as erofs. A tmpfs root starts with an empty /etc,
# so the marker unit and its multi-user.target want move into /usr's unit directory.
_deb_build_usr() {
	local tmp r u
	tmp=$(mktemp -d "$DEB_DIR/usrtree.XXXXXX") || return 1
	u=$tmp/usr/lib/systemd/system
	tar -C "$tmp" --numeric-owner -xpf "$1" &&
	cp "$tmp/etc/systemd/system/verity-test-marker.service" "$u/" &&
	mkdir -p "$u/multi-user.target.wants" &&
	ln -sf ../verity-test-marker.service "$u/multi-user.target.wants/verity-test-marker.service" &&
	_deb_mkfs erofs "$tmp/usr" "$2"
	r=$?
	rm -rf "$tmp"
	return $r
}

# _deb_build_usr_disk USR DIR.tmp : DIR/disk.img, GPT: 1 = USR (type usr-x86-64, PARTUUID = the
# first half of its root hash), 2 = its hash tree (usr-x86-64-verity, the last half); DIR/usrhash.
_deb_build_usr_disk() {
	local usr=$1 d=$2 uh dsec hsec s2
	mkdir -p "$d" && uh=$(vm_verity_format verity-image "$usr" "$d/hash.img") || return 1
	dsec=$(( ($(vm_size "$usr") + 1048575) / 1048576 )); dsec=$(( dsec * 2048 ))
	hsec=$(( ($(vm_size "$d/hash.img") + 1048575) / 1048576 )); hsec=$(( hsec * 2048 ))
	s2=$(( 2048 + dsec ))
	truncate -s $(( (s2 + hsec + 2048) * 512 )) "$d/disk.img" &&
	sgdisk -n "1:2048:+$dsec" -t "1:$USR_GPT_TYPE" -u "1:$(vm_roothash_uuid "$uh" first)" -c 1:usr \
		-n "2:$s2:+$hsec" -t "2:$USR_GPT_TYPE_VERITY" -u "2:$(vm_roothash_uuid "$uh" last)" \
		-c 2:usr-verity "$d/disk.img" >/dev/null &&
	dd if="$usr" of="$d/disk.img" bs=1M seek=$(( 2048 * 512 )) oflag=seek_bytes conv=notrunc \
		status=none &&
	dd if="$d/hash.img" of="$d/disk.img" bs=1M seek=$(( s2 * 512 )) oflag=seek_bytes \
		conv=notrunc status=none &&
	rm -f "$d/hash.img" && echo "$uh" >"$d/usrhash"
}

# _deb_build_rest TAR OUT.tmp [FSTYPE] : the root without the contents of /usr (erofs default).
_deb_build_rest() {
	local tmp r
	tmp=$(mktemp -d "$DEB_DIR/resttree.XXXXXX") || return 1
	tar -C "$tmp" --numeric-owner -xpf "$1" && find "$tmp/usr" -mindepth 1 -delete &&
	_deb_mkfs "${3:-erofs}" "$tmp" "$2"
	r=$?
	rm -rf "$tmp"
	return $r
}

_deb_build_rest_hash() {   # IMAGE DIR.tmp : DIR/hash.img and DIR/roothash
	local rh
	mkdir -p "$2" && rh=$(vm_verity_format verity-image "$1" "$2/hash.img") &&
		echo "$rh" >"$2/roothash"
}

# debian_rest_root : set DEB_REST (the root without /usr), DEB_REST_HASH, DEB_REST_ROOTHASH.
debian_rest_root() {
	local tar key
	tar=$(debian_root_tar) || return 1
	DEB_REST=${tar%.tar}.rest.erofs
	key=$(vm_cache_key debian-rest "$(basename "$tar")" \
		"$(declare -f _deb_mkfs _deb_build_rest | sha256sum)" "$(mkfs.erofs -V 2>&1 | head -n1)")
	vm_cached "$key" "$DEB_REST" _deb_build_rest "$tar" "$DEB_REST.tmp" || return 1
	key=$(vm_cache_key debian-rest-hash "$(cat "$DEB_REST.key")" "$(sha256sum <"$BUILD/verity-image")")
	vm_cached "$key" "$DEB_REST.verity" _deb_build_rest_hash "$DEB_REST" "$DEB_REST.verity.tmp" ||
		return 1
	# shellcheck disable=SC2034  # the test files read them
	DEB_REST_HASH=$DEB_REST.verity/hash.img DEB_REST_ROOTHASH=$(cat "$DEB_REST.verity/roothash")
}

# debian_usr_disk : set DEB_USR_DISK and DEB_USRHASH (both cached by their inputs).
debian_usr_disk() {
	local tar usr key dir
	tar=$(debian_root_tar) || return 1
	usr=${tar%.tar}.usr.erofs
	key=$(vm_cache_key debian-usr "$(basename "$tar")" \
		"$(declare -f _deb_mkfs _deb_build_usr | sha256sum)" "$(mkfs.erofs -V 2>&1 | head -n1)")
	vm_cached "$key" "$usr" _deb_build_usr "$tar" "$usr.tmp" || return 1
	dir=$usr.gpt
	key=$(vm_cache_key debian-usr-gpt "$(cat "$usr.key")" "$(sha256sum <"$BUILD/verity-image")" \
		"$(declare -f _deb_build_usr_disk | sha256sum)")
	vm_cached "$key" "$dir" _deb_build_usr_disk "$usr" "$dir.tmp" || return 1
	# shellcheck disable=SC2034  # the test files read them
	DEB_USR_DISK=$dir/disk.img DEB_USRHASH=$(cat "$dir/usrhash")
}

# --- the packages built on the root's release (tests/vm/debian13_test.sh) ------------------------
# The build dependencies of debian/control, and what the build and its check run.
DEB_BUILD_INCLUDE=debhelper,pkg-config,libdevmapper-dev,libblkid-dev,libssl-dev,libsodium-dev,libaio-dev,libcmocka-dev,lintian,file

_deb_build_packages() {   # SRC.tar OUT.tmp
	local t0 r log=${2%.tmp}.log
	t0=$(date +%s)
	mkdir -p "$2"
	# as debian_package_test.sh builds them on the host: `make deb` (its static-deps from the
	# release's own lvm2 source, over the network), then lintian --pedantic -I on the .changes
	# shellcheck disable=SC2016  # "$1" is the root, for mmdebstrap's hook shell to expand
	SOURCE_DATE_EPOCH=$VM_EPOCH mmdebstrap --quiet --variant=buildd --format=null \
		--include="$DEB_BUILD_INCLUDE" \
		--customize-hook="upload '$1' /tmp/src.tar" \
		--customize-hook='chroot "$1" sh -ec "mkdir /src && tar -C /src -xf /tmp/src.tar && cd /src && make -s deb BUILD=/src/build DEB_FLAGS=\"-us -uc -J\" >/src/build-deb.log 2>&1 || { tail -n 40 /src/build-deb.log; exit 1; }; cp /src/build-deb.log /src/build/deb/; lintian --pedantic -I --show-overrides /src/build/deb/verity-init_*.changes >/src/build/deb/lintian.txt 2>&1 || true"' \
		--customize-hook="sync-out /src/build/deb '$2'" \
		"$DEB_SUITE" /dev/null "$DEB_SOURCES" >"$log" 2>&1
	r=$?
	[ $r = 0 ] || { vm_log_tail "$log"; vm_die "the package build in $DEB_SUITE failed ($r)"; return 1; }
	vm_log "debian packages: built in $DEB_SUITE in $(( $(date +%s) - t0 ))s"
}

# debian_built_packages : print the directory of the packages of this tree built inside a root
# of DEB_SUITE (the .debs, .changes, build-deb.log and lintian.txt), cached by the tree's bytes.
debian_built_packages() {
	local src key out
	src=$DEB_DIR/src.$$.tar
	case $src in *\'*) vm_die "a quote in $src"; return 1 ;; esac
	tar -C "$VM_TOPDIR" --exclude-vcs --exclude=./build --exclude=./debian/build --sort=name \
		--mtime=@"$VM_EPOCH" --owner=0 --group=0 --numeric-owner -cf "$src" . || return 1
	key=$(vm_cache_key debian-packages "$DEB_SUITE" "$DEB_BUILD_INCLUDE" "$(sha256sum <"$src")" \
		"$(declare -f _deb_build_packages | sha256sum)")
	out=$DEB_DIR/packages-$DEB_SUITE
	vm_cached "$key" "$out" _deb_build_packages "$src" "$out.tmp"
	local r=$?
	rm -f "$src"
	[ $r = 0 ] && echo "$out"
}
