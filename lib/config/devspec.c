// SPDX-License-Identifier: LGPL-2.1-or-later
/* Device specs, paths and mapping names as the command line, tables and manifests write them
 * (include/devspec.h). Pure: no I/O. */
#include "devspec.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base64.h"
#include "p7s.h"
#include "hex.h"
#include "strutil.h"

/* The bytes device names, udev's /dev/disk/by-* links and tag values really use: letters,
 * digits, "/._-:+@=", non-ASCII (UTF-8 labels) and udev's \xHH escapes. Everything a shell,
 * a systemd unit file or an option list gives a meaning to (quotes, "$", backtick, ";|&<>(){}",
 * globs, "~!#%", whitespace, a lone backslash, ",") is refused: these strings travel into
 * dracut's hooks, generated units and tables, and no real device name needs them. Returns the
 * offset of the first refused byte, or len. */
static size_t token_bad_char(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("/._-:+@=", c))
			continue;
		/* NEL and NBSP are whitespace to the kernel's or to Unicode-aware splitters */
		if (c >= 0x80 && c != 0x85 && c != 0xa0)
			continue;
		if (c == '\\' && i + 3 < len && s[i + 1] == 'x' && vi_hex_nibble(s[i + 2]) >= 0 &&
		    vi_hex_nibble(s[i + 3]) >= 0) {
			i += 3;
			continue;
		}
		return i;
	}
	return len;
}

static int token_chars_check(const char *what, const char *s, size_t len,
			     struct vi_error *err)
{
	size_t bad = token_bad_char(s, len);
	char v[80], ch[8];

	if (bad == len)
		return 0;
	vi_sanitize(s, len, v, sizeof(v));
	vi_sanitize(s + bad, 1, ch, sizeof(ch));
	return vi_err(err, "%s '%s': character '%s' is not allowed (letters, digits, "
		      "'/._-:+@=' and \\xHH escapes only)", what, v, ch);
}

int vi_devspec_chars_check(const char *what, const char *s, size_t len,
			   struct vi_error *err)
{
	return token_chars_check(what, s, len, err);
}

/* Absolute path: "/" followed by components that are not empty, "." or "..", in the character
 * set of token_bad_char (no whitespace, control bytes, commas or shell syntax). */
int vi_abspath_check(const char *s, size_t len, struct vi_error *err)
{
	size_t comp = 1;

	if (len == 0 || s[0] != '/')
		return vi_err_value(err, "path", s, len, "not an absolute path");
	if (len >= VI_MAX_PATH)
		return vi_err_value(err, "path", s, len, "too long");
	if (!vi_str_printable(s, len))
		return vi_err_value(err, "path", s, len, "contains control characters");
	if (memchr(s, ' ', len) || memchr(s, ',', len))
		return vi_err_value(err, "path", s, len, "contains a space or comma");
	if (token_bad_char(s, len) != len)
		return token_chars_check("path", s, len, err);
	for (size_t i = 1; i <= len; i++) {
		size_t n;

		if (i < len && (s[i] == ' ' || s[i] == ','))
			return vi_err_value(err, "path", s, len, "contains a space or comma");
		if (i < len && s[i] != '/')
			continue;
		n = i - comp;
		if (n == 0)
			return vi_err_value(err, "path", s, len, "empty path component");
		if ((n == 1 && s[comp] == '.') || (n == 2 && s[comp] == '.' && s[comp + 1] == '.'))
			return vi_err_value(err, "path", s, len, "'.' or '..' component");
		comp = i + 1;
	}
	return 0;
}

int vi_init_path_check(const char *s, size_t len, struct vi_error *err)
{
	static const char *const api[] = { "/dev/", "/proc/", "/sys/", "/run/" };
	int r = vi_abspath_check(s, len, err);

	if (r < 0)
		return r;
	/* init is checked on the verified root, then the switch puts the initramfs' /dev, /proc,
	 * /sys and /run on top of it: a path there would exec another file */
	for (size_t i = 0; i < sizeof(api) / sizeof(api[0]); i++)
		if (vi_has_prefix(s, len, api[i]))
			return vi_err_value(err, "path", s, len,
				      "under /dev, /proc, /sys or /run, which the switch covers with "
				      "the initramfs' own: not a file of the verified root");
	return 0;
}

