// SPDX-License-Identifier: LGPL-2.1-or-later
/* finit_module over a list of paths. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "modules.h"

int vi_modules_load(const char *list, unsigned *ret_loaded, unsigned *ret_skipped,
		    struct verity_err *err)
{
	char line[512];
	unsigned loaded = 0;
	FILE *f;
	int r = 0;

	*ret_skipped = 0;
	f = fopen(list, "re");
	if (!f) {
		*ret_loaded = 0;
		if (errno == ENOENT)
			return 0;
		r = -errno;
		snprintf(err->msg, sizeof(err->msg), "cannot read %s: %s", list, strerror(-r));
		return r;
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t");
		int fd, rr = 0;

		if (!strchr(line, '\n') && !feof(f)) {
			if (!r) {
				r = -ENAMETOOLONG;
				snprintf(err->msg, sizeof(err->msg), "%s: line too long", list);
			}
			/* skip the rest of the overlong line */
			while (fgets(line, sizeof(line), f) && !strchr(line, '\n'))
				;
			continue;
		}
		p[strcspn(p, "\r\n")] = '\0';
		for (size_t l = strlen(p); l && (p[l - 1] == ' ' || p[l - 1] == '\t'); l--)
			p[l - 1] = '\0';
		if (!*p || *p == '#')
			continue;
		fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || (syscall(SYS_finit_module, fd, "", 0) < 0 && errno != EEXIST))
			rr = -errno;
		/* ENODEV: the module has no hardware here (crc32c-intel without SSE4.2): skip */
		if (rr == -ENODEV) {
			(*ret_skipped)++;
			if (fd >= 0)
				close(fd);
			continue;
		}
		if (fd >= 0)
			close(fd);
		if (rr == 0) {
			loaded++;
		} else if (!r) {
			r = rr;
			snprintf(err->msg, sizeof(err->msg), "loading module %.120s failed: %s", p,
				 strerror(-rr));
		}
	}
	fclose(f);
	*ret_loaded = loaded;
	return r;
}
