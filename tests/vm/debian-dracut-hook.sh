#!/bin/sh
# mmdebstrap customize hook of the Debian test root with the packages (tests/vm/lib-debian.sh,
# debian_use_packages): $1 is the tree, $2 the kernel version, $3 the host's module directory of
# that kernel. dracut, verity-init and verity-init-dracut are installed in the tree by then; the
# initramfs images are generated inside it as a user of the distribution generates them, with
# the module found where the package put it (/usr/lib/dracut/modules.d/90verity-init), and left
# in the tree's /boot:
#   /boot/initrd.img-KVER-shell    dracut's shell init + verity-init
#   /boot/initrd.img-KVER-systemd  systemd in the initramfs + verity-init
# and, for the words of $4 (a comma-separated list):
#   anchor (tests/bench/distro.sh), the anchor of the benchmark:
#   /boot/initrd.img-KVER-systemd-veritysetup  systemd in the initramfs + dracut's own
#                                  systemd-veritysetup module, without verity-init
#   both (tests/vm/debian13_test.sh), the two owners of roothash= in one image:
#   /boot/initrd.img-KVER-systemd-both  systemd in the initramfs + systemd-veritysetup + verity-init
#   slots (tests/vm/debian13_test.sh), A/B slots: $7 is the manifest key (a minisign public key)
#   /boot/initrd.img-KVER-systemd-slots  systemd in the initramfs + verity-init, its policy
#                                  slots=a,b with that key, through dracut.conf's verity_init_conf=
#                                  and verity_init_keys= (in the tree's /etc/verity-init-slots);
#                                  for the second kernel when $5 and $6 name one and its module
#                                  directory (tests/vm/debian13_test.sh: Debian 13's 7.x from
#                                  trixie-backports): /boot/initrd.img-KVER2-systemd-slots
# dracut-ng (Debian 13's dracut 106) moved the shell that runs its scripts into a module of its
# own, shell-interpreter; it is named where that module exists (dracut 059 has none).
# The tree has no kernel package: the test kernel is the build host's, so its modules are copied
# in for dracut and removed afterwards (the booted root loads no module). Its content is part of
# the root's cache key.
set -eu
r=$1 kver=$2 moddir=$3 extra=${4:-} kver2=${5:-} moddir2=${6:-} slotkey=${7:-}

[ -r "$r/usr/lib/dracut/modules.d/90verity-init/module-setup.sh" ] || {
	echo "debian-dracut-hook: the verity-init-dracut package is not installed" >&2
	exit 1
}
mkdir -p "$r/usr/lib/modules"
cp -a "$moddir" "$r/usr/lib/modules/$kver"
[ -z "$kver2" ] || cp -a "$moddir2" "$r/usr/lib/modules/$kver2"

# The module sets of tests/vm/lib-dracut.sh (VM_DRACUT_MODULES, VM_DRACUT_MODULES_SYSTEMD) and its
# options: no host-only detection (a chroot is not the machine that boots), no microcode.
# MKRD_CONFDIR: another dracut.conf.d, inside the tree.
mkrd() {   # KERNEL FLAVOUR MODULES...
	k=$1 fl=$2; shift 2
	chroot "$r" dracut ${MKRD_CONFDIR:+--confdir "$MKRD_CONFDIR"} --no-hostonly \
		--no-hostonly-cmdline --no-early-microcode --reproducible \
		--gzip --force --kver "$k" --add-drivers "virtio_pci virtio_blk ext4 squashfs erofs" \
		-m "$*" "/boot/initrd.img-$k-$fl"
}
sh=""
[ ! -d "$r/usr/lib/dracut/modules.d/99shell-interpreter" ] || sh=shell-interpreter
mkrd "$kver" shell $sh base dm rootfs-block udev-rules verity-init
mkrd "$kver" systemd $sh systemd systemd-initrd dracut-systemd base dm rootfs-block udev-rules verity-init
case ,$extra, in
*,anchor,*)
	mkrd "$kver" systemd-veritysetup $sh systemd systemd-initrd dracut-systemd base dm rootfs-block \
		udev-rules systemd-veritysetup ;;
esac
case ,$extra, in
*,both,*)
	mkrd "$kver" systemd-both $sh systemd systemd-initrd dracut-systemd base dm rootfs-block udev-rules \
		systemd-veritysetup verity-init ;;
esac
case ,$extra, in
*,slots,*)
	[ -r "$slotkey" ] || { echo "debian-dracut-hook: slots: no manifest key '$slotkey'" >&2; exit 1; }
	d=/etc/verity-init-slots
	mkdir -p "$r$d/keys" "$r$d/conf"
	printf 'slots=a,b\n' >"$r$d/verity-init.conf"
	cp "$slotkey" "$r$d/keys/"
	printf 'verity_init_conf="%s"\nverity_init_keys="%s"\n' "$d/verity-init.conf" "$d/keys" \
		>"$r$d/conf/50-slots.conf"
	MKRD_CONFDIR=$d/conf mkrd "${kver2:-$kver}" systemd-slots $sh systemd systemd-initrd \
		dracut-systemd base dm rootfs-block udev-rules verity-init ;;
esac

[ -z "$kver2" ] || rm -rf "${r:?}/usr/lib/modules/$kver2"

rm -rf "${r:?}/usr/lib/modules/$kver" "$r/var/tmp/dracut."*
