// SPDX-License-Identifier: LGPL-2.1-or-later
/* The signed verity manifest's text (grammar and keys in include/manifest.h): the key table,
 * the parser and the canonical formatter. What is done with a parsed manifest (its bundle on
 * disk, its signature, its merge into the command line's target) is manifest_trust.c's. */
#include "manifest.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fec.h"
#include "geometry.h"
#include "hex.h"
#include "params.h"
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

/* A key is a parameter of the target (its manifest spelling is in lib/config/params.c) or one of the
 * manifest's own. */
static const struct {
	const char *name;     /* the manifest's own keys */
	int param;            /* enum vi_param, or -1 */
} manifest_keys[K_COUNT] = {
	[K_VERSION]     = { "version", -1 },
	[K_ROOT_HASH]   = { "root-hash", -1 },
	[K_HASH_ALG]    = { NULL, VI_PARAM_HASH },
	[K_FORMAT]      = { NULL, VI_PARAM_FORMAT },
	[K_DATA_BS]     = { NULL, VI_PARAM_DATA_BS },
	[K_HASH_BS]     = { NULL, VI_PARAM_HASH_BS },
	[K_DATA_BLOCKS] = { NULL, VI_PARAM_DATA_BLOCKS },
	[K_HASH_OFFSET] = { NULL, VI_PARAM_HASH_OFFSET },
	[K_SALT]        = { NULL, VI_PARAM_SALT },
	[K_SUPERBLOCK]  = { NULL, VI_PARAM_SUPERBLOCK },
	[K_DATA_DEV]    = { "data-device", -1 },
	[K_UUID]        = { NULL, VI_PARAM_UUID },
	[K_HASH_DEV]    = { "hash-device", -1 },
	[K_FEC_DEV]     = { NULL, VI_PARAM_FEC_DEVICE },
	[K_FEC_OFFSET]  = { NULL, VI_PARAM_FEC_OFFSET },
	[K_FEC_ROOTS]   = { NULL, VI_PARAM_FEC_ROOTS },
	[K_CORRUPTION]  = { NULL, VI_PARAM_CORRUPTION },
	[K_IOERROR]     = { NULL, VI_PARAM_IOERROR },
	[K_ZERO]        = { NULL, VI_PARAM_ZERO_BLOCKS },
	[K_ONCE]        = { NULL, VI_PARAM_CHECK_ONCE },
};

static const char *key_name(unsigned k)
{
	if (k >= K_COUNT)
		return "?";
	return manifest_keys[k].name ? manifest_keys[k].name :
	       vi_param_name((enum vi_param)manifest_keys[k].param, VI_SPELL_MANIFEST);
}

static int key_lookup(const char *w, size_t n, unsigned *ret)
{
	for (unsigned k = 0; k < K_COUNT; k++) {
		if (vi_str_eq(w, n, key_name(k))) {
			*ret = k;
			return 0;
		}
	}
	return -EINVAL;
}

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

static int parse_devspec(const char *v, size_t n, struct vi_devspec *ret)
{
	/* MAJ:MIN only makes sense inside a running system: never in a manifest */
	if (vi_devspec_check(v, n, false, NULL) < 0)
		return -EINVAL;
	return vi_strlcpy_exact(ret->spec, sizeof(ret->spec), v, n) < 0 ? -EINVAL : 0;
}

/* The value of parameter p in the manifest's syntax into *ret (buf: room for the salt or the
 * UUID, spec for a device). -EINVAL with *why set. */
static int read_param(enum vi_param p, const char *v, size_t n, struct vi_param_value *ret,
		      uint8_t *buf, struct vi_devspec *spec, const char **why)
{
	bool b = false;
	int r = 0;

	switch (p) {
	case VI_PARAM_HASH:
		ret->s = v;
		ret->len = n;
		return 0;
	case VI_PARAM_SALT:
		ret->s = buf;
		ret->len = 0;
		if (n == 1 && v[0] == '-')
			return 0;
		if (vi_hex_decode(v, n, buf, VERITY_MAX_SALT, &ret->len) < 0 || ret->len == 0)
			return -EINVAL;
		return 0;
	case VI_PARAM_UUID: {
		char s[VERITY_UUID_STR_LEN + 1];

		if (n != VERITY_UUID_STR_LEN)
			return -EINVAL;
		memcpy(s, v, n);
		s[n] = '\0';
		ret->s = buf;
		ret->len = 16;
		return vi_uuid_parse(s, buf) < 0 ? -EINVAL : 0;
	}
	case VI_PARAM_FEC_DEVICE:
		if (parse_devspec(v, n, spec) < 0)
			return -EINVAL;
		ret->s = spec->spec;
		ret->len = strlen(spec->spec);
		return 0;
	case VI_PARAM_SUPERBLOCK:
	case VI_PARAM_ZERO_BLOCKS:
	case VI_PARAM_CHECK_ONCE:
		r = parse_yesno(v, n, &b);
		ret->num = b;
		return r;
	case VI_PARAM_CORRUPTION: {
		enum vi_corruption c = VI_CORRUPT_EIO;

		r = vi_corruption_lookup(v, n, VI_SPELL_MANIFEST, &c);
		ret->num = c;
		return r;
	}
	case VI_PARAM_IOERROR: {
		enum vi_ioerror e = VI_IOERR_EIO;

		r = vi_ioerror_lookup(v, n, VI_SPELL_MANIFEST, &e);
		ret->num = e;
		return r;
	}
	default:
		/* the numbers: a malformed one is out of range too */
		if (vi_param_range(p))
			*why = vi_param_range(p);
		return parse_num(v, n, &ret->num);
	}
}

