// SPDX-License-Identifier: LGPL-2.1-or-later
/* veritytab option words. The grammar (systemd's veritytab(5), plus the kernel 6.12 error
 * policies):
 *   options := word ("," word)*
 *   word    := "superblock=" bool | "format=" (0|1) | "data-block-size=" size
 *            | "hash-block-size=" size | "data-blocks=" u64 | "hash-offset=" size
 *            | "salt=" (hex | "-") | "uuid=" uuid | "hash=" algorithm
 *            | "fec-device=" devspec | "fec-offset=" size | "fec-roots=" 2..24
 *            | "ignore-corruption" | "restart-on-corruption" | "panic-on-corruption"
 *            | "restart-on-error" | "panic-on-error"
 *            | "ignore-zero-blocks" | "check-at-most-once" | "root-hash-signature=" location
 *            | "nofail" | "noauto" | "_netdev" | "x-initrd.attach"   (unit words: no meaning here)
 *   size    := digits ["." digits] [B|K|M|G|T|P|E]   (systemd's parse_size, binary multiples)
 *   u64     := decimal | "0x" hex | "0" octal        (systemd's safe_atou64)
 * Empty words are skipped, as systemd does. Repeating a word with the same value is accepted;
 * with another value it is refused. */
#include "vopts.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fec.h"
#include "hex.h"
#include "strutil.h"

/* Words that do not live in t->given. */
enum {
	SEEN_CORRUPTION = 1u << 0,
	SEEN_IOERROR    = 1u << 1,
	SEEN_FEC_DEVICE = 1u << 2,
	SEEN_SIG        = 1u << 3,
};

struct word {
	const char *name;
	bool has_value;
	int (*apply)(struct vi_target *t, const char *v, size_t n, uint32_t *seen,
		     struct verity_err *err);
};

static int twice(struct verity_err *err, const char *name)
{
	return vi_err(err, "option '%s' given twice with different values", name);
}

static int bad_value(struct verity_err *err, const char *name, const char *v, size_t n,
		     const char *why)
{
	char s[64];

	vi_sanitize(v, n, s, sizeof(s));
	return vi_err(err, "option %s=%s: %s", name, s, why);
}

static bool block_size_ok(uint64_t bs)
{
	return bs >= VERITY_MIN_BLOCK && bs <= VERITY_MAX_BLOCK && (bs & (bs - 1)) == 0;
}

static int w_superblock(struct vi_target *t, const char *v, size_t n, uint32_t *seen,
			struct verity_err *err)
{
	bool b;

	(void)seen;
	if (vi_parse_bool(v, n, &b) < 0)
		return bad_value(err, "superblock", v, n, "not a boolean");
	if ((t->given & VI_GIVEN_SUPERBLOCK) && t->superblock != b)
		return twice(err, "superblock");
	t->superblock = b;
	t->params.no_superblock = !b;
	t->given |= VI_GIVEN_SUPERBLOCK;
	return 0;
}

static int w_format(struct vi_target *t, const char *v, size_t n, uint32_t *seen,
		    struct verity_err *err)
{
	uint64_t f64;
	uint32_t f;

	(void)seen;
	if (vi_parse_u64_c(v, n, &f64) < 0 || f64 > 1)
		return bad_value(err, "format", v, n, "must be 0 or 1");
	f = (uint32_t)f64;
	if ((t->given & VI_GIVEN_FORMAT) && t->params.hash_type != f)
		return twice(err, "format");
	t->params.hash_type = f;
	t->given |= VI_GIVEN_FORMAT;
	return 0;
}

static int block_size(const char *name, uint32_t bit, uint32_t *field, struct vi_target *t,
		      const char *v, size_t n, struct verity_err *err)
{
	uint64_t bs;

	if (vi_parse_size(v, n, &bs) < 0 || !block_size_ok(bs))
		return bad_value(err, name, v, n, "not a power of two between 512 and 524288");
	if ((t->given & bit) && *field != bs)
		return twice(err, name);
	*field = (uint32_t)bs;
	t->given |= bit;
	return 0;
}

static int w_data_bs(struct vi_target *t, const char *v, size_t n, uint32_t *seen,
		     struct verity_err *err)
{
	(void)seen;
	return block_size("data-block-size", VI_GIVEN_DATA_BS, &t->params.data_block_size, t, v,
			  n, err);
}

static int w_hash_bs(struct vi_target *t, const char *v, size_t n, uint32_t *seen,
		     struct verity_err *err)
{
	(void)seen;
	return block_size("hash-block-size", VI_GIVEN_HASH_BS, &t->params.hash_block_size, t, v,
			  n, err);
}

