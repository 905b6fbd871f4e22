#!/bin/busybox sh
# shellcheck shell=dash
# The script /init of the harness's own test initramfs (dmsetup_boot_test.sh, DEMO_INIT=script):
# load the listed modules, read the root hash and devices from the kernel command line, read the
# veritysetup superblock, create the dm-verity mapping with dmsetup, mount it read-only and
# switch_root into it. Any failure prints "init-dmsetup: FAIL: <reason>" and powers off.
#
# Command line (a subset of systemd's keys): roothash=HEX systemd.verity_root_data=DEV
# [systemd.verity_root_hash=DEV] [systemd.verity_root_options=hash-offset=N]
# [rootfstype=TYPE] [verity.name=NAME] [verity.timeout=SECONDS] [init=PATH]
export PATH=/bin:/sbin:/usr/bin:/usr/sbin

log() { echo "init-dmsetup: $*"; }
fail() {
	log "FAIL: $*"
	poweroff -f
	sleep 5
}
uptime_s() { read -r u _ </proc/uptime; echo "$u"; }

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /run
log "start uptime=$(uptime_s)"

# Modules in dependency order; a failure (built-in, already loaded, or a CPU-specific variant
# such as crc32c-intel on a CPU without SSE4.2) is not fatal: a missing driver shows up later.
if [ -r /etc/verity-init/modules ]; then
	while read -r ko; do
		[ -n "$ko" ] || continue
		insmod "$ko" 2>/dev/null || log "insmod $ko failed (ignored)"
	done </etc/verity-init/modules
fi

roothash="" data="" hash="" opts="" fstype="" name=root timeout=10 init=/sbin/init
# shellcheck disable=SC2013
for arg in $(cat /proc/cmdline); do
	case $arg in
	roothash=*) roothash=${arg#*=} ;;
	systemd.verity_root_data=*) data=${arg#*=} ;;
	systemd.verity_root_hash=*) hash=${arg#*=} ;;
	systemd.verity_root_options=*) opts=${arg#*=} ;;
	rootfstype=*) fstype=${arg#*=} ;;
	verity.name=*) name=${arg#*=} ;;
	verity.timeout=*) timeout=${arg#*=} ;;
	init=*) init=${arg#*=} ;;
	esac
done
[ -n "$roothash" ] || fail "no roothash= on the command line"
[ -n "$data" ] || fail "no systemd.verity_root_data= on the command line"
[ -n "$hash" ] || hash=$data
hoff=0
for o in $(echo "$opts" | tr ',' ' '); do
	case $o in hash-offset=*) hoff=${o#*=} ;; esac
done

# Devices appear asynchronously once virtio_blk has probed them.
i=0
{ [ -b "$data" ] && [ -b "$hash" ]; } || log "waiting for $data $hash (${timeout}s)"
while [ ! -b "$data" ] || [ ! -b "$hash" ]; do
	[ "$i" -ge $(( timeout * 10 )) ] && fail "device $data or $hash missing after ${timeout}s"
	sleep 0.1
	i=$(( i + 1 ))
done

# veritysetup superblock (struct verity_sb, little endian) at the hash offset.
u32() { od -A n -t u4 -j $(( hoff + $1 )) -N 4 "$hash" | tr -d ' '; }
sig=$(dd if="$hash" bs=1 skip="$hoff" count=8 2>/dev/null)
[ "$sig" = verity ] || fail "no verity superblock on $hash at offset $hoff"
htype=$(u32 12)
alg=$(dd if="$hash" bs=1 skip=$(( hoff + 32 )) count=32 2>/dev/null | tr -d '\000')
dbs=$(u32 64)
hbs=$(u32 68)
dblocks=$(od -A n -t u8 -j $(( hoff + 72 )) -N 8 "$hash" | tr -d ' ')
ssize=$(od -A n -t u2 -j $(( hoff + 80 )) -N 2 "$hash" | tr -d ' ')
salt=-
[ "$ssize" -gt 0 ] && salt=$(od -A n -t x1 -j $(( hoff + 88 )) -N "$ssize" "$hash" | tr -d ' \n')
hstart=$(( hoff / hbs + 1 ))
sectors=$(( dblocks * dbs / 512 ))
table="0 $sectors verity $htype $data $hash $dbs $hbs $dblocks $hstart $alg $roothash $salt"
log "table: $table"

DM_DISABLE_UDEV=1 dmsetup create "$name" --readonly --table "$table" ||
	fail "dmsetup create $name failed"
dmsetup mknodes "$name" || fail "dmsetup mknodes $name failed"
status=$(dmsetup status "$name")
log "status: $status"
case $status in *" C"*) fail "kernel reports corruption: $status" ;; esac

mkdir -p /newroot
set -- -o ro
[ -n "$fstype" ] && set -- "$@" -t "$fstype"
mount "$@" "/dev/mapper/$name" /newroot || fail "mount /dev/mapper/$name failed"
log "switch_root uptime=$(uptime_s)"
# As util-linux switch_root: the API filesystems move into the new root.
for m in /dev /proc /sys /run; do
	mount --move "$m" "/newroot$m" || umount "$m"
done
exec switch_root /newroot "$init"
