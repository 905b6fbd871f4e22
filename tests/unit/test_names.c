// SPDX-License-Identifier: LGPL-2.1-or-later
/* Names in output (strutil.h, docs/design.md "Names in output"): the line form (vi_escape), its
 * inverse (vi_unescape), the JSON literal (vi_json_quote), vi_sanitize and the monitor's record,
 * fed the same hostile names, each output asserted byte for byte. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "corruption.h"
#include "strutil.h"

struct hostile {
	const char *name;      /* the bytes (NUL-free) */
	const char *line;      /* its line form */
	const char *json;      /* its JSON literal: the line form, JSON-quoted */
};

/* C1 CSI (U+009B), "2J", a right-to-left override (U+202E), a line separator (U+2028) and an
 * e-acute, all valid UTF-8 (an array: clang-tidy's misc-misleading-bidirectional refuses a
 * string literal that holds the override) */
static const char utf8_name[] = {
	(char)0xc2, (char)0x9b, '2', 'J', (char)0xe2, (char)0x80, (char)0xae,
	(char)0xe2, (char)0x80, (char)0xa8, (char)0xc3, (char)0xa9, '\0',
};

static const struct hostile names[] = {
	/* a forged kernel-log record after a newline, and a terminal's "clear the screen" */
	{ "evil\n<3>verity-init[1]: forged\x1b[2J",
	  "evil\\x0a<3>verity-init[1]: forged\\x1b[2J",
	  "\"evil\\\\x0a<3>verity-init[1]: forged\\\\x1b[2J\"" },
	/* a carriage return that would overwrite the line's start on a terminal */
	{ "ok\rfake", "ok\\x0dfake", "\"ok\\\\x0dfake\"" },
	/* every other control byte, and DEL */
	{ "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0b\x0c\x0e\x0f",
	  "\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08\\x09\\x0b\\x0c\\x0e\\x0f",
	  "\"\\\\x01\\\\x02\\\\x03\\\\x04\\\\x05\\\\x06\\\\x07\\\\x08\\\\x09\\\\x0b\\\\x0c\\\\x0e"
	  "\\\\x0f\"" },
	{ "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1c\x1d\x1e\x1f\x7f",
	  "\\x10\\x11\\x12\\x13\\x14\\x15\\x16\\x17\\x18\\x19\\x1a\\x1c\\x1d\\x1e\\x1f\\x7f",
	  "\"\\\\x10\\\\x11\\\\x12\\\\x13\\\\x14\\\\x15\\\\x16\\\\x17\\\\x18\\\\x19\\\\x1a\\\\x1c"
	  "\\\\x1d\\\\x1e\\\\x1f\\\\x7f\"" },
	/* bytes >= 0x80: the lowest, the highest */
	{ "a\x80z\xff", "a\\x80z\\xff", "\"a\\\\x80z\\\\xff\"" },
	/* invalid UTF-8: a lead byte without its continuation, a UTF-16 surrogate, an overlong
	 * '/', a lone continuation byte */
	{ "\xc3(\xed\xa0\x80\xc0\xaf\xbf", "\\xc3(\\xed\\xa0\\x80\\xc0\\xaf\\xbf",
	  "\"\\\\xc3(\\\\xed\\\\xa0\\\\x80\\\\xc0\\\\xaf\\\\xbf\"" },
	/* valid UTF-8 is escaped too */
	{ utf8_name,
	  "\\xc2\\x9b2J\\xe2\\x80\\xae\\xe2\\x80\\xa8\\xc3\\xa9",
	  "\"\\\\xc2\\\\x9b2J\\\\xe2\\\\x80\\\\xae\\\\xe2\\\\x80\\\\xa8\\\\xc3\\\\xa9\"" },
	/* a backslash is doubled, so a name that spells an escape is told from the byte */
	{ "a\\b", "a\\\\b", "\"a\\\\\\\\b\"" },
	{ "\\x0a", "\\\\x0a", "\"\\\\\\\\x0a\"" },
	/* a quote is JSON's to escape, not the line's */
	{ "say \"hi\"", "say \"hi\"", "\"say \\\"hi\\\"\"" },
	/* printable ASCII is its own line form */
	{ "/etc/rt-one ~{}", "/etc/rt-one ~{}", "\"/etc/rt-one ~{}\"" },
	{ "", "", "\"\"" },
};

static char *json_of(const char *s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(vi_json_quote(f, s), 0);
	assert_int_equal(fclose(f), 0);
	return out;
}

/* The value of a JSON string literal (only the escapes vi_json_quote writes, \" and \\). */
static void json_value(const char *lit, char *out, size_t size)
{
	size_t n = strlen(lit), o = 0;

	assert_true(n >= 2 && lit[0] == '"' && lit[n - 1] == '"');
	for (size_t i = 1; i + 1 < n; i++) {
		if (lit[i] == '\\') {
			i++;
			assert_true(lit[i] == '"' || lit[i] == '\\');
		}
		assert_true(o + 1 < size);
		out[o++] = lit[i];
	}
	out[o] = '\0';
}

