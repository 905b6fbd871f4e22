// SPDX-License-Identifier: LGPL-2.1-or-later
#include "strutil.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>

#include "hex.h"

int vi_parse_u64(const char *s, size_t len, uint64_t *ret)
{
	uint64_t v = 0;

	if (!s || len == 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		unsigned d;

		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*ret = v;
	return 0;
}

int vi_parse_u32(const char *s, size_t len, uint32_t *ret)
{
	uint64_t v;
	int r = vi_parse_u64(s, len, &v);

	if (r < 0)
		return r;
	if (v > UINT32_MAX)
		return -ERANGE;
	*ret = (uint32_t)v;
	return 0;
}

int vi_parse_u64_c(const char *s, size_t len, uint64_t *ret)
{
	unsigned base = 10;
	uint64_t v = 0;
	size_t i = 0;

	if (!s || len == 0)
		return -EINVAL;
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (len > 1 && s[0] == '0') {
		base = 8;
		i = 1;
	}
	for (; i < len; i++) {
		int n = vi_hex_nibble(s[i]);
		unsigned d;

		if (n < 0 || (unsigned)n >= base)
			return -EINVAL;
		d = (unsigned)n;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*ret = v;
	return 0;
}

int vi_parse_size(const char *s, size_t len, uint64_t *ret)
{
	unsigned shift = 0;
	size_t ilen, flen = 0;
	const char *dot;
	uint64_t v, frac = 0, scale = 1;
	int r;

	if (!s || len == 0)
		return -EINVAL;
	switch (s[len - 1]) {
	case 'B': shift = 0; len--; break;
	case 'K': shift = 10; len--; break;
	case 'M': shift = 20; len--; break;
	case 'G': shift = 30; len--; break;
	case 'T': shift = 40; len--; break;
	case 'P': shift = 50; len--; break;
	case 'E': shift = 60; len--; break;
	default: break;
	}
	dot = memchr(s, '.', len);
	ilen = dot ? (size_t)(dot - s) : len;
	r = vi_parse_u64(s, ilen, &v);
	if (r < 0)
		return r;
	if (dot) {
		/* a fraction of the unit, rounded down: "1.5M" */
		flen = len - ilen - 1;
		if (flen == 0 || flen > 18 || vi_parse_u64(dot + 1, flen, &frac) < 0)
			return -EINVAL;
		for (size_t i = 0; i < flen; i++)
			scale *= 10;
	}
	if (v > (UINT64_MAX >> shift))
		return -ERANGE;
	v <<= shift;
	if (frac) {
		/* frac < scale <= 10^18 < 2^60 and shift <= 60: the product fits 128 bits, and the
		 * quotient is below 2^shift */
		uint64_t add = (uint64_t)(((unsigned __int128)frac << shift) / scale);

		if (add > UINT64_MAX - v)
			return -ERANGE;
		v += add;
	}
	*ret = v;
	return 0;
}

static bool eq_nocase(const char *s, size_t len, const char *word)
{
	size_t n = strlen(word);

	if (n != len)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != word[i])
			return false;
	}
	return true;
}

int vi_parse_bool(const char *s, size_t len, bool *ret)
{
	static const char *const yes[] = { "1", "yes", "y", "true", "t", "on" };
	static const char *const no[] = { "0", "no", "n", "false", "f", "off" };

	if (!s)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (eq_nocase(s, len, yes[i])) {
			*ret = true;
			return 0;
		}
		if (eq_nocase(s, len, no[i])) {
			*ret = false;
			return 0;
		}
	}
	return -EINVAL;
}

bool vi_str_eq(const char *s, size_t len, const char *name)
{
	return strlen(name) == len && memcmp(s, name, len) == 0;
}

bool vi_key_eq(const char *key, size_t len, const char *name)
{
	size_t n = strlen(name);

	if (n != len)
		return false;
	for (size_t i = 0; i < n; i++) {
		char a = key[i] == '-' ? '_' : key[i];
		char b = name[i] == '-' ? '_' : name[i];

		if (a != b)
			return false;
	}
	return true;
}

bool vi_str_printable(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			return false;
	}
	return true;
}

int vi_strlcpy_exact(char *out, size_t out_size, const char *s, size_t len)
{
	if (out_size == 0 || len > out_size - 1)
		return -ENAMETOOLONG;
	memcpy(out, s, len);
	out[len] = '\0';
	return 0;
}

