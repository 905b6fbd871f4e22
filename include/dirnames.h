/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The files of a directory the initramfs carries (the manifest keys, the certificates for the
 * kernel's keyring), named in a fixed order: what the agent does and says never depends on the
 * order readdir happens to return. */
#ifndef VERITY_DIRNAMES_H
#define VERITY_DIRNAMES_H

#include <stddef.h>

#include "err.h"

struct vi_dir_names {
	char **name;   /* malloc'ed, strcmp order */
	unsigned n;
};

/* The names in the directory open at fd (left open: the listing reads a duplicate) that do not
 * start with '.' and end with suffix, each shorter than max_len bytes, at most max of them.
 * -E2BIG ("more than MAX WHAT in DIR") or -ENAMETOOLONG ("WHAT: a file name too long in DIR")
 * with err set, and ret empty; dir and what are for the messages. */
int vi_dir_names(int fd, const char *dir, const char *suffix, unsigned max, size_t max_len,
		 const char *what, struct vi_dir_names *ret, struct vi_error *err);

void vi_dir_names_free(struct vi_dir_names *names);

#endif
