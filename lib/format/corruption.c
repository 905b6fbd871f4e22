// SPDX-License-Identifier: LGPL-2.1-or-later
/* Corruption reports: the kernel's uevent, log line and status of a dm-verity mapping, and the
 * monitor's record of them (include/corruption.h). Pure. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "corruption.h"
#include "strutil.h"

/* "MAJ:MIN" over exactly len bytes. */
static int parse_devnum(const char *s, size_t len, unsigned *maj, unsigned *min)
{
	const char *colon = memchr(s, ':', len);
	uint32_t a, b;

	if (!colon || vi_parse_u32(s, (size_t)(colon - s), &a) < 0 ||
	    vi_parse_u32(colon + 1, len - (size_t)(colon - s) - 1, &b) < 0)
		return -EINVAL;
	*maj = a;
	*min = b;
	return 0;
}

/* "TYPE,BLOCK" of the uevent: TYPE 0 or 1. */
static int parse_type_block(const char *s, size_t len, struct vi_corrupt_report *ret)
{
	const char *comma = memchr(s, ',', len);
	uint32_t type;

	if (!comma || vi_parse_u32(s, (size_t)(comma - s), &type) < 0 || type > 1 ||
	    vi_parse_u64(comma + 1, len - (size_t)(comma - s) - 1, &ret->block) < 0)
		return -EINVAL;
	ret->type = type == 0 ? VI_REPORT_DATA : VI_REPORT_METADATA;
	return 0;
}

int vi_corruption_uevent(const char *buf, size_t len, struct vi_corrupt_report *ret)
{
	enum { ACTION, SUBSYSTEM, MAJOR, MINOR, BLOCK, NKEYS };
	static const char *const keys[NKEYS] = { "ACTION=", "SUBSYSTEM=", "MAJOR=", "MINOR=",
						 "DM_VERITY_ERR_BLOCK_NR=" };
	const char *val[NKEYS] = { NULL };
	size_t vlen[NKEYS] = { 0 };
	struct vi_corrupt_report ev = { .type = VI_REPORT_DATA };
	const char *p = buf, *end = buf + len;
	uint32_t maj, min;
	bool header = true;

	if (len >= 7 && !memcmp(buf, "libudev", 7))
		return 0;   /* udev's own re-broadcast (group 2), never the kernel's */
	while (p < end) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));
		size_t n = nul ? (size_t)(nul - p) : (size_t)(end - p);

		if (header) {
			/* "ACTION@DEVPATH" */
			if (!memchr(p, '@', n))
				return 0;
			header = false;
		} else {
			for (unsigned k = 0; k < NKEYS; k++) {
				size_t kl = strlen(keys[k]);

				if (n < kl || memcmp(p, keys[k], kl))
					continue;
				if (val[k])
					return k == BLOCK ? -EINVAL : 0;
				val[k] = p + kl;
				vlen[k] = n - kl;
			}
		}
		p += n + 1;
	}
	if (header || !val[BLOCK])
		return 0;
	if (!val[ACTION] || !vi_str_eq(val[ACTION], vlen[ACTION], "change") || !val[SUBSYSTEM] ||
	    !vi_str_eq(val[SUBSYSTEM], vlen[SUBSYSTEM], "block") || !val[MAJOR] || !val[MINOR] ||
	    vi_parse_u32(val[MAJOR], vlen[MAJOR], &maj) < 0 ||
	    vi_parse_u32(val[MINOR], vlen[MINOR], &min) < 0 ||
	    parse_type_block(val[BLOCK], vlen[BLOCK], &ev) < 0)
		return -EINVAL;
	ev.major = maj;
	ev.minor = min;
	*ret = ev;
	return 1;
}

/* s[0..len) starts with p: advance past it. */
static bool eat(const char **s, size_t *len, const char *p)
{
	size_t n = strlen(p);

	if (*len < n || memcmp(*s, p, n))
		return false;
	*s += n;
	*len -= n;
	return true;
}

/* The text of a dm-verity corruption line after "device-mapper: verity: ". */
static int parse_verity_text(const char *t, size_t n, struct vi_corrupt_report *ev)
{
	const char *sp = memchr(t, ' ', n), *num;
	size_t dlen;

	/* "MAJ:MIN: " */
	if (!sp || sp == t || sp[-1] != ':')
		return 0;
	dlen = (size_t)(sp - t) - 1;
	if (parse_devnum(t, dlen, &ev->major, &ev->minor) < 0)
		return 0;
	n -= (size_t)(sp - t) + 1;
	t = sp + 1;
	if (vi_str_eq(t, n, "reached maximum errors")) {
		ev->limit = true;
		return 1;
	}
	if (eat(&t, &n, "data block "))
		ev->type = VI_REPORT_DATA;
	else if (eat(&t, &n, "metadata block "))
		ev->type = VI_REPORT_METADATA;
	else
		return 0;
	num = t;
	sp = memchr(t, ' ', n);
	if (!sp || !vi_str_eq(sp, n - (size_t)(sp - t), " is corrupted") ||
	    vi_parse_u64(num, (size_t)(sp - num), &ev->block) < 0)
		return 0;
	return 1;
}

