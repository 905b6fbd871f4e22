// SPDX-License-Identifier: LGPL-2.1-or-later
/* Verification failures on the running system (runtime.h, docs/slots.md "After the switch"):
 *
 *   monitor   waits (poll, no timer) on the kernel's uevent netlink group and /dev/kmsg; each
 *             corrupted block dm-verity reports becomes one record in
 *             /run/verity-init/corruption and one line on stdout (the journal under systemd),
 *             with the file that holds the block where the filesystem can say (FIEMAP).
 *   scrub     reads every block of a mapping once, so that dm-verity checks all of it.
 *
 * The parsers of what the kernel sends are lib/format/corruption.c's. A file's and a mapping's
 * name are kept as the filesystem and the kernel give them and shown in their line form
 * (strutil.h vi_escape) in every output: the journal line, the record, `status` and its JSON. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "corruption.h"
#include "dm.h"
#include "fileio.h"
#include "runtime.h"
#include "status.h"
#include "strutil.h"

#define FILE_MAX (VI_CORRUPTION_RECORDS_MAX * VI_CORRUPTION_LINE_MAX)
#define WALK_ENTRIES_MAX 1000000u   /* files and directories one look-up visits at most */
#define WALK_DEPTH_MAX 64u
#define SCRUB_CHUNK (1u << 20)

/* --- the records --------------------------------------------------------------------------- */

struct records {
	struct vi_corruption_record r[VI_CORRUPTION_RECORDS_MAX];
	unsigned n;
};

/* Parse the file's text into *rs (lines that are not records are skipped). */
static void records_parse(char *text, struct records *rs)
{
	rs->n = 0;
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (rs->n < VI_CORRUPTION_RECORDS_MAX &&
		    vi_corruption_record_parse(line, strlen(line), &rs->r[rs->n]) == 0)
			rs->n++;
	}
}

static int records_read(const char *dir, struct records *rs)
{
	char path[512], *text;
	int r;

	rs->n = 0;
	text = malloc(FILE_MAX);
	if (!text)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%.400s/%s", dir, VI_CORRUPTION_FILE);
	r = vi_fileio_read_text_at(AT_FDCWD, path, text, FILE_MAX);
	if (r == 0)
		records_parse(text, rs);
	free(text);
	return r;
}

/* Write the records atomically (temporary file, rename). */
static int records_write(const char *dir, const struct records *rs, struct vi_error *err)
{
	char path[512], tmp[520], line[VI_CORRUPTION_LINE_MAX];
	FILE *f;
	int fd, r;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return vi_errno(err, -errno, "cannot create %.150s: %s", dir, strerror(errno));
	snprintf(path, sizeof(path), "%.400s/%s", dir, VI_CORRUPTION_FILE);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return vi_errno(err, -errno, "cannot write %.150s: %s", tmp, strerror(errno));
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		goto fail;
	}
	for (unsigned i = 0; i < rs->n; i++)
		if (vi_corruption_record_format(line, sizeof(line), &rs->r[i]) > 0)
			fprintf(f, "%s\n", line);
	if (fclose(f) != 0) {
		r = -EIO;
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		r = -errno;
		goto fail;
	}
	return 0;
fail:
	unlink(tmp);
	return vi_errno(err, r, "cannot write %.150s: %s", path, strerror(-r));
}

