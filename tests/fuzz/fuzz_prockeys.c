// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: vi_proc_keys_find_keyring over any bytes as /proc/keys. Oracles besides the
 * sanitizers: deterministic; a match is a positive serial, printed in the text as the 8 hex
 * digits that start a line holding "keyring", the name followed by ':' and a uid field "0". */
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
	char hex[10];
	const char *line;
	int r;

	unsigned links = 12345678;

	if (size > VI_PROC_KEYS_MAX)
		return 0;

	r = vi_proc_keys_find_keyring(s, size, ".dm-verity", &serial, &links);
	CHECK(r == 0 || r == -ENOENT);
	CHECK(vi_proc_keys_find_keyring(s, size, ".dm-verity", &serial2, NULL) == r);
	CHECK(r < 0 ? links == 12345678 : links < 1000000000);
	if (r == -ENOENT) {
		CHECK(serial == -1);
		return 0;
	}
	CHECK(serial > 0 && serial2 == serial);
	snprintf(hex, sizeof(hex), "%08x", (unsigned)serial);
	/* the serial starts the text or a line */
	line = NULL;
	for (size_t i = 0; i + 8 <= size; i++)
		if ((i == 0 || s[i - 1] == '\n') && !memcmp(s + i, hex, 8)) {
			line = s + i;
			break;
		}
	CHECK(line);
	CHECK(memmem(line, size - (size_t)(line - s), " keyring ", 9));
	CHECK(memmem(line, size - (size_t)(line - s), ".dm-verity:", 11));
	return 0;
}