static int w_data_blocks(struct vi_target *t, const char *v, size_t n, uint32_t *seen,
			 struct verity_err *err)
{
	uint64_t b;

	(void)seen;
	if (vi_parse_u64_c(v, n, &b) < 0 || b == 0)
		return bad_value(err, "data-blocks", v, n, "not a positive number");
	if ((t->given & VI_GIVEN_DATA_BLOCKS) && t->params.data_blocks != b)
		return twice(err, "data-blocks");
	t->params.data_blocks = b;
	t->given |= VI_GIVEN_DATA_BLOCKS;
	return 0;
}

static int offset(const char *name, const char *v, size_t n, uint64_t *ret,
		  struct verity_err *err)
{
	uint64_t off = 0;

	if (vi_parse_size(v, n, &off) < 0)
		return bad_value(err, name, v, n, "not a size in bytes");
	if (off % 512)
		return bad_value(err, name, v, n, "not a multiple of 512 bytes");
	*ret = off;
	return 0;
}

static int w_hash_offset(struct vi_target *t, const char *v, size_t n, uint32_t *seen,
			 struct verity_err *err)
{
	uint64_t off = 0;
	int r;

	(void)seen;
	r = offset("hash-offset", v, n, &off, err);
	if (r < 0)
		return r;
	if ((t->given & VI_GIVEN_HASH_OFFSET) && t->params.hash_offset != off)
		return twice(err, "hash-offset");
	t->params.hash_offset = off;
	t->given |= VI_GIVEN_HASH_OFFSET;
	return 0;
}

static int w_salt(struct vi_target *t, const char *v, size_t n, uint32_t *seen,
		  struct verity_err *err)
{
	uint8_t salt[VERITY_MAX_SALT] = { 0 };
	size_t len = 0;

	(void)seen;
	if (!(n == 1 && v[0] == '-')) {
		int r = hex_decode(v, n, salt, sizeof(salt), &len);

		if (r == -ENOBUFS)
			return bad_value(err, "salt", v, n, "longer than 256 bytes");
		if (r < 0 || n == 0)
			return bad_value(err, "salt", v, n, "not hex (use '-' for no salt)");
	}
	if ((t->given & VI_GIVEN_SALT) &&
	    (t->params.salt_size != len || memcmp(t->params.salt, salt, len) != 0))
		return twice(err, "salt");
	memcpy(t->params.salt, salt, len);
	t->params.salt_size = (uint16_t)len;
	t->given |= VI_GIVEN_SALT;
	return 0;
}

static int w_uuid(struct vi_target *t, const char *v, size_t n, uint32_t *seen,
		  struct verity_err *err)
{
	char tmp[VERITY_UUID_STR_LEN + 1];
	uint8_t u[16];
	size_t len = 0;
	/* systemd also takes the 32 hex digits without dashes (sd_id128_from_string) */
	bool plain = n == 32 && hex_decode(v, n, u, sizeof(u), &len) == 0 && len == 16;

	(void)seen;
	if (!plain && (vi_strlcpy_exact(tmp, sizeof(tmp), v, n) < 0 || verity_uuid_parse(tmp, u) < 0))
		return bad_value(err, "uuid", v, n, "not a UUID (8-4-4-4-12 hex digits, or 32)");
	if ((t->given & VI_GIVEN_UUID) && memcmp(t->params.uuid, u, 16) != 0)
		return twice(err, "uuid");
	memcpy(t->params.uuid, u, 16);
	t->given |= VI_GIVEN_UUID;
	return 0;
}

static int w_hash(struct vi_target *t, const char *v, size_t n, uint32_t *seen,
		  struct verity_err *err)
{
	char name[VERITY_MAX_HASH_NAME] = { 0 };   /* copied whole: no stack bytes after the NUL */

	(void)seen;
	if (vi_strlcpy_exact(name, sizeof(name), v, n) < 0 || verity_digest_size(name) == 0)
		return bad_value(err, "hash", v, n, "unknown hash algorithm");
	if ((t->given & VI_GIVEN_HASH_NAME) && strcmp(t->params.hash_name, name) != 0)
		return twice(err, "hash");
	memcpy(t->params.hash_name, name, sizeof(name));
	t->given |= VI_GIVEN_HASH_NAME;
	return 0;
}

static int w_fec_device(struct vi_target *t, const char *v, size_t n, uint32_t *seen,
			struct verity_err *err)
{
	char spec[sizeof(t->fec.spec)];
	size_t len = 0;
	int r = vi_devspec_chars_check("fec-device", v, n, err);

