// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: what the TPM device answers (vi_tpm_response_check, and the digests of a
 * PCR_Event answer, vi_tpm_event_digests) and the measurement log record built from an event
 * string (vi_measure_record). Input: the response bytes; the same bytes, cut at the first NUL,
 * as the event string. Oracles besides the sanitizers:
 *  - the check returns 0, -EPROTO or -EIO, and 0 only for a 10+ byte answer whose size field is
 *    its length and whose response code is 0 (-EIO: the code is reported back);
 *  - digests are taken only from an answer the check accepts, 1 to VI_TPM_MAX_BANKS of them,
 *    each of a known algorithm, none twice, and the list fills the parameters exactly;
 *  - a record is built only from printable ASCII without '"' or '\', starts with 0x1E, ends
 *    with the one newline, holds no other control byte, and contains the event verbatim. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "tpm.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char rec[VI_MEASURE_RECORD_MAX];
	struct vi_tpm_digest d = { .alg = VI_TPM_ALG_SHA256 };
	struct vi_error err = { "" };
	char event[VI_MEASURE_EVENT_MAX];
	size_t elen = 0;
	uint32_t rc = 1;
	int r;

	r = vi_tpm_response_check(data, size, &rc, &err);
	CHECK(r == 0 || r == -EPROTO || r == -EIO);
	CHECK(memchr(err.msg, '\0', sizeof(err.msg)));
	if (r == 0)
		CHECK(size >= 10 && rc == 0 &&
		      ((uint32_t)data[2] << 24 | (uint32_t)data[3] << 16 | (uint32_t)data[4] << 8 |
		       data[5]) == size);
	if (r == -EIO)
		CHECK(rc != 0);
	{
		struct vi_tpm_digest ds[VI_TPM_MAX_BANKS];
		size_t n = 99, used = 4;
		int dr = vi_tpm_event_digests(data, size, ds, &n, &err);

		CHECK(dr == 0 ? r == 0 : n == 0);
		if (dr == 0) {
			CHECK(n >= 1 && n <= VI_TPM_MAX_BANKS);
			for (size_t i = 0; i < n; i++) {
				CHECK(vi_tpm_alg_name(ds[i].alg));
				used += 2 + vi_tpm_alg_size(ds[i].alg);
				for (size_t j = 0; j < i; j++)
					CHECK(ds[j].alg != ds[i].alg);
			}
			CHECK(((uint32_t)data[10] << 24 | (uint32_t)data[11] << 16 |
			       (uint32_t)data[12] << 8 | data[13]) == used);
		}
	}

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
