// SPDX-License-Identifier: LGPL-2.1-or-later
/* The agent's step for a verified /usr (verity-init/agent/usr-boot.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/sysmacros.h>

#include "clock.h"
#include "devices.h"
#include "usr-boot.h"
#include "usrcfg.h"
#include "usrmount.h"

/* The /usr mount, then the root below it. */
static void unmount(const char *newroot)
{
	char usr[256];

	snprintf(usr, sizeof(usr), "%s/usr", newroot);
	umount2(usr, MNT_DETACH);
	umount2(newroot, MNT_DETACH);
}

/* The root= partition is waited for like the targets' devices: one line when it is late. */
static void log_waiting(void *ctx, const char *missing, unsigned timeout_ms)
{
	struct agent *a = ctx;

	vi_kmsg_log(&a->log, KMSG_NOTICE, "root: waiting up to %u s: %s", timeout_ms / 1000u,
		 missing);
}

/* The unverified root= partition of VI_LAYOUT_WRITABLE_USR (the policy consented), mounted on
 * newroot: writable with "rw", as the kernel would. */
static int mount_writable_root(struct agent *a, const char *newroot, const struct vi_target *usr,
			       char *type, size_t type_size)
{
	const struct vi_config *cfg = &a->plan.cfg;
	struct vi_dev dev = { .spec = cfg->root_dev, .fd = -1 };
	const struct vi_devs_wait_note wn = { log_waiting, a };
	struct vi_error err = { "" };
	char node[VI_DEV_NAME_MAX + 8];
	uint64_t t0 = vi_now_ms();
	int r;

	r = vi_devs_wait_noted(&dev, 1, cfg->timeout_s * 1000u, &wn, &err);
	a->time.wait_ms += vi_now_ms() - t0;
	if (r < 0)
		return vi_agent_fail_target(a, VI_STAGE_DEVICES, usr, r, &err);
	r = vi_dev_node(dev.devno, node, sizeof(node));
	if (r < 0) {
		vi_devs_close(&dev, 1);
		vi_errno(&err, r, "root=%s: no device node for %u:%u", cfg->root_dev,
			 major(dev.devno), minor(dev.devno));
		return vi_agent_fail_target(a, VI_STAGE_DEVICES, usr, r, &err);
	}
	r = vi_writable_root_mount(node, dev.devno, newroot, cfg->rootfstype, cfg->rootflags,
				   cfg->rw, &a->pid1.fs_loader, type, type_size, &err);
	vi_devs_close(&dev, 1);
	if (r < 0)
		return vi_agent_fail_target(a, VI_STAGE_MOUNT, usr, r, &err);
	vi_kmsg_log(&a->log, KMSG_WARNING, "root=%s mounted %s on %s (%s) NOT verified (the "
		 "initramfs policy allows it: allow_unverified_root=yes)", cfg->root_dev,
		 cfg->rw ? "writable" : "read-only", newroot, type);
	return 0;
}

/* A boot with a verified /usr (lib/boot/usrmount.c): the root below it (the verified root
 * mapping, a tmpfs, or the unverified partition), the /usr mapping read-only on newroot/usr,
 * and init read through the whole and proved to be on a verified device. */
int vi_usr_boot_mount(struct agent *a, const char *newroot, const struct vi_target *t,
		      const struct vi_activation *act, const struct vi_activation *uact,
		      struct vi_file_id *ret_init)
{
	const struct vi_config *cfg = &a->plan.cfg;
	const struct vi_target *usr = &cfg->usr;
	const dev_t allowed[2] = { uact->devno, t->enabled ? act->devno : 0 };
	struct vi_error err = { "" };
	char type[VI_MAX_FSTYPE], utype[VI_MAX_FSTYPE] = "tmpfs";
	int r;

	if (cfg->layout == VI_LAYOUT_ROOT_USR) {
		r = vi_mount_root(act->node, act->devno, newroot, cfg->rootfstype, cfg->rootflags,
				  &a->pid1.fs_loader, type, sizeof(type), &err);
	} else if (cfg->layout == VI_LAYOUT_TMPFS_USR) {
		r = vi_tmpfs_root_mount(newroot, &err);
	} else {
		r = mount_writable_root(a, newroot, usr, type, sizeof(type));
	}
	if (r < 0)
		return cfg->layout == VI_LAYOUT_WRITABLE_USR ? r :
		       vi_agent_fail_target(a, VI_STAGE_MOUNT, t->enabled ? t : usr, r, &err);
	r = vi_usr_mount(newroot, uact->node, uact->devno, cfg->usrfstype, cfg->usrflags,
			 &a->pid1.fs_loader, utype, sizeof(utype), &err);
	if (r == 0 && cfg->layout == VI_LAYOUT_TMPFS_USR)
		r = vi_usr_merge_links(newroot, &err);
	if (r < 0) {
		unmount(newroot);
		return vi_agent_fail_target(a, VI_STAGE_MOUNT, usr, r, &err);
	}
	r = vi_usr_init_check(newroot, cfg->init, allowed, 2, ret_init, &err);
	/* a root nobody verified: the loader and what it reads before init runs, too */
	if (r == 0 && !t->enabled)
		r = vi_usr_loader_check(newroot, cfg->init, uact->devno, &err);
	if (r < 0) {
		unmount(newroot);
		return vi_agent_fail_target(a, VI_STAGE_INIT, usr, r, &err);
	}
	vi_kmsg_log(&a->log, KMSG_INFO, "%s: mounted %s read-only on %s/usr (%s), root %s "
		 "(layout %s), init %s read from a verified device%s", usr->name, uact->node,
		 newroot, utype, t->enabled ? act->node : cfg->layout == VI_LAYOUT_TMPFS_USR ?
		 "tmpfs" : cfg->root_dev, vi_layout_name(cfg->layout), cfg->init, t->enabled ? "" :
		 ", its interpreters too; no ld.so.preload, ld.so.cache only onto /usr");
	return 0;
}