void vi_corruption_print(FILE *f, const char *status_dir, bool json)
{
	struct records *rs = malloc(sizeof(*rs));
	char file[VI_ESCAPED_SIZE(VI_CORRUPT_FILE_MAX)];

	if (json)
		fputc('[', f);
	if (!rs || records_read(status_dir, rs) < 0) {
		if (json)
			fputc(']', f);
		free(rs);
		return;
	}
	for (unsigned i = 0; i < rs->n; i++) {
		const struct vi_corruption_record *r = &rs->r[i];

		if (json) {
			fprintf(f, "%s{\"time\":%llu,\"mapping\":", i ? "," : "",
				(unsigned long long)r->time);
			vi_json_quote(f, r->mapping);
			fprintf(f, ",\"type\":\"%s\",\"block\":", vi_corrupt_type_name(r->type));
			if (r->type == VI_REPORT_UNKNOWN)
				fputs("null", f);
			else
				fprintf(f, "%llu", (unsigned long long)r->block);
			fprintf(f, ",\"count\":%llu,\"source\":", (unsigned long long)r->count);
			vi_json_quote(f, r->source);
			fputs(",\"file\":", f);
			if (r->file[0] && r->file[0] != '(')
				vi_json_quote(f, r->file);
			else
				fputs("null", f);
			fputs(",\"note\":", f);
			if (r->file[0] == '(')
				vi_json_quote(f, r->file);
			else
				fputs("null", f);
			fputc('}', f);
		} else {
			/* the mapping and source were checked by the parser: names */
			vi_escape(r->file, strlen(r->file), file, sizeof(file));
			fprintf(f, "corruption.%u.time=%llu\ncorruption.%u.mapping=%s\n"
				   "corruption.%u.type=%s\ncorruption.%u.block=%llu\n"
				   "corruption.%u.count=%llu\ncorruption.%u.source=%s\n"
				   "corruption.%u.file=%s\n",
				i, (unsigned long long)r->time, i, r->mapping, i,
				vi_corrupt_type_name(r->type), i, (unsigned long long)r->block, i,
				(unsigned long long)r->count, i, r->source, i, file);
		}
	}
	if (json)
		fputc(']', f);
	free(rs);
}

/* --- mappings -------------------------------------------------------------------------------- */

struct mapping {
	char name[VI_CORRUPT_MAPPING_MAX];
	unsigned major, minor;            /* the mapping's own device */
	unsigned data_major, data_minor;  /* its data device */
	uint32_t block_size;
	uint64_t blocks;
};

/* The verity mapping NAME's geometry and device number. */
static int mapping_info(const char *name, struct mapping *m, struct vi_error *err)
{
	char type[32], params[2048];
	uint64_t sectors;
	bool exists = false;
	dev_t devno = 0;
	int r;

	if (vi_strlcpy_exact(m->name, sizeof(m->name), name, strlen(name)) < 0)
		return vi_err(err, "mapping name too long");
	r = vi_dm_table(name, type, sizeof(type), params, sizeof(params), &sectors, err);
	if (r < 0)
		return r;
	if (strcmp(type, "verity"))
		return vi_errno(err, -EINVAL, "%s is a %s mapping, not verity", name, type);
	if (vi_verity_table_geometry(params, &m->data_major, &m->data_minor, &m->block_size,
				     &m->blocks) < 0)
		return vi_errno(err, -EINVAL, "%s: a verity table I cannot read", name);
	r = vi_dm_exists(name, &exists, &devno, err);
	if (r < 0 && r != -EBUSY)
		return r;
	m->major = major(devno);
	m->minor = minor(devno);
	return 0;
}

/* The names of the device-mapper devices (sysfs), each passed to fn until it returns > 0. */
static int each_dm(int (*fn)(const char *name, void *arg), void *arg)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	int r = 0;

	if (!d)
		return -errno;
	while (r <= 0 && (e = readdir(d))) {
		char path[300], name[VI_CORRUPT_MAPPING_MAX];

		if (strncmp(e->d_name, "dm-", 3))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%.200s/dm/name", e->d_name);
		if (vi_fileio_read_text_at(AT_FDCWD, path, name, sizeof(name)) < 0)
			continue;
		r = fn(name, arg);
	}
	closedir(d);
	return r;
}

struct find_arg {
	const struct vi_corrupt_report *ev;
	struct mapping *m;
};

static int match_event(const char *name, void *arg)
{
	struct find_arg *fa = arg;
	struct vi_error ignored;
	struct mapping m;

	if (mapping_info(name, &m, &ignored) < 0)
		return 0;
	/* the uevent names the mapping's device, the log line its data device */
	if ((m.major == fa->ev->major && m.minor == fa->ev->minor) ||
	    (m.data_major == fa->ev->major && m.data_minor == fa->ev->minor)) {
		*fa->m = m;
		return 1;
	}
	return 0;
}

/* --- block -> file ------------------------------------------------------------------------- */

/* One look-up over a mounted filesystem: the byte offsets wanted, the paths found. */
struct lookup {
	struct vi_corruption_record *want[VI_CORRUPTION_RECORDS_MAX];
	uint64_t offset[VI_CORRUPTION_RECORDS_MAX];
	unsigned n, left;
	dev_t dev;
	unsigned entries;
	int err;                 /* -EOPNOTSUPP: the filesystem has no FIEMAP */
	char path[4096];
	size_t mnt_len;          /* path[0..mnt_len) is the mount point ("" for /) */
};

