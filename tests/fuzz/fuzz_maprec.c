// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the record of the mappings dracut's setup made (vi_maprec_parse), read by
 * pre-pivot from the run directory. Oracles besides the sanitizers: the record is untouched on
 * failure and the reason a string; an accepted record has at most VI_MAPREC_MAX entries with
 * distinct, non-empty names and only the bytes the grammar allows; the grammar is canonical, so
 * formatting the record gives back the input byte for byte; each entry compares equal to
 * itself and unequal to a table one byte longer. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maprec.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool printable(const char *s, unsigned char lo)
{
	for (; *s; s++)
		if ((unsigned char)*s < lo || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vi_maprec rec, before;
	static char text[VI_MAPREC_TEXT_MAX], longer[VI_MAPREC_LINE_MAX + 1];
	struct vi_error err;
	size_t len = 0;

	memset(&rec, 0xa5, sizeof(rec));
	memcpy(&before, &rec, sizeof(rec));
	memset(&err, 0x55, sizeof(err));
	if (vi_maprec_parse((const char *)data, size, &rec, &err) < 0) {
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		CHECK(memcmp(&rec, &before, sizeof(rec)) == 0);
		return 0;
	}
	CHECK(rec.n <= VI_MAPREC_MAX);
	for (unsigned i = 0; i < rec.n; i++) {
		const struct vi_maprec_entry *e = &rec.e[i];

		CHECK(memchr(e->name, '\0', sizeof(e->name)) && e->name[0] && printable(e->name, 0x21));
		CHECK(memchr(e->uuid, '\0', sizeof(e->uuid)) && printable(e->uuid, 0x21));
		CHECK(memchr(e->table, '\0', sizeof(e->table)) && e->table[0] &&
		      printable(e->table, 0x20));
		CHECK(vi_maprec_find(&rec, e->name) == e);
		CHECK(vi_maprec_compare(e, e->uuid, e->table, &err) == 0);
		snprintf(longer, sizeof(longer), "%s ", e->table);
		CHECK(vi_maprec_compare(e, e->uuid, longer, &err) < 0);
	}
	CHECK(vi_maprec_format(&rec, text, sizeof(text), &len) == 0);
	CHECK(len == size && memcmp(text, data, size) == 0);
	return 0;
}
