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
#include <string.h>

#include "hex.h"
#include "params.h"
#include "strutil.h"

static int bad_value(struct vi_error *err, const char *name, const char *v, size_t n,
		     const char *why)
{
	char s[64];

	vi_sanitize(v, n, s, sizeof(s));
	return vi_err(err, "option %s=%s: %s", name, s, why);
}

/* The value v[0..n) of word p into *ret, in veritytab's syntax (the grammar above); the reason
 * of a refusal in *why. */
static int read_value(enum vi_param p, const char *v, size_t n, struct vi_param_value *ret,
		      uint8_t *buf, char *spec, const char **why, struct vi_error *err)
{
	bool b = false;
	size_t len = 0;
	int r;

	*why = vi_param_range(p);   /* a value that is no number is out of range */
	switch (p) {
	case VI_PARAM_SUPERBLOCK:
		*why = "not a boolean";
		if (vi_parse_bool(v, n, &b) < 0)
			return -EINVAL;
		ret->num = b;
		return 0;
	case VI_PARAM_FORMAT:
	case VI_PARAM_DATA_BLOCKS:
	case VI_PARAM_FEC_ROOTS:
		return vi_parse_u64_c(v, n, &ret->num) < 0 ? -EINVAL : 0;
	case VI_PARAM_DATA_BS:
	case VI_PARAM_HASH_BS:
		return vi_parse_size(v, n, &ret->num) < 0 ? -EINVAL : 0;
	case VI_PARAM_HASH_OFFSET:
	case VI_PARAM_FEC_OFFSET:
		*why = "not a size in bytes";
		return vi_parse_size(v, n, &ret->num) < 0 ? -EINVAL : 0;
	case VI_PARAM_SALT:
		ret->s = buf;
		ret->len = 0;
		if (n == 1 && v[0] == '-')
			return 0;
		r = vi_hex_decode(v, n, buf, VERITY_MAX_SALT, &ret->len);
		*why = r == -ENOBUFS ? "longer than 256 bytes" : "not hex (use '-' for no salt)";
		return r < 0 || n == 0 ? -EINVAL : 0;
	case VI_PARAM_UUID: {
		char tmp[VERITY_UUID_STR_LEN + 1];

		*why = "not a UUID (8-4-4-4-12 hex digits, or 32)";
		ret->s = buf;
		ret->len = 16;
		/* systemd also takes the 32 hex digits without dashes (sd_id128_from_string) */
		if (n == 32 && vi_hex_decode(v, n, buf, 16, &len) == 0 && len == 16)
			return 0;
		if (vi_strlcpy_exact(tmp, sizeof(tmp), v, n) < 0 || vi_uuid_parse(tmp, buf) < 0)
			return -EINVAL;
		return 0;
	}
	case VI_PARAM_FEC_DEVICE:
		r = vi_devspec_chars_check("fec-device", v, n, err);
		if (r < 0)
			return r;
		r = vi_devspec_normalize(v, n, spec, VI_MAX_PATH, &len);
		if (r < 0) {
			*why = r == -ENAMETOOLONG ? "too long" : VI_DEVSPEC_LINK_ERR;
			return -EINVAL;
		}
		r = vi_devspec_check(spec, len, false, err);
		if (r < 0)
			return r;
		ret->s = spec;
		ret->len = len;
		return 0;
	case VI_PARAM_SIGNATURE:
		r = vi_sig_location_check(v, n, err);
		if (r < 0)
			return r;
		ret->s = v;
		ret->len = n;
		return 0;
	default:
		ret->s = v;
		ret->len = n;
		return 0;
	}
}

