// SPDX-License-Identifier: LGPL-2.1-or-later
/* The check that the command line's readers agree (include/cmdsplit.h): the table of the keys
 * that matter, the comparison of the readers' splits (cmdsplit.c) word by word over those keys,
 * and the reason given when they differ. */
#include "cmdsplit.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "strutil.h"

/* ---- which keys matter --------------------------------------------------------------------- */

/*
 * One table. A word matters when its key is a name below, or starts with a namespace below
 * (MT_PREFIX). '-' and '_' compare equal, as in the kernel's parameq() and systemd's
 * proc_cmdline_key_streq(), so "dm_mod." is "dm-mod.".
 */
enum { MT_EXACT, MT_PREFIX };

static const struct {
	const char *name;
	int how;
} matters[] = {
	/* read by the agent (lib/config/cmdline.c keys[]), where not covered by a namespace below */
	{ "roothash",            MT_EXACT },
	{ "usrhash",             MT_EXACT },
	{ "mount.usr",           MT_PREFIX },   /* mount.usr, mount.usrfstype, mount.usrflags */
	{ "rootfallback",        MT_EXACT },
	{ "root.journaldev",     MT_EXACT },
	{ "real_init",           MT_EXACT },
	{ "rdbreak",             MT_EXACT },
	{ "rdshell",             MT_EXACT },
	{ "root",                MT_EXACT },
	{ "rootfstype",          MT_EXACT },
	{ "rootflags",           MT_EXACT },
	{ "init",                MT_EXACT },
	{ "ro",                  MT_EXACT },
	/* what else decides the root, its init and the kernel's security setup */
	{ "rw",                  MT_EXACT },
	{ "rdinit",              MT_EXACT },
	{ "resume",              MT_EXACT },
	{ "lsm",                 MT_EXACT },
	{ "security",            MT_EXACT },
	{ "lockdown",            MT_EXACT },
	{ "module.sig_enforce",  MT_EXACT },
	/* namespaces: systemd's (systemd.verity*, systemd.mount-extra, systemd.unit, ...), the
	 * initrd's (rd.break, rd.shell, rd.distroinit, rd.* of every key above), ours, the
	 * kernel's dm-verity and dm-init modules, IPE */
	{ "systemd.",            MT_PREFIX },
	{ "rd.",                 MT_PREFIX },
	{ "verity.",             MT_PREFIX },
	{ "dm-verity.",          MT_PREFIX },
	{ "dm-mod.",             MT_PREFIX },
	{ "ipe.",                MT_PREFIX },
	/* runlevel words systemd (rlmap[]) and SysV init read */
	{ "emergency",           MT_EXACT },
	{ "rescue",              MT_EXACT },
	{ "single",              MT_EXACT },
	{ "s",                   MT_EXACT },
	{ "S",                   MT_EXACT },
	{ "-s",                  MT_EXACT },
	{ "-b",                  MT_EXACT },
	{ "b",                   MT_EXACT },
	{ "1",                   MT_EXACT },
	{ "2",                   MT_EXACT },
	{ "3",                   MT_EXACT },
	{ "4",                   MT_EXACT },
	{ "5",                   MT_EXACT },
	/* the end of the kernel's parameters */
	{ "--",                  MT_EXACT },
};

static bool key_char_eq(char a, char b)
{
	return a == b || ((a == '-' || a == '_') && (b == '-' || b == '_'));
}

static bool key_prefix(const char *k, size_t n, const char *name)
{
	size_t m = strlen(name);

	if (n < m)
		return false;
	for (size_t i = 0; i < m; i++)
		if (!key_char_eq(k[i], name[i]))
			return false;
	return true;
}

bool vi_split_key_matters(const char *key, size_t len)
{
	/* the kernel hands NAME=value words to init as its environment */
	if (vi_env_name(key, len))
		return true;
	for (size_t i = 0; i < sizeof(matters) / sizeof(matters[0]); i++)
		if (key_prefix(key, len, matters[i].name) &&
		    (matters[i].how == MT_PREFIX || strlen(matters[i].name) == len))
			return true;
	return false;
}

/* ---- the check ----------------------------------------------------------------------------- */

