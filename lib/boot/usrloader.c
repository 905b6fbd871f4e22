// SPDX-License-Identifier: LGPL-2.1-or-later
/* Under a root nobody verified, what runs before init's first instruction must come from the
 * verified /usr (include/usrmount.h, vi_usr_loader_check; docs/security.md, "A verified /usr"). */
#include "usrmount.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "loader.h"
#include "strutil.h"

/* The kernel runs at most this many interpreters in a row (fs/exec.c, exec_binprm). */
#define VI_INTERP_DEPTH 4
/* Larger than any cache ldconfig writes for a whole distribution (a few hundred KiB). */
#define VI_LDCACHE_MAX (16u << 20)

/* A path read from the root, for a log line. */
static const char *shown(const char *s, char *buf, size_t size)
{
	vi_sanitize(s, strlen(s), buf, size);
	return buf;
}

/* path (absolute) inside rootfd, symlinks resolved inside it: on the device usr? 1 absent,
 * 0 yes, -EXDEV on another device, -errno when it cannot be looked at. *ret_dev: its device. */
static int on_usr(int rootfd, const char *path, dev_t usr, dev_t *ret_dev)
{
	struct stat st;
	bool fallback;
	int fd, r = 0;

	fd = vi_open_in_root(rootfd, path, O_PATH | O_CLOEXEC, &fallback);
	if (fd == -ENOENT || fd == -ENOTDIR)
		return 1;
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (st.st_dev != usr)
		r = -EXDEV;
	*ret_dev = r == 0 || r == -EXDEV ? st.st_dev : 0;
	close(fd);
	return r;
}

/* A merged-/usr link's text: "usr/NAME" or "/usr/NAME", one part, so that what it leads to is
 * decided by the verified /usr alone, never by a directory the switch replaces (/run). */
static bool usr_link_text(const char *t)
{
	size_t n;

	t += t[0] == '/';
	if (strncmp(t, "usr/", 4))
		return false;
	t += 4;
	n = strlen(t);
	return n > 0 && !strchr(t, '/') && strcmp(t, ".") && strcmp(t, "..");
}

/* The merged-/usr links: the program loader and the libraries are found through them. */
static int code_dirs(int rootfd, dev_t usr, struct vi_error *err)
{
	static const char *const dirs[] = { "/bin", "/sbin", "/lib", "/lib32", "/lib64",
					    "/libx32" };
	char text[64], shown_text[80];
	struct stat st;
	dev_t dev = 0;
	ssize_t n;
	int r;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (fstatat(rootfd, dirs[i] + 1, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			r = -errno;
			return vi_errno(err, r, "%s: %s", dirs[i], strerror(-r));
		}
		if (!S_ISLNK(st.st_mode))
			return vi_errno(err, -EXDEV, "%s is a %s of the unverified root, not a link "
					"into the verified /usr: programs and libraries would be "
					"loaded from it", dirs[i],
					S_ISDIR(st.st_mode) ? "directory" : "file");
		n = readlinkat(rootfd, dirs[i] + 1, text, sizeof(text) - 1);
		text[n > 0 ? n : 0] = '\0';
		if (n <= 0 || (size_t)n >= sizeof(text) - 1 || !usr_link_text(text))
			return vi_errno(err, -EXDEV, "%s -> %s: not a link to a directory of /usr "
					"(usr/NAME)", dirs[i], shown(text, shown_text,
								     sizeof(shown_text)));
		r = on_usr(rootfd, dirs[i], usr, &dev);
		if (r == 1)
			return vi_errno(err, -ENOENT, "%s is a link that leads nowhere in the new "
					"root", dirs[i]);
		if (r == -EXDEV)
			return vi_errno(err, r, "%s leads to device %u:%u, not into the verified "
					"/usr (%u:%u)", dirs[i], major(dev), minor(dev),
					major(usr), minor(usr));
		if (r < 0)
			return vi_errno(err, r, "%s: %s", dirs[i], strerror(-r));
	}
	return 0;
}

/* The switch moves the initramfs' /dev, /proc, /sys, /run onto these: through a link, onto
 * whatever it leads to (a directory of /usr, covered). */