/* One byte of the line form into piece (room for 4); returns its length. */
static size_t escape_byte(unsigned char c, char piece[4])
{
	static const char hexd[] = "0123456789abcdef";

	if (c == '\\') {
		piece[0] = '\\';
		piece[1] = '\\';
		return 2;
	}
	if (c >= 0x20 && c < 0x7f) {
		piece[0] = (char)c;
		return 1;
	}
	piece[0] = '\\';
	piece[1] = 'x';
	piece[2] = hexd[c >> 4];
	piece[3] = hexd[c & 0xf];
	return 4;
}

int vi_escape(const char *s, size_t len, char *out, size_t out_size)
{
	size_t o = 0;

	if (out_size == 0)
		return -ENOSPC;
	for (size_t i = 0; i < len; i++) {
		char piece[4];
		size_t n = escape_byte((unsigned char)s[i], piece);

		if (n > out_size - 1 - o || o + n > INT_MAX) {
			out[0] = '\0';
			return -ENOSPC;
		}
		memcpy(out + o, piece, n);
		o += n;
	}
	out[o] = '\0';
	return (int)o;
}

int vi_unescape(const char *s, size_t len, char *out, size_t out_size)
{
	size_t o = 0;

	if (out_size == 0)
		return -ENOSPC;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char piece[4];
		int hi, lo;

		if (c < 0x20 || c >= 0x7f)
			return -EINVAL;
		if (c == '\\' && len - i >= 2 && s[i + 1] == '\\') {
			i++;
		} else if (c == '\\' && len - i >= 4 && s[i + 1] == 'x') {
			hi = vi_hex_nibble(s[i + 2]);
			lo = vi_hex_nibble(s[i + 3]);
			if (hi < 0 || lo < 0)
				return -EINVAL;
			c = (unsigned char)(hi << 4 | lo);
			/* only the form vi_escape writes: lower-case digits, a byte it would not
			 * have written as itself, and never a NUL (names are C strings) */
			if (c == 0 || escape_byte(c, piece) != 4 || memcmp(piece, s + i, 4))
				return -EINVAL;
			i += 3;
		} else if (c == '\\') {
			return -EINVAL;
		}
		if (o + 1 >= out_size || o + 1 > INT_MAX)
			return -ENOSPC;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return (int)o;
}

size_t vi_sanitize(const char *s, size_t len, char *out, size_t out_size)
{
	size_t o = 0;

	if (out_size == 0)
		return 0;
	for (size_t i = 0; i < len; i++) {
		char piece[4];
		size_t n = escape_byte((unsigned char)s[i], piece);

		if (o + n > out_size - 1) {
			/* Announce the cut: replace the tail with "..." if there is room for it. */
			size_t dots = out_size - 1 >= 3 ? 3 : out_size - 1;

			if (o > out_size - 1 - dots)
				o = out_size - 1 - dots;
			memset(out + o, '.', dots);
			o += dots;
			break;
		}
		memcpy(out + o, piece, n);
		o += n;
	}
	out[o] = '\0';
	return o;
}

int vi_json_quote(FILE *f, const char *s)
{
	if (fputc('"', f) == EOF)
		return -EIO;
	for (; *s; s++) {
		char piece[4];
		size_t n = escape_byte((unsigned char)*s, piece);

		for (size_t k = 0; k < n; k++) {
			/* JSON's own escapes for the two bytes it reserves; the line form has no
			 * other byte that JSON would not take as it is */
			if ((piece[k] == '"' || piece[k] == '\\') && fputc('\\', f) == EOF)
				return -EIO;
			if (fputc(piece[k], f) == EOF)
				return -EIO;
		}
	}
	if (fputc('"', f) == EOF)
		return -EIO;
	return 0;
}

int vi_shell_quote(FILE *f, const char *s)
{
	if (fputc('\'', f) == EOF)
		return -EIO;
	for (; *s; s++) {
		if (*s == '\'') {
			if (fputs("'\\''", f) == EOF)
				return -EIO;
		} else if (fputc(*s, f) == EOF) {
			return -EIO;
		}
	}
	if (fputc('\'', f) == EOF)
		return -EIO;
	return 0;
}

bool vi_env_name(const char *s, size_t len)
{
	if (len == 0 || len >= 64 || !((s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

bool vi_has_prefix(const char *s, size_t len, const char *p)
{
	size_t n = strlen(p);

	return len >= n && memcmp(s, p, n) == 0;
}

int vi_err_value(struct vi_error *err, const char *what, const char *s, size_t len,
		 const char *why)
{
	char v[80];

	vi_sanitize(s, len, v, sizeof(v));
	return vi_err(err, "%s '%s': %s", what, v, why);
}