static void check_extents(struct lookup *lk, int fd, size_t plen)
{
	union {
		struct fiemap fm;
		char bytes[sizeof(struct fiemap) + 32 * sizeof(struct fiemap_extent)];
	} u;
	uint64_t start = 0;

	for (;;) {
		unsigned last = 0;

		memset(u.bytes, 0, sizeof(u.bytes));
		u.fm.fm_start = start;
		u.fm.fm_length = FIEMAP_MAX_OFFSET - start;
		u.fm.fm_extent_count = 32;
		if (ioctl(fd, FS_IOC_FIEMAP, &u.fm) < 0) {
			if (errno == EOPNOTSUPP || errno == ENOTTY)
				lk->err = -EOPNOTSUPP;
			return;
		}
		if (!u.fm.fm_mapped_extents)
			return;
		for (unsigned i = 0; i < u.fm.fm_mapped_extents; i++) {
			const struct fiemap_extent *x = &u.fm.fm_extents[i];

			for (unsigned k = 0; k < lk->n; k++) {
				if (lk->want[k]->file[0] || lk->offset[k] < x->fe_physical ||
				    lk->offset[k] - x->fe_physical >= x->fe_length)
					continue;
				snprintf(lk->want[k]->file, sizeof(lk->want[k]->file), "%.*s",
					 (int)plen, lk->path);
				lk->left--;
			}
			last = x->fe_flags & FIEMAP_EXTENT_LAST;
			start = x->fe_logical + x->fe_length;
		}
		if (last || !lk->left)
			return;
	}
}

/* Walk directory dfd (its path in lk->path[0..plen)), staying on lk->dev. */
static void walk(struct lookup *lk, int dfd, size_t plen, unsigned depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;

	if (!d) {
		close(dfd);
		return;
	}
	while (lk->left && !lk->err && lk->entries < WALK_ENTRIES_MAX && (e = readdir(d))) {
		struct stat st;
		size_t n = strlen(e->d_name);
		int fd;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		lk->entries++;
		if (plen + 1 + n + 1 > sizeof(lk->path) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_dev != lk->dev)
			continue;
		lk->path[plen] = '/';
		memcpy(lk->path + plen + 1, e->d_name, n + 1);
		if (S_ISREG(st.st_mode)) {
			fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
							 O_NOCTTY);
			if (fd >= 0) {
				check_extents(lk, fd, plen + 1 + n);
				close(fd);
			}
		} else if (S_ISDIR(st.st_mode) && depth < WALK_DEPTH_MAX) {
			fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0)
				walk(lk, fd, plen + 1 + n, depth + 1);
		}
	}
	closedir(d);
}

/* Whether a mountinfo line's root (field 4) is the filesystem's own: "/", not a bind mount of
 * a directory in it (whose paths would be named from that directory). */
static bool whole_filesystem(const char *line)
{
	for (unsigned i = 0; i < 3; i++) {
		line = strchr(line, ' ');
		if (!line)
			return false;
		line++;
	}
	return !strncmp(line, "/ ", 2);
}

/* Where the mapping's filesystem is mounted whole (its first such mount), or -ENOENT. */
static int mount_point(const struct mapping *m, char *mnt, size_t size)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int r = -ENOENT;

	if (!f)
		return -errno;
	while (r < 0 && fgets(line, sizeof(line), f)) {
		unsigned maj, min;

		if (vi_mountinfo_parse(line, strcspn(line, "\n"), &maj, &min, mnt, size) == 0 &&
		    maj == m->major && min == m->minor && whole_filesystem(line))
			r = 0;
	}
	fclose(f);
	return r;
}

static const char *fs_name(long type)
{
	switch ((unsigned long)type) {
	case 0xEF53:
		return "ext4";
	case 0x73717368:
		return "squashfs";
	case 0xE0F5E1E2:
		return "erofs";
	default:
		return "this filesystem";
	}
}