	if (r < 0)
		return r;
	r = vi_devspec_normalize(v, n, spec, sizeof(spec), &len);
	if (r < 0)
		return bad_value(err, "fec-device", v, n,
				 r == -ENAMETOOLONG ? "too long" : VI_DEVSPEC_LINK_ERR);
	r = vi_devspec_check(spec, len, false, err);
	if (r < 0)
		return r;
	if ((*seen & SEEN_FEC_DEVICE) && strcmp(t->fec.spec, spec) != 0)
		return twice(err, "fec-device");
	memcpy(t->fec.spec, spec, len + 1);
	*seen |= SEEN_FEC_DEVICE;
	return 0;
}

static int w_fec_offset(struct vi_target *t, const char *v, size_t n, uint32_t *seen,
			struct verity_err *err)
{
	uint64_t off = 0;
	int r;

	(void)seen;
	r = offset("fec-offset", v, n, &off, err);
	if (r < 0)
		return r;
	if ((t->given & VI_GIVEN_FEC_OFFSET) && t->fec_offset != off)
		return twice(err, "fec-offset");
	t->fec_offset = off;
	t->given |= VI_GIVEN_FEC_OFFSET;
	return 0;
}

static int w_fec_roots(struct vi_target *t, const char *v, size_t n, uint32_t *seen,
		       struct verity_err *err)
{
	uint64_t r64;
	uint32_t roots;

	(void)seen;
	if (vi_parse_u64_c(v, n, &r64) < 0 || r64 < VERITY_FEC_MIN_ROOTS || r64 > VERITY_FEC_MAX_ROOTS)
		return bad_value(err, "fec-roots", v, n, "must be between 2 and 24");
	roots = (uint32_t)r64;
	if ((t->given & VI_GIVEN_FEC_ROOTS) && t->fec_roots != roots)
		return twice(err, "fec-roots");
	t->fec_roots = roots;
	t->given |= VI_GIVEN_FEC_ROOTS;
	return 0;
}

static int corruption(struct vi_target *t, enum vi_corruption c, uint32_t *seen,
		      struct verity_err *err)
{
	if ((*seen & SEEN_CORRUPTION) && t->corruption != c)
		return vi_err(err, "more than one of ignore-corruption, restart-on-corruption, "
			      "panic-on-corruption");
	t->corruption = c;
	*seen |= SEEN_CORRUPTION;
	return 0;
}

static int w_ignore_corruption(struct vi_target *t, const char *v, size_t n, uint32_t *seen,
			       struct verity_err *err)
{
	(void)v; (void)n;
	return corruption(t, VI_CORRUPT_IGNORE, seen, err);
}

static int w_restart_on_corruption(struct vi_target *t, const char *v, size_t n,
				   uint32_t *seen, struct verity_err *err)
{
	(void)v; (void)n;
	return corruption(t, VI_CORRUPT_RESTART, seen, err);
}

static int w_panic_on_corruption(struct vi_target *t, const char *v, size_t n,
				 uint32_t *seen, struct verity_err *err)
{
	(void)v; (void)n;
	return corruption(t, VI_CORRUPT_PANIC, seen, err);
}

static int ioerror(struct vi_target *t, enum vi_ioerror e, uint32_t *seen,
		   struct verity_err *err)
{
	if ((*seen & SEEN_IOERROR) && t->ioerror != e)
		return vi_err(err, "both restart-on-error and panic-on-error");
	t->ioerror = e;
	*seen |= SEEN_IOERROR;
	return 0;
}

static int w_restart_on_error(struct vi_target *t, const char *v, size_t n, uint32_t *seen,
			      struct verity_err *err)
{
	(void)v; (void)n;
	return ioerror(t, VI_IOERR_RESTART, seen, err);
}

static int w_panic_on_error(struct vi_target *t, const char *v, size_t n, uint32_t *seen,
			    struct verity_err *err)
{
	(void)v; (void)n;
	return ioerror(t, VI_IOERR_PANIC, seen, err);
}

static int w_ignore_zero_blocks(struct vi_target *t, const char *v, size_t n, uint32_t *seen,
				struct verity_err *err)
{
	(void)v; (void)n; (void)seen; (void)err;
	t->ignore_zero_blocks = true;
	return 0;
}

static int w_check_at_most_once(struct vi_target *t, const char *v, size_t n, uint32_t *seen,
				struct verity_err *err)
{
	(void)v; (void)n; (void)seen; (void)err;
	t->check_at_most_once = true;
	return 0;
}

