#!/bin/sh
# `verity-init check-init`, the dracut module's pre-pivot check, on the host: init is resolved
# inside ROOT, read completely, and both ROOT and init must be on the expected device (--device
# MAJ:MIN here; --name NAME in the initramfs). The case of init on a filesystem mounted inside
# the root (a /usr from elsewhere) needs root and mount(2); it is skipped otherwise.
# Environment: BUILD = build directory.
# shellcheck disable=SC2317  # test functions and helpers are called by shunit2

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
VI=$BUILD/verity-init

oneTimeSetUp() {
	[ -x "$VI" ] || { echo "verity-init not built in $BUILD" >&2; exit 1; }
	R=$SHUNIT_TMPDIR/newroot
	mkdir -p "$R/usr/lib/systemd" "$R/sbin" "$R/bin"
	printf '#!/bin/sh\necho init\n' >"$R/usr/lib/systemd/systemd"
	chmod 0755 "$R/usr/lib/systemd/systemd"
	cp "$R/usr/lib/systemd/systemd" "$R/bin/init-on-root"
	ln -s /usr/lib/systemd/systemd "$R/sbin/init"   # absolute: resolved inside the new root
	ln -s /sbin/init "$R/bin/init-chain"
	DEV=$(stat -c '%Hd:%Ld' "$R")
}

tearDown() {
	umount "$R/usr" 2>/dev/null
	return 0
}

# check ARGS... : run check-init; prints "rc=N" and stderr's last line.
check() {
	err=$("$VI" check-init "$@" 2>&1 >/dev/null)
	echo "rc=$? $(printf '%s\n' "$err" | tail -n 1)"
}

test_init_on_the_expected_device_passes() {
	assertEquals "absolute link inside the root" "rc=0 " "$(check --device "$DEV" "$R")"
	assertEquals "chain of links" "rc=0 " "$(check --device "$DEV" --init /bin/init-chain "$R")"
}

test_other_device_refused() {
	out=$(check --device 254:77 "$R")
	assertEquals "rc=1 verity-init: $R is not the verified mapping (254:77)" "$out"
}

test_missing_or_unusable_init_refused() {
	out=$(check --device "$DEV" --init /sbin/missing "$R")
	assertContains "$out" "rc=1 verity-init: init /sbin/missing not usable in the new root"
	out=$(check --device "$DEV" --init /usr "$R")
	assertEquals "rc=1 verity-init: init /usr is not an executable file" "$out"
}

# Executable bits are not enough: a file execve() would refuse fails now, not after the switch.
test_init_without_an_executable_format_refused() {
	printf 'just data\n' >"$R/bin/not-a-program"
	chmod 0755 "$R/bin/not-a-program"
	out=$(check --device "$DEV" --init /bin/not-a-program "$R")
	assertEquals "rc=1 verity-init: init /bin/not-a-program is neither an ELF binary nor a #! script" "$out"
	rm -f "$R/bin/not-a-program"
}

