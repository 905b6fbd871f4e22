#!/bin/sh
# /init of the setup-mode scenario (agent_setup_test.sh): busybox does the PID 1 chores, the
# agent only creates the mapping ("verity-init setup", as dracut's hook runs it), is asked again
# (identical mapping: reused), then with another corruption option (same root hash, so the
# pre-flight check passes, but a different table under the same name: refused), then while the
# mapping is suspended (refused), and reports with "verity-init status". Every outcome is printed for the test to assert on.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs -o mode=0755 tmpfs /run
while read -r ko; do insmod "$ko" 2>/dev/null; done </etc/verity-init/modules
out=$(verity-init setup); echo "SETUP1 rc=$? out=$out"
out=$(verity-init setup); echo "SETUP2 rc=$? out=$out"
verity-init setup --cmdline "$(cat /proc/cmdline) systemd.verity_root_options=panic-on-corruption"
echo "SETUP3 rc=$?"
# a suspended mapping (its table could be replaced before the resume) is never reused
dmsetup suspend root && verity-init setup; echo "SETUP4 rc=$?"
dmsetup resume root
verity-init status | sed 's/^/STATUS /'
mkdir -p /newroot
mount -o ro /dev/mapper/root /newroot && exec switch_root /newroot /sbin/init
echo "SETUP-SCRIPT: cannot mount /dev/mapper/root"
poweroff -f
