/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small string helpers shared by the parsers: strict number parsing, booleans, the kernel's
 * dash/underscore-insensitive key comparison, the line form of a name in text and JSON, and shell
 * quoting. Pure functions, no I/O except the FILE* of vi_json_quote and vi_shell_quote. */
#ifndef VERITY_STRUTIL_H
#define VERITY_STRUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

/* Decimal unsigned integer over exactly len bytes: digits only (no sign, no space, no "0x"),
 * at least one digit, no overflow. -EINVAL for junk, -ERANGE for overflow. */
int vi_parse_u64(const char *s, size_t len, uint64_t *ret);
int vi_parse_u32(const char *s, size_t len, uint32_t *ret);

/* C's (and systemd's safe_atou64) spelling: "0x" hex, a leading "0" octal, else decimal; digits
 * only after that, no overflow. For the veritytab words systemd reads that way. */
int vi_parse_u64_c(const char *s, size_t len, uint64_t *ret);

/* systemd's parse_size(): decimal digits with an optional fraction, then an optional binary
 * suffix B, K, M, G, T, P or E (x1024^n); "1.5M" is 1572864 (rounded down). */
int vi_parse_size(const char *s, size_t len, uint64_t *ret);

/* systemd's booleans: 1 yes y true t on / 0 no n false f off (case-insensitive). -EINVAL else. */
int vi_parse_bool(const char *s, size_t len, bool *ret);

/* Compare a command-line key (len bytes) with a NUL-terminated name, treating '-' and '_' as
 * equal, as the kernel's parameq() and systemd's proc_cmdline_key_streq() do. */
bool vi_key_eq(const char *key, size_t len, const char *name);

/* s[0..len) is exactly the NUL-terminated name (byte for byte, unlike vi_key_eq). */
bool vi_str_eq(const char *s, size_t len, const char *name);

/* True when s[0..len) has no control bytes (< 0x20, 0x7f). Bytes >= 0x80 (UTF-8) are allowed. */
bool vi_str_printable(const char *s, size_t len);

/* s[0..len) is an environment name as glibc, systemd and shells treat them: [A-Z_][A-Z0-9_]*,
 * shorter than 64 bytes. */
bool vi_env_name(const char *s, size_t len);

/* s[0..len) starts with the NUL-terminated prefix p. */
bool vi_has_prefix(const char *s, size_t len, const char *p);

/* "WHAT 'VALUE': WHY" with VALUE sanitized, into err; returns -EINVAL. */
int vi_err_value(struct vi_error *err, const char *what, const char *s, size_t len,
		 const char *why);

/* Copy s[0..len) plus a NUL into out; -ENAMETOOLONG if it does not fit (never truncates). */
int vi_strlcpy_exact(char *out, size_t out_size, const char *s, size_t len);

/* Names in output (docs/design.md, "Names in output"). A name that came from a disk, the
 * kernel or another outside source (a file name, a mapping name, a value of a signed file) is
 * written into text in its line form: each byte of printable ASCII (0x20-0x7e) as itself but the
 * backslash, which is doubled ("\\"), and every other byte as "\x" and two lower-case hex digits:
 * control bytes, DEL, and every byte >= 0x80, valid UTF-8 or not (valid UTF-8 still holds C1
 * controls, bidirectional overrides and line separators that move or split a line on a
 * terminal). The line form is printable ASCII, so it can neither end a line nor start a log
 * record nor reach a terminal's escape parser, and it is unambiguous: vi_unescape gives back the
 * bytes. */

/* Room for the line form of n bytes, its NUL included. */
#define VI_ESCAPED_SIZE(n) (4 * (size_t)(n) + 1)

/* The line form of s[0..len) into out, NUL-terminated. Returns its length, or -ENOSPC when it
 * does not fit whole (out is then ""): a name is never cut, so what is shown is the name. */
int vi_escape(const char *s, size_t len, char *out, size_t out_size);

/* The bytes of the line form s[0..len) into out, NUL-terminated. Only what vi_escape writes is
 * accepted: a byte outside printable ASCII, a lone backslash, upper-case hex, a byte escaped that
 * vi_escape writes as itself, and "\x00" (names are C strings) are -EINVAL; so a name read back
 * escapes to the same text. Returns the length, -EINVAL or -ENOSPC. */
int vi_unescape(const char *s, size_t len, char *out, size_t out_size);

/* vi_escape for a message: what does not fit is cut, and the cut announced by "..." (messages
 * are for humans). Always NUL-terminates. Returns the length written. */
size_t vi_sanitize(const char *s, size_t len, char *out, size_t out_size);

/* Write s as a JSON string literal whose value is s's line form (vi_escape): each '"' and '\'
 * of the line form preceded by a backslash, nothing else escaped. The literal is printable ASCII
 * and valid JSON whatever s holds; a reader that prints the value (jq -r) prints the same safe
 * text the journal shows, and vi_unescape of the value gives back the bytes. 0 or -EIO. */
int vi_json_quote(FILE *f, const char *s);

/* Write s as one POSIX-shell word that `eval` turns back into exactly s: '...' quoting, every
 * single quote as '\''. Returns 0 or -EIO. */
int vi_shell_quote(FILE *f, const char *s);

#endif
