// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/boot/overlay.c: the tmpfs overlay over a "verified" root (a tmpfs standing in for the
 * mapping, in a private mount namespace), and the proof that init read through it comes from the
 * lower layer: refused once anything is in the upper layer. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "helpers.h"
#include "overlay.h"

static bool fs_is(const char *path, long magic)
{
	struct statfs sfs;

	return statfs(path, &sfs) == 0 && sfs.f_type == magic;
}

static int put(const char *root, const char *rel, const char *text, mode_t mode)
{
	char p[300];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	return ut_write_file(p, text, strlen(text), mode);
}

/* base/root: the "verified" root (merged /usr, /sbin/init a symlink as on Debian);
 * base/ovl: the overlay's tmpfs. */
static int overlay_child(void)
{
	char base[] = "/tmp/vi-overlay-XXXXXX", root[64], ovl[64], p[128];
	struct vi_error err = { "" };
	struct vi_file_id lower, id;
	struct stat st, bst;
	dev_t dev;
	int r, lowerfd;

	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		fprintf(stderr, "skip: no private mount namespace: %s\n", strerror(errno));
		return SKIP_CHILD;
	}
	CHILD_CHECK(1, mkdtemp(base), "mkdtemp: %s", strerror(errno));
	CHILD_CHECK(2, mount("vitest", base, "tmpfs", 0, "mode=0755") == 0, "tmpfs: %s",
		    strerror(errno));
	snprintf(root, sizeof(root), "%s/root", base);
	snprintf(ovl, sizeof(ovl), "%s/run/verity-init/overlay", base);
	CHILD_CHECK(3, mkdir(root, 0755) == 0 && mount("lower", root, "tmpfs", 0, "mode=0755") == 0,
		    "lower: %s", strerror(errno));
	snprintf(p, sizeof(p), "%s/usr", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/usr/lib", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sbin", root);
	mkdir(p, 0755);
	CHILD_CHECK(4, put(root, "usr/lib/init", "#!/bin/sh\necho verified\n", 0755) == 0, "put");
	snprintf(p, sizeof(p), "%s/sbin/init", root);
	CHILD_CHECK(5, symlink("/usr/lib/init", p) == 0, "symlink: %s", strerror(errno));
	CHILD_CHECK(6, stat(root, &st) == 0, "stat");
	dev = st.st_dev;
	r = vi_init_check(root, "/sbin/init", dev, &lower, &err);
	CHILD_CHECK(7, r == 0, "lower check: %d %s", r, err.msg);

	/* overlayfs's option separators never reach the mount */
	r = vi_overlay_mount("/tmp/a,b", ovl, &err);
	CHILD_CHECK(8, r == -EINVAL, "comma: %d %s", r, err.msg);

	lowerfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHILD_CHECK(9, lowerfd >= 0, "open root");
	r = vi_overlay_mount(root, ovl, &err);
	if (r == -ENODEV) {
		fprintf(stderr, "skip: no overlayfs here: %s\n", err.msg);
		return SKIP_CHILD;
	}
	CHILD_CHECK(10, r == 0, "overlay mount: %d %s", r, err.msg);
	CHILD_CHECK(11, fs_is(root, OVERLAYFS_SUPER_MAGIC) && fs_is(ovl, TMPFS_MAGIC),
		    "not an overlay over a tmpfs");
	r = vi_overlay_init_check(root, ovl, lowerfd, "/sbin/init", dev, &lower, &id, &err);
	CHILD_CHECK(12, r == 0, "overlay init check: %d %s", r, err.msg);
	CHILD_CHECK(13, id.ino == lower.ino, "inode %llu, lower %llu", (unsigned long long)id.ino,
		    (unsigned long long)lower.ino);
	/* the file checked is what the booted system's path resolves to */
	snprintf(p, sizeof(p), "%s/usr/lib/init", root);
	CHILD_CHECK(14, vi_init_same(p, &id, &err) == 0, "init_same: %s", err.msg);
	/* another file than the one checked on the verified root (written into the lower layer
	 * beneath the overlay, so that the upper layer stays empty) */
	r = openat(lowerfd, "usr/lib/other", O_WRONLY | O_CREAT | O_CLOEXEC, 0755);
	CHILD_CHECK(15, r >= 0 && write(r, "#!/bin/sh\n", 10) == 10, "other: %s", strerror(errno));
	close(r);
	r = vi_overlay_init_check(root, ovl, lowerfd, "/usr/lib/other", dev, &lower, &id, &err);
	CHILD_CHECK(16, r == -EXDEV && strstr(err.msg, "is not the file checked on the verified "
						  "root"), "another file: %d %s", r, err.msg);

	/* a file in the upper layer (written through the overlay: copied up): refused */
	CHILD_CHECK(17, put(root, "usr/lib/init", "#!/bin/sh\necho changed\n", 0755) == 0, "write");
	r = vi_overlay_init_check(root, ovl, lowerfd, "/sbin/init", dev, &lower, &id, &err);
	CHILD_CHECK(18, r == -ENOTEMPTY && strstr(err.msg, "upper layer") &&
			strstr(err.msg, "is not empty"), "upper not empty: %d %s", r, err.msg);

	/* undone: the verified root is on top again, the overlay's tmpfs gone */
	vi_overlay_unmount(root, ovl);
	CHILD_CHECK(19, fs_is(root, TMPFS_MAGIC) && stat(root, &st) == 0 && st.st_dev == dev,
		    "root after unmount");
	CHILD_CHECK(20, stat(ovl, &st) == 0 && stat(base, &bst) == 0 && st.st_dev == bst.st_dev,
		    "the overlay's tmpfs is still mounted");
	r = vi_overlay_init_check(root, ovl, lowerfd, "/sbin/init", dev, &lower, &id, &err);
	CHILD_CHECK(21, r == -EXDEV && strstr(err.msg, "is not the overlay"), "no overlay: %d %s",
		    r, err.msg);
	close(lowerfd);
	umount2(base, MNT_DETACH);
	rmdir(base);
	return 0;
}

static void test_overlay(void **state)
{
	(void)state;
	ut_run_child(overlay_child);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
