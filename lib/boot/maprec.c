// SPDX-License-Identifier: LGPL-2.1-or-later
/* The record of the mappings `setup` made (include/maprec.h). The file's grammar, every line
 * ending in '\n', nothing after the end line:
 *
 *   verity-init mappings 1
 *   map name=NAME uuid=UUID table=START LENGTH TYPE PARAMS      (0 to VI_MAPREC_MAX lines)
 *   end count=N crc32=XXXXXXXX
 *
 * NAME: 1-63 bytes 0x21-0x7e; UUID: 0-128 bytes 0x21-0x7e; the table line: 1 to
 * VI_MAPREC_LINE_MAX - 1 bytes 0x20-0x7e; N: the number of map lines (decimal, no leading zero);
 * crc32: CRC-32 (IEEE 802.3) of every byte before "end", 8 lower-case hex digits. A name may
 * appear once. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "maprec.h"

#define HEADER   "verity-init mappings 1\n"
#define MAP_PFX  "map name="
#define END_PFX  "end count="
#define TMP_FILE VI_MAPREC_FILE ".tmp"

static uint32_t crc32_ieee(const char *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		c ^= (unsigned char)p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
	}
	return ~c;
}

/* len bytes of s in [lo, 0x7e] */
static bool bytes_in(const char *s, size_t len, unsigned char lo)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < lo || (unsigned char)s[i] > 0x7e)
			return false;
	return true;
}

int vi_maprec_add(struct vi_maprec *rec, const char *name, const char *uuid, const char *table,
		  struct vi_error *err)
{
	size_t nl = strlen(name), ul = strlen(uuid), tl = strlen(table);
	struct vi_maprec_entry *e = (struct vi_maprec_entry *)vi_maprec_find(rec, name);

	if (nl >= VI_MAX_NAME || ul >= VI_MAX_DM_UUID || tl >= VI_MAPREC_LINE_MAX)
		return vi_errno(err, -ENOBUFS, "mapping %.64s: name, UUID or table too long",
				name);
	if (!nl || !tl || !bytes_in(name, nl, 0x21) || !bytes_in(uuid, ul, 0x21) ||
	    !bytes_in(table, tl, 0x20))
		return vi_err(err, "mapping %.64s: name, UUID or table has a byte that cannot be "
			      "recorded", nl ? "(unprintable)" : "(empty)");
	if (!e) {
		if (rec->n >= VI_MAPREC_MAX)
			return vi_errno(err, -ENOSPC, "more than %u mappings to record",
					VI_MAPREC_MAX);
		e = &rec->e[rec->n++];
	}
	memcpy(e->name, name, nl + 1);
	memcpy(e->uuid, uuid, ul + 1);
	memcpy(e->table, table, tl + 1);
	return 0;
}

const struct vi_maprec_entry *vi_maprec_find(const struct vi_maprec *rec, const char *name)
{
	for (unsigned i = 0; i < rec->n && i < VI_MAPREC_MAX; i++)
		if (!strcmp(rec->e[i].name, name))
			return &rec->e[i];
	return NULL;
}

int vi_maprec_format(const struct vi_maprec *rec, char *buf, size_t size, size_t *ret_len)
{
	size_t pos = 0;
	int n;

	if (rec->n > VI_MAPREC_MAX)
		return -EINVAL;
	n = snprintf(buf, size, HEADER);
	for (unsigned i = 0; n >= 0 && (size_t)n < size - pos && i < rec->n; i++) {
		pos += (size_t)n;
		n = snprintf(buf + pos, size - pos, MAP_PFX "%s uuid=%s table=%s\n",
			     rec->e[i].name, rec->e[i].uuid, rec->e[i].table);
	}
	if (n < 0 || (size_t)n >= size - pos)
		return -ENOBUFS;
	pos += (size_t)n;
	n = snprintf(buf + pos, size - pos, END_PFX "%u crc32=%08" PRIx32 "\n", rec->n,
		     crc32_ieee(buf, pos));
	if (n < 0 || (size_t)n >= size - pos)
		return -ENOBUFS;
	*ret_len = pos + (size_t)n;
	return 0;
}

/* "NAME uuid=UUID table=LINE" (after "map name="), len bytes without the '\n', into e. */
static bool parse_map(const char *s, size_t len, struct vi_maprec_entry *e)
{
	const char *end = s + len, *sp, *u, *t;
	size_t nl, ul, tl;

	sp = memchr(s, ' ', len);
	if (!sp || (size_t)(end - sp) < sizeof(" uuid=") - 1 || memcmp(sp, " uuid=", 6))
		return false;
	u = sp + 6;
	t = memchr(u, ' ', (size_t)(end - u));
	if (!t || (size_t)(end - t) < sizeof(" table=") - 1 || memcmp(t, " table=", 7))
		return false;
	nl = (size_t)(sp - s);
	ul = (size_t)(t - u);
	t += 7;
	tl = (size_t)(end - t);
	if (!nl || nl >= VI_MAX_NAME || ul >= VI_MAX_DM_UUID || !tl || tl >= VI_MAPREC_LINE_MAX ||
	    !bytes_in(s, nl, 0x21) || !bytes_in(u, ul, 0x21) || !bytes_in(t, tl, 0x20))
		return false;
	memcpy(e->name, s, nl);
	e->name[nl] = '\0';
	memcpy(e->uuid, u, ul);
	e->uuid[ul] = '\0';
	memcpy(e->table, t, tl);
	e->table[tl] = '\0';
	return true;
}

