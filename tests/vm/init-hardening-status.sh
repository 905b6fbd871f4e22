#!/bin/sh
# /init of hardening_status_test.sh: "exit codes never lie". busybox does the PID 1 chores; the
# agent sets the mapping up (status V), then a read of a corrupted data block turns the kernel's
# status into C, and a second `verity-init setup` (which reuses the identical mapping) must now
# fail: a mapping whose status is not V is never reported as ready. Outcomes are printed.
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs -o mode=0755 tmpfs /run
while read -r ko; do insmod "$ko" 2>/dev/null; done </etc/verity-init/modules
out=$(verity-init setup 2>&1); echo "HSETUP1 rc=$? out=$out"
dd if=/dev/mapper/root of=/dev/null bs=4096 2>/dev/null; echo "HREAD rc=$?"
out=$(verity-init setup 2>&1); echo "HSETUP2 rc=$? out=$out"
verity-init status 2>&1 | sed 's/^/HSTATUS /'
echo "HARDENING-STATUS-DONE"
poweroff -f