int vi_corruption_kmsg(const char *rec, size_t len, struct vi_corrupt_report *ret, uint64_t *ret_usec)
{
	struct vi_corrupt_report ev = { .type = VI_REPORT_DATA };
	const char *nl = memchr(rec, '\n', len), *semi, *f[3];
	size_t line = nl ? (size_t)(nl - rec) : len, flen[3];
	uint32_t prio;
	uint64_t seq, usec;
	const char *t;
	size_t n;
	int r;

	semi = memchr(rec, ';', line);
	if (!semi)
		return -EINVAL;
	/* the header's first three fields: priority, sequence number, time */
	t = rec;
	n = (size_t)(semi - rec);
	for (unsigned i = 0; i < 3; i++) {
		const char *comma = memchr(t, ',', n);
		size_t k = comma ? (size_t)(comma - t) : n;

		if (!comma && i < 2)
			return -EINVAL;
		f[i] = t;
		flen[i] = k;
		t += k + (comma ? 1 : 0);
		n -= k + (comma ? 1 : 0);
	}
	if (vi_parse_u32(f[0], flen[0], &prio) < 0 || vi_parse_u64(f[1], flen[1], &seq) < 0 ||
	    vi_parse_u64(f[2], flen[2], &usec) < 0)
		return -EINVAL;
	if (ret_usec)
		*ret_usec = usec;
	/* the kernel's own records only: a write to /dev/kmsg never gets facility 0 */
	if (prio >= 8)
		return 0;
	t = semi + 1;
	n = line - (size_t)(t - rec);
	if (!eat(&t, &n, "device-mapper: verity: "))
		return 0;
	r = parse_verity_text(t, n, &ev);
	if (r == 1)
		*ret = ev;
	return r;
}

int vi_corruption_status(const char *s, size_t len, bool *corrupted, uint64_t *fec)
{
	uint64_t n = UINT64_MAX;

	if (len < 1 || (s[0] != 'V' && s[0] != 'C'))
		return -EINVAL;
	/* a second field on newer kernels (7.x): the blocks FEC corrected, "-" without FEC */
	if (len > 1 && (s[1] != ' ' || (!vi_str_eq(s + 2, len - 2, "-") &&
					vi_parse_u64(s + 2, len - 2, &n) < 0)))
		return -EINVAL;
	*corrupted = s[0] == 'C';
	*fec = n;
	return 0;
}

const char *vi_corrupt_type_name(enum vi_report_type t)
{
	switch (t) {
	case VI_REPORT_DATA:
		return "data";
	case VI_REPORT_METADATA:
		return "metadata";
	default:
		return "unknown";
	}
}

/* A mapping or source name: [A-Za-z0-9._+-], not empty. */
static bool name_ok(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '+' || c == '-'))
			return false;
	}
	return true;
}

int vi_corruption_record_format(char *out, size_t size, const struct vi_corruption_record *r)
{
	int n;
	size_t len;

	if (!name_ok(r->mapping, strnlen(r->mapping, sizeof(r->mapping))) ||
	    !name_ok(r->source, strnlen(r->source, sizeof(r->source))) ||
	    r->mapping[sizeof(r->mapping) - 1] || r->source[sizeof(r->source) - 1])
		return -EINVAL;
	n = snprintf(out, size, "time=%llu mapping=%s type=%s block=%llu count=%llu source=%s file=",
		     (unsigned long long)r->time, r->mapping, vi_corrupt_type_name(r->type),
		     (unsigned long long)r->block, (unsigned long long)r->count, r->source);
	if (n < 0 || (size_t)n >= size)
		return -ENOSPC;
	len = (size_t)n;
	n = vi_escape(r->file, strnlen(r->file, sizeof(r->file)), out + len, size - len);
	if (n < 0)
		return n;
	return (int)(len + (size_t)n);
}

/* A decimal number as the formatter writes it: no leading zero. */
static int parse_canonical(const char *s, size_t len, uint64_t *ret)
{
	if (len > 1 && s[0] == '0')
		return -EINVAL;
	return vi_parse_u64(s, len, ret);
}

