// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unit names and values for the dracut module's generator (unitname.h). */
#include "unitname.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

static bool unit_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == ':' || c == '_' || c == '.';
}

int vi_unit_path_escape(const char *path, char *out, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (path[0] != '/' || !path[1])
		return -EINVAL;
	for (const char *c = path + 1; *c; c++) {
		const char *comp = c[-1] == '/' ? c : NULL;
		bool escape;

		if (comp) {
			size_t n = strcspn(comp, "/");

			if (n == 0 || (n == 1 && comp[0] == '.') ||
			    (n == 2 && comp[0] == '.' && comp[1] == '.'))
				return -EINVAL;
		}
		if (*c == '/') {
			if (!c[1])
				return -EINVAL;
			if (o + 1 >= size)
				return -ENOBUFS;
			out[o++] = '-';
			continue;
		}
		escape = !unit_char(*c) || (c == path + 1 && *c == '.');
		if (o + (escape ? 4 : 1) >= size)
			return -ENOBUFS;
		if (escape) {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[(unsigned char)*c >> 4];
			out[o++] = hex[(unsigned char)*c & 15];
		} else {
			out[o++] = *c;
		}
	}
	out[o] = '\0';
	return 0;
}

int vi_unit_value_escape(const char *value, char *out, size_t size)
{
	size_t o = 0;

	if (size == 0)
		return -ENOBUFS;
	if (value[0] == ' ' || value[0] == '\t' || value[0] == '"')
		return -EINVAL;
	for (const char *c = value; *c; c++) {
		unsigned char u = (unsigned char)*c;

		if (u < 0x20 || u == 0x7f || u == '\\')
			return -EINVAL;
		if (o + (u == '%' ? 2 : 1) >= size)
			return -ENOBUFS;
		if (u == '%')
			out[o++] = '%';
		out[o++] = *c;
	}
	out[o] = '\0';
	return 0;
}
