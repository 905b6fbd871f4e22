// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the parsers of lib/format/corruption.c over the same bytes, as a uevent,
 * a /dev/kmsg record, a verity status, a monitor record, a mountinfo line and a verity table.
 * Oracles besides the sanitizers:
 *  - each answers only its documented values and is deterministic;
 *  - a uevent is a report (1) only when the bytes hold "DM_VERITY_ERR_BLOCK_NR=", with type 0
 *    or 1; a kmsg report only with "device-mapper: verity: " in its first line;
 *  - a record that parses formats back to the same line (the parser accepts only what the
 *    formatter writes, the file's line form included), and parses again to the same record;
 *  - a mount point that parses starts with '/' and is NUL-terminated within its buffer. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corruption.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct vi_corrupt_report a, b;
	struct vi_corruption_record r, r2;
	char line[VI_CORRUPTION_LINE_MAX], mnt[256], *z;
	unsigned maj, min;
	uint32_t bs;
	uint64_t blocks, fec;
	bool c;
	int x, y, n;

	x = vi_corruption_uevent(s, size, &a);
	y = vi_corruption_uevent(s, size, &b);
	CHECK(x == y && (x == 1 || x == 0 || x == -EINVAL));
	if (x == 1) {
		CHECK(memmem(s, size, "DM_VERITY_ERR_BLOCK_NR=", 23));
		CHECK(a.type == VI_REPORT_DATA || a.type == VI_REPORT_METADATA);
		CHECK(a.block == b.block && a.major == b.major && a.minor == b.minor);
	}
	x = vi_corruption_kmsg(s, size, &a, NULL);
	CHECK(x == 1 || x == 0 || x == -EINVAL);
	if (x == 1) {
		const char *nl = memchr(s, '\n', size);

		CHECK(memmem(s, nl ? (size_t)(nl - s) : size, "device-mapper: verity: ", 23));
	}
	x = vi_corruption_status(s, size, &c, &fec);
	CHECK(x == 0 || x == -EINVAL);
	if (x == 0)
		CHECK(size >= 1 && (s[0] == 'V' || s[0] == 'C'));

	if (vi_corruption_record_parse(s, size, &r) == 0) {
		n = vi_corruption_record_format(line, sizeof(line), &r);
		CHECK(n >= 0 && (size_t)n == size && !memcmp(line, s, size));
		CHECK(vi_corruption_record_parse(line, (size_t)n, &r2) == 0);
		CHECK(!memcmp(&r, &r2, sizeof(r)));
	}
	memset(mnt, 'X', sizeof(mnt));
	if (vi_mountinfo_parse(s, size, &maj, &min, mnt, sizeof(mnt)) == 0)
		CHECK(mnt[0] == '/' && memchr(mnt, '\0', sizeof(mnt)));

	z = malloc(size + 1);
	if (!z)
		return 0;
	memcpy(z, s, size);
	z[size] = '\0';
	if (vi_verity_table_geometry(z, &maj, &min, &bs, &blocks) == 0)
		CHECK(bs >= 512 && !(bs & (bs - 1)));
	free(z);
	return 0;
}