/* "KEY=" then the value up to the next space (or the end when last): advance past it. */
static bool field(const char **s, size_t *len, const char *key, bool last, const char **val,
		  size_t *vlen)
{
	const char *sp;

	if (!eat(s, len, key))
		return false;
	sp = last ? NULL : memchr(*s, ' ', *len);
	if (!last && !sp)
		return false;
	*val = *s;
	*vlen = last ? *len : (size_t)(sp - *s);
	*s += *vlen + (last ? 0 : 1);
	*len -= *vlen + (last ? 0 : 1);
	return true;
}

int vi_corruption_record_parse(const char *line, size_t len, struct vi_corruption_record *ret)
{
	static const char *const keys[] = { "time=", "mapping=", "type=", "block=", "count=",
					    "source=", "file=" };
	const char *v[7];
	size_t vl[7];
	struct vi_corruption_record r;

	memset(&r, 0, sizeof(r));
	for (unsigned i = 0; i < 7; i++)
		if (!field(&line, &len, keys[i], i == 6, &v[i], &vl[i]))
			return -EINVAL;
	if (parse_canonical(v[0], vl[0], &r.time) < 0 || !name_ok(v[1], vl[1]) ||
	    vi_strlcpy_exact(r.mapping, sizeof(r.mapping), v[1], vl[1]) < 0 ||
	    parse_canonical(v[3], vl[3], &r.block) < 0 || parse_canonical(v[4], vl[4], &r.count) < 0 ||
	    !name_ok(v[5], vl[5]) || vi_strlcpy_exact(r.source, sizeof(r.source), v[5], vl[5]) < 0 ||
	    vi_unescape(v[6], vl[6], r.file, sizeof(r.file)) < 0)
		return -EINVAL;
	if (vi_str_eq(v[2], vl[2], "data"))
		r.type = VI_REPORT_DATA;
	else if (vi_str_eq(v[2], vl[2], "metadata"))
		r.type = VI_REPORT_METADATA;
	else if (vi_str_eq(v[2], vl[2], "unknown"))
		r.type = VI_REPORT_UNKNOWN;
	else
		return -EINVAL;
	*ret = r;
	return 0;
}

int vi_mountinfo_parse(const char *line, size_t len, unsigned *maj, unsigned *min, char *mnt,
		       size_t size)
{
	const char *f[5];
	size_t fl[5], o = 0;
	const char *p = line;
	size_t n = len;

	/* mount id, parent id, MAJ:MIN, root, mount point */
	for (unsigned i = 0; i < 5; i++) {
		const char *sp = memchr(p, ' ', n);

		if (!sp)
			return -EINVAL;
		f[i] = p;
		fl[i] = (size_t)(sp - p);
		n -= fl[i] + 1;
		p = sp + 1;
	}
	if (parse_devnum(f[2], fl[2], maj, min) < 0 || !fl[4] || f[4][0] != '/')
		return -EINVAL;
	for (size_t i = 0; i < fl[4]; i++) {
		char c = f[4][i];

		if (c == '\\') {
			unsigned v = 0;

			if (i + 3 >= fl[4])
				return -EINVAL;
			for (unsigned k = 1; k <= 3; k++) {
				char d = f[4][i + k];

				if (d < '0' || d > '7')
					return -EINVAL;
				v = v * 8 + (unsigned)(d - '0');
			}
			if (v == 0 || v > 0xff)
				return -EINVAL;
			c = (char)v;
			i += 3;
		}
		if (o + 1 >= size)
			return -ENAMETOOLONG;
		mnt[o++] = c;
	}
	mnt[o] = '\0';
	return 0;
}

int vi_verity_table_geometry(const char *params, unsigned *data_major, unsigned *data_minor,
			     uint32_t *data_block_size, uint64_t *data_blocks)
{
	const char *w[6];
	size_t wl[6];
	const char *p = params;
	uint32_t version;

	for (unsigned i = 0; i < 6; i++) {
		size_t n = strcspn(p, " ");

		if (!n)
			return -EINVAL;
		w[i] = p;
		wl[i] = n;
		p += n;
		if (*p != ' ')
			return -EINVAL;   /* more words follow: hash start, algorithm, ... */
		p++;
	}
	if (vi_parse_u32(w[0], wl[0], &version) < 0 || version > 1 ||
	    parse_devnum(w[1], wl[1], data_major, data_minor) < 0 ||
	    vi_parse_u32(w[3], wl[3], data_block_size) < 0 || *data_block_size < 512 ||
	    (*data_block_size & (*data_block_size - 1)) ||
	    vi_parse_u64(w[5], wl[5], data_blocks) < 0)
		return -EINVAL;
	return 0;
}