/* "N crc32=XXXXXXXX" (after "end count="), len bytes without the '\n'. */
static bool parse_end(const char *s, size_t len, unsigned *ret_count, uint32_t *ret_crc)
{
	unsigned count = 0;
	uint32_t crc = 0;
	size_t i = 0;

	if (!len || (s[0] == '0' && len > 1 && s[1] != ' '))
		return false;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		count = count * 10u + (unsigned)(s[i] - '0');
		if (count > VI_MAPREC_MAX)
			return false;
	}
	if (!i || len - i != sizeof(" crc32=") - 1 + 8 || memcmp(s + i, " crc32=", 7))
		return false;
	for (i += 7; i < len; i++) {
		char c = s[i];

		if (c >= '0' && c <= '9')
			crc = crc << 4 | (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			crc = crc << 4 | (uint32_t)(c - 'a' + 10);
		else
			return false;
	}
	*ret_count = count;
	*ret_crc = crc;
	return true;
}

int vi_maprec_parse(const char *text, size_t size, struct vi_maprec *ret, struct vi_error *err)
{
	/* the caller's entries stay as they were until the whole text is accepted */
	struct vi_maprec rec;
	size_t pos = sizeof(HEADER) - 1;
	unsigned line = 2, count;
	uint32_t crc;

	if (size > VI_MAPREC_TEXT_MAX)
		return vi_errno(err, -EFBIG, "mapping record: longer than %u bytes",
				VI_MAPREC_TEXT_MAX);
	if (size < pos || memcmp(text, HEADER, pos))
		return vi_err(err, "mapping record: line 1 is not \"verity-init mappings 1\"");
	rec.n = 0;
	for (;; line++) {
		const char *s = text + pos, *nl = memchr(s, '\n', size - pos);
		size_t len;

		if (!nl)
			return vi_err(err, "mapping record: line %u has no end (truncated?)", line);
		len = (size_t)(nl - s);
		if (len > sizeof(MAP_PFX) - 1 && !memcmp(s, MAP_PFX, sizeof(MAP_PFX) - 1)) {
			if (rec.n == VI_MAPREC_MAX)
				return vi_err(err, "mapping record: more than %u mappings",
					      VI_MAPREC_MAX);
			if (!parse_map(s + sizeof(MAP_PFX) - 1, len - (sizeof(MAP_PFX) - 1),
				       &rec.e[rec.n]))
				return vi_err(err, "mapping record: line %u is not a mapping", line);
			for (unsigned i = 0; i < rec.n; i++)
				if (!strcmp(rec.e[i].name, rec.e[rec.n].name))
					return vi_err(err, "mapping record: line %u repeats %s", line,
						      rec.e[i].name);
			rec.n++;
			pos += len + 1;
			continue;
		}
		if (len <= sizeof(END_PFX) - 1 || memcmp(s, END_PFX, sizeof(END_PFX) - 1) ||
		    !parse_end(s + sizeof(END_PFX) - 1, len - (sizeof(END_PFX) - 1), &count, &crc))
			return vi_err(err, "mapping record: line %u is neither a mapping nor the end",
				      line);
		if (pos + len + 1 != size)
			return vi_err(err, "mapping record: text after the end line");
		if (count != rec.n || crc != crc32_ieee(text, pos))
			return vi_err(err, "mapping record: the end line's count or checksum does "
				      "not match (changed or truncated)");
		break;
	}
	memcpy(ret, &rec, sizeof(rec));
	return 0;
}

int vi_maprec_compare(const struct vi_maprec_entry *e, const char *live_uuid,
		      const char *live_table, struct vi_error *err)
{
	if (strcmp(e->uuid, live_uuid))
		return vi_errno(err, -EPERM, "mapping %s: its dm UUID \"%.40s\" is not the one setup "
				"made (\"%.40s\")", e->name, live_uuid, e->uuid);
	if (strcmp(e->table, live_table))
		return vi_errno(err, -EPERM, "mapping %s: its table is not the one setup loaded "
				"(live: %.100s)", e->name, live_table);
	return 0;
}

/* dirfd's directory is ours and closed to others (mode & perm == 0). */
static int dir_ours(int dirfd, mode_t perm)
{
	struct stat st;

	if (fstat(dirfd, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & perm))
		return -EPERM;
	return 0;
}

/* The run directory (created 0755 if missing) and its setup directory (created 0700 if
 * missing and create), neither a symbolic link, both ours, the run directory writable only by
 * us, the setup directory closed to others; an fd of the setup directory. */