/* Name the file of each data-block record of mapping m whose file is not known yet. */
static void find_files(const struct mapping *m, struct vi_corruption_record **recs, unsigned n)
{
	struct lookup *lk = calloc(1, sizeof(*lk));
	char mnt[2048];
	struct statfs sfs;
	struct stat st;
	const char *why = NULL;
	char whybuf[96];
	int fd;

	if (!lk)
		return;
	for (unsigned i = 0; i < n; i++) {
		lk->want[lk->n] = recs[i];
		lk->offset[lk->n++] = recs[i]->block * m->block_size;
	}
	lk->left = lk->n;
	if (mount_point(m, mnt, sizeof(mnt)) < 0) {
		why = "(not mounted here: no file to name)";
		goto out;
	}
	fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || fstatfs(fd, &sfs) < 0) {
		if (fd >= 0)
			close(fd);
		why = "(its mount point cannot be read)";
		goto out;
	}
	if (major(st.st_dev) != m->major || minor(st.st_dev) != m->minor) {
		close(fd);
		why = "(another filesystem is mounted over it: no file to name)";
		goto out;
	}
	lk->dev = st.st_dev;
	lk->mnt_len = strcmp(mnt, "/") ? strlen(mnt) : 0;
	memcpy(lk->path, mnt, lk->mnt_len);
	walk(lk, fd, lk->mnt_len, 0);
	if (lk->err == -EOPNOTSUPP) {
		snprintf(whybuf, sizeof(whybuf), "(%s maps no block to a file: no FIEMAP)",
			 fs_name((long)sfs.f_type));
		why = whybuf;
	} else if (lk->entries >= WALK_ENTRIES_MAX) {
		why = "(not found in the first 1000000 files)";
	} else {
		why = "(in no file: filesystem metadata or unused space)";
	}
out:
	for (unsigned i = 0; i < lk->n; i++)
		if (!lk->want[i]->file[0])
			snprintf(lk->want[i]->file, sizeof(lk->want[i]->file), "%s", why);
	free(lk);
}

/* --- the monitor ----------------------------------------------------------------------------- */

struct monitor {
	const char *dir;
	struct records rs;
	bool dirty;
	struct vi_corruption_record *fresh[VI_CORRUPTION_RECORDS_MAX];   /* new this round */
	unsigned nfresh;
};

/* One line on stdout, the journal's under systemd: the whole message in its line form, so the
 * names in it (files, mappings) are passed as they are and none can end the line, start a record
 * of its own or reach a terminal raw. The message's own words, printable ASCII without a
 * backslash, are their own line form. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char msg[VI_CORRUPT_FILE_MAX + 512], line[VI_ESCAPED_SIZE(sizeof(msg))];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	vi_escape(msg, strlen(msg), line, sizeof(line));
	puts(line);
	fflush(stdout);
}

/* Record one report; a block already recorded counts once more. */
static void note(struct monitor *mon, const struct mapping *m, enum vi_report_type type,
		 uint64_t block, const char *source)
{
	struct vi_corruption_record *r;

	for (unsigned i = 0; i < mon->rs.n; i++) {
		r = &mon->rs.r[i];
		if (!strcmp(r->mapping, m->name) && r->type == type &&
		    (type == VI_REPORT_UNKNOWN || r->block == block)) {
			r->count++;
			mon->dirty = true;
			return;
		}
	}
	if (mon->rs.n == VI_CORRUPTION_RECORDS_MAX) {
		/* the file keeps the first blocks; a later one is still told */
		say("corruption: mapping %s: %s block %llu is corrupted (seen by %s; not recorded: "
		    "%u blocks are)", m->name, vi_corrupt_type_name(type), (unsigned long long)block,
		    source, VI_CORRUPTION_RECORDS_MAX);
		return;
	}
	r = &mon->rs.r[mon->rs.n++];
	memset(r, 0, sizeof(*r));
	r->time = (uint64_t)time(NULL);
	memcpy(r->mapping, m->name, sizeof(r->mapping));
	r->type = type;
	r->block = block;
	r->count = 1;
	snprintf(r->source, sizeof(r->source), "%s", source);
	if (type != VI_REPORT_DATA)
		snprintf(r->file, sizeof(r->file), "%s",
			 type == VI_REPORT_METADATA ? "(a block of the hash tree, not of a file)"
						     : "(blocks not known: reported before the "
						       "monitor ran)");
	if (mon->nfresh < VI_CORRUPTION_RECORDS_MAX)
		mon->fresh[mon->nfresh++] = r;
	mon->dirty = true;
}

