// SPDX-License-Identifier: LGPL-2.1-or-later
/* Block device lookup: sysfs enumeration + libblkid low-level probing (no blkid cache file). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdarg.h>
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

#include "devices.h"
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

/* "MAJ:MIN" in decimal (dm-mod.create= tables, sysfs "dev" files): digits only, in range. */
static bool parse_majmin(const char *s, dev_t *ret)
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
	if (parse_majmin(spec, &devno)) {
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

__attribute__((format(printf, 2, 3)))
static void set_err(struct verity_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/* Open a node read-only and confirm it is the block device devno (or any block device when
 * devno is 0). Fills d. */
static int open_dev(struct vi_dev *d, const char *path, dev_t devno, const char *kname,
		    struct verity_err *err)
{
	struct stat st;
	uint64_t size = 0;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		if (r != -ENOENT && r != -ENXIO && r != -ENOMEDIUM)
			set_err(err, "cannot open %s: %s", path, strerror(-r));
		return r == -ENXIO || r == -ENOMEDIUM ? -ENOENT : r;
	}
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode)) {
		set_err(err, "%s is not a block device", path);
		r = -EINVAL;
		goto out_close;
	}
	if (devno && st.st_rdev != devno) {
		/* the node changed under us between the scan and the open */
		set_err(err, "%s does not match the device found by %s", path, d->spec);
		r = -EINVAL;
		goto out_close;
	}
	if (ioctl(fd, BLKGETSIZE64, &size) < 0) {
		r = -errno;
		set_err(err, "cannot read the size of %s: %s", path, strerror(-r));
		goto out_close;
	}
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

static int read_small(int dirfd, const char *path, char *buf, size_t size)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* The kernel name of MAJ:MIN from /sys/dev/block/MAJ:MIN/uevent (DEVNAME=). -ENOENT while
 * the device does not exist. */
static int majmin_name(dev_t devno, char *out, size_t out_size)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", major(devno), minor(devno));
	if (read_small(AT_FDCWD, path, buf, sizeof(buf)) < 0)
		return -ENOENT;
	/* read_small kept the first line only; re-read the whole file */
	{
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n;

		if (fd < 0)
			return -ENOENT;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return -ENOENT;
		buf[n] = '\0';
	}
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

/* What a scan learns about one block device. */
struct candidate {
	char kname[VI_DEV_NAME_MAX];
	dev_t devno;
};

/* Probe one device for the value named blkid_name. Returns 1 and fills out on a hit. */
static int probe_value(const char *node, enum tag_kind kind, const char *blkid_name,
		       char *out, size_t out_size)
{
	blkid_probe pr;
	const char *val = NULL;
	int fd, found = 0;

	fd = open(node, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return 0;
	pr = blkid_new_probe();
	if (!pr)
		goto out_close;
	if (blkid_probe_set_device(pr, fd, 0, 0) < 0)
		goto out_free;
	if (kind == TAG_PARTUUID || kind == TAG_PARTLABEL) {
		blkid_probe_enable_superblocks(pr, 0);
		blkid_probe_enable_partitions(pr, 1);
		blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	} else {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID |
						  BLKID_SUBLKS_TYPE);
		blkid_probe_enable_partitions(pr, 0);
	}
	if (blkid_do_safeprobe(pr) == 0 &&
	    blkid_probe_lookup_value(pr, blkid_name, &val, NULL) == 0 && val) {
		snprintf(out, out_size, "%s", val);
		found = 1;
	}
out_free:
	blkid_free_probe(pr);
out_close:
	close(fd);
	return found;
}

/* Match one tag spec against all block devices. 0 with *ret set on exactly one match. */
static int find_tag(const char *spec, enum tag_kind kind, unsigned idx, const char *value,
		    struct candidate *ret, struct verity_err *err)
{
	DIR *dir;
	struct dirent *de;
	unsigned matches = 0;
	char first[VI_DEV_NAME_MAX] = "";
	int r = 0;

