// SPDX-License-Identifier: LGPL-2.1-or-later
/* The parameters of a verity target: one table of spellings and ranges, the given set, the
 * repeat rule and the formatter (include/params.h). */
#include "params.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "fec.h"
#include "hex.h"
#include "strutil.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum kind {
	NUM,        /* a number with a range rule */
	BOOL,       /* superblock: true / false */
	FLAG,       /* present or not, no value */
	MODE,       /* one of the enum's words, no value in the option syntaxes */
	HASH,       /* an algorithm name */
	BYTES,      /* salt, uuid */
	STR,        /* a device spec or location */
};

struct param {
	const char *name[VI_SPELL_COUNT];
	enum kind kind;
	const char *range;    /* NUM: why a value is refused */
};

static const struct param params[VI_PARAM_COUNT] = {
	/*                        veritysetup          kernel table               veritytab / ours       manifest */
	[VI_PARAM_HASH]        = { { "hash",               NULL,                      "hash",                "hash-algorithm" },     HASH,  NULL },
	[VI_PARAM_FORMAT]      = { { "format",             NULL,                      "format",              "format" },             NUM,   "must be 0 or 1" },
	[VI_PARAM_DATA_BS]     = { { "data-block-size",    NULL,                      "data-block-size",     "data-block-size" },    NUM,   "not a power of two between 512 and 524288" },
	[VI_PARAM_HASH_BS]     = { { "hash-block-size",    NULL,                      "hash-block-size",     "hash-block-size" },    NUM,   "not a power of two between 512 and 524288" },
	[VI_PARAM_DATA_BLOCKS] = { { "data-blocks",        NULL,                      "data-blocks",         "data-blocks" },        NUM,   "not a positive number" },
	[VI_PARAM_HASH_OFFSET] = { { "hash-offset",        NULL,                      "hash-offset",         "hash-offset" },        NUM,   "not a multiple of 512 bytes" },
	[VI_PARAM_SALT]        = { { "salt",               NULL,                      "salt",                "salt" },               BYTES, NULL },
	[VI_PARAM_UUID]        = { { "uuid",               NULL,                      "uuid",                "uuid" },               BYTES, NULL },
	[VI_PARAM_SUPERBLOCK]  = { { "no-superblock",      NULL,                      "superblock",          "superblock" },         BOOL,  NULL },
	[VI_PARAM_FEC_OFFSET]  = { { "fec-offset",         "fec_start",               "fec-offset",          "fec-offset" },         NUM,   "not a multiple of 512 bytes" },
	[VI_PARAM_FEC_ROOTS]   = { { "fec-roots",          "fec_roots",               "fec-roots",           "fec-roots" },          NUM,   "must be between 2 and 24" },
	[VI_PARAM_FEC_DEVICE]  = { { "fec-device",         "use_fec_from_device",     "fec-device",          "fec-device" },         STR,   NULL },
	[VI_PARAM_FEC_BLOCKS]  = { { NULL,                 "fec_blocks",              NULL,                  NULL },                 NUM,   "not a positive number" },
	[VI_PARAM_CORRUPTION]  = { { NULL,                 NULL,                      NULL,                  "on-corruption" },      MODE,  NULL },
	[VI_PARAM_IOERROR]     = { { NULL,                 NULL,                      NULL,                  "on-error" },           MODE,  NULL },
	[VI_PARAM_ZERO_BLOCKS] = { { NULL,                 "ignore_zero_blocks",      "ignore-zero-blocks",  "ignore-zero-blocks" }, FLAG,  NULL },
	[VI_PARAM_CHECK_ONCE]  = { { "check-at-most-once", "check_at_most_once",      "check-at-most-once",  "check-at-most-once" }, FLAG,  NULL },
	[VI_PARAM_SIGNATURE]   = { { "root-hash-signature", NULL,                     "root-hash-signature", NULL },                 STR,   NULL },
};

/* The modes' words: in the option syntaxes a mode is its own word, in the manifest the value
 * of on-corruption / on-error. */
static const char *const corruption_words[][VI_SPELL_COUNT] = {
	[VI_CORRUPT_EIO]     = { NULL, NULL, NULL, "eio" },
	[VI_CORRUPT_IGNORE]  = { "ignore-corruption", "ignore_corruption", "ignore-corruption", "ignore" },
	[VI_CORRUPT_RESTART] = { "restart-on-corruption", "restart_on_corruption", "restart-on-corruption", "restart" },
	[VI_CORRUPT_PANIC]   = { "panic-on-corruption", "panic_on_corruption", "panic-on-corruption", "panic" },
};

