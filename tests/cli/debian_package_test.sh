#!/bin/bash
# The Debian packages: `make deb` (dpkg-buildpackage on debian/, source and binaries) into
# $BUILD/deb, then what a distribution would check: lintian (pedantic, info tags) has
# no error or warning and uses no stale override, each package holds its files where they must
# be (the agent statically linked at /usr/sbin/verity-init, the dracut module where dracut and
# its module-setup.sh look, the man pages), and the version is the programs' own.
# libdevmapper.a comes from STATIC_DEPS (default: build/static-deps of this tree, made by
# `make static`), so no lvm2 is built here.
# shellcheck disable=SC2317  # test functions and helpers are called by shunit2

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
STATIC_DEPS=${STATIC_DEPS:-$ROOT/build/static-deps}
VERSION=$(sed -n 's/^#define VERITY_INIT_VERSION "\(.*\)"/\1/p' "$ROOT/verity-init/image/prog.h")
ARCH=$(dpkg --print-architecture)

# Why the packages cannot be built here, or "" when they can.
deb_unbuildable() {
	local t
	# The ASan+UBSan pass of the cli layer would build the same packages again: nothing in
	# them comes from the sanitizer build.
	[ "${SANITIZE:-0}" = 1 ] && { echo "not under SANITIZE=1 (the packages do not use that build)"; return; }
	for t in dpkg-buildpackage dh lintian file; do
		command -v "$t" >/dev/null || { echo "$t missing (tests/deps.sh)"; return; }
	done
	[ -f "$STATIC_DEPS/lib/libdevmapper.a" ] ||
		echo "no $STATIC_DEPS/lib/libdevmapper.a (make static, or STATIC_DEPS=DIR)"
}

# The packages are built once for every test; a failed build fails each test with its log.
# They go where the vm layer's Debian roots take them from ($BUILD/deb, tests/vm/lib-debian.sh's
# debian_make_deb, under the same lock, held while this file reads them): `make check` builds
# them once, here, and the vm layer finds them newer than every source.
oneTimeSetUp() {
	DEB=${BUILD:-$ROOT/build}/deb
	BUILD_LOG=$SHUNIT_TMPDIR/build.log
	SKIP_WHY=$(deb_unbuildable)
	[ -z "$SKIP_WHY" ] || return 0
	mkdir -p "${DEB%/*}"
	exec {deb_lock}>"$DEB.lock"
	flock "$deb_lock"
	# as a user runs it: none of the flags of a make or a compiler choice this test may run under
	# (BUILD only for the source copy, which leaves the build directory out wherever it is)
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CC -u CFLAGS -u LDFLAGS -u BUILD \
		make -C "$ROOT" deb BUILD="${DEB%/*}" DEBDIR="$DEB" DEB_FLAGS="-us -uc -J" STATIC_DEPS="$STATIC_DEPS" \
		>"$BUILD_LOG" 2>&1
	BUILD_RC=$?
}

# need_packages: skip when the packages cannot be built here, fail when their build failed.
need_packages() {
	if [ -n "$SKIP_WHY" ]; then
		startSkipping
		fail "$SKIP_WHY"
		return 1
	fi
	[ "$BUILD_RC" = 0 ] && return 0
	fail "make deb failed ($BUILD_RC): $(tail -n 30 "$BUILD_LOG")"
	return 1
}

# contents PKG: the paths in PKG's .deb, one per line, without the leading "."
contents() {
	dpkg-deb -c "$DEB/$1" | awk '{ sub(/^\./, "", $6); print $6 }'
}

# field PKG NAME: a control field of PKG's .deb
field() {
	dpkg-deb -f "$DEB/$1" "$2"
}

assertHas() {
	case $'\n'"$2"$'\n' in
	*$'\n'"$3"$'\n'*) ;;
	*) fail "$1: no $3 in the package" ;;
	esac
}

test_lintian_clean() {
	need_packages || return 0
	local out
	out=$(lintian --pedantic -I --show-overrides "$DEB/verity-init_${VERSION}_$ARCH.changes" 2>&1)
	assertEquals "lintian errors and warnings" "" "$(grep -E '^[EW]: ' <<<"$out")"
	# an override that no longer matches hides nothing but says something false
	assertEquals "unused overrides" "" "$(grep -E 'unused-override|mismatched-override' <<<"$out")"
	# lintian did look at the agent: the override it needs was used
	assertContains "the static agent's override is the one used" "$out" \
		"O: verity-init: statically-linked-binary [usr/sbin/verity-init]"
	assertContains "the .changes (what lintian checked) has the source package" \
		"$(cat "$DEB/verity-init_${VERSION}_$ARCH.changes")" " verity-init_$VERSION.dsc"
}

