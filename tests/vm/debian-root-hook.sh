#!/bin/sh
# mmdebstrap customize hook of the Debian test root (tests/vm/lib-debian.sh): $1 is the tree.
# It adds the marker unit, which reports how the boot went on the console and powers off, and
# prepares the root to boot read-only. Its content is part of the image's cache key.
set -eu
r=$1

mkdir -p "$r/usr/lib/verity-test"
cat >"$r/usr/lib/verity-test/marker" <<'MARKER'
#!/bin/sh
# Once the boot has settled: its state (running, degraded, ...), the failed units, where /,
# /usr, /etc and /var come from, whether /etc and /var take a new file, the journal of systemd's
# veritysetup units; then power off at once.
exec >/dev/console 2>&1
state=$(timeout 300 systemctl is-system-running --wait 2>/dev/null)
read -r up _ </proc/uptime
echo "VERITY-TEST-MARKER id=debian uptime=$up state=${state:-unknown}"
systemctl --failed --plain --no-legend | while read -r unit _; do
	echo "VERITY-TEST-FAILED $unit"
done
for m in / /usr /etc /var; do
	echo "VERITY-TEST-MOUNT $m $(findmnt -n -o SOURCE,FSTYPE,OPTIONS -T "$m")"
done
for d in /etc /var; do
	if touch "$d/.verity-test-write" 2>/dev/null; then
		rm -f "$d/.verity-test-write"
		echo "VERITY-TEST-WRITABLE $d yes"
	else
		echo "VERITY-TEST-WRITABLE $d no"
	fi
done
if [ -r /run/verity-init/status ]; then
	while read -r line; do echo "VERITY-TEST-STATUS $line"; done </run/verity-init/status
fi
echo "VERITY-TEST-ANALYZE $(systemd-analyze time 2>&1 | head -n 1)"
# what systemd's own veritysetup units did with the command line's root hashes, in the initramfs
# and in this root (the root's generator reads roothash= and usrhash= too)
journalctl -b --no-pager -q -o short-monotonic -u 'systemd-veritysetup@*' 2>&1 | while read -r line; do
	echo "VERITY-TEST-VERITYSETUP $line"
done
echo "VERITY-TEST-END"
# the report is all a boot is for: no unit is stopped one by one (seconds under TCG); processes
# are killed and the filesystems unmounted or made read-only before the power-off
sync
systemctl poweroff --force
MARKER
chmod 0755 "$r/usr/lib/verity-test/marker"

# Type=simple: its start job ends at once, so the boot can finish while it waits for that
cat >"$r/etc/systemd/system/verity-test-marker.service" <<'UNIT'
[Unit]
Description=verity-init test marker

[Service]
Type=simple
ExecStart=/usr/lib/verity-test/marker

[Install]
WantedBy=multi-user.target
UNIT
mkdir -p "$r/etc/systemd/system/multi-user.target.wants"
ln -sf ../verity-test-marker.service \
	"$r/etc/systemd/system/multi-user.target.wants/verity-test-marker.service"

echo verity-test >"$r/etc/hostname"
# Empty, not "uninitialized": on a read-only /etc systemd mounts a transient id over it instead of
# running the first-boot units, which could not write theirs.
: >"$r/etc/machine-id"
# systemd-logind's StateDirectory: made at boot when missing, which a read-only /var cannot do
mkdir -p "$r/var/lib/systemd/linger"
chmod 0755 "$r/var/lib/systemd/linger"
