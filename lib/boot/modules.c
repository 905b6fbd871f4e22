// SPDX-License-Identifier: LGPL-2.1-or-later
/* Loading the modules of the initramfs's list with finit_module (modules.h): reading the
 * modprobe.d files, then per module its parameter string (built in modparams.c) and the
 * fallbacks when the kernel refuses the module with it. */
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
#include <linux/module.h>

#include "fileio.h"
#include "modules.h"
#include "strutil.h"

#ifndef MODULE_INIT_COMPRESSED_FILE
#define MODULE_INIT_COMPRESSED_FILE 4   /* <linux/module.h> before 5.17 */
#endif

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

/* The module file's name ending → the kernel's word for its format */
static const struct {
	const char *suffix, *comp;
} compressions[] = {
	{ ".ko.xz", "xz" },
	{ ".ko.zst", "zstd" },
	{ ".ko.gz", "gzip" },
};

const char *vi_module_compression(const char *path)
{
	size_t l = strlen(path);

	for (size_t i = 0; i < sizeof(compressions) / sizeof(compressions[0]); i++) {
		size_t sl = strlen(compressions[i].suffix);

		if (l > sl && strcmp(path + l - sl, compressions[i].suffix) == 0)
			return compressions[i].comp;
	}
	return NULL;
}

int vi_module_finit_flags(const char *path)
{
	return vi_module_compression(path) ? MODULE_INIT_COMPRESSED_FILE : 0;
}

bool vi_module_decompress_refused(const char *comp, int r, const char *kernel_comp,
				  struct vi_error *err)
{
	if (!comp)
		return false;
	if (r == -EOPNOTSUPP) {
		vi_err(err, "%s-compressed, and this kernel cannot decompress modules (built without "
		       "CONFIG_MODULE_DECOMPRESS)", comp);
		return true;
	}
	if (r != -EINVAL || (kernel_comp && strcmp(kernel_comp, comp) == 0))
		return false;
	if (!kernel_comp)
		vi_err(err, "%s-compressed, and this kernel cannot decompress modules (no "
		       "CONFIG_MODULE_DECOMPRESS, or before 5.17)", comp);
	else
		vi_err(err, "%s-compressed, and this kernel decompresses %.8s modules only", comp,
		       kernel_comp);
	return true;
}

/* What VI_MODULE_COMPRESSION_SYSFS says, read once per list, on the first compressed module the
 * kernel refuses */
struct kernel_comp {
	bool read;
	bool present;
	char word[16];
};

static const char *kernel_comp_get(struct kernel_comp *k)
{
	if (!k->read) {
		k->read = true;
		k->present = vi_fileio_read_text_at(AT_FDCWD, VI_MODULE_COMPRESSION_SYSFS, k->word,
						    sizeof(k->word)) == 0;
	}
	return k->present ? k->word : NULL;
}

static int finit(int fd, const char *params, int flags)
{
	if (syscall(SYS_finit_module, fd, params, flags) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* finit with the file's flags; true when the kernel cannot decompress it, the reason in *perr
 * naming the module (no other parameters would change that) */
static bool finit_refused(int fd, const char *path, const char *params, struct kernel_comp *kc,
			  int *r, struct vi_error *perr)
{
	const char *comp = vi_module_compression(path), *base = strrchr(path, '/');
	char shown[48];
	struct vi_error why;

	*r = finit(fd, params, vi_module_finit_flags(path));
	if (*r == 0 || !comp || (*r != -EINVAL && *r != -EOPNOTSUPP))
		return false;
	if (!vi_module_decompress_refused(comp, *r, kernel_comp_get(kc), &why))
		return false;
	base = base ? base + 1 : path;
	/* the list's file name reaches the log: printable characters only */
	vi_sanitize(base, strlen(base), shown, sizeof(shown));
	snprintf(perr->msg, sizeof(perr->msg), "module %s not loaded: %.120s", shown, why.msg);
	return true;
}

/* One module with its parameters: all sources; then without the command line's words; then the
 * forced words only. A parameter problem (refused words, or the kernel's EINVAL with them) goes
 * to *perr with what was done about it, and *param_r; so does a kernel that cannot decompress
 * the file (*param_r is then finit's error). The return value is finit's. */
static int load_one(int fd, const char *path, const struct vi_modload_params *mp,
		    const char *conf, size_t conf_len, char *params, struct kernel_comp *kc,
		    struct vi_error *perr, int *param_r)
{
	char name[VI_MODULE_NAME_MAX + 1];
	struct vi_error why = { "" };
	int r = 0, step;

	*param_r = 0;
	if (!mp) {
		if (finit_refused(fd, path, "", kc, &r, perr))
			*param_r = r;
		return r;
	}
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
			if (finit_refused(fd, path, params, kc, &r, perr)) {
				*param_r = r;
				return r;
			}
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
	struct kernel_comp kc = { false, false, "" };
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
			rr = load_one(fd, p, mp, conf, conf_len, params, &kc, &perr, &param_r);
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
