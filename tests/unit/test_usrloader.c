// SPDX-License-Identifier: LGPL-2.1-or-later
/* Under an unverified root, what runs before init's first instruction must be on the verified
 * /usr (lib/boot/usrloader.c): a tree in /tmp stands for the root, a tmpfs on its usr for the
 * /usr mapping (a private mount namespace: the test needs root, else it is skipped). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "deny_syscall.h"
#include "helpers.h"
#include "loader_fixtures.h"
#include "usrmount.h"

static char root[] = "/tmp/vi-usrloader-XXXXXX";
static dev_t usr_dev;
static bool ready;

static void path_of(char *out, size_t size, const char *rel)
{
	snprintf(out, size, "%s/%s", root, rel);
}

/* rel's old file or link removed first: a link is replaced, not written through */
static void put(const char *rel, const void *data, size_t len, mode_t mode)
{
	char p[300];

	path_of(p, sizeof(p), rel);
	unlink(p);
	ut_put(root, rel, data, len, mode);
}

static void put_elf(const char *rel, uint16_t type, const char *interp)
{
	unsigned char b[4096];

	put(rel, b, fx_elf(b, type, interp), 0755);
}

/* A shared object with DT_SONAME soname, or none (NULL): a program loader, by its content. */
static void put_so(const char *rel, const char *soname)
{
	unsigned char b[4096];

	put(rel, b, fx_elf_so(b, soname), 0755);
}

static void link_to(const char *rel, const char *target)
{
	char p[300];

	path_of(p, sizeof(p), rel);
	unlink(p);
	assert_int_equal(symlink(target, p), 0);
}

static void remove_path(const char *rel)
{
	char p[300];

	path_of(p, sizeof(p), rel);
	if (unlink(p) < 0)
		rmdir(p);
}

static void mkdir_rel(const char *rel)
{
	char p[300];

	path_of(p, sizeof(p), rel);
	assert_true(mkdir(p, 0755) == 0 || errno == EEXIST);
}

static void put_cache(const char *const *name, const char *const *path, uint32_t n)
{
	unsigned char b[2048];

	put("etc/ld.so.cache", b, fx_cache_new(b, sizeof(b), name, path, n), 0644);
}

/* A merged-/usr system: /bin, /sbin, /lib, /lib64 -> usr/..., init an ELF program whose loader
 * is /lib64/ld-linux-x86-64.so.2 (glibc's, by its DT_SONAME), a loader cache naming libc on /usr
 * and a library gone. */
static void good_tree(void)
{
	static const char *const names[] = { "libc.so.6", "libgone.so.1" };
	static const char *const paths[] = { "/lib/x86_64-linux-gnu/libc.so.6",
					     "/usr/lib/libgone.so.1" };
	static const char *const dirs[] = { "usr/bin", "usr/sbin", "usr/lib", "usr/lib64",
					    "usr/lib/x86_64-linux-gnu", "usr/lib/systemd", "etc" };

	char cmd[400];

	/* a fresh tree: what a failed test left behind is gone */
	snprintf(cmd, sizeof(cmd), "cd '%s' && rm -rf usr/* bin sbin lib lib32 lib64 libx32 etc "
		 "etc.real run var", root);
	assert_int_equal(system(cmd), 0);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		mkdir_rel(dirs[i]);
	for (size_t i = 0; i < 4; i++)
		link_to(dirs[i] + 4, dirs[i]);
	put_elf("usr/lib/systemd/systemd", ET_DYN, "/lib64/ld-linux-x86-64.so.2");
	put_so("usr/lib64/ld-linux-x86-64.so.2", "ld-linux-x86-64.so.2");
	put_elf("usr/lib/x86_64-linux-gnu/libc.so.6", ET_DYN, NULL);
	put("usr/bin/sh", "#!/lib64/ld-linux-x86-64.so.2\n", 30, 0755);
	link_to("usr/sbin/init", "../lib/systemd/systemd");
	put_cache(names, paths, 2);
}

static int setup(void **state)
{
	char p[300];
	struct stat st;

	(void)state;
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		fprintf(stderr, "skip: no private mount namespace: %s\n", strerror(errno));
		return 0;
	}
	if (!mkdtemp(root))
		return -1;
	path_of(p, sizeof(p), "usr");
	if (mkdir(p, 0755) < 0 || mount("vitest", p, "tmpfs", 0, "mode=0755") < 0 ||
	    stat(p, &st) < 0)
		return -1;
	usr_dev = st.st_dev;
	ready = true;
	return 0;
}

static int teardown(void **state)
{
	char cmd[400];

	(void)state;
	if (!ready)
		return 0;
	path_of(cmd, sizeof(cmd), "usr");
	umount2(cmd, MNT_DETACH);
	return ut_rm_tree(root);
}

