#!/bin/bash
# A verified /usr booted by the agent as PID 1, in each layout (docs/security.md, "A verified
# /usr"): root and /usr both verified; usrhash= alone on a GPT disk (Discoverable Partitions)
# under a tmpfs root (systemd.volatile=yes); /usr under a writable, unverified ext4 root with the
# initramfs policy's consent, and refused without it; an init that resolves outside the verified
# /usr refused before the switch; under the writable root, a root whose program loader or its
# files (/lib64 a directory of the root, /etc/ld.so.preload, an /etc/ld.so.cache naming a library
# in /etc) would load code of that root before init runs is refused too. With a TPM, each
# layout's events name it: root+usr's two, and the same /usr alone under the tmpfs and the
# writable root giving two PCR values. The /usr image holds the
# busybox system and a libc; the roots hold only the merged-/usr links (/bin, /sbin, /lib ->
# usr/...) and a loader cache made by ldconfig, so init and its libraries are on /usr.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck disable=SC2119 # agent_initramfs takes optional arguments
# shellcheck source=tests/vm/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"
# shellcheck source=tests/vm/lib-tpm.sh
. "$(dirname "$0")/lib-tpm.sh"

# Discoverable Partitions type GUIDs: x86-64 usr and usr-verity.
USR_GPT_TYPE=8484680c-9521-48c6-9c11-b0720656f69e
USR_GPT_TYPE_VERITY=77ff5f63-e7b6-4633-acf4-1565b864c0e6

oneTimeSetUp() {
	vm_require_tools qemu-system-x86_64 veritysetup mkfs.ext4 debugfs mkfs.erofs sgdisk cpio \
		modprobe ldconfig || exit 1
	RD=$(agent_initramfs) || exit 1
	RD_CONSENT=$(agent_initramfs --policy "allow_unverified_root=yes") || exit 1
}

# The system's libc, copied into the /usr image so that the loader cache names a real library.
LIBC=/lib/x86_64-linux-gnu/libc.so.6

# ld_cache OUT [DIR] : OUT = /etc/ld.so.cache as ldconfig writes it for a merged-/usr tree
# holding libc, and with DIR (a directory of the root, e.g. /etc/evil) a libc there as well.
ld_cache() {
	local out=$1 dir=${2:-} t r=0
	t=$(mktemp -d) || return 1
	mkdir -p "$t/usr/lib/x86_64-linux-gnu" "$t/etc" && ln -s usr/lib "$t/lib" &&
	cp "$LIBC" "$t/usr/lib/x86_64-linux-gnu/" && : >"$t/etc/ld.so.conf" || r=1
	if [ -n "$dir" ] && [ "$r" = 0 ]; then
		mkdir -p "$t$dir" && cp "$LIBC" "$t$dir/" && echo "$dir" >"$t/etc/ld.so.conf" || r=1
	fi
	[ "$r" = 0 ] && ldconfig -X -r "$t" && cp "$t/etc/ld.so.cache" "$out" || r=1
	rm -rf "$t"
	return "$r"
}

# usr_tree DIR : the /usr tree (busybox, libc, the test init at lib/vm/init, sbin/init -> it).
# The init prints the /usr mount line and whether /etc is writable, then runs the suite's
# marker init (id=usr), which prints the root's mount line and the status file.
usr_tree() {
	local d=$1 a
	mkdir -p "$d"/{bin,sbin,lib/vm,lib/x86_64-linux-gnu}
	cp /usr/bin/busybox "$d/bin/busybox"
	cp "$LIBC" "$d/lib/x86_64-linux-gnu/"
	for a in sh mount umount cat echo awk poweroff reboot sleep ls dmesg sync tr sort; do
		ln -sf busybox "$d/bin/$a"
	done
	vm_root_init_script usr >"$d/lib/vm/marker-init"
	cat >"$d/lib/vm/init" <<'EOF'
#!/bin/sh
PATH=/bin:/sbin
[ -r /proc/mounts ] || mount -t proc proc /proc
echo "VERITY-TEST-USR $(awk '$2 == "/usr" { l = $0 } END { print l }' /proc/mounts)"
if (echo x >/etc/vm-write-test) 2>/dev/null; then echo "VERITY-TEST-ETC writable"; else echo "VERITY-TEST-ETC read-only"; fi
exec /usr/lib/vm/marker-init "$@"
EOF
	ln -sf /usr/lib/vm/init "$d/sbin/init"
	chmod 0755 "$d/bin/busybox" "$d/lib/vm/init" "$d/lib/vm/marker-init"
	find "$d" -exec touch -h -d "@$VM_EPOCH" {} +
}

