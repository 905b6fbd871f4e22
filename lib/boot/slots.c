// SPDX-License-Identifier: LGPL-2.1-or-later
/* A/B slot decisions and the store's read and write (include/slots.h, docs/slots.md). */
#include <errno.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slots.h"

bool vi_slot_bootable(const struct vi_slot *slot)
{
	return slot->priority > 0 && slot->tries > 0;
}

int vi_slots_pick(const struct vi_slots *s)
{
	int best = -ENOENT;

	for (unsigned i = 0; i < s->count && i < VI_SLOTS_MAX; i++)
		if (vi_slot_bootable(&s->slot[i]) &&
		    (best < 0 || s->slot[i].priority > s->slot[best].priority))
			best = (int)i;
	return best;
}

int vi_slots_try(struct vi_slots *s, unsigned i, uint64_t version)
{
	if (i >= s->count || i >= VI_SLOTS_MAX)
		return -EINVAL;
	if (!vi_slot_bootable(&s->slot[i]))
		return -ESTALE;
	/* every boot costs a try, a good slot's too: one that fails after the switch (a
	 * corruption reboot, a hang the watchdog ends) runs out; mark-good gives them back */
	s->slot[i].tries--;
	/* a new image in a slot (written without set-primary) has not proven itself: the next
	 * boot must not raise the TPM counter to it if this one dies */
	if (s->slot[i].version != version)
		s->slot[i].successful = false;
	s->slot[i].version = version;
	return 0;
}

static void set_reason(struct vi_slot *sl, const char *reason)
{
	size_t n = 0;

	/* printable ASCII only: the reason comes from disks and ends up in logs and scripts */
	for (const char *p = reason ? reason : ""; *p && n + 1 < sizeof(sl->reason); p++)
		sl->reason[n++] = (unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f ? *p : '?';
	sl->reason[n] = '\0';
}

int vi_slots_mark_bad(struct vi_slots *s, unsigned i, const char *reason)
{
	struct vi_slot *sl;

	if (i >= s->count || i >= VI_SLOTS_MAX)
		return -EINVAL;
	sl = &s->slot[i];
	sl->tries = 0;
	sl->successful = false;
	set_reason(sl, reason);
	return 0;
}

int vi_slots_mark_failed(struct vi_slots *s, unsigned i, bool try_taken, const char *reason)
{
	struct vi_slot *sl;

	if (i >= s->count || i >= VI_SLOTS_MAX)
		return -EINVAL;
	sl = &s->slot[i];
	if (!try_taken && sl->tries)
		sl->tries--;
	set_reason(sl, reason);
	return 0;
}

int vi_slots_resize(struct vi_slots *s, unsigned count)
{
	if (count < 1 || count > VI_SLOTS_MAX)
		return -EINVAL;
	for (unsigned i = count; i < VI_SLOTS_MAX; i++)
		memset(&s->slot[i], 0, sizeof(s->slot[i]));
	/* slots the store did not have are zero already: never booted, not bootable */
	s->count = count;
	return 0;
}

bool vi_slots_floor_may_rise(const struct vi_slots *s, unsigned i, int running)
{
	/* only the running slot's version proved itself, by the boot that reached mark-good:
	 * a slot made good from another (RAUC's mark-good other) may have a version recorded
	 * by a try that never finished, and a counter raised to it would lock out the slot that
	 * runs now should that version hang */
	return i < s->count && i < VI_SLOTS_MAX && running >= 0 && (unsigned)running == i;
}

bool vi_slots_floor_proven(const struct vi_slots *s, unsigned i, uint64_t version)
{
	/* and not above the store's floor, which rose with that mark-good: a `successful` a
	 * store kept from before the rule (set for a slot that was not running) has a version
	 * the floor never reached */
	return i < s->count && i < VI_SLOTS_MAX && s->slot[i].successful &&
	       s->slot[i].version == version && version <= s->floor;
}

int vi_slots_mark_good(struct vi_slots *s, unsigned i, int running)
{
	struct vi_slot *sl;
	bool proven;

	if (i >= s->count || i >= VI_SLOTS_MAX)
		return -EINVAL;
	proven = vi_slots_floor_may_rise(s, i, running);
	sl = &s->slot[i];
	sl->successful = proven;
	sl->tries = VI_SLOT_TRIES_DEFAULT;
	sl->reason[0] = '\0';
	if (!sl->priority)
		sl->priority = VI_SLOT_PRIORITY_OTHER;
	if (proven && sl->version > s->floor)
		s->floor = sl->version;
	return 0;
}

int vi_slots_set_primary(struct vi_slots *s, unsigned i)
{
	if (i >= s->count || i >= VI_SLOTS_MAX)
		return -EINVAL;
	for (unsigned k = 0; k < s->count; k++)
		if (k != i && s->slot[k].priority)
			s->slot[k].priority = VI_SLOT_PRIORITY_OTHER;
	s->slot[i].priority = VI_SLOT_PRIORITY_PRIMARY;
	s->slot[i].tries = VI_SLOT_TRIES_DEFAULT;
	s->slot[i].successful = false;
	s->slot[i].reason[0] = '\0';
	return 0;
}

bool vi_slots_version_allowed(const struct vi_slots *s, uint64_t version)
{
	return version >= s->floor;
}

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

int vi_slots_read_fd(int fd, unsigned default_count, struct vi_slots_store *ret,
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

	while (done < VI_SLOTS_RECORD_SIZE) {
		n = pwrite(fd, rec + done, VI_SLOTS_RECORD_SIZE - done, off + (off_t)done);
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

int vi_slots_write_fd(int fd, struct vi_slots_store *st, const struct vi_slots *next,
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
