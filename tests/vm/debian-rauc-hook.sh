#!/bin/sh
# mmdebstrap customize hook of the Debian A/B root of tests/vm/debian_rauc_test.sh: $1 is the
# tree, $2 RAUC's system.conf, $3 its keyring (PEM), $4 a hash of both (only for the cache key).
# rauc, rauc-service and the verity-init package (the backend, the rauc.service drop-in,
# verity-init-mark-good.service) are installed in the tree by then. It enables the mark-good unit
# as an administrator would and adds a test unit that reports the slot state and what RAUC sees,
# and runs `rauc install` when the command line asks for it (verity_test.rauc=BUNDLE, a file of the
# disk labelled "bundles"). Its content is part of the root's cache key.
set -eu
r=$1 conf=$2 keyring=$3

[ -x "$r/usr/lib/verity-init/verity-init-rauc-backend" ] || {
	echo "debian-rauc-hook: the verity-init package is not installed" >&2
	exit 1
}
mkdir -p "$r/etc/rauc"
cp "$conf" "$r/etc/rauc/system.conf"
cp "$keyring" "$r/etc/rauc/keyring.pem"
chroot "$r" systemctl enable verity-init-mark-good.service
# which image runs (the test's update changes it)
echo v1 >"$r/etc/verity-test-image"

cat >"$r/usr/lib/verity-test/rauc" <<'SCRIPT'
#!/bin/sh
# After mark-good: the store as `verity-init slot status --json` sees it, the booted slot and
# primary as RAUC sees them (through the rauc.service drop-in), then the install asked for.
exec >/dev/console 2>&1
bundle="" dropin=yes
for w in $(cat /proc/cmdline); do
	case $w in
	verity_test.rauc=*) bundle=${w#*=} ;;
	verity_test.no-dropin) dropin=no ;;
	esac
done
# verity_test.no-dropin: rauc.service as Debian ships it, without verity-init's drop-in (a
# runtime drop-in that sorts after it gives back Debian's command)
if [ $dropin = no ]; then
	mkdir -p /run/systemd/system/rauc.service.d
	printf '[Service]\nExecStart=\nExecStart=/usr/bin/rauc --mount=/run/rauc service\n' \
		>/run/systemd/system/rauc.service.d/zz-no-verity-init.conf
	systemctl daemon-reload
fi
echo "VERITY-TEST-IMAGE $(cat /etc/verity-test-image)"
echo "VERITY-TEST-MARK-GOOD $(systemctl show -P Result verity-init-mark-good.service)" \
	"$(systemctl show -P ExecMainStatus verity-init-mark-good.service)"
echo "VERITY-TEST-SLOTS $(verity-init slot status --json)"
rauc status --output-format=shell >/run/rauc-status 2>&1
echo "VERITY-TEST-RAUC-STATUS $(grep -E '^RAUC_(SYSTEM_BOOTED_BOOTNAME|BOOT_PRIMARY)=|LastError|rror' /run/rauc-status | tr '\n' ' ')"
[ -n "$bundle" ] || exit 0
mkdir -p /run/bundles
mount -o ro LABEL=bundles /run/bundles || { echo "VERITY-TEST-RAUC-INSTALL $bundle no bundles disk"; exit 0; }
rauc install "/run/bundles/$bundle" >/run/rauc-install 2>&1
rc=$?
grep -E 'LastError|succeeded|failed' /run/rauc-install | tail -n 3 | sed 's/^/VERITY-TEST-RAUC-LOG /'
echo "VERITY-TEST-RAUC-INSTALL $bundle rc=$rc"
echo "VERITY-TEST-SLOTS-AFTER $(verity-init slot status --json)"
umount /run/bundles
SCRIPT
chmod 0755 "$r/usr/lib/verity-test/rauc"

# Part of the boot (oneshot, wanted by multi-user.target): the marker's wait for the boot to end
# waits for it too, and powers off after it.
cat >"$r/etc/systemd/system/verity-test-rauc.service" <<'UNIT'
[Unit]
Description=verity-init test: slot state and RAUC
After=verity-init-mark-good.service dbus.service

[Service]
Type=oneshot
TimeoutStartSec=400
ExecStart=/usr/lib/verity-test/rauc

[Install]
WantedBy=multi-user.target
UNIT
ln -sf ../verity-test-rauc.service \
	"$r/etc/systemd/system/multi-user.target.wants/verity-test-rauc.service"