/* One "key value" pair into m, or into t for a parameter of the target (copied into m once
 * every line is in). -EINVAL: a bad value (the caller names the line). */
static int set_value(struct vi_manifest *m, struct vi_target *t, enum key k, const char *v,
		     size_t n, const char **why)
{
	uint8_t buf[VERITY_MAX_SALT];
	struct vi_param_value val = { 0, NULL, 0 };
	struct vi_devspec spec;
	uint64_t u = 0;
	size_t got = 0;
	int r;

	*why = "invalid value";
	switch (k) {
	case K_VERSION:
		if (parse_num(v, n, &u) < 0 || u == 0)
			return -EINVAL;
		m->version = u;
		return 0;
	case K_ROOT_HASH:
		/* length checked against the algorithm once both are known */
		if (vi_hex_decode(v, n, m->root_hash, sizeof(m->root_hash), &got) < 0 || got == 0)
			return -EINVAL;
		m->root_hash_len = (unsigned)got;
		return 0;
	case K_DATA_DEV:
		return parse_devspec(v, n, &m->data);
	case K_HASH_DEV:
		return parse_devspec(v, n, &m->hash);
	default:
		break;
	}
	if (k >= K_COUNT || manifest_keys[k].param < 0)
		return -EINVAL;
	r = read_param((enum vi_param)manifest_keys[k].param, v, n, &val, buf, &spec, why);
	if (r < 0)
		return -EINVAL;
	r = vi_target_set(t, (enum vi_param)manifest_keys[k].param, &val);
	if (r == -ERANGE)
		*why = manifest_keys[k].param == VI_PARAM_HASH ? "unknown hash algorithm" :
		       vi_param_range((enum vi_param)manifest_keys[k].param);
	return r < 0 ? -EINVAL : 0;
}

void vi_manifest_target(const struct vi_manifest *m, struct vi_target *t)
{
	memset(t, 0, sizeof(*t));
	t->params = m->params;
	t->superblock = !m->params.no_superblock;
	t->fec = m->fec;
	t->fec_offset = m->fec_offset;
	t->fec_roots = m->fec_roots;
	t->opts = m->opts;
	t->given = VI_PARAM_GIVEN_BITS & ~(m->has_uuid ? 0u : VI_GIVEN_UUID);
}

/* The parameters the manifest parse collected in t, into m. */
static void from_target(const struct vi_target *t, struct vi_manifest *m)
{
	m->params = t->params;
	m->has_uuid = (t->given & VI_GIVEN_UUID) != 0;
	m->fec = t->fec;
	m->fec_offset = t->fec_offset;
	m->fec_roots = t->fec_roots;
	m->opts = t->opts;
}

/* Whole-manifest rules once every line is in. */
static int check_manifest(const struct vi_manifest *m, uint32_t seen, struct vi_error *err)
{
	unsigned dsize;
	int r;

	for (unsigned k = 0; k < FIRST_OPTIONAL; k++)
		if (!(seen & (1u << k)))
			return vi_err(err, "manifest: required key '%s' missing", key_name(k));
	dsize = vi_digest_size(m->params.hash_name);
	if (m->root_hash_len != dsize)
		return vi_err(err, "manifest: root-hash has %u bytes, %s needs %u",
			      m->root_hash_len, m->params.hash_name, dsize);
	if (m->has_uuid && m->params.no_superblock)
		return vi_err(err, "manifest: uuid given with superblock no");
	if ((seen & ((1u << K_FEC_OFFSET) | (1u << K_FEC_ROOTS))) && !(seen & (1u << K_FEC_DEV)))
		return vi_err(err, "manifest: fec-offset/fec-roots without fec-device");
	if (m->hash.spec[0] == '\0' && m->params.hash_offset == 0)
		return vi_err(err, "manifest: hash area on the data device needs a hash-offset");
	r = vi_params_validate(&m->params, err);
	if (r < 0)
		return r;
	return 0;
}

int vi_manifest_parse(const char *buf, size_t len, struct vi_manifest *ret,
		      struct vi_error *err)
{
	static const char magic[] = VI_MANIFEST_MAGIC "\n";
	struct vi_manifest m;
	struct vi_target t;
	uint32_t seen = 0;
	size_t pos, lineno = 1;

