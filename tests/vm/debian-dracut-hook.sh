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
# dracut-ng (Debian 13's dracut 106) moved the shell that runs its scripts into a module of its
# own, shell-interpreter; it is named where that module exists (dracut 059 has none).
# The tree has no kernel package: the test kernel is the build host's, so its modules are copied
# in for dracut and removed afterwards (the booted root loads no module). Its content is part of
# the root's cache key.
set -eu
r=$1 kver=$2 moddir=$3 extra=${4:-}

[ -r "$r/usr/lib/dracut/modules.d/90verity-init/module-setup.sh" ] || {
	echo "debian-dracut-hook: the verity-init-dracut package is not installed" >&2
	exit 1
}
mkdir -p "$r/usr/lib/modules"
cp -a "$moddir" "$r/usr/lib/modules/$kver"

# The module sets of tests/vm/lib-dracut.sh (VM_DRACUT_MODULES, VM_DRACUT_MODULES_SYSTEMD) and its
# options: no host-only detection (a chroot is not the machine that boots), no microcode.
mkrd() {   # FLAVOUR MODULES...
	fl=$1; shift
	chroot "$r" dracut --no-hostonly --no-hostonly-cmdline --no-early-microcode --reproducible \
		--gzip --force --kver "$kver" --add-drivers "virtio_pci virtio_blk ext4 squashfs erofs" \
		-m "$*" "/boot/initrd.img-$kver-$fl"
}
sh=""
[ ! -d "$r/usr/lib/dracut/modules.d/99shell-interpreter" ] || sh=shell-interpreter
mkrd shell $sh base dm rootfs-block udev-rules verity-init
mkrd systemd $sh systemd systemd-initrd dracut-systemd base dm rootfs-block udev-rules verity-init
case ,$extra, in
*,anchor,*)
	mkrd systemd-veritysetup $sh systemd systemd-initrd dracut-systemd base dm rootfs-block \
		udev-rules systemd-veritysetup ;;
esac
case ,$extra, in
*,both,*)
	mkrd systemd-both $sh systemd systemd-initrd dracut-systemd base dm rootfs-block udev-rules \
		systemd-veritysetup verity-init ;;
esac

rm -rf "${r:?}/usr/lib/modules/$kver" "$r/var/tmp/dracut."*
