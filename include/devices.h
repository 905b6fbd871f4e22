/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Finding the block devices a command line names ("/dev/vda", "UUID=", "PARTUUID=", "LABEL=",
 * "PARTLABEL=") with libblkid, waiting a bounded time for late ones, and opening each once so
 * the rest of the setup refers to the opened device number (MAJ:MIN), not to a path. */
#ifndef VERITY_DEVICES_H
#define VERITY_DEVICES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"

#define VI_DEV_NAME_MAX 64u

/* One device the setup needs. spec is in; the rest is filled once the device is found. */
struct vi_dev {
	const char *spec;
	int fd;                       /* O_RDONLY, -1 until found */
	dev_t devno;
	uint64_t size;                /* bytes */
	char name[VI_DEV_NAME_MAX];   /* kernel name ("vda1"), for messages */
};

/* Whether spec has one of the accepted forms (a "/dev/" path or a known TAG= with a value). */
bool vi_dev_spec_valid(const char *spec);

/* "MAJ:MIN" in decimal (dm-mod.create= tables, sysfs "dev" files): digits only, in range. */
bool vi_parse_majmin(const char *s, dev_t *ret);

/* One scan of /sys/class/block: every device not yet found whose spec now matches exactly one
 * block device is opened. Device-mapper devices are never candidates (our own mappings carry
 * the same filesystem UUID and label as their data device).
 * 0: all found. -ENOENT: some still missing (err names the first). -ENOTUNIQ: a tag matches
 * more than one device (refused: a second disk with the same PARTUUID must not win a race).
 * -EINVAL: malformed spec or not a block device. */
int vi_devs_scan(struct vi_dev *devs, unsigned n, struct vi_error *err);

/* vi_devs_scan until all are found or timeout_ms passes, re-scanning whenever the kernel
 * announces a block device (uevent netlink socket) and at least every 250 ms (in case the
 * socket is unavailable). -ETIMEDOUT with err naming the missing device. */
int vi_devs_wait(struct vi_dev *devs, unsigned n, unsigned timeout_ms, struct vi_error *err);

/* What a caller learns when a wait starts: the first device still missing (as in err) and the
 * bound. Called at most once per wait, only when the first scan did not find everything. */
struct vi_devs_wait_note {
	void (*waiting)(void *ctx, const char *missing, unsigned timeout_ms);
	void *ctx;
};

/* vi_devs_wait that tells note (may be NULL) when it has to wait. */
int vi_devs_wait_noted(struct vi_dev *devs, unsigned n, unsigned timeout_ms,
		       const struct vi_devs_wait_note *note, struct vi_error *err);

void vi_devs_close(struct vi_dev *devs, unsigned n);

/* The devtmpfs node of block device devno ("/dev/vda2"), from its kernel name in sysfs.
 * -ENOENT when sysfs does not know it. */
int vi_dev_node(dev_t devno, char *node, size_t size);

#endif
