// SPDX-License-Identifier: LGPL-2.1-or-later
/* The files of verity-image's signing commands (image-io.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blockio.h"
#include "image-io.h"

const char *image_io_reason(int r)
{
	switch (r) {
	case -ENOTBLK:
		return "not a regular file or block device";
	case -ELOOP:
		return "is a symbolic link (outputs are written as new files, never through a link)";
	case -EEXIST:
		return "exists and is not a regular file";
	case -E2BIG:
		return "too many output files";
	default:
		return strerror(-r);
	}
}

/* A symlink would be replaced by the file, not written through, and a device node or FIFO
 * replaced by a file is never what was meant: an existing path must be a regular file. */
int image_outputs_add(struct image_outputs *o, const char *path, const void *buf, size_t len)
{
	struct stat st;
	char *tmp;
	int fd, r = 0;

	if (o->n == IMAGE_OUTPUTS_MAX)
		return -E2BIG;
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			return -ELOOP;
		if (!S_ISREG(st.st_mode))
			return -EEXIST;
	} else if (errno != ENOENT) {
		return -errno;
	}
	if (snprintf(o->f[o->n].path, sizeof(o->f[0].path), "%s", path) >= (int)sizeof(o->f[0].path))
		return -ENAMETOOLONG;
	tmp = o->f[o->n].tmp;
	snprintf(tmp, sizeof(o->f[0].tmp), "%s.tmpXXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644) < 0 || write(fd, buf, len) != (ssize_t)len || fsync(fd) < 0)
		r = errno ? -errno : -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return r;
	}
	o->f[o->n].old[0] = '\0';
	o->f[o->n].placed = false;
	o->n++;
	return 0;
}

