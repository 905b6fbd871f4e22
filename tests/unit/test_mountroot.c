// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/boot/mountroot.c: rootflags= splitting, the filesystem loader's calls, and the init check
 * on a temporary tree (symlinks resolved inside the root, not on the host). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "deny_syscall.h"
#include "helpers.h"
#include "mountroot.h"

static void test_rootflags(void **state)
{
	struct vi_error err = { "" };
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
	/* by key, whatever the value: the kernel reads "rw=1" in the mount data as "rw" */
	assert_int_equal(vi_rootflags_parse("rw=1", &flags, data, sizeof(data), &err), -EINVAL);
	assert_non_null(strstr(err.msg, "rootflags=rw=1: a verity root is read-only"));
	assert_int_equal(vi_rootflags_parse("noatime,rw=", &flags, data, sizeof(data), &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "rootflags=rw=: a verity root is read-only"));
	/* noexec: init reads fine but execve() would fail after the switch */
	assert_int_equal(vi_rootflags_parse("nodev,noexec", &flags, data, sizeof(data), &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "rootflags=noexec: init could not be executed"));
	assert_int_equal(vi_rootflags_parse("noexec=0", &flags, data, sizeof(data), &err), -EINVAL);
	/* a mount flag word with a value is not the flag, nor for the filesystem */
	assert_int_equal(vi_rootflags_parse("sync=1", &flags, data, sizeof(data), &err), -EINVAL);
	assert_non_null(strstr(err.msg, "rootflags=sync=1: a mount flag takes no value"));
	assert_int_equal(vi_rootflags_parse("ro=0", &flags, data, sizeof(data), &err), -EINVAL);
	/* keys that only start like one are the filesystem's */
	assert_int_equal(vi_rootflags_parse("rwx=1,noexecs", &flags, data, sizeof(data), &err), 0);
	assert_string_equal(data, "rwx=1,noexecs");
	assert_int_equal(flags, MS_RDONLY);
	/* too long for the data buffer: refused, not cut */
	assert_int_equal(vi_rootflags_parse("aaaaaaaaaa,bbbbbbbbbb", &flags, data, 12, &err), -EINVAL);
}

static char root[] = "/tmp/vi-mountroot-XXXXXX";

static void put(const char *rel, const char *text, mode_t mode)
{
	ut_put(root, rel, text, strlen(text), mode);
}

