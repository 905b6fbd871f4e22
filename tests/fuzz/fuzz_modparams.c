// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: a module's parameter string built from modprobe.d text, the kernel command
 * line and forced words (vi_modparams_build). Input: one byte choosing the module and the size
 * of the output buffer, then conf, NUL, cmdline, NUL, forced (a missing part is NULL). Oracles
 * besides the sanitizers (out is allocated to exactly out_size):
 *  - the result is 0, -EINVAL or -E2BIG, with a NUL-terminated message; out is "" on failure;
 *  - out is NUL-terminated within min(out_size, VI_MODPARAMS_MAX), has no control byte, and is
 *    words joined by single spaces;
 *  - read back with the kernel's tokenizer, no word is "--" and every word's name is a parameter
 *    name given for THIS module: MODULE.NAME in the command line or the forced words (MODULE
 *    compared with '-' and '_' equal), or a word of the modprobe.d text;
 *  - the forced words of this module are the last words, in their order, with their values
 *    (they win over the others);
 *  - the builder is deterministic. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmdtoken.h"
#include "modules.h"
#include "strutil.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const modules[] = { "dm_verity", "dm-mod", "m", "ext4" };
static const size_t sizes[] = { 1, 8, 64, 200, VI_MODPARAMS_MAX, VI_MODPARAMS_MAX + 100 };

/* NAME[0..nlen) occurs in buf as MODULE.NAME (a word's key, before any "--" for the command
 * line, anywhere for forced words). */
static bool given_as_word(const char *buf, size_t len, const char *module, const char *name,
			  size_t nlen, bool stop_at_dashes)
{
	struct vi_cmdline_tok t;
	size_t pos = 0;
	int r;

	if (!buf)
		return false;
	while ((r = vi_cmdline_next(buf, len, &pos, &t)) > 0) {
		const char *dot;

		if (r == 2) {
			if (stop_at_dashes)
				return false;
			continue;
		}
		dot = memchr(t.key, '.', t.key_len);
		if (dot && vi_key_eq(t.key, (size_t)(dot - t.key), module) &&
		    t.key_len - (size_t)(dot - t.key) - 1 == nlen && memcmp(dot + 1, name, nlen) == 0)
			return true;
	}
	return false;
}

/* In modprobe.d text a name starts a word: after a space as the kernel's isspace() has them
 * (0xa0 too), a quote, or a joined line. */
static bool given_in_conf(const char *conf, size_t len, const char *name, size_t nlen)
{
	for (size_t i = 1; i + nlen <= len; i++) {
		unsigned char b = (unsigned char)conf[i - 1];

		if ((b == ' ' || (b >= '\t' && b <= '\r') || b == 0xa0 || b == '"') &&
		    memcmp(conf + i, name, nlen) == 0)
			return true;
	}
	return false;
}

/* The text with its backslash-newline pairs taken out, as modprobe joins lines (a backslash
 * before another byte keeps both); dst has room for len bytes. */
static size_t join_lines(const char *src, size_t len, char *dst)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		if (src[i] == '\\' && i + 1 < len) {
			if (src[i + 1] != '\n') {
				dst[n++] = src[i];
				dst[n++] = src[i + 1];
			}
			i++;
			continue;
		}
		dst[n++] = src[i];
	}
	return n;
}

