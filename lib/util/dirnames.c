// SPDX-License-Identifier: LGPL-2.1-or-later
#include "dirnames.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

void vi_dir_names_free(struct vi_dir_names *names)
{
	for (unsigned i = 0; names->name && i < names->n; i++)
		free(names->name[i]);
	free(names->name);
	*names = (struct vi_dir_names){ 0 };
}

int vi_dir_names(int fd, const char *dir, const char *suffix, unsigned max, size_t max_len,
		 const char *what, struct vi_dir_names *ret, struct vi_error *err)
{
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0), r = 0;
	struct dirent *de;
	DIR *d;

	*ret = (struct vi_dir_names){ 0 };
	d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
	if (!d) {
		r = -errno;
		if (dup_fd >= 0)
			close(dup_fd);
		return vi_errno(err, r, "%s: %s", dir, strerror(-r));
	}
	/* fdopendir reads from the shared offset: from the start, whoever read the fd before */
	rewinddir(d);
	ret->name = calloc(max ? max : 1, sizeof(*ret->name));
	if (!ret->name) {
		r = vi_errno(err, -ENOMEM, "out of memory");
		goto out;
	}
	/* readdir says an error only through errno */
	errno = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !ends_with(de->d_name, suffix))
			continue;
		if (ret->n == max) {
			r = vi_errno(err, -E2BIG, "more than %u %s in %s", max, what, dir);
			goto out;
		}
		if (strlen(de->d_name) >= max_len) {
			r = vi_errno(err, -ENAMETOOLONG, "%s: a file name too long in %s", what, dir);
			goto out;
		}
		ret->name[ret->n] = strdup(de->d_name);
		if (!ret->name[ret->n]) {
			r = vi_errno(err, -ENOMEM, "out of memory");
			goto out;
		}
		ret->n++;
		errno = 0;
	}
	if (errno) {
		r = vi_errno(err, -errno, "cannot read %s: %s", dir, strerror(errno));
		goto out;
	}
	qsort(ret->name, ret->n, sizeof(*ret->name), name_cmp);
out:
	closedir(d);
	if (r < 0)
		vi_dir_names_free(ret);
	return r;
}