static int check_uuid_chars(const char *what, const char *s, size_t len, size_t max,
			    struct vi_error *err)
{
	if (len == 0 || len > max)
		return vi_err_value(err, what, s, len, "empty or too long");
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') ||
		      c == '-'))
			return vi_err_value(err, what, s, len, "only hex digits and '-' are allowed");
	}
	return 0;
}

int vi_devspec_check(const char *s, size_t len, bool allow_majmin, struct vi_error *err)
{
	int r;

	if (len == 0)
		return vi_err(err, "empty device");
	if (len >= VI_MAX_PATH)
		return vi_err_value(err, "device", s, len, "too long");
	if (!vi_str_printable(s, len))
		return vi_err_value(err, "device", s, len, "contains control characters");
	/* no name has one, and it could not be written back (the recovery line, `parse`) */
	if (memchr(s, '"', len))
		return vi_err_value(err, "device", s, len, "contains a double quote");
	if (vi_has_prefix(s, len, "/")) {
		if (!vi_has_prefix(s, len, "/dev/") || len == 5)
			return vi_err_value(err, "device", s, len, "a device path must be under /dev/");
		r = vi_abspath_check(s, len, err);
		return r < 0 ? r : VI_DEV_PATH;
	}
	if (vi_has_prefix(s, len, "UUID=")) {
		/* Filesystem UUIDs: 8-4-4-4-12, or shorter serials such as FAT's "1234-ABCD". */
		r = check_uuid_chars("UUID", s + 5, len - 5, 36, err);
		return r < 0 ? r : VI_DEV_UUID;
	}
	if (vi_has_prefix(s, len, "PARTUUID=")) {
		/* GPT 8-4-4-4-12, or MBR "SSSSSSSS-PP"; the kernel's "/PARTNROFF=" is not taken. */
		r = check_uuid_chars("PARTUUID", s + 9, len - 9, 36, err);
		return r < 0 ? r : VI_DEV_PARTUUID;
	}
	if (vi_has_prefix(s, len, "LABEL=")) {
		if (len == 6)
			return vi_err(err, "empty LABEL=");
		return VI_DEV_LABEL;
	}
	if (vi_has_prefix(s, len, "PARTLABEL=")) {
		if (len == 10)
			return vi_err(err, "empty PARTLABEL=");
		return VI_DEV_PARTLABEL;
	}
	if (allow_majmin) {
		const char *colon = memchr(s, ':', len);
		uint32_t maj, min;

		if (colon && vi_parse_u32(s, (size_t)(colon - s), &maj) == 0 &&
		    vi_parse_u32(colon + 1, len - (size_t)(colon - s) - 1, &min) == 0 &&
		    maj < 4096 && min < (1u << 20))
			return VI_DEV_MAJMIN;
	}
	return vi_err_value(err, "device", s, len,
		      allow_majmin ? "not /dev/..., MAJ:MIN, UUID=, PARTUUID=, LABEL= or PARTLABEL="
				   : "not /dev/..., UUID=, PARTUUID=, LABEL= or PARTLABEL=");
}

