/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Setting up one verity target end to end, in the order of docs/design.md ("The agent's setup
 * order"): wait for and open the devices, read and cross-check the superblock, check sizes,
 * pre-flight the root hash, create (or reuse an identical) read-only mapping, and require the
 * kernel's status to be `V`. Each failure names its stage and one reason. No logging here. */
#ifndef VERITY_ACTIVATE_H
#define VERITY_ACTIVATE_H

#include <stdbool.h>
#include <sys/types.h>

#include "config.h"
#include "devices.h"
#include "digest.h"
#include "dm.h"
#include "superblock.h"
#include "table.h"

enum vi_stage {
	VI_STAGE_CONFIG = 0,   /* nothing to set up, or the configuration is incomplete */
	VI_STAGE_DEVICES,      /* a device is missing, ambiguous or unusable */
	VI_STAGE_SUPERBLOCK,   /* superblock unreadable, invalid, or contradicts the command line */
	VI_STAGE_SIZES,        /* data or hash area does not fit its device, or they overlap */
	VI_STAGE_PREFLIGHT,    /* the top of the tree does not hash to the root hash */
	VI_STAGE_ACTIVATE,     /* device-mapper refused the table, or a different mapping exists */
	VI_STAGE_STATUS,       /* the kernel's status is not V */
	VI_STAGE_MOUNT,        /* (agent) mounting the mapping failed */
	VI_STAGE_INIT,         /* (agent) init missing, not executable, or unreadable */
	VI_STAGE_SWITCH,       /* (agent) switch_root failed */
	VI_STAGE_MEASURE,      /* (agent) the TPM measurement the policy requires failed */
	VI_STAGE_IPE,          /* (agent) the policy's IPE policy was not loaded or activated */
	VI_STAGE_MANAGED,      /* (agent) managed recovery: a degraded root that did not come up
	                        * is not booted again (include/managed.h) */
};

const char *vi_stage_name(enum vi_stage s);

struct vi_activation {
	enum vi_stage stage;            /* where it failed (meaningful on error only) */
	bool preflight_skipped;         /* kernel crypto unavailable: see preflight_note */
	struct vi_error preflight_note;
	bool reused;                    /* an identical mapping existed already */
	uint64_t wait_ms;               /* time spent waiting for the devices */
	dev_t devno;                    /* the mapping */
	char node[VI_MAX_PATH];         /* /dev/mapper/NAME */
	char data_name[64], hash_name[64];
	struct vi_params params;    /* what was activated */
	char table[VI_TABLE_MAX];       /* its parameters */
};

struct vi_activate_opts {
	unsigned timeout_ms;                 /* bound of the device wait */
	const struct vi_digest_ops *ops;        /* pre-flight hashing (AF_ALG in the agent) */
	bool allow_fewer_data_blocks;        /* policy: data-blocks= below the superblock's */
	struct vi_devs_wait_note wait_note;  /* told when the devices are not all there yet */
};

/* Set up t. Returns 0 with *ret filled, or a negative errno with ret->stage and err set. On
 * failure nothing stays mapped that this call created. */
int vi_activate(const struct vi_target *t, const struct vi_activate_opts *o,
		struct vi_activation *ret, struct vi_error *err);

/* Merge the superblock's parameters with those the command line gave (t->given): each given
 * value must equal the superblock's, else -EINVAL naming the key; the one exception is a
 * data-blocks= below the superblock's when allow_fewer_data_blocks (the mapping is then
 * shorter). Pure. */
int vi_params_merge(const struct vi_target *t, const struct vi_params *sb,
		    bool allow_fewer_data_blocks, struct vi_params *ret,
		    struct vi_error *err);

#endif
