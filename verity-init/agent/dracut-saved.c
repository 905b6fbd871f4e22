// SPDX-License-Identifier: LGPL-2.1-or-later
/* The command line setup used, kept for the systemd flavour's pre-pivot unit (dracut-saved.h).
 * The run directory is the agent's, in the initramfs's /run, where only the initramfs's own
 * root processes write. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmdsplit.h"
#include "config.h"
#include "dracut-saved.h"
#include "fileio.h"

int vi_dracut_save_cmdline(const char *dir, const char *cmdline, struct vi_error *err)
{
	char path[512], tmp[520];
	size_t len = strlen(cmdline);
	int fd, r = 0;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return vi_errno(err, -errno, "cannot create %s: %s", dir, strerror(errno));
	snprintf(path, sizeof(path), "%.400s/" VI_DRACUT_SAVED_CMDLINE, dir);
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return vi_errno(err, -errno, "cannot create %s: %s", tmp, strerror(errno));
	errno = EIO;
	if (write(fd, cmdline, len) != (ssize_t)len)
		r = vi_errno(err, -errno, "cannot write %s: %s", tmp, strerror(errno));
	if (close(fd) < 0 && r == 0)
		r = vi_errno(err, -errno, "cannot write %s: %s", tmp, strerror(errno));
	if (r == 0 && rename(tmp, path) < 0)
		r = vi_errno(err, -errno, "cannot rename %s: %s", tmp, strerror(errno));
	if (r < 0)
		unlink(tmp);
	return r;
}

int vi_dracut_read_saved_cmdline(const char *dir, char *buf, size_t size, struct vi_error *err)
{
	char path[512];
	struct stat st;
	size_t len = 0;
	bool more = false;
	int fd, r;

	if (size == 0)
		return vi_errno(err, -EINVAL, "no room for the command line");
	snprintf(path, sizeof(path), "%.400s/" VI_DRACUT_SAVED_CMDLINE, dir);
	r = vi_fileio_open_input(path, O_RDONLY | O_NOFOLLOW, 0, &fd);
	if (r < 0)
		return vi_errno(err, r, "the command line setup used (%s): %s", path, strerror(-r));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return vi_errno(err, -EINVAL, "the command line setup used (%s): not a regular file",
				path);
	}
	r = vi_fileio_read_fd(fd, buf, size - 1, &len, &more);
	close(fd);
	if (r < 0)
		return vi_errno(err, r, "cannot read %s: %s", path, strerror(-r));
	if (more)
		return vi_errno(err, -EFBIG, "%s: longer than %zu bytes", path, size - 1);
	if (memchr(buf, '\0', len))
		return vi_errno(err, -EINVAL, "%s: a NUL byte in the command line", path);
	buf[len] = '\0';
	return 0;
}

int vi_dracut_init_words(const char *line, char *init, size_t size, bool *ret_other_init)
{
	size_t len = strlen(line);
	struct vi_split s = { 0 };
	int r;

	*ret_other_init = false;
	if (size)
		init[0] = '\0';
	s.max_words = VI_SPLIT_MAX_WORDS(len);
	s.text_size = VI_SPLIT_TEXT_SIZE(len);
	s.words = calloc(s.max_words, sizeof(*s.words));
	s.text = malloc(s.text_size);
	r = s.words && s.text ? vi_split_dracut(line, len, &s) : -ENOMEM;
	for (size_t i = 0; r == 0 && i < s.n_words; i++) {
		const struct vi_split_word *w = &s.words[i];

		if ((w->key_len == 9 && !memcmp(w->key, "real_init", 9)) ||
		    (w->key_len == 13 && !memcmp(w->key, "rd.distroinit", 13)))
			*ret_other_init = true;
		if (w->key_len != 4 || memcmp(w->key, "init", 4) || !w->val)
			continue;
		/* getarg init=: the last word wins */
		if (w->val_len >= size)
			r = -E2BIG;
		else
			snprintf(init, size, "%.*s", (int)w->val_len, w->val);
	}
	free(s.words);
	free(s.text);
	return r;
}
