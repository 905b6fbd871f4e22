// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: what the systemd generator makes of bytes it did not write
 * (include/dracutline.h, include/unitname.h). Oracles besides the sanitizers:
 *  - a file's lines: the part stays NUL-terminated and within its size, holds no '\n' and no
 *    NUL, and on -E2BIG is left as it was;
 *  - a path's unit name holds only [A-Za-z0-9:_.\x-] and reads back (\xNN, '-' for '/') to the
 *    path;
 *  - a value for a unit line holds no control byte and no '\', and reads back ('%%' for '%') to
 *    the value. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dracutline.h"
#include "unitname.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static void check_lines(const char *s, size_t size)
{
	char part[64], before[64];
	size_t len = 0, old;
	int r;

	part[0] = '\0';
	for (size_t off = 0; off < size; off += 16) {
		size_t n = size - off < 16 ? size - off : 16;

		old = len;
		memcpy(before, part, old + 1);
		r = vi_dracut_line_append(part, sizeof(part), &len, s + off, n);
		CHECK(r == 0 || r == -E2BIG);
		CHECK(len < sizeof(part) && part[len] == '\0' && strlen(part) == len);
		CHECK(!memchr(part, '\n', len));
		if (r < 0) {
			CHECK(len == old && !memcmp(part, before, old + 1));
			break;
		}
	}
}

static void check_path(const char *s)
{
	char out[1100], back[300];
	size_t o = 0;

	if (vi_unit_path_escape(s, out, sizeof(out)) < 0)
		return;
	back[o++] = '/';
	for (const char *c = out; *c; c++) {
		CHECK(o + 1 < sizeof(back));
		if (*c == '-') {
			back[o++] = '/';
		} else if (*c == '\\') {
			CHECK(c[1] == 'x' && hexval(c[2]) >= 0 && hexval(c[3]) >= 0);
			back[o++] = (char)(hexval(c[2]) << 4 | hexval(c[3]));
			c += 3;
		} else {
			CHECK(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:_.", *c));
			back[o++] = *c;
		}
	}
	back[o] = '\0';
	CHECK(!strcmp(back, s));
}

static void check_value(const char *s)
{
	char out[600], back[300];
	size_t o = 0;

	if (vi_unit_value_escape(s, out, sizeof(out)) < 0)
		return;
	for (const char *c = out; *c; c++) {
		CHECK((unsigned char)*c >= 0x20 && *c != 0x7f && *c != '\\');
		if (*c == '%') {
			CHECK(c[1] == '%');
			c++;
		}
		CHECK(o + 1 < sizeof(back));
		back[o++] = *c;
	}
	back[o] = '\0';
	CHECK(!strcmp(back, s));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[257];
	size_t n = size < sizeof(s) - 1 ? size : sizeof(s) - 1;

	check_lines((const char *)data, size);
	memcpy(s, data, n);
	s[n] = '\0';
	check_path(s);
	check_value(s);
	return 0;
}