static int api_dirs(int rootfd, struct vi_error *err)
{
	static const char *const dirs[] = { "dev", "proc", "sys", "run" };
	struct stat st;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (fstatat(rootfd, dirs[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			return vi_errno(err, -EXDEV, "/%s is a symbolic link: the initramfs' /%s "
					"would be moved onto what it leads to", dirs[i], dirs[i]);
	return 0;
}

static int pread_all(void *ctx, uint64_t off, void *buf, size_t len)
{
	const int *fd = ctx;
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(*fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

/* An interpreter the kernel runs for init (what: its role): a regular file on the verified
 * /usr, read to the end, so that a block failing verification fails here. *ret_fd: open. */
static int interp_file(int rootfd, const char *path, dev_t usr, const char *what, int *ret_fd,
		       uint64_t *ret_size, struct vi_error *err)
{
	unsigned char buf[16384];
	char p[80];
	struct stat st;
	bool fallback;
	ssize_t n;
	int fd, r = 0;

	if (path[0] != '/')
		return vi_errno(err, -ENOEXEC, "%s %s is not an absolute path", what,
				shown(path, p, sizeof(p)));
	fd = vi_open_in_root(rootfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY, &fallback);
	if (fd < 0)
		return vi_errno(err, fd, "%s %s: %s", what, shown(path, p, sizeof(p)),
				strerror(-fd));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		r = vi_errno(err, -ENOEXEC, "%s %s is not a file", what, shown(path, p, sizeof(p)));
	} else if (st.st_dev != usr) {
		r = vi_errno(err, -EXDEV, "%s %s is on device %u:%u, not on the verified /usr "
			     "(%u:%u)", what, shown(path, p, sizeof(p)), major(st.st_dev),
			     minor(st.st_dev), major(usr), minor(usr));
	} else {
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			;
		if (n < 0)
			r = vi_errno(err, -errno, "reading %s %s failed: %s", what,
				     shown(path, p, sizeof(p)), strerror(errno));
	}
	if (r < 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	*ret_size = (uint64_t)st.st_size;
	return 0;
}

/* The program loader init is started by, as far as what it reads before init concerns us. */
struct loader {
	char path[VI_INTERP_MAX];   /* init's PT_INTERP; "" when init is static */
	bool glibc;                 /* glibc's by its DT_SONAME (vi_glibc_loader_soname) */
};

/* The loader's identity, from its verified content, never from the name init gives it: a
 * DT_SONAME of glibc's loaders, or not (musl's libc.so has none). */
static int loader_identity(int fd, uint64_t size, struct loader *l, struct vi_error *err)
{
	char soname[VI_SONAME_MAX];
	int r;

	r = vi_elf_soname(pread_all, &fd, size, soname, sizeof(soname), err);
	if (r < 0)
		return r;
	l->glibc = vi_glibc_loader_soname(soname);
	return 0;
}

/* The chain the kernel runs to start init: #! interpreters, then an ELF binary and its
 * PT_INTERP, each on the verified /usr. init itself was read by vi_usr_init_check. */
static int exec_chain(int rootfd, const char *init, dev_t usr, struct loader *ret_loader,
		      struct vi_error *err)
{
	char path[VI_INTERP_MAX], interp[VI_INTERP_MAX], p[80];
	enum vi_exec_kind kind;
	uint64_t size;
	int fd, r, depth;

	r = interp_file(rootfd, init, usr, "init", &fd, &size, err);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s", init);
	for (depth = 0;; depth++) {
		r = vi_exec_interp(pread_all, &fd, size, &kind, interp, sizeof(interp), err);
		close(fd);
		if (r < 0)
			return vi_err_wrap(err, r, "%s: ", shown(path, p, sizeof(p)));
		if (kind == VI_EXEC_STATIC)
			return 0;
		if (depth == VI_INTERP_DEPTH)
			return vi_errno(err, -ELOOP, "init runs through more than %d interpreters",
					VI_INTERP_DEPTH);
		r = interp_file(rootfd, interp, usr, kind == VI_EXEC_ELF ? "the program loader" :
				"the #! interpreter", &fd, &size, err);
		if (r < 0)
			return r;
		if (kind == VI_EXEC_SCRIPT) {
			memcpy(path, interp, sizeof(path));
			continue;
		}
		/* the loader itself: an ELF file (the kernel does not run its PT_INTERP) */
		r = vi_exec_interp(pread_all, &fd, size, &kind, path, sizeof(path), err);
		if (r == 0 && kind == VI_EXEC_SCRIPT)
			r = vi_errno(err, -ENOEXEC, "a #! script");
		if (r == 0)
			r = loader_identity(fd, size, ret_loader, err);
		close(fd);
		if (r < 0)
			return vi_err_wrap(err, r, "the program loader %s: ",
					   shown(interp, p, sizeof(p)));
		memcpy(ret_loader->path, interp, sizeof(ret_loader->path));
		return 0;
	}
}

struct cache_check {
	int rootfd;
	dev_t usr;
	struct vi_error *err;
};

/* One library the cache names: under /usr or a merged link, and, when it exists, on /usr. A
 * path that does not exist is skipped by the loader too. */
static int cache_entry(void *ctx, const char *name, const char *path)
{
	const struct cache_check *c = ctx;
	char n[40], p[80];
	dev_t dev = 0;
	int r;

	if (!vi_code_path(path))
		return vi_errno(c->err, -EPERM, "/etc/ld.so.cache names %s for %s: outside /usr "
				"and its merged directories", shown(path, p, sizeof(p)),
				shown(name, n, sizeof(n)));
	r = on_usr(c->rootfd, path, c->usr, &dev);
	if (r == -EXDEV)
		return vi_errno(c->err, r, "/etc/ld.so.cache names %s for %s, on device %u:%u, not "
				"the verified /usr", shown(path, p, sizeof(p)),
				shown(name, n, sizeof(n)), major(dev), minor(dev));
	if (r < 0)
		return vi_errno(c->err, r, "/etc/ld.so.cache names %s for %s: %s",
				shown(path, p, sizeof(p)), shown(name, n, sizeof(n)), strerror(-r));
	return 0;
}

static int read_cache(int fd, unsigned char **ret_buf, size_t *ret_len, struct vi_error *err)
{
	unsigned char *buf;
	struct stat st;
	int r;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return vi_errno(err, -EPERM, "/etc/ld.so.cache is not a file");
	if (st.st_size <= 0 || (uint64_t)st.st_size > VI_LDCACHE_MAX)
		return vi_errno(err, -EFBIG, "/etc/ld.so.cache: %lld bytes, not a loader cache "
				"this check reads", (long long)st.st_size);
	buf = malloc((size_t)st.st_size);
	if (!buf)
		return vi_errno(err, -ENOMEM, "/etc/ld.so.cache: out of memory");
	r = pread_all(&fd, 0, buf, (size_t)st.st_size);
	if (r < 0) {
		free(buf);
		return vi_errno(err, r, "reading /etc/ld.so.cache: %s", strerror(-r));
	}
	*ret_buf = buf;
	*ret_len = (size_t)st.st_size;
	return 0;
}

/* /etc/ld.so.cache: every library it names is a file of /usr (or absent). */
static int cache_check(int rootfd, dev_t usr, struct vi_error *err)
{
	struct cache_check c = { rootfd, usr, err };
	unsigned char *buf = NULL;
	struct stat st;
	size_t len = 0;
	bool fallback;
	int fd, r;

	/* a link is followed by the loader, and so here; one leading nowhere is refused: where
	 * it leads may exist once /run is the initramfs' */
	if (fstatat(rootfd, "etc/ld.so.cache", &st, AT_SYMLINK_NOFOLLOW) < 0) {
		r = -errno;
		return r == -ENOENT ? 0 : vi_errno(err, r, "/etc/ld.so.cache: %s", strerror(-r));
	}
	fd = vi_open_in_root(rootfd, "/etc/ld.so.cache", O_RDONLY | O_CLOEXEC | O_NOCTTY,
			     &fallback);
	if (fd < 0)
		return vi_errno(err, fd, "/etc/ld.so.cache: %s", strerror(-fd));
	r = read_cache(fd, &buf, &len, err);
	close(fd);
	if (r < 0)
		return r;
	r = vi_ldcache_parse(buf, len, cache_entry, &c, err);
	free(buf);
	if (r == -EBADMSG)
		vi_err_wrap(err, r, "/etc/ld.so.cache: ");
	return r;
}

/* What the program loader reads from /etc before it runs any of init's code. */
static int etc_files(int rootfd, dev_t usr, struct vi_error *err)
{
	struct stat st;
	int r;

	if (fstatat(rootfd, "etc", &st, AT_SYMLINK_NOFOLLOW) < 0) {
		r = -errno;
		return r == -ENOENT ? 0 : vi_errno(err, r, "/etc: %s", strerror(-r));
	}
	if (S_ISLNK(st.st_mode))
		return vi_errno(err, -EPERM, "/etc is a symbolic link: the program loader's files "
				"would be read where it leads");
	if (!S_ISDIR(st.st_mode))
		return 0;
	/* any type: a link that leads nowhere now may lead somewhere after the switch */
	if (fstatat(rootfd, "etc/ld.so.preload", &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	    errno != ENOENT)
		return vi_errno(err, -EPERM, "/etc/ld.so.preload exists on the unverified root: "
				"the program loader would load what it names into init");
	return cache_check(rootfd, usr, err);
}

/* ld-musl-ARCH.path, any ARCH: musl's loader builds ARCH in, whatever its file's name */
static bool musl_path_name(const char *name)
{
	size_t n = strlen(name);

	return n >= 13 && !strncmp(name, "ld-musl-", 8) && !strcmp(name + n - 5, ".path");
}

/* Every ld-musl-*.path in dir (resolved inside the root) must be a regular file of the verified
 * /usr: one on the root, a link (of any kind, one leading nowhere too) is refused. */
static int musl_dir(int rootfd, const char *dir, dev_t usr, struct vi_error *err)
{
	char d[80], n[80];
	struct dirent *e;
	struct stat st;
	bool fallback;
	DIR *dp;
	int fd, r = 0;

	fd = vi_open_in_root(rootfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, &fallback);
	if (fd == -ENOENT || fd == -ENOTDIR)
		return 0;
	if (fd < 0)
		return vi_errno(err, fd, "%s: %s", shown(dir, d, sizeof(d)), strerror(-fd));
	dp = fdopendir(fd);
	if (!dp) {
		r = -errno;
		close(fd);
		return vi_errno(err, r, "%s: %s", shown(dir, d, sizeof(d)), strerror(-r));
	}
	while (r == 0) {
		errno = 0;
		e = readdir(dp);
		if (!e) {
			if (errno)
				r = vi_errno(err, -errno, "reading %s: %s", shown(dir, d, sizeof(d)),
					     strerror(errno));
			break;
		}
		if (!musl_path_name(e->d_name))
			continue;
		if (fstatat(dirfd(dp), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			r = vi_errno(err, -errno, "%s/%s: %s", shown(dir, d, sizeof(d)),
				     shown(e->d_name, n, sizeof(n)), strerror(errno));
		else if (st.st_dev != usr)
			r = vi_errno(err, -EPERM, "%s/%s exists on the unverified root: the program "
				     "loader (not glibc's by its soname, so perhaps musl's) would "
				     "search the directories it names", shown(dir, d, sizeof(d)),
				     shown(e->d_name, n, sizeof(n)));
		else if (!S_ISREG(st.st_mode))
			r = vi_errno(err, -EPERM, "%s/%s is a link or not a file: the program loader "
				     "(not glibc's by its soname, so perhaps musl's) would read where "
				     "it leads", shown(dir, d, sizeof(d)),
				     shown(e->d_name, n, sizeof(n)));
	}
	closedir(dp);
	return r;
}

/* A loader not glibc's by its identity is taken for musl's, which reads
 * PREFIX/etc/ld-musl-ARCH.path (vi_musl_etc_dir): that directory and /etc are checked, whatever
 * the loader's name, for every ARCH. */
static int musl_files(int rootfd, dev_t usr, const struct loader *l, struct vi_error *err)
{
	char dir[VI_INTERP_MAX + sizeof("/etc")];
	int r;

	if (!l->path[0] || l->glibc)
		return 0;
	r = musl_dir(rootfd, "/etc", usr, err);
	if (r < 0)
		return r;
	if (vi_musl_etc_dir(l->path, dir, sizeof(dir)) < 0)
		return vi_errno(err, -ENAMETOOLONG, "the program loader's path is too long");
	return strcmp(dir, "/etc") ? musl_dir(rootfd, dir, usr, err) : 0;
}

int vi_usr_loader_check(const char *root, const char *init, dev_t usr, struct vi_error *err)
{
	struct loader loader = { "", false };
	bool fallback;
	int fd, r;

	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		return vi_errno(err, r, "cannot open %s: %s", root, strerror(-r));
	}
	/* every link is resolved inside the root as init will see it: openat2 (Linux 5.6) */
	r = vi_open_in_root(fd, "/", O_PATH | O_DIRECTORY | O_CLOEXEC, &fallback);
	if (r >= 0)
		close(r);
	if (fallback)
		r = vi_errno(err, -EOPNOTSUPP, "an unverified root is checked with openat2, which "
			     "this kernel lacks (Linux 5.6 and later have it)");
	else if (r < 0)
		vi_errno(err, r, "cannot open %s: %s", root, strerror(-r));
	if (r >= 0)
		r = code_dirs(fd, usr, err);
	if (r == 0)
		r = api_dirs(fd, err);
	if (r == 0)
		r = exec_chain(fd, init, usr, &loader, err);
	if (r == 0)
		r = etc_files(fd, usr, err);
	if (r == 0)
		r = musl_files(fd, usr, &loader, err);
	close(fd);
	return r;
}
