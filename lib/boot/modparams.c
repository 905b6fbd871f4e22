// SPDX-License-Identifier: LGPL-2.1-or-later
/* The parameter string of one module, as modprobe would pass it (modparams.h): pure, no I/O.
 * Words come from modprobe.d's `options` lines, the kernel command line and the policy's forced
 * words; each is split with the kernel's own tokenizer and written back only when the kernel will
 * read exactly that name and value again. Also the module name of a .ko path. Reading the
 * modprobe.d files and calling finit_module are in modules.c. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "cmdtoken.h"
#include "config.h"
#include "modparams.h"
#include "strutil.h"

/* ---- the parameter string ------------------------------------------------------------------ */

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

static bool name_ok(const char *s, size_t len, size_t max)
{
	if (len == 0 || len > max || s[0] == '-')
		return false;
	for (size_t i = 0; i < len; i++)
		if (!name_char(s[i]))
			return false;
	return true;
}

struct sink {
	const char *module;
	char *out;
	size_t limit;       /* usable bytes of out, NUL included */
	size_t len;
	unsigned words;
};

static int word_err(struct vi_error *err, int r, const struct sink *s, const char *src,
		    const char *name, size_t nlen, const char *why)
{
	char n[48];

	vi_sanitize(name, nlen, n, sizeof(n));
	return vi_errno(err, r, "%s parameter '%s' (%s): %s", s->module, n, src, why);
}

/* The kernel splits a module's parameter string with next_arg(), as vi_cmdline_next does:
 * w[0..wl) must come back as exactly this one word. A sentinel word after it proves that the
 * word also ends where it seems to (an odd number of quotes would swallow what follows, and
 * with it the next parameter). w has room for the two bytes of the sentinel. */
static bool reads_back(char *w, size_t wl, const char *name, size_t nlen, const char *val,
		       size_t vlen)
{
	struct vi_cmdline_tok t;
	size_t pos = 0, len = wl + 2;

	w[wl] = ' ';
	w[wl + 1] = 'x';
	if (vi_cmdline_next(w, len, &pos, &t) != 1 || t.key_len != nlen ||
	    memcmp(t.key, name, nlen) != 0 || !t.val != !val)
		return false;
	if (val && (t.val_len != vlen || memcmp(t.val, val, vlen) != 0))
		return false;
	if (vi_cmdline_next(w, len, &pos, &t) != 1 || t.val || t.key_len != 1 || t.key[0] != 'x')
		return false;
	return vi_cmdline_next(w, len, &pos, &t) == 0;
}

static int check_word(const struct sink *s, const char *src, const char *name, size_t nlen,
		      const char *val, size_t vlen, struct vi_error *err)
{
	if (!name_ok(name, nlen, VI_MODPARAM_NAME_MAX))
		return word_err(err, -EINVAL, s, src, name, nlen, "not a parameter name");
	if (val && !vi_str_printable(val, vlen))
		return word_err(err, -EINVAL, s, src, name, nlen, "control byte in the value");
	return 0;
}

/* Append NAME[=VAL] as the kernel will read it back: as written when that reads back the same,
 * else with the value in double quotes (a value with blanks), else refused. */
static int add_word(struct sink *s, const char *src, const char *name, size_t nlen,
		    const char *val, size_t vlen, struct vi_error *err)
{
	char w[VI_MODPARAM_NAME_MAX + VI_MODPARAMS_MAX + 8];
	size_t wl = 0;
	int r;

	r = check_word(s, src, name, nlen, val, vlen, err);
	if (r < 0)
		return r;
	if (val && vlen >= VI_MODPARAMS_MAX)
		return word_err(err, -E2BIG, s, src, name, nlen, "value too long");
	for (int quoted = 0;; quoted++) {
		memcpy(w, name, nlen);
		wl = nlen;
		if (val) {
			w[wl++] = '=';
			if (quoted)
				w[wl++] = '"';
			memcpy(w + wl, val, vlen);
			wl += vlen;
			if (quoted)
				w[wl++] = '"';
		}
		if (reads_back(w, wl, name, nlen, val, vlen))
			break;
		if (quoted || !val)
			return word_err(err, -EINVAL, s, src, name, nlen,
					"the kernel would not read the value back unchanged");
	}
	if (s->words >= VI_MODPARAMS_MAX_WORDS)
		return vi_errno(err, -E2BIG, "%s: more than %u parameters", s->module,
				VI_MODPARAMS_MAX_WORDS);
	if ((s->len ? 1 : 0) + wl >= s->limit - s->len)
		return vi_errno(err, -E2BIG, "%s: parameters longer than %zu bytes", s->module,
				s->limit - 1);
	if (s->len)
		s->out[s->len++] = ' ';
	memcpy(s->out + s->len, w, wl);
	s->len += wl;
	s->out[s->len] = '\0';
	s->words++;
	return 0;
}

