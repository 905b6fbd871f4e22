# shellcheck shell=bash
# dracut images for the VM tests. Sourced by lib.sh (never executed); prefix vm_dracut_.
#
# Images are built from a `make install DESTDIR=...` staging tree: the module from
# STAGE/usr/lib/dracut/modules.d/90verity-init and the agent from STAGE/usr/sbin/verity-init.
# dracut reads its modules from one directory ($dracutbasedir/modules.d), so each build gets a
# private dracutbasedir: symlinks to the system's dracut files and modules plus the staged
# module. Nothing is installed into /usr/lib/dracut, and no host-only state leaks in: no host
# configuration (--conf /dev/null, an empty --confdir), --no-hostonly, --no-hostonly-cmdline,
# no early microcode, a fixed module list, no signing keys from the host.
#
# Environment: VM_DRACUT_STAGE (use this staging tree instead of running make install),
# VM_DRACUT_AGENT (agent binary to put into the image instead of the staged one).

VM_DRACUT_SYSDIR=${VM_DRACUT_SYSDIR:-/usr/lib/dracut}
# The minimal dracut module set (as the dmsetup-hook baseline in measurements.md), and the
# drivers the test VM needs.
VM_DRACUT_MODULES="base dm rootfs-block udev-rules"
VM_DRACUT_MODULES_SYSTEMD="systemd systemd-initrd dracut-systemd base dm rootfs-block udev-rules"
VM_DRACUT_DRIVERS="virtio_pci virtio_blk ext4 squashfs erofs"

# vm_dracut_stage DIR : `make install` into DIR (DESTDIR); the module and the agent land in
# DIR/usr/lib/dracut/modules.d/90verity-init and DIR/usr/sbin/verity-init.
vm_dracut_stage() {
	local dir=$1
	local lockfd r=0
	rm -rf "$dir" && mkdir -p "$dir" || return 1
	# one make at a time in BUILD (test files build their images in parallel)
	exec {lockfd}>"$VM_DIR/dracut-make.lock"
	flock "$lockfd"
	# a make of its own, not a sub-make of `make check` (no inherited jobserver)
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$VM_TOPDIR" install BUILD="$BUILD" \
		DESTDIR="$dir" >"$dir.log" 2>&1 || r=1
	exec {lockfd}>&-
	[ $r = 0 ] || { vm_die "make install DESTDIR=$dir failed: $(tail -n 5 "$dir.log")"; return 1; }
	[ -x "$dir/usr/sbin/verity-init" ] || { vm_die "no agent in $dir/usr/sbin"; return 1; }
	[ -r "$dir/usr/lib/dracut/modules.d/90verity-init/module-setup.sh" ] ||
		{ vm_die "no dracut module in $dir"; return 1; }
}

