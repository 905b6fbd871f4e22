// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: vi_proc_keys_line over any bytes as one line of /proc/keys. Oracles
 * besides the sanitizers: deterministic; outputs untouched unless it matches; a match is a
 * positive serial, printed as the 8 hex digits that start the line, with the flags of a live
 * key, the type "keyring", uid 0 and the name followed by ':'; no NUL or newline inside. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prockeys.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	int32_t serial = -1, serial2 = -1;
	unsigned links = 12345678, links2 = 0;
	char hex[10];
	int r;

	r = vi_proc_keys_line(s, size, ".dm-verity", &serial, &links);
	CHECK(r == 0 || r == -ENOENT);
	CHECK(vi_proc_keys_line(s, size, ".dm-verity", &serial2, &links2) == r);
	if (r == -ENOENT) {
		CHECK(serial == -1 && links == 12345678);
		return 0;
	}
	CHECK(serial > 0 && serial2 == serial && links == links2 && links < 1000000000);
	CHECK(!memchr(s, '\0', size) && !memchr(s, '\n', size));
	snprintf(hex, sizeof(hex), "%08x", (unsigned)serial);
	CHECK(size > 9 && !memcmp(s, hex, 8) && s[8] == ' ');
	/* the flags are the next word: a live key's, 'I' first */
	CHECK(s[8 + strspn(s + 8, " ")] == 'I');
	CHECK(memmem(s, size, " keyring ", 9) && memmem(s, size, " .dm-verity: ", 13));
	return 0;
}
