// SPDX-License-Identifier: LGPL-2.1-or-later
#include "keyring.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/keyctl.h>

#include "clock.h"
#include "dirnames.h"
#include "fileio.h"
#include "prockeys.h"
#include "strutil.h"

int vi_keyring_desc(const char *mapping_name, char *out, size_t out_size)
{
	int n = snprintf(out, out_size, VI_KEY_DESC_PREFIX "%s", mapping_name);

	if (n < 0 || (size_t)n >= out_size)
		return -ENAMETOOLONG;
	return 0;
}

int32_t vi_keyring_add(const char *desc, const uint8_t *sig, size_t len, struct vi_error *err)
{
	long serial;

	serial = syscall(SYS_add_key, "user", desc, sig, len, KEY_SPEC_SESSION_KEYRING);
	if (serial < 0) {
		int r = -errno;

		vi_err(err, "add_key(user, %s) failed: %s", desc, strerror(-r));
		return r;
	}
	return (int32_t)serial;
}

int vi_keyring_remove(int32_t serial)
{
	/* Invalidate while we still possess the key (after an unlink we no longer may); the
	 * kernel's garbage collector then drops it from every keyring. */
	if (syscall(SYS_keyctl, KEYCTL_INVALIDATE, serial) == 0)
		return 0;
	if (syscall(SYS_keyctl, KEYCTL_UNLINK, serial, KEY_SPEC_SESSION_KEYRING) < 0)
		return -errno;
	return 0;
}

/* A certificate's file name, for the log: [A-Za-z0-9._-]. */
static bool cert_name_ok(const char *name)
{
	return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
	       strlen(name);
}

/* The certificates of dir (open at *ret_fd, -1 when dir is missing), in strcmp order. */
static int cert_names(const char *dir, int *ret_fd, struct vi_dir_names *ret, struct vi_error *err)
{
	int r;

	*ret = (struct vi_dir_names){ 0 };
	*ret_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*ret_fd < 0) {
		r = -errno;
		return r == -ENOENT ? 0 : vi_errno(err, r, "cannot read %s: %s", dir, strerror(-r));
	}
	r = vi_dir_names(*ret_fd, dir, ".der", VI_CERTS_MAX, 128, "certificates", ret, err);
	if (r < 0) {
		close(*ret_fd);
		*ret_fd = -1;
	}
	return r;
}

bool vi_certs_present(const char *dir)
{
	struct vi_error err = { "" };
	struct vi_dir_names names;
	bool any;
	int fd;

	if (cert_names(dir, &fd, &names, &err) < 0)
		return true;   /* unreadable: say there are, so the keyring is opened and sealed */
	any = names.n > 0;
	vi_dir_names_free(&names);
	if (fd >= 0)
		close(fd);
	return any;
}

/* Add one certificate file to the keyring. 0, -EPERM / -EACCES when the keyring is sealed, or
 * another negative errno with the reason in ret->refused. */
static int add_cert(int dirfd, const char *name, int32_t keyring, uint8_t *buf,
		    struct vi_dmverity_keyring *ret)
{
	const char *why = NULL;
	size_t len = 0;
	uint64_t t0;
	int r = 0;

	if (!cert_name_ok(name)) {
		r = -EINVAL;
		why = "a file name other than [A-Za-z0-9._-]";
	}
	if (r == 0)
		r = vi_fileio_read_file_at(dirfd, name, FILEIO_REGULAR, buf, VI_CERT_MAX, &len);
	if (r == 0 && (len < 2 || buf[0] != 0x30)) {
		r = -EBADMSG;   /* PEM or anything else the kernel's X.509 parser takes as no cert */
		why = "not a DER X.509 certificate";
	}
	if (r == 0) {
		t0 = vi_now_us();
		if (syscall(SYS_add_key, "asymmetric", NULL, buf, len, keyring) < 0)
			r = -errno;
		ret->kernel_us += vi_now_us() - t0;
	}
	if (r < 0 && r != -EPERM && r != -EACCES && !ret->refused[0])
		snprintf(ret->refused, sizeof(ret->refused), "%s: %s", name,
			 why ? why : r == -EFBIG ? "too large" : r == -EINVAL ? "not a regular file"
								 : strerror(-r));
	return r;
}

/* Whether serial is the keyring paths->keyring the kernel made: KEYCTL_DESCRIBE says
 * "keyring;0;0;PERM;NAME" (a /proc/keys line can be forged through a key's description). */
static bool keyring_confirmed(int32_t serial, const char *name)
{
	char d[160], *p;
	long n = syscall(SYS_keyctl, KEYCTL_DESCRIBE, serial, d, sizeof(d));

	if (n <= 0 || (size_t)n > sizeof(d) || d[n - 1] != '\0' || strncmp(d, "keyring;0;0;", 12))
		return false;
	p = strchr(d + 12, ';');
	return p && !strcmp(p + 1, name);
}