test_version_is_the_programs() {
	need_packages || return 0
	assertEquals "verity-init-dracut version" "$VERSION" "$(field "verity-init-dracut_${VERSION}_all.deb" Version)"
	assertEquals "verity-image --version" "verity-image $VERSION" \
		"$("$SHUNIT_TMPDIR/root/usr/bin/verity-image" --version 2>&1)"
}

test_verity_init_package() {
	need_packages || return 0
	local deb="verity-init_${VERSION}_$ARCH.deb" c f
	c=$(contents "$deb")
	for f in /usr/sbin/verity-init /usr/sbin/verity-init-mkinitramfs /usr/sbin/verity-init-mkuki \
		/usr/share/man/man8/verity-init.8.gz /usr/share/man/man8/verity-init-mkinitramfs.8.gz \
		/usr/share/man/man8/verity-init-mkuki.8.gz /usr/share/doc/verity-init/copyright; do
		assertHas "$deb" "$c" "$f"
	done
	assertContains "the agent is linked statically" \
		"$(file -b "$SHUNIT_TMPDIR/root/usr/sbin/verity-init")" "statically linked"
	assertContains "the agent is stripped" "$(file -b "$SHUNIT_TMPDIR/root/usr/sbin/verity-init")" ", stripped"
	assertEquals "the agent's version" "verity-init $VERSION" \
		"$("$SHUNIT_TMPDIR/root/usr/sbin/verity-init" --version 2>&1)"
	assertContains "Depends" "$(field "$deb" Depends)" "cpio"
	assertContains "Built-Using names lvm2 (libdevmapper.a)" "$(field "$deb" Built-Using)" "lvm2 (= "
	assertContains "Built-Using names glibc" "$(field "$deb" Built-Using)" "glibc (= "
	assertTrue "debug symbols of the agent" "[ -f '$DEB/verity-init-dbgsym_${VERSION}_$ARCH.deb' ]"
}

test_dracut_package_is_where_dracut_looks() {
	need_packages || return 0
	local deb="verity-init-dracut_${VERSION}_all.deb" c f mod=/usr/lib/dracut/modules.d/90verity-init
	c=$(contents "$deb")
	for f in "$ROOT"/dracut-module/*; do
		assertHas "$deb" "$c" "$mod/${f##*/}"
	done
	assertTrue "module-setup.sh is executable" "[ -x '$SHUNIT_TMPDIR/root$mod/module-setup.sh' ]"
	assertContains "Depends" "$(field "$deb" Depends)" "verity-init (>= $VERSION)"
	assertContains "Depends" "$(field "$deb" Depends)" "dracut-core"
	# module-setup.sh of the package finds the agent of the package in the system it builds for
	local agent
	agent=$(
		unset VERITY_INIT_AGENT
		# shellcheck disable=SC2034  # read by module-setup.sh
		dracutsysrootdir=$SHUNIT_TMPDIR/root
		# shellcheck source=dracut-module/module-setup.sh
		. "$SHUNIT_TMPDIR/root$mod/module-setup.sh"
		verity_init_agent
	)
	assertEquals "the agent module-setup.sh installs" "$SHUNIT_TMPDIR/root/usr/sbin/verity-init" "$agent"
}

test_verity_image_package() {
	need_packages || return 0
	local deb="verity-image_${VERSION}_$ARCH.deb" c
	c=$(contents "$deb")
	assertHas "$deb" "$c" /usr/bin/verity-image
	assertHas "$deb" "$c" /usr/share/man/man8/verity-image.8.gz
	assertContains "shlibs Depends" "$(field "$deb" Depends)" "libssl"
	assertContains "dynamically linked" "$(file -b "$SHUNIT_TMPDIR/root/usr/bin/verity-image")" "dynamically linked"
}

# The binary packages unpacked into one tree, as dpkg would install them.
setUp() {
	[ -z "$SKIP_WHY" ] && [ "$BUILD_RC" = 0 ] || return 0
	[ -d "$SHUNIT_TMPDIR/root" ] && return 0
	local d
	for d in "$DEB"/verity-init_*.deb "$DEB"/verity-init-dracut_*.deb "$DEB"/verity-image_*.deb; do
		dpkg-deb -x "$d" "$SHUNIT_TMPDIR/root"
	done
}

# shellcheck source=/dev/null
. /usr/share/shunit2/shunit2