/* veritytab words for the unit (systemd's generator reads them; veritysetup skips them) */
static int w_unit_word(struct vi_target *t, const char *v, size_t n, uint32_t *seen,
		       struct verity_err *err)
{
	(void)t; (void)v; (void)n; (void)seen; (void)err;
	return 0;
}

static int w_signature(struct vi_target *t, const char *v, size_t n, uint32_t *seen,
		       struct verity_err *err)
{
	int r;

	r = vi_sig_location_check(v, n, err);
	if (r < 0)
		return r;
	if ((*seen & SEEN_SIG) &&
	    (strlen(t->sig_path) != n || memcmp(t->sig_path, v, n) != 0))
		return twice(err, "root-hash-signature");
	r = vi_strlcpy_exact(t->sig_path, sizeof(t->sig_path), v, n);
	if (r < 0)
		return bad_value(err, "root-hash-signature", v, n, "too long");
	*seen |= SEEN_SIG;
	return 0;
}

static const struct word words[] = {
	{ "superblock",            true,  w_superblock },
	{ "format",                true,  w_format },
	{ "data-block-size",       true,  w_data_bs },
	{ "hash-block-size",       true,  w_hash_bs },
	{ "data-blocks",           true,  w_data_blocks },
	{ "hash-offset",           true,  w_hash_offset },
	{ "salt",                  true,  w_salt },
	{ "uuid",                  true,  w_uuid },
	{ "hash",                  true,  w_hash },
	{ "fec-device",            true,  w_fec_device },
	{ "fec-offset",            true,  w_fec_offset },
	{ "fec-roots",             true,  w_fec_roots },
	{ "ignore-corruption",     false, w_ignore_corruption },
	{ "restart-on-corruption", false, w_restart_on_corruption },
	{ "panic-on-corruption",   false, w_panic_on_corruption },
	{ "restart-on-error",      false, w_restart_on_error },
	{ "panic-on-error",        false, w_panic_on_error },
	{ "ignore-zero-blocks",    false, w_ignore_zero_blocks },
	{ "check-at-most-once",    false, w_check_at_most_once },
	{ "root-hash-signature",   true,  w_signature },
	{ "nofail",                false, w_unit_word },
	{ "noauto",                false, w_unit_word },
	{ "_netdev",               false, w_unit_word },
	{ "x-initrd.attach",       false, w_unit_word },
};

static int apply_word(struct vi_target *t, const char *w, size_t n, uint32_t *seen,
		      struct verity_err *err)
{
	const char *eq = memchr(w, '=', n);
	size_t klen = eq ? (size_t)(eq - w) : n;
	char s[64];

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strlen(words[i].name) != klen || memcmp(words[i].name, w, klen) != 0)
			continue;
		if (words[i].has_value && !eq)
			return vi_err(err, "option '%s' needs a value (%s=...)", words[i].name,
				      words[i].name);
		if (!words[i].has_value && eq)
			return vi_err(err, "option '%s' takes no value", words[i].name);
		if (eq)
			return words[i].apply(t, eq + 1, n - klen - 1, seen, err);
		return words[i].apply(t, NULL, 0, seen, err);
	}
	vi_sanitize(w, n, s, sizeof(s));
	return vi_err(err, "unknown verity option '%s'", s);
}

int vi_vopts_parse(const char *s, size_t len, struct vi_target *t, struct verity_err *err)
{
	uint32_t seen = 0;
	size_t start = 0;

	if (len > VI_MAX_OPTIONS)
		return vi_err(err, "verity options longer than %u bytes", VI_MAX_OPTIONS);
	if (!vi_str_printable(s, len))
		return vi_err(err, "verity options contain control characters");
	/* Words already set on t (by an earlier call) count as seen. */
	if (t->fec.spec[0])
		seen |= SEEN_FEC_DEVICE;
	if (t->sig_path[0])
		seen |= SEEN_SIG;
	if (t->corruption != VI_CORRUPT_EIO)
		seen |= SEEN_CORRUPTION;
	if (t->ioerror != VI_IOERR_EIO)
		seen |= SEEN_IOERROR;
	if (len == 0)
		return 0;
	for (size_t i = 0; i <= len; i++) {
		int r;

		if (i < len && s[i] != ',')
			continue;
		if (i > start) {
			r = apply_word(t, s + start, i - start, &seen, err);
			if (r < 0)
				return r;
		}
		start = i + 1;
	}
	return 0;
}

