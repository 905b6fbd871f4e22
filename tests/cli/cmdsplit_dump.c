// SPDX-License-Identifier: LGPL-2.1-or-later
/* Test driver for tests/cli/cmdsplit_oracle_test.sh: prints what lib/config/cmdsplit.c says each reader
 * of a command line sees, in forms the script can hold against the real programs.
 *
 *   cmdsplit_dump words READER LINE   (kernel, dracut, systemd or condition) one word per line: FLAGS KEYHEX VALHEX ("-": no value,
 *                                     "" hex is "=" for an empty value), then "flags N"
 *   cmdsplit_dump dracut LINE         "fails" if dracut-getarg dies on LINE, else per key (once,
 *                                     printable, no blank or '='): "KEY RC OUTHEX" = what
 *                                     `dracut-getarg KEY` exits with and prints (hex, "-": nothing)
 *   cmdsplit_dump systemd LINE        "W\tWORD": a word ConditionKernelCommandLine= must see,
 *                                     "N\tWORD": a word of the kernel's it must not see,
 *                                     "ROOT\tV" / "USR\tV": the last root= / mount.usr= of
 *                                     systemd's parser (the fstab generator's), "-": none
 *   cmdsplit_dump check LINE          "ok" or the refusal, exit 0 / 1
 *   cmdsplit_dump raw LINE            the bytes of LINE (escapes undone), nothing else
 * LINE may use \n, \r, \t, \v, \f, \\ and \xHH escapes (so a test can spell any byte). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdsplit.h"
#include "config.h"

static size_t unescape(const char *s, char *out)
{
	size_t o = 0;

	while (*s) {
		char c = *s++;

		if (c == '\\' && *s) {
			char e = *s++;

			switch (e) {
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'v': c = '\v'; break;
			case 'f': c = '\f'; break;
			case 'x': {
				char h[3] = { s[0], s[0] ? s[1] : '\0', '\0' };

				c = (char)strtoul(h, NULL, 16);
				s += strlen(h);
				break;
			}
			default: c = e; break;
			}
		}
		out[o++] = c;
	}
	return o;
}

static void hex(const char *s, size_t n)
{
	if (n == 0)
		fputs("=", stdout);
	for (size_t i = 0; i < n; i++)
		printf("%02x", (unsigned char)s[i]);
}

static int split(enum vi_split_reader rd, const char *buf, size_t len, struct vi_split *s)
{
	s->max_words = VI_SPLIT_MAX_WORDS(len);
	s->text_size = VI_SPLIT_TEXT_SIZE(len);
	s->words = calloc(s->max_words, sizeof(*s->words));
	s->text = malloc(s->text_size);
	if (!s->words || !s->text)
		return -ENOMEM;
	return vi_split_line(rd, buf, len, s);
}

/* Safe to pass as an argument / compare as a line: printable ASCII, nothing special to the
 * programs that take it. */
static bool plain(const char *s, size_t n, const char *forbid)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e || strchr(forbid, s[i]))
			return false;
	return true;
}

static void words(const struct vi_split *s)
{
	for (size_t i = 0; i < s->n_words; i++) {
		const struct vi_split_word *w = &s->words[i];

		printf("%x ", w->flags);
		hex(w->key, w->key_len);
		putchar(' ');
		if (w->val)
			hex(w->val, w->val_len);
		else
			putchar('-');
		putchar('\n');
	}
	printf("flags %x\n", s->flags);
}

/* dracut-getarg KEY: the last word with that exact key decides; a value is printed with puts(). */
static void dracut(const struct vi_split *s)
{
	if (s->flags & VI_SPLIT_FAILS) {
		puts("fails");
		return;
	}
	for (size_t i = 0; i < s->n_words; i++) {
		const struct vi_split_word *w = &s->words[i], *last = w;
		bool seen = false;

		if (!plain(w->key, w->key_len, " ="))
			continue;
		for (size_t j = 0; j < s->n_words; j++) {
			const struct vi_split_word *x = &s->words[j];

			if (x->key_len != w->key_len || memcmp(x->key, w->key, w->key_len) != 0)
				continue;
			if (j < i)
				seen = true;
			last = x;
		}
		if (seen)
			continue;
		printf("%.*s 0 ", (int)w->key_len, w->key);
		if (last->val) {
			for (size_t k = 0; k < last->val_len; k++)
				printf("%02x", (unsigned char)last->val[k]);
			puts("0a");
		} else {
			puts("-");
		}
	}
}

static bool has_word(const struct vi_split *s, const char *t, size_t n)
{
	for (size_t i = 0; i < s->n_words; i++) {
		const struct vi_split_word *w = &s->words[i];
		size_t wl = w->key_len + (w->val ? 1 + w->val_len : 0);

		if (wl == n && memcmp(w->key, t, w->key_len) == 0 &&
		    (!w->val || (t[w->key_len] == '=' && memcmp(w->val, t + w->key_len + 1,
								w->val_len) == 0)))
			return true;
	}
	return false;
}

static bool has_key(const struct vi_split *s, const char *k, size_t n)
{
	for (size_t i = 0; i < s->n_words; i++)
		if (s->words[i].key_len == n && memcmp(s->words[i].key, k, n) == 0)
			return true;
	return false;
}