/* veritytab words for the unit (systemd's generator reads them; veritysetup skips them) */
static bool unit_word(const char *w, size_t n)
{
	static const char *const words[] = { "nofail", "noauto", "_netdev", "x-initrd.attach" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (vi_str_eq(w, n, words[i]))
			return true;
	return false;
}

/* A word that names a corruption or I/O-error mode: its parameter, *num the mode; else -1. */
static int mode_word(const char *w, size_t n, uint64_t *num)
{
	enum vi_corruption c;
	enum vi_ioerror e;

	if (vi_corruption_lookup(w, n, VI_SPELL_VOPTS, &c) == 0) {
		*num = c;
		return VI_PARAM_CORRUPTION;
	}
	if (vi_ioerror_lookup(w, n, VI_SPELL_VOPTS, &e) == 0) {
		*num = e;
		return VI_PARAM_IOERROR;
	}
	return -1;
}

static int apply_word(struct vi_target *t, const char *w, size_t n, struct vi_error *err)
{
	const char *eq = memchr(w, '=', n), *v = eq ? eq + 1 : NULL, *why = NULL, *name;
	size_t klen = eq ? (size_t)(eq - w) : n, vlen = eq ? n - klen - 1 : 0;
	uint8_t buf[VERITY_MAX_SALT];
	char spec[VI_MAX_PATH], s[64];
	struct vi_param_value val = { .num = 1 };
	int p, r;

	p = mode_word(w, klen, &val.num);
	if (p < 0)
		p = vi_param_lookup(w, klen, VI_SPELL_VOPTS);
	if (p < 0 && unit_word(w, klen)) {
		if (eq)
			return vi_err(err, "option '%.*s' takes no value", (int)klen, w);
		return 0;
	}
	if (p < 0) {
		vi_sanitize(w, n, s, sizeof(s));
		return vi_err(err, "unknown verity option '%s'", s);
	}
	name = p == VI_PARAM_CORRUPTION || p == VI_PARAM_IOERROR ?
	       "" : vi_param_name((enum vi_param)p, VI_SPELL_VOPTS);
	if (vi_param_has_value((enum vi_param)p)) {
		if (!eq)
			return vi_err(err, "option '%s' needs a value (%s=...)", name, name);
		r = read_value((enum vi_param)p, v, vlen, &val, buf, spec, &why, err);
		if (r < 0)
			return why ? bad_value(err, name, v, vlen, why) : r;
	} else if (eq) {
		return vi_err(err, "option '%.*s' takes no value", (int)klen, w);
	}
	r = vi_target_set(t, (enum vi_param)p, &val);
	if (r == -EEXIST && p == VI_PARAM_CORRUPTION)
		return vi_err(err, "more than one of ignore-corruption, restart-on-corruption, "
			      "panic-on-corruption");
	if (r == -EEXIST && p == VI_PARAM_IOERROR)
		return vi_err(err, "both restart-on-error and panic-on-error");
	if (r == -EEXIST)
		return vi_err(err, "option '%s' given twice with different values", name);
	if (r == -ERANGE && p == VI_PARAM_HASH)
		return bad_value(err, name, v, vlen, "unknown hash algorithm");
	if (r == -ERANGE)
		return bad_value(err, name, v, vlen, vi_param_range_check((enum vi_param)p, val.num));
	if (r < 0)
		return bad_value(err, name, v, vlen, "too long");
	return 0;
}

int vi_vopts_parse(const char *s, size_t len, struct vi_target *t, struct vi_error *err)
{
	size_t start = 0;

	if (len > VI_MAX_OPTIONS)
		return vi_err(err, "verity options longer than %u bytes", VI_MAX_OPTIONS);
	if (!vi_str_printable(s, len))
		return vi_err(err, "verity options contain control characters");
	if (len == 0)
		return 0;
	for (size_t i = 0; i <= len; i++) {
		int r;

		if (i < len && s[i] != ',')
			continue;
		if (i > start) {
			r = apply_word(t, s + start, i - start, err);
			if (r < 0)
				return r;
		}
		start = i + 1;
	}
	return 0;
}

/* The order vi_vopts_format writes the words in. */
static const enum vi_param format_order[] = {
	VI_PARAM_SUPERBLOCK, VI_PARAM_FORMAT, VI_PARAM_DATA_BS, VI_PARAM_HASH_BS,
	VI_PARAM_DATA_BLOCKS, VI_PARAM_HASH_OFFSET, VI_PARAM_SALT, VI_PARAM_UUID, VI_PARAM_HASH,
	VI_PARAM_FEC_DEVICE, VI_PARAM_FEC_OFFSET, VI_PARAM_FEC_ROOTS, VI_PARAM_CORRUPTION,
	VI_PARAM_IOERROR, VI_PARAM_ZERO_BLOCKS, VI_PARAM_CHECK_ONCE, VI_PARAM_SIGNATURE,
};

/* What a superblock would say: written out whole for a target without one. */
#define SUPERBLOCK_PARAMS (VI_GIVEN_FORMAT | VI_GIVEN_DATA_BS | VI_GIVEN_HASH_BS | \
			   VI_GIVEN_DATA_BLOCKS | VI_GIVEN_HASH_OFFSET | VI_GIVEN_SALT | \
			   VI_GIVEN_HASH_NAME)

int vi_vopts_format(const struct vi_target *t, char *out, size_t out_size)
{
	const struct vi_params *p = &t->params;
	/* Without a superblock every parameter matters: print them all once they are filled in
	 * (lib/config/cmdline_resolve.c fills veritysetup's defaults); before that, only what was given. */
	bool all = !t->superblock && p->data_block_size && p->hash_block_size && p->hash_name[0];
	uint32_t show = vi_target_given(t);
	size_t pos = 0;
	int r = 0;

	if (out_size == 0)
		return -ENOBUFS;
	out[0] = '\0';
	if (all)
		show |= SUPERBLOCK_PARAMS & ~(p->data_blocks ? 0u : VI_GIVEN_DATA_BLOCKS);
	if (!t->superblock)
		show |= VI_GIVEN_SUPERBLOCK;
	for (size_t i = 0; i < sizeof(format_order) / sizeof(format_order[0]) && r == 0; i++)
		if (show & VI_PARAM_BIT(format_order[i]))
			r = vi_param_format(t, format_order[i], VI_SPELL_VOPTS, out, out_size, &pos);
	if (r < 0)
		out[0] = '\0';
	return r;
}
