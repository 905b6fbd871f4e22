// SPDX-License-Identifier: LGPL-2.1-or-later
/* The signed verity manifest: grammar and keys in include/manifest.h. */
#include "manifest.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "fec.h"
#include "geometry.h"
#include "hex.h"
#include "strutil.h"


enum key {
	K_VERSION = 0,
	K_ROOT_HASH,
	K_HASH_ALG,
	K_FORMAT,
	K_DATA_BS,
	K_HASH_BS,
	K_DATA_BLOCKS,
	K_HASH_OFFSET,
	K_SALT,
	K_SUPERBLOCK,
	K_DATA_DEV,
	K_UUID,
	K_HASH_DEV,
	K_FEC_DEV,
	K_FEC_OFFSET,
	K_FEC_ROOTS,
	K_CORRUPTION,
	K_IOERROR,
	K_ZERO,
	K_ONCE,
	K_COUNT,
};

#define FIRST_OPTIONAL K_UUID

static const char *const key_names[K_COUNT] = {
	[K_VERSION] = "version",
	[K_ROOT_HASH] = "root-hash",
	[K_HASH_ALG] = "hash-algorithm",
	[K_FORMAT] = "format",
	[K_DATA_BS] = "data-block-size",
	[K_HASH_BS] = "hash-block-size",
	[K_DATA_BLOCKS] = "data-blocks",
	[K_HASH_OFFSET] = "hash-offset",
	[K_SALT] = "salt",
	[K_SUPERBLOCK] = "superblock",
	[K_DATA_DEV] = "data-device",
	[K_UUID] = "uuid",
	[K_HASH_DEV] = "hash-device",
	[K_FEC_DEV] = "fec-device",
	[K_FEC_OFFSET] = "fec-offset",
	[K_FEC_ROOTS] = "fec-roots",
	[K_CORRUPTION] = "on-corruption",
	[K_IOERROR] = "on-error",
	[K_ZERO] = "ignore-zero-blocks",
	[K_ONCE] = "check-at-most-once",
};

static const char *const corruption_names[] = {
	[VI_CORRUPT_EIO] = "eio",
	[VI_CORRUPT_IGNORE] = "ignore",
	[VI_CORRUPT_RESTART] = "restart",
	[VI_CORRUPT_PANIC] = "panic",
};