/* values: compare the values too, not only the keys and whether there is one */
static bool word_eq(const struct vi_split_word *a, const struct vi_split_word *b, bool values)
{
	if (a->key_len != b->key_len || memcmp(a->key, b->key, a->key_len) != 0)
		return false;
	if (!a->val || !b->val)
		return !a->val && !b->val;
	return !values || (a->val_len == b->val_len && memcmp(a->val, b->val, a->val_len) == 0);
}

static bool key_is(const struct vi_split_word *w, const char *k, size_t n)
{
	return w->key_len == n && memcmp(w->key, k, n) == 0;
}

/* Index of the next word from i on that matters, or s->n_words. */
static size_t next_matter(const struct vi_split *s, size_t i)
{
	while (i < s->n_words && !vi_split_key_matters(s->words[i].key, s->words[i].key_len))
		i++;
	return i;
}

/* Do a and b read the words with key k alike (same values, same count)? */
static bool same_for_key(const struct vi_split *a, const struct vi_split *b, const char *k,
			 size_t n, bool values)
{
	size_t i = 0, j = 0;

	for (;;) {
		while (i < a->n_words && !key_is(&a->words[i], k, n))
			i++;
		while (j < b->n_words && !key_is(&b->words[j], k, n))
			j++;
		if (i >= a->n_words || j >= b->n_words)
			return i >= a->n_words && j >= b->n_words;
		if (!word_eq(&a->words[i], &b->words[j], values))
			return false;
		i++;
		j++;
	}
}

/*
 * Compare the words that matter of the kernel's split k and another reader's o, in order. On a
 * difference, *key points at the key to name: of the two words where the sequences part, the one
 * whose own occurrences differ between the readers (else the kernel's, as the order differs).
 */
static bool agree(const struct vi_split *k, const struct vi_split *o, bool values,
		  const struct vi_split_word **key)
{
	size_t i = next_matter(k, 0), j = next_matter(o, 0);

	for (;;) {
		const struct vi_split_word *a = i < k->n_words ? &k->words[i] : NULL;
		const struct vi_split_word *b = j < o->n_words ? &o->words[j] : NULL;

		if (!a && !b)
			return true;
		if (!a || !b || !word_eq(a, b, values)) {
			if (a && !same_for_key(k, o, a->key, a->key_len, values))
				*key = a;
			else if (b && !same_for_key(k, o, b->key, b->key_len, values))
				*key = b;
			else
				*key = a ? a : b;
			return false;
		}
		i = next_matter(k, i + 1);
		j = next_matter(o, j + 1);
	}
}

static bool has_byte(const char *buf, size_t len, const char *set)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] && strchr(set, buf[i]))
			return true;
	return false;
}

/* Why systemd reads the line differently from the kernel, from what the line contains. */
static const char *systemd_why(const char *buf, size_t len, const struct vi_split *sd)
{
	if (sd->flags & VI_SPLIT_CUT)
		return "line break: systemd reads /proc/cmdline only up to its first \\n or \\r";
	if (has_byte(buf, len, "'"))
		return "quotes: ' is a quote to systemd, not to the kernel";
	if (has_byte(buf, len, "\v\f\xa0"))
		return "blanks: the kernel also splits at \\v, \\f and 0xa0, systemd does not";
	if (has_byte(buf, len, "\""))
		return "quotes: systemd removes every \", the kernel only those opening and closing a "
		       "word or value";
	return "the words are split differently";
}

static const char *dracut_why(const char *buf, size_t len)
{
	if (has_byte(buf, len, "\n"))
		return "line break: dracut's getcmdline joins the lines of /proc/cmdline, dropping "
		       "the blanks at their ends";
	return "the words are split differently";
}

static int refuse_key(struct vi_error *err, const struct vi_split_word *w, const char *who,
		      const char *why)
{
	char kn[64];

	vi_sanitize(w->key, w->key_len, kn, sizeof(kn));
	return vi_err(err, "command line: '%s' is read differently by %s (%s)", kn, who, why);
}

static int check_splits(const char *buf, size_t len, struct vi_split s[VI_SPLIT__READERS],
			struct vi_error *err)
{
	const struct vi_split *k = &s[VI_SPLIT_KERNEL], *d = &s[VI_SPLIT_DRACUT],
			      *sd = &s[VI_SPLIT_SYSTEMD], *sc = &s[VI_SPLIT_SYSTEMD_CONDITION];
	const struct vi_split_word *w = NULL;