static const char *const ioerror_words[][VI_SPELL_COUNT] = {
	[VI_IOERR_EIO]     = { NULL, NULL, NULL, "eio" },
	[VI_IOERR_RESTART] = { "restart-on-error", "restart_on_error", "restart-on-error", "restart" },
	[VI_IOERR_PANIC]   = { "panic-on-error", "panic_on_error", "panic-on-error", "panic" },
};

_Static_assert(VI_PARAM_COUNT <= 32, "the given set is 32 bits");

const char *vi_param_name(enum vi_param p, enum vi_spelling s)
{
	if ((unsigned)p >= VI_PARAM_COUNT || (unsigned)s >= VI_SPELL_COUNT)
		return NULL;
	return params[p].name[s];
}

int vi_param_lookup(const char *w, size_t n, enum vi_spelling s)
{
	if ((unsigned)s >= VI_SPELL_COUNT)
		return -1;
	for (unsigned p = 0; p < VI_PARAM_COUNT; p++)
		if (params[p].name[s] && vi_str_eq(w, n, params[p].name[s]))
			return (int)p;
	return -1;
}

bool vi_param_has_value(enum vi_param p)
{
	return (unsigned)p < VI_PARAM_COUNT && params[p].kind != FLAG && params[p].kind != MODE;
}

const char *vi_corruption_word(enum vi_corruption c, enum vi_spelling s)
{
	if ((unsigned)c >= ARRAY_SIZE(corruption_words) || (unsigned)s >= VI_SPELL_COUNT)
		return NULL;
	return corruption_words[c][s];
}

const char *vi_ioerror_word(enum vi_ioerror e, enum vi_spelling s)
{
	if ((unsigned)e >= ARRAY_SIZE(ioerror_words) || (unsigned)s >= VI_SPELL_COUNT)
		return NULL;
	return ioerror_words[e][s];
}

static int mode_lookup(const char *const (*words)[VI_SPELL_COUNT], size_t count, const char *w,
		       size_t n, enum vi_spelling s, unsigned *ret)
{
	if ((unsigned)s >= VI_SPELL_COUNT)
		return -EINVAL;
	for (size_t i = 0; i < count; i++) {
		if (words[i][s] && vi_str_eq(w, n, words[i][s])) {
			*ret = (unsigned)i;
			return 0;
		}
	}
	return -EINVAL;
}

int vi_corruption_lookup(const char *w, size_t n, enum vi_spelling s, enum vi_corruption *ret)
{
	unsigned i = 0;
	int r = mode_lookup(corruption_words, ARRAY_SIZE(corruption_words), w, n, s, &i);

	if (r == 0)
		*ret = (enum vi_corruption)i;
	return r;
}

int vi_ioerror_lookup(const char *w, size_t n, enum vi_spelling s, enum vi_ioerror *ret)
{
	unsigned i = 0;
	int r = mode_lookup(ioerror_words, ARRAY_SIZE(ioerror_words), w, n, s, &i);

	if (r == 0)
		*ret = (enum vi_ioerror)i;
	return r;
}

const char *vi_param_range(enum vi_param p)
{
	return (unsigned)p < VI_PARAM_COUNT ? params[p].range : NULL;
}

const char *vi_param_range_check(enum vi_param p, uint64_t v)
{
	bool ok = true;

	switch (p) {
	case VI_PARAM_FORMAT:
		ok = v <= 1;
		break;
	case VI_PARAM_DATA_BS:
	case VI_PARAM_HASH_BS:
		ok = vi_block_size_ok(v);
		break;
	case VI_PARAM_DATA_BLOCKS:
	case VI_PARAM_FEC_BLOCKS:
		ok = v != 0;
		break;
	case VI_PARAM_HASH_OFFSET:
	case VI_PARAM_FEC_OFFSET:
		ok = v % 512 == 0;
		break;
	case VI_PARAM_FEC_ROOTS:
		ok = v >= VERITY_FEC_MIN_ROOTS && v <= VERITY_FEC_MAX_ROOTS;
		break;
	case VI_PARAM_SUPERBLOCK:
	case VI_PARAM_ZERO_BLOCKS:
	case VI_PARAM_CHECK_ONCE:
		if (v > 1)
			return "must be 0 or 1";
		break;
	case VI_PARAM_CORRUPTION:
		if (v >= ARRAY_SIZE(corruption_words))
			return "unknown corruption mode";
		break;
	case VI_PARAM_IOERROR:
		if (v >= ARRAY_SIZE(ioerror_words))
			return "unknown I/O error mode";
		break;
	default:
		break;
	}
	return ok ? NULL : params[p].range;
}

