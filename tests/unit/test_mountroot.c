// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/mountroot.c: rootflags= splitting, and the init check on a temporary tree (symlinks
 * resolved inside the root, not on the host). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "mountroot.h"

static void test_rootflags(void **state)
{
	struct verity_err err = { "" };
	unsigned long flags = 0;
	char data[64];

	(void)state;
	assert_int_equal(vi_rootflags_parse("noatime,errors=panic,nodev,commit=5", &flags, data,
					    sizeof(data), &err), 0);
	assert_true(flags & MS_RDONLY);
	assert_true(flags & MS_NOATIME);
	assert_true(flags & MS_NODEV);
	assert_string_equal(data, "errors=panic,commit=5");
	assert_int_equal(vi_rootflags_parse("", &flags, data, sizeof(data), &err), 0);
	assert_int_equal(flags, MS_RDONLY);
	assert_string_equal(data, "");
	assert_int_equal(vi_rootflags_parse(NULL, &flags, data, sizeof(data), &err), 0);
	/* a verity root is never writable */
	assert_int_equal(vi_rootflags_parse("noatime,rw", &flags, data, sizeof(data), &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "read-only"));
	/* too long for the data buffer: refused, not cut */
	assert_int_equal(vi_rootflags_parse("aaaaaaaaaa,bbbbbbbbbb", &flags, data, 12, &err), -EINVAL);
}

static char root[] = "/tmp/vi-mountroot-XXXXXX";

static void put(const char *rel, const char *text, mode_t mode)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	chmod(path, mode);
}

static int setup(void **state)
{
	char path[256];

	(void)state;
	if (!mkdtemp(root))
		return -1;
	snprintf(path, sizeof(path), "%s/sbin", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/lib", root);
	mkdir(path, 0755);
	put("lib/real-init", "#!/bin/sh\necho hi\n", 0755);
	put("sbin/noexec", "data\n", 0644);
	/* absolute symlink: must resolve to <root>/lib/real-init, not the host's /lib */
	snprintf(path, sizeof(path), "%s/sbin/init", root);
	return symlink("/lib/real-init", path);
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_rootfstype_and_device_options(void **state)
{
	struct verity_err err = { "" };
	unsigned long flags;
	char data[64];

	(void)state;
	assert_int_equal(vi_rootfstype_check("ext4", &err), 0);
	assert_int_equal(vi_rootfstype_check("squashfs,erofs,ext4", &err), 0);
	assert_int_equal(vi_rootfstype_check("", &err), 0);
	/* not backed by the mapping, or able to assemble other devices */
	assert_int_equal(vi_rootfstype_check("tmpfs", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "rootfstype=tmpfs is not a single-device filesystem"));
	assert_int_equal(vi_rootfstype_check("ext4,btrfs", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "rootfstype=btrfs"));
	assert_int_equal(vi_rootfstype_check("nfs", &err), -EINVAL);
	assert_int_equal(vi_rootfstype_check("ext4,", &err), -EINVAL);
	assert_int_equal(vi_rootfstype_check(",ext4", &err), -EINVAL);
	assert_int_equal(vi_rootfstype_check("ext", &err), -EINVAL);
	assert_int_equal(vi_rootfstype_check("ext44", &err), -EINVAL);
	/* a second, unverified device through the filesystem's options */
	assert_int_equal(vi_rootflags_parse("logdev=/dev/sdb", &flags, data, sizeof(data), &err),
			 -EPERM);
	assert_non_null(strstr(err.msg, "names another device"));
	assert_int_equal(vi_rootflags_parse("noatime,journal_path=/dev/x", &flags, data,
					    sizeof(data), &err), -EPERM);
	assert_int_equal(vi_rootflags_parse("device=/dev/vdc", &flags, data, sizeof(data), &err),
			 -EPERM);
	/* a key that only starts like one is fine */
	assert_int_equal(vi_rootflags_parse("devices_ok=1", &flags, data, sizeof(data), &err), 0);
	assert_string_equal(data, "devices_ok=1");
}

static void test_init_check(void **state)
{
	struct verity_err err = { "" };
	char path[256];
	struct stat st;

	(void)state;
	assert_int_equal(vi_init_check(root, "/sbin/init", 0, &err), 0);
	assert_int_equal(vi_init_check(root, "/sbin/missing", 0, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/sbin/missing"));
	assert_int_equal(vi_init_check(root, "/sbin/noexec", 0, &err), -ENOEXEC);
	assert_int_equal(vi_init_check(root, "/sbin", 0, &err), -ENOEXEC);
	assert_int_equal(vi_init_check(root, "sbin/init", 0, &err), -EINVAL);
	/* ".." cannot climb out of the root */
	snprintf(path, sizeof(path), "%s/sbin/escape", root);
	assert_int_equal(symlink("../../../../../../bin/sh", path), 0);
	assert_int_equal(vi_init_check(root, "/sbin/escape", 0, &err), -ENOENT);
	/* expected device: the root's own passes, any other is refused */
	assert_int_equal(stat(root, &st), 0);
	assert_int_equal(vi_init_check(root, "/sbin/init", st.st_dev, &err), 0);
	assert_int_equal(vi_init_check(root, "/sbin/init", makedev(254, 77), &err), -EXDEV);
	assert_non_null(strstr(err.msg, "is not the verified mapping (254:77)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rootflags),
		cmocka_unit_test(test_rootfstype_and_device_options),
		cmocka_unit_test_setup_teardown(test_init_check, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
