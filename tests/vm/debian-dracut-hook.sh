#!/bin/sh
# mmdebstrap customize hook of the Debian test root with the packages (tests/vm/lib-debian.sh,
# debian_use_packages): $1 is the tree, $2 the kernel version, $3 the host's module directory of
# that kernel. dracut, verity-init and verity-init-dracut are installed in the tree by then; the
# initramfs images are generated inside it as a user of the distribution generates them, with
# the module found where the package put it (/usr/lib/dracut/modules.d/90verity-init), and left
# in the tree's /boot:
#   /boot/initrd.img-KVER-shell    dracut's shell init + verity-init
#   /boot/initrd.img-KVER-systemd  systemd in the initramfs + verity-init
# and, when $4 is "anchor" (tests/bench/distro.sh), the anchor of the benchmark:
#   /boot/initrd.img-KVER-systemd-veritysetup  systemd in the initramfs + dracut's own
#                                  systemd-veritysetup module, without verity-init
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
mkrd shell base dm rootfs-block udev-rules verity-init
mkrd systemd systemd systemd-initrd dracut-systemd base dm rootfs-block udev-rules verity-init
if [ "$extra" = anchor ]; then
	mkrd systemd-veritysetup systemd systemd-initrd dracut-systemd base dm rootfs-block udev-rules \
		systemd-veritysetup
fi

rm -rf "${r:?}/usr/lib/modules/$kver" "$r/var/tmp/dracut."*