/* ---- modprobe.d ------------------------------------------------------------------------------ */

struct cline {
	char buf[VI_MODPARAMS_MAX + 128];
	size_t len;
	bool overflow;
	bool backslash;     /* a backslash that does not join lines */
};

/* The next logical line from *pos, as modprobe's getline_wrapped() reads it: a backslash before
 * a newline joins the lines; a backslash before anything else takes that byte along (modprobe
 * drops the backslash: noted, so that such a line of ours is refused rather than guessed). */
static void conf_next_line(const char *conf, size_t conf_len, size_t *pos, struct cline *l)
{
	size_t p = *pos;

	l->len = 0;
	l->overflow = l->backslash = false;
	while (p < conf_len) {
		char c = conf[p++];

		if (c == '\n')
			break;
		if (c == '\\') {
			if (p < conf_len && conf[p] == '\n') {
				p++;
				continue;
			}
			l->backslash = true;
			if (l->len < sizeof(l->buf))
				l->buf[l->len++] = c;
			else
				l->overflow = true;
			if (p >= conf_len)
				break;
			c = conf[p++];
		}
		if (l->len < sizeof(l->buf))
			l->buf[l->len++] = c;
		else
			l->overflow = true;
	}
	*pos = p;
}

static bool conf_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* modprobe splits the command and the module name with strtok(" \t"). */
static bool conf_word(const char *s, size_t len, size_t *pos, const char **w, size_t *wl)
{
	size_t p = *pos, start;

	while (p < len && conf_blank(s[p]))
		p++;
	start = p;
	while (p < len && !conf_blank(s[p]))
		p++;
	*pos = p;
	*w = s + start;
	*wl = p - start;
	return *wl > 0;
}

