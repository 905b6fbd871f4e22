// SPDX-License-Identifier: LGPL-2.1-or-later
/* The command line as the kernel, dracut's getarg and systemd split it: one splitter per reader,
 * each a model of that reader's code (include/cmdsplit.h describes each). Which words matter and
 * the check that the readers agree on them are in cmdsplit_check.c. */
#include "cmdsplit.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "strutil.h"

/* ---- storage ------------------------------------------------------------------------------ */

static void split_reset(struct vi_split *out)
{
	out->n_words = 0;
	out->flags = 0;
	out->open_quote = 0;
}

/* A word whose key and value lie in out->text; val_off SIZE_MAX for "no value". */
static int add_word(struct vi_split *out, size_t key_off, size_t key_len, size_t val_off,
		    size_t val_len, unsigned flags)
{
	struct vi_split_word *w;

	if (out->n_words >= out->max_words)
		return -ENOBUFS;
	w = &out->words[out->n_words++];
	w->key = out->text + key_off;
	w->key_len = key_len;
	w->val = val_off == SIZE_MAX ? NULL : out->text + val_off;
	w->val_len = val_off == SIZE_MAX ? 0 : val_len;
	w->flags = flags;
	return 0;
}

/* ---- kernel and dracut: next_arg() ------------------------------------------------------- */