/* Append to out with a separating comma; -ENOBUFS when it does not fit. */
__attribute__((format(printf, 4, 5)))
static int add(char *out, size_t size, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*pos && *pos + 1 < size) {
		out[(*pos)++] = ',';
		out[*pos] = '\0';
	} else if (*pos) {
		return -ENOBUFS;
	}
	va_start(ap, fmt);
	n = vsnprintf(out + *pos, size - *pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size - *pos)
		return -ENOBUFS;
	*pos += (size_t)n;
	return 0;
}

int vi_vopts_format(const struct vi_target *t, char *out, size_t out_size)
{
	const struct verity_params *p = &t->params;
	/* Without a superblock every parameter matters: print them all once they are filled in
	 * (lib/cmdline.c fills veritysetup's defaults); before that, only what was given. */
	bool all = !t->superblock && p->data_block_size && p->hash_block_size && p->hash_name[0];
	size_t pos = 0;
	int r = 0;

	if (out_size == 0)
		return -ENOBUFS;
	out[0] = '\0';
	if ((t->given & VI_GIVEN_SUPERBLOCK) || !t->superblock)
		r = r ?: add(out, out_size, &pos, "superblock=%s", t->superblock ? "true" : "false");
	if (all || (t->given & VI_GIVEN_FORMAT))
		r = r ?: add(out, out_size, &pos, "format=%u", p->hash_type);
	if (all || (t->given & VI_GIVEN_DATA_BS))
		r = r ?: add(out, out_size, &pos, "data-block-size=%u", p->data_block_size);
	if (all || (t->given & VI_GIVEN_HASH_BS))
		r = r ?: add(out, out_size, &pos, "hash-block-size=%u", p->hash_block_size);
	if ((all && p->data_blocks) || (t->given & VI_GIVEN_DATA_BLOCKS))
		r = r ?: add(out, out_size, &pos, "data-blocks=%llu",
			     (unsigned long long)p->data_blocks);
	if (all || (t->given & VI_GIVEN_HASH_OFFSET))
		r = r ?: add(out, out_size, &pos, "hash-offset=%llu",
			     (unsigned long long)p->hash_offset);
	if (all || (t->given & VI_GIVEN_SALT)) {
		char hex[2 * VERITY_MAX_SALT + 1];

		if (p->salt_size == 0)
			r = r ?: add(out, out_size, &pos, "salt=-");
		else if (hex_encode(p->salt, p->salt_size, hex, sizeof(hex)) < 0)
			r = r ?: -ENOBUFS;
		else
			r = r ?: add(out, out_size, &pos, "salt=%s", hex);
	}
	if (t->given & VI_GIVEN_UUID) {
		char u[VERITY_UUID_STR_LEN + 1];

		verity_uuid_format(p->uuid, u);
		r = r ?: add(out, out_size, &pos, "uuid=%s", u);
	}
	if (all || (t->given & VI_GIVEN_HASH_NAME))
		r = r ?: add(out, out_size, &pos, "hash=%s", p->hash_name);
	if (t->fec.spec[0])
		r = r ?: add(out, out_size, &pos, "fec-device=%s", t->fec.spec);
	if (t->given & VI_GIVEN_FEC_OFFSET)
		r = r ?: add(out, out_size, &pos, "fec-offset=%llu",
			     (unsigned long long)t->fec_offset);
	if (t->given & VI_GIVEN_FEC_ROOTS)
		r = r ?: add(out, out_size, &pos, "fec-roots=%u", t->fec_roots);
	switch (t->corruption) {
	case VI_CORRUPT_IGNORE:
		r = r ?: add(out, out_size, &pos, "ignore-corruption");
		break;
	case VI_CORRUPT_RESTART:
		r = r ?: add(out, out_size, &pos, "restart-on-corruption");
		break;
	case VI_CORRUPT_PANIC:
		r = r ?: add(out, out_size, &pos, "panic-on-corruption");
		break;
	case VI_CORRUPT_EIO:
		break;
	}
	if (t->ioerror == VI_IOERR_RESTART)
		r = r ?: add(out, out_size, &pos, "restart-on-error");
	else if (t->ioerror == VI_IOERR_PANIC)
		r = r ?: add(out, out_size, &pos, "panic-on-error");
	if (t->ignore_zero_blocks)
		r = r ?: add(out, out_size, &pos, "ignore-zero-blocks");
	if (t->check_at_most_once)
		r = r ?: add(out, out_size, &pos, "check-at-most-once");
	if (t->sig_path[0])
		r = r ?: add(out, out_size, &pos, "root-hash-signature=%s", t->sig_path);
	if (r < 0)
		out[0] = '\0';
	return r;
}
