#!/bin/sh
# shellcheck shell=sh
# Test only (the shell-swap and systemd-swap images of tests/vm/lib-dracut.sh): a pre-mount hook
# that replaces the table of the mapping root, after the agent's setup made it and before dracut
# mounts it, by the verity table in vitest.swap= (its words joined by commas): what pre-pivot
# must refuse. Under systemd dracut-pre-mount.service is ordered before sysroot.mount but not
# after the setup unit: the hook waits for the mapping.
vitest_swap() (
	[ -n "$1" ] || exit 0
	i=0
	while [ ! -b /dev/mapper/root ] && [ "$i" -lt 120 ]; do
		sleep 1
		i=$((i + 1))
	done
	IFS=,
	# shellcheck disable=SC2086 # split on the commas
	set -- $1
	IFS=' '
	table="$*"
	if dmsetup suspend root && dmsetup reload --readonly root --table "$table" &&
		dmsetup resume root; then
		echo "VITEST-SWAPPED root: $table" >/dev/kmsg
	else
		echo "VITEST-SWAP-FAILED root: $table" >/dev/kmsg
	fi
)
vitest_swap "$(getarg vitest.swap=)"