static int from_conf(struct sink *s, const char *conf, size_t conf_len, struct vi_error *err)
{
	static const char src[] = "modprobe.d";
	struct cline l;
	size_t pos = 0;

	while (pos < conf_len) {
		struct vi_cmdline_tok t;
		const char *w;
		size_t wl, p = 0, tp = 0;
		int r;

		conf_next_line(conf, conf_len, &pos, &l);
		/* comments need no rule of their own: "#..." is not "options" */
		if (!conf_word(l.buf, l.len, &p, &w, &wl) || !vi_str_eq(w, wl, "options"))
			continue;
		if (!conf_word(l.buf, l.len, &p, &w, &wl) || !vi_key_eq(w, wl, s->module))
			continue;
		if (l.overflow)
			return vi_errno(err, -E2BIG,
					"%s: modprobe.d options line longer than %zu bytes",
					s->module, sizeof(l.buf));
		if (l.backslash)
			return vi_err(err, "%s: backslash in a modprobe.d options line (only one before "
				      "the end of the line is understood)", s->module);
		/* modprobe turns tabs into spaces before the kernel sees the options */
		for (size_t i = p; i < l.len; i++)
			if (l.buf[i] == '\t')
				l.buf[i] = ' ';
		while ((r = vi_cmdline_next(l.buf + p, l.len - p, &tp, &t)) > 0) {
			if (r == 2)
				return word_err(err, -EINVAL, s, src, "--", 2,
						"would end the module's parameters");
			r = add_word(s, src, t.key, t.key_len, t.val, t.val_len, err);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* ---- command line and forced words ------------------------------------------------------------ */

/* MODULE.PARAM[=value] words. Command line: words of other modules and words without a dot are
 * not ours, a "--" ends the kernel's part. Forced (strict): every word must be well formed. */
static int from_words(struct sink *s, const char *src, const char *buf, size_t len, bool strict,
		      struct vi_error *err)
{
	struct vi_cmdline_tok t;
	size_t pos = 0;
	int r;

	if (len > VI_MAX_CMDLINE)
		return vi_errno(err, -E2BIG, "%s longer than %u bytes", src, VI_MAX_CMDLINE);
	if (len && memchr(buf, '\0', len))
		return vi_err(err, "%s contains a NUL byte", src);
	while ((r = vi_cmdline_next(buf, len, &pos, &t)) > 0) {
		const char *dot;
		size_t ml;

		if (r == 2) {
			if (strict)
				return word_err(err, -EINVAL, s, src, "--", 2, "not a parameter");
			break;
		}
		dot = memchr(t.key, '.', t.key_len);
		ml = dot ? (size_t)(dot - t.key) : 0;
		if (strict) {
			if (!dot || !name_ok(t.key, ml, VI_MODULE_NAME_MAX))
				return word_err(err, -EINVAL, s, src, t.key, t.key_len,
						"not MODULE.PARAM[=value]");
			r = check_word(s, src, dot + 1, t.key_len - ml - 1, t.val, t.val_len, err);
			if (r < 0)
				return r;
		}
		if (!dot || !vi_key_eq(t.key, ml, s->module))
			continue;
		r = add_word(s, src, dot + 1, t.key_len - ml - 1, t.val, t.val_len, err);
		if (r < 0)
			return r;
	}
	return 0;
}

int vi_modparams_build(const char *module, const char *conf, size_t conf_len, const char *cmdline,
		       size_t cmdline_len, const char *forced, char *out, size_t out_size,
		       struct vi_error *err)
{
	struct sink s;
	int r;

	if (!out || out_size == 0)
		return vi_err(err, "no room for module parameters");
	out[0] = '\0';
	if (!module || !name_ok(module, strnlen(module, VI_MODULE_NAME_MAX + 1),
				VI_MODULE_NAME_MAX)) {
		char n[48];

		vi_sanitize(module ? module : "", module ? strnlen(module, 64) : 0, n, sizeof(n));
		return vi_err(err, "'%s' is not a module name", n);
	}
	s.module = module;
	s.out = out;
	s.limit = out_size < VI_MODPARAMS_MAX ? out_size : VI_MODPARAMS_MAX;
	s.len = 0;
	s.words = 0;
	r = conf ? from_conf(&s, conf, conf_len, err) : 0;
	if (r >= 0 && cmdline)
		r = from_words(&s, "command line", cmdline, cmdline_len, false, err);
	if (r >= 0 && forced)
		r = from_words(&s, "forced", forced, strnlen(forced, VI_MAX_CMDLINE + 1), true,
			       err);
	if (r < 0)
		out[0] = '\0';
	return r < 0 ? r : 0;
}

int vi_module_name(const char *path, char *out, size_t out_size, struct vi_error *err)
{
	static const char *const suffixes[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz" };
	const char *b = strrchr(path, '/');
	size_t l, n = 0;
	char v[64];

	b = b ? b + 1 : path;
	l = strlen(b);
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t sl = strlen(suffixes[i]);

		if (l > sl && strcmp(b + l - sl, suffixes[i]) == 0) {
			n = l - sl;
			break;
		}
	}
	if (!name_ok(b, n, VI_MODULE_NAME_MAX)) {
		vi_sanitize(b, l, v, sizeof(v));
		return vi_err(err, "'%s' is not a module file name (NAME.ko[.xz|.zst|.gz])", v);
	}
	if (n >= out_size)
		return vi_errno(err, -ENAMETOOLONG, "module name longer than %zu bytes", out_size);
	for (size_t i = 0; i < n; i++)
		out[i] = b[i] == '-' ? '_' : b[i];
	out[n] = '\0';
	return 0;
}