int vi_devspec_normalize(const char *s, size_t len, char *out, size_t out_size, size_t *ret_len)
{
	static const struct {
		const char *link, *tag;
	} links[] = {
		{ "/dev/disk/by-uuid/",      "UUID=" },
		{ "/dev/disk/by-partuuid/",  "PARTUUID=" },
		{ "/dev/disk/by-label/",     "LABEL=" },
		{ "/dev/disk/by-partlabel/", "PARTLABEL=" },
	};
	size_t o = 0;

	if (out_size == 0)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		size_t ln = strlen(links[i].link), tn = strlen(links[i].tag);

		if (!vi_has_prefix(s, len, links[i].link) || len == ln)
			continue;
		if (tn >= out_size)
			return -ENAMETOOLONG;
		memcpy(out, links[i].tag, tn);
		o = tn;
		for (size_t p = ln; p < len; p++) {
			char c = s[p];

			if (c == '/')
				return -EINVAL;   /* a name under by-*, not a path below it */
			if (c == '\\') {
				int hi, lo;

				if (p + 3 >= len || s[p + 1] != 'x' ||
				    (hi = vi_hex_nibble(s[p + 2])) < 0 || (lo = vi_hex_nibble(s[p + 3])) < 0)
					return -EINVAL;
				c = (char)(hi << 4 | lo);
				p += 3;
				/* udev escapes spaces and slashes; a NUL or control byte would cut or
				 * garble the name */
				if ((unsigned char)c < 0x20 || (unsigned char)c == 0x7f)
					return -EINVAL;
			}
			/* nor could a quote or a comma be written back into a command line or an
			 * option list (the recovery root's, `parse` output) and mean the same */
			if (c == '"' || c == '\'' || c == ',')
				return -EINVAL;
			if (o + 1 >= out_size)
				return -ENAMETOOLONG;
			out[o++] = c;
		}
		out[o] = '\0';
		*ret_len = o;
		return 0;
	}
	if (len >= out_size)
		return -ENAMETOOLONG;
	memcpy(out, s, len);
	out[len] = '\0';
	*ret_len = len;
	return 0;
}

enum vi_devspec_kind vi_devspec_kind(const struct vi_devspec *d)
{
	size_t len = strnlen(d->spec, sizeof(d->spec));
	int r;

	if (len == 0)
		return VI_DEV_NONE;
	r = vi_devspec_check(d->spec, len, true, NULL);
	return r < 0 ? VI_DEV_NONE : (enum vi_devspec_kind)r;
}

int vi_location_check(const char *s, size_t len, struct vi_error *err)
{
	int r;

	if (len > 0 && s[0] == '/' && !vi_has_prefix(s, len, "/dev/"))
		return vi_abspath_check(s, len, err);
	r = vi_devspec_chars_check("device", s, len, err);
	if (r < 0)
		return r;
	r = vi_devspec_check(s, len, false, err);
	return r < 0 ? r : 0;
}

int vi_sig_inline_decode(const char *s, size_t len, uint8_t *out, size_t out_size,
			 size_t *ret_len, struct vi_error *err)
{
	const size_t pl = sizeof(VI_SIG_INLINE_PREFIX) - 1;
	int r;

	if (!vi_has_prefix(s, len, VI_SIG_INLINE_PREFIX) ||
	    vi_b64_decode(s + pl, len - pl, out, out_size, ret_len) < 0)
		return vi_err_value(err, "root-hash-signature", s, len,
			      "base64: is not followed by strict (padded, RFC 4648) base64");
	r = vi_p7s_check(out, *ret_len, err);
	if (r < 0 && err) {
		char why[sizeof(err->msg)];

		snprintf(why, sizeof(why), "%s", err->msg);
		vi_err(err, "inline root-hash-signature: %s", why);
	}
	return r;
}

int vi_sig_location_check(const char *s, size_t len, struct vi_error *err)
{
	uint8_t der[VI_MAX_SIG_LOC / 4 * 3];
	size_t n;

	if (len >= VI_MAX_SIG_LOC)
		return vi_err_value(err, "root-hash-signature", s, len, "too long");
	if (!vi_has_prefix(s, len, VI_SIG_INLINE_PREFIX))
		return vi_location_check(s, len, err);
	return vi_sig_inline_decode(s, len, der, sizeof(der), &n, err);
}

/* Mapping names: [A-Za-z0-9][A-Za-z0-9._-]*, below VI_MAX_NAME, and not "control"
 * (/dev/mapper/control is the device-mapper control node). */
int vi_name_check(const char *s, size_t len, struct vi_error *err)
{
	if (len == 0 || len >= VI_MAX_NAME)
		return vi_err_value(err, "mapping name", s, len, "empty or longer than 63 characters");
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
			     (c >= 'A' && c <= 'Z');

		if (!alnum && (i == 0 || (c != '.' && c != '_' && c != '-')))
			return vi_err_value(err, "mapping name", s, len,
				      "use letters, digits, '.', '_', '-' (first a letter/digit)");
	}
	if (len == 7 && memcmp(s, "control", 7) == 0)
		return vi_err(err, "mapping name 'control' is reserved by device-mapper");
	return 0;
}