void vi_params_fill_defaults(struct vi_params *p, uint32_t given)
{
	if (!(given & VI_GIVEN_HASH_NAME))
		snprintf(p->hash_name, sizeof(p->hash_name), "sha256");
	if (!(given & VI_GIVEN_FORMAT))
		p->hash_type = 1;
	if (!(given & VI_GIVEN_DATA_BS))
		p->data_block_size = 4096;
	if (!(given & VI_GIVEN_HASH_BS))
		p->hash_block_size = 4096;
}

uint32_t vi_target_given(const struct vi_target *t)
{
	uint32_t g = t->given & VI_PARAM_GIVEN_BITS;

	if (t->fec.spec[0])
		g |= VI_PARAM_BIT(VI_PARAM_FEC_DEVICE);
	if (t->fec_blocks)
		g |= VI_PARAM_BIT(VI_PARAM_FEC_BLOCKS);
	if (t->opts.corruption != VI_CORRUPT_EIO)
		g |= VI_PARAM_BIT(VI_PARAM_CORRUPTION);
	if (t->opts.ioerror != VI_IOERR_EIO)
		g |= VI_PARAM_BIT(VI_PARAM_IOERROR);
	if (t->opts.ignore_zero_blocks)
		g |= VI_PARAM_BIT(VI_PARAM_ZERO_BLOCKS);
	if (t->opts.check_at_most_once)
		g |= VI_PARAM_BIT(VI_PARAM_CHECK_ONCE);
	if (t->sig_path[0])
		g |= VI_PARAM_BIT(VI_PARAM_SIGNATURE);
	return g;
}

/* The numeric value of p in t (NUM, BOOL, FLAG, MODE). */
static uint64_t num_of(const struct vi_target *t, enum vi_param p)
{
	switch (p) {
	case VI_PARAM_FORMAT:      return t->params.hash_type;
	case VI_PARAM_DATA_BS:     return t->params.data_block_size;
	case VI_PARAM_HASH_BS:     return t->params.hash_block_size;
	case VI_PARAM_DATA_BLOCKS: return t->params.data_blocks;
	case VI_PARAM_HASH_OFFSET: return t->params.hash_offset;
	case VI_PARAM_SUPERBLOCK:  return t->superblock;
	case VI_PARAM_FEC_OFFSET:  return t->fec_offset;
	case VI_PARAM_FEC_ROOTS:   return t->fec_roots;
	case VI_PARAM_FEC_BLOCKS:  return t->fec_blocks;
	case VI_PARAM_CORRUPTION:  return t->opts.corruption;
	case VI_PARAM_IOERROR:     return t->opts.ioerror;
	case VI_PARAM_ZERO_BLOCKS: return t->opts.ignore_zero_blocks;
	case VI_PARAM_CHECK_ONCE:  return t->opts.check_at_most_once;
	default:                   return 0;
	}
}

static void set_num(struct vi_target *t, enum vi_param p, uint64_t v)
{
	switch (p) {
	case VI_PARAM_FORMAT:      t->params.hash_type = (uint32_t)v; break;
	case VI_PARAM_DATA_BS:     t->params.data_block_size = (uint32_t)v; break;
	case VI_PARAM_HASH_BS:     t->params.hash_block_size = (uint32_t)v; break;
	case VI_PARAM_DATA_BLOCKS: t->params.data_blocks = v; break;
	case VI_PARAM_HASH_OFFSET: t->params.hash_offset = v; break;
	case VI_PARAM_SUPERBLOCK:
		t->superblock = v != 0;
		t->params.no_superblock = v == 0;
		break;
	case VI_PARAM_FEC_OFFSET:  t->fec_offset = v; break;
	case VI_PARAM_FEC_ROOTS:   t->fec_roots = (uint32_t)v; break;
	case VI_PARAM_FEC_BLOCKS:  t->fec_blocks = v; break;
	case VI_PARAM_CORRUPTION:  t->opts.corruption = (enum vi_corruption)v; break;
	case VI_PARAM_IOERROR:     t->opts.ioerror = (enum vi_ioerror)v; break;
	case VI_PARAM_ZERO_BLOCKS: t->opts.ignore_zero_blocks = v != 0; break;
	case VI_PARAM_CHECK_ONCE:  t->opts.check_at_most_once = v != 0; break;
	default: break;
	}
}

