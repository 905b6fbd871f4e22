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
#include "tpmnv.h"
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

int vi_measure_record_of(const struct vi_measure_rec *m, char *buf, size_t size,
			 struct vi_error *err)
{
	struct out o = { buf, size, false };

	if (!plain(m->event, true) || !plain(m->boot_id, false) || strlen(m->boot_id) != 32 ||
	    !plain(m->event_type, false) || (m->nv_name && !plain(m->nv_name, false)))
		return vi_err(err, "measurement record: event, type or boot id not printable");
	if (m->nv_name)
		emit(&o, "\x1e{\"nv_index\":%u,\"digests\":[", (unsigned)m->index);
	else
		emit(&o, "\x1e{\"pcr\":%u,\"digests\":[", (unsigned)m->index);
	for (size_t i = 0; i < m->n; i++) {
		char hex[2 * VI_TPM_MAX_DIGEST + 1];
		const char *name = vi_tpm_alg_name(m->d[i].alg);

		if (!name || vi_hex_encode(m->d[i].value, vi_tpm_alg_size(m->d[i].alg), hex,
					   sizeof(hex)) < 0)
			return vi_err(err, "measurement record: unknown algorithm 0x%04x",
				      m->d[i].alg);
		emit(&o, "%s{\"hashAlg\":\"%s\",\"digest\":\"%s\"}", i ? "," : "", name, hex);
	}
	emit(&o, "],\"content_type\":\"systemd\",\"content\":{");
	if (m->nv_name)
		emit(&o, "\"nvIndexName\":\"%s\",", m->nv_name);
	emit(&o, "\"string\":\"%s\",\"bootId\":\"%s\",\"timestamp\":%llu,\"eventType\":\"%s\"}}\n",
	     m->event, m->boot_id, (unsigned long long)m->timestamp_us, m->event_type);
	if (o.full)
		return vi_errno(err, -ENOBUFS, "measurement record longer than %zu bytes", size);
	return (int)(size - o.left);
}

int vi_measure_record(unsigned pcr, const struct vi_tpm_digest *d, size_t n, const char *event,
		      const char *boot_id, uint64_t timestamp_us, char *buf, size_t size,
		      struct vi_error *err)
{
	const struct vi_measure_rec m = {
		.index = pcr, .d = d, .n = n, .event = event, .event_type = "dm-verity",
		.boot_id = boot_id, .timestamp_us = timestamp_us,
	};

	return vi_measure_record_of(&m, buf, size, err);
}

int vi_measure_verity_word(const struct vi_target *t, const char *signers, char *buf,
			   size_t size, struct vi_error *err)
{
	char hex[2 * VERITY_MAX_DIGEST + 1];
	struct vi_error why;
	int n;

	if (!t->root_hash_len ||
	    vi_hex_encode(t->root_hash, t->root_hash_len, hex, sizeof(hex)) < 0)
		return vi_err(err, "%.64s: no root hash to measure", t->name);
	/* systemd escapes ':' and what is not printable in the name (xescape): a mapping name
	 * has none of them, so the name goes in as it is */
	if (vi_name_check(t->name, strnlen(t->name, sizeof(t->name)), &why) < 0 ||
	    (signers[0] && !plain(signers, false)))
		return vi_err(err, "%.64s: name or signers not printable for the measurement",
			      t->name);
	n = snprintf(buf, size, "verity:%s:%s:%s", t->name, hex, signers);
	if (n < 0 || (size_t)n >= size)
		return vi_errno(err, -ENOBUFS, "%.64s: NvPCR measurement too long", t->name);
	return 0;
}

int vi_measure_nvpcr_init_event(const char *nv_name, uint32_t index, const uint8_t *name,
				size_t name_size, char *buf, size_t size, struct vi_error *err)
{
	char hex[2 * (2 + VI_TPM_MAX_DIGEST) + 1];
	int n;

	if (!name_size || vi_hex_encode(name, name_size, hex, sizeof(hex)) < 0 ||
	    !plain(nv_name, false))
		return vi_err(err, "NvPCR anchor: no TPM name or name printable");
	n = snprintf(buf, size, "nvpcr-init:%s:0x%x:%s", nv_name, (unsigned)index, hex);
	if (n < 0 || (size_t)n >= size)
		return vi_errno(err, -ENOBUFS, "NvPCR anchor event too long");
	return 0;
}

/* CLOCK_BOOTTIME in µs, as systemd's records give the time. */
static uint64_t boottime_us(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_BOOTTIME, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
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
	if (read_boot_id(o->boot_id_path, boot_id, &res->log_note) < 0)
		return 0;
	len = vi_measure_record_of(&(const struct vi_measure_rec){
			.index = o->pcr, .d = res->digests, .n = res->banks, .event = event,
			.event_type = o->event_type ? o->event_type : "dm-verity", .boot_id = boot_id,
			.timestamp_us = boottime_us() }, rec, sizeof(rec), &res->log_note);
	if (len < 0)
		return 0;
	res->logged = log_append(o->log_path, rec, (size_t)len, &res->log_note) == 0;
	return 0;
}

