#!/bin/sh
# mmdebstrap customize hook of the sid root of tests/vm/tpm_measure_test.sh (systemd >= 260 with
# systemd-tpm): $1 is the tree. Its init, booted with init=, reads systemd's verity NvPCR with
# systemd's own tool and powers off; it shows the userspace measurement log too. Its content is
# part of the image's cache key.
set -eu
r=$1

mkdir -p "$r/usr/lib/verity-test"
cat >"$r/usr/lib/verity-test/nvpcr-init" <<'INIT'
#!/bin/sh
[ -r /proc/uptime ] || mount -t proc proc /proc
[ -d /sys/kernel ] || mount -t sysfs sysfs /sys
[ -c /dev/null ] || mount -t devtmpfs devtmpfs /dev
exec >/dev/console 2>&1
read -r up _ </proc/uptime
echo "VERITY-TEST-MARKER id=sid uptime=$up"
echo "VERITY-TEST-SYSTEMD $(systemd-analyze --version | head -n 1)"
echo "VERITY-TEST-SDNVPCR $(systemd-analyze nvpcrs verity --json=short 2>&1 | tr -d '\n')"
if [ -r /run/log/systemd/tpm2-measure.log ]; then
	tr -d '\036' </run/log/systemd/tpm2-measure.log | while read -r line; do
		echo "VERITY-TEST-MEASURE $line"
	done
fi
echo o >/proc/sysrq-trigger
sleep 60
INIT
chmod 0755 "$r/usr/lib/verity-test/nvpcr-init"
