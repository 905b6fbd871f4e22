#!/bin/bash
# fetch-kernel.sh SUITE SERIES DIR : Debian's newest linux-binary-SERIES.*-amd64 kernel of SUITE
# (trixie-backports: 7.x) from the host's own Debian mirror, without touching the host's apt
# configuration: a private sources list and apt state under DIR/apt, `apt-get download` of the
# split packages (linux-binary: vmlinuz; linux-modules; linux-base: config, modules.order,
# modules.builtin), unpacked into DIR/KVER/root (modules under usr/lib/modules/KVER, lib a link
# to usr/lib as on a merged-/usr system, so modprobe -d and depmod -b find them), depmod run.
# Prints KVER. Done once: a finished tree (DIR/KVER/.done) is reused; one caller at a time.
set -euo pipefail

suite=$1 series=$2 dir=$3
mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial"
exec 9>"$dir/.lock"
flock 9

mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)\/*$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" >"$dir/apt/sources.list"
apt=(-o Dir::Etc::SourceList="$dir/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o Dir::State::Lists="$dir/apt/lists" -o Dir::Cache="$dir/apt/cache" -o APT::Sandbox::User=root -q)

# the newest package of the series: names linux-binary-7.3.4+deb13-amd64
newest() {
	apt-cache "${apt[@]}" pkgnames linux-binary- 2>/dev/null |
		grep -E "^linux-binary-${series//./\\.}\\.[0-9.]+\\+deb[0-9]+-amd64\$" | sort -V | tail -n 1
}
pkg=$(newest || true)
if [ -z "$pkg" ] || [ ! -e "$dir/${pkg#linux-binary-}/.done" ]; then
	apt-get "${apt[@]}" update >"$dir/apt/update.log" 2>&1 ||
		{ echo "fetch-kernel: apt-get update of $suite failed: $(tail -n 3 "$dir/apt/update.log")" >&2; exit 1; }
	pkg=$(newest || true)
fi
[ -n "$pkg" ] || { echo "fetch-kernel: no linux-binary-$series.*-amd64 in $suite" >&2; exit 1; }
kver=${pkg#linux-binary-}
out=$dir/$kver
if [ ! -e "$out/.done" ]; then
	rm -rf "$out" && mkdir -p "$out/debs" "$out/root/usr/lib"
	(cd "$out/debs" && apt-get "${apt[@]}" download "linux-binary-$kver" "linux-modules-$kver" \
		"linux-base-$kver" >"$out/download.log" 2>&1) ||
		{ echo "fetch-kernel: download failed: $(tail -n 3 "$out/download.log")" >&2; exit 1; }
	for d in "$out"/debs/*.deb; do dpkg-deb -x "$d" "$out/root"; done
	ln -s usr/lib "$out/root/lib"
	[ -r "$out/root/usr/lib/modules/$kver/vmlinuz" ] ||
		{ echo "fetch-kernel: no usr/lib/modules/$kver/vmlinuz in the packages" >&2; exit 1; }
	depmod -b "$out/root" "$kver"
	rm -rf "$out/debs"
	touch "$out/.done"
fi
echo "$kver"
