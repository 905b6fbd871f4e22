// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the whole kernel command line (untrusted unless signed: a bootloader may let
 * anyone edit it). Runs the tokenizer and the full parser (lib/config/cmdline.c with
 * cmdline_handover.c and cmdline_resolve.c), then prints the accepted configuration in both
 * styles. Oracles besides the sanitizers:
 *  - the tokenizer makes progress, and every token lies inside the input;
 *  - an accepted configuration, printed as key=value for humans, contains no control byte other
 *    than the line ends (strings from the command line are sanitized before they are shown);
 *  - printed for the shell (dracut hooks `eval` it), every line is NAME='...' with quotes inside
 *    only as '\'' — no value can end the quoting and become code;
 *  - the parser is deterministic and leaves cfg untouched on failure. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdtoken.h"
#include "cmdline.h"
#include "config_print.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_tokens(const char *buf, size_t len)
{
	struct vi_cmdline_tok tok;
	size_t pos = 0, last = 0;
	unsigned n = 0;
	int r;

	/* every word, "--" included (2): each call moves on, nothing points outside buf */
	while ((r = vi_cmdline_next(buf, len, &pos, &tok)) > 0) {
		CHECK(r <= 2);
		CHECK(pos > last || n == 0);
		CHECK(pos <= len);
		if (r == 1) {
			CHECK(tok.key >= buf && tok.key + tok.key_len <= buf + len);
			if (tok.val)
				CHECK(tok.val >= buf && tok.val + tok.val_len <= buf + len);
		}
		CHECK(++n <= len + 1);
		last = pos;
	}
}

/* One line of `verity-init parse --shell`: NAME='...' where a quote inside the value appears only
 * as '\'' — the form that `eval` in a POSIX shell turns back into the value, never into code. */
static void check_shell_line(const char *l, size_t n)
{
	size_t i = 0;

	while (i < n && ((l[i] >= 'A' && l[i] <= 'Z') || (l[i] >= '0' && l[i] <= '9') || l[i] == '_'))
		i++;
	CHECK(i > 0 && i + 3 <= n && l[i] == '=' && l[i + 1] == '\'' && l[n - 1] == '\'');
	for (i += 2; i < n - 1; i++) {
		if (l[i] != '\'')
			continue;
		CHECK(i + 4 <= n - 1 && memcmp(l + i, "'\\''", 4) == 0);
		i += 3;
	}
}

static void check_print(const struct vi_config *cfg, enum vi_print_style style)
{
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);

	CHECK(f != NULL);
	CHECK(vi_config_print(f, cfg, style) == 0);
	CHECK(fclose(f) == 0);
	if (style == VI_PRINT_KV)
		for (size_t i = 0; i < out_len; i++) {
			unsigned char c = (unsigned char)out[i];

			CHECK(c == '\n' || (c >= 0x20 && c != 0x7f));
		}
	if (style == VI_PRINT_SHELL) {
		size_t start = 0;

		CHECK(out_len > 0 && out[out_len - 1] == '\n');
		for (size_t i = 0; i < out_len; i++)
			if (out[i] == '\n') {
				check_shell_line(out + start, i - start);
				start = i + 1;
			}
	}
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vi_config cfg, cfg2, before;
	const char *buf = (const char *)data;
	struct vi_error err;
	int r, r2;

	check_tokens(buf, size);

	/* the dracut modules' reading (past "--"): same guarantees, checked on its own */
	memset(&cfg2, 0xa5, sizeof(cfg2));
	memcpy(&before, &cfg2, sizeof(cfg2));
	memset(&err, 0x55, sizeof(err));
	r = vi_cmdline_parse_buf(buf, size, VI_CMDLINE_PAST_DASHDASH, &cfg2, &err);
	if (r < 0) {
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		CHECK(memcmp(&cfg2, &before, sizeof(cfg2)) == 0);
	} else {
		CHECK(memchr(cfg2.init, '\0', sizeof(cfg2.init)) != NULL);
		check_print(&cfg2, VI_PRINT_SHELL);
	}

	memset(&cfg, 0xa5, sizeof(cfg));
	memcpy(&before, &cfg, sizeof(cfg));
	memset(&err, 0x55, sizeof(err));
	r = vi_cmdline_parse_buf(buf, size, 0, &cfg, &err);
	if (r < 0) {
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		CHECK(memcmp(&cfg, &before, sizeof(cfg)) == 0);
		return 0;
	}
	CHECK(size <= VI_MAX_CMDLINE);
	memset(&cfg2, 0xa5, sizeof(cfg2));
	r2 = vi_cmdline_parse_buf(buf, size, 0, &cfg2, &err);
	CHECK(r2 == r && memcmp(&cfg, &cfg2, sizeof(cfg)) == 0);

	CHECK(cfg.root.params.salt_size <= VERITY_MAX_SALT);
	CHECK(cfg.root.root_hash_len <= VERITY_MAX_DIGEST);
	CHECK(cfg.recovery.root_hash_len <= VERITY_MAX_DIGEST);
	CHECK(memchr(cfg.root.data.spec, '\0', sizeof(cfg.root.data.spec)) != NULL);
	CHECK(memchr(cfg.init, '\0', sizeof(cfg.init)) != NULL);

	check_print(&cfg, VI_PRINT_KV);
	check_print(&cfg, VI_PRINT_SHELL);
	return 0;
}
