/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent's resolved configuration: what the kernel command line (and the initramfs policy)
 * asked for, before any device is touched. Produced by lib/cmdline.c, consumed by the agent. */
#ifndef VERITY_CONFIG_H
#define VERITY_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "superblock.h"

#define VI_MAX_PATH      256u
#define VI_MAX_NAME      64u     /* dm names: DM_NAME_LEN is 128, we keep it short */
#define VI_MAX_FAIL      6u
#define VI_DEFAULT_NAME  "root"
#define VI_DEFAULT_TIMEOUT_S 30u

/* A device reference as written by the user: "/dev/vda1", "UUID=...", "PARTUUID=...",
 * "LABEL=...", "PARTLABEL=...". Empty spec: not given. */
struct vi_devspec {
	char spec[VI_MAX_PATH];
};

enum vi_corruption {             /* what the kernel does on a bad block */
	VI_CORRUPT_EIO = 0,      /* default: I/O error */
	VI_CORRUPT_IGNORE,
	VI_CORRUPT_RESTART,
	VI_CORRUPT_PANIC,
};

enum vi_ioerror {                /* kernel 6.12+: restart_on_error / panic_on_error */
	VI_IOERR_EIO = 0,
	VI_IOERR_RESTART,
	VI_IOERR_PANIC,
};

enum vi_fail_action {
	VI_FAIL_NONE = 0,
	VI_FAIL_RECOVERY,
	VI_FAIL_REBOOT,
	VI_FAIL_POWEROFF,
	VI_FAIL_PANIC,
	VI_FAIL_SHELL,
};

/* One verity target: the root, or the recovery root. */
struct vi_target {
	bool enabled;                 /* a root hash (or dm-mod.create table) was given */
	char name[VI_MAX_NAME];       /* mapping name, "root" by default */
	uint8_t root_hash[VERITY_MAX_DIGEST];
	unsigned root_hash_len;       /* bytes */
	struct vi_devspec data;
	struct vi_devspec hash;       /* empty: same as data */
	struct vi_devspec fec;
	struct verity_params params;  /* from the command line; superblock fills the rest */
	uint32_t given;               /* VI_GIVEN_* bits: which params the command line set */
	uint64_t fec_offset;
	uint32_t fec_roots;
	enum vi_corruption corruption;
	enum vi_ioerror ioerror;
	bool ignore_zero_blocks;
	bool check_at_most_once;
	bool superblock;              /* default true */
	char sig_path[VI_MAX_PATH];   /* root-hash-signature= / verity.sig= */
	bool from_dm_create;          /* table came verbatim from dm-mod.create= */
};

#define VI_GIVEN_HASH_NAME   (1u << 0)
#define VI_GIVEN_FORMAT      (1u << 1)
#define VI_GIVEN_DATA_BS     (1u << 2)
#define VI_GIVEN_HASH_BS     (1u << 3)
#define VI_GIVEN_DATA_BLOCKS (1u << 4)
#define VI_GIVEN_HASH_OFFSET (1u << 5)
#define VI_GIVEN_SALT        (1u << 6)
#define VI_GIVEN_UUID        (1u << 7)

struct vi_config {
	struct vi_target root;
	struct vi_target recovery;
	enum vi_fail_action fail[VI_MAX_FAIL];   /* tried in order; VI_FAIL_NONE ends the list */
	unsigned timeout_s;                       /* device wait */
	char root_dev[VI_MAX_PATH];               /* root= */
	char rootfstype[32];
	char rootflags[VI_MAX_PATH];
	char init[VI_MAX_PATH];                   /* init=, default /sbin/init */
	char sig_path[VI_MAX_PATH];               /* verity.sig= */
	char manifest[VI_MAX_PATH];               /* verity.manifest= */
	bool require_signature;
	bool verity_disabled;                     /* systemd.verity=0 / rd.systemd.verity=0 */
};

/* Parse a whole kernel command line into cfg (defaults applied first). Unknown keys outside our
 * namespaces are ignored; a malformed or conflicting value of ours is -EINVAL with err set. */
int vi_cmdline_parse(const char *cmdline, struct vi_config *cfg, struct verity_err *err);

#endif