# root_tree DIR [KIND] : a root without a /usr of its own: merged-/usr links, an empty usr
# directory to mount on, ldconfig's cache of /usr's libc. KIND evil: /sbin a real directory with
# an init of the root's own; evil-link: /sbin/init a symbolic link to a script in the root's
# /etc; lib64-dir: /lib64 a real directory holding a program loader; preload: an
# /etc/ld.so.preload naming a library in /etc; evil-cache: the cache names a libc in /etc/evil;
# proc-cache: /etc/ld.so.cache a link through the root's own /proc directory, where a harmless
# cache is, to one naming /etc/evil once the kernel's /proc is there (/proc/self/cwd is /).
root_tree() {
	local d=$1 kind=${2:-}
	mkdir -p "$d"/{etc,proc,sys,dev,run,tmp,usr,var}
	ln -s usr/bin "$d/bin"
	ln -s usr/lib "$d/lib"
	ld_cache "$d/etc/ld.so.cache" || return 1
	case $kind in
	evil) mkdir -p "$d/sbin"; vm_root_init_script evil >"$d/sbin/init"; chmod 0755 "$d/sbin/init" ;;
	evil-link) mkdir -p "$d/sbin"; vm_root_init_script evil >"$d/etc/init"
		chmod 0755 "$d/etc/init"; ln -s /etc/init "$d/sbin/init" ;;
	lib64-dir) mkdir -p "$d/lib64"; cp /lib64/ld-linux-x86-64.so.2 "$d/lib64/" ;;
	preload) cp "$LIBC" "$d/etc/evil.so"; echo /etc/evil.so >"$d/etc/ld.so.preload" ;;
	evil-cache) mkdir -p "$d/etc/evil"; cp "$LIBC" "$d/etc/evil/"
		ld_cache "$d/etc/ld.so.cache" /etc/evil || return 1 ;;
	proc-cache) mkdir -p "$d/proc/self/cwd/etc" "$d/etc/evil"
		mv "$d/etc/ld.so.cache" "$d/proc/self/cwd/etc/c2"
		cp "$LIBC" "$d/etc/evil/"; ld_cache "$d/etc/c2" /etc/evil || return 1
		ln -s /proc/self/cwd/etc/c2 "$d/etc/ld.so.cache" ;;
	esac
	case $kind in evil|evil-link) ;; *) ln -s usr/sbin "$d/sbin" ;; esac
	echo "root" >"$d/etc/vm-root-id"
	find "$d" -exec touch -h -d "@$VM_EPOCH" {} +
}

# images DIR : DIR/usr.img + DIR/usr.hash (verity, root hash in DIR/usrhash), DIR/root.img +
# DIR/root.hash (verity, DIR/roothash), and the writable ext4 roots DIR/rw.img and DIR/KIND.img
# for each KIND of root_tree.
images() {
	local d=$1 t
	local r=0
	t=$(mktemp -d "$d/tree.XXXXXX") || return 1
	{ usr_tree "$t/usr" && vm_mkfs erofs "$t/usr" "$d/usr.img" &&
	  root_tree "$t/root" && vm_mkfs erofs "$t/root" "$d/root.img" &&
	  vm_mkfs ext4 "$t/root" "$d/rw.img"; } || r=1
	for k in evil evil-link lib64-dir preload evil-cache proc-cache; do
		[ "$r" = 0 ] || break
		{ root_tree "$t/$k" "$k" && vm_mkfs ext4 "$t/$k" "$d/$k.img"; } || r=1
	done
	rm -rf "$t"
	[ "$r" = 0 ] || return 1
	vm_verity_format "$VM_VERITY_TOOL" "$d/usr.img" "$d/usr.hash" >"$d/usrhash" &&
	vm_verity_format "$VM_VERITY_TOOL" "$d/root.img" "$d/root.hash" >"$d/roothash"
}

