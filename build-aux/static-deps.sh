#!/bin/sh
# Build libdevmapper.a for the static agent.
#
# Debian ships libdevmapper only as a shared library, so we build the static one from the
# distribution's own lvm2 source package: the same version as the installed libdevmapper-dev,
# with Debian's patches applied, configured for a library that needs neither udev nor SELinux.
# The deb-src entry is derived from the system's own APT sources and given to apt-get through a
# private configuration; the system's APT state is not touched.
#
# usage: build-aux/static-deps.sh OUTDIR     -> OUTDIR/lib/libdevmapper.a, OUTDIR/include/
set -eu

out=${1:?usage: static-deps.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# Built for the static agent's link: every function and object in a section of its own, so that
# the linker's --gc-sections keeps only what the agent calls, and no unwind tables (C, never
# unwound): 45 KB of the agent's size budget. The same hardening as the agent's own code.
cflags="-Os -fstack-protector-strong -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables"
cppflags="-D_FORTIFY_SOURCE=2"
# a library built with other flags (an older version of this script) is built again
# (make asks again when this script is newer than the library: the answer is the same library)
if [ -f "$out/lib/libdevmapper.a" ] &&
	[ "$(cat "$out/lib/flags" 2>/dev/null)" = "$cflags $cppflags" ]; then
	touch "$out/lib/libdevmapper.a"
	exit 0
fi

work="$out/work"
rm -rf "$work"
mkdir -p "$work/apt/sources.list.d" "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/src"

srcver=$(dpkg-query -W -f='${source:Version}' libdevmapper-dev)
srcname=$(dpkg-query -W -f='${source:Package}' libdevmapper-dev)

# deb-src twins of the enabled Debian sources (deb822 and one-line formats).
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	sed -n 's/^Types:.*\bdeb\b.*/Types: deb-src/p; /^Types:/!p' "$f" > "$work/apt/sources.list.d/$(basename "$f")"
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
	[ -f "$f" ] || continue
	sed -n 's/^deb \(.*\)/deb-src \1/p' "$f" >> "$work/apt/sources.list.d/src.list"
done

aptopts="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$work/apt/sources.list.d
 -o Dir::State::Lists=$work/apt/lists -o Dir::Cache=$work/apt/cache -o APT::Sandbox::User=root"
# shellcheck disable=SC2086
apt-get $aptopts -q update >"$work/apt-update.log" 2>&1 || { cat "$work/apt-update.log" >&2; exit 1; }
cd "$work/src"
# shellcheck disable=SC2086
apt-get $aptopts -q source --download-only "$srcname=$srcver" >"$work/apt-source.log" 2>&1 ||
	{ cat "$work/apt-source.log" >&2; exit 1; }
dpkg-source --no-check -x ./*.dsc lvm2 >/dev/null

cd lvm2
# Only libdm is built; these switches keep it free of udev, SELinux and blkid at link time.
CFLAGS=$cflags CPPFLAGS=$cppflags ./configure --enable-static_link --disable-selinux --disable-udev_sync --disable-udev_rules \
	--disable-blkid_wiping --disable-readline --disable-dmeventd --disable-cmdlib \
	--disable-nls --with-thin=none --with-cache=none --with-vdo=none --with-writecache=none \
	--with-integrity=none >"$work/configure.log" 2>&1 || { tail -30 "$work/configure.log" >&2; exit 1; }
make -C libdm -j"$(nproc)" >"$work/make.log" 2>&1 || { tail -30 "$work/make.log" >&2; exit 1; }

mkdir -p "$out/lib" "$out/include"
lib=$(find libdm -name libdevmapper.a | head -n1)
[ -n "$lib" ] || { echo "static-deps.sh: libdevmapper.a was not built" >&2; exit 1; }
cp "$lib" "$out/lib/libdevmapper.a.tmp"
cp libdm/libdevmapper.h "$out/include/"
mv "$out/lib/libdevmapper.a.tmp" "$out/lib/libdevmapper.a"
echo "$cflags $cppflags" > "$out/lib/flags"
echo "static-deps.sh: built $out/lib/libdevmapper.a from $srcname $srcver"
