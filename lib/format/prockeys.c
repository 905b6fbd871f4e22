// SPDX-License-Identifier: LGPL-2.1-or-later
#include "prockeys.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* The fields before TYPE: serial, flags, usage, timeout, perm, uid, gid. */
#define FIELDS_BEFORE_TYPE 7

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* The next blank-separated word of [*p, end): its start and length; *p after it. */
static size_t next_word(const char **p, const char *end, const char **ret_word)
{
	const char *s = *p;

	while (s < end && *s == ' ')
		s++;
	*ret_word = s;
	while (s < end && *s != ' ')
		s++;
	*p = s;
	return (size_t)(s - *ret_word);
}

/* The keyring's link count after "name:": "empty" 0, else decimal digits; -1 otherwise. */
static long link_count(const char *w, size_t n)
{
	long v = 0;

	if (n == 5 && !memcmp(w, "empty", 5))
		return 0;
	if (!n || n > 9)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (w[i] < '0' || w[i] > '9')
			return -1;
		v = v * 10 + (w[i] - '0');
	}
	return v;
}

/* One line [s, end): the serial when it is the keyring `name` of uid 0, else 0; *ret_links its
 * link count. */
static int32_t match_line(const char *s, const char *end, const char *name, size_t name_len,
			  unsigned *ret_links)
{
	const char *w[FIELDS_BEFORE_TYPE + 1], *p = s, *desc;
	size_t n[FIELDS_BEFORE_TYPE + 1], desc_len;
	long links;
	uint32_t serial = 0;

	if (s == end || *s == ' ')
		return 0;   /* the serial starts the line */
	for (unsigned i = 0; i <= FIELDS_BEFORE_TYPE; i++) {
		n[i] = next_word(&p, end, &w[i]);
		if (!n[i])
			return 0;
	}
	/* serial: %08x of a positive int32 */
	if (n[0] != 8)
		return 0;
	for (size_t i = 0; i < 8; i++) {
		if (!is_hex(w[0][i]))
			return 0;
		serial = serial << 4 | (uint32_t)(w[0][i] <= '9' ? w[0][i] - '0' : w[0][i] - 'a' + 10);
	}
	if (!serial || serial > INT32_MAX)
		return 0;
	if (n[5] != 1 || w[5][0] != '0' || n[7] != 7 || memcmp(w[7], "keyring", 7))
		return 0;
	/* the description's first word: the name and ':' (then " empty" or " N") */
	desc_len = next_word(&p, end, &desc);
	if (desc_len != name_len + 1 || memcmp(desc, name, name_len) || desc[name_len] != ':')
		return 0;
	links = link_count(desc, next_word(&p, end, &desc));
	if (links < 0)
		return 0;
	*ret_links = (unsigned)links;
	return (int32_t)serial;
}

int vi_proc_keys_find_keyring(const char *text, size_t len, const char *name, int32_t *ret_serial,
			      unsigned *ret_links)
{
	unsigned links = 0;

	const char *p = text, *end = text + len;
	size_t name_len = strlen(name);

	if (!name_len || name_len > 64 || strpbrk(name, " :\n"))
		return -EINVAL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
		int32_t serial = memchr(p, '\0', (size_t)(eol - p))
					 ? 0
					 : match_line(p, eol, name, name_len, &links);

		if (serial > 0) {
			*ret_serial = serial;
			if (ret_links)
				*ret_links = links;
			return 0;
		}
		p = nl ? nl + 1 : end;
	}
	return -ENOENT;
}