# usr_gpt DIR : DIR/gpt.img, partition 1 = the /usr image (type usr-x86-64, PARTUUID = first
# half of its root hash), partition 2 = its hash tree (usr-x86-64-verity, last half).
usr_gpt() {
	local d=$1 uh dsec hsec s2 du hu
	uh=$(cat "$d/usrhash")
	# whole MiB (2048 sectors) each
	dsec=$(( ($(vm_size "$d/usr.img") + 1048575) / 1048576 )); dsec=$(( dsec * 2048 ))
	hsec=$(( ($(vm_size "$d/usr.hash") + 1048575) / 1048576 )); hsec=$(( hsec * 2048 ))
	s2=$(( 2048 + dsec ))
	du=$(vm_roothash_uuid "$uh" first); hu=$(vm_roothash_uuid "$uh" last)
	rm -f "$d/gpt.img"
	truncate -s $(( (s2 + hsec + 2048) * 512 )) "$d/gpt.img"
	sgdisk -n "1:2048:+$dsec" -t "1:$USR_GPT_TYPE" -u "1:$du" -c 1:usr \
		-n "2:$s2:+$hsec" -t "2:$USR_GPT_TYPE_VERITY" -u "2:$hu" -c 2:usr-verity \
		"$d/gpt.img" >/dev/null || return 1
	dd if="$d/usr.img" of="$d/gpt.img" bs=1M seek=$(( 2048 * 512 )) oflag=seek_bytes \
		conv=notrunc status=none &&
	dd if="$d/usr.hash" of="$d/gpt.img" bs=1M seek=$(( s2 * 512 )) oflag=seek_bytes \
		conv=notrunc status=none
}

D=""
setup_images() {
	[ -n "$D" ] && return 0
	D=$(vm_workdir usr-verity) || return 1
	if ! images "$D" || ! usr_gpt "$D"; then D=""; return 1; fi
	UH=$(cat "$D/usrhash") RH=$(cat "$D/roothash")
}

