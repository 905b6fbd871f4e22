// SPDX-License-Identifier: LGPL-2.1-or-later
/* Block device lookup: sysfs enumeration + libblkid low-level probing (no blkid cache file). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <blkid.h>

#include "clock.h"
#include "devices.h"
#include "fileio.h"
#include "strutil.h"

enum tag_kind { TAG_PATH, TAG_MAJMIN, TAG_UUID, TAG_PARTUUID, TAG_LABEL, TAG_PARTLABEL, TAG_INVALID };

static const struct {
	const char *prefix;
	enum tag_kind kind;
	const char *blkid_name;   /* libblkid value to compare */
	bool ci;                  /* case-insensitive (UUIDs) */
} tags[] = {
	{ "UUID=", TAG_UUID, "UUID", true },
	{ "PARTUUID=", TAG_PARTUUID, "PART_ENTRY_UUID", true },
	{ "LABEL=", TAG_LABEL, "LABEL", false },
	{ "PARTLABEL=", TAG_PARTLABEL, "PART_ENTRY_NAME", false },
};

bool vi_parse_majmin(const char *s, dev_t *ret)
{
	const char *colon = strchr(s, ':');
	uint32_t maj, min;

	if (!colon || vi_parse_u32(s, (size_t)(colon - s), &maj) < 0 ||
	    vi_parse_u32(colon + 1, strlen(colon + 1), &min) < 0 || maj > 4095 || min > 1048575)
		return false;
	*ret = makedev(maj, min);
	return true;
}

static enum tag_kind spec_kind(const char *spec, const char **ret_value, unsigned *ret_idx)
{
	dev_t devno;

	if (!strncmp(spec, "/dev/", 5) && spec[5]) {
		*ret_value = spec;
		return TAG_PATH;
	}
	if (vi_parse_majmin(spec, &devno)) {
		*ret_value = spec;
		return TAG_MAJMIN;
	}
	for (unsigned i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		size_t l = strlen(tags[i].prefix);

		if (!strncmp(spec, tags[i].prefix, l) && spec[l]) {
			*ret_value = spec + l;
			*ret_idx = i;
			return tags[i].kind;
		}
	}
	return TAG_INVALID;
}

bool vi_dev_spec_valid(const char *spec)
{
	const char *v;
	unsigned idx;

	return spec && spec_kind(spec, &v, &idx) != TAG_INVALID;
}

/* Open a node read-only and confirm it is the block device devno (or any block device when
 * devno is 0). Fills d. */
static int open_dev(struct vi_dev *d, const char *path, dev_t devno, const char *kname,
		    struct vi_error *err)
{
	struct stat st;
	uint64_t size = 0;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		if (r == -ENOENT || r == -ENXIO || r == -ENOMEDIUM)
			return -ENOENT;
		return vi_errno(err, r, "cannot open %s: %s", path, strerror(-r));
	}
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode)) {
		r = vi_err(err, "%s is not a block device", path);
		goto out_close;
	}
	if (devno && st.st_rdev != devno) {
		/* the node changed under us between the scan and the open */
		r = vi_err(err, "%s does not match the device found by %s", path, d->spec);
		goto out_close;
	}
	if (ioctl(fd, BLKGETSIZE64, &size) < 0) {
		r = -errno;
		r = vi_errno(err, r, "cannot read the size of %s: %s", path, strerror(-r));
		goto out_close;
	}
	/* We read two small blocks (superblock, top hash block): no readahead of 128 KiB each,
	 * which the kernel's own reads (dm-bufio) would not use anyway. */
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	d->fd = fd;
	d->devno = st.st_rdev;
	d->size = size;
	if (kname)
		snprintf(d->name, sizeof(d->name), "%.63s", kname);
	else
		snprintf(d->name, sizeof(d->name), "%u:%u", major(st.st_rdev), minor(st.st_rdev));
	return 0;
out_close:
	close(fd);
	return r;
}

/* The first line of a sysfs attribute. */
static int read_small(int dirfd, const char *path, char *buf, size_t size)
{
	int r = vi_fileio_read_text_at(dirfd, path, buf, size);

	if (r < 0)
		return r;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* The kernel name of MAJ:MIN from /sys/dev/block/MAJ:MIN/uevent (DEVNAME=). -ENOENT while
 * the device does not exist. */
static int majmin_name(dev_t devno, char *out, size_t out_size)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", major(devno), minor(devno));
	if (vi_fileio_read_text_at(AT_FDCWD, path, buf, sizeof(buf)) < 0 || !buf[0])
		return -ENOENT;
	p = strstr(buf, "DEVNAME=");
	if (!p)
		return -ENOENT;
	p += 8;
	p[strcspn(p, "\n")] = '\0';
	if (!*p || strlen(p) >= out_size || strstr(p, ".."))
		return -EINVAL;
	snprintf(out, out_size, "%s", p);
	return 0;
}

/* One block device of a scan, and what probing it found (each chain probed at most once per
 * scan, however many tags are looked up: DPS discovery asks for two PARTUUIDs). */
