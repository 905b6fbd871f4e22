// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the readers of lib/format/managed.c over the same bytes, as a pstore record
 * (vi_pstore_parse) and as the agent's EFI variable text (vi_managed_decode). Oracles besides
 * the sanitizers:
 *  - the record's reading is deterministic; its reason is letters only, NUL-terminated, and
 *    empty exactly when the bytes do not start with a pstore header; dm-verity's end is found
 *    only when its message is in the bytes;
 *  - a variable text that decodes encodes back to the very same bytes (one text per record;
 *    the first form of a degraded line, without " boots=N", comes back with " boots=0"), and
 *    one that does not leaves the record untouched;
 *  - the decision over a decoded record is degraded for a corruption of the same root, refused
 *    exactly when that root's unconfirmed degraded boots reached VI_MANAGED_TRIES, and its next
 *    record encodes; a confirmation leaves no boot unconfirmed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "managed.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	char r1[VI_PSTORE_REASON_MAX], r2[VI_PSTORE_REASON_MAX], text[VI_MANAGED_TEXT_MAX];
	struct vi_managed_record rec, untouched;
	struct vi_managed_decision d;
	struct vi_error err;
	enum vi_pstore_end e1, e2;
	int n;

	memset(r1, 'X', sizeof(r1));
	e1 = vi_pstore_parse(s, size, r1);
	e2 = vi_pstore_parse(s, size, r2);
	CHECK(e1 == e2 && !strcmp(r1, r2));
	CHECK(memchr(r1, '\0', sizeof(r1)));
	for (const char *p = r1; *p; p++)
		CHECK((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'));
	CHECK(r1[0] || e1 == VI_PSTORE_OTHER);
	CHECK(!r1[0] || memchr(s, '#', size));
	if (e1 == VI_PSTORE_CORRUPTION)
		CHECK(memmem(s, size, "dm-verity device corrupted", 26));
	if (e1 == VI_PSTORE_IO_ERROR)
		CHECK(memmem(s, size, "dm-verity device has I/O error", 30));

	memset(&rec, 0x5a, sizeof(rec));
	untouched = rec;
	if (vi_managed_decode(s, size, &rec, &err) < 0) {
		CHECK(!memcmp(&rec, &untouched, sizeof(rec)));
		return 0;
	}
	n = vi_managed_encode(&rec, text, sizeof(text), &err);
	if (size >= 16 && !memcmp(s + size - 16, " state=degraded\n", 16)) {
		/* the first form of a degraded line: the same record, " boots=0" added */
		CHECK(rec.degraded && rec.boots == 0);
		CHECK(n > 0 && (size_t)n == size + 8 && !memcmp(text, s, size - 1) &&
		      !memcmp(text + size - 1, " boots=0\n", 9));
	} else {
		CHECK(n > 0 && (size_t)n == size && !memcmp(text, s, size));
	}
	CHECK(vi_managed_decide(VI_PSTORE_CORRUPTION, &rec, rec.root_hash, rec.root_hash_len,
				&d) == 0);
	CHECK(d.degraded && d.crashed && d.next.degraded);
	CHECK(d.refused == (rec.degraded && rec.boots >= VI_MANAGED_TRIES));
	CHECK(d.next.boots <= VI_MANAGED_BOOTS_MAX && (d.refused || d.next.boots >= 1));
	CHECK(vi_managed_encode(&d.next, text, sizeof(text), &err) > 0);
	if (vi_managed_confirm(&rec, rec.root_hash, rec.root_hash_len, &d.next))
		CHECK(rec.degraded && rec.boots && d.next.degraded && !d.next.boots);
	else
		CHECK(!rec.degraded || !rec.boots);
	return 0;
}
