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
	size_t len = 0;
	int r = cert_name_ok(name) ? vi_fileio_read_file_at(dirfd, name, FILEIO_REGULAR, buf,
							    VI_CERT_MAX, &len)
				   : -EINVAL;
	uint64_t t0;

	if (r == 0 && (len < 2 || buf[0] != 0x30))
		r = -EBADMSG;   /* PEM or anything else the kernel's X.509 parser takes as no cert */
	if (r == 0) {
		t0 = vi_now_us();
		if (syscall(SYS_add_key, "asymmetric", NULL, buf, len, keyring) < 0)
			r = -errno;
		ret->kernel_us += vi_now_us() - t0;
	}
	if (r < 0 && r != -EPERM && r != -EACCES && !ret->refused[0])
		snprintf(ret->refused, sizeof(ret->refused), "%s: %s", name,
			 r == -EBADMSG   ? "not a DER X.509 certificate"
			 : r == -EINVAL  ? "a file name other than [A-Za-z0-9._-]"
			 : r == -EFBIG   ? "too large"
					 : strerror(-r));
	return r;
}

int vi_dmverity_keyring_seal(const char *proc_keys, const char *certs_dir,
			     struct vi_dmverity_keyring *ret, struct vi_error *err)
{
	struct vi_dir_names names = { 0 };
	char *text = NULL;
	uint8_t *buf = NULL;
	size_t len = 0;
	uint64_t t0;
	int dirfd = -1, r;

	*ret = (struct vi_dmverity_keyring){ 0 };
	text = malloc(VI_PROC_KEYS_MAX);
	if (!text)
		return -ENOMEM;
	t0 = vi_now_us();
	r = vi_fileio_read_head(proc_keys, text, VI_PROC_KEYS_MAX, &len, NULL);
	ret->kernel_us += vi_now_us() - t0;
	if (r < 0) {
		vi_err(err, "cannot read %s: %s", proc_keys, strerror(-r));
		goto out;
	}
	r = vi_proc_keys_find_keyring(text, len, VI_DMVERITY_KEYRING, &ret->serial,
				      &ret->keys_before);
	if (r == -ENOENT) {
		ret->serial = 0;
		r = 0;
		goto out;
	}
	r = cert_names(certs_dir, &dirfd, &names, err);
	if (r < 0)
		goto out;
	ret->certs = names.n;
	if (names.n) {
		buf = malloc(VI_CERT_MAX);
		if (!buf) {
			r = -ENOMEM;
			goto out;
		}
	}
	for (unsigned i = 0; i < names.n; i++) {
		r = add_cert(dirfd, names.name[i], ret->serial, buf, ret);
		if (r == -EPERM || r == -EACCES) {
			ret->sealed_before = true;
			break;
		}
		if (r == 0)
			ret->added++;
	}
	/* no check may let anything add a key after this: an empty keyring is sealed too */
	t0 = vi_now_us();
	r = syscall(SYS_keyctl, KEYCTL_RESTRICT_KEYRING, ret->serial, NULL, NULL) < 0 ? -errno : 0;
	ret->kernel_us += vi_now_us() - t0;
	if (r == -EEXIST) {
		ret->sealed_before = true;
		r = 0;
	}
	if (r < 0)
		vi_err(err, "cannot seal the " VI_DMVERITY_KEYRING " keyring (key %d): %s",
		       ret->serial, strerror(-r));
out:
	if (dirfd >= 0)
		close(dirfd);
	vi_dir_names_free(&names);
	free(buf);
	free(text);
	return r;
}
