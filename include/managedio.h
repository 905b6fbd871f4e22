/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Managed recovery after the switch, the part that touches the system (lib/boot/managedio.c):
 * the pstore filesystem's records of the last boot and the agent's EFI variable (what they
 * mean: include/managed.h). Functions return 0 or a negative errno. */
#ifndef VERITY_MANAGEDIO_H
#define VERITY_MANAGEDIO_H

#include <stdbool.h>

#include "err.h"
#include "managed.h"

#define VI_PSTORE_DIR "/sys/fs/pstore"

/* What the pstore records said. */
struct vi_pstore_scan {
	enum vi_pstore_end end;            /* the first record that shows dm-verity's end */
	char file[64];                     /* its file name ("dmesg-efi-175..."), "" for none */
	char reason[VI_PSTORE_REASON_MAX]; /* its dump reason ("Panic") */
	unsigned records;                  /* dmesg records read */
	int consumed;                      /* 0, or why that record could not be removed */
};

/* Read the dmesg records of the pstore filesystem on dir (mounted there for the call when
 * nothing is, unmounted again), each through vi_pstore_parse. With consume, the record that
 * shows dm-verity's end is removed (for efi-pstore: its EFI variable), so that no later boot
 * acts on it again; the others stay for the running system (systemd-pstore). A dir that does
 * not exist (a kernel without pstore) is no record. */
int vi_pstore_scan(const char *dir, bool consume, struct vi_pstore_scan *ret, struct vi_error *err);

/* The variable VI_MANAGED_VAR under efivars_dir (efivarfs): -ENOENT when there is none,
 * -EINVAL (err says why) when it does not decode. */
int vi_managed_var_read(const char *efivars_dir, struct vi_managed_record *ret,
			struct vi_error *err);
/* Write it (non-volatile, boot and runtime access) with one write(2), as efivarfs needs. */
int vi_managed_var_write(const char *efivars_dir, const struct vi_managed_record *rec,
			 struct vi_error *err);

#endif
