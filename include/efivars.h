/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* EFI variables that change what systemd reads as its command line. systemd (252) adds the
 * words of the variable SystemdOptions (vendor 8cf2644b-4b0b-428f-9387-6d876050dc67, written by
 * `bootctl systemd-efi-options`) to the kernel command line it reads, in the initramfs and in the
 * booted root: init=, systemd.unit=, systemd.debug_shell that the agent never saw. Whoever can
 * write EFI variables (root on any system booted on the machine, a firmware setup screen) would
 * get past the policy with them, so a boot with the variable present is refused
 * (lib/boot/efivars.c). */
#ifndef VERITY_EFIVARS_H
#define VERITY_EFIVARS_H

#include "err.h"

#define VI_EFI_DIR      "/sys/firmware/efi"
#define VI_EFIVARS_DIR  "/sys/firmware/efi/efivars"
#define VI_EFI_SYSTEMD_OPTIONS "SystemdOptions-8cf2644b-4b0b-428f-9387-6d876050dc67"

/* Mount efivarfs on efi_dir/efivars when efi_dir exists (an EFI boot) and nothing is mounted
 * there yet, as systemd does early. 0, or a negative errno (the kernel has no efivarfs: then
 * systemd cannot read the variable either). */
int vi_efivarfs_mount(const char *efi_dir);

/* 0 when dir is not an efivarfs (no EFI, or none mounted) or holds no SystemdOptions variable;
 * -EPERM with err saying why when it holds one; another negative errno when dir cannot be
 * read. */
int vi_efi_options_check(const char *dir, struct vi_error *err);

#endif
