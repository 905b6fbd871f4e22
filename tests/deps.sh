#!/bin/sh
# Install exactly the Debian packages that are missing for building and testing verity-init.
# As root: apt-get update, then apt-get install of what is missing (waiting for another install
# that holds dpkg's lock). Not root: print the line, fail. Already complete: return at once
# (dpkg-query only, no network).
# Usage: tests/deps.sh [--demo | --build | --rest]
#   --demo: only what `make demo` uses (build, the static agent, one QEMU boot of the 6.1 kernel);
#   --build: only what `make check` builds before its layers run (the programs, the static agent,
#     the unit tests' and fuzz targets' programs), so that the rest can be installed while they
#     are compiled (not root: the line for everything `make check` needs, in one go);
#   --rest: everything, `apt-get update` only when the install fails without it (a --build call
#     has just run it);
#   no option: everything `make check` runs.
set -eu

BUILD_PKGS="gcc make pkg-config libdevmapper-dev libblkid-dev libssl-dev libsodium-dev"
# dpkg-dev, fakeroot-free source unpacking and lvm2's build needs are for build-aux/static-deps.sh.
STATIC_PKGS="dpkg-dev libaio-dev"
# tests/vm/demo.sh: a busybox ext4 root, veritysetup (vm_require_tools), the initramfs (cpio,
# kmod), the kernel it boots and QEMU; xz unpacks the kernel for QEMU's faster PVH entry.
DEMO_PKGS="qemu-system-x86 linux-image-amd64 busybox-static e2fsprogs cryptsetup-bin cpio kmod
xz-utils"
TEST_PKGS="libcmocka-dev shunit2 dracut-core squashfs-tools erofs-utils minisign gdisk time clang
libclang-rt-dev cppcheck clang-tidy valgrind systemd udev openssl shellcheck zstd lz4 file jq rauc
rauc-service linux-image-6.12.118+deb12-amd64 ovmf systemd-boot-efi sbsigntool binutils dosfstools
mtools swtpm swtpm-tools debhelper lintian mmdebstrap
softhsm2 opensc libengine-pkcs11-openssl p11-kit"

# what the unit tests' programs (cmocka) and the fuzz targets need to be compiled: clang and its
# compiler-rt (libFuzzer, ASan, UBSan), which clang only recommends
CHECK_BUILD_PKGS="libcmocka-dev clang libclang-rt-dev"

want="$BUILD_PKGS $STATIC_PKGS $DEMO_PKGS"
update=yes
case ${1:-} in
--demo) ;;
--build) want="$BUILD_PKGS $STATIC_PKGS $CHECK_BUILD_PKGS" ;;
--rest) want="$want $TEST_PKGS" update=no ;;
"") want="$want $TEST_PKGS" ;;
*) echo "usage: tests/deps.sh [--demo | --build | --rest]" >&2; exit 2 ;;
esac

# missing_of PKG... : those of PKG... not installed, each after a space
missing_of() {
	for p; do
		status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[ "$status" = installed ] || printf ' %s' "$p"
	done
}

# shellcheck disable=SC2086
missing=$(missing_of $want)
[ -z "$missing" ] && exit 0

# not root, --build: one line for all of make check's packages rather than a second one after
# the build (the build's are among them)
if [ "$(id -u)" -ne 0 ] && [ "${1:-}" = --build ]; then
	# shellcheck disable=SC2086
	missing=$(missing_of $BUILD_PKGS $STATIC_PKGS $DEMO_PKGS $TEST_PKGS)
fi
line="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing packages; as root run: apt-get update && $line" >&2
	exit 1
fi
echo "deps.sh: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
install() {
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 $missing
}
if [ "$update" = no ]; then
	install || { apt-get update -q && install; }
else
	apt-get update -q
	install
fi