/* the check's result and reason: want_r, and want inside the reason */
static void check(const char *init, int want_r, const char *want)
{
	struct vi_error err = { "" };
	int r = vi_usr_loader_check(root, init, usr_dev, &err);

	if (r != want_r)
		fail_msg("%s: got %d (%s), want %d", init, r, err.msg, want_r);
	if (want && !strstr(err.msg, want))
		fail_msg("%s: reason '%s' lacks '%s'", init, err.msg, want);
}

static void test_good_root(void **state)
{
	(void)state;
	if (!ready)
		skip();
	good_tree();
	check("/sbin/init", 0, NULL);
	/* a script whose interpreter is on /usr, through the merged links */
	put("usr/lib/systemd/script-init", "#! /bin/sh -e\n", 14, 0755);
	check("/lib/systemd/script-init", 0, NULL);
	/* a static init loads nothing */
	put_elf("usr/lib/systemd/static-init", ET_EXEC, NULL);
	check("/usr/lib/systemd/static-init", 0, NULL);
	/* the same root seen from another /usr device: init itself is refused */
	{
		struct vi_error err = { "" };

		assert_int_equal(vi_usr_loader_check(root, "/sbin/init", usr_dev ^ 1, &err), -EXDEV);
		assert_non_null(strstr(err.msg, "/bin leads to device"));
	}
}

static void test_code_dirs(void **state)
{
	(void)state;
	if (!ready)
		skip();
	good_tree();
	remove_path("lib64");
	mkdir_rel("lib64");
	put_elf("lib64/ld-linux-x86-64.so.2", ET_DYN, NULL);
	check("/sbin/init", -EXDEV, "/lib64 is a directory of the unverified root, not a link into "
	      "the verified /usr");
	remove_path("lib64/ld-linux-x86-64.so.2");
	remove_path("lib64");
	link_to("lib64", "etc");
	check("/sbin/init", -EXDEV, "/lib64 -> etc: not a link to a directory of /usr (usr/NAME)");
	/* through a directory the switch replaces: refused by its text alone */
	link_to("lib64", "run/../usr/lib64");
	check("/sbin/init", -EXDEV, "/lib64 -> run/../usr/lib64: not a link");
	link_to("lib64", "usr/lib64/");
	check("/sbin/init", -EXDEV, "not a link");
	link_to("lib64", "usr/..");
	check("/sbin/init", -EXDEV, "not a link");
	link_to("lib64", "usr/nowhere");
	check("/sbin/init", -ENOENT, "/lib64 is a link that leads nowhere");
	/* usr/NAME that /usr itself leads out of */
	link_to("usr/lib32", "/etc");
	link_to("lib32", "usr/lib32");
	check("/sbin/init", -EXDEV, "/lib32 leads to device");
	remove_path("usr/lib32");
	put("lib32", "x", 1, 0644);
	check("/sbin/init", -EXDEV, "/lib32 is a file of the unverified root");
	remove_path("lib32");
	link_to("lib64", "/usr/lib64");   /* absolute: resolved inside the root */
	check("/sbin/init", 0, NULL);
	/* the switch moves the initramfs' /run onto where a link leads */
	link_to("run", "usr/lib64");
	check("/sbin/init", -EXDEV, "/run is a symbolic link");
	remove_path("run");
	mkdir_rel("run");
	check("/sbin/init", 0, NULL);
}

