/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kernel command line as each of its readers splits it. The agent reads it with the kernel's
 * rules (cmdline.h), but dracut's getarg and systemd read the same bytes their own way, and an
 * edited line can make them disagree: `x='"' init=/bin/sh '"'` is one harmless word to the
 * kernel and the agent, while systemd unquotes ' and reads init=/bin/sh. The splitters below
 * model each reader exactly, and vi_cmdline_split_check() refuses a line on which they disagree
 * about any key that matters, or whose quoting is unbalanced.
 *
 * The readers modelled:
 *  - kernel: next_arg() of the kernel's lib/cmdline.c, called by parse_args() (leading blanks
 *    skipped). Only '"' quotes: a quote toggles "inside quotes" anywhere in a word; a leading
 *    quote of the word or of the value is dropped with a quote at the very end of the word. Blanks
 *    are the kernel's isspace(): space, \t \n \v \f \r and 0xa0. A bare "--" ends the
 *    parameters; the words after it are arguments for init. A word that is a lone '"' at the end
 *    of the line makes next_arg() index the buffer with (unsigned)0 - 1: VI_SPLIT_FAILS.
 *  - dracut: dracut 059's dracut-getarg (src/util/util.c), run by getarg/getargbool of
 *    dracut-lib.sh. Its input is not /proc/cmdline itself but $CMDLINE as getcmdline() builds it:
 *    each line read with `read -r` (blanks and tabs at both ends dropped) and appended after a
 *    space, the whole after two more spaces. It carries the kernel's next_arg() (same blanks,
 *    same quotes), is called without skipping leading blanks, does not stop at "--", and dies
 *    (SIGSEGV) on the lone trailing quote: then getargbool answers its default, so rd.shell=0 is
 *    lost. VI_SPLIT_FAILS, and the words read before the crash are kept.
 *  - systemd: systemd 252's proc_cmdline_parse()/proc_cmdline_get_key(): read_one_line_file()
 *    of /proc/cmdline (so only up to the first \n or \r), then extract_first_word() with
 *    EXTRACT_UNQUOTE|EXTRACT_RELAX|EXTRACT_RETAIN_ESCAPE: blanks are space, \t, \n, \r only;
 *    both ' and " quote anywhere in a word and are removed; a backslash is an ordinary byte
 *    (RETAIN_ESCAPE); a quote left open runs to the end of the line (RELAX). Words starting
 *    "rd." are read in the initrd only, and lose the prefix only for callers that pass
 *    PROC_CMDLINE_STRIP_RD_PREFIX: they are kept with it here (VI_SPLIT_W_RD).
 *  - systemd's ConditionKernelCommandLine= (condition.c in 252): the same line read, but
 *    extract_first_word() without EXTRACT_RETAIN_ESCAPE: a backslash takes the next byte
 *    literally (a blank or a quote, inside quotes too) and is removed; one at the very end is
 *    dropped. dracut's systemd units use it: ConditionKernelCommandLine=|rd.break=pre-mount.
 * Every reader stops at a NUL byte. The key is the word up to its first '=' (for the kernel and
 * dracut: the first '=' that is not the word's first byte).
 * The splitters are in lib/config/cmdsplit.c, the keys that matter and the check in
 * lib/config/cmdsplit_check.c. */
#ifndef VERITY_CMDSPLIT_H
#define VERITY_CMDSPLIT_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

enum vi_split_reader {
	VI_SPLIT_KERNEL,
	VI_SPLIT_DRACUT,
	VI_SPLIT_SYSTEMD,
	VI_SPLIT_SYSTEMD_CONDITION,
	VI_SPLIT__READERS
};

/* struct vi_split_word.flags */
enum {
	VI_SPLIT_W_DASHDASH = 1u << 0,   /* kernel: a bare "--" */
	VI_SPLIT_W_INITARG  = 1u << 1,   /* kernel: after the first bare "--": an argument for init */
	VI_SPLIT_W_RD       = 1u << 2,   /* systemd: starts "rd." (read in the initrd only) */
};

/* struct vi_split.flags */
enum {
	VI_SPLIT_FAILS      = 1u << 0,   /* the reader crashes or reads out of bounds on this line */
	VI_SPLIT_OPEN_QUOTE = 1u << 1,   /* the line ends inside a quote for this reader */
	VI_SPLIT_CUT        = 1u << 2,   /* systemd: a line break hides the rest of the line */
};

struct vi_split_word {
	const char *key;        /* into the split's text; not NUL-terminated */
	size_t key_len;
	const char *val;        /* NULL when the word has no '=' */
	size_t val_len;
	unsigned flags;         /* VI_SPLIT_W_* */
};

/* Caller-provided storage. VI_SPLIT_MAX_WORDS(len) words and VI_SPLIT_TEXT_SIZE(len) bytes of
 * text always suffice for a line of len bytes. */
struct vi_split {
	struct vi_split_word *words;
	size_t max_words;
	size_t n_words;         /* out */
	char *text;             /* the bytes the words point into */
	size_t text_size;
	unsigned flags;         /* out: VI_SPLIT_FAILS, ... */
	char open_quote;        /* out: with VI_SPLIT_OPEN_QUOTE, the quote left open */
};

#define VI_SPLIT_MAX_WORDS(len) ((len) / 2 + 2)
#define VI_SPLIT_TEXT_SIZE(len) (2 * (len) + 8)

/* Split buf[0..len) as the named reader does (bytes from a NUL on are not read). 0, or -ENOBUFS
 * when the storage is too small (the words and text are then incomplete); -EINVAL for a bad
 * reader. */
int vi_split_kernel(const char *buf, size_t len, struct vi_split *out);
int vi_split_dracut(const char *buf, size_t len, struct vi_split *out);
int vi_split_systemd(const char *buf, size_t len, struct vi_split *out);
int vi_split_systemd_condition(const char *buf, size_t len, struct vi_split *out);
int vi_split_line(enum vi_split_reader reader, const char *buf, size_t len, struct vi_split *out);

/* "kernel", "dracut", "systemd", "systemd's ConditionKernelCommandLine=" */
const char *vi_split_reader_name(enum vi_split_reader reader);

/* Does a word with this key matter to anyone: a key the agent reads, one that decides the root,
 * init, the initrd's shells or the kernel's security setup, the systemd., rd., verity.,
 * dm-verity., dm-mod. and ipe. namespaces, systemd's runlevel words, "--", and environment names
 * ([A-Z_][A-Z0-9_]*, handed to init). '-' and '_' are the same in keys, as the kernel and
 * systemd compare them. */
bool vi_split_key_matters(const char *key, size_t len);

/* 0 when the four readers read every word that matters the same, in the same order. -EINVAL
 * with err naming the key (sanitized) and why otherwise, and for unbalanced quoting (an odd
 * number of '"', a quote systemd leaves open, the line on which dracut's getarg crashes), a NUL
 * byte, or a word that matters after "--" (an argument for init to the kernel, a setting to
 * systemd and dracut). -E2BIG above VI_MAX_CMDLINE bytes, -ENOMEM. */
int vi_cmdline_split_check(const char *buf, size_t len, struct vi_error *err);

#endif
