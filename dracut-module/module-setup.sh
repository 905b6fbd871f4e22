#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# dracut module "verity-init": set up a dm-verity protected root with the verity-init agent.
# Include it with `dracut --add verity-init`; see docs/dracut.md.

# The agent copied into the image. `make install` puts the static build (when it was built) at
# $(SBINDIR)/verity-init; VERITY_INIT_AGENT overrides the lookup (tests, staged installs).
verity_init_agent() {
	local _p
	for _p in "${VERITY_INIT_AGENT:-}" \
		"$dracutsysrootdir"/usr/sbin/verity-init \
		"$dracutsysrootdir"/sbin/verity-init \
		"$dracutsysrootdir"/usr/local/sbin/verity-init; do
		[[ -n $_p && -f $_p && -x $_p ]] || continue
		printf '%s\n' "$_p"
		return 0
	done
	return 1
}

# verity_init_host_root_is_verity: the build host's root file system sits on a dm "verity" target.
verity_init_host_root_is_verity() {
	local _majmin _table
	_majmin=$(find_root_block_device) || return 1
	[[ $_majmin == *:* ]] || return 1
	_table=$(dmsetup table -j "${_majmin%%:*}" -m "${_majmin##*:}" 2> /dev/null) || return 1
	[[ " $_table " == *" verity "* ]]
}

# verity_init_realinitpath_refused: dracut.conf's realinitpath= puts rd.distroinit= into the
# image's /etc/cmdline.d, an init run in place of the checked init=, which the agent refuses on
# every boot.
verity_init_realinitpath_refused() {
	[[ -n ${realinitpath:-} ]] || return 1
	derror "dracut module 'verity-init' cannot be used with realinitpath=\"$realinitpath\": dracut would run that init in place of the one verity-init checks (rd.distroinit=), and every boot would be refused; use init= on the kernel command line"
}

# called by dracut
check() {
	if verity_init_realinitpath_refused; then
		# --add makes dracut stop on our 1; a host-only build for a host that boots a verity root
		# would include us on its own and must not go on without us either
		[[ $hostonly ]] && verity_init_host_root_is_verity && exit 1
		return 1
	fi
	if ! verity_init_agent > /dev/null; then
		dinfo "dracut module 'verity-init' will not be installed: no verity-init agent found (install it, or set VERITY_INIT_AGENT)"
		return 1
	fi
	require_binaries udevadm || return 1
	# host-only: include the module by itself only when this host boots a verity root
	if [[ $hostonly ]] && verity_init_host_root_is_verity; then
		return 0
	fi
	return 255
}

# called by dracut
depends() {
	# dm: dm_mod, dmsetup and the dm udev rules that name /dev/mapper/*;
	# rootfs-block: mounting root= under shell init (systemd mounts it through sysroot.mount)
	echo dm rootfs-block
	return 0
}

# called by dracut
installkernel() {
	# the target, FEC's Reed-Solomon decoder, AF_ALG hashing for the agent's pre-flight check,
	# the hash algorithms a verity tree may use (not just the host's: images move),
	# overlayfs for systemd.volatile=overlay, and efivarfs (the agent looks for the EFI
	# variable SystemdOptions, which systemd reads as more command line)
	hostonly='' instmods dm-verity reed_solomon algif_hash \
		crypto-sha256 crypto-sha512 crypto-sha1 overlay efivarfs
}

