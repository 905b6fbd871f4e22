// SPDX-License-Identifier: LGPL-2.1-or-later
/* The measurement of the booted target into a PCR and systemd's userspace measurement log
 * (include/measure.h). */
#include "measure.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "devspec.h"
#include "fileio.h"
#include "hex.h"
#include "tpm.h"
#include "usrcfg.h"

int vi_measure_signer(const struct vi_target *t, bool root, const struct vi_trust_result *tr,
		      char *buf, size_t size, struct vi_error *err)
{
	int n;

	if (root && tr && tr->manifest)
		n = snprintf(buf, size, "minisign:%s", tr->key_id);
	else if (t->sig_key_desc[0])
		n = snprintf(buf, size, "pkcs7:%s", t->sig_key_desc);
	else
		n = snprintf(buf, size, "none");
	if (n < 0 || (size_t)n >= size)
		return vi_errno(err, -ENOBUFS, "%s: signer too long for the measurement", t->name);
	return 0;
}

/* Printable ASCII without the characters JSON would need to escape. */
static bool plain(const char *s, bool colon_ok)
{
	for (; *s; s++)
		if (*s < 0x21 || *s > 0x7e || *s == '"' || *s == '\\' || (*s == ':' && !colon_ok))
			return false;
	return true;
}

/* The layout field of the events of the /usr layouts (include/measure.h): the layout's name and,
 * for a root nobody verified, that it is not. Spelled here rather than taken from
 * vi_layout_name: these strings are what a sealed secret is bound to, a display name may change.
 * Every one has a '+', which no mapping name has. NULL for the root alone (no field) and for a
 * layout the grammar does not know. */
static const char *layout_field(enum vi_layout l, enum vi_measure_role role)
{
	switch (l) {
	case VI_LAYOUT_ROOT_USR:
		return role == VI_MEASURE_ROLE_ROOT || role == VI_MEASURE_ROLE_USR ? "root+usr" :
			NULL;
	case VI_LAYOUT_TMPFS_USR:
		return role == VI_MEASURE_ROLE_USR ? "tmpfs+usr" : NULL;
	case VI_LAYOUT_WRITABLE_USR:
		return role == VI_MEASURE_ROLE_USR ? "writable+usr,unverified-root" : NULL;
	case VI_LAYOUT_ROOT:
		break;
	}
	return NULL;
}

/* The grammar is include/measure.h's and docs/signing.md's ("The events"):
 *   dm-verity:NAME:ROOTHASH:SIGNER                     the root alone (a recovery root, a slot)
 *   dm-verity:LAYOUT:ROLE:NAME:ROOTHASH:SIGNER          a target of a /usr layout
 * NAME follows the mapping name grammar (vi_name_check: no ':', '+' or ','), ROOTHASH is lower
 * case hex, SIGNER printable without a quote or backslash (it may have ':', it comes last). */
int vi_measure_event(const struct vi_target *t, enum vi_layout layout, enum vi_measure_role role,
		     const char *signer, char *buf, size_t size, struct vi_error *err)
{
	char hex[2 * VERITY_MAX_DIGEST + 1];
	struct vi_error why;
	const char *field = NULL;
	int n;

	if (layout != VI_LAYOUT_ROOT || role != VI_MEASURE_ROLE_ROOT) {
		field = layout_field(layout, role);
		if (!field)
			return vi_err(err, "%.64s: no place %d in layout %d to measure", t->name,
				      (int)role, (int)layout);
	}
	if (!t->root_hash_len ||
	    vi_hex_encode(t->root_hash, t->root_hash_len, hex, sizeof(hex)) < 0)
		return vi_err(err, "%.64s: no root hash to measure", t->name);
	if (vi_name_check(t->name, strnlen(t->name, sizeof(t->name)), &why) < 0 || !signer[0] ||
	    !plain(signer, true))
		return vi_err(err, "%.64s: name or signer not printable for the measurement",
			      t->name);
	if (field)
		n = snprintf(buf, size, "dm-verity:%s:%s:%s:%s:%s", field,
			     role == VI_MEASURE_ROLE_USR ? "usr" : "root", t->name, hex, signer);
	else
		n = snprintf(buf, size, "dm-verity:%s:%s:%s", t->name, hex, signer);
	if (n < 0 || (size_t)n >= size)
		return vi_errno(err, -ENOBUFS, "%.64s: measurement event too long", t->name);
	return 0;
}

struct out {
	char *p;
	size_t left;
	bool full;
};

__attribute__((format(printf, 2, 3)))
static void emit(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->p, o->left, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->left) {
		o->full = true;
		return;
	}
	o->p += n;
	o->left -= (size_t)n;
}

