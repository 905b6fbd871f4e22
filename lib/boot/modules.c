// SPDX-License-Identifier: LGPL-2.1-or-later
/* finit_module over a list of paths, with the parameters modprobe would pass (modules.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cmdtoken.h"
#include "config.h"
#include "modules.h"
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
	vi_err(err, "%s parameter '%s' (%s): %s", s->module, n, src, why);
	return r;
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
	if (s->words >= VI_MODPARAMS_MAX_WORDS) {
		vi_err(err, "%s: more than %u parameters", s->module, VI_MODPARAMS_MAX_WORDS);
		return -E2BIG;
	}
	if ((s->len ? 1 : 0) + wl >= s->limit - s->len) {
		vi_err(err, "%s: parameters longer than %zu bytes", s->module, s->limit - 1);
		return -E2BIG;
	}
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
		if (l.overflow) {
			vi_err(err, "%s: modprobe.d options line longer than %zu bytes", s->module,
			       sizeof(l.buf));
			return -E2BIG;
		}
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

	if (len > VI_MAX_CMDLINE) {
		vi_err(err, "%s longer than %u bytes", src, VI_MAX_CMDLINE);
		return -E2BIG;
	}
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

/* ---- reading modprobe.d -------------------------------------------------------------------- */

static bool conf_name(const char *n)
{
	size_t l = strlen(n);

	return n[0] != '.' && l > 5 && strcmp(n + l - 5, ".conf") == 0;
}

/* Append one file to buf (capacity VI_MODPROBE_CONF_MAX), then the two newlines. */
static int conf_append(int dfd, const char *dir, const char *name, char *buf, size_t *len,
		       struct vi_error *err)
{
	struct stat st;
	ssize_t n;
	int fd, r = 0;

	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		return vi_errno(err, r, "cannot read %.80s/%.60s: %s", dir, name, strerror(-r));
	}
	/* as modprobe: only regular files (a FIFO here must not block PID 1) */
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	while ((n = read(fd, buf + *len, VI_MODPROBE_CONF_MAX - *len)) > 0) {
		*len += (size_t)n;
		if (*len == VI_MODPROBE_CONF_MAX)
			break;
	}
	if (n < 0) {
		r = -errno;
		r = vi_errno(err, r, "cannot read %.80s/%.60s: %s", dir, name, strerror(-r));
	} else if (*len + 2 > VI_MODPROBE_CONF_MAX) {
		r = vi_errno(err, -E2BIG, "%.80s: more than %u bytes of *.conf", dir,
			     VI_MODPROBE_CONF_MAX);
	} else {
		buf[(*len)++] = '\n';
		buf[(*len)++] = '\n';
	}
	close(fd);
	return r;
}

