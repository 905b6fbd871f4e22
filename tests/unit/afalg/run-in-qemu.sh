#!/bin/sh
# Boot Debian's kernel in QEMU (TCG) with a one-file initramfs whose /init loads af_alg,
# algif_hash and sha512_generic with busybox, then runs afalg_check (static). Not part of
# `make check` (the VM suite's own boots already cover the agent's single-digest use of AF_ALG);
# run by hand after changing lib/format/digest_afalg.c or lib/format/tree.c:  tests/unit/afalg/run-in-qemu.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
kernel=${VM_KERNEL:-$(printf '%s\n' /boot/vmlinuz-* | sort -V | tail -n 1)}
kver=${kernel#/boot/vmlinuz-}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/root/bin" "$w/root/m" "$w/root/dev" "$w/root/proc"
cd "$top"
cc -std=c11 -D_GNU_SOURCE -Iinclude -O2 -static "$here/afalg_check.c" lib/format/tree.c lib/format/geometry.c \
	lib/format/superblock.c lib/util/hex.c lib/util/strutil.c lib/format/digest_afalg.c -o "$w/root/bin/afcheck" -lpthread
cp "$(command -v busybox)" "$w/root/bin/busybox"
for m in af_alg algif_hash sha512_generic; do
	modprobe -S "$kver" --show-depends "$m" | awk '/^insmod/ { print $2 }' | while read -r f; do
		cp -n "$f" "$w/root/m/"
		basename "$f" >>"$w/root/m/order"
	done
done
cat >"$w/root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
for f in $(/bin/busybox cat /m/order); do /bin/busybox insmod "/m/$f" 2>/dev/null; done
exec /bin/afcheck
INIT
chmod +x "$w/root/init"
(cd "$w/root" && find . | cpio -o -H newc 2>/dev/null | gzip -1 >"$w/initrd.gz")
timeout 180 qemu-system-x86_64 -accel tcg -m 256 -smp 2 -nographic -no-reboot -net none \
	-kernel "$kernel" -initrd "$w/initrd.gz" -append "console=ttyS0 panic=-1 quiet" \
	>"$w/log" 2>&1 || true
grep -a 'AFALG' "$w/log"
grep -aq 'AFALG-PASS' "$w/log"