static void test_line_form(void **state)
{
	char line[256], back[256], cut[256];

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct hostile *h = &names[i];
		size_t n = strlen(h->name);

		assert_int_equal(vi_escape(h->name, n, line, sizeof(line)), (int)strlen(h->line));
		assert_string_equal(line, h->line);
		for (const char *p = line; *p; p++)
			assert_true(*p >= 0x20 && *p < 0x7f);
		/* recoverable: the bytes come back */
		assert_int_equal(vi_unescape(line, strlen(line), back, sizeof(back)), (int)n);
		assert_memory_equal(back, h->name, n + 1);
		/* a message shows a name the same way when it fits */
		assert_int_equal(vi_sanitize(h->name, n, cut, sizeof(cut)), strlen(h->line));
		assert_string_equal(cut, h->line);
	}
}

static void test_json(void **state)
{
	char value[256];

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *lit = json_of(names[i].name);

		assert_string_equal(lit, names[i].json);
		for (const char *p = lit; *p; p++)
			assert_true(*p >= 0x20 && *p < 0x7f);
		/* what a JSON reader gets is the line form: the same text as the journal's */
		json_value(lit, value, sizeof(value));
		assert_string_equal(value, names[i].line);
		free(lit);
	}
}

static void test_sizes(void **state)
{
	char out[VI_ESCAPED_SIZE(2)];

	(void)state;
	/* the worst case fits VI_ESCAPED_SIZE */
	assert_int_equal(vi_escape("\n\x1b", 2, out, sizeof(out)), 8);
	assert_string_equal(out, "\\x0a\\x1b");
	/* a name is never cut: all of it or nothing */
	assert_int_equal(vi_escape("\n\x1b", 2, out, sizeof(out) - 1), -ENOSPC);
	assert_string_equal(out, "");
	assert_int_equal(vi_escape("abc", 3, out, 3), -ENOSPC);
	assert_int_equal(vi_escape("abc", 3, out, 0), -ENOSPC);
	/* a NUL inside a counted name is a byte like any other */
	assert_int_equal(vi_escape("a\0b", 3, out, sizeof(out)), 6);
	assert_string_equal(out, "a\\x00b");
	assert_int_equal(vi_unescape("ab\\x0a", 6, out, 3), -ENOSPC);
	assert_int_equal(vi_unescape("ab\\x0a", 6, out, 4), 3);
	assert_string_equal(out, "ab\n");
}

/* Only the text vi_escape writes decodes, so a name read back escapes to the same text. */
static void test_unescape_is_strict(void **state)
{
	static const char *const bad[] = {
		"a\nb",        /* a raw control byte */
		"\x1b[2J",     /* a raw escape */
		"\xc3\xa9",    /* a raw byte >= 0x80 */
		"\x7f",        /* DEL */
		"a\\",         /* a lone backslash at the end */
		"a\\b",        /* a backslash before anything but \ or x */
		"\\x0",        /* two digits */
		"\\x0g",
		"\\x0A",       /* upper case: not what vi_escape writes */
		"\\x41",       /* 'A', which vi_escape writes as itself */
		"\\x5c",       /* the backslash, which vi_escape doubles */
		"\\x00",       /* a NUL: a name is a C string */
	};
	char out[64];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(vi_unescape(bad[i], strlen(bad[i]), out, sizeof(out)), -EINVAL);
	assert_int_equal(vi_unescape("", 0, out, sizeof(out)), 0);
	assert_string_equal(out, "");
	assert_int_equal(vi_unescape("\\\\\\x7f", 6, out, sizeof(out)), 2);
	assert_string_equal(out, "\\\x7f");
}

/* The monitor's record keeps the same line form and reads the name back whole. */
static void test_record_keeps_the_name(void **state)
{
	struct vi_corruption_record r = {
		.time = 1, .mapping = "ero", .type = VI_REPORT_DATA, .block = 487, .count = 1,
		.source = "uevent",
	}, back;
	char line[VI_CORRUPTION_LINE_MAX];
	int n;

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char want[400];

		snprintf(r.file, sizeof(r.file), "/run/ero/names/%s", names[i].name);
		snprintf(want, sizeof(want), "time=1 mapping=ero type=data block=487 count=1 "
			 "source=uevent file=/run/ero/names/%s", names[i].line);
		n = vi_corruption_record_format(line, sizeof(line), &r);
		assert_int_equal(n, (int)strlen(want));
		assert_string_equal(line, want);
		assert_int_equal(vi_corruption_record_parse(line, (size_t)n, &back), 0);
		assert_string_equal(back.file, r.file);
	}
	/* the longest name, every byte escaped, fits a record's line */
	memset(r.file, '\n', sizeof(r.file) - 1);
	r.file[sizeof(r.file) - 1] = '\0';
	n = vi_corruption_record_format(line, sizeof(line), &r);
	assert_true(n > 0);
	assert_int_equal(vi_corruption_record_parse(line, (size_t)n, &back), 0);
	assert_memory_equal(back.file, r.file, sizeof(r.file));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_form),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_unescape_is_strict),
		cmocka_unit_test(test_record_keeps_the_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