struct blockdev {
	char kname[VI_DEV_NAME_MAX];
	dev_t devno;
	bool probed_sb, probed_parts;
	bool have[4];                 /* indexed like tags[] */
	char val[4][256];
};

struct devlist {
	struct blockdev *v;
	unsigned n;
	bool listed;
};

/* /dev node of a kernel name: devtmpfs names it so, '!' standing for '/'. */
static void kname_node(const char *kname, char *node, size_t size)
{
	snprintf(node, size, "/dev/%s", kname);
	for (char *c = node + 5; *c; c++)
		if (*c == '!')
			*c = '/';
}

int vi_dev_node(dev_t devno, char *node, size_t size)
{
	char kname[VI_DEV_NAME_MAX];
	int r = majmin_name(devno, kname, sizeof(kname));

	if (r < 0)
		return r;
	kname_node(kname, node, size);
	return 0;
}

/* Every block device of /sys/class/block except device-mapper devices and empty ones. */
static int list_devices(struct devlist *l, struct vi_error *err)
{
	DIR *dir;
	struct dirent *de;
	unsigned cap = 0;
	int r = 0;

	dir = opendir("/sys/class/block");
	if (!dir) {
		r = -errno;
		return vi_errno(err, r, "cannot list /sys/class/block: %s", strerror(-r));
	}
	while ((de = readdir(dir))) {
		char buf[64], path[VI_DEV_NAME_MAX + 8];
		dev_t devno;

		if (de->d_name[0] == '.' || !strncmp(de->d_name, "dm-", 3) ||
		    strlen(de->d_name) >= VI_DEV_NAME_MAX)
			continue;
		snprintf(path, sizeof(path), "%.63s/size", de->d_name);
		if (read_small(dirfd(dir), path, buf, sizeof(buf)) < 0 || !strcmp(buf, "0"))
			continue;
		snprintf(path, sizeof(path), "%.63s/dev", de->d_name);
		if (read_small(dirfd(dir), path, buf, sizeof(buf)) < 0 || !vi_parse_majmin(buf, &devno))
			continue;
		if (l->n == cap) {
			struct blockdev *v;

			cap = cap ? 2 * cap : 16;
			v = realloc(l->v, cap * sizeof(*v));
			if (!v) {
				r = -ENOMEM;
				break;
			}
			l->v = v;
		}
		memset(&l->v[l->n], 0, sizeof(l->v[l->n]));
		snprintf(l->v[l->n].kname, sizeof(l->v[l->n].kname), "%.63s", de->d_name);
		l->v[l->n].devno = devno;
		l->n++;
	}
	closedir(dir);
	l->listed = r == 0;
	return r;
}

/* Probe one chain of b (superblocks: UUID and LABEL; partitions: PART_ENTRY_UUID/NAME). */
static void probe_dev(struct blockdev *b, bool parts)
{
	char node[VI_DEV_NAME_MAX + 8];
	blkid_probe pr;
	int fd;

	if (parts)
		b->probed_parts = true;
	else
		b->probed_sb = true;
	kname_node(b->kname, node, sizeof(node));
	fd = open(node, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return;
	pr = blkid_new_probe();
	if (!pr)
		goto out_close;
	if (blkid_probe_set_device(pr, fd, 0, 0) < 0)
		goto out_free;
	blkid_probe_enable_superblocks(pr, !parts);
	blkid_probe_enable_partitions(pr, parts);
	if (parts)
		blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	else
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID);
	if (blkid_do_safeprobe(pr) != 0)
		goto out_free;
	for (unsigned i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		bool part_tag = tags[i].kind == TAG_PARTUUID || tags[i].kind == TAG_PARTLABEL;
		const char *val = NULL;

		if (part_tag == parts &&
		    blkid_probe_lookup_value(pr, tags[i].blkid_name, &val, NULL) == 0 && val &&
		    snprintf(b->val[i], sizeof(b->val[i]), "%s", val) < (int)sizeof(b->val[i]))
			b->have[i] = true;
	}
out_free:
	blkid_free_probe(pr);
out_close:
	close(fd);
}

/* Match one tag spec against the scan's devices. 0 with *ret on exactly one match. */
static int find_tag(const char *spec, enum tag_kind kind, unsigned idx, const char *value,
		    struct devlist *l, const struct blockdev **ret, struct vi_error *err)
{
	bool parts = kind == TAG_PARTUUID || kind == TAG_PARTLABEL;
	const struct blockdev *first = NULL;
	int r;

	if (!l->listed) {
		r = list_devices(l, err);
		if (r < 0)
			return r;
	}
	for (unsigned i = 0; i < l->n; i++) {
		struct blockdev *b = &l->v[i];

		if (!(parts ? b->probed_parts : b->probed_sb))
			probe_dev(b, parts);
		if (!b->have[idx] ||
		    (tags[idx].ci ? strcasecmp(b->val[idx], value) : strcmp(b->val[idx], value)))
			continue;
		if (first)
			return vi_errno(err, -ENOTUNIQ, "%.60s matches more than one device "
					"(%.32s and %.32s): refused", spec, first->kname, b->kname);
		first = b;
	}
	if (!first)
		return vi_errno(err, -ENOENT, "no device matches %.120s", spec);
	*ret = first;
	return 0;
}