	if (len > VI_MANIFEST_MAX)
		return vi_errno(err, -E2BIG, "manifest larger than %u bytes", VI_MANIFEST_MAX);
	if (len < sizeof(magic) - 1 || memcmp(buf, magic, sizeof(magic) - 1) != 0)
		return vi_err(err, "manifest: first line is not \"%s\"", VI_MANIFEST_MAGIC);
	memset(&m, 0, sizeof(m));
	memset(&t, 0, sizeof(t));
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
		if (key_lookup(line, klen, &k) < 0) {
			char s[40];

			vi_sanitize(line, klen, s, sizeof(s));
			return vi_err(err, "manifest line %zu: unknown key '%s'", lineno, s);
		}
		/* stricter than the repeat rule of the option syntaxes: a signed text has one
		 * canonical form */
		if (seen & (1u << k))
			return vi_err(err, "manifest line %zu: '%s' given twice", lineno, key_name(k));
		seen |= 1u << k;
		if (set_value(&m, &t, (enum key)k, sp + 1, n - klen - 1, &why) < 0)
			return vi_err(err, "manifest line %zu: %s: %s", lineno, key_name(k),
				      why ? why : "invalid value");
	}
	from_target(&t, &m);
	if ((seen & (1u << K_FEC_DEV)) && !(seen & (1u << K_FEC_ROOTS)))
		m.fec_roots = VERITY_FEC_DEFAULT_ROOTS;
	if (check_manifest(&m, seen, err) < 0)
		return -EINVAL;
	*ret = m;
	return 0;
}

/* snprintf-append; -ENOBUFS once out is full. */
__attribute__((format(printf, 4, 5)))
static int add(char *out, size_t out_size, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out + *pos, out_size - *pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= out_size - *pos)
		return -ENOBUFS;
	*pos += (size_t)n;
	return 0;
}

/* One line of key k, or nothing when the key is left out (optional, default). */
static int format_key(const struct vi_manifest *m, const struct vi_target *t, enum key k,
		      char *out, size_t out_size, size_t *pos)
{
	char hex[2 * VERITY_MAX_DIGEST + 1];

	switch (k) {
	case K_VERSION:
		return add(out, out_size, pos, "%s %llu\n", key_name(k),
			   (unsigned long long)m->version);
	case K_ROOT_HASH:
		vi_hex_encode(m->root_hash, m->root_hash_len, hex, sizeof(hex));
		return add(out, out_size, pos, "%s %s\n", key_name(k), hex);
	case K_DATA_DEV:
		return add(out, out_size, pos, "%s %s\n", key_name(k), m->data.spec);
	case K_HASH_DEV:
		return m->hash.spec[0] ? add(out, out_size, pos, "%s %s\n", key_name(k),
					     m->hash.spec) : 0;
	case K_UUID:
		if (!m->has_uuid)
			return 0;
		break;
	case K_FEC_DEV:
	case K_FEC_OFFSET:
	case K_FEC_ROOTS:
		if (!m->fec.spec[0])
			return 0;
		break;
	default:
		break;
	}
	return vi_param_format(t, (enum vi_param)manifest_keys[k].param, VI_SPELL_MANIFEST, out,
			       out_size, pos);
}

int vi_manifest_format(const struct vi_manifest *m, char *out, size_t out_size,
		       size_t *ret_len, struct vi_error *err)
{
	struct vi_target t;
	size_t pos = 0;
	int r;

	if (out_size == 0)
		return -ENOBUFS;
	out[0] = '\0';
	if (m->version == 0)
		return vi_err(err, "manifest version must be at least 1");
	if (m->root_hash_len == 0 || m->root_hash_len != vi_digest_size(m->params.hash_name))
		return vi_err(err, "root hash length does not match %s", m->params.hash_name);
	if (m->data.spec[0] == '\0')
		return vi_err(err, "manifest needs a data device");
	r = vi_params_validate(&m->params, err);
	if (r < 0)
		return r;
	vi_manifest_target(m, &t);
	if (!t.fec_roots)
		t.fec_roots = VERITY_FEC_DEFAULT_ROOTS;
	r = add(out, out_size, &pos, "%s\n", VI_MANIFEST_MAGIC);
	for (unsigned k = 0; k < K_COUNT && r == 0; k++)
		r = format_key(m, &t, (enum key)k, out, out_size, &pos);
	if (r < 0) {
		out[0] = '\0';
		return vi_errno(err, -ENOBUFS, "manifest does not fit in %zu bytes", out_size);
	}
	/* what we write must be what we accept */
	{
		struct vi_manifest back;

		r = vi_manifest_parse(out, pos, &back, err);
		if (r < 0)
			return r;
	}
	*ret_len = pos;
	return 0;
}
