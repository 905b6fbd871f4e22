/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Whether a machine whose kernel shows no TPM may have one all the same (docs/security.md): a
 * command line can keep the TPM driver from running (acpi=off, a blacklisted driver), and a
 * fallback the TPM did not record must then open no shell, where the driver could be loaded
 * and a good boot's event replayed into the PCR. The firmware announces a TPM in
 *   - the ACPI TPM2 table (/sys/firmware/acpi/tables/TPM2; gone with acpi=off), and
 *   - on an EFI boot, the EFI configuration tables of the TPM event log, which the kernel names
 *     in its first records ("efi: ... TPMFinalLog=0x... TPMEventLog=0x..."), with or without
 *     ACPI and a driver. No file under /sys shows them.
 * lib/boot/tpmhint.c */
#ifndef VERITY_TPMHINT_H
#define VERITY_TPMHINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VI_TPM_HINT_WHY_MAX 160
#define VI_KMSG_PATH        "/dev/kmsg"
#define VI_SYSFS_FIRMWARE   "/sys/firmware"

struct vi_tpm_hint {
	bool announced;      /* the firmware announces a TPM */
	bool may_be_hidden;  /* the command line may hide one, or the log that would tell is cut */
	char why[VI_TPM_HINT_WHY_MAX];  /* the first source found (sanitized), for the log line */
};

/* The first word of the kernel command line cmdline[0..len) that can keep the kernel from
 * showing a TPM, sanitized into word (true), else false:
 *   acpi=off, acpi=ht (no ACPI tables in sysfs, no ACPI TPM device), acpi_rsdp= (other tables);
 *   module_blacklist=, modprobe.blacklist=, rd.driver.blacklist=, initcall_blacklist= with an
 *   entry (comma separated) containing "tpm", "tis" or "crb", any case (the drivers tpm_tis,
 *   tpm_crb, tpm_tis_spi, ..., their init functions init_tis, crb_acpi_driver_init, tpm_init).
 * Words after a bare "--" are init's. Pure. */
bool vi_tpm_cmdline_hides(const char *cmdline, size_t len, char *word, size_t size);

/* One record as read(2) from /dev/kmsg: "PRIO,SEQ,TIMESTAMP,FLAGS[,...];MESSAGE\n" followed by
 * continuation lines. 1 when it is the kernel's own (facility 0: PRIO < 8) and MESSAGE starts
 * with "efi: " and has a word starting with "TPMFinalLog=" or "TPMEventLog="; 0 for any other
 * record; -EINVAL when rec is not a record. *ret_seq is SEQ for 0 and 1. Pure. */
int vi_kmsg_record_tpm(const char *rec, size_t len, uint64_t *ret_seq);

/* Read the kernel log from fd (on /dev/kmsg, O_NONBLOCK) to its end. *ret_announced: a record
 * of vi_kmsg_record_tpm; *ret_complete: the first record read was the kernel's first (SEQ 0)
 * and none was lost while reading. 0, or negative errno (outputs then untouched). */
int vi_kmsg_scan_tpm(int fd, bool *ret_announced, bool *ret_complete);

/* The whole decision, for a kernel that shows no TPM: the ACPI TPM2 table under fw_dir
 * (VI_SYSFS_FIRMWARE); on an EFI boot (fw_dir/efi exists) the kernel log at kmsg_path
 * (VI_KMSG_PATH), a log that lost its first records counting as "may be hidden"; the command
 * line (vi_tpm_cmdline_hides). A log that cannot be opened counts as cut. Never fails. */
void vi_tpm_hint_read(const char *fw_dir, const char *kmsg_path, const char *cmdline,
		      struct vi_tpm_hint *h);

#endif