int vi_measure_record(unsigned pcr, const struct vi_tpm_digest *d, size_t n, const char *event,
		      const char *boot_id, uint64_t timestamp_us, char *buf, size_t size,
		      struct vi_error *err)
{
	struct out o = { buf, size, false };

	if (!plain(event, true) || !plain(boot_id, false) || strlen(boot_id) != 32)
		return vi_err(err, "measurement record: event or boot id not printable");
	emit(&o, "\x1e{\"pcr\":%u,\"digests\":[", pcr);
	for (size_t i = 0; i < n; i++) {
		char hex[2 * VI_TPM_MAX_DIGEST + 1];
		const char *name = vi_tpm_alg_name(d[i].alg);

		if (!name || vi_hex_encode(d[i].value, vi_tpm_alg_size(d[i].alg), hex,
					   sizeof(hex)) < 0)
			return vi_err(err, "measurement record: unknown algorithm 0x%04x", d[i].alg);
		emit(&o, "%s{\"hashAlg\":\"%s\",\"digest\":\"%s\"}", i ? "," : "", name, hex);
	}
	emit(&o, "],\"content_type\":\"systemd\",\"content\":{\"string\":\"%s\",\"bootId\":\"%s\","
		 "\"timestamp\":%llu,\"eventType\":\"dm-verity\"}}\n", event, boot_id,
	     (unsigned long long)timestamp_us);
	if (o.full)
		return vi_errno(err, -ENOBUFS, "measurement record longer than %zu bytes", size);
	return (int)(size - o.left);
}

/* The boot id as systemd writes it in its records: 32 lower-case hex digits, no dashes. */
static int read_boot_id(const char *path, char out[33], struct vi_error *err)
{
	char raw[64];
	size_t n = 0;
	int r;

	r = vi_fileio_read_text_at(AT_FDCWD, path, raw, sizeof(raw));
	if (r < 0)
		return vi_errno(err, r, "%.100s: %s", path, strerror(-r));
	for (const char *p = raw; *p && n < 32; p++) {
		if ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))
			out[n++] = *p;
		else if (*p != '-' && *p != '\n')
			break;
	}
	out[n] = '\0';
	if (n != 32)
		return vi_err(err, "%.100s: not a boot id", path);
	return 0;
}

static int mkdir_parents(const char *path)
{
	char dir[VI_MAX_PATH];

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	for (char *p = dir + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

/* Append one record under an exclusive lock, as systemd's writers do. */
static int log_append(const char *path, const char *rec, size_t len, struct vi_error *err)
{
	ssize_t n;
	int fd, r;

	r = mkdir_parents(path);
	if (r < 0)
		return vi_errno(err, r, "cannot create the directory of %.100s: %s", path, strerror(-r));
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
	if (fd < 0) {
		r = -errno;
		return vi_errno(err, r, "%.100s: %s", path, strerror(-r));
	}
	if (flock(fd, LOCK_EX) < 0) {
		r = -errno;
		vi_errno(err, r, "locking %.100s: %s", path, strerror(-r));
		goto out;
	}
	n = write(fd, rec, len);
	r = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	if (r < 0)
		vi_errno(err, r, "writing %.100s: %s", path, strerror(-r));
out:
	close(fd);
	return r;
}

int vi_measure(const struct vi_measure_opts *o, const char *event, struct vi_measure_result *res,
	       struct vi_error *err)
{
	uint8_t cmd[VI_TPM_CMD_MAX], rsp[VI_TPM_RSP_MAX];
	char rec[VI_MEASURE_RECORD_MAX], boot_id[33];
	struct timespec ts;
	size_t rsp_len = 0;
	uint64_t t0;
	int r, len;

	memset(res, 0, sizeof(*res));
	len = vi_tpm_event_command(o->pcr, event, strlen(event), cmd, sizeof(cmd), err);
	if (len < 0)
		return len;
	t0 = vi_now_us();
	r = vi_tpm_transmit(o->dev, cmd, (size_t)len, rsp, sizeof(rsp), &rsp_len, err);
	res->tpm_us = vi_now_us() - t0;
	if (r < 0)
		return r;
	/* the PCR holds the measurement now: what follows can only cost the log its record */
	if (vi_tpm_event_digests(rsp, rsp_len, res->digests, &res->banks, &res->log_note) < 0 ||
	    !o->log_path)
		return 0;
	if (clock_gettime(CLOCK_BOOTTIME, &ts) < 0)
		ts.tv_sec = ts.tv_nsec = 0;
	if (read_boot_id(o->boot_id_path, boot_id, &res->log_note) < 0)
		return 0;
	len = vi_measure_record(o->pcr, res->digests, res->banks, event, boot_id,
				(uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u, rec,
				sizeof(rec), &res->log_note);
	if (len < 0)
		return 0;
	res->logged = log_append(o->log_path, rec, (size_t)len, &res->log_note) == 0;
	return 0;
}
