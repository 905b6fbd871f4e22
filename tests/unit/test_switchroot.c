// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/switchroot.c: the initramfs cleanup deletes a tree (files, symlinks, nested directories)
 * without following symlinks out of it; vi_switch_root refuses before touching anything when
 * its checks fail. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <cmocka.h>

#include "switchroot.h"

static void mk(const char *base, const char *rel, bool dir)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", base, rel);
	if (dir) {
		assert_int_equal(mkdir(p, 0755), 0);
	} else {
		int fd = open(p, O_WRONLY | O_CREAT, 0644);

		assert_true(fd >= 0);
		close(fd);
	}
}

static void test_rm_tree(void **state)
{
	char top[] = "/tmp/vi-rmtree-XXXXXX", keep[] = "/tmp/vi-keep-XXXXXX", p[512];
	struct stat st;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(top));
	assert_non_null(mkdtemp(keep));
	mk(keep, "precious", false);
	mk(top, "a", true);
	mk(top, "a/b", true);
	mk(top, "a/b/file", false);
	mk(top, "init", false);
	snprintf(p, sizeof(p), "%s/a/link-out", top);
	assert_int_equal(symlink(keep, p), 0); /* must be unlinked, not followed */
	fd = open(top, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(vi_rm_tree(fd, st.st_dev), 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/a", top);
	assert_int_equal(access(p, F_OK), -1);
	snprintf(p, sizeof(p), "%s/init", top);
	assert_int_equal(access(p, F_OK), -1);
	assert_int_equal(rmdir(top), 0); /* empty now */
	snprintf(p, sizeof(p), "%s/precious", keep);
	assert_int_equal(access(p, F_OK), 0);
	unlink(p);
	rmdir(keep);
}

/* Another device's entries are skipped: with a devno that matches nothing, nothing goes. */
static void test_rm_tree_other_device(void **state)
{
	char top[] = "/tmp/vi-rmtree-XXXXXX", p[512];
	int fd;

	(void)state;
	assert_non_null(mkdtemp(top));
	mk(top, "f", false);
	fd = open(top, O_RDONLY | O_DIRECTORY);
	assert_int_equal(vi_rm_tree(fd, (dev_t)-1), 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/f", top);
	assert_int_equal(access(p, F_OK), 0);
	unlink(p);
	rmdir(top);
}

static void test_switch_root_checks(void **state)
{
	struct verity_err err = { "" };
	char dir[] = "vi-newroot-XXXXXX";
	struct statfs sfs;

	(void)state;
	/* Never run the real thing: on a host whose / is tmpfs the checks could pass. */
	assert_int_equal(statfs("/", &sfs), 0);
	if (sfs.f_type == (__fsword_t)TMPFS_MAGIC || sfs.f_type == (__fsword_t)RAMFS_MAGIC)
		skip();
	assert_non_null(mkdtemp(dir));
	/* a plain directory (same filesystem as its parent), or / not an initramfs */
	assert_int_equal(vi_switch_root(dir, &err), -EINVAL);
	assert_true(strstr(err.msg, "not a mounted filesystem") ||
		    strstr(err.msg, "not an initramfs"));
	assert_int_equal(vi_switch_root("/nonexistent-newroot", &err), -ENOENT);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rm_tree),
		cmocka_unit_test(test_rm_tree_other_device),
		cmocka_unit_test(test_switch_root_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