static const char *const ioerror_names[] = {
	[VI_IOERR_EIO] = "eio",
	[VI_IOERR_RESTART] = "restart",
	[VI_IOERR_PANIC] = "panic",
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Decimal without sign or leading zeros ("0" itself is fine). */
static int parse_num(const char *v, size_t n, uint64_t *ret)
{
	if (n > 1 && v[0] == '0')
		return -EINVAL;
	return vi_parse_u64(v, n, ret);
}

static int parse_yesno(const char *v, size_t n, bool *ret)
{
	if (n == 3 && memcmp(v, "yes", 3) == 0)
		*ret = true;
	else if (n == 2 && memcmp(v, "no", 2) == 0)
		*ret = false;
	else
		return -EINVAL;
	return 0;
}

static int parse_word(const char *v, size_t n, const char *const *names, size_t count,
		      unsigned *ret)
{
	for (size_t i = 0; i < count; i++) {
		if (vi_str_eq(v, n, names[i])) {
			*ret = (unsigned)i;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_devspec(const char *v, size_t n, struct vi_devspec *ret)
{
	/* MAJ:MIN only makes sense inside a running system: never in a manifest */
	if (vi_devspec_check(v, n, false, NULL) < 0)
		return -EINVAL;
	return vi_strlcpy_exact(ret->spec, sizeof(ret->spec), v, n) < 0 ? -EINVAL : 0;
}

static bool block_size_ok(uint64_t bs)
{
	return bs >= VERITY_MIN_BLOCK && bs <= VERITY_MAX_BLOCK && (bs & (bs - 1)) == 0;
}

/* One "key value" pair into m. -EINVAL: a bad value (the caller names the line). */
static int set_value(struct vi_manifest *m, enum key k, const char *v, size_t n,
		     const char **why)
{
	uint64_t u = 0;
	size_t got = 0;
	unsigned w = 0;

	*why = "invalid value";
	switch (k) {
	case K_VERSION:
		if (parse_num(v, n, &u) < 0 || u == 0)
			return -EINVAL;
		m->version = u;
		return 0;
	case K_ROOT_HASH:
		/* length checked against the algorithm once both are known */
		if (hex_decode(v, n, m->root_hash, sizeof(m->root_hash), &got) < 0 || got == 0)
			return -EINVAL;
		m->root_hash_len = (unsigned)got;
		return 0;
	case K_HASH_ALG:
		if (n >= sizeof(m->params.hash_name))
			return -EINVAL;
		memcpy(m->params.hash_name, v, n);
		m->params.hash_name[n] = '\0';
		if (verity_digest_size(m->params.hash_name) == 0) {
			*why = "unknown hash algorithm";
			return -EINVAL;
		}
		return 0;
	case K_FORMAT:
		if (parse_num(v, n, &u) < 0 || u > 1) {
			*why = "must be 0 or 1";
			return -EINVAL;
		}
		m->params.hash_type = (uint32_t)u;
		return 0;
	case K_DATA_BS:
	case K_HASH_BS:
		if (parse_num(v, n, &u) < 0 || !block_size_ok(u)) {
			*why = "not a power of two between 512 and 524288";
			return -EINVAL;
		}
		if (k == K_DATA_BS)
			m->params.data_block_size = (uint32_t)u;
		else
			m->params.hash_block_size = (uint32_t)u;
		return 0;
	case K_DATA_BLOCKS:
		if (parse_num(v, n, &u) < 0 || u == 0)
			return -EINVAL;
		m->params.data_blocks = u;
		return 0;
	case K_HASH_OFFSET:
	case K_FEC_OFFSET:
		if (parse_num(v, n, &u) < 0 || u % 512) {
			*why = "not a multiple of 512 bytes";
			return -EINVAL;
		}
		if (k == K_HASH_OFFSET)
			m->params.hash_offset = u;
		else
			m->fec_offset = u;
		return 0;
	case K_SALT:
		if (n == 1 && v[0] == '-') {
			m->params.salt_size = 0;
			return 0;
		}
		if (hex_decode(v, n, m->params.salt, sizeof(m->params.salt), &got) < 0 || got == 0)
			return -EINVAL;
		m->params.salt_size = (uint16_t)got;
		return 0;
	case K_SUPERBLOCK:
		if (parse_yesno(v, n, &m->params.no_superblock) < 0)
			return -EINVAL;
		m->params.no_superblock = !m->params.no_superblock;
		return 0;
	case K_UUID: {
		char s[VERITY_UUID_STR_LEN + 1];

		if (n != VERITY_UUID_STR_LEN)
			return -EINVAL;
		memcpy(s, v, n);
		s[n] = '\0';
		if (verity_uuid_parse(s, m->params.uuid) < 0)
			return -EINVAL;
		m->has_uuid = true;
		return 0;
	}
	case K_DATA_DEV:
		return parse_devspec(v, n, &m->data);
	case K_HASH_DEV:
		return parse_devspec(v, n, &m->hash);
	case K_FEC_DEV:
		return parse_devspec(v, n, &m->fec);
	case K_FEC_ROOTS:
		if (parse_num(v, n, &u) < 0 || u < VERITY_FEC_MIN_ROOTS || u > VERITY_FEC_MAX_ROOTS) {
			*why = "must be between 2 and 24";
			return -EINVAL;
		}
		m->fec_roots = (uint32_t)u;
		return 0;
	case K_CORRUPTION:
		if (parse_word(v, n, corruption_names, ARRAY_SIZE(corruption_names), &w) < 0)
			return -EINVAL;
		m->corruption = (enum vi_corruption)w;
		return 0;
	case K_IOERROR:
		if (parse_word(v, n, ioerror_names, ARRAY_SIZE(ioerror_names), &w) < 0)
			return -EINVAL;
		m->ioerror = (enum vi_ioerror)w;
		return 0;
	case K_ZERO:
		return parse_yesno(v, n, &m->ignore_zero_blocks);
	case K_ONCE:
		return parse_yesno(v, n, &m->check_at_most_once);
	case K_COUNT:
		break;
	}
	return -EINVAL;
}

/* Whole-manifest rules once every line is in. */
static int check_manifest(const struct vi_manifest *m, uint32_t seen, struct verity_err *err)
{
	unsigned dsize;
	int r;

	for (unsigned k = 0; k < FIRST_OPTIONAL; k++)
		if (!(seen & (1u << k)))
			return vi_err(err, "manifest: required key '%s' missing", key_names[k]);
	dsize = verity_digest_size(m->params.hash_name);
	if (m->root_hash_len != dsize)
		return vi_err(err, "manifest: root-hash has %u bytes, %s needs %u",
			      m->root_hash_len, m->params.hash_name, dsize);
	if (m->has_uuid && m->params.no_superblock)
		return vi_err(err, "manifest: uuid given with superblock no");
	if ((seen & ((1u << K_FEC_OFFSET) | (1u << K_FEC_ROOTS))) && !(seen & (1u << K_FEC_DEV)))
		return vi_err(err, "manifest: fec-offset/fec-roots without fec-device");
	if (m->hash.spec[0] == '\0' && m->params.hash_offset == 0)
		return vi_err(err, "manifest: hash area on the data device needs a hash-offset");
	r = verity_params_validate(&m->params, err);
	if (r < 0)
		return r;
	return 0;
}

int vi_manifest_parse(const char *buf, size_t len, struct vi_manifest *ret,
		      struct verity_err *err)
{
	static const char magic[] = VI_MANIFEST_MAGIC "\n";
	struct vi_manifest m;
	uint32_t seen = 0;
	size_t pos, lineno = 1;

	if (len > VI_MANIFEST_MAX) {
		vi_err(err, "manifest larger than %u bytes", VI_MANIFEST_MAX);
		return -E2BIG;
	}
	if (len < sizeof(magic) - 1 || memcmp(buf, magic, sizeof(magic) - 1) != 0)
		return vi_err(err, "manifest: first line is not \"%s\"", VI_MANIFEST_MAGIC);
	memset(&m, 0, sizeof(m));
	pos = sizeof(magic) - 1;
	while (pos < len) {
		const char *line = buf + pos, *nl, *sp, *why = NULL;
		size_t n, klen;
		unsigned k = 0;

		lineno++;
		nl = memchr(line, '\n', len - pos);
		if (!nl)
			return vi_err(err, "manifest line %zu: no newline at the end", lineno);
		n = (size_t)(nl - line);
		pos += n + 1;
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] > 0x7e)
				return vi_err(err, "manifest line %zu: byte 0x%02x not allowed",
					      lineno, (unsigned char)line[i]);
		sp = memchr(line, ' ', n);
		if (!sp || sp == line || sp == line + n - 1 || memchr(sp + 1, ' ', n - (size_t)(sp - line) - 1))
			return vi_err(err, "manifest line %zu: not \"key value\"", lineno);
		klen = (size_t)(sp - line);
		if (parse_word(line, klen, key_names, K_COUNT, &k) < 0) {
			char s[40];

			vi_sanitize(line, klen, s, sizeof(s));
			return vi_err(err, "manifest line %zu: unknown key '%s'", lineno, s);
		}
		if (seen & (1u << k))
			return vi_err(err, "manifest line %zu: '%s' given twice", lineno, key_names[k]);
		seen |= 1u << k;
		if (set_value(&m, (enum key)k, sp + 1, n - klen - 1, &why) < 0)
			return vi_err(err, "manifest line %zu: %s: %s", lineno,
				      k < K_COUNT ? key_names[k] : "?", why ? why : "invalid value");
	}
	if ((seen & (1u << K_FEC_DEV)) && !(seen & (1u << K_FEC_ROOTS)))
		m.fec_roots = VERITY_FEC_DEFAULT_ROOTS;
	if (check_manifest(&m, seen, err) < 0)
		return -EINVAL;
	*ret = m;
	return 0;
}

/* snprintf-append; -ENOBUFS once out is full. */
static int add(char *out, size_t out_size, size_t *pos, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int add(char *out, size_t out_size, size_t *pos, const char *key, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (key) {
		n = snprintf(out + *pos, out_size - *pos, "%s ", key);
		if (n < 0 || (size_t)n >= out_size - *pos)
			return -ENOBUFS;
		*pos += (size_t)n;
	}
	va_start(ap, fmt);
	n = vsnprintf(out + *pos, out_size - *pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= out_size - *pos)
		return -ENOBUFS;
	*pos += (size_t)n;
	return 0;
}

int vi_manifest_format(const struct vi_manifest *m, char *out, size_t out_size,
		       size_t *ret_len, struct verity_err *err)
{
	char hex[2 * VERITY_MAX_SALT + 1], uuid[VERITY_UUID_STR_LEN + 1];
	size_t pos = 0;
	int r;

	if (out_size == 0)
		return -ENOBUFS;
	out[0] = '\0';
	if (m->version == 0)
		return vi_err(err, "manifest version must be at least 1");
	if (m->root_hash_len == 0 || m->root_hash_len != verity_digest_size(m->params.hash_name))
		return vi_err(err, "root hash length does not match %s", m->params.hash_name);
	if (m->data.spec[0] == '\0')
		return vi_err(err, "manifest needs a data device");
	r = verity_params_validate(&m->params, err);
	if (r < 0)
		return r;
#define ADD(...) do { r = add(out, out_size, &pos, __VA_ARGS__); if (r < 0) goto nobufs; } while (0)
	ADD(NULL, "%s\n", VI_MANIFEST_MAGIC);
	ADD(key_names[K_VERSION], "%llu\n", (unsigned long long)m->version);
	hex_encode(m->root_hash, m->root_hash_len, hex, sizeof(hex));
	ADD(key_names[K_ROOT_HASH], "%s\n", hex);
	ADD(key_names[K_HASH_ALG], "%s\n", m->params.hash_name);
	ADD(key_names[K_FORMAT], "%u\n", (unsigned)m->params.hash_type);
	ADD(key_names[K_DATA_BS], "%u\n", (unsigned)m->params.data_block_size);
	ADD(key_names[K_HASH_BS], "%u\n", (unsigned)m->params.hash_block_size);
	ADD(key_names[K_DATA_BLOCKS], "%llu\n", (unsigned long long)m->params.data_blocks);
	ADD(key_names[K_HASH_OFFSET], "%llu\n", (unsigned long long)m->params.hash_offset);
	if (m->params.salt_size) {
		hex_encode(m->params.salt, m->params.salt_size, hex, sizeof(hex));
		ADD(key_names[K_SALT], "%s\n", hex);
	} else {
		ADD(key_names[K_SALT], "-\n");
	}
	ADD(key_names[K_SUPERBLOCK], "%s\n", m->params.no_superblock ? "no" : "yes");
	ADD(key_names[K_DATA_DEV], "%s\n", m->data.spec);
	if (m->has_uuid) {
		verity_uuid_format(m->params.uuid, uuid);
		ADD(key_names[K_UUID], "%s\n", uuid);
	}
	if (m->hash.spec[0])
		ADD(key_names[K_HASH_DEV], "%s\n", m->hash.spec);
	if (m->fec.spec[0]) {
		ADD(key_names[K_FEC_DEV], "%s\n", m->fec.spec);
		ADD(key_names[K_FEC_OFFSET], "%llu\n", (unsigned long long)m->fec_offset);
		ADD(key_names[K_FEC_ROOTS], "%u\n", m->fec_roots ? m->fec_roots : VERITY_FEC_DEFAULT_ROOTS);
	}
	if (m->corruption != VI_CORRUPT_EIO)
		ADD(key_names[K_CORRUPTION], "%s\n", corruption_names[m->corruption]);
	if (m->ioerror != VI_IOERR_EIO)
		ADD(key_names[K_IOERROR], "%s\n", ioerror_names[m->ioerror]);
	if (m->ignore_zero_blocks)
		ADD(key_names[K_ZERO], "yes\n");
	if (m->check_at_most_once)
		ADD(key_names[K_ONCE], "yes\n");
#undef ADD
	/* what we write must be what we accept */
	{
		struct vi_manifest back;

		r = vi_manifest_parse(out, pos, &back, err);
		if (r < 0)
			return r;
	}
	*ret_len = pos;
	return 0;
nobufs:
	vi_err(err, "manifest does not fit in %zu bytes", out_size);
	return -ENOBUFS;
}

static bool uuid_like(const char *spec, const char **value)
{
	static const char *const prefixes[] = { "UUID=", "PARTUUID=" };

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
		size_t n = strlen(prefixes[i]);

		if (strncmp(spec, prefixes[i], n) == 0) {
			*value = spec + n;
			return true;
		}
	}
	return false;
}

bool vi_manifest_devspec_eq(const char *a, const char *b)
{
	const char *va, *vb;

	if (uuid_like(a, &va) && uuid_like(b, &vb))
		return (va - a) == (vb - b) && strncmp(a, b, (size_t)(va - a)) == 0 &&
		       strcasecmp(va, vb) == 0;
	return strcmp(a, b) == 0;
}

static int contradicts(struct verity_err *err, const char *what)
{
	vi_err(err, "command line %s contradicts the signed manifest", what);
	return -EPERM;
}

int vi_manifest_apply(const struct vi_manifest *m, struct vi_target *t, struct verity_err *err)
{
	const struct verity_params *mp = &m->params, *tp = &t->params;
	struct vi_target n;

	if (t->from_dm_create)
		return contradicts(err, "dm-mod.create= table");
	if (t->root_hash_len &&
	    (t->root_hash_len != m->root_hash_len ||
	     memcmp(t->root_hash, m->root_hash, m->root_hash_len) != 0))
		return contradicts(err, "root hash");
	if (t->data.spec[0] && !vi_manifest_devspec_eq(t->data.spec, m->data.spec))
		return contradicts(err, "data device");
	/* An explicit hash device equal to the data device means the same as "none". */
	if (t->hash.spec[0] &&
	    !vi_manifest_devspec_eq(t->hash.spec, m->hash.spec[0] ? m->hash.spec : m->data.spec))
		return contradicts(err, "hash device");
	if (t->fec.spec[0] && !vi_manifest_devspec_eq(t->fec.spec, m->fec.spec))
		return contradicts(err, "fec-device=");
	if ((t->given & VI_GIVEN_HASH_NAME) && strcmp(tp->hash_name, mp->hash_name) != 0)
		return contradicts(err, "hash=");
	if ((t->given & VI_GIVEN_FORMAT) && tp->hash_type != mp->hash_type)
		return contradicts(err, "format=");
	if ((t->given & VI_GIVEN_DATA_BS) && tp->data_block_size != mp->data_block_size)
		return contradicts(err, "data-block-size=");
	if ((t->given & VI_GIVEN_HASH_BS) && tp->hash_block_size != mp->hash_block_size)
		return contradicts(err, "hash-block-size=");
	if ((t->given & VI_GIVEN_DATA_BLOCKS) && tp->data_blocks != mp->data_blocks)
		return contradicts(err, "data-blocks=");
	if ((t->given & VI_GIVEN_HASH_OFFSET) && tp->hash_offset != mp->hash_offset)
		return contradicts(err, "hash-offset=");
	if ((t->given & VI_GIVEN_SALT) &&
	    (tp->salt_size != mp->salt_size || memcmp(tp->salt, mp->salt, mp->salt_size) != 0))
		return contradicts(err, "salt=");
	if ((t->given & VI_GIVEN_UUID) &&
	    (!m->has_uuid || memcmp(tp->uuid, mp->uuid, sizeof(mp->uuid)) != 0))
		return contradicts(err, "uuid=");
	if (((t->given & VI_GIVEN_SUPERBLOCK) || !t->superblock) && t->superblock == mp->no_superblock)
		return contradicts(err, "superblock=");
	if ((t->given & VI_GIVEN_FEC_OFFSET) && t->fec_offset != m->fec_offset)
		return contradicts(err, "fec-offset=");
	if ((t->given & VI_GIVEN_FEC_ROOTS) && t->fec_roots != m->fec_roots)
		return contradicts(err, "fec-roots=");
	/* These have no "given" bit: anything but the default was written on the command line. */
	if (t->corruption != VI_CORRUPT_EIO && t->corruption != m->corruption)
		return contradicts(err, "corruption option");
	if (t->ioerror != VI_IOERR_EIO && t->ioerror != m->ioerror)
		return contradicts(err, "error option");
	if (t->ignore_zero_blocks && !m->ignore_zero_blocks)
		return contradicts(err, "ignore-zero-blocks");
	if (t->check_at_most_once && !m->check_at_most_once)
		return contradicts(err, "check-at-most-once");

	/* Everything that shapes the mapping now comes from the manifest alone. */
	n = *t;
	n.enabled = true;
	memcpy(n.root_hash, m->root_hash, m->root_hash_len);
	n.root_hash_len = m->root_hash_len;
	n.data = m->data;
	n.hash = m->hash;
	n.fec = m->fec;
	n.params = *mp;
	n.given = VI_GIVEN_HASH_NAME | VI_GIVEN_FORMAT | VI_GIVEN_DATA_BS | VI_GIVEN_HASH_BS |
		  VI_GIVEN_DATA_BLOCKS | VI_GIVEN_HASH_OFFSET | VI_GIVEN_SALT |
		  VI_GIVEN_SUPERBLOCK | (m->has_uuid ? VI_GIVEN_UUID : 0) |
		  (m->fec.spec[0] ? VI_GIVEN_FEC_OFFSET | VI_GIVEN_FEC_ROOTS : 0);
	n.fec_offset = m->fec_offset;
	n.fec_roots = m->fec_roots;
	n.corruption = m->corruption;
	n.ioerror = m->ioerror;
	n.ignore_zero_blocks = m->ignore_zero_blocks;
	n.check_at_most_once = m->check_at_most_once;
	n.superblock = !mp->no_superblock;
	n.discovered = false;
	*t = n;
	return 0;
}

int vi_bundle_split(const char *buf, size_t len, size_t *ret_manifest_len, size_t *ret_sig_off,
		    size_t *ret_sig_len, struct verity_err *err)
{
	static const char sep[] = "\nuntrusted comment: ";
	const char *nul, *s;
	size_t end = len;

	if (len > VI_BUNDLE_MAX)
		return vi_err(err, "bundle larger than %u bytes", VI_BUNDLE_MAX);
	if (len == 0 || buf[0] == '\0') {
		vi_err(err, "no manifest stored (region is empty)");
		return -ENODATA;
	}
	nul = memchr(buf, '\0', len);
	if (nul) {
		end = (size_t)(nul - buf);
		for (size_t i = end; i < len; i++)
			if (buf[i] != '\0')
				return vi_err(err, "bundle: data after the NUL padding");
	}
	s = memmem(buf, end, sep, sizeof(sep) - 1);
	if (!s)
		return vi_err(err, "bundle: no minisign signature after the manifest");
	*ret_manifest_len = (size_t)(s - buf) + 1;
	*ret_sig_off = *ret_manifest_len;
	*ret_sig_len = end - *ret_sig_off;
	return 0;
}

int vi_bundle_offset(const struct verity_params *p, uint64_t *ret, struct verity_err *err)
{
	struct verity_geometry g;
	int r;

	r = verity_geometry_compute(p, &g, err);
	if (r < 0)
		return r;
	*ret = g.hash_device_size;
	return 0;
}

int vi_manifest_verify(const struct vi_keyset *keys, const char *man, size_t man_len,
		       const char *sig, size_t sig_len, uint64_t min_version,
		       struct vi_manifest *ret, unsigned *ret_key, struct verity_err *err)
{
	struct minisign_sig s;
	struct vi_manifest m;
	char id[17], why[sizeof(err->msg)];
	unsigned k;
	int r;

	r = minisign_sig_parse(sig, sig_len, &s, err);
	if (r < 0) {
		snprintf(why, sizeof(why), "%s", err->msg);
		return vi_err(err, "manifest signature: %s", why);
	}
	for (k = 0; k < keys->n; k++)
		if (memcmp(keys->key[k].key_id, s.key_id, sizeof(s.key_id)) == 0)
			break;
	minisign_key_id_format(s.key_id, id);
	if (k == keys->n) {
		vi_err(err, "manifest signed by key %s, which is not a trusted key", id);
		return -ENOKEY;
	}
	/* The size cap is the manifest's: a huge "manifest" is not even hashed. */
	if (man_len > VI_MANIFEST_MAX) {
		vi_err(err, "manifest larger than %u bytes", VI_MANIFEST_MAX);
		return -E2BIG;
	}
	r = minisign_verify(&keys->key[k], &s, (const uint8_t *)man, man_len, false, err);
	if (r < 0) {
		snprintf(why, sizeof(why), "%s", err->msg);
		vi_err(err, "manifest signature (key %s): %s", id, why);
		return r;
	}
	r = vi_manifest_parse(man, man_len, &m, err);
	if (r < 0)
		return r;
	if (m.version < min_version) {
		vi_err(err, "manifest version %llu is below the minimum %llu (rollback refused)",
		       (unsigned long long)m.version, (unsigned long long)min_version);
		return -ESTALE;
	}
	*ret = m;
	*ret_key = k;
	return 0;
}