static int open_setup_dir(const char *rundir, bool create, int *ret_fd, struct vi_error *err)
{
	int runfd, fd = -1, r;

	*ret_fd = -1;
	if (create && mkdir(rundir, 0755) < 0 && errno != EEXIST)
		return vi_errno(err, -errno, "cannot create %.150s: %s", rundir, strerror(errno));
	runfd = open(rundir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (runfd < 0)
		return vi_errno(err, -errno, "cannot open %.150s: %s", rundir, strerror(errno));
	r = dir_ours(runfd, S_IWGRP | S_IWOTH);
	if (r < 0) {
		r = vi_errno(err, r, "%.150s is not ours or others may write to it", rundir);
		goto out;
	}
	if (create && mkdirat(runfd, VI_MAPREC_DIR, 0700) < 0 && errno != EEXIST) {
		r = vi_errno(err, -errno, "cannot create %.150s/" VI_MAPREC_DIR ": %s", rundir,
			     strerror(errno));
		goto out;
	}
	fd = openat(runfd, VI_MAPREC_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r = vi_errno(err, -errno, "cannot open %.150s/" VI_MAPREC_DIR ": %s", rundir,
			     strerror(errno));
		goto out;
	}
	r = dir_ours(fd, S_IRWXG | S_IRWXO);
	if (r < 0) {
		close(fd);
		r = vi_errno(err, r, "%.150s/" VI_MAPREC_DIR " is not ours or is open to others",
			     rundir);
		goto out;
	}
	*ret_fd = fd;
out:
	close(runfd);
	return r;
}

int vi_maprec_write(const char *rundir, const struct vi_maprec *rec, struct vi_error *err)
{
	char text[VI_MAPREC_TEXT_MAX];
	size_t len, done = 0;
	int dirfd = -1, fd, r;

	r = vi_maprec_format(rec, text, sizeof(text), &len);
	if (r < 0)
		return vi_errno(err, r, "the mapping record does not fit");
	r = open_setup_dir(rundir, true, &dirfd, err);
	if (r < 0)
		return r;
	/* a temporary file a crashed run left behind */
	if (unlinkat(dirfd, TMP_FILE, 0) < 0 && errno != ENOENT) {
		r = vi_errno(err, -errno, "cannot remove the old " TMP_FILE ": %s", strerror(errno));
		goto out;
	}
	fd = openat(dirfd, TMP_FILE, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = vi_errno(err, -errno, "cannot create %.150s/" VI_MAPREC_DIR "/" TMP_FILE ": %s",
			     rundir, strerror(errno));
		goto out;
	}
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)n;
	}
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(dirfd, TMP_FILE, dirfd, VI_MAPREC_FILE) < 0)
		r = -errno;
	if (r < 0) {
		unlinkat(dirfd, TMP_FILE, 0);
		r = vi_errno(err, r, "cannot write %.150s/" VI_MAPREC_DIR "/" VI_MAPREC_FILE ": %s",
			     rundir, strerror(-r));
	}
out:
	close(dirfd);
	return r;
}

int vi_maprec_read(const char *rundir, struct vi_maprec *ret, struct vi_error *err)
{
	char text[VI_MAPREC_TEXT_MAX];
	struct stat st;
	size_t len;
	bool more;
	int dirfd = -1, fd, r;

	r = open_setup_dir(rundir, false, &dirfd, err);
	if (r < 0)
		return r;
	fd = openat(dirfd, VI_MAPREC_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dirfd);
	if (fd < 0)
		return vi_errno(err, -errno, "cannot open %.150s/" VI_MAPREC_DIR "/" VI_MAPREC_FILE
				": %s", rundir, strerror(errno));
	if (fstat(fd, &st) < 0) {
		r = vi_errno(err, -errno, "cannot stat the mapping record: %s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & (S_IRWXG | S_IRWXO)) ||
	    st.st_nlink != 1) {
		r = vi_errno(err, -EPERM, "the mapping record is not a file of ours closed to "
			     "others");
		goto out;
	}
	r = vi_fileio_read_fd(fd, text, sizeof(text), &len, &more);
	if (r < 0) {
		r = vi_errno(err, r, "cannot read the mapping record: %s", strerror(-r));
		goto out;
	}
	if (more) {
		r = vi_errno(err, -EFBIG, "the mapping record is longer than %u bytes",
			     VI_MAPREC_TEXT_MAX);
		goto out;
	}
	r = vi_maprec_parse(text, len, ret, err);
out:
	close(fd);
	return r;
}

int vi_maprec_remove(const char *rundir)
{
	struct vi_error ignored;
	int dirfd = -1, r;

	r = open_setup_dir(rundir, false, &dirfd, &ignored);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = unlinkat(dirfd, VI_MAPREC_FILE, 0) < 0 && errno != ENOENT ? -errno : 0;
	close(dirfd);
	return r;
}