/* The kernel's ctype table marks \t..\r, space and 0xa0 as spaces; dracut copied the table. */
static bool k_space(char ch)
{
	unsigned char c = (unsigned char)ch;

	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

static size_t k_strlen(const char *t, size_t from)
{
	size_t e = from;

	while (t[e])
		e++;
	return e - from;
}

/*
 * One next_arg() call on the NUL-terminated text t from *pos, writing its NULs into t as the C
 * code does (t is our copy), so the key and the value end where the C strings would. Returns 1
 * with the word, or 0 when next_arg() would index t with (unsigned)0 - 1: a word that is a lone
 * '"' at the very end. *next is where the following call starts (blanks skipped).
 */
struct karg {
	size_t key, key_len, val, val_len;   /* val SIZE_MAX: none */
};

static int next_arg_model(char *t, size_t *pos, struct karg *a)
{
	size_t args = *pos, i, equals = 0, next;
	bool in_quote = false, quoted = false;

	if (t[args] == '"') {
		args++;
		in_quote = quoted = true;
	}
	for (i = 0; t[args + i]; i++) {
		if (k_space(t[args + i]) && !in_quote)
			break;
		/* an '=' as the first byte leaves equals at 0, i.e. not found */
		if (equals == 0 && t[args + i] == '=')
			equals = i;
		if (t[args + i] == '"')
			in_quote = !in_quote;
	}
	a->key = args;
	a->val = SIZE_MAX;
	if (equals) {
		t[args + equals] = '\0';
		a->val = args + equals + 1;
		if (t[a->val] == '"') {
			a->val++;
			/* i > equals >= 1 here */
			if (t[args + i - 1] == '"')
				t[args + i - 1] = '\0';
		}
	}
	if (quoted && i == 0)
		return 0;
	if (quoted && t[args + i - 1] == '"')
		t[args + i - 1] = '\0';
	if (t[args + i]) {
		t[args + i] = '\0';
		next = args + i + 1;
	} else {
		next = args + i;
	}
	while (k_space(t[next]))
		next++;
	*pos = next;
	a->key_len = k_strlen(t, a->key);
	a->val_len = a->val == SIZE_MAX ? 0 : k_strlen(t, a->val);
	return 1;
}

static int copy_text(struct vi_split *out, const char *buf, size_t len, size_t *n)
{
	const char *nul = memchr(buf, '\0', len);

	*n = nul ? (size_t)(nul - buf) : len;
	if (*n + 1 > out->text_size)
		return -ENOBUFS;
	memcpy(out->text, buf, *n);
	out->text[*n] = '\0';
	return 0;
}

static bool is_dashdash(const struct karg *a, const char *t)
{
	return a->val == SIZE_MAX && a->key_len == 2 && t[a->key] == '-' && t[a->key + 1] == '-';
}

/* The kernel's in_quote at the end of the line: every '"' of a word toggles it, and words only
 * end outside quotes, so it is the parity of all quotes. */
static bool odd_quotes(const char *t, size_t n)
{
	size_t q = 0;

	for (size_t i = 0; i < n; i++)
		q += t[i] == '"';
	return q & 1;
}

int vi_split_kernel(const char *buf, size_t len, struct vi_split *out)
{
	size_t n, pos = 0;
	unsigned after = 0;
	int r;

	split_reset(out);
	r = copy_text(out, buf, len, &n);
	if (r < 0)
		return r;
	if (odd_quotes(out->text, n)) {
		out->flags |= VI_SPLIT_OPEN_QUOTE;
		out->open_quote = '"';
	}
	/* parse_args(): leading blanks, then next_arg() until the end */
	while (k_space(out->text[pos]))
		pos++;
	while (out->text[pos]) {
		struct karg a;
		unsigned f = after;

		if (next_arg_model(out->text, &pos, &a) == 0) {
			/* the kernel reads t[args + 4 GiB - 1]; what it writes there is not a word */
			out->flags |= VI_SPLIT_FAILS;
			return add_word(out, pos + 1, 0, SIZE_MAX, 0, f);
		}
		if (is_dashdash(&a, out->text)) {
			f |= VI_SPLIT_W_DASHDASH;
			after = VI_SPLIT_W_INITARG;
		}
		r = add_word(out, a.key, a.key_len, a.val, a.val_len, f);
		if (r < 0)
			return r;
	}
	return 0;
}

/* getcmdline(): "  " then, per line of /proc/cmdline (the line plus the kernel's "\n"), a space
 * and the line without blanks and tabs at its ends (`read -r` with the default IFS). */
static int dracut_cmdline(struct vi_split *out, const char *buf, size_t n, size_t *tn)
{
	size_t o = 0, start = 0;

	if (out->text_size < 3)
		return -ENOBUFS;
	out->text[o++] = ' ';
	out->text[o++] = ' ';
	while (start < n) {
		const char *nl = memchr(buf + start, '\n', n - start);
		size_t end = nl ? (size_t)(nl - buf) : n, a = start, b = end;

		while (a < b && (buf[a] == ' ' || buf[a] == '\t'))
			a++;
		while (b > a && (buf[b - 1] == ' ' || buf[b - 1] == '\t'))
			b--;
		if (o + 1 + (b - a) + 1 > out->text_size)
			return -ENOBUFS;
		out->text[o++] = ' ';
		memcpy(out->text + o, buf + a, b - a);
		o += b - a;
		start = end + 1;
	}
	out->text[o] = '\0';
	*tn = o;
	return 0;
}

int vi_split_dracut(const char *buf, size_t len, struct vi_split *out)
{
	const char *nul = memchr(buf, '\0', len);
	size_t n = nul ? (size_t)(nul - buf) : len, tn, pos = 0;
	int r;

	split_reset(out);
	r = dracut_cmdline(out, buf, n, &tn);
	if (r < 0)
		return r;
	if (odd_quotes(out->text, tn)) {
		out->flags |= VI_SPLIT_OPEN_QUOTE;
		out->open_quote = '"';
	}
	/* getarg(): do { next_arg() } while (*cmdline), from the very first byte */
	do {
		struct karg a;

		if (next_arg_model(out->text, &pos, &a) == 0) {
			out->flags |= VI_SPLIT_FAILS;
			return 0;
		}
		r = add_word(out, a.key, a.key_len, a.val, a.val_len, 0);
		if (r < 0)
			return r;
	} while (out->text[pos]);
	return 0;
}

/* ---- systemd: extract_first_word(EXTRACT_UNQUOTE|EXTRACT_RELAX|EXTRACT_RETAIN_ESCAPE) ---- */

static bool sd_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * extract_first_word() over the first line, with EXTRACT_UNQUOTE|EXTRACT_RELAX, and with
 * EXTRACT_RETAIN_ESCAPE unless escapes: then a backslash takes the next byte literally (a blank,
 * a quote, inside quotes too) and vanishes, and a backslash at the end ends the word.
 */
static int sd_split(const char *buf, size_t len, struct vi_split *out, bool escapes)
{
	size_t n = 0, p = 0, o = 0;
	int r;

	split_reset(out);
	/* read_one_line_file(): a line ends at \n, \r or NUL */
	while (n < len && buf[n] != '\n' && buf[n] != '\r' && buf[n] != '\0')
		n++;
	if (n < len && buf[n] != '\0')
		out->flags |= VI_SPLIT_CUT;
	for (;;) {
		size_t start = o, eq = SIZE_MAX;
		char quote = 0;

		while (p < n && sd_space(buf[p]))
			p++;
		if (p >= n)
			break;
		for (; p < n; p++) {
			char c = buf[p];

			if (escapes && c == '\\') {
				if (++p >= n)
					break;
				c = buf[p];
			} else if (quote) {
				if (c == quote) {
					quote = 0;
					continue;
				}
			} else if (c == '\'' || c == '"') {
				quote = c;
				continue;
			} else if (sd_space(c)) {
				break;
			}
			if (o >= out->text_size)
				return -ENOBUFS;
			if (c == '=' && eq == SIZE_MAX)
				eq = o;
			out->text[o++] = c;
		}
		if (quote) {
			out->flags |= VI_SPLIT_OPEN_QUOTE;
			out->open_quote = quote;
		}
		/* proc_cmdline_parse(): key up to the first '=' of the unquoted word */
		r = add_word(out, start, (eq == SIZE_MAX ? o : eq) - start,
			     eq == SIZE_MAX ? SIZE_MAX : eq + 1, eq == SIZE_MAX ? 0 : o - eq - 1,
			     o - start >= 3 && memcmp(out->text + start, "rd.", 3) == 0 ?
			     VI_SPLIT_W_RD : 0);
		if (r < 0)
			return r;
	}
	return 0;
}

int vi_split_systemd(const char *buf, size_t len, struct vi_split *out)
{
	return sd_split(buf, len, out, false);
}

int vi_split_systemd_condition(const char *buf, size_t len, struct vi_split *out)
{
	return sd_split(buf, len, out, true);
}

int vi_split_line(enum vi_split_reader reader, const char *buf, size_t len, struct vi_split *out)
{
	switch (reader) {
	case VI_SPLIT_KERNEL:
		return vi_split_kernel(buf, len, out);
	case VI_SPLIT_DRACUT:
		return vi_split_dracut(buf, len, out);
	case VI_SPLIT_SYSTEMD:
		return vi_split_systemd(buf, len, out);
	case VI_SPLIT_SYSTEMD_CONDITION:
		return vi_split_systemd_condition(buf, len, out);
	default:
		return -EINVAL;
	}
}

const char *vi_split_reader_name(enum vi_split_reader reader)
{
	static const char *const names[] = {
		[VI_SPLIT_KERNEL] = "kernel", [VI_SPLIT_DRACUT] = "dracut",
		[VI_SPLIT_SYSTEMD] = "systemd",
		[VI_SPLIT_SYSTEMD_CONDITION] = "systemd's ConditionKernelCommandLine=",
	};

	return (unsigned)reader < VI_SPLIT__READERS ? names[reader] : NULL;
}