int vi_devs_scan(struct vi_dev *devs, unsigned n, struct vi_error *err)
{
	struct devlist list = { NULL, 0, false };
	int missing = 0, r = 0;
	struct vi_error first_missing = { "" };

	for (unsigned i = 0; i < n; i++) {
		struct vi_dev *d = &devs[i];
		const struct blockdev *c = NULL;
		struct vi_error tag_err = { "" };
		const char *value;
		unsigned idx = 0;
		enum tag_kind kind;
		char node[PATH_MAX];

		if (d->fd >= 0)
			continue;
		kind = spec_kind(d->spec, &value, &idx);
		if (kind == TAG_INVALID) {
			r = vi_err(err, "invalid device specification \"%.100s\"", d->spec);
			goto out;
		}
		if (kind == TAG_MAJMIN) {
			char kname[VI_DEV_NAME_MAX];
			dev_t devno = 0;

			vi_parse_majmin(value, &devno);
			r = majmin_name(devno, kname, sizeof(kname));
			if (r == -ENOENT) {
				if (!missing++)
					(void)vi_errno(&first_missing, r, "device %.150s not found",
						       d->spec);
				continue;
			}
			if (r < 0) {
				r = vi_errno(err, r, "device %.100s has an unusable kernel name",
					     d->spec);
				goto out;
			}
			snprintf(node, sizeof(node), "/dev/%s", kname);
			r = open_dev(d, node, devno, kname, err);
			if (r < 0) {
				r = r == -ENOENT ? -EINVAL : r;
				goto out;
			}
			continue;
		}
		if (kind == TAG_PATH) {
			r = open_dev(d, value, 0, NULL, err);
			if (r == -ENOENT) {
				if (!missing++)
					(void)vi_errno(&first_missing, r, "device %.150s not found",
						       d->spec);
				continue;
			}
			if (r < 0)
				goto out;
			continue;
		}
		r = find_tag(d->spec, kind, idx, value, &list, &c, &tag_err);
		if (r == -ENOENT) {
			if (!missing++)
				first_missing = tag_err;
			continue;
		}
		if (r < 0) {
			if (err)
				*err = tag_err;
			goto out;
		}
		kname_node(c->kname, node, sizeof(node));
		r = open_dev(d, node, c->devno, c->kname, err);
		if (r < 0) {
			r = r == -ENOENT ? -EINVAL : r;
			goto out;
		}
	}
	r = 0;
	if (missing) {
		if (err)
			*err = first_missing;
		r = -ENOENT;
	}
out:
	free(list.v);
	return r;
}

/* Kernel uevents (group 1): no udev needed. -1 when unavailable; polling still works. */
static int uevent_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_KOBJECT_UEVENT);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Wait up to ms for a uevent about a block device; drain the socket. */
static void uevent_wait(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char buf[4096];
	ssize_t len;

	if (fd < 0) {
		struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
		return;
	}
	if (poll(&pfd, 1, ms) <= 0)
		return;
	/* Any event is a reason to re-scan; parsing SUBSYSTEM= would save little. */
	do
		len = recv(fd, buf, sizeof(buf), 0);
	while (len > 0);
}

int vi_devs_wait(struct vi_dev *devs, unsigned n, unsigned timeout_ms, struct vi_error *err)
{
	return vi_devs_wait_noted(devs, n, timeout_ms, NULL, err);
}

int vi_devs_wait_noted(struct vi_dev *devs, unsigned n, unsigned timeout_ms,
		       const struct vi_devs_wait_note *note, struct vi_error *err)
{
	uint64_t deadline = vi_now_ms() + timeout_ms;
	int ufd = uevent_open();
	bool noted = false;
	int r;

	for (;;) {
		struct vi_error e = { "" };
		uint64_t t;

		r = vi_devs_scan(devs, n, &e);
		if (err)
			*err = e;
		if (r != -ENOENT)
			break;
		if (!noted && note && note->waiting)
			note->waiting(note->ctx, e.msg, timeout_ms);
		noted = true;
		t = vi_now_ms();
		if (t >= deadline) {
			/* e still holds the scan's reason that err got a copy of */
			r = vi_errno(err, -ETIMEDOUT, "%.150s after %u s", e.msg, timeout_ms / 1000u);
			break;
		}
		uevent_wait(ufd, (int)(deadline - t < 250 ? deadline - t : 250));
	}
	if (ufd >= 0)
		close(ufd);
	return r;
}

void vi_devs_close(struct vi_dev *devs, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (devs[i].fd >= 0)
			close(devs[i].fd);
		devs[i].fd = -1;
	}
}
