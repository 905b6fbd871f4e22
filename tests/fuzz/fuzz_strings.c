// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the helpers every untrusted string passes through before it is shown or
 * used — vi_kmsg_format (log records), the line form of a name (vi_escape, vi_unescape,
 * vi_sanitize for messages and the status file, vi_json_quote), vi_hex_decode (root hashes,
 * salts). Input: one byte choosing the output buffer size, then the string. Oracles:
 *  - a kmsg record is exactly one line: starts with "<", ends with the only '\n', no other byte
 *    outside printable ASCII, never longer than the buffer;
 *  - vi_escape output is printable ASCII, at most 4 bytes a byte, all of it or -ENOSPC;
 *    vi_unescape gives the name back, and accepts text only if escaping what it gives is that
 *    text again; vi_sanitize is vi_escape's text, or a cut of it ending in "...";
 *  - vi_json_quote writes one printable-ASCII JSON literal whose value is vi_escape's text;
 *  - hex that decodes encodes back to the same digits (lowercased);
 *  - vi_status_parse (a status file read back) gives every key a string inside the input (the
 *    optional ones, slot, store, usr, usrhash, NULL when absent). */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
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

/* JSON: s (a C string) as one literal of printable ASCII whose value, \" and \\ undone, is
 * line, s's line form. */
static void check_json(const char *s, const char *line)
{
	char *json = NULL;
	size_t jlen = 0, k = 0, llen = strlen(line);
	FILE *f = open_memstream(&json, &jlen);

	if (!f)
		return;
	CHECK(vi_json_quote(f, s) == 0);
	CHECK(fclose(f) == 0);
	check_printable(json, jlen);
	CHECK(jlen >= 2 && json[0] == '"' && json[jlen - 1] == '"');
	for (size_t i = 1; i + 1 < jlen; i++, k++) {
		CHECK(json[i] != '"');
		if (json[i] == '\\') {
			i++;
			CHECK(i + 1 < jlen && (json[i] == '"' || json[i] == '\\'));
		}
		CHECK(k < llen && json[i] == line[k]);
	}
	CHECK(k == llen);
	free(json);
}

/* The line form of s[0..n) (s[n] is a NUL) and its inverse; sanitized is vi_sanitize's text
 * in a buffer of out_size bytes. */
static void check_line_form(const char *s, size_t n, const char *sanitized, size_t out_size)
{
	static char line[4 * 8192 + 1], back[8192 + 1], again[4 * 8192 + 1], small[1024];
	size_t slen = strlen(sanitized);
	int len, r;

	len = vi_escape(s, n, line, sizeof(line));
	CHECK(len >= 0 && (size_t)len >= n && (size_t)len <= 4 * n && (size_t)len == strlen(line));
	check_printable(line, (size_t)len);
	/* a message's text is the name's, or a cut of it announced by "..." */
	if (slen == (size_t)len)
		CHECK(!strcmp(sanitized, line));
	else
		CHECK(slen < (size_t)len && (slen < 3 || !memcmp(sanitized + slen - 3, "...", 3)));
	/* never cut: all of it, or -ENOSPC and "" */
	r = vi_escape(s, n, small, out_size);
	CHECK(((size_t)len < out_size && r == len && !strcmp(small, line)) ||
	      ((size_t)len >= out_size && r == -ENOSPC && small[0] == '\0'));
	/* recoverable: a NUL-free name comes back whole */
	if (!memchr(s, '\0', n)) {
		CHECK(vi_unescape(line, (size_t)len, back, sizeof(back)) == (int)n);
		CHECK(!memcmp(back, s, n) && back[n] == '\0');
	}
	/* the input read as a line form: only what vi_escape writes decodes */
	r = vi_unescape(s, n, back, sizeof(back));
	CHECK(r == -EINVAL || (r >= 0 && (size_t)r <= n));
	if (r >= 0) {
		CHECK(!memchr(back, '\0', (size_t)r));
		CHECK(vi_escape(back, (size_t)r, again, sizeof(again)) == (int)n);
		CHECK(!memcmp(again, s, n));
	}
	/* the JSON of the name up to its first NUL */
	len = vi_escape(s, strlen(s), line, sizeof(line));
	CHECK(len >= 0);
	check_json(s, line);
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
	check_line_form(msg, n, out, out_size);

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
