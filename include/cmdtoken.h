/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Kernel command-line tokenizer with the kernel's own rules (the kernel's lib/cmdline.c next_arg()):
 * words are separated by whitespace (the kernel's isspace(), which includes 0xa0); a double
 * quote toggles "inside quotes" so spaces do not split; a word that starts with a quote, and a
 * value that starts with a quote, lose that quote and a quote at the very end of the word; other
 * quotes stay. The first "=" splits key and value. A bare "--" ends the kernel's parameters:
 * what follows belongs to init (the caller decides whether to read on). */
#ifndef VERITY_CMDTOKEN_H
#define VERITY_CMDTOKEN_H

#include <stdbool.h>
#include <stddef.h>

struct vi_cmdline_tok {
	const char *key;
	size_t key_len;
	const char *val;      /* NULL when the word has no "=" */
	size_t val_len;
};

/* Next word of buf[0..len) from *pos. Returns 1 with tok set (pointers into buf), 2 at a bare
 * "--" (*pos after it, tok not set), 0 at the end. Pure; never reads past len. */
int vi_cmdline_next(const char *buf, size_t len, size_t *pos, struct vi_cmdline_tok *tok);

#endif