static void check_forced_last(const char *out, const char *module, const char *forced)
{
	struct vi_cmdline_tok want[VI_MODPARAMS_MAX_WORDS + 1], got[VI_MODPARAMS_MAX_WORDS + 1];
	struct vi_cmdline_tok t;
	size_t pos = 0, nw = 0, ng = 0, len = strlen(out);

	while (vi_cmdline_next(forced, strlen(forced), &pos, &t) == 1) {
		const char *dot = memchr(t.key, '.', t.key_len);

		if (!dot || !vi_key_eq(t.key, (size_t)(dot - t.key), module))
			continue;
		CHECK(nw < VI_MODPARAMS_MAX_WORDS);
		t.key_len -= (size_t)(dot - t.key) + 1;
		t.key = dot + 1;
		want[nw++] = t;
	}
	pos = 0;
	while (vi_cmdline_next(out, len, &pos, &t) == 1) {
		CHECK(ng < VI_MODPARAMS_MAX_WORDS);
		got[ng++] = t;
	}
	CHECK(nw <= ng);
	for (size_t i = 0; i < nw; i++) {
		const struct vi_cmdline_tok *a = &want[i], *b = &got[ng - nw + i];

		CHECK(a->key_len == b->key_len && memcmp(a->key, b->key, a->key_len) == 0);
		CHECK(!a->val == !b->val);
		CHECK(!a->val || (a->val_len == b->val_len && memcmp(a->val, b->val, a->val_len) == 0));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *parts[3] = { NULL, NULL, NULL };
	size_t lens[3] = { 0, 0, 0 };
	const char *module, *p, *end;
	struct vi_cmdline_tok t;
	struct vi_error err;
	char *in, *out, *again, *joined;
	size_t out_size, limit, len, pos = 0, joined_len;
	unsigned words = 0;
	int r, rr;

	if (size < 1)
		return 0;
	module = modules[data[0] % 4];
	out_size = sizes[(data[0] >> 2) % (sizeof(sizes) / sizeof(sizes[0]))];
	limit = out_size < VI_MODPARAMS_MAX ? out_size : VI_MODPARAMS_MAX;
	/* a copy with a NUL after it: forced is a C string */
	in = malloc(size);
	CHECK(in != NULL);
	memcpy(in, data + 1, size - 1);
	in[size - 1] = '\0';
	p = in;
	end = in + size - 1;
	for (int i = 0; i < 3; i++) {
		const char *nul;

		if (p > end)
			break;
		nul = memchr(p, '\0', (size_t)(end - p) + 1);
		parts[i] = p;
		lens[i] = (size_t)(nul - p);
		p = nul + 1;
	}

	joined = malloc(lens[0] + 1);
	CHECK(joined != NULL);
	joined_len = parts[0] ? join_lines(parts[0], lens[0], joined) : 0;

	out = malloc(out_size);
	again = malloc(out_size);
	CHECK(out && again);
	memset(&err, 0x55, sizeof(err));
	r = vi_modparams_build(module, parts[0], lens[0], parts[1], lens[1], parts[2], out,
			       out_size, &err);
	CHECK(r == 0 || r == -EINVAL || r == -E2BIG);
	len = strnlen(out, out_size);
	CHECK(len < limit);
	if (r < 0) {
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		CHECK(len == 0);
	}
	CHECK(vi_str_printable(out, len));
	CHECK(len == 0 || (out[0] != ' ' && out[len - 1] != ' '));
	while ((rr = vi_cmdline_next(out, len, &pos, &t)) > 0) {
		CHECK(rr == 1);
		CHECK(++words <= VI_MODPARAMS_MAX_WORDS);
		CHECK(t.key_len > 0 && t.key_len <= VI_MODPARAM_NAME_MAX);
		CHECK(memchr(t.key, '.', t.key_len) == NULL);
		CHECK(given_as_word(parts[1], lens[1], module, t.key, t.key_len, true) ||
		      given_as_word(parts[2], lens[2], module, t.key, t.key_len, false) ||
		      given_in_conf(joined, joined_len, t.key, t.key_len));
		/* words are separated by one space exactly */
		CHECK(pos >= len || out[pos - 1] == ' ');
		CHECK(pos >= len || out[pos] != ' ');
	}
	if (r == 0 && parts[2])
		check_forced_last(out, module, parts[2]);

	rr = vi_modparams_build(module, parts[0], lens[0], parts[1], lens[1], parts[2], again,
				out_size, NULL);
	CHECK(rr == r);
	CHECK(strcmp(out, again) == 0);
	free(joined);
	free(again);
	free(out);
	free(in);
	return 0;
}