static void on_event(struct monitor *mon, const struct vi_corrupt_report *ev, const char *source)
{
	struct mapping m;
	struct find_arg fa = { ev, &m };

	if (each_dm(match_event, &fa) <= 0) {
		say("corruption: device %u:%u (no verity mapping of it now): %s block %llu",
		    ev->major, ev->minor, vi_corrupt_type_name(ev->type),
		    (unsigned long long)ev->block);
		return;
	}
	if (ev->limit) {
		say("corruption: mapping %s: the kernel reports no further corrupted blocks of it "
		    "(its limit); its status stays C", m.name);
		return;
	}
	note(mon, &m, ev->type, ev->block, source);
}

/* After a round of reports: name the files, print each new record once, save. */
static void settle(struct monitor *mon)
{
	struct vi_error err = { "" };

	for (unsigned i = 0; i < mon->nfresh; i++) {
		struct vi_corruption_record *r = mon->fresh[i], *same[VI_CORRUPTION_RECORDS_MAX];
		struct mapping m;
		unsigned n = 0;

		if (r->file[0] || mapping_info(r->mapping, &m, &err) < 0)
			continue;
		/* one walk for every new data block of this mapping */
		for (unsigned k = i; k < mon->nfresh; k++)
			if (!mon->fresh[k]->file[0] && !strcmp(mon->fresh[k]->mapping, r->mapping))
				same[n++] = mon->fresh[k];
		find_files(&m, same, n);
	}
	for (unsigned i = 0; i < mon->nfresh; i++) {
		const struct vi_corruption_record *r = mon->fresh[i];

		if (r->type == VI_REPORT_UNKNOWN)
			say("corruption: mapping %s: status C: corrupted blocks were found before the "
			    "monitor ran, and the kernel log no longer names them", r->mapping);
		else
			say("corruption: mapping %s: %s block %llu is corrupted: %s%s (seen by %s)",
			    r->mapping, vi_corrupt_type_name(r->type), (unsigned long long)r->block,
			    r->file[0] == '(' ? "" : "file ", r->file, r->source);
	}
	mon->nfresh = 0;
	if (mon->dirty && records_write(mon->dir, &mon->rs, &err) < 0)
		say("monitor: %s", err.msg);
	mon->dirty = false;
}

static void drain_uevents(struct monitor *mon, int fd)
{
	char buf[8192];

	for (;;) {
		struct sockaddr_nl sa;
		socklen_t salen = sizeof(sa);
		struct vi_corrupt_report ev;
		ssize_t n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&sa, &salen);

		if (n < 0) {
			if (errno == ENOBUFS)
				continue;   /* some were lost; the kernel log has them too */
			return;
		}
		/* only the kernel (port 0) sends on this group */
		if (salen != sizeof(sa) || sa.nl_pid != 0)
			continue;
		if (vi_corruption_uevent(buf, (size_t)n, &ev) == 1)
			on_event(mon, &ev, "uevent");
	}
}

static void drain_kmsg(struct monitor *mon, int fd)
{
	char buf[8192];

	for (;;) {
		struct vi_corrupt_report ev;
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EPIPE)
			continue;   /* records were overwritten before we read them */
		if (n <= 0)
			return;
		if (vi_corruption_kmsg(buf, (size_t)n, &ev, NULL) == 1)
			on_event(mon, &ev, "kmsg");
	}
}

/* A mapping whose status is already C with nothing recorded: corrupted before anyone listened
 * (or past the kernel log's memory). */
static int check_status(const char *name, void *arg)
{
	struct monitor *mon = arg;
	struct vi_error ignored;
	struct mapping m;
	char status[128];
	bool corrupted;
	uint64_t fec;

	if (mapping_info(name, &m, &ignored) < 0 ||
	    vi_dm_status(name, status, sizeof(status), &ignored) < 0 ||
	    vi_corruption_status(status, strlen(status), &corrupted, &fec) < 0 || !corrupted)
		return 0;
	for (unsigned i = 0; i < mon->rs.n; i++)
		if (!strcmp(mon->rs.r[i].mapping, m.name))
			return 0;
	note(mon, &m, VI_REPORT_UNKNOWN, 0, "status");
	return 0;
}

