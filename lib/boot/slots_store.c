// SPDX-License-Identifier: LGPL-2.1-or-later
/* The slot state store's read and write on a file descriptor (include/slots.h): the record
 * and the order of the copies are lib/format/slotstate.c's. */
#include <errno.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slots.h"

/* The size of the store behind fd: a block device's, a regular file's. */
static int store_size(int fd, uint64_t *ret, struct vi_error *err)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return vi_errno(err, -errno, "cannot stat the slot store: %s", strerror(errno));
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, ret) < 0)
			return vi_errno(err, -errno, "cannot get the size of the slot store: %s",
					strerror(errno));
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return vi_errno(err, -EINVAL, "the slot store is not a block device or a file");
	*ret = (uint64_t)st.st_size;
	return 0;
}

int vi_slots_store_read(int fd, unsigned default_count, struct vi_slots_store *ret,
			struct vi_error *err)
{
	uint8_t buf[VI_SLOTS_STORE_SIZE];
	uint64_t size = 0;
	size_t len = 0;
	ssize_t n;
	int r;

	r = store_size(fd, &size, err);
	if (r < 0)
		return r;
	/* too small for copy 1: every write would fail there, and no try would ever count */
	if (size < VI_SLOTS_STORE_SIZE)
		return vi_errno(err, -ENOSPC, "the slot store has %llu bytes, fewer than the %d "
				"its two copies need", (unsigned long long)size,
				VI_SLOTS_STORE_SIZE);
	while (len < sizeof(buf)) {
		n = pread(fd, buf + len, sizeof(buf) - len, (off_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return vi_errno(err, -errno, "cannot read the slot store: %s",
					strerror(errno));
		if (n == 0)
			break;
		len += (size_t)n;
	}
	vi_slots_store_parse(buf, len, default_count, ret);
	return 0;
}

static int write_copy(int fd, const uint8_t *rec, unsigned copy, struct vi_error *err)
{
	off_t off = (off_t)copy * VI_SLOTS_COPY_STRIDE;
	size_t done = 0;
	ssize_t n;

	while (done < VI_SLOTS_COPY_USED) {
		n = pwrite(fd, rec + done, VI_SLOTS_COPY_USED - done, off + (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return vi_errno(err, n < 0 ? -errno : -EIO,
					"cannot write copy %u of the slot store: %s", copy,
					n < 0 ? strerror(errno) : "short write");
		done += (size_t)n;
	}
	if (fdatasync(fd) < 0)
		return vi_errno(err, -errno, "cannot sync copy %u of the slot store: %s", copy,
				strerror(errno));
	return 0;
}

int vi_slots_store_write(int fd, struct vi_slots_store *st, const struct vi_slots *next,
			 struct vi_error *err)
{
	uint8_t out[VI_SLOTS_STORE_SIZE];
	struct vi_slots s = *next;
	unsigned order[VI_SLOTS_COPIES];
	int r;

	r = vi_slots_store_update(st, &s, out, order, err);
	if (r < 0)
		return r;
	/* from here on this number may be on disk, whatever the writes report */
	st->seq_max = s.seq;
	for (unsigned k = 0; k < VI_SLOTS_COPIES; k++) {
		r = write_copy(fd, out + (size_t)order[k] * VI_SLOTS_COPY_STRIDE, order[k], err);
		if (r < 0)
			return r;
		st->valid[order[k]] = true;
		st->why[order[k]].msg[0] = '\0';
		st->seq[order[k]] = s.seq;
		st->state = s;
		st->source = order[k] == 0 ? VI_SLOTS_FROM_COPY0 : VI_SLOTS_FROM_COPY1;
	}
	st->source = VI_SLOTS_FROM_COPY0;
	return 0;
}