# vm_dracut_basedir OUT [MODDIR...] : a private dracutbasedir in OUT: the system's dracut files
# and modules as symlinks, plus each MODDIR (a dracut module directory such as 90verity-init).
vm_dracut_basedir() {
	local out=$1 f m; shift
	rm -rf "$out" && mkdir -p "$out/modules.d" || return 1
	for f in "$VM_DRACUT_SYSDIR"/*; do
		[ "$(basename "$f")" = modules.d ] && continue
		ln -s "$f" "$out/$(basename "$f")"
	done
	for m in "$VM_DRACUT_SYSDIR"/modules.d/*; do
		ln -s "$m" "$out/modules.d/$(basename "$m")"
	done
	for m in "$@"; do
		rm -f "$out/modules.d/$(basename "$m")"
		ln -s "$m" "$out/modules.d/$(basename "$m")"
	done
}

# vm_dracut_run BASEDIR OUT [dracut options...] : run dracut with the private BASEDIR and no
# host configuration; OUT is the image (gzip, reproducible).
vm_dracut_run() {
	local base=$1 out=$2 empty=$VM_DIR/dracut-empty; shift 2
	# a fixed, always empty directory: dracut records its arguments in the image
	mkdir -p "$empty" || return 1
	# verity_init_keys, _certs: the module would otherwise take the build host's
	# /etc/verity-init/keys and certs (a --confdir of the caller's may name others)
	dracutbasedir=$base verity_init_keys=$empty verity_init_certs=$empty dracut --conf /dev/null --confdir "$empty" --no-hostonly \
		--no-hostonly-cmdline --no-early-microcode --reproducible --gzip --force \
		--kver "$VM_KVER" ${VM_MODBASE:+--kmoddir "$VM_MODBASE/lib/modules/$VM_KVER"} --add-drivers "$VM_DRACUT_DRIVERS" "$@" "$out" \
		>"$out.log" 2>&1
	local r=$?
	[ $r = 0 ] || { vm_die "dracut failed ($r): $(tail -n 10 "$out.log")"; return 1; }
}

# vm_dracut_initramfs OUT [dracut options...] : an image with the staged verity-init module.
# Default module list: VM_DRACUT_MODULES + verity-init; options are appended (e.g. -m "...").
vm_dracut_initramfs() {
	local out=$1 stage base r; shift
	stage=${VM_DRACUT_STAGE:-}
	if [ -z "$stage" ]; then
		stage=$(mktemp -d "$VM_DIR/dracut-stage.XXXXXX") || return 1
		vm_dracut_stage "$stage" || { rm -rf "$stage"; return 1; }
	fi
	base=$(mktemp -d "$VM_DIR/dracut-base.XXXXXX") || return 1
	vm_dracut_basedir "$base" "$stage/usr/lib/dracut/modules.d/90verity-init" || return 1
	VERITY_INIT_AGENT=${VM_DRACUT_AGENT:-$stage/usr/sbin/verity-init} \
		vm_dracut_run "$base" "$out" -m "$VM_DRACUT_MODULES verity-init" "$@"
	r=$?
	rm -rf "$base"
	[ -n "${VM_DRACUT_STAGE:-}" ] || rm -rf "$stage" "$stage.log"
	return $r
}

# vm_dracut_key WORDS... : cache key of a dracut image: the module's and agent's bytes, dracut's
# version, the kernel, and the caller's words.
vm_dracut_key() {
	vm_cache_key dracut "$VM_KVER" "$(dracut --version 2>/dev/null)" \
		"$(cat "$VM_TOPDIR"/dracut-module/* "$VM_SRCDIR/lib-dracut.sh" | sha256sum)" \
		"$(cat "$BUILD/static/verity-init" "$BUILD/verity-init" 2>/dev/null | sha256sum)" "$@"
}

# vm_dracut_image FLAVOUR : print the path of the cached image (built once per inputs).
#   shell    dracut's shell init: VM_DRACUT_MODULES + verity-init
#   systemd  systemd in the initramfs: VM_DRACUT_MODULES_SYSTEMD + systemd-veritysetup +
#            verity-init (both verity setups present: the module must keep systemd's out)
#   shell-usrmount  shell + dracut's usrmount (mounts the root fstab's /usr in pre-pivot)
#   shell-swap, systemd-swap  the shell, systemd image + a test-only pre-mount hook
#            (dracut-swap-hook.sh) that replaces the table of the mapping root by vitest.swap=
#            between setup and pre-pivot: the flavour's image as it is with a second archive
#            appended (the kernel unpacks it over the first), so no dracut run of its own
vm_dracut_image() {
	local flavour=$1 out key base
	out=$VM_CACHE/dracut-$flavour-$VM_KVER.img
	key=$(vm_dracut_key "$flavour")
	case $flavour in
	shell) vm_cached "$key" "$out" vm_dracut_initramfs "$out.tmp" ;;
	shell-usrmount) vm_cached "$key" "$out" vm_dracut_initramfs "$out.tmp" -m usrmount ;;
	shell-swap|systemd-swap)
		base=$(vm_dracut_image "${flavour%-swap}") || return 1
		key=$(vm_dracut_key "$flavour" "$(cat "$base.key")" "$(sha256sum <"$VM_SRCDIR/dracut-swap-hook.sh")")
		vm_cached "$key" "$out" _vm_dracut_add_hook "$base" "$VM_SRCDIR/dracut-swap-hook.sh" \
			pre-mount/20-vitest-swap.sh "$out.tmp" ;;
	systemd) vm_cached "$key" "$out" vm_dracut_initramfs "$out.tmp" \
		-m "$VM_DRACUT_MODULES_SYSTEMD systemd-veritysetup verity-init" ;;
	*) vm_die "vm_dracut_image: unknown flavour '$flavour'"; return 1 ;;
	esac || return 1
	echo "$out"
}

# _vm_dracut_add_hook IMAGE HOOK HOOKDIR/NAME OUT : OUT = IMAGE followed by a gzip cpio archive
# holding HOOK as the dracut hook /lib/dracut/hooks/HOOKDIR/NAME (what dracut --include would
# put there). The archive has the file's entry only, under usr/lib: the image's lib is a link to
# usr/lib, which a directory entry would replace.
_vm_dracut_add_hook() {
	local image=$1 hook=$2 name=usr/lib/dracut/hooks/$3 out=$4 t r
	t=$(mktemp -d "$VM_DIR/dracut-hook.XXXXXX") || return 1
	mkdir -p "$t/$(dirname "$name")" && cp "$hook" "$t/$name" && chmod 0644 "$t/$name" &&
		touch -d "@$VM_EPOCH" "$t/$name" &&
		{ cat "$image" && (cd "$t" && echo "$name" |
			cpio --quiet -o -H newc -R 0:0 --reproducible | gzip -n); } >"$out"
	r=$?
	rm -rf "$t"
	return $r
}

# vm_dracut_swap_table DIR : make a second valid image in DIR (its marker says id=recovery) and
# print its dm-verity table (format 1, superblock in hash block 0, as /dev/vdc + /dev/vdd) with
# the words joined by commas, for the test-only swap hook's vitest.swap= (dracut-swap-hook.sh).
vm_dracut_swap_table() {
	local o=$1 blocks
	VM_ROOT_ID=recovery vm_verity_setup ext4 "$o" >/dev/null || return 1
	blocks=$(( $(vm_size "$o/data.img") / 4096 ))
	printf '0,%s,verity,1,/dev/vdc,/dev/vdd,4096,4096,%s,1,sha256,%s,%s\n' "$(( blocks * 8 ))" \
		"$blocks" "$(sed -n 's/^ROOTHASH=//p' "$o/vars")" "$VM_VERITY_SALT"
}

# vm_dracut_swap_boot FLAVOUR NAME : the table-swap scenario (dracut_shell_test.sh shell,
# dracut_systemd_test.sh systemd): a verified ext4 root on vda + vdb, named by our keys (shell) or
# systemd's (systemd), and another valid image on vdc + vdd whose table the test-only pre-mount
# hook of the FLAVOUR-swap image loads into the mapping root between setup and pre-pivot
# (dmsetup suspend, reload, resume: a verity target with status V on the same device number, not
# the table setup loaded). verity.fail=reboot.
vm_dracut_swap_boot() {
	local fl=$1 name=$2 d rh table rd keys
	# no boot (a failure below): vm_dracut_assert_swap_refused fails
	# shellcheck disable=SC2034  # lib.sh's assertions read it
	VM_STATUS=1 VM_LOG=/dev/null
	d=$(vm_workdir "$name") || return 1
	rh=$(vm_verity_setup ext4 "$d") || { vm_die "$name: the root image"; return 1; }
	table=$(vm_dracut_swap_table "$d/other") || { vm_die "$name: the other image"; return 1; }
	rd=$(vm_dracut_image "$fl-swap") || return 1
	case $fl in
	shell) keys="verity.roothash=$rh verity.data=/dev/vda verity.hash=/dev/vdb" ;;
	*) keys="roothash=$rh systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb" ;;
	esac
	vm_boot --timeout "${VM_DRACUT_TIMEOUT:-300}" --disk "$d/data.img" --disk "$d/hash.img" \
		--disk "$d/other/data.img" --disk "$d/other/hash.img" "$name" "$rd" \
		"$keys rootfstype=ext4 verity.fail=reboot vitest.swap=$table"
}

# vm_dracut_assert_swap_refused : the last vm_dracut_swap_boot ended by itself, the hook replaced
# the table, the check before the switch compared the live table with setup's record and refused
# it, the fail action (reboot) was taken; neither root's init ran (the other image's marker says
# id=recovery) and no file system of an unverified device was mounted.
vm_dracut_assert_swap_refused() {
	vm_assert_booted || return 1
	vm_assert_log_contains "$VM_LOG" 'VITEST-SWAPPED root' "the hook did not replace the table" || return 1
	vm_assert_log_contains "$VM_LOG" \
		'verity-init\[[0-9]+\]: root: activate failed: mapping root: its table is not the one setup loaded \(live: 0 [0-9]+ verity 1 ' \
		"pre-pivot did not refuse the replaced table" || return 1
	vm_assert_log_contains "$VM_LOG" 'verity-init\[[0-9]+\]: fallback: reboot' \
		"verity.fail=reboot not applied" || return 1
	vm_assert_no_marker "$VM_LOG" || return 1
	vm_assert_log_lacks "$VM_LOG" '(EXT4-fs|SQUASHFS|erofs)[^:]*\(vd[a-z]' \
		"a file system on an unverified device was mounted"
}