# usr_booted LAYOUT : the marker from /usr's init, /usr the verified mapping read-only, the
# agent's layout line and the status file's usr lines.
usr_booted() {
	vm_assert_booted || return 1
	vm_assert_marker "$VM_LOG" usr || return 1
	vm_assert_log_contains "$VM_LOG" '^VERITY-TEST-USR /dev/(mapper/usr|dm-[0-9]+) /usr erofs ro[,[:space:]]' \
		"/usr is not the verified mapping, read-only" || return 1
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: usr: mounted /dev/mapper/usr read-only on /sysroot/usr \(erofs\), root .* \(layout ${1//+/\\+}\), init /sbin/init read from a verified device" || return 1
	vm_assert_log_contains "$VM_LOG" "^VERITY-TEST-STATUS usr=usr" "no usr= in the status file" ||
		return 1
	vm_assert_log_contains "$VM_LOG" "^VERITY-TEST-STATUS usrhash=$UH" "no usrhash= in the status file"
}

# usr_boot NAME [vm_boot options...] INITRD CMDLINE : vm_boot with a fresh swtpm (its state in
# $VM_WORKROOT/NAME-tpm) when swtpm is installed, so one boot of a layout serves its tests of what
# is mounted and of what is measured (USR_TPM=1); without swtpm a plain boot (USR_TPM=0, the
# measurement tests are skipped). A TPM changes nothing else of the boot.
usr_boot() {
	local name=$1 extra; shift
	USR_TPM=0
	if command -v swtpm >/dev/null 2>&1; then
		extra=$(tpm_start "$VM_WORKROOT/$name-tpm") || return 1
		USR_TPM=1
		VM_BIOS=seabios VM_BOOT_KERNEL=$VM_KERNEL VM_QEMU_EXTRA="$extra" \
			vm_boot "${@:1:$#-2}" "$name" "${@: -2}"
	else
		vm_boot "${@:1:$#-2}" "$name" "${@: -2}"
	fi
}

# usr_tpm_or_skip : false (and a skip line) when the shared boot ran without a TPM.
usr_tpm_or_skip() {
	[ "${USR_TPM:-0}" = 1 ] || { echo "skip: no swtpm"; return 1; }
}

# Root and /usr both verified, the one boot of this layout (with a TPM).
root_and_usr_boot() {
	setup_images || return 1
	usr_boot usr-root-and-usr --disk "$D/root.img" --disk "$D/root.hash" --disk "$D/usr.img" \
		--disk "$D/usr.hash" "$RD" "roothash=$RH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb usrhash=$UH systemd.verity_usr_data=/dev/vdc systemd.verity_usr_hash=/dev/vdd verity.fail=poweroff"
}

test_root_and_usr_both_verified() {
	vm_shared_boot root-and-usr root_and_usr_boot
	usr_booted root+usr || return
	vm_assert_root_mapper "$VM_LOG" root erofs || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: root: /dev/mapper/root verified .*status V" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: usr: /dev/mapper/usr verified .*status V" || return
	vm_assert_log_contains "$VM_LOG" "^VERITY-TEST-ETC read-only" "the verified root's /etc is writable"
}

# One TPM event per target, the root's then /usr's, before the switch (a fresh swtpm: the PCR
# the guest shows is the host's computation from the two events alone).
test_root_and_usr_measured_in_turn() {
	local ev1 ev2 alg got n=0
	vm_shared_boot root-and-usr root_and_usr_boot
	usr_tpm_or_skip || return 0
	usr_booted root+usr || return
	# each event names the layout and the target's place in it (docs/signing.md, "The events")
	ev1="dm-verity:root+usr:root:root:$RH:none" ev2="dm-verity:root+usr:usr:usr:$UH:none"
	vm_assert_log_order "$VM_LOG" "verity-init\[1\]: measured into PCR 14 .*: ${ev1//+/\\+}" \
		"verity-init\[1\]: measured into PCR 14 .*: ${ev2//+/\\+}" "the root and then /usr were not measured" || return
	for alg in sha1 sha256 sha384 sha512; do
		got=$(tpm_guest_pcr "$VM_LOG" "$alg" 14)
		[ -n "$got" ] || continue
		assertEquals "PCR 14 ($alg): the root's event, then /usr's" \
			"$(tpm_expected_pcr "$alg" "$ev1" "$ev2")" "$got" || return
		n=$((n + 1))
	done
	[ "$n" -ge 1 ] || fail "the guest showed no PCR bank"
}

# usr_measured_alone EVENT : the agent measured EVENT, /usr's alone, and every bank the guest
# shows holds the value the host computes from it; PCR_SHA256 is set to the sha256 bank's.
usr_measured_alone() {
	local ev=$1 alg got n=0
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: measured into PCR 14 .*: ${ev//+/\\+}" \
		"the agent did not measure $ev" || return 1
	[ "$(grep -a -c 'VERITY-TEST-MEASURE {"pcr":14' "$VM_LOG")" = 1 ] ||
		{ fail "the measurement log does not hold /usr's record alone"; return 1; }
	PCR_SHA256=""
	for alg in sha1 sha256 sha384 sha512; do
		got=$(tpm_guest_pcr "$VM_LOG" "$alg" 14)
		[ -n "$got" ] || continue
		assertEquals "PCR 14 ($alg): /usr's event alone" "$(tpm_expected_pcr "$alg" "$ev")" \
			"$got" || return 1
		[ "$alg" = sha256 ] && PCR_SHA256=$got
		n=$((n + 1))
	done
	[ "$n" -ge 1 ] || { fail "the guest showed no PCR bank"; return 1; }
}

# usrhash= alone (the GPT disk, partitions found by their UUIDs) under a tmpfs root
# (systemd.volatile=yes), and /usr under a writable root with the policy's consent: one boot of
# each layout (with a TPM), for its mount test and for the measurement test.
tmpfs_boot() {
	setup_images || return 1
	usr_boot usr-dps-volatile-yes --disk "$D/gpt.img" "$RD" \
		"usrhash=$UH systemd.volatile=yes verity.fail=poweroff"
}

writable_boot() {
	setup_images || return 1
	cp "$D/rw.img" "$D/rw-boot.img" || return 1
	usr_boot usr-writable-root --disk-rw "$D/rw-boot.img" --disk "$D/usr.img" --disk "$D/usr.hash" \
		"$RD_CONSENT" "usrhash=$UH systemd.verity_usr_data=/dev/vdb systemd.verity_usr_hash=/dev/vdc root=/dev/vda rw verity.fail=poweroff"
}

# The same /usr under an empty tmpfs root and under a writable root nobody verified (issue 30):
# two events, two PCR values, so a secret sealed to the tmpfs boot does not unseal under a root
# an attacker may have filled; the writable root's event says that / is not verified.
test_usr_alone_measured_by_layout() {
	local tmpfs_pcr
	vm_shared_boot tmpfs tmpfs_boot
	usr_tpm_or_skip || return 0
	usr_booted tmpfs+usr || return
	usr_measured_alone "dm-verity:tmpfs+usr:usr:usr:$UH:none" || return
	tmpfs_pcr=$PCR_SHA256
	vm_shared_boot writable writable_boot
	usr_booted writable+usr || return
	usr_measured_alone "dm-verity:writable+usr,unverified-root:usr:usr:$UH:none" || return
	if [ -n "$tmpfs_pcr" ] && [ "$tmpfs_pcr" = "$PCR_SHA256" ]; then
		fail "the tmpfs and the writable root left PCR 14 at the same value"
	fi
}

test_usrhash_alone_gpt_dps_tmpfs_root() {
	vm_shared_boot tmpfs tmpfs_boot
	usr_booted tmpfs+usr || return
	vm_assert_log_contains "$VM_LOG" "^$VM_MARKER id=usr .* root=tmpfs / tmpfs rw" "/ is not a tmpfs" || return
	vm_assert_log_contains "$VM_LOG" "verity-init\[1\]: usr: /dev/mapper/usr verified \(data vda1, hash vda2\)" \
		"/usr not found by its partition UUIDs" || return
	vm_assert_log_contains "$VM_LOG" "^VERITY-TEST-ETC writable" "the tmpfs root's /etc is not writable"
}

test_usr_under_writable_root_with_consent() {
	vm_shared_boot writable writable_boot
	usr_booted writable+usr || return
	vm_assert_log_contains "$VM_LOG" "^$VM_MARKER id=usr .* root=/dev/vda / ext4 rw" "/ is not the writable partition" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: root=/dev/vda mounted writable on /sysroot \(ext4\) NOT verified' || return
	vm_assert_log_contains "$VM_LOG" 'read from a verified device, its interpreters too; no ld.so.preload, ld.so.cache only onto /usr' \
		"the loader check did not run" || return
	vm_assert_log_contains "$VM_LOG" "^VERITY-TEST-ETC writable" "the writable root's /etc is not writable"
}

test_usr_under_writable_root_refused_without_consent() {
	setup_images || { fail "images"; return; }
	vm_boot --disk "$D/rw.img" --disk "$D/usr.img" --disk "$D/usr.hash" usr-writable-refused "$RD" \
		"usrhash=$UH systemd.verity_usr_data=/dev/vdb systemd.verity_usr_hash=/dev/vdc root=/dev/vda verity.fail=poweroff"
	vm_assert_booted || return
	vm_assert_no_marker "$VM_LOG" || return
	vm_assert_log_contains "$VM_LOG" 'verity-init\[1\]: policy: root=/dev/vda is not verified, only /usr: .*allow_unverified_root=yes would' || return
	# a command line against the policy is not used at all, its verity.fail= neither: the
	# policy's default (panic) is taken
	agent_assert_fallback "$VM_LOG" panic
}

# init_outside NAME IMAGE : IMAGE as the writable root (consent given): init refused.
init_outside() {
	cp "$D/$2" "$D/$1.img"
	vm_boot --disk-rw "$D/$1.img" --disk "$D/usr.img" --disk "$D/usr.hash" "usr-$1" "$RD_CONSENT" \
		"usrhash=$UH systemd.verity_usr_data=/dev/vdb systemd.verity_usr_hash=/dev/vdc root=/dev/vda verity.fail=poweroff"
	vm_assert_booted || return 1
	agent_assert_refused "$VM_LOG" init 'init /sbin/init resolves to a file on device [0-9]+:[0-9]+, not on the verified /usr \([0-9]+:[0-9]+\)' || return 1
	vm_assert_log_lacks "$VM_LOG" "$VM_MARKER id=evil" "the root's own init ran" || return 1
	agent_assert_fallback "$VM_LOG" poweroff
}

test_init_on_the_writable_root_refused() {
	setup_images || { fail "images"; return; }
	init_outside init-on-root evil.img
}

test_init_linked_into_the_writable_root_refused() {
	setup_images || { fail "images"; return; }
	init_outside init-link-to-root evil-link.img
}

# loader_refused KIND REASON : the root KIND (consent given), init on /usr, refused at stage init
# with REASON before anything of it ran; the fallback taken.
loader_refused() {
	cp "$D/$1.img" "$D/$1-boot.img"
	vm_boot --disk-rw "$D/$1-boot.img" --disk "$D/usr.img" --disk "$D/usr.hash" "usr-$1" \
		"$RD_CONSENT" "usrhash=$UH systemd.verity_usr_data=/dev/vdb systemd.verity_usr_hash=/dev/vdc root=/dev/vda rw verity.fail=poweroff"
	vm_assert_booted || return 1
	agent_assert_refused "$VM_LOG" init "$2" || return 1
	vm_assert_log_lacks "$VM_LOG" "VERITY-TEST-USR" "init ran" || return 1
	agent_assert_fallback "$VM_LOG" poweroff
}

test_program_loader_directory_on_the_writable_root_refused() {
	setup_images || { fail "images"; return; }
	loader_refused lib64-dir '/lib64 is a directory of the unverified root, not a link into the verified /usr'
}

test_ld_so_preload_on_the_writable_root_refused() {
	setup_images || { fail "images"; return; }
	loader_refused preload '/etc/ld.so.preload exists on the unverified root'
}

test_ld_so_cache_naming_the_writable_root_refused() {
	setup_images || { fail "images"; return; }
	loader_refused evil-cache '/etc/ld.so.cache names /etc/evil/libc.so.6 for libc.so.6: outside /usr'
}

# Before the switch the link read the root's own /proc directory; after it, the kernel's /proc
# is there and the loader would follow /proc/self/cwd to the cache naming /etc/evil. The check
# made again after the switch refuses it (the link is a magic link there).
test_ld_so_cache_through_the_roots_proc_refused_after_the_switch() {
	setup_images || { fail "images"; return; }
	cp "$D/proc-cache.img" "$D/proc-cache-boot.img"
	vm_boot --disk-rw "$D/proc-cache-boot.img" --disk "$D/usr.img" --disk "$D/usr.hash" \
		usr-proc-cache "$RD_CONSENT" "usrhash=$UH systemd.verity_usr_data=/dev/vdb systemd.verity_usr_hash=/dev/vdc root=/dev/vda rw verity.fail=poweroff"
	vm_assert_booted || return
	agent_assert_refused "$VM_LOG" switch-root "the loader's files again after the switch: /etc/ld.so.cache: Too many levels of symbolic links" || return
	vm_assert_log_lacks "$VM_LOG" "VERITY-TEST-USR" "init ran" || return
	agent_assert_fallback "$VM_LOG" poweroff
}

. /usr/share/shunit2/shunit2
