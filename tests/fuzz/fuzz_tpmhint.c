// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the two parsers of lib/boot/tpmhint.c over the same bytes, as a kernel
 * command line (vi_tpm_cmdline_hides) and as one /dev/kmsg record (vi_kmsg_record_tpm).
 * Oracles besides the sanitizers:
 *  - both are deterministic; the word is printable ASCII, NUL-terminated, and found only when
 *    the line has "acpi" or "blacklist" in it;
 *  - a record answers -EINVAL, 0 or 1; -EINVAL leaves the sequence number alone; 1 only for a
 *    record whose priority is below 8 (the kernel's) and whose text holds "efi: " and "TPM",
 *    with the number the record starts with after its first comma. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tpmhint.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool has(const char *s, size_t len, const char *needle)
{
	return memmem(s, len, needle, strlen(needle)) != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	char w1[96], w2[96], *z;
	uint64_t seq = 7, seq2 = 7;
	bool h1, h2;
	int r;

	memset(w1, 'X', sizeof(w1));
	h1 = vi_tpm_cmdline_hides(s, size, w1, sizeof(w1));
	h2 = vi_tpm_cmdline_hides(s, size, w2, sizeof(w2));
	CHECK(h1 == h2);
	if (h1) {
		CHECK(memchr(w1, '\0', sizeof(w1)));
		CHECK(!strcmp(w1, w2));
		for (const char *p = w1; *p; p++)
			CHECK(*p >= 0x20 && *p < 0x7f);
		CHECK(has(s, size, "acpi") || has(s, size, "blacklist"));
	}

	r = vi_kmsg_record_tpm(s, size, &seq);
	CHECK(r == -EINVAL || r == 0 || r == 1);
	CHECK(vi_kmsg_record_tpm(s, size, &seq2) == r);
	if (r == -EINVAL) {
		CHECK(seq == 7);
		return 0;
	}
	/* the numbers again from a terminated copy (the parser never needs the NUL) */
	z = malloc(size + 1);
	CHECK(z);
	memcpy(z, data, size);
	z[size] = '\0';
	CHECK(seq2 == seq && strtoull(strchr(z, ',') + 1, NULL, 10) == seq);
	if (r == 1)
		CHECK(strtoull(z, NULL, 10) < 8 && has(s, size, "efi: ") && has(s, size, "TPM"));
	free(z);
	return 0;
}