/* systemd's marker that the NvPCR is initialized: the hex of its first policy branch and a
 * newline (what systemd-tpm2-setup writes there: its own first branch, which its tools only
 * use to recompute the index's policy with PolicyOR), left as it is when it exists. */
static int write_nvpcr_auth(const char *path, struct vi_error *err)
{
	char hex[2 * VI_TPM_POLICY_SIZE + 2];
	ssize_t n;
	int fd, r;

	r = mkdir_parents(path);
	if (r < 0)
		return vi_errno(err, r, "cannot create the directory of %.100s: %s", path,
				strerror(-r));
	if (vi_hex_encode(vi_tpm_nvpcr_policy()->first, VI_TPM_POLICY_SIZE, hex, sizeof(hex)) < 0)
		return vi_err(err, "%.100s: no room for the policy", path);
	hex[2 * VI_TPM_POLICY_SIZE] = '\n';
	hex[2 * VI_TPM_POLICY_SIZE + 1] = '\0';
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0644);
	if (fd < 0) {
		r = -errno;
		return r == -EEXIST ? 0 : vi_errno(err, r, "%.100s: %s", path, strerror(-r));
	}
	n = write(fd, hex, strlen(hex));
	r = n < 0 ? -errno : (size_t)n != strlen(hex) ? -EIO : 0;
	if (r < 0)
		vi_errno(err, r, "writing %.100s: %s", path, strerror(-r));
	close(fd);
	return r;
}

/* The first policy branch in systemd's auth file at path (64 hex digits and a newline), into
 * first; false when there is none or it is not that. */
static bool read_nvpcr_auth(const char *path, uint8_t first[VI_TPM_POLICY_SIZE])
{
	char hex[2 * VI_TPM_POLICY_SIZE + 8];

	if (!path || vi_fileio_read_text_at(AT_FDCWD, path, hex, sizeof(hex)) < 0)
		return false;
	return strlen(hex) == 2 * VI_TPM_POLICY_SIZE + 1 && hex[2 * VI_TPM_POLICY_SIZE] == '\n' &&
	       vi_hex_decode_exact(hex, first, VI_TPM_POLICY_SIZE) == 0;
}

int vi_measure_nvpcr(const struct vi_measure_opts *o, const char *word,
		     struct vi_measure_nvpcr_result *res, struct vi_error *err)
{
	uint8_t its_first[VI_TPM_POLICY_SIZE];
	bool have_first;
	char rec[VI_MEASURE_RECORD_MAX], boot_id[33], anchor[128];
	struct vi_tpm_digest d = { .alg = VI_TPM_ALG_SHA256 };
	struct vi_digest_ctx *c = NULL;
	uint64_t t0;
	int r, len;

	memset(res, 0, sizeof(*res));
	r = o->ops->new_ctx("sha256", &c);
	if (r == 0)
		r = o->ops->update(c, word, strlen(word));
	if (r == 0)
		r = o->ops->final(c, res->digest, sizeof(res->digest));
	if (c)
		o->ops->free(c);
	if (r < 0)
		return vi_errno(err, r, "SHA-256 of the NvPCR measurement: %s", strerror(-r));
	/* systemd's own initrd may have initialized the NvPCR already this boot */
	have_first = read_nvpcr_auth(o->nvpcr_auth_path, its_first);
	t0 = vi_now_us();
	r = vi_tpm_nvpcr_extend(o->dev, VI_TPM_NVPCR_VERITY, res->digest,
				have_first ? its_first : NULL, &res->nv, err);
	res->tpm_us = vi_now_us() - t0;
	if (r < 0)
		return r;
	if (res->nv.anchored) {
		const struct vi_measure_opts p = {
			.pcr = VI_MEASURE_NVPCR_PCR, .dev = o->dev, .log_path = o->log_path,
			.boot_id_path = o->boot_id_path, .event_type = "nvpcr-init",
		};

		r = vi_measure_nvpcr_init_event("verity", VI_TPM_NVPCR_VERITY, res->nv.name,
						res->nv.name_size, anchor, sizeof(anchor), err);
		if (r == 0)
			r = vi_measure(&p, anchor, &res->anchor, err);
		if (r < 0)
			return vi_err_wrap(err, r, "NvPCR anchor in PCR %u: ", VI_MEASURE_NVPCR_PCR);
	}
	if (o->nvpcr_auth_path && write_nvpcr_auth(o->nvpcr_auth_path, &res->log_note) < 0)
		return 0;
	if (!o->log_path || read_boot_id(o->boot_id_path, boot_id, &res->log_note) < 0)
		return 0;
	memcpy(d.value, res->digest, sizeof(res->digest));
	len = vi_measure_record_of(&(const struct vi_measure_rec){
			.nv_name = "verity", .index = VI_TPM_NVPCR_VERITY, .d = &d, .n = 1,
			.event = word, .event_type = "dm-verity", .boot_id = boot_id,
			.timestamp_us = boottime_us() }, rec, sizeof(rec), &res->log_note);
	if (len < 0)
		return 0;
	res->logged = log_append(o->log_path, rec, (size_t)len, &res->log_note) == 0;
	return 0;
}
