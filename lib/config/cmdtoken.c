// SPDX-License-Identifier: LGPL-2.1-or-later
/* The kernel command line's words, with the kernel's own rules (include/cmdtoken.h). */
#include "cmdtoken.h"

/* The kernel's isspace(): its ctype table also marks 0xa0 (Latin-1 NBSP) as a space. */
static bool k_isspace(char ch)
{
	unsigned char c = (unsigned char)ch;

	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

int vi_cmdline_next(const char *buf, size_t len, size_t *pos, struct vi_cmdline_tok *tok)
{
	size_t p = *pos, start, end, equals = 0;
	bool in_quote = false, quoted = false;

	while (p < len && k_isspace(buf[p]))
		p++;
	if (p >= len) {
		*pos = len;
		return 0;
	}
	start = p;
	if (buf[p] == '"') {
		start++;
		in_quote = quoted = true;
	}
	for (end = start; end < len; end++) {
		if (k_isspace(buf[end]) && !in_quote)
			break;
		/* As next_arg(): an '=' as the word's first character does not split. */
		if (equals == 0 && buf[end] == '=' && end > start)
			equals = end;
		if (buf[end] == '"')
			in_quote = !in_quote;
	}

	tok->key = buf + start;
	if (equals == 0) {
		tok->key_len = end - start;
		tok->val = NULL;
		tok->val_len = 0;
		if (quoted && end > start && buf[end - 1] == '"')
			tok->key_len--;
	} else {
		size_t vs = equals + 1, ve = end;

		tok->key_len = equals - start;
		if (vs < end && buf[vs] == '"') {
			vs++;
			if (buf[end - 1] == '"')
				ve = end - 1;
		}
		if (quoted && buf[end - 1] == '"' && ve > end - 1)
			ve = end - 1;
		tok->val = buf + vs;
		tok->val_len = ve > vs ? ve - vs : 0;
	}
	*pos = end < len ? end + 1 : end;
	if (!tok->val && tok->key_len == 2 && tok->key[0] == '-' && tok->key[1] == '-')
		return 2;
	return 1;
}