# A root mounted noexec (by whoever mounted it): init reads fine but could not be executed.
# A tmpfs in a private mount namespace stands in for it.
test_init_on_a_noexec_mount_refused() {
	if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
		startSkipping
		echo "skip: no private mount namespace (not root?)"
		return
	fi
	mkdir -p "$SHUNIT_TMPDIR/noexec"
	# shellcheck disable=SC2016 # $0, $1 are the inner shell's
	out=$(unshare -m sh -c '
		mount --make-rprivate / && mount -t tmpfs -o noexec,mode=0755 vitest "$1" || exit 99
		printf "#!/bin/sh\n" >"$1/init" && chmod 0755 "$1/init"
		err=$("$0" check-init --device "$(stat -c %Hd:%Ld "$1")" --init /init "$1" 2>&1)
		echo "rc=$? $err"' "$VI" "$SHUNIT_TMPDIR/noexec")
	assertEquals "rc=1 verity-init: init /init is on a filesystem mounted noexec" "$out"
}

# Only a code directory that does not exist counts as absent: a symlink loop (or any other
# failure to open it) leaves unknown where it lives, and is refused.
test_code_directory_that_cannot_be_opened_refused() {
	ln -s lib64 "$R/lib64"
	out=$(check --device "$DEV" --init /bin/init-on-root "$R")
	rm -f "$R/lib64"
	assertEquals "rc=1 verity-init: cannot check /lib64 in the new root: Too many levels of symbolic links" "$out"
}

# The switch moves the initramfs's /dev, /proc, /sys and /run over the new root's: an init that
# leads there through links reads the image's own file here and runs another one after the
# switch (under dracut nothing finds it again). Refused wherever the walk enters one of them.
test_init_leading_into_the_api_directories_refused() {
	mkdir -p "$R/run/x" "$R/usr/run"
	cp "$R/usr/lib/systemd/systemd" "$R/run/x/init"
	cp "$R/usr/lib/systemd/systemd" "$R/usr/run/init"
	ln -s /run/x/init "$R/bin/to-run"
	ln -s ../run/x/init "$R/bin/to-run-rel"
	ln -s ../../../run "$R/usr/lib/r"      # ".." stops at the root
	ln -s /usr/lib/r/x/init "$R/bin/to-run-dotdot"
	ln -s ../usr/run/init "$R/bin/to-usr-run"
	for i in /bin/to-run /bin/to-run-rel /bin/to-run-dotdot /run/x/init; do
		out=$(check --device "$DEV" --init "$i" "$R")
		assertEquals "$i" "rc=1 verity-init: $i leads into /dev, /proc, /sys or /run of the new root, where the switch puts the initramfs's own filesystems: what runs there is not what is read here" "$out"
	done
	assertEquals "a directory named run elsewhere" "rc=0 " \
		"$(check --device "$DEV" --init /bin/to-usr-run "$R")"
	rm -rf "$R/run" "$R/usr/run" "$R/bin/to-run" "$R/bin/to-run-rel" "$R/usr/lib/r" \
		"$R/bin/to-run-dotdot" "$R/bin/to-usr-run"
}

test_no_mapping_of_that_name_refused() {
	out=$(check --name "vitest-absent-$$" "$R")
	assertContains "$out" "rc=1 verity-init: $R is not the verified mapping"
}

test_usage_errors() {
	"$VI" check-init >/dev/null 2>&1
	assertEquals "no ROOT" 2 $?
	"$VI" check-init --device "$DEV" "$R" "$R" >/dev/null 2>&1
	assertEquals "two ROOTs" 2 $?
	"$VI" check-init --bogus "$R" >/dev/null 2>&1
	assertEquals "unknown option" 2 $?
	out=$(check --device 7 "$R")
	assertEquals "rc=1 verity-init: --device 7: not MAJ:MIN" "$out"
	"$VI" check-init --name root --device "$DEV" "$R" >/dev/null 2>&1
	assertEquals "--name and --device are alternatives" 2 $?
}

test_init_on_a_filesystem_mounted_inside_the_root_refused() {
	if [ "$(id -u)" -ne 0 ] || ! mount -t tmpfs vitest "$R/usr" 2>/dev/null; then
		startSkipping
		echo "skip: cannot mount a tmpfs (not root?)"
		return
	fi
	mkdir -p "$R/usr/lib/systemd"
	printf '#!/bin/sh\necho not verified\n' >"$R/usr/lib/systemd/systemd"
	chmod 0755 "$R/usr/lib/systemd/systemd"
	out=$(check --device "$DEV" "$R")
	assertContains "a /usr mounted over the root's" "$out" "rc=1 verity-init: init /sbin/init is on device 0:"
	assertContains "$out" "not on the verified mapping ($DEV)"
	# init itself on the root, but its libraries and programs (/usr) would not be verified
	ln -s usr/lib "$R/lib"
	out=$(check --device "$DEV" --init /bin/init-on-root "$R")
	assertContains "$out" "rc=1 verity-init: /usr is on device 0:"
	umount "$R/usr"
	out=$(check --device "$DEV" --init /bin/init-on-root "$R")
	assertEquals "/lib -> usr/lib on the root itself" "rc=0 " "$out"
}

# shellcheck disable=SC1091
. /usr/share/shunit2/shunit2
