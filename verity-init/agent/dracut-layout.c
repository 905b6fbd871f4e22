// SPDX-License-Identifier: LGPL-2.1-or-later
/* The dracut runtime's pre-pivot checks of each layout (verity-init/agent/dracut-layout.h): what is
 * mounted on NEWROOT must be the verified mappings in the layout the command line asked for,
 * and init is read completely through that final layout. What dracut cannot mount itself is
 * mounted here: the verified /usr on NEWROOT/usr (dracut's usrmount reads the root's fstab
 * only), the directories of a tmpfs root (systemd.volatile=yes: the module's mount hook or
 * sysroot.mount mounted the tmpfs) and the overlay of systemd.volatile=overlay. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dm.h"
#include "dracut-layout.h"
#include "fileio.h"
#include "overlay.h"
#include "usrcfg.h"
#include "usrmount.h"

void vi_dracut_umount_tree(const char *dir)
{
	static char info[65536];
	char *mp[64], *save = NULL;
	size_t len = strlen(dir), n = 0;

	if (vi_fileio_read_text_at(AT_FDCWD, "/proc/self/mountinfo", info, sizeof(info)) == 0) {
		for (char *line = strtok_r(info, "\n", &save); line && n < 64;
		     line = strtok_r(NULL, "\n", &save)) {
			char *f = line;

			/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ...: the fifth field */
			for (int i = 0; i < 4 && f; i++) {
				f = strchr(f, ' ');
				f = f ? f + 1 : NULL;
			}
			if (!f || !strchr(f, ' '))
				continue;
			*strchr(f, ' ') = '\0';
			if (!strncmp(f, dir, len) && (f[len] == '\0' || f[len] == '/'))
				mp[n++] = f;   /* octal escapes (a blank) would not match dir: fine */
		}
	}
	while (n > 0) {
		const char *m = mp[--n];

		if (umount2(m, 0) < 0)
			umount2(m, MNT_DETACH);
	}
	/* anything left (not listed, stacked): detached with the tree under it */
	for (int i = 0; i < 16 && umount2(dir, MNT_DETACH) == 0; i++)
		;
}

int vi_dracut_mapping_check(const char *name, dev_t *ret_devno, struct vi_error *err)
{
	char type[32] = "", params[VI_TABLE_MAX], status[64] = "";
	struct vi_error why = { "" };
	bool exists = false;
	uint64_t sectors;
	int r;

	r = vi_dm_exists(name, &exists, ret_devno, &why);
	if (r == 0 && !exists)
		vi_err(&why, "no mapping of that name");
	if (r == 0 && exists)
		r = vi_dm_table(name, type, sizeof(type), params, sizeof(params), &sectors, &why);
	if (r < 0 || !exists)
		return vi_errno(err, r < 0 ? r : -ENOENT, "%s is not a verified mapping: %s", name,
				why.msg);
	if (strcmp(type, "verity") || vi_dm_status(name, status, sizeof(status), &why) < 0 ||
	    status[0] != 'V')
		return vi_errno(err, -EPERM, "mapping %s is not a verity target with status V "
				"(target \"%s\", status \"%.20s\")", name, type, status);
	return 0;
}

static bool fs_is(const char *path, __fsword_t magic)
{
	struct statfs sfs;

	return statfs(path, &sfs) == 0 && sfs.f_type == magic;
}

int vi_dracut_program_path(const char *root, const char *path, struct vi_error *err)
{
	bool fallback;
	int rootfd, fd, r;

	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return 1;   /* the check that follows says why */
	r = vi_path_enters_api_dir(rootfd, path);
	if (r != 0) {
		close(rootfd);
		if (r > 0)
			return vi_errno(err, -EXDEV, "%.100s leads into /dev, /proc, /sys or /run of "
					"the new root, where the switch puts the initramfs's own "
					"filesystems: what runs there is not what is read here", path);
		return vi_errno(err, r, "cannot follow %.100s in the new root: %s", path,
				strerror(-r));
	}
	fd = vi_open_in_root(rootfd, path, O_PATH, &fallback);
	close(rootfd);
	if (fd >= 0)
		close(fd);
	return fd != -ENOENT && fd != -ENOTDIR;
}

/* systemd.volatile=overlay: NEWROOT is the mapping, checked, then the overlay is stacked here as
 * the standalone agent stacks it (lib/boot/overlay.c) and init read again through it. An overlay
 * someone else stacked is refused: systemd-volatile-root (252) detaches its upper layer's tmpfs
 * once the overlay is mounted, so that layer could not be shown to be empty. */
