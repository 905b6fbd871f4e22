// SPDX-License-Identifier: LGPL-2.1-or-later
/* dracut's getcmdline(), the reading of one file (dracutline.h). */
#include "dracutline.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

static bool ifs_blank(char c)
{
	return c == ' ' || c == '\t';
}

int vi_dracut_line_append(char *part, size_t size, size_t *len, const char *buf, size_t n)
{
	size_t o = *len, start = 0;

	if (o >= size)
		return -E2BIG;
	while (start < n) {
		const char *nl = memchr(buf + start, '\n', n - start);
		size_t end = nl ? (size_t)(nl - buf) : n, a = start, b = end;

		/* NULs are not there for read: they neither end a line nor count as its text */
		while (a < b && (ifs_blank(buf[a]) || buf[a] == '\0'))
			a++;
		while (b > a && (ifs_blank(buf[b - 1]) || buf[b - 1] == '\0'))
			b--;
		start = end + 1;
		if (!nl && a == b)
			break;   /* read fails at the end of the file and leaves _line empty */
		if (o + 1 >= size)
			goto too_long;
		part[o++] = ' ';
		for (size_t i = a; i < b; i++) {
			if (buf[i] == '\0')
				continue;
			if (o + 1 >= size)
				goto too_long;
			part[o++] = buf[i];
		}
	}
	part[o] = '\0';
	*len = o;
	return 0;
too_long:
	part[*len] = '\0';
	return -E2BIG;
}