static int count_verity(const char *name, void *arg)
{
	struct vi_error ignored;
	struct mapping m;

	if (mapping_info(name, &m, &ignored) == 0)
		++*(unsigned *)arg;
	return 0;
}

int vi_monitor_main(int argc, char **argv)
{
	static struct monitor mon;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	struct pollfd pfd[2];
	int size = 1 << 20;
	unsigned count = 0;

	mon.dir = VI_STATUS_DIR;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--state-dir") && i + 1 < argc) {
			mon.dir = argv[++i];
		} else {
			fputs("Usage: verity-init monitor [--state-dir DIR]\n", stderr);
			return 2;
		}
	}
	vi_dm_init(VI_DM_NODES_SELF);
	/* the socket first: nothing reported from here on is missed */
	pfd[0].fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			   NETLINK_KOBJECT_UEVENT);
	if (pfd[0].fd < 0 || bind(pfd[0].fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "verity-init: monitor: cannot listen to the kernel's uevents: %s\n",
			strerror(errno));
		return 1;
	}
	if (setsockopt(pfd[0].fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		(void)setsockopt(pfd[0].fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	/* the kernel log from its start: what was reported before we ran */
	pfd[1].fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	pfd[0].events = pfd[1].events = POLLIN;
	if (records_read(mon.dir, &mon.rs) < 0)
		mon.rs.n = 0;
	if (pfd[1].fd >= 0)
		drain_kmsg(&mon, pfd[1].fd);
	each_dm(check_status, &mon);
	each_dm(count_verity, &count);
	say("monitor: watching %u verity mapping%s; %u corrupted block%s recorded in %s/%s", count,
	    count == 1 ? "" : "s", mon.rs.n, mon.rs.n == 1 ? "" : "s", mon.dir, VI_CORRUPTION_FILE);
	settle(&mon);
	for (;;) {
		if (poll(pfd, pfd[1].fd >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "verity-init: monitor: poll: %s\n", strerror(errno));
			return 1;
		}
		if (pfd[0].revents)
			drain_uevents(&mon, pfd[0].fd);
		if (pfd[1].fd >= 0 && pfd[1].revents)
			drain_kmsg(&mon, pfd[1].fd);
		settle(&mon);
	}
}

/* --- scrub ----------------------------------------------------------------------------------- */

/* Idle I/O class: the full read gets the disk only when nothing else wants it. */
static void io_idle(void)
{
	const int who_process = 1, class_idle = 3, class_shift = 13;

	(void)syscall(SYS_ioprio_set, who_process, 0, class_idle << class_shift);
}

static void progress(const char *name, const struct vi_scrub_result *res, bool tty,
		     unsigned *shown)
{
	unsigned pct = res->size ? (unsigned)(res->bytes * 100 / res->size) : 100;

	if (tty && pct != *shown)
		fprintf(stderr, "\rscrub %s: %3u%% (%llu of %llu MiB)", name, pct,
			(unsigned long long)(res->bytes >> 20), (unsigned long long)(res->size >> 20));
	else if (!tty && pct / 10 != *shown / 10)
		fprintf(stderr, "scrub %s: %u%% (%llu of %llu MiB)\n", name, pct / 10 * 10,
			(unsigned long long)(res->bytes >> 20), (unsigned long long)(res->size >> 20));
	*shown = pct;
}

/* A chunk whose read failed: read it block by block to name the blocks. */
static bool narrow(int fd, uint64_t off, size_t len, char *buf, bool first_only,
		   struct vi_scrub_result *res)
{
	for (size_t o = 0; o < len; o += res->block_size) {
		if (pread(fd, buf, res->block_size, (off_t)(off + o)) == (ssize_t)res->block_size)
			continue;
		if (res->nbad < VI_SCRUB_BAD_MAX)
			res->bad[res->nbad++] = (off + o) / res->block_size;
		else
			res->more_bad = true;
		if (first_only)
			return true;
	}
	return false;
}

/* The blocks FEC corrected on mapping name so far (the status line's second field, 7.x),
 * UINT64_MAX when the kernel gives no count. */
static uint64_t fec_count(const char *name)
{
	struct vi_error ignored;
	char status[128];
	uint64_t fec = UINT64_MAX;
	bool corrupted;

	if (vi_dm_status(name, status, sizeof(status), &ignored) < 0 ||
	    vi_corruption_status(status, strlen(status), &corrupted, &fec) < 0)
		return UINT64_MAX;
	return fec;
}

int vi_scrub(const char *name, bool first_only, bool quiet, struct vi_scrub_result *res,
	     struct vi_error *err)
{
	char path[300];
	struct mapping m;
	struct stat st;
	char *buf = NULL;
	bool tty = isatty(2) == 1, stop = false;
	unsigned shown = 0;
	uint64_t t0 = vi_now_us();
	int fd, r;

	memset(res, 0, sizeof(*res));
	vi_dm_init(VI_DM_NODES_SELF);
	r = mapping_info(name, &m, err);
	if (r < 0)
		return r;
	res->block_size = m.block_size;
	res->size = m.blocks * m.block_size;
	snprintf(path, sizeof(path), "/dev/mapper/%.200s", name);
	/* past the page cache: a block read before is read from the disk and checked again */
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return vi_errno(err, -errno, "cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || major(st.st_rdev) != m.major ||
	    minor(st.st_rdev) != m.minor) {
		close(fd);
		return vi_errno(err, -ENODEV, "%s is not the device of mapping %s", path, name);
	}
	if (posix_memalign((void **)&buf, 4096, SCRUB_CHUNK)) {
		close(fd);
		return vi_errno(err, -ENOMEM, "no memory");
	}
	io_idle();
	res->fec_corrected = fec_count(name);
	while (!stop && res->bytes < res->size) {
		size_t len = res->size - res->bytes < SCRUB_CHUNK ? (size_t)(res->size - res->bytes)
								  : SCRUB_CHUNK;
		ssize_t n = pread(fd, buf, len, (off_t)res->bytes);

		if (n != (ssize_t)len) {
			if (n < 0 && errno != EIO && errno != EILSEQ) {
				r = vi_errno(err, -errno, "%s: read at %llu: %s", path,
					     (unsigned long long)res->bytes, strerror(errno));
				goto out;
			}
			stop = narrow(fd, res->bytes, len, buf, first_only, res);
			if (stop)
				res->more_bad = true;
		}
		res->bytes += len;
		if (!quiet)
			progress(name, res, tty, &shown);
	}
	if (!quiet && tty)
		fputc('\n', stderr);
	if (res->fec_corrected != UINT64_MAX) {
		uint64_t after = fec_count(name);

		res->fec_corrected = after != UINT64_MAX && after >= res->fec_corrected ?
				     after - res->fec_corrected : UINT64_MAX;
	}
	r = 0;
out:
	res->usec = vi_now_us() - t0;
	free(buf);
	close(fd);
	return r;
}

int vi_scrub_main(int argc, char **argv)
{
	struct vi_error err = { "" };
	struct vi_scrub_result res;
	const char *name = "root";
	bool quiet = false;
	int n = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quiet")) {
			quiet = true;
		} else if (argv[i][0] != '-' && !n++) {
			name = argv[i];
		} else {
			fputs("Usage: verity-init scrub [--quiet] [NAME]\n", stderr);
			return 2;
		}
	}
	if (vi_scrub(name, false, quiet, &res, &err) < 0) {
		fprintf(stderr, "verity-init: scrub: %s\n", err.msg);
		return 1;
	}
	for (unsigned i = 0; i < res.nbad; i++)
		printf("scrub %s: data block %llu is corrupted (or cannot be read)\n", name,
		       (unsigned long long)res.bad[i]);
	if (res.more_bad)
		printf("scrub %s: more than %u blocks failed\n", name, VI_SCRUB_BAD_MAX);
	if (res.fec_corrected != UINT64_MAX && res.fec_corrected)
		printf("scrub %s: %llu blocks read only through FEC's correction (the device is "
		       "wearing)\n", name, (unsigned long long)res.fec_corrected);
	printf("scrub %s: %llu MiB read in %.2f s (%.1f MiB/s): %s\n", name,
	       (unsigned long long)(res.bytes >> 20), (double)res.usec / 1e6,
	       res.usec ? (double)res.bytes / (double)res.usec * 1e6 / 1048576.0 : 0.0,
	       res.nbad ? "corrupted blocks found" : "every block verified");
	return res.nbad ? 1 : 0;
}