static int overlay_check(const struct vi_config *cfg, const char *newroot, const char *init,
			 const char *const *also, struct vi_dracut_check *c)
{
	struct vi_file_id lower_id, id, also_id[VI_DRACUT_ALSO_MAX];
	bool present[VI_DRACUT_ALSO_MAX] = { false };
	dev_t devno;
	int lowerfd, r;

	c->stage = VI_STAGE_INIT;
	if (fs_is(newroot, OVERLAYFS_SUPER_MAGIC))
		return vi_errno(&c->err, -EXDEV, "%s is an overlay stacked before pre-pivot: its "
				"upper layer cannot be checked", newroot);
	r = vi_dracut_mapping_check(cfg->root.name, &devno, &c->err);
	if (r == 0)
		r = vi_dracut_program_path(newroot, init, &c->err);
	if (r >= 0)
		r = vi_init_check(newroot, init, devno, &lower_id, &c->err);
	for (size_t i = 0; r == 0 && also && i < VI_DRACUT_ALSO_MAX && also[i]; i++) {
		r = vi_dracut_program_path(newroot, also[i], &c->err);
		present[i] = r > 0;
		if (r >= 0)
			r = present[i] ? vi_init_check(newroot, also[i], devno, &also_id[i],
						       &c->err) : 0;
	}
	if (r == 0)
		r = vi_root_dirs_check(newroot, devno, &c->err);
	if (r < 0)
		return r;
	lowerfd = open(newroot, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lowerfd < 0)
		return vi_errno(&c->err, -errno, "cannot open %s: %s", newroot, strerror(errno));
	c->stage = VI_STAGE_MOUNT;
	r = vi_overlay_mount(newroot, VI_OVERLAY_DIR, &c->err);
	if (r == 0) {
		c->stage = VI_STAGE_INIT;
		r = vi_overlay_init_check(newroot, VI_OVERLAY_DIR, lowerfd, init, devno, &lower_id,
					  &id, &c->err);
		for (size_t i = 0; r == 0 && i < VI_DRACUT_ALSO_MAX; i++)
			if (present[i])
				r = vi_overlay_init_check(newroot, VI_OVERLAY_DIR, lowerfd, also[i],
							  devno, &also_id[i], &id, &c->err);
		if (r < 0)
			vi_overlay_unmount(newroot, VI_OVERLAY_DIR);
	}
	close(lowerfd);
	if (r == 0)
		snprintf(c->what, sizeof(c->what), "through the overlay stacked here (%.64s below, "
			 "a tmpfs above: " VI_OVERLAY_DIR "/upper)", cfg->root.name);
	return r;
}

/* A verified /usr: root+usr (NEWROOT the root mapping) or tmpfs+usr (a tmpfs, from the module's
 * mount hook or the generator's sysroot.mount; anything else there is replaced by one),
 * the /usr mapping on NEWROOT/usr (mounted here unless sysroot-usr.mount did it), init read
 * through the whole and on a verified device, the code directories on the verified devices. */
static int usr_check(const struct vi_config *cfg, const char *newroot, const char *init,
		     const char *const *also, struct vi_dracut_check *c)
{
	const bool tmpfs = cfg->layout == VI_LAYOUT_TMPFS_USR;
	dev_t allowed[2] = { 0, 0 };
	char usr[256], node[128], type[VI_MAX_FSTYPE];
	struct vi_file_id id;
	struct stat st, rst;
	int r;

	c->stage = VI_STAGE_INIT;
	c->usr = true;
	r = vi_dracut_mapping_check(cfg->usr.name, &allowed[0], &c->err);
	if (r == 0 && !tmpfs) {
		c->usr = false;
		r = vi_dracut_mapping_check(cfg->root.name, &allowed[1], &c->err);
		if (r == 0 && (stat(newroot, &st) < 0 || st.st_dev != allowed[1]))
			r = vi_errno(&c->err, -EXDEV, "%s is not the verified root mapping %s",
				     newroot, cfg->root.name);
		c->usr = true;
	}
	if (r < 0)
		return r;
	c->stage = VI_STAGE_MOUNT;
	if (tmpfs && !fs_is(newroot, TMPFS_MAGIC)) {
		vi_dracut_umount_tree(newroot);
		r = vi_tmpfs_root_mount(newroot, &c->err);
	} else if (tmpfs) {
		r = vi_tmpfs_root_dirs(newroot, &c->err);
	}
	if (r < 0)
		return r;
	snprintf(usr, sizeof(usr), "%.200s/usr", newroot);
	c->usr_mounted = stat(usr, &st) == 0 && st.st_dev == allowed[0];
	/* anything else mounted there (dracut's usrmount from the root's fstab) is not hidden
	 * under the verified /usr: refused */
	if (!c->usr_mounted && (stat(newroot, &rst) < 0 || stat(usr, &st) < 0 ||
				st.st_dev != rst.st_dev)) {
		c->stage = VI_STAGE_INIT;
		return vi_errno(&c->err, -EXDEV, "%s is a file system other than the verified /usr "
				"mapping %s", usr, cfg->usr.name);
	}
	if (!c->usr_mounted) {
		snprintf(node, sizeof(node), "/dev/mapper/%.100s", cfg->usr.name);
		r = vi_usr_mount(newroot, node, allowed[0], cfg->usrfstype,
				 cfg->usrflags, NULL, type, sizeof(type), &c->err);
		if (r < 0)
			return r;
	}
	if (tmpfs)
		r = vi_usr_merge_links(newroot, &c->err);
	if (r < 0)
		return r;
	c->stage = VI_STAGE_INIT;
	r = vi_dracut_program_path(newroot, init, &c->err);
	if (r >= 0)
		r = vi_usr_init_check(newroot, init, allowed, 2, &id, &c->err);
	for (size_t i = 0; r == 0 && also && i < VI_DRACUT_ALSO_MAX && also[i]; i++) {
		r = vi_dracut_program_path(newroot, also[i], &c->err);
		if (r > 0)
			r = vi_usr_init_check(newroot, also[i], allowed, 2, &id, &c->err);
	}
	if (r == 0)
		r = vi_code_dirs_check(newroot, allowed, 2, &c->err);
	if (r == 0 && (stat(usr, &st) < 0 || st.st_dev != allowed[0]))
		r = vi_errno(&c->err, -EXDEV, "%s is not the verified /usr mapping", usr);
	if (r == 0)
		snprintf(c->what, sizeof(c->what), "through the layout %s (/usr: %.64s %s %.100s)",
			 vi_layout_name(cfg->layout), cfg->usr.name,
			 c->usr_mounted ? "mounted by systemd on" : "mounted here on", usr);
	return r;
}

int vi_dracut_layout_check(const struct vi_config *cfg, const char *newroot, const char *init,
			   const char *const *also, struct vi_dracut_check *c)
{
	return cfg->usr.enabled ? usr_check(cfg, newroot, init, also, c)
				: overlay_check(cfg, newroot, init, also, c);
}