/* One line of /proc/keys: a confirmed keyring goes into ret; a second one is an error. */
static int check_line(const char *line, size_t len, const struct vi_dmverity_paths *paths,
		      struct vi_dmverity_keyring *ret, struct vi_error *err)
{
	int32_t serial;
	unsigned links;

	if (vi_proc_keys_line(line, len, paths->keyring, &serial, &links) < 0 ||
	    !keyring_confirmed(serial, paths->keyring))
		return 0;
	if (ret->serial && ret->serial != serial)
		return vi_errno(err, -ENOTUNIQ, "two %s keyrings in %s (%d, %d)", paths->keyring,
				paths->proc_keys, ret->serial, serial);
	ret->serial = serial;
	ret->keys_before = links;
	return 0;
}

/* Find the keyring in paths->proc_keys, read whole, line by line (a line longer than the
 * buffer is no keyring's). ret->serial 0 when there is none. */
static int find_keyring(const struct vi_dmverity_paths *paths, struct vi_dmverity_keyring *ret,
			struct vi_error *err)
{
	char buf[4096];
	size_t have = 0;
	bool skipping = false;
	int fd = open(paths->proc_keys, O_RDONLY | O_CLOEXEC), r = 0;

	if (fd < 0) {
		r = -errno;
		/* a kernel without CONFIG_KEYS: no keyring */
		return r == -ENOENT ? 0 : vi_errno(err, r, "cannot read %s: %s", paths->proc_keys,
						   strerror(-r));
	}
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - have);
		char *p = buf, *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = vi_errno(err, -errno, "cannot read %s: %s", paths->proc_keys,
				     strerror(errno));
			break;
		}
		if (n == 0) {
			if (have && !skipping)
				r = check_line(buf, have, paths, ret, err);
			break;
		}
		have += (size_t)n;
		while (r == 0 && (nl = memchr(p, '\n', have - (size_t)(p - buf)))) {
			if (!skipping)
				r = check_line(p, (size_t)(nl - p), paths, ret, err);
			skipping = false;
			p = nl + 1;
		}
		if (r < 0)
			break;
		have -= (size_t)(p - buf);
		memmove(buf, p, have);
		if (have == sizeof(buf)) {
			skipping = true;
			have = 0;
		}
	}
	close(fd);
	return r;
}

const struct vi_dmverity_paths vi_dmverity_paths_boot = {
	.proc_keys = VI_PROC_KEYS,
	.certs_dir = VI_CERTS_DIR,
	.unsealed_param = VI_DMVERITY_UNSEALED_SYSFS,
	.keyring = VI_DMVERITY_KEYRING,
};

int vi_dmverity_keyring_seal(const struct vi_dmverity_paths *paths, struct vi_dmverity_keyring *ret,
			     struct vi_error *err)
{
	struct vi_dir_names names = { 0 };
	uint8_t *buf = NULL;
	uint64_t t0;
	int dirfd = -1, r, seal_r;

	*ret = (struct vi_dmverity_keyring){ 0 };
	t0 = vi_now_us();
	r = find_keyring(paths, ret, err);
	ret->kernel_us += vi_now_us() - t0;
	if (r < 0)
		return r;
	if (!ret->serial) {
		/* dm_verity is loaded and has the parameter: its keyring must be there */
		if (access(paths->unsealed_param, F_OK) == 0)
			return vi_errno(err, -ENOKEY, "dm_verity has a keyring (%s), but no %s keyring "
					"of the kernel's is in %s", paths->unsealed_param,
					paths->keyring, paths->proc_keys);
		return 0;
	}
	r = cert_names(paths->certs_dir, &dirfd, &names, err);
	ret->certs = names.n;
	if (r == 0 && names.n) {
		buf = malloc(VI_CERT_MAX);
		if (!buf)
			r = vi_errno(err, -ENOMEM, "out of memory");
	}
	for (unsigned i = 0; r == 0 && i < names.n; i++) {
		int a = add_cert(dirfd, names.name[i], ret->serial, buf, ret);

		if (a == -EPERM || a == -EACCES) {
			ret->sealed_before = true;
			break;
		}
		if (a == 0)
			ret->added++;
	}
	/* whatever went wrong before: no check may let anything add a key after this, and an
	 * empty keyring is sealed too */
	t0 = vi_now_us();
	seal_r = syscall(SYS_keyctl, KEYCTL_RESTRICT_KEYRING, ret->serial, NULL, NULL) < 0 ? -errno : 0;
	ret->kernel_us += vi_now_us() - t0;
	if (seal_r == -EEXIST) {
		ret->sealed_before = true;
		seal_r = 0;
	}
	if (seal_r < 0)
		r = vi_errno(err, seal_r, "cannot seal the %s keyring (key %d): %s", paths->keyring,
			     ret->serial, strerror(-seal_r));
	ret->sealed = seal_r == 0;
	if (dirfd >= 0)
		close(dirfd);
	vi_dir_names_free(&names);
	free(buf);
	return r;
}
