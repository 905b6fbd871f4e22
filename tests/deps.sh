#!/bin/sh
# Install exactly the Debian packages that are missing for building and testing verity-init.
# As root: apt-get update, then apt-get install of what is missing. Not root: print the line, fail.
# Already complete: return at once (dpkg-query only, no network).
set -eu

BUILD_PKGS="gcc make pkg-config libdevmapper-dev libblkid-dev libssl-dev libcmocka-dev libsodium-dev"
# dpkg-dev, fakeroot-free source unpacking and lvm2's build needs are for build-aux/static-deps.sh.
STATIC_PKGS="dpkg-dev libaio-dev"
TEST_PKGS="shunit2 qemu-system-x86 linux-image-amd64 dracut-core cryptsetup-bin busybox-static
e2fsprogs squashfs-tools erofs-utils cpio kmod minisign gdisk time clang cppcheck clang-tidy
valgrind systemd udev openssl shellcheck xz-utils zstd lz4 file jq rauc rauc-service
linux-image-6.12.118+deb12-amd64 ovmf systemd-boot-efi sbsigntool binutils dosfstools mtools
swtpm swtpm-tools debhelper lintian mmdebstrap"

missing=""
for p in $BUILD_PKGS $STATIC_PKGS $TEST_PKGS; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || missing="$missing $p"
done

[ -z "$missing" ] && exit 0

line="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing packages; as root run: apt-get update && $line" >&2
	exit 1
fi
echo "deps.sh: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