static void print_word(const char *tag, const struct vi_split_word *w)
{
	printf("%s\t%.*s", tag, (int)w->key_len, w->key);
	if (w->val)
		printf("=%.*s", (int)w->val_len, w->val);
	putchar('\n');
}

/* Words that ConditionKernelCommandLine= can carry unchanged: printable, not starting with its
 * '!' or '|' prefixes, no '%' (a specifier), no blank at either end (the unit parser trims). */
static bool condition_word(const struct vi_split_word *w)
{
	const char *k = w->key;

	if (!plain(w->key, w->key_len, "%") || k[0] == '!' || k[0] == '|' || k[0] == ' ')
		return false;
	if (!w->val)
		return k[w->key_len - 1] != ' ';
	return w->val_len == 0 || (plain(w->val, w->val_len, "%") && w->val[w->val_len - 1] != ' ');
}

static void last_value(const struct vi_split *s, const char *tag, const char *key)
{
	const struct vi_split_word *last = NULL;

	for (size_t i = 0; i < s->n_words; i++)
		if (s->words[i].val && s->words[i].key_len == strlen(key) &&
		    memcmp(s->words[i].key, key, strlen(key)) == 0)
			last = &s->words[i];
	if (!last)
		printf("%s\t-\n", tag);
	else if (plain(last->val, last->val_len, "%"))
		printf("%s\t%.*s\n", tag, (int)last->val_len, last->val);
}

static void systemd(const struct vi_split *sd, const struct vi_split *cond,
		    const struct vi_split *k)
{
	for (size_t i = 0; i < cond->n_words; i++)
		if (condition_word(&cond->words[i]))
			print_word("W", &cond->words[i]);
	for (size_t i = 0; i < k->n_words; i++) {
		const struct vi_split_word *w = &k->words[i];
		char t[VI_MAX_CMDLINE + 2];
		size_t n = w->key_len;

		if (!condition_word(w) || n + 1 + w->val_len > VI_MAX_CMDLINE)
			continue;
		memcpy(t, w->key, n);
		if (w->val) {
			t[n++] = '=';
			memcpy(t + n, w->val, w->val_len);
			n += w->val_len;
		}
		/* a bare word as the parameter also matches KEY=anything */
		if (!has_word(cond, t, n) && (w->val || !has_key(cond, w->key, w->key_len)))
			print_word("N", w);
	}
	last_value(sd, "ROOT", "root");
	last_value(sd, "USR", "mount.usr");
}

/* The modes that split: 0, 1 when splitting fails, 2 for an unknown mode or reader. */
static int run(const char *mode, const char *reader, const char *buf, size_t len,
	       struct vi_split s[VI_SPLIT__READERS])
{
	static const char *const names[] = {
		[VI_SPLIT_KERNEL] = "kernel", [VI_SPLIT_DRACUT] = "dracut",
		[VI_SPLIT_SYSTEMD] = "systemd", [VI_SPLIT_SYSTEMD_CONDITION] = "condition",
	};

	for (int i = 0; i < VI_SPLIT__READERS; i++)
		if (split((enum vi_split_reader)i, buf, len, &s[i]) < 0) {
			fprintf(stderr, "split failed\n");
			return 1;
		}
	if (strcmp(mode, "words") == 0) {
		for (int i = 0; i < VI_SPLIT__READERS; i++)
			if (strcmp(reader, names[i]) == 0) {
				words(&s[i]);
				return 0;
			}
		return 2;
	}
	if (strcmp(mode, "dracut") == 0)
		dracut(&s[VI_SPLIT_DRACUT]);
	else if (strcmp(mode, "systemd") == 0)
		systemd(&s[VI_SPLIT_SYSTEMD], &s[VI_SPLIT_SYSTEMD_CONDITION], &s[VI_SPLIT_KERNEL]);
	else
		return 2;
	return 0;
}

int main(int argc, char **argv)
{
	static char buf[VI_MAX_CMDLINE * 4 + 1];
	struct vi_split s[VI_SPLIT__READERS] = { 0 };
	const char *mode = argc > 1 ? argv[1] : "";
	const char *line = argc > 2 ? argv[argc - 1] : NULL;
	size_t len;
	int rc;

	if (!line || strlen(line) >= sizeof(buf) ||
	    (strcmp(mode, "words") == 0 && argc != 4) || (strcmp(mode, "words") != 0 && argc != 3)) {
		fprintf(stderr, "usage: %s words kernel|dracut|systemd|condition LINE | dracut LINE | "
			"systemd LINE | check LINE | raw LINE\n", argv[0]);
		return 2;
	}
	len = unescape(line, buf);
	if (strcmp(mode, "raw") == 0)
		return fwrite(buf, 1, len, stdout) == len ? 0 : 1;
	if (strcmp(mode, "check") == 0) {
		struct vi_error err = { { 0 } };
		int r = vi_cmdline_split_check(buf, len, &err);

		puts(r == 0 ? "ok" : err.msg);
		return r == 0 ? 0 : 1;
	}
	rc = run(mode, argc == 4 ? argv[2] : "", buf, len, s);
	for (int i = 0; i < VI_SPLIT__READERS; i++) {
		free(s[i].words);
		free(s[i].text);
	}
	return rc;
}