/* The bytes of a BYTES, STR or HASH parameter of t: a pointer into t and the length. */
static const char *bytes_of(const struct vi_target *t, enum vi_param p, size_t *len)
{
	switch (p) {
	case VI_PARAM_HASH:
		*len = strlen(t->params.hash_name);
		return t->params.hash_name;
	case VI_PARAM_SALT:
		*len = t->params.salt_size;
		return (const char *)t->params.salt;
	case VI_PARAM_UUID:
		*len = sizeof(t->params.uuid);
		return (const char *)t->params.uuid;
	case VI_PARAM_FEC_DEVICE:
		*len = strlen(t->fec.spec);
		return t->fec.spec;
	case VI_PARAM_SIGNATURE:
		*len = strlen(t->sig_path);
		return t->sig_path;
	default:
		*len = 0;
		return "";
	}
}

bool vi_target_same(const struct vi_target *a, const struct vi_target *b, enum vi_param p)
{
	const char *sa, *sb;
	size_t na, nb;

	if ((unsigned)p >= VI_PARAM_COUNT)
		return false;
	switch (params[p].kind) {
	case HASH:
	case BYTES:
	case STR:
		sa = bytes_of(a, p, &na);
		sb = bytes_of(b, p, &nb);
		return na == nb && memcmp(sa, sb, na) == 0;
	default:
		return num_of(a, p) == num_of(b, p);
	}
}

/* Check v as a value of p and store it into n (a copy of the target). */
static int store(struct vi_target *n, enum vi_param p, const struct vi_param_value *v)
{
	switch (params[p].kind) {
	case HASH: {
		char name[VERITY_MAX_HASH_NAME] = { 0 };   /* copied whole: no stack bytes after the NUL */

		if (vi_strlcpy_exact(name, sizeof(name), v->s, v->len) < 0 ||
		    vi_digest_size(name) == 0)
			return -ERANGE;
		memcpy(n->params.hash_name, name, sizeof(name));
		return 0;
	}
	case BYTES:
		if (p == VI_PARAM_SALT) {
			if (v->len > VERITY_MAX_SALT)
				return -ERANGE;
			if (v->len)
				memcpy(n->params.salt, v->s, v->len);
			n->params.salt_size = (uint16_t)v->len;
		} else {
			if (v->len != sizeof(n->params.uuid))
				return -ERANGE;
			memcpy(n->params.uuid, v->s, v->len);
		}
		return 0;
	case STR:
		if (p == VI_PARAM_FEC_DEVICE)
			return vi_strlcpy_exact(n->fec.spec, sizeof(n->fec.spec), v->s, v->len) < 0 ?
			       -ENAMETOOLONG : 0;
		return vi_strlcpy_exact(n->sig_path, sizeof(n->sig_path), v->s, v->len) < 0 ?
		       -ENAMETOOLONG : 0;
	default:
		if (vi_param_range_check(p, v->num))
			return -ERANGE;
		set_num(n, p, v->num);
		return 0;
	}
}

int vi_target_set(struct vi_target *t, enum vi_param p, const struct vi_param_value *v)
{
	struct vi_target n;
	int r;

	if ((unsigned)p >= VI_PARAM_COUNT)
		return -EINVAL;
	n = *t;
	r = store(&n, p, v);
	if (r < 0)
		return r;
	if ((vi_target_given(t) & VI_PARAM_BIT(p)) && !vi_target_same(t, &n, p))
		return -EEXIST;
	if (VI_PARAM_BIT(p) & VI_PARAM_GIVEN_BITS)
		n.given |= VI_PARAM_BIT(p);
	*t = n;
	return 0;
}

int vi_target_set_num(struct vi_target *t, enum vi_param p, uint64_t num)
{
	struct vi_param_value v = { .num = num };

	return vi_target_set(t, p, &v);
}

int vi_target_set_str(struct vi_target *t, enum vi_param p, const void *s, size_t len)
{
	struct vi_param_value v = { .s = s, .len = len };

	return vi_target_set(t, p, &v);
}

int vi_target_conflict(const struct vi_target *a, const struct vi_target *b, uint32_t mask)
{
	uint32_t ga = vi_target_given(a) & mask, gb = vi_target_given(b);

	for (unsigned p = 0; p < VI_PARAM_COUNT; p++) {
		if (!(ga & VI_PARAM_BIT(p)))
			continue;
		if (!(gb & VI_PARAM_BIT(p)) || !vi_target_same(a, b, (enum vi_param)p))
			return (int)p;
	}
	return -1;
}

__attribute__((format(printf, 4, 5)))
static int append(char *out, size_t size, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*pos >= size)
		return -ENOBUFS;
	va_start(ap, fmt);
	n = vsnprintf(out + *pos, size - *pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size - *pos) {
		out[*pos] = '\0';
		return -ENOBUFS;
	}
	*pos += (size_t)n;
	return 0;
}