# called by dracut
# dracut does not look at install()'s status: a failure exits, so no image is written without
# the agent or the policy it was asked to carry (the way 00systemd does).
install() {
	local _agent _conf _gen
	verity_init_realinitpath_refused && exit 1
	_agent=$(verity_init_agent) || {
		dfatal "verity-init: agent binary not found"
		exit 1
	}
	# an image with half the module could boot the root unchecked
	{ inst_binary "$_agent" /usr/sbin/verity-init \
		&& inst_multiple udevadm tr sed sleep \
		&& inst_simple "$moddir/verity-init-lib.sh" /lib/verity-init-lib.sh \
		&& inst_script "$moddir/verity-init-dracut.sh" /sbin/verity-init-dracut \
		&& chmod 0755 "$initdir"/sbin/verity-init-dracut \
		&& inst_hook shutdown-emergency 00 "$moddir/verity-init-emergency.sh" \
		&& { dracut_module_included systemd \
			|| { inst_hook cmdline 30 "$moddir/parse-verity-init.sh" \
				&& inst_hook mount 50 "$moddir/verity-init-mount.sh" \
				&& inst_hook pre-pivot 90 "$moddir/verity-init-check-init.sh" \
				&& inst_hook emergency 00 "$moddir/verity-init-emergency.sh"; }; }; } || {
		dfatal "verity-init: cannot install the agent or the module's scripts"
		exit 1
	}

	# the policy file: the build host's in host-only mode, or the one named in dracut.conf
	# (verity_init_conf=FILE) in any mode
	_conf=${verity_init_conf:-}
	if [[ -z $_conf && $hostonly && -f "$dracutsysrootdir"/etc/verity-init.conf ]]; then
		_conf="$dracutsysrootdir"/etc/verity-init.conf
	fi
	if [[ -n $_conf ]]; then
		inst_simple "$_conf" /etc/verity-init.conf || {
			dfatal "verity-init: cannot install $_conf"
			exit 1
		}
		# require_signature=kernel: the kernel's own guard too, for every table; udev's
		# modprobe reads it when it loads dm_verity (the standalone agent forces it itself)
		if grep -Eq '^[[:space:]]*require_signature[[:space:]]*=[[:space:]]*kernel[[:space:]]*$' "$_conf"; then
			mkdir -p "$initdir"/etc/modprobe.d
			echo "options dm_verity require_signatures=1" > "$initdir"/etc/modprobe.d/verity-init-policy.conf
		fi
		# managed=yes (yes as the agent reads a boolean): the pstore backend the agent reads
		# the last boot's end from, loaded by the setup job before the agent runs
		if grep -Eiq '^[[:space:]]*managed[[:space:]]*=[[:space:]]*(1|yes|y|true|t|on)[[:space:]]*$' "$_conf"; then
			hostonly='' instmods efi_pstore
			mkdir -p "$initdir"/etc/verity-init
			: > "$initdir"/etc/verity-init/managed
		fi
	fi

	# signed manifests (docs/signing.md): the minisign public keys the agent trusts, from
	# dracut.conf's verity_init_keys=DIR or the build host's /etc/verity-init/keys
	local _k _keys=${verity_init_keys:-"$dracutsysrootdir"/etc/verity-init/keys}
	for _k in "$_keys"/*.pub; do
		[[ -f $_k ]] || continue
		inst_simple "$_k" "/etc/verity-init/keys/${_k##*/}" || {
			dfatal "verity-init: cannot install $_k"
			exit 1
		}
	done

	# the device maker's certificates for dm-verity's .dm-verity keyring (Linux 7.0), from
	# dracut.conf's verity_init_certs=DIR or the build host's /etc/verity-init/certs: the agent
	# adds them and seals the keyring; modprobe gives dm_verity keyring_unsealed=1 (a command
	# line saying 0 can only keep them out, never put a key in)
	local _c _certs=${verity_init_certs:-"$dracutsysrootdir"/etc/verity-init/certs} _ncerts=0
	for _c in "$_certs"/*.der; do
		[[ -f $_c ]] || continue
		# what the agent takes: at most 16, named [A-Za-z0-9._-]
		if [[ ! ${_c##*/} =~ ^[A-Za-z0-9_-][A-Za-z0-9._-]*$ ]] || ((_ncerts == 16)); then
			dfatal "verity-init: $_c: more than 16 certificates, or a name other than [A-Za-z0-9._-]"
			exit 1
		fi
		inst_simple "$_c" "/etc/verity-init/certs/${_c##*/}" || {
			dfatal "verity-init: cannot install $_c"
			exit 1
		}
		_ncerts=$((_ncerts + 1))
	done
	if ((_ncerts > 0)); then
		mkdir -p "$initdir"/etc/modprobe.d
		echo "options dm_verity keyring_unsealed=1" > "$initdir"/etc/modprobe.d/verity-init-keyring.conf
	fi

	if dracut_module_included systemd; then
		# under systemd the module needs no dracut hook: the generator reads the command line
		# (and adds the refusals of shells), setup and the check before the switch are units of
		# their own, so dracut-cmdline, dracut-initqueue and dracut-pre-pivot (each a shell
		# with dracut's library, dracut-cmdline in front of udev) keep the conditions they have
		# without the module
		{ inst_simple "$moddir/verity-init-setup.service" \
			"$systemdsystemunitdir"/verity-init-setup.service \
			&& inst_simple "$moddir/verity-init-pre-pivot.service" \
				"$systemdsystemunitdir"/verity-init-pre-pivot.service; } || {
			dfatal "verity-init: cannot install the module's units"
			exit 1
		}
		# the generator is the agent itself (argv[0] names the role): it reads the line with
		# the parser setup uses, without a shell, before systemd starts any unit
		# (without it the image mounts root= unverified: no image rather than that one; ln
		# puts the link inside a directory in the way and succeeds, hence readlink)
		_gen=$initdir$systemdutildir/system-generators/verity-init-generator
		{ inst_dir "$systemdutildir"/system-generators \
			&& ln -sfn /usr/sbin/verity-init "$_gen" \
			&& [ "$(readlink "$_gen")" = /usr/sbin/verity-init ]; } || {
			dfatal "verity-init: cannot install the generator"
			exit 1
		}
		# One program owns each verity mapping: with verity-init in the image, systemd's
		# generator would race it for the same keys (roothash=, usrhash=,
		# systemd.verity_root_*). Masked, and said so twice: now, to whoever builds the image,
		# and on every boot, in the name systemd prints for the setup unit. Only dracut's
		# systemd-veritysetup module brings the generator (dracut 059 to dracut-ng 106).
		if dracut_module_included systemd-veritysetup; then
			local _mask=$initdir/etc/systemd/system-generators/systemd-veritysetup-generator
			local _dropin=$initdir$systemdsystemunitdir/verity-init-setup.service.d
			{ inst_dir /etc/systemd/system-generators \
				&& ln -sfn /dev/null "$_mask" && [ "$(readlink "$_mask")" = /dev/null ] \
				&& mkdir -p "$_dropin" \
				&& printf '%s\n' "# systemd-veritysetup-generator is masked in this image (module-setup.sh)" \
					"[Unit]" "Description=Verified root device (verity-init; systemd-veritysetup-generator masked)" \
					> "$_dropin/veritysetup-masked.conf"; } || {
				dfatal "verity-init: cannot mask systemd-veritysetup-generator (both would set up roothash=)"
				exit 1
			}
			dinfo "verity-init: systemd-veritysetup-generator masked: verity-init sets up the mappings of roothash= and usrhash= in this image"
		fi
	else
		# the setup job waits in dracut's initqueue (shell init)
		dracut_need_initqueue
	fi
}