static int setup(void **state)
{
	char path[256];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/vi-mountroot-XXXXXX");   /* one tree per test */
	if (!mkdtemp(root))
		return -1;
	snprintf(path, sizeof(path), "%s/sbin", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/lib", root);
	mkdir(path, 0755);
	put("lib/real-init", "#!/bin/sh\necho hi\n", 0755);
	put("sbin/noexec", "data\n", 0644);
	put("sbin/nomagic", "data\n", 0755);
	put("sbin/empty", "", 0755);
	put("sbin/elf", "\x7f" "ELF\x02\x01\x01", 0755);
	/* absolute symlink: must resolve to <root>/lib/real-init, not the host's /lib */
	snprintf(path, sizeof(path), "%s/sbin/init", root);
	return symlink("/lib/real-init", path);
}

static int teardown(void **state)
{
	(void)state;
	return ut_rm_tree(root);
}

static void test_rootfstype_and_device_options(void **state)
{
	struct vi_error err = { "" };
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
	/* a multi-device f2fs opens the devices named in its superblock by path */
	assert_int_equal(vi_rootfstype_check("f2fs", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "rootfstype=f2fs is not a single-device filesystem"));
	for (size_t i = 0; vi_root_fs_types[i]; i++)
		assert_string_not_equal(vi_root_fs_types[i], "f2fs");   /* nor probed */
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
	/* mount(8) (the systemd flavour's sysroot.mount, dracut's mount of the root) gives the
	 * verified files other owners with X-mount.idmap=, whatever case the key is written in */
	assert_int_equal(vi_rootflags_parse("noatime,X-mount.idmap=u:0:1000:1", &flags, data,
					    sizeof(data), &err), -EPERM);
	assert_non_null(strstr(err.msg, "rootflags=X-mount.idmap=u:0:1000:1"));
	assert_non_null(strstr(err.msg, "owners"));
	assert_int_equal(vi_rootflags_parse("x-mount.IDMAP=/proc/1/ns/user", &flags, data,
					    sizeof(data), &err), -EPERM);
	assert_int_equal(vi_rootflags_parse("X-mount.subdir=a", &flags, data, sizeof(data), &err), 0);
	/* a key that only starts like one is fine */
	assert_int_equal(vi_rootflags_parse("devices_ok=1", &flags, data, sizeof(data), &err), 0);
	assert_string_equal(data, "devices_ok=1");
}

static void test_init_check(void **state)
{
	struct vi_error err = { "" };
	char path[256];
	struct stat st;

	(void)state;
	assert_int_equal(vi_init_check(root, "/sbin/init", 0, NULL, &err), 0);
	assert_int_equal(vi_init_check(root, "/sbin/missing", 0, NULL, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/sbin/missing"));
	assert_int_equal(vi_init_check(root, "/sbin/noexec", 0, NULL, &err), -ENOEXEC);
	assert_int_equal(vi_init_check(root, "/sbin", 0, NULL, &err), -ENOEXEC);
	assert_int_equal(vi_init_check(root, "sbin/init", 0, NULL, &err), -EINVAL);
	/* ".." cannot climb out of the root */
	snprintf(path, sizeof(path), "%s/sbin/escape", root);
	assert_int_equal(symlink("../../../../../../bin/sh", path), 0);
	assert_int_equal(vi_init_check(root, "/sbin/escape", 0, NULL, &err), -ENOENT);
	/* expected device: the root's own passes, any other is refused */
	assert_int_equal(stat(root, &st), 0);
	assert_int_equal(vi_init_check(root, "/sbin/init", st.st_dev, NULL, &err), 0);
	assert_int_equal(vi_init_check(root, "/sbin/init", makedev(254, 77), NULL, &err), -EXDEV);
	assert_non_null(strstr(err.msg, "is not the verified mapping (254:77)"));
}

/* Executable bits are not enough: execve() wants an ELF binary or a #! script, and would
 * refuse anything else only after the switch. */
static void test_init_format(void **state)
{
	struct vi_error err = { "" };

	(void)state;
	assert_int_equal(vi_init_check(root, "/sbin/elf", 0, NULL, &err), 0);
	assert_int_equal(vi_init_check(root, "/lib/real-init", 0, NULL, &err), 0);
	assert_int_equal(vi_init_check(root, "/sbin/nomagic", 0, NULL, &err), -ENOEXEC);
	assert_non_null(strstr(err.msg, "init /sbin/nomagic is neither an ELF binary nor a #! script"));
	assert_int_equal(vi_init_check(root, "/sbin/empty", 0, NULL, &err), -ENOEXEC);
	assert_non_null(strstr(err.msg, "neither an ELF binary"));
}

/* The file checked is named (dev, ino) and found again after the switch, or refused. */
static void test_init_identity(void **state)
{
	struct vi_error err = { "" };
	struct vi_file_id id = { 0, 0 };
	char path[256], other[256];
	struct stat st;

	(void)state;
	/* through the absolute link, the file it leads to inside the root */
	assert_int_equal(vi_init_check(root, "/sbin/init", 0, &id, &err), 0);
	snprintf(path, sizeof(path), "%s/lib/real-init", root);
	assert_int_equal(stat(path, &st), 0);
	assert_true(id.dev == st.st_dev && id.ino == st.st_ino);
	assert_int_equal(vi_init_same(path, &id, &err), 0);
	/* something else at the same path (as /run mounted over the root's would be) */
	snprintf(other, sizeof(other), "%s/lib/other-init", root);
	put("lib/other-init", "#!/bin/sh\n", 0755);
	assert_int_equal(rename(other, path), 0);
	assert_int_equal(vi_init_same(path, &id, &err), -ESTALE);
	assert_non_null(strstr(err.msg, "is not the file checked before it"));
	assert_int_equal(unlink(path), 0);
	assert_int_equal(vi_init_same(path, &id, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "not found after the switch"));
	put("lib/real-init", "#!/bin/sh\necho hi\n", 0755);
}

/* A root mounted noexec (not through rootflags=, which refuses it: mounted so by someone else)
 * is refused before the switch: a tmpfs in a private mount namespace. */
static int noexec_child(void)
{
	char dir[] = "/tmp/vi-noexec-XXXXXX", p[300];
	struct vi_error err = { "" };
	int fd, r, r2;

	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		fprintf(stderr, "skip: no private mount namespace: %s\n", strerror(errno));
		return SKIP_CHILD;
	}
	CHILD_CHECK(1, mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	CHILD_CHECK(2, mount("vitest", dir, "tmpfs", MS_NOEXEC, "mode=0755") == 0, "mount: %s",
		    strerror(errno));
	snprintf(p, sizeof(p), "%s/init", dir);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	CHILD_CHECK(3, fd >= 0 && write(fd, "#!/bin/sh\n", 10) == 10, "init: %s", strerror(errno));
	close(fd);
	r = vi_init_check(dir, "/init", 0, NULL, &err);
	CHILD_CHECK(4, r == -EACCES && strstr(err.msg, "init /init is on a filesystem mounted noexec"),
		    "noexec: got %d (%s)", r, err.msg);
	/* the same file, executable: passes */
	CHILD_CHECK(5, mount(NULL, dir, NULL, MS_REMOUNT, "mode=0755") == 0, "remount: %s",
		    strerror(errno));
	r2 = vi_init_check(dir, "/init", 0, NULL, &err);
	umount2(dir, MNT_DETACH);
	rmdir(dir);
	CHILD_CHECK(6, r2 == 0, "exec allowed: got %d (%s)", r2, err.msg);
	return 0;
}

static void test_init_noexec_mount(void **state)
{
	(void)state;
	ut_run_child(noexec_child);
}

/* A filesystem loader that records the types it is asked for: "a,b,". */
static void record_type(void *ctx, const char *type)
{
	char *seen = ctx;

	snprintf(seen + strlen(seen), 64 - strlen(seen), "%s,", type);
}

/* The loader is asked for each type of a rootfstype= list right before that type's mount
 * attempt, and for the probed type; never for a refused list. A regular file as the source:
 * every mount fails (ENOTBLK; EPERM without privilege), after the loader was asked. */
static void test_fs_loader_asked_per_type(void **state)
{
	char seen[64] = "", src[256], target[256], sb[2048] = { 0 };
	const struct vi_fs_loader rec = { record_type, seen }, none = { NULL, NULL };
	struct vi_error err = { "" };
	char type[32];
	int fd;

	(void)state;
	snprintf(src, sizeof(src), "%s/disk", root);
	snprintf(target, sizeof(target), "%s/newroot", root);
	/* an ext2 superblock (1024 bytes in: the magic 0xEF53 at 0x38, no feature flags), for
	 * the probe */
	sb[1024 + 0x38] = 0x53;
	sb[1024 + 0x39] = (char)0xef;
	fd = open(src, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, sb, sizeof(sb)), (ssize_t)sizeof(sb));
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	close(fd);

	assert_true(vi_mount_root(src, 0, target, "ext4,squashfs,erofs", "", &rec, type,
				  sizeof(type), &err) < 0);
	assert_string_equal(seen, "ext4,squashfs,erofs,");
	assert_string_equal(type, "erofs");   /* the last one tried */
	assert_non_null(strstr(err.msg, "(erofs)"));
	/* the probed type */
	seen[0] = '\0';
	assert_true(vi_mount_root(src, 0, target, "", "", &rec, type, sizeof(type), &err) < 0);
	assert_string_equal(seen, "ext2,");
	/* refused before any mount: no loading either */
	seen[0] = '\0';
	assert_int_equal(vi_mount_root(src, 0, target, "ext4,btrfs", "", &rec, type, sizeof(type),
				       &err), -EINVAL);
	assert_int_equal(vi_mount_root(src, 0, target, "ext4", "rw", &rec, type, sizeof(type),
				       &err), -EINVAL);
	assert_string_equal(seen, "");
	/* no loader (the dracut runtime), or one without a function: the mounts as before */
	assert_true(vi_mount_root(src, 0, target, "squashfs", "", NULL, type, sizeof(type),
				  &err) < 0);
	assert_true(vi_mount_root(src, 0, target, "squashfs", "", &none, type, sizeof(type),
				  &err) < 0);
	assert_non_null(strstr(err.msg, "(squashfs)"));
}

static char dirs_root[] = "/tmp/vi-dirs-XXXXXX";

static void dirs_mk(const char *rel, const char *link_to)
{
	char p[300];

	snprintf(p, sizeof(p), "%s/%s", dirs_root, rel);
	if (link_to)
		assert_int_equal(symlink(link_to, p), 0);
	else
		assert_int_equal(mkdir(p, 0755), 0);
}

static void dirs_rm(const char *rel)
{
	char p[300];

	snprintf(p, sizeof(p), "%s/%s", dirs_root, rel);
	assert_int_equal(unlink(p), 0);
}

static int dirs_setup(void **state)
{
	(void)state;
	snprintf(dirs_root, sizeof(dirs_root), "/tmp/vi-dirs-XXXXXX");
	if (!mkdtemp(dirs_root))
		return -1;
	dirs_mk("usr", NULL);
	dirs_mk("usr/lib", NULL);
	dirs_mk("usr/sbin", NULL);
	dirs_mk("lib", "usr/lib");   /* merged /usr: relative link */
	return 0;
}

static int dirs_teardown(void **state)
{
	(void)state;
	return ut_rm_tree(dirs_root);
}

/* The walk as PID 1 resolves a path after the switch: a path that passes through the root's
 * /dev, /proc, /sys or /run (where the initramfs's filesystems come) is 1 whether or not the
 * root has the file there now; a dangling link elsewhere is 0, as is a path that resolves. */
static void test_path_enters_api_dir(void **state)
{
	int fd;

	(void)state;
	dirs_mk("run", NULL);
	dirs_mk("usr/run", NULL);
	dirs_mk("usr/lib/systemd", NULL);
	dirs_mk("usr/lib/systemd/systemd", "/run/sd/systemd");   /* dangling now */
	dirs_mk("usr/lib/up", "../../../../../dev");              /* ".." stops at the root */
	dirs_mk("usr/sbin/gone", "/nowhere/at/all");              /* dangling, harmless */
	dirs_mk("usr/sbin/loop", "loop");
	dirs_mk("usr/sbin/proc", "/usr/run");                     /* "proc" below the root */
	fd = open(dirs_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(vi_path_enters_api_dir(fd, "/lib/systemd/systemd"), 1);
	assert_int_equal(vi_path_enters_api_dir(fd, "/usr/lib/systemd/systemd"), 1);
	assert_int_equal(vi_path_enters_api_dir(fd, "/usr/lib/up/x"), 1);
	assert_int_equal(vi_path_enters_api_dir(fd, "/usr/lib/../../sys/x"), 1);
	assert_int_equal(vi_path_enters_api_dir(fd, "/./proc"), 1);
	assert_int_equal(vi_path_enters_api_dir(fd, "/usr/sbin/gone"), 0);
	assert_int_equal(vi_path_enters_api_dir(fd, "/usr/sbin/proc/x"), 0);
	assert_int_equal(vi_path_enters_api_dir(fd, "/usr/missing/run"), 0);
	assert_int_equal(vi_path_enters_api_dir(fd, "/lib/systemd/systemd/.."), 1);
	assert_int_equal(vi_path_enters_api_dir(fd, "/usr/sbin"), 0);
	assert_int_equal(vi_path_enters_api_dir(fd, "/"), 0);
	assert_int_equal(vi_path_enters_api_dir(fd, "/usr/sbin/loop"), -ELOOP);
	close(fd);
}

/* Only a directory that does not exist is "absent": any other failure to open one leaves the
 * question where it lives unanswered, and is refused. */
static void test_root_dirs(void **state)
{
	struct vi_error err = { "" };
	struct stat st;

	(void)state;
	assert_int_equal(stat(dirs_root, &st), 0);
	/* /bin, /sbin, /lib64 absent: fine */
	assert_int_equal(vi_root_dirs_check(dirs_root, st.st_dev, &err), 0);
	assert_int_equal(vi_root_dirs_check(dirs_root, makedev(254, 77), &err), -EXDEV);
	assert_non_null(strstr(err.msg, "/usr is on device"));
	/* a symlink loop was taken for "absent" */
	dirs_mk("bin", "bin");
	assert_int_equal(vi_root_dirs_check(dirs_root, st.st_dev, &err), -ELOOP);
	assert_non_null(strstr(err.msg, "cannot check /bin in the new root"));
	dirs_rm("bin");
	/* a dangling link: nothing runs from it */
	dirs_mk("lib64", "usr/lib64");
	assert_int_equal(vi_root_dirs_check(dirs_root, st.st_dev, &err), 0);
	dirs_rm("lib64");
}

/* With a verified /usr the code directories may be on either verified device, no other. */
static void test_code_dirs_two_devices(void **state)
{
	struct vi_error err = { "" };
	struct stat st;
	dev_t both[2] = { makedev(254, 78), 0 }, none[2] = { makedev(254, 78), makedev(254, 79) };

	(void)state;
	assert_int_equal(stat(dirs_root, &st), 0);
	both[1] = st.st_dev;
	assert_int_equal(vi_code_dirs_check(dirs_root, both, 2, &err), 0);
	assert_int_equal(vi_code_dirs_check(dirs_root, none, 2, &err), -EXDEV);
	assert_non_null(strstr(err.msg, "or the verified /usr"));
	/* an entry 0 allows nothing */
	both[1] = 0;
	assert_int_equal(vi_code_dirs_check(dirs_root, both, 2, &err), -EXDEV);
}

/* Kernels before 5.6 have no openat2 (ENOSYS): the checks fall back to openat, where an absolute
 * link is resolved from the caller's root. Relative links still work; a link that leads nowhere
 * from here is not taken for "absent". */
static int no_openat2_child(void)
{
	struct vi_error err = { "" };
	struct stat st;
	int r;

	if (deny_syscall(SYS_openat2) < 0) {
		fprintf(stderr, "skip: no seccomp\n");
		return SKIP_CHILD;
	}
	CHILD_CHECK(1, stat(dirs_root, &st) == 0, "stat: %s", strerror(errno));
	r = vi_root_dirs_check(dirs_root, st.st_dev, &err);
	CHILD_CHECK(2, r == 0, "relative /lib -> usr/lib: got %d (%s)", r, err.msg);
	r = vi_root_dirs_check(dirs_root, makedev(254, 77), &err);
	CHILD_CHECK(3, r == -EXDEV, "other device: got %d (%s)", r, err.msg);
	dirs_mk("sbin", "/vi-test-not-on-this-host/usr/sbin");
	r = vi_root_dirs_check(dirs_root, st.st_dev, &err);
	CHILD_CHECK(4, r == -EOPNOTSUPP && strstr(err.msg, "no openat2"),
		    "absolute /sbin link: got %d (%s)", r, err.msg);
	dirs_rm("sbin");
	dirs_mk("bin", "bin");
	r = vi_root_dirs_check(dirs_root, st.st_dev, &err);
	CHILD_CHECK(5, r == -ELOOP, "loop: got %d (%s)", r, err.msg);
	dirs_rm("bin");
	return 0;
}

static void test_root_dirs_without_openat2(void **state)
{
	(void)state;
	ut_run_child(no_openat2_child);
}

/* The init check's own fallback without openat2: a file named directly is found and read. */
static int init_no_openat2_child(void)
{
	struct vi_error err = { "" };
	int r;

	if (deny_syscall(SYS_openat2) < 0) {
		fprintf(stderr, "skip: no seccomp\n");
		return SKIP_CHILD;
	}
	r = vi_init_check(root, "/lib/real-init", 0, NULL, &err);
	CHILD_CHECK(1, r == 0, "named directly: got %d (%s)", r, err.msg);
	r = vi_init_check(root, "/sbin/nomagic", 0, NULL, &err);
	CHILD_CHECK(2, r == -ENOEXEC, "no format: got %d (%s)", r, err.msg);
	return 0;
}

static void test_init_check_without_openat2(void **state)
{
	(void)state;
	ut_run_child(init_no_openat2_child);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rootflags),
		cmocka_unit_test(test_rootfstype_and_device_options),
		cmocka_unit_test_setup_teardown(test_init_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_format, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_check_without_openat2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fs_loader_asked_per_type, setup, teardown),
		cmocka_unit_test(test_init_noexec_mount),
		cmocka_unit_test_setup_teardown(test_code_dirs_two_devices, dirs_setup, dirs_teardown),
		cmocka_unit_test_setup_teardown(test_root_dirs, dirs_setup, dirs_teardown),
		cmocka_unit_test_setup_teardown(test_path_enters_api_dir, dirs_setup, dirs_teardown),
		cmocka_unit_test_setup_teardown(test_root_dirs_without_openat2, dirs_setup,
						dirs_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
