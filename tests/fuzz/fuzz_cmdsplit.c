// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target, differential: the command line as the kernel, dracut's getarg and systemd
 * split it (lib/config/cmdsplit.c). Oracles besides the sanitizers (no splitter reads or writes outside
 * its input and storage):
 *  - the kernel splitter and the agent's own tokenizer (vi_cmdline_next, lib/config/cmdtoken.c) read
 *    every word alike: same key, same value or none, "--" at the same places — two
 *    implementations of next_arg() written apart;
 *  - every word of every splitter lies inside its text, and the documented storage bounds
 *    (VI_SPLIT_MAX_WORDS, VI_SPLIT_TEXT_SIZE) always suffice;
 *  - when vi_cmdline_split_check() accepts, the words that matter are the same, in the same
 *    order, for all four readers (systemd's parser and its ConditionKernelCommandLine=), none of them fails, and no quote is left open;
 *  - a refusal has a NUL-terminated reason; the check is deterministic. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmdtoken.h"
#include "cmdsplit.h"
#include "config.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void split(enum vi_split_reader rd, const char *buf, size_t len, struct vi_split *s)
{
	s->max_words = VI_SPLIT_MAX_WORDS(len);
	s->text_size = VI_SPLIT_TEXT_SIZE(len);
	s->words = malloc(s->max_words * sizeof(*s->words));
	s->text = malloc(s->text_size);
	CHECK(s->words && s->text);
	CHECK(vi_split_line(rd, buf, len, s) == 0);
	CHECK(s->n_words <= s->max_words);
	for (size_t i = 0; i < s->n_words; i++) {
		const struct vi_split_word *w = &s->words[i];

		CHECK(w->key >= s->text && w->key + w->key_len <= s->text + s->text_size);
		if (w->val)
			CHECK(w->val >= s->text && w->val + w->val_len <= s->text + s->text_size);
		else
			CHECK(w->val_len == 0);
	}
}

/* The kernel splitter against vi_cmdline_next() on the same bytes (up to a NUL, where the
 * kernel's C string ends). */
static void same_as_tokenizer(const char *buf, size_t len, const struct vi_split *k)
{
	const char *nul = memchr(buf, '\0', len);
	size_t n = nul ? (size_t)(nul - buf) : len, pos = 0, i = 0;
	struct vi_cmdline_tok tok;
	int r;

	while ((r = vi_cmdline_next(buf, n, &pos, &tok)) > 0) {
		const struct vi_split_word *w;

		CHECK(i < k->n_words);
		w = &k->words[i++];
		if (r == 2) {
			CHECK(w->flags & VI_SPLIT_W_DASHDASH);
			CHECK(!w->val && w->key_len == 2 && memcmp(w->key, "--", 2) == 0);
			continue;
		}
		CHECK(!(w->flags & VI_SPLIT_W_DASHDASH));
		CHECK(w->key_len == tok.key_len && memcmp(w->key, tok.key, tok.key_len) == 0);
		CHECK(!w->val == !tok.val);
		if (w->val)
			CHECK(w->val_len == tok.val_len && memcmp(w->val, tok.val, tok.val_len) == 0);
	}
	CHECK(i == k->n_words);
}

static size_t next_matter(const struct vi_split *s, size_t i)
{
	while (i < s->n_words && !vi_split_key_matters(s->words[i].key, s->words[i].key_len))
		i++;
	return i;
}

/* values: the values too, not only the keys and whether there is one */
static bool word_eq(const struct vi_split_word *a, const struct vi_split_word *b, bool values)
{
	return a->key_len == b->key_len && memcmp(a->key, b->key, a->key_len) == 0 &&
	       !a->val == !b->val &&
	       (!values || !a->val ||
		(a->val_len == b->val_len && memcmp(a->val, b->val, a->val_len) == 0));
}

static void same_matters(const struct vi_split *a, const struct vi_split *b, bool values)
{
	size_t i = next_matter(a, 0), j = next_matter(b, 0);

	while (i < a->n_words || j < b->n_words) {
		CHECK(i < a->n_words && j < b->n_words);
		CHECK(word_eq(&a->words[i], &b->words[j], values));
		i = next_matter(a, i + 1);
		j = next_matter(b, j + 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct vi_split s[VI_SPLIT__READERS];
	struct vi_error err, err2;
	int r, r2;

	for (int i = 0; i < VI_SPLIT__READERS; i++)
		split((enum vi_split_reader)i, buf, size, &s[i]);
	same_as_tokenizer(buf, size, &s[VI_SPLIT_KERNEL]);

	memset(&err, 0x55, sizeof(err));
	r = vi_cmdline_split_check(buf, size, &err);
	memset(&err2, 0x55, sizeof(err2));
	r2 = vi_cmdline_split_check(buf, size, &err2);
	CHECK(r == r2);
	if (r < 0) {
		CHECK(r == -EINVAL || r == -E2BIG);
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		CHECK(strcmp(err.msg, err2.msg) == 0);
	} else {
		CHECK(r == 0 && size <= VI_MAX_CMDLINE && !memchr(buf, '\0', size));
		for (int i = 0; i < VI_SPLIT__READERS; i++)
			CHECK(!(s[i].flags & (VI_SPLIT_FAILS | VI_SPLIT_OPEN_QUOTE)));
		same_matters(&s[VI_SPLIT_KERNEL], &s[VI_SPLIT_SYSTEMD], true);
		/* the conditions test which keys are there: their values may differ */
		same_matters(&s[VI_SPLIT_KERNEL], &s[VI_SPLIT_SYSTEMD_CONDITION], false);
		same_matters(&s[VI_SPLIT_KERNEL], &s[VI_SPLIT_DRACUT], true);
	}
	for (int i = 0; i < VI_SPLIT__READERS; i++) {
		free(s[i].words);
		free(s[i].text);
	}
	return 0;
}
