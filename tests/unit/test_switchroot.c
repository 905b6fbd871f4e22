// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/boot/switchroot.c: the initramfs cleanup deletes a tree (files, symlinks, nested directories)
 * without following symlinks out of it; vi_switch_root refuses before touching anything when
 * its checks fail, and says so; every descriptor from 3 up is made close-on-exec, also without
 * close_range(2) and without /proc. */
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
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "deny_syscall.h"
#include "helpers.h"
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

/* A directory on another device (a mount point) is skipped with all it holds; what is not a
 * directory is on dirfd's own filesystem (or a mount point that unlinkat refuses) and goes
 * without a stat, as in util-linux switch_root. */
static void test_rm_tree_other_device(void **state)
{
	char top[] = "/tmp/vi-rmtree-XXXXXX", p[512];
	int fd;

	(void)state;
	assert_non_null(mkdtemp(top));
	mk(top, "f", false);
	mk(top, "d", true);
	mk(top, "d/kept", false);
	fd = open(top, O_RDONLY | O_DIRECTORY);
	assert_int_equal(vi_rm_tree(fd, (dev_t)-1), 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/d/kept", top);
	assert_int_equal(access(p, F_OK), 0);
	unlink(p);
	snprintf(p, sizeof(p), "%s/d", top);
	assert_int_equal(rmdir(p), 0);
	snprintf(p, sizeof(p), "%s/f", top);
	assert_int_equal(access(p, F_OK), -1);
	rmdir(top);
}

static void test_switch_root_checks(void **state)
{
	struct vi_error err = { "" };
	struct vi_switch_result res = { true, { "x" } };
	char dir[] = "vi-newroot-XXXXXX";
	struct statfs sfs;

	(void)state;
	/* Never run the real thing: on a host whose / is tmpfs the checks could pass. */
	assert_int_equal(statfs("/", &sfs), 0);
	if (sfs.f_type == (__fsword_t)TMPFS_MAGIC || sfs.f_type == (__fsword_t)RAMFS_MAGIC)
		skip();
	assert_non_null(mkdtemp(dir));
	/* a plain directory (same filesystem as its parent), or / not an initramfs: refused
	 * before anything changed, which the caller must know to clean up and fall back */
	assert_int_equal(vi_switch_root(dir, &res, &err), -EINVAL);
	assert_true(strstr(err.msg, "not a mounted filesystem") ||
		    strstr(err.msg, "not an initramfs"));
	assert_false(res.committed);
	assert_string_equal(res.warning.msg, "");
	res.committed = true;
	assert_int_equal(vi_switch_root("/nonexistent-newroot", &res, &err), -ENOENT);
	assert_false(res.committed);
	rmdir(dir);
}

static bool cloexec(int fd)
{
	int flags = fcntl(fd, F_GETFD);

	return flags >= 0 && (flags & FD_CLOEXEC);
}

/* Three descriptors without O_CLOEXEC (as libdevmapper's control fd), one with a gap below it;
 * after vi_fds_cloexec(3) all are close-on-exec, 0-2 untouched, and still open. */
static int cloexec_fixture(int fds[3])
{
	fds[0] = open("/dev/null", O_RDONLY);
	fds[1] = open("/dev/null", O_RDONLY);
	fds[2] = fds[1] < 0 ? -1 : dup2(fds[1], 200);
	return fds[0] < 3 || fds[1] < 3 || fds[2] != 200 ? -1 : 0;
}

static int cloexec_verify(const int fds[3])
{
	for (int i = 0; i < 3; i++)
		if (!cloexec(fds[i]) || fcntl(fds[i], F_GETFL) < 0)
			return i + 10;
	return cloexec(2) ? 20 : 0;   /* stderr stays inheritable */
}

static void test_fds_cloexec(void **state)
{
	struct vi_error err = { "" };
	int fds[3];

	(void)state;
	assert_int_equal(cloexec_fixture(fds), 0);
	assert_false(cloexec(fds[0]));
	assert_false(cloexec(2));
	assert_int_equal(vi_fds_cloexec(3, &err), 0);
	assert_int_equal(cloexec_verify(fds), 0);
	assert_false(cloexec(2));
	for (int i = 0; i < 3; i++)
		close(fds[i]);
}

/* Kernels before 5.11 (no close_range, here denied by seccomp): /proc/self/fd, or without /proc
 * (a tmpfs over it in a private mount namespace) every descriptor up to the limit. */
static int no_close_range_child(bool hide_proc)
{
	struct vi_error err = { "" };
	int fds[3], r;

	if (hide_proc && (unshare(CLONE_NEWNS) < 0 ||
			  mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
			  mount("vitest", "/proc", "tmpfs", 0, NULL) < 0)) {
		fprintf(stderr, "skip: cannot hide /proc: %s\n", strerror(errno));
		return SKIP_CHILD;
	}
	if (deny_syscall(SYS_close_range) < 0) {
		fprintf(stderr, "skip: no seccomp\n");
		return SKIP_CHILD;
	}
	if (cloexec_fixture(fds) < 0)
		return 1;
	if (syscall(SYS_close_range, 3, 3, 0) == 0 || errno != ENOSYS)
		return 2;   /* the filter did not take */
	r = vi_fds_cloexec(3, &err);
	if (r < 0) {
		fprintf(stderr, "vi_fds_cloexec: %s\n", err.msg);
		return 3;
	}
	return cloexec_verify(fds);
}

static int no_close_range_with_proc(void)
{
	return no_close_range_child(false);
}

static int no_close_range_nor_proc(void)
{
	return no_close_range_child(true);
}

static void test_fds_cloexec_without_close_range(void **state)
{
	(void)state;
	ut_run_child(no_close_range_with_proc);
}

static void test_fds_cloexec_without_close_range_or_proc(void **state)
{
	(void)state;
	ut_run_child(no_close_range_nor_proc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rm_tree),
		cmocka_unit_test(test_rm_tree_other_device),
		cmocka_unit_test(test_switch_root_checks),
		cmocka_unit_test(test_fds_cloexec),
		cmocka_unit_test(test_fds_cloexec_without_close_range),
		cmocka_unit_test(test_fds_cloexec_without_close_range_or_proc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
