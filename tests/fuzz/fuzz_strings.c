// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the helpers every untrusted string passes through before it is shown or
 * used — vi_kmsg_format (log records), vi_sanitize (messages, status file), vi_hex_decode (root hashes,
 * salts). Input: one byte choosing the output buffer size, then the string. Oracles:
 *  - a kmsg record is exactly one line: starts with "<", ends with the only '\n', no other byte
 *    outside printable ASCII, never longer than the buffer;
 *  - vi_sanitize output is printable ASCII only, NUL-terminated inside the buffer;
 *  - hex that decodes encodes back to the same digits (lowercased);
 *  - vi_status_parse (a status file read back) gives every key a string inside the input (the
 *    optional ones, slot, store, usr, usrhash, NULL when absent). */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "kmsg.h"
#include "status.h"
#include "strutil.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		CHECK((unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char msg[8192], out[1024], enc[8192], status[8192];
	static uint8_t bin[4096];
	size_t out_size, n, len;

	if (size < 1 || size > sizeof(msg))
		return 0;
	out_size = 1 + data[0] * 4u;              /* 1 .. 1021 */
	n = size - 1;
	memcpy(msg, data + 1, n);
	msg[n] = '\0';                            /* vi_kmsg_format takes a C string */

	len = vi_kmsg_format(out, out_size, KMSG_INFO, 1, msg);
	if (len) {
		CHECK(len < out_size && len == strlen(out));
		CHECK(out[0] == '<' && out[len - 1] == '\n');
		check_printable(out, len - 1);
	}

	len = vi_sanitize(msg, n, out, out_size);
	CHECK(len < out_size && len == strlen(out));
	check_printable(out, len);

	if (vi_hex_decode(msg, n, bin, sizeof(bin), &len) == 0) {
		CHECK(len == n / 2);
		CHECK(vi_hex_encode(bin, len, enc, sizeof(enc)) == 0);
		for (size_t i = 0; i < n; i++)
			CHECK(enc[i] == tolower((unsigned char)msg[i]));
	}

	{
		struct vi_status st;

		memcpy(status, msg, n + 1);
		vi_status_parse(status, &st);
		const char *fields[] = { st.result, st.name,   st.root_hash, st.stage,
					 st.reason, st.action, st.booted };

		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
			CHECK(fields[i] && (fields[i][0] == '\0' ||
					    (fields[i] > status && fields[i] <= status + n &&
					     !strchr(fields[i], '\n'))));
		/* the optional lines: absent (NULL) or a string inside the input */
		const char *opt[] = { st.slot, st.store, st.usr, st.usr_hash };

		for (size_t i = 0; i < sizeof(opt) / sizeof(opt[0]); i++)
			CHECK(!opt[i] || (opt[i] > status && opt[i] <= status + n &&
					  !strchr(opt[i], '\n')));
	}
	return 0;
}