int image_outputs_add_region(struct image_outputs *o, int fd, const char *what, uint64_t offset,
			     const void *buf, size_t len)
{
	struct image_region *g = &o->region;
	struct stat st;
	size_t got = 0;

	if (g->on || len > sizeof(g->bytes))
		return -EINVAL;
	if (fstat(fd, &st) < 0)
		return -errno;
	/* a file may end before the region: what lies past its end is no old byte */
	while (got < len) {
		ssize_t n = pread(fd, g->old_bytes + got, len - got, (off_t)(offset + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (snprintf(g->what, sizeof(g->what), "%s", what) >= (int)sizeof(g->what))
		return -ENAMETOOLONG;
	memcpy(g->bytes, buf, len);
	g->fd = fd;
	g->offset = offset;
	g->len = len;
	g->old_len = got;
	g->is_file = S_ISREG(st.st_mode);
	g->old_size = (uint64_t)st.st_size;
	g->on = true;
	return 0;
}

/* The old file at f->path copied to a new PATH.oldXXXXXX (its bytes and permission bits):
 * 0, 1 when there is no file, or a negative errno with nothing left behind. */
static int copy_old(struct image_output *f)
{
	char buf[16384];
	struct stat st;
	uint64_t off = 0;
	int in, out, r = 0;

	in = open(f->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (in < 0)
		return errno == ENOENT ? 1 : -errno;
	if (fstat(in, &st) < 0) {
		r = -errno;
		goto out_close_in;
	}
	if (!S_ISREG(st.st_mode)) {
		r = -EEXIST;
		goto out_close_in;
	}
	snprintf(f->old, sizeof(f->old), "%s.oldXXXXXX", f->path);
	out = mkostemp(f->old, O_CLOEXEC);
	if (out < 0) {
		r = -errno;
		goto out_close_in;
	}
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : 0;
			break;
		}
		r = vi_pwrite_full(out, buf, (size_t)n, off);
		if (r < 0)
			break;
		off += (uint64_t)n;
	}
	if (r == 0 && (fchmod(out, st.st_mode & 0777) < 0 || fsync(out) < 0))
		r = -errno;
	if (close(out) < 0 && r == 0)
		r = -errno;
	if (r < 0)
		unlink(f->old);
out_close_in:
	close(in);
	return r;
}

/* A second name for the old file at f->path, which a failed commit renames back over the new
 * one: a hard link keeps the very file (inode, owner, mode). Where no link can be made (FAT has
 * none, fs.protected_hardlinks refuses one to another user's file, a file that is a mount point
 * is on a mount of its own), a copy keeps its bytes and permission bits. f->old stays "" when
 * there is no file, or on failure. */
static int keep_old(struct image_output *f)
{
	size_t n = strlen(f->path);
	int r;

	/* PATH.old + the random part of PATH.tmpXXXXXX: free unless a crashed run left it */
	memcpy(f->old, f->tmp, sizeof(f->old));
	memcpy(f->old + n + 1, "old", 3);
	if (link(f->path, f->old) == 0)
		return 0;
	if (errno == ENOENT) {
		f->old[0] = '\0';
		return 0;
	}
	r = copy_old(f);
	if (r != 0)
		f->old[0] = '\0';
	return r < 0 ? r : 0;
}

/* Sync the directory that holds path, so that a rename in it outlives a crash. A directory
 * that may be written but not read (a drop box, mode 0333) cannot be opened to sync it, and a
 * filesystem that cannot sync a directory says EINVAL: the rename stands unsynced there. */
static int sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	int fd, r = 0;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == EACCES ? 0 : -errno;
	if (fsync(fd) < 0 && errno != EINVAL)
		r = -errno;
	close(fd);
	return r;
}

static int region_sync(const struct image_region *g)
{
	if (fsync(g->fd) < 0 && errno != EINVAL)
		return -errno;
	return 0;
}

static int region_write(const struct image_region *g)
{
	int r = vi_pwrite_full(g->fd, g->bytes, g->len, g->offset);

	return r < 0 ? r : region_sync(g);
}

/* The region's old bytes written back, and a file that ended inside or before it cut back to
 * its old size. */
static int region_restore(const struct image_region *g)
{
	int r = vi_pwrite_full(g->fd, g->old_bytes, g->old_len, g->offset);

	if (r == 0 && g->is_file && g->old_size < g->offset + g->len &&
	    ftruncate(g->fd, (off_t)g->old_size) < 0)
		r = -errno;
	return r < 0 ? r : region_sync(g);
}

static void unrestored(struct image_commit_failure *ret, const char *path, const char *kept_as)
{
	ret->unrestored[ret->n_unrestored].path = path;
	ret->unrestored[ret->n_unrestored].kept_as = kept_as;
	ret->n_unrestored++;
}

/* Every placed output put back, last placed first: its old name renamed over it, or a file
 * that was not there before removed. One that cannot be is named in ret, left new, its old
 * name kept (f->placed stays true). */
static void put_back(struct image_outputs *o, struct image_commit_failure *ret)
{
	unsigned i;

	for (i = o->n; i-- > 0;) {
		struct image_output *f = &o->f[i];
		int r;

		if (!f->placed)
			continue;
		r = f->old[0] ? rename(f->old, f->path) : unlink(f->path);
		if (r < 0) {
			unrestored(ret, f->path, f->old);
			continue;
		}
		f->placed = false;
		f->old[0] = '\0';
		sync_dir(f->path);
	}
}

/* Phases (image-io.h): old names, renames, directories synced, the region, old names dropped.
 * Until the last, a failure undoes what was done; the old names and the temporary files are
 * in each output's own directory, so no rename crosses a filesystem (no EXDEV but for a path
 * that is itself a mount point, which the rename refuses and the undo survives). */
int image_outputs_commit(struct image_outputs *o, struct image_commit_failure *ret)
{
	struct image_region *g = &o->region;
	unsigned i;
	int r;

	ret->path = NULL;
	ret->n_unrestored = 0;
	for (i = 0; i < o->n; i++) {
		r = keep_old(&o->f[i]);
		if (r < 0) {
			ret->path = o->f[i].path;
			goto out_remove;
		}
	}
	for (i = 0; i < o->n; i++) {
		if (rename(o->f[i].tmp, o->f[i].path) < 0) {
			r = -errno;
			ret->path = o->f[i].path;
			goto out_put_back;
		}
		o->f[i].placed = true;
	}
	for (i = 0; i < o->n; i++) {
		r = sync_dir(o->f[i].path);
		if (r < 0) {
			ret->path = o->f[i].path;
			goto out_put_back;
		}
	}
	if (g->on) {
		r = region_write(g);
		if (r < 0) {
			ret->path = g->what;
			goto out_region_back;
		}
	}
	/* done: a crash from here on leaves the new set and at most some .old files */
	for (i = 0; i < o->n; i++)
		if (o->f[i].old[0])
			unlink(o->f[i].old);
	o->n = 0;
	g->on = false;
	return 0;

out_region_back:
	if (region_restore(g) < 0)
		unrestored(ret, g->what, NULL);
out_put_back:
	put_back(o, ret);
out_remove:
	for (i = 0; i < o->n; i++) {
		if (o->f[i].placed)
			continue;
		unlink(o->f[i].tmp);
		if (o->f[i].old[0])
			unlink(o->f[i].old);
	}
	o->n = 0;
	g->on = false;
	return r;
}

void image_commit_reason(const struct image_commit_failure *f, int r, char *buf, size_t size)
{
	size_t n = 0;
	unsigned i;

	n += (size_t)snprintf(buf, size, "writing %s: %s", f->path, image_io_reason(r));
	for (i = 0; i < f->n_unrestored && n < size; i++) {
		const char *path = f->unrestored[i].path, *kept = f->unrestored[i].kept_as;
		const char *sep = i ? ", " : "; not put back: ";

		if (!kept)
			n += (size_t)snprintf(buf + n, size - n, "%s%s (its old bytes not written "
					      "back)", sep, path);
		else if (kept[0])
			n += (size_t)snprintf(buf + n, size - n, "%s%s (its old content is in %s)",
					      sep, path, kept);
		else
			n += (size_t)snprintf(buf + n, size - n, "%s%s (new, not removed)", sep,
					      path);
	}
}

void image_outputs_abort(struct image_outputs *o)
{
	unsigned i;

	for (i = 0; i < o->n; i++)
		unlink(o->f[i].tmp);
	o->n = 0;
	o->region.on = false;
}