/* Without openat2 (Linux < 5.6) links would resolve from the initramfs: refused. */
static void test_without_openat2(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	if (!ready)
		skip();
	good_tree();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct vi_error err = { "" };
		int r;

		if (deny_syscall(SYS_openat2) < 0)
			_exit(77);
		r = vi_usr_loader_check(root, "/sbin/init", usr_dev, &err);
		_exit(r == -EOPNOTSUPP && strstr(err.msg, "openat2") ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		skip();
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_interpreters(void **state)
{
	(void)state;
	if (!ready)
		skip();
	good_tree();
	/* the loader on the writable root, named directly or through a link */
	put_elf("etc/ld.so", ET_DYN, NULL);
	put_elf("usr/lib/systemd/systemd", ET_DYN, "/etc/ld.so");
	check("/sbin/init", -EXDEV, "the program loader /etc/ld.so is on device");
	link_to("usr/lib64/ld-evil.so", "/etc/ld.so");
	put_elf("usr/lib/systemd/systemd", ET_DYN, "/lib64/ld-evil.so");
	check("/sbin/init", -EXDEV, "the program loader /lib64/ld-evil.so is on device");
	put_elf("usr/lib/systemd/systemd", ET_DYN, "/lib64/ld-missing.so");
	check("/sbin/init", -ENOENT, "the program loader /lib64/ld-missing.so: No such file");
	put_elf("usr/lib/systemd/systemd", ET_DYN, "lib64/ld-linux-x86-64.so.2");
	check("/sbin/init", -ENOEXEC, "is not an absolute path");
	/* a loader that is a script is not run by the kernel */
	put("usr/lib64/ld-script.so", "#!/bin/sh\n", 10, 0755);
	put_elf("usr/lib/systemd/systemd", ET_DYN, "/lib64/ld-script.so");
	check("/sbin/init", -ENOEXEC, "the program loader /lib64/ld-script.so: a #! script");
	/* #! interpreters: each on /usr, at most four in a row */
	put("etc/sh", "#!/bin/sh\n", 10, 0755);
	put("usr/lib/systemd/systemd", "#!/etc/sh\n", 10, 0755);
	check("/sbin/init", -EXDEV, "the #! interpreter /etc/sh is on device");
	put("usr/bin/loop", "#!/bin/loop\n", 12, 0755);
	check("/bin/loop", -ELOOP, "more than 4 interpreters");
	put("usr/bin/junk", "#!/bin/\x01\n", 9, 0755);
	check("/bin/junk", -ENOENT, "/bin/\\x01");
	/* init an ELF file the kernel would not run */
	put_elf("usr/lib/systemd/systemd", ET_REL, NULL);
	check("/sbin/init", -ENOEXEC, "/sbin/init: ELF type 1, not a program");
}

static void test_etc(void **state)
{
	(void)state;
	if (!ready)
		skip();
	good_tree();
	put("etc/ld.so.preload", "", 0, 0644);
	check("/sbin/init", -EPERM, "/etc/ld.so.preload exists on the unverified root");
	/* a link leading nowhere now may lead somewhere once /run is the initramfs' */
	link_to("etc/ld.so.preload", "/run/preload");
	check("/sbin/init", -EPERM, "/etc/ld.so.preload exists");
	remove_path("etc/ld.so.preload");
	check("/sbin/init", 0, NULL);
	/* musl's loader reads its search path from /etc */
	put_elf("usr/lib/ld-musl-x86_64.so.1", ET_DYN, NULL);
	put_elf("usr/lib/systemd/systemd", ET_DYN, "/lib/ld-musl-x86_64.so.1");
	check("/sbin/init", 0, NULL);
	put("etc/ld-musl-x86_64.path", "/etc\n", 5, 0644);
	check("/sbin/init", -EPERM, "/etc/ld-musl-x86_64.path exists");
	remove_path("etc/ld-musl-x86_64.path");
	/* /etc a link: the loader's files would be read where it leads */
	good_tree();
	{
		char from[300], to[300];

		path_of(from, sizeof(from), "etc");
		path_of(to, sizeof(to), "etc.real");
		assert_int_equal(rename(from, to), 0);
		link_to("etc", "etc.real");
		check("/sbin/init", -EPERM, "/etc is a symbolic link");
		remove_path("etc");
		assert_int_equal(rename(to, from), 0);
	}
	check("/sbin/init", 0, NULL);
}

/* musl's program loader is its libc.so, and reads PREFIX/etc/ld-musl-ARCH.path whatever name
 * PT_INTERP gives it (PREFIX: that name without its last two parts, ARCH: built in). It is told
 * from glibc's by content, not by name: glibc's carries a DT_SONAME of glibc's loader names,
 * musl's none. */
static void test_loader_identity(void **state)
{
	(void)state;
	if (!ready)
		skip();
	good_tree();
	/* Debian's musl package puts this on a glibc system: glibc's loader never reads it */
	put("etc/ld-musl-x86_64.path", "/lib/x86_64-linux-musl\n", 23, 0644);
	check("/sbin/init", 0, NULL);
	/* glibc's loader under musl's name is glibc's */
	put_so("usr/lib/ld-musl-x86_64.so.1", "ld-linux-x86-64.so.2");
	put_elf("usr/lib/systemd/systemd", ET_DYN, "/lib/ld-musl-x86_64.so.1");
	check("/sbin/init", 0, NULL);
	/* musl's libc.so under glibc's name, under its own, under a name of no loader */
	put_so("usr/lib64/ld-linux-x86-64.so.2", NULL);
	put_elf("usr/lib/systemd/systemd", ET_DYN, "/lib64/ld-linux-x86-64.so.2");
	check("/sbin/init", -EPERM, "/etc/ld-musl-x86_64.path exists on the unverified root");
	put_so("usr/lib/libc.so", NULL);
	put_elf("usr/lib/systemd/systemd", ET_DYN, "/lib/libc.so");
	check("/sbin/init", -EPERM, "/etc/ld-musl-x86_64.path exists on the unverified root");
	/* a loader of another soname (not glibc's) is checked as musl's */
	put_so("usr/lib/libc.so", "libc.so");
	check("/sbin/init", -EPERM, "/etc/ld-musl-x86_64.path exists on the unverified root");
	/* ARCH is the loader's, not its name's: every ARCH, any type, a link leading nowhere */
	remove_path("etc/ld-musl-x86_64.path");
	put_so("usr/lib/ld-musl-x86_64.so.1", NULL);
	put_elf("usr/lib/systemd/systemd", ET_DYN, "/lib/ld-musl-x86_64.so.1");
	check("/sbin/init", 0, NULL);
	put("etc/ld-musl-armhf.path", "/etc\n", 5, 0644);
	check("/sbin/init", -EPERM, "/etc/ld-musl-armhf.path exists on the unverified root");
	link_to("etc/ld-musl-armhf.path", "/run/path");
	check("/sbin/init", -EPERM, "/etc/ld-musl-armhf.path exists on the unverified root");
	remove_path("etc/ld-musl-armhf.path");
	check("/sbin/init", 0, NULL);
	/* /usr/lib/musl/lib/libc.so reads /usr/lib/musl/etc/: a file of /usr there is verified */
	mkdir_rel("usr/lib/musl");
	mkdir_rel("usr/lib/musl/lib");
	mkdir_rel("usr/lib/musl/etc");
	put_so("usr/lib/musl/lib/libc.so", NULL);
	put_elf("usr/lib/systemd/systemd", ET_DYN, "/usr/lib/musl/lib/libc.so");
	put("usr/lib/musl/etc/ld-musl-x86_64.path", "/usr/lib/musl/lib\n", 18, 0644);
	check("/sbin/init", 0, NULL);
	/* ... a link there, to the root or within /usr, is not */
	mkdir_rel("var");
	put("var/p", "/var\n", 5, 0644);
	link_to("usr/lib/musl/etc/ld-musl-x86_64.path", "/var/p");
	check("/sbin/init", -EPERM, "/usr/lib/musl/etc/ld-musl-x86_64.path is a link");
	link_to("usr/lib/musl/etc/ld-musl-x86_64.path", "/usr/lib/musl/lib/libc.so");
	check("/sbin/init", -EPERM, "/usr/lib/musl/etc/ld-musl-x86_64.path is a link");
	remove_path("usr/lib/musl/etc/ld-musl-x86_64.path");
	/* ... nor what a directory of /usr leads to on the root */
	remove_path("usr/lib/musl/etc");
	link_to("usr/lib/musl/etc", "/var");
	put("var/ld-musl-x86_64.path", "/var\n", 5, 0644);
	check("/sbin/init", -EPERM, "/usr/lib/musl/etc/ld-musl-x86_64.path exists on the "
	      "unverified root");
	remove_path("var/ld-musl-x86_64.path");
	check("/sbin/init", 0, NULL);
	/* and /etc, for any loader not glibc's, whatever its path */
	put("etc/ld-musl-x86_64.path", "/etc\n", 5, 0644);
	check("/sbin/init", -EPERM, "/etc/ld-musl-x86_64.path exists on the unverified root");
}

static void test_ldcache(void **state)
{
	static const char *const evil_name[] = { "libc.so.6", "libc.so.6" };
	static const char *const evil_path[] = { "/lib/x86_64-linux-gnu/libc.so.6",
						 "/etc/evil.so" };
	static const char *const link_path[] = { "/usr/lib/x86_64-linux-gnu/libevil.so" };

	(void)state;
	if (!ready)
		skip();
	good_tree();
	put_cache(evil_name, evil_path, 2);
	check("/sbin/init", -EPERM, "/etc/ld.so.cache names /etc/evil.so for libc.so.6: outside "
	      "/usr");
	/* under /usr by name, on the writable root by a link */
	put_elf("etc/evil.so", ET_DYN, NULL);
	link_to("usr/lib/x86_64-linux-gnu/libevil.so", "/etc/evil.so");
	put_cache(evil_name, link_path, 1);
	check("/sbin/init", -EXDEV, "names /usr/lib/x86_64-linux-gnu/libevil.so for libc.so.6, on "
	      "device");
	/* a cache no loader format: refused, not skipped */
	put("etc/ld.so.cache", "glibc-ld.so.cache1.1", 20, 0644);
	check("/sbin/init", -EBADMSG, "/etc/ld.so.cache: not a loader cache");
	put("etc/ld.so.cache", "", 0, 0644);
	check("/sbin/init", -EFBIG, "/etc/ld.so.cache: 0 bytes");
	link_to("etc/ld.so.cache", "/run/ld.so.cache");
	check("/sbin/init", -ENOENT, "/etc/ld.so.cache: No such file");
	remove_path("etc/ld.so.cache");
	check("/sbin/init", 0, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_root),
		cmocka_unit_test(test_code_dirs),
		cmocka_unit_test(test_without_openat2),
		cmocka_unit_test(test_interpreters),
		cmocka_unit_test(test_etc),
		cmocka_unit_test(test_loader_identity),
		cmocka_unit_test(test_ldcache),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