int vi_modprobe_conf_read(const char *dir, char **ret, size_t *ret_len, struct vi_error *err)
{
	char *names[VI_MODPROBE_CONF_FILES];
	struct dirent *de;
	unsigned n = 0;
	char *buf = NULL;
	size_t len = 0;
	DIR *d;
	int r = 0;

	*ret = NULL;
	*ret_len = 0;
	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		r = -errno;
		return vi_errno(err, r, "cannot read %.120s: %s", dir, strerror(-r));
	}
	errno = 0;
	while ((de = readdir(d))) {
		if (!conf_name(de->d_name))
			continue;
		if (n == VI_MODPROBE_CONF_FILES) {
			r = vi_errno(err, -E2BIG, "%.120s: more than %u *.conf files", dir,
				     VI_MODPROBE_CONF_FILES);
			goto out;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			r = vi_errno(err, -ENOMEM, "out of memory");
			goto out;
		}
		n++;
	}
	/* modprobe reads the files in the order of their names */
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *tmp = names[j];

			names[j] = names[j - 1];
			names[j - 1] = tmp;
		}
	buf = malloc(VI_MODPROBE_CONF_MAX);
	if (!buf) {
		r = vi_errno(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (unsigned i = 0; i < n && r == 0; i++)
		r = conf_append(dirfd(d), dir, names[i], buf, &len, err);
out:
	for (unsigned i = 0; i < n; i++)
		free(names[i]);
	closedir(d);
	if (r < 0) {
		free(buf);
		return r;
	}
	*ret = buf;
	*ret_len = len;
	return 0;
}

/* ---- loading ------------------------------------------------------------------------------- */

static int finit(int fd, const char *params)
{
	if (syscall(SYS_finit_module, fd, params, 0) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* One module with its parameters: all sources; then without the command line's words; then the
 * forced words only. A parameter problem (refused words, or the kernel's EINVAL with them) goes
 * to *perr with what was done about it, and *param_r; the return value is finit's. */
static int load_one(int fd, const char *path, const struct vi_modload_params *mp,
		    const char *conf, size_t conf_len, char *params, struct vi_error *perr,
		    int *param_r)
{
	char name[VI_MODULE_NAME_MAX + 1];
	struct vi_error why = { "" };
	int r = 0, step;

	*param_r = 0;
	if (!mp)
		return finit(fd, "");
	r = vi_module_name(path, name, sizeof(name), perr);
	if (r < 0) {
		*param_r = r;
		return r;
	}
	for (step = 0; step < 3; step++) {
		bool with_conf = step < 2, with_cmdline = step == 0;

		r = vi_modparams_build(name, with_conf ? conf : NULL, with_conf ? conf_len : 0,
				       with_cmdline ? mp->cmdline : NULL,
				       with_cmdline ? mp->cmdline_len : 0, mp->forced, params,
				       VI_MODPARAMS_MAX, step ? NULL : &why);
		if (r >= 0) {
			r = finit(fd, params);
			/* EINVAL with parameters: the kernel could not parse one of them */
			if (r != -EINVAL || !*params || step == 2)
				break;
			if (step == 0) {
				char v[100];

				vi_sanitize(params, strlen(params), v, sizeof(v));
				snprintf(why.msg, sizeof(why.msg), "the kernel refused '%s'", v);
			}
		}
		if (step == 0)
			*param_r = r;
	}
	if (*param_r) {
		char outcome[64];
		size_t l;

		if (r == 0)
			snprintf(outcome, sizeof(outcome), "%s",
				 step == 1 ? "loaded without the command line's parameters"
					   : "loaded with the forced parameters only");
		else
			snprintf(outcome, sizeof(outcome), "not loaded (%s)", strerror(-r));
		snprintf(perr->msg, sizeof(perr->msg), "module %s %s: ", name, outcome);
		l = strlen(perr->msg);
		/* the reason as far as it fits: the outcome matters more */
		vi_strlcpy_exact(perr->msg + l, sizeof(perr->msg) - l, why.msg,
				 strnlen(why.msg, sizeof(perr->msg) - l - 1));
	}
	return r;
}

int vi_modules_load(const char *list, const struct vi_modload_params *mp, unsigned *ret_loaded,
		    unsigned *ret_skipped, struct vi_error *err)
{
	char line[512];
	unsigned loaded = 0;
	char *conf = NULL, *params = NULL;
	size_t conf_len = 0;
	FILE *f;
	int r = 0;

	*ret_skipped = 0;
	f = fopen(list, "re");
	if (!f) {
		*ret_loaded = 0;
		if (errno == ENOENT)
			return 0;
		r = -errno;
		return vi_errno(err, r, "cannot read %s: %s", list, strerror(-r));
	}
	if (mp) {
		params = malloc(VI_MODPARAMS_MAX);
		if (!params) {
			fclose(f);
			*ret_loaded = 0;
			return vi_errno(err, -ENOMEM, "out of memory");
		}
		/* an unreadable configuration is reported and left out as a whole */
		if (mp->modprobe_dir)
			r = vi_modprobe_conf_read(mp->modprobe_dir, &conf, &conf_len, err);
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t");
		struct vi_error perr = { "" };
		int fd, rr = 0, param_r = 0;

		if (!strchr(line, '\n') && !feof(f)) {
			if (!r)
				r = vi_errno(err, -ENAMETOOLONG, "%s: line too long", list);
			/* skip the rest of the overlong line */
			while (fgets(line, sizeof(line), f) && !strchr(line, '\n'))
				;
			continue;
		}
		p[strcspn(p, "\r\n")] = '\0';
		for (size_t l = strlen(p); l && (p[l - 1] == ' ' || p[l - 1] == '\t'); l--)
			p[l - 1] = '\0';
		if (!*p || *p == '#')
			continue;
		fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			rr = -errno;
		else
			rr = load_one(fd, p, mp, conf, conf_len, params, &perr, &param_r);
		if (fd >= 0)
			close(fd);
		/* ENODEV: the module has no hardware here (crc32c-intel without SSE4.2): skip */
		if (rr == -ENODEV) {
			(*ret_skipped)++;
			continue;
		}
		if (rr == 0)
			loaded++;
		if (r)
			continue;
		if (param_r) {
			r = param_r;
			*err = perr;
		} else if (rr) {
			r = vi_errno(err, rr, "loading module %.120s failed: %s", p, strerror(-rr));
		}
	}
	fclose(f);
	free(conf);
	free(params);
	*ret_loaded = loaded;
	return r;
}