/* A device spec as a veritytab value that reads back as the same spec: as it is, or, when it
 * holds a byte the option syntax refuses (a space that a udev link name's \xHH decoded to),
 * as that udev link again with every such byte escaped. */
static const char *spec_text(const char *spec, char *out, size_t size)
{
	static const struct {
		const char *tag, *link;
	} links[] = {
		{ "UUID=", "/dev/disk/by-uuid/" },
		{ "PARTUUID=", "/dev/disk/by-partuuid/" },
		{ "LABEL=", "/dev/disk/by-label/" },
		{ "PARTLABEL=", "/dev/disk/by-partlabel/" },
	};
	struct vi_error e;
	size_t len = strlen(spec);

	if (vi_devspec_chars_check("device", spec, len, &e) == 0)
		return spec;
	for (size_t i = 0; i < ARRAY_SIZE(links); i++) {
		size_t tag = strlen(links[i].tag), pos = strlen(links[i].link);

		if (strncmp(spec, links[i].tag, tag) != 0 || pos >= size)
			continue;
		memcpy(out, links[i].link, pos);
		for (const unsigned char *c = (const unsigned char *)spec + tag; *c; c++) {
			bool plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
				     (*c >= '0' && *c <= '9') || strchr("._-:+@=", *c);

			if (pos + 5 > size)
				return spec;
			if (plain)
				out[pos++] = (char)*c;
			else
				pos += (size_t)snprintf(out + pos, size - pos, "\\x%02x", *c);
		}
		out[pos] = '\0';
		return out;
	}
	return spec;
}

/* The value of p in t as text, in syntax s; NULL for a flag that is off or a default mode.
 * val (size bytes) holds at least 2 × VERITY_MAX_SALT + 1 bytes. */
static const char *value_text(const struct vi_target *t, enum vi_param p, enum vi_spelling s,
			      char *val, size_t size)
{
	bool manifest = s == VI_SPELL_MANIFEST;

	switch (params[p].kind) {
	case HASH:
		return t->params.hash_name;
	case STR: {
		size_t n;
		const char *s2 = bytes_of(t, p, &n);

		if (n && p == VI_PARAM_FEC_DEVICE && s == VI_SPELL_VOPTS)
			return spec_text(s2, val, size);
		return n ? s2 : NULL;
	}
	case BOOL:
		return t->superblock ? (manifest ? "yes" : "true") : (manifest ? "no" : "false");
	case FLAG:
		return num_of(t, p) ? (manifest ? "yes" : "") : NULL;
	case MODE:
		if (num_of(t, p) == 0)
			return NULL;
		return p == VI_PARAM_CORRUPTION ? vi_corruption_word(t->opts.corruption, s) :
		       vi_ioerror_word(t->opts.ioerror, s);
	case BYTES:
		if (p == VI_PARAM_UUID) {
			vi_uuid_format(t->params.uuid, val);
			return val;
		}
		if (t->params.salt_size == 0)
			return "-";
		if (vi_hex_encode(t->params.salt, t->params.salt_size, val, size) < 0)
			return NULL;
		return val;
	case NUM:
		snprintf(val, size, "%llu", (unsigned long long)num_of(t, p));
		return val;
	}
	return NULL;
}

int vi_param_format(const struct vi_target *t, enum vi_param p, enum vi_spelling s, char *out,
		    size_t out_size, size_t *pos)
{
	char val[4 * VI_MAX_PATH + 32];   /* a salt in hex, an escaped device spec */
	const char *name, *v;

	if ((unsigned)p >= VI_PARAM_COUNT || (s != VI_SPELL_VOPTS && s != VI_SPELL_MANIFEST))
		return -EINVAL;
	name = params[p].name[s];
	v = value_text(t, p, s, val, sizeof(val));
	if (!v)
		return 0;   /* nothing to say */
	if (s == VI_SPELL_MANIFEST)
		return name ? append(out, out_size, pos, "%s %s\n", name, v) : -EINVAL;
	if (params[p].kind == MODE)
		return append(out, out_size, pos, "%s%s", *pos ? "," : "", v);
	if (!name)
		return -EINVAL;
	if (params[p].kind == FLAG)
		return append(out, out_size, pos, "%s%s", *pos ? "," : "", name);
	return append(out, out_size, pos, "%s%s=%s", *pos ? "," : "", name, v);
}

bool vi_target_has_signature(const struct vi_config *cfg, const struct vi_target *t)
{
	if (!t->enabled)
		return true;   /* nothing to sign */
	if (t->sig_path[0] || t->sig_key_desc[0])
		return true;
	/* The manifest names the root only. */
	return t == &cfg->root && cfg->manifest[0];
}
