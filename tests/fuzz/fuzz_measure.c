// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the measurement log record built from an event string (vi_measure_record;
 * what the TPM answers to the measurement is fuzz_tpm2's). Input: the bytes, cut at the first
 * NUL, as the event string. Oracles besides the sanitizers: a record is built only from
 * printable ASCII without '"' or '\', starts with 0x1E, ends with the one newline, holds no
 * other control byte, and contains the event verbatim. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "tpm2.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char rec[VI_MEASURE_RECORD_MAX];
	struct vi_tpm_digest d = { .alg = VI_TPM_ALG_SHA256 };
	struct vi_error err = { "" };
	char event[VI_MEASURE_EVENT_MAX];
	size_t elen = 0;
	int r;

	while (elen < size && elen + 1 < sizeof(event) && data[elen])
		elen++;
	memcpy(event, data, elen);
	event[elen] = '\0';
	r = vi_measure_record(14, &d, 1, event, "0123456789abcdef0123456789abcdef", 1, rec,
			      sizeof(rec), &err);
	if (r < 0) {
		CHECK(r == -EINVAL || r == -ENOBUFS);
		return 0;
	}
	CHECK((size_t)r == strlen(rec) && r > 2);
	CHECK(rec[0] == 0x1e && rec[r - 1] == '\n');
	for (int i = 1; i < r - 1; i++)
		CHECK(rec[i] >= 0x20 && rec[i] < 0x7f);
	for (size_t i = 0; i < elen; i++)
		CHECK(event[i] > 0x20 && event[i] < 0x7f && event[i] != '"' && event[i] != '\\');
	CHECK(strstr(rec, event));
	return 0;
}
