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

/* The flags a live, instantiated key shows: 'I', and neither revoked ('R'), dead ('D'),
 * negative ('N') nor invalidated ('i'): "I-" "-" ? ? "-" "-" (Q and U do not matter). */
static bool flags_live(const char *w, size_t n)
{
	return n == 7 && w[0] == 'I' && w[1] == '-' && w[2] == '-' && w[5] == '-' && w[6] == '-';
}

int vi_proc_keys_line(const char *line, size_t len, const char *name, int32_t *ret_serial,
		      unsigned *ret_links)
{
	const char *w[FIELDS_BEFORE_TYPE + 1], *p = line, *end = line + len, *desc;
	size_t n[FIELDS_BEFORE_TYPE + 1], desc_len, name_len = strlen(name);
	uint32_t serial = 0;
	long links;

	if (!name_len || name_len > 64 || strpbrk(name, " :\n"))
		return -EINVAL;
	/* the serial starts the line; a NUL or a line end inside is no line of the kernel's */
	if (!len || *line == ' ' || memchr(line, '\0', len) || memchr(line, '\n', len))
		return -ENOENT;
	for (unsigned i = 0; i <= FIELDS_BEFORE_TYPE; i++) {
		n[i] = next_word(&p, end, &w[i]);
		if (!n[i])
			return -ENOENT;
	}
	/* serial: %08x of a positive int32 */
	if (n[0] != 8)
		return -ENOENT;
	for (size_t i = 0; i < 8; i++) {
		if (!is_hex(w[0][i]))
			return -ENOENT;
		serial = serial << 4 | (uint32_t)(w[0][i] <= '9' ? w[0][i] - '0' : w[0][i] - 'a' + 10);
	}
	if (!serial || serial > INT32_MAX || !flags_live(w[1], n[1]))
		return -ENOENT;
	if (n[5] != 1 || w[5][0] != '0' || n[7] != 7 || memcmp(w[7], "keyring", 7))
		return -ENOENT;
	/* the description's first word: the name and ':' (then " empty" or " N") */
	desc_len = next_word(&p, end, &desc);
	if (desc_len != name_len + 1 || memcmp(desc, name, name_len) || desc[name_len] != ':')
		return -ENOENT;
	desc_len = next_word(&p, end, &desc);
	links = link_count(desc, desc_len);
	if (links < 0)
		return -ENOENT;
	*ret_serial = (int32_t)serial;
	if (ret_links)
		*ret_links = (unsigned)links;
	return 0;
}
