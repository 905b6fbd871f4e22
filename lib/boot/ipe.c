// SPDX-License-Identifier: LGPL-2.1-or-later
/* Loading and activating a signed IPE policy (include/ipe.h). The kernel's interface
 * (Documentation/admin-guide/LSM/ipe.rst): the whole signed policy written to new_policy in one
 * write; the policy then appears as policies/NAME/, and writing 1 to policies/NAME/active makes
 * it the one in force. Its name is read back from the directory the write created rather than
 * parsed out of the PKCS#7 container. */
#include "ipe.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"

#define MAX_POLICIES 64

struct names {
	char v[MAX_POLICIES][128];
	size_t n;
	bool cut;         /* more entries, or a longer name, than fit */
};

static int list_policies(const char *ipe_dir, struct names *out)
{
	char path[512];
	struct dirent *e;
	DIR *d;

	out->n = 0;
	out->cut = false;
	snprintf(path, sizeof(path), "%.400s/policies", ipe_dir);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		if (out->n == MAX_POLICIES || n >= sizeof(out->v[0])) {
			out->cut = true;
			continue;
		}
		memcpy(out->v[out->n++], e->d_name, n + 1);
	}
	closedir(d);
	return 0;
}

static bool listed(const struct names *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], name))
			return true;
	return false;
}

static int write_file(const char *path, const void *buf, size_t len)
{
	ssize_t n;
	int fd, r = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		r = -errno;
	else if ((size_t)n != len)
		r = -EIO;
	close(fd);
	return r;
}

static const char *refusal(int r)
{
	switch (r) {
	case -EBADMSG:
		return "not a signed IPE policy, or its text does not parse";
	case -ENOKEY:
		return "signed by a key the kernel does not trust";
	case -EKEYREJECTED:
		return "the signature does not match the policy";
	case -EEXIST:
		return "a policy of that name is loaded already";
	case -EINVAL:
		return "the kernel refused the policy";
	default:
		return strerror(-r);
	}
}

int vi_ipe_policy_read(const char *path, struct vi_ipe_policy *ret, struct vi_error *err)
{
	int r;

	ret->len = 0;
	ret->buf = malloc(VI_IPE_POLICY_MAX);
	if (!ret->buf)
		return vi_errno(err, -ENOMEM, "out of memory");
	r = vi_fileio_read_file_at(AT_FDCWD, path, FILEIO_REGULAR, ret->buf, VI_IPE_POLICY_MAX,
				   &ret->len);
	if (r < 0) {
		vi_ipe_policy_free(ret);
		return vi_errno(err, r, "IPE policy %.100s: %s", path,
				r == -EFBIG ? "larger than 256 KiB" : strerror(-r));
	}
	return 0;
}

void vi_ipe_policy_free(struct vi_ipe_policy *p)
{
	free(p->buf);
	p->buf = NULL;
	p->len = 0;
}

/* IPE enforcing, whatever the command line said (ipe.enforce=0 starts it permissive: every
 * denial only audited). */
static int enforce(const char *ipe_dir, bool *ret_raised, struct vi_error *err)
{
	char path[512], val[8] = "";
	int r;

	snprintf(path, sizeof(path), "%.400s/enforce", ipe_dir);
	r = vi_fileio_read_text_at(AT_FDCWD, path, val, sizeof(val));
	if (r < 0)
		return vi_errno(err, r, "%.100s: %s", path, strerror(-r));
	if (!strcmp(val, "1"))
		return 0;
	*ret_raised = true;
	r = write_file(path, "1", 1);
	if (r == 0)
		r = vi_fileio_read_text_at(AT_FDCWD, path, val, sizeof(val));
	if (r < 0 || strcmp(val, "1"))
		return vi_errno(err, r < 0 ? r : -EPERM, "IPE is permissive (ipe.enforce=0) and "
				"could not be switched to enforcing");
	return 0;
}

int vi_ipe_activate(const struct vi_ipe_policy *policy, const char *securityfs_dir,
		    const char *ipe_dir, struct vi_ipe_result *res, struct vi_error *err)
{
	struct names before, after;
	char file[512];
	struct stat st;
	int r;

	res->name[0] = '\0';
	res->enforce_raised = false;
	if (stat(ipe_dir, &st) < 0 &&
	    mount("securityfs", securityfs_dir, "securityfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL) < 0 && errno != EBUSY)
		return vi_errno(err, -EOPNOTSUPP, "cannot mount securityfs on %.100s: %s",
				securityfs_dir, strerror(errno));
	if (stat(ipe_dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return vi_errno(err, -EOPNOTSUPP, "the kernel has no IPE (no %.100s; Linux 6.12 "
				"with CONFIG_SECURITY_IPE, and ipe in lsm=)", ipe_dir);
	r = list_policies(ipe_dir, &before);
	if (r < 0)
		return vi_errno(err, r, "%.100s/policies: %s", ipe_dir, strerror(-r));
	snprintf(file, sizeof(file), "%.400s/new_policy", ipe_dir);
	r = write_file(file, policy->buf, policy->len);
	if (r < 0)
		return vi_errno(err, r, "IPE refused the policy: %s", refusal(r));
	r = list_policies(ipe_dir, &after);
	if (r < 0)
		return vi_errno(err, r, "%.100s/policies: %s", ipe_dir, strerror(-r));
	if (before.cut || after.cut)
		return vi_errno(err, -E2BIG, "more than %d IPE policies, or a name of 128 bytes "
				"or more: the new one cannot be told apart", MAX_POLICIES);
	for (size_t i = 0; i < after.n && !res->name[0]; i++)
		if (!listed(&before, after.v[i]))
			snprintf(res->name, sizeof(res->name), "%s", after.v[i]);
	if (!res->name[0])
		return vi_errno(err, -EPROTO, "IPE took the policy but lists no new one");
	snprintf(file, sizeof(file), "%.300s/policies/%.127s/active", ipe_dir, res->name);
	r = write_file(file, "1", 1);
	if (r < 0)
		return vi_errno(err, r, "activating IPE policy %s: %s", res->name, refusal(r));
	return enforce(ipe_dir, &res->enforce_raised, err);
}