	dir = opendir("/sys/class/block");
	if (!dir) {
		r = -errno;
		set_err(err, "cannot list /sys/class/block: %s", strerror(-r));
		return r;
	}
	while ((de = readdir(dir))) {
		char buf[64], node[PATH_MAX], got[256];
		dev_t devno;

		if (de->d_name[0] == '.' || !strncmp(de->d_name, "dm-", 3) ||
		    strlen(de->d_name) >= VI_DEV_NAME_MAX)
			continue;
		snprintf(node, sizeof(node), "%s/size", de->d_name);
		if (read_small(dirfd(dir), node, buf, sizeof(buf)) < 0 || !strcmp(buf, "0"))
			continue;
		snprintf(node, sizeof(node), "%s/dev", de->d_name);
		if (read_small(dirfd(dir), node, buf, sizeof(buf)) < 0 || !parse_majmin(buf, &devno))
			continue;
		/* devtmpfs names the node after the kernel name, '!' standing for '/' */
		snprintf(node, sizeof(node), "/dev/%s", de->d_name);
		for (char *c = node + 5; *c; c++)
			if (*c == '!')
				*c = '/';
		if (!probe_value(node, kind, tags[idx].blkid_name, got, sizeof(got)))
			continue;
		if (tags[idx].ci ? strcasecmp(got, value) : strcmp(got, value))
			continue;
		if (++matches == 1) {
			snprintf(first, sizeof(first), "%.63s", de->d_name);
			snprintf(ret->kname, sizeof(ret->kname), "%.63s", de->d_name);
			ret->devno = devno;
		} else {
			if (err)
				snprintf(err->msg, sizeof(err->msg),
					 "%.60s matches more than one device (%.32s and %.32s): refused",
					 spec, first, de->d_name);
			r = -ENOTUNIQ;
			break;
		}
	}
	closedir(dir);
	if (r == 0 && matches == 0) {
		set_err(err, "no device matches %.120s", spec);
		r = -ENOENT;
	}
	return r;
}

int vi_devs_scan(struct vi_dev *devs, unsigned n, struct verity_err *err)
{
	int missing = 0;
	struct verity_err first_missing = { "" };

	for (unsigned i = 0; i < n; i++) {
		struct vi_dev *d = &devs[i];
		struct candidate c;
		struct verity_err tag_err = { "" };
		const char *value;
		unsigned idx = 0;
		enum tag_kind kind;
		char node[PATH_MAX];
		int r;

		if (d->fd >= 0)
			continue;
		kind = spec_kind(d->spec, &value, &idx);
		if (kind == TAG_INVALID) {
			set_err(err, "invalid device specification \"%.100s\"", d->spec);
			return -EINVAL;
		}
		if (kind == TAG_MAJMIN) {
			char kname[VI_DEV_NAME_MAX];
			dev_t devno = 0;

			parse_majmin(value, &devno);
			r = majmin_name(devno, kname, sizeof(kname));
			if (r == -ENOENT) {
				if (!missing++)
					set_err(&first_missing, "device %.150s not found", d->spec);
				continue;
			}
			if (r < 0) {
				set_err(err, "device %.100s has an unusable kernel name", d->spec);
				return r;
			}
			snprintf(node, sizeof(node), "/dev/%s", kname);
			r = open_dev(d, node, devno, kname, err);
			if (r < 0)
				return r == -ENOENT ? -EINVAL : r;
			continue;
		}
		if (kind == TAG_PATH) {
			r = open_dev(d, value, 0, NULL, err);
			if (r == -ENOENT) {
				if (!missing++)
					set_err(&first_missing, "device %.150s not found", d->spec);
				continue;
			}
			if (r < 0)
				return r;
			continue;
		}
		r = find_tag(d->spec, kind, idx, value, &c, &tag_err);
		if (r == -ENOENT) {
			if (!missing++)
				first_missing = tag_err;
			continue;
		}
		if (r < 0) {
			if (err)
				*err = tag_err;
			return r;
		}
		snprintf(node, sizeof(node), "/dev/%s", c.kname);
		for (char *p = node + 5; *p; p++)
			if (*p == '!')
				*p = '/';
		r = open_dev(d, node, c.devno, c.kname, err);
		if (r < 0)
			return r == -ENOENT ? -EINVAL : r;
	}
	if (missing) {
		if (err)
			*err = first_missing;
		return -ENOENT;
	}
	return 0;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
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

int vi_devs_wait(struct vi_dev *devs, unsigned n, unsigned timeout_ms, struct verity_err *err)
{
	uint64_t deadline = now_ms() + timeout_ms;
	int ufd = uevent_open();
	int r;

	for (;;) {
		uint64_t t;

		r = vi_devs_scan(devs, n, err);
		if (r != -ENOENT)
			break;
		t = now_ms();
		if (t >= deadline) {
			char msg[sizeof(err->msg)];

			if (err) {
				snprintf(msg, sizeof(msg), "%s", err->msg);
				snprintf(err->msg, sizeof(err->msg), "%.150s after %u s", msg,
					 timeout_ms / 1000u);
			}
			r = -ETIMEDOUT;
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
