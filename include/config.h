/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent's configuration: what the kernel command line asked for, before any device is
 * touched; its types, limits and defaults (lib/config/config.c). vi_cmdline_parse
 * (include/cmdline.h) produces it; the agent's plan (include/plan.h) holds
 * the copy the initramfs policy completes (fail actions, timeout) and a signed manifest merges
 * into, which is what is booted and what `verity-init parse` prints. docs/cmdline.md is the
 * user-facing reference of every key. */
#ifndef VERITY_CONFIG_H
#define VERITY_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devspec.h"
#include "failactions.h"
#include "params.h"
#include "superblock.h"
#include "volatile.h"

#define VI_MAX_DM_UUID   129u    /* DM_UUID_LEN, with the NUL */
#define VI_MAX_FSTYPE    32u
#define VI_MAX_CMDLINE   4096u   /* longer command lines are refused (-E2BIG), never cut */
#define VI_MAX_OPTIONS   4096u   /* one verity.options= / systemd.verity_root_options= value */
#define VI_MAX_TIMEOUT_S 3600u
#define VI_MAX_ENV       32u     /* the kernel's MAX_INIT_ENVS: more panics the kernel */
#define VI_MAX_ENV_NAME  64u
#define VI_DEFAULT_NAME  "root"
#define VI_DEFAULT_RECOVERY_NAME "recovery"
#define VI_DEFAULT_USR_NAME "usr"
#define VI_DEFAULT_TIMEOUT_S 30u
#define VI_DEFAULT_INIT  "/sbin/init"

/* One verity target: the root, /usr, or the recovery root.
 * enabled && root_hash_len == 0 happens only for the root when verity.manifest= is given: the
 * root hash (and whatever else the command line left out) then comes from the signed manifest. */
struct vi_target {
	bool enabled;                 /* a root hash, dm-mod.create table or manifest was given */
	char name[VI_MAX_NAME];       /* mapping name, "root" / "recovery" by default */
	uint8_t root_hash[VERITY_MAX_DIGEST];
	unsigned root_hash_len;       /* bytes; 0: from the manifest */
	struct vi_devspec data;
	struct vi_devspec hash;       /* empty: same as data (hash-offset= is then required) */
	struct vi_devspec fec;
	struct vi_params params;  /* from the command line; superblock fills the rest.
	                               * superblock=false: every field is set (defaults filled in
	                               * for hash/format/block sizes, see docs/cmdline.md) and
	                               * params.no_superblock is true. */
	uint32_t given;               /* VI_GIVEN_* bits: which params the command line set */
	uint64_t fec_offset;          /* bytes */
	uint32_t fec_roots;           /* 0: not given (kernel default 2) */
	uint64_t fec_blocks;          /* dm-mod.create fec_blocks; 0: compute */
	struct vi_verity_opts opts;   /* corruption, I/O error, the two flags (params.h) */
	bool try_verify_in_tasklet;   /* dm-mod.create only */
	bool superblock;              /* default true */
	bool discovered;              /* data/hash derived from the root hash (DPS rule) */
	bool data_derived, hash_derived; /* which of them was */
	char sig_path[VI_MAX_SIG_LOC]; /* root-hash-signature= / verity.sig= (path, devspec or
	                                * "base64:" and the DER signature inline, as systemd) */
	char sig_key_desc[VI_MAX_PATH]; /* dm-mod.create root_hash_sig_key_desc (key in keyring) */
	bool from_dm_create;          /* table came verbatim from dm-mod.create= */
	char dm_uuid[VI_MAX_DM_UUID]; /* dm-mod.create <uuid>, may be empty */
	int dm_minor;                 /* dm-mod.create <minor>, -1: any */
	uint64_t dm_sectors;          /* dm-mod.create target length in 512-byte sectors */
};

/* What the booted system's root is made of (docs/security.md says what each one verifies). */
enum vi_layout {
	VI_LAYOUT_ROOT = 0,      /* the verified root alone (its /usr is on it) */
	VI_LAYOUT_ROOT_USR,      /* the verified root, the verified /usr mounted on its /usr */
	VI_LAYOUT_TMPFS_USR,     /* a tmpfs root (systemd.volatile=yes, root=tmpfs), verified /usr */
	VI_LAYOUT_WRITABLE_USR,  /* an unverified root= partition, verified /usr: the policy's
	                          * allow_unverified_root=yes only */
};

struct vi_config {
	struct vi_target root;
	struct vi_target recovery;
	struct vi_target usr;                     /* usrhash= / verity.usr.*: mapping "usr" */
	enum vi_layout layout;                    /* from the targets, root= and volatile */
	char usr_dev[VI_MAX_PATH];                /* mount.usr= (only the mapping itself) */
	char usrfstype[VI_MAX_FSTYPE];            /* mount.usrfstype= */
	char usrflags[VI_MAX_PATH];               /* mount.usrflags= */
	bool rw;                                  /* "rw": the unverified root mounted writable */
	enum vi_fail_action fail[VI_MAX_FAIL];   /* tried in order; VI_FAIL_NONE ends the list */
	unsigned timeout_s;                       /* device wait */
	char root_dev[VI_MAX_PATH];               /* root= (last one wins, as in the kernel) */
	bool root_dev_ignored;                    /* root= names something other than the verity
	                                           * mapping: ignored (log it), the mapping is
	                                           * mounted */
	char rootfstype[VI_MAX_FSTYPE];
	char rootflags[VI_MAX_PATH];
	char init[VI_MAX_PATH];                   /* init=, default /sbin/init */
	bool init_given;                          /* init= was on the command line */
	char manifest[VI_MAX_PATH];               /* verity.manifest= */
	bool require_signature;
	bool verity_off_allowed;   /* policy allow_weak=verity-off: a boot without verity may go on */
	bool verity_disabled;                     /* systemd.verity=0 / rd.systemd.verity=0 */
	bool fail_given;                          /* verity.fail= was on the command line */
	bool timeout_given;                       /* verity.timeout= was on the command line */
	bool ro;                                  /* "ro" seen (we always mount read-only) */
	enum vi_volatile volatile_mode;           /* systemd.volatile= / verity.volatile= */
	bool shell_dropped;                       /* vi_policy_apply removed "shell" */
	bool shell_requested;                     /* rd.break, rd.shell=1 (dracut's root shells) */
	char shell_key[16];                       /* the first such key, for the refusal */
	bool shell_allowed;                       /* the policy's allow_shell */
	/* Environment names the command line sets for the booted system: upper-case NAME=value
	 * words before "--" (the kernel hands them to init as its environment) and the names of
	 * systemd.setenv= (systemd hands them to every service). vi_policy_check allows only
	 * TERM, BOOT_IMAGE and the policy's init_env= names. */
	char env_names[VI_MAX_ENV][VI_MAX_ENV_NAME];
	unsigned env_count;
	/* A switch that hands control to a shell or to unverified code in the initramfs or in the
	 * booted system (systemd.debug_shell, systemd.unit=rescue.target, resume=, ...): refused
	 * unless the policy has allow_shell=yes. The first one, for the refusal. */
	bool handover_requested;
	char handover_key[48];
};

/* Defaults: name "root"/"recovery"/"usr", fail=panic, timeout 30 s, init /sbin/init, superblock on. */
void vi_config_init(struct vi_config *cfg);

#endif