	if (d->flags & VI_SPLIT_FAILS)
		return vi_err(err, "command line: unbalanced double quote (dracut's getarg would "
			      "crash and its rd.shell=0 be lost)");
	if (k->flags & VI_SPLIT_OPEN_QUOTE)
		return vi_err(err, "command line: unbalanced double quote (the kernel reads the rest "
			      "of the line as one word)");
	if ((sd->flags & VI_SPLIT_OPEN_QUOTE) && (sd->flags & VI_SPLIT_CUT))
		return vi_err(err, "command line: unbalanced %s quote for systemd, which reads "
			      "/proc/cmdline only up to its first \\n or \\r",
			      sd->open_quote == '\'' ? "single" : "double");
	if (sd->flags & VI_SPLIT_OPEN_QUOTE)
		return vi_err(err, "command line: unbalanced %s quote (systemd reads the rest of the "
			      "line as one word)", sd->open_quote == '\'' ? "single" : "double");
	if (sc->flags & VI_SPLIT_OPEN_QUOTE)
		return vi_err(err, "command line: unbalanced %s quote once systemd's "
			      "ConditionKernelCommandLine= unescapes \\ (it reads the rest of the "
			      "line as one word)", sc->open_quote == '\'' ? "single" : "double");
	for (size_t i = 0; i < k->n_words; i++) {
		const struct vi_split_word *x = &k->words[i];
		char kn[64];

		if (!(x->flags & VI_SPLIT_W_INITARG) || (x->flags & VI_SPLIT_W_DASHDASH) ||
		    !vi_split_key_matters(x->key, x->key_len))
			continue;
		vi_sanitize(x->key, x->key_len, kn, sizeof(kn));
		return vi_err(err, "command line: '%s' after '--' is an argument for init to the "
			      "kernel but a setting to systemd and dracut", kn);
	}
	if (!agree(k, sd, true, &w))
		return refuse_key(err, w, "systemd", systemd_why(buf, len, sd));
	/* The conditions of dracut's units ask whether a key is there (rd.break, rd.shell...),
	 * and those keys are the policy's to allow; their values may differ (udev's \xHH escapes
	 * in a device name lose the backslash there), the words and keys may not. */
	if (!agree(k, sc, false, &w))
		return refuse_key(err, w, "systemd's ConditionKernelCommandLine=",
				  has_byte(buf, len, "\\") ?
				  "backslash: it unescapes \\, the kernel does not" :
				  systemd_why(buf, len, sc));
	if (!agree(k, d, true, &w))
		return refuse_key(err, w, "dracut", dracut_why(buf, len));
	return 0;
}

int vi_cmdline_split_check(const char *buf, size_t len, struct vi_error *err)
{
	struct vi_split s[VI_SPLIT__READERS];
	size_t nw = VI_SPLIT_MAX_WORDS(len), nt = VI_SPLIT_TEXT_SIZE(len);
	int r = 0;

	if (len > VI_MAX_CMDLINE) {
		vi_err(err, "command line longer than %u bytes", VI_MAX_CMDLINE);
		return -E2BIG;
	}
	if (len && memchr(buf, '\0', len))
		return vi_err(err, "command line contains a NUL byte");
	memset(s, 0, sizeof(s));
	for (int i = 0; i < VI_SPLIT__READERS; i++) {
		s[i].words = calloc(nw, sizeof(*s[i].words));
		s[i].text = malloc(nt);
		s[i].max_words = nw;
		s[i].text_size = nt;
		if (!s[i].words || !s[i].text)
			r = -ENOMEM;
	}
	for (int i = 0; i < VI_SPLIT__READERS && r == 0; i++)
		r = vi_split_line((enum vi_split_reader)i, buf, len, &s[i]);
	if (r == -ENOMEM)
		vi_err(err, "command line: out of memory");
	else if (r < 0)
		vi_err(err, "command line: cannot split it (%d)", r);
	else
		r = check_splits(buf, len, s, err);
	for (int i = 0; i < VI_SPLIT__READERS; i++) {
		free(s[i].words);
		free(s[i].text);
	}
	return r;
}
