// SPDX-License-Identifier: LGPL-2.1-or-later
/* dm-mod.create= for one verity device.
 *
 * Grammar (dm-init.rst, restricted; whitespace around the first four fields is skipped):
 *   value   := name "," uuid "," minor "," flags "," table
 *   name    := mapping name ([A-Za-z0-9][A-Za-z0-9._-]*, < 64, not "control")
 *   uuid    := "" | printable word without spaces or commas, < 129 (DM_UUID_LEN)
 *   minor   := "" | decimal <= VI_DM_MAX_MINOR
 *   flags   := "ro"                       ("rw": verity devices are read-only)
 *   table   := start length "verity" version dev hash_dev data_bs hash_bs
 *              num_data_blocks hash_start_block alg digest salt [#opt opt_params...]
 *   start   := "0"                        (one target covering the device)
 *   length  := sectors, 1 .. num_data_blocks * data_bs / 512
 *   version := 0 | 1
 *   dev     := /dev/... | MAJ:MIN | UUID= | PARTUUID= | LABEL= | PARTLABEL=
 *   salt    := hex | "-"
 *   opt_params (exactly #opt words): ignore_corruption | restart_on_corruption |
 *     panic_on_corruption | restart_on_error | panic_on_error | ignore_zero_blocks |
 *     check_at_most_once | try_verify_in_tasklet | use_fec_from_device dev |
 *     fec_roots n | fec_blocks n | fec_start n | root_hash_sig_key_desc desc
 * Refused: a second table (","), a second device (";"), any other target type, trailing words,
 * numbers with anything but decimal digits, repeated options with different values. */
#include "dminit.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hex.h"
#include "params.h"
#include "strutil.h"
#include "vopts.h"

struct span {
	const char *s;
	size_t n;
};

static bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static struct span trim(const char *s, size_t n)
{
	while (n && is_space(*s)) {
		s++;
		n--;
	}
	while (n && is_space(s[n - 1]))
		n--;
	return (struct span){ s, n };
}

static bool word_is(struct span w, const char *lit)
{
	return strlen(lit) == w.n && memcmp(w.s, lit, w.n) == 0;
}

static int wfail(struct vi_error *err, const char *what, struct span w, const char *why)
{
	char v[80];

	vi_sanitize(w.s, w.n, v, sizeof(v));
	return vi_err(err, "dm-mod.create: %s '%s': %s", what, v, why);
}

static int num_with(int (*parse)(const char *, size_t, uint64_t *), const char *kind,
		    struct span w, const char *what, uint64_t *ret, struct vi_error *err)
{
	int r = parse(w.s, w.n, ret);

	if (r == -ERANGE)
		return wfail(err, what, w, "too large");
	if (r < 0)
		return wfail(err, what, w, kind);
	return 0;
}

/* the verity target's arguments are its sscanf("%u")s: decimal */
static int num64(struct span w, const char *what, uint64_t *ret, struct vi_error *err)
{
	return num_with(vi_parse_u64, "not a decimal number", w, what, ret, err);
}

/* dm-init's own numbers (start, length, minor) are kstrto*(s, 0): hex and octal too */
static int num64c(struct span w, const char *what, uint64_t *ret, struct vi_error *err)
{
	return num_with(vi_parse_u64_c, "not a number", w, what, ret, err);
}

static int num32(struct span w, const char *what, uint32_t *ret, struct vi_error *err)
{
	uint64_t v;
	int r = num64(w, what, &v, err);

	if (r < 0)
		return r;
	if (v > UINT32_MAX)
		return wfail(err, what, w, "too large");
	*ret = (uint32_t)v;
	return 0;
}

static int dev(struct span w, const char *what, struct vi_devspec *d, struct vi_error *err)
{
	struct vi_error e;
	int r = vi_devspec_chars_check(what, w.s, w.n, &e);

	if (r >= 0)
		r = vi_devspec_check(w.s, w.n, true, &e);

	if (r < 0)
		return vi_err(err, "dm-mod.create: %s: %s", what, e.msg);
	return vi_strlcpy_exact(d->spec, sizeof(d->spec), w.s, w.n) < 0 ?
	       wfail(err, what, w, "too long") : 0;
}

/* One optional parameter named in the table's spelling (w) with its argument a (has_arg)
 * into t, under the repeat rule; its own words for each refusal. */
static int opt_param(enum vi_param p, struct span w, struct span a, struct vi_target *t,
		     struct vi_error *err)
{
	const char *name = vi_param_name(p, VI_SPELL_TABLE);
	struct vi_devspec d;
	uint64_t v = 1;
	int r = 0;

	switch (p) {
	case VI_PARAM_FEC_DEVICE:
		r = dev(a, name, &d, err);
		if (r < 0)
			return r;
		r = vi_target_set_str(t, p, d.spec, strlen(d.spec));
		return r == -EEXIST ? wfail(err, name, a, "given twice") : r;
	case VI_PARAM_FEC_ROOTS:
	case VI_PARAM_FEC_BLOCKS:
	case VI_PARAM_FEC_OFFSET:
		r = num64(a, name, &v, err);
		if (r < 0)
			return r;
		if (p == VI_PARAM_FEC_ROOTS && v > UINT32_MAX)
			return wfail(err, name, a, "too large");
		if (p == VI_PARAM_FEC_OFFSET) {
			/* In data blocks; the target keeps bytes like veritytab's fec-offset=. */
			if (v > UINT64_MAX / t->params.data_block_size)
				return wfail(err, name, a, "too large");
			v *= t->params.data_block_size;
		}
		r = vi_target_set_num(t, p, v);
		if (p == VI_PARAM_FEC_BLOCKS && r < 0)
			return wfail(err, name, a, "zero or given twice");
		if (r == -ERANGE)
			return wfail(err, name, a, vi_param_range(p));
		return r == -EEXIST ? wfail(err, name, a, "given twice") : r;
	default:
		/* the flags */
		(void)w;
		return vi_target_set_num(t, p, 1);
	}
}

/* Optional parameters; w[0..n) are exactly the #opt_params words. */
static int opt_params(const struct span *w, size_t n, struct vi_target *t,
		      struct vi_error *err)
{
	uint32_t fec = VI_PARAM_BIT(VI_PARAM_FEC_BLOCKS) | VI_PARAM_BIT(VI_PARAM_FEC_OFFSET) |
		       VI_PARAM_BIT(VI_PARAM_FEC_ROOTS);
	int r;

	for (size_t i = 0; i < n; i++) {
		struct span a = { NULL, 0 };
		enum vi_corruption c;
		enum vi_ioerror e;
		int p = vi_param_lookup(w[i].s, w[i].n, VI_SPELL_TABLE);
		bool key_desc = word_is(w[i], "root_hash_sig_key_desc");
		bool arg = (p >= 0 && vi_param_has_value((enum vi_param)p)) || key_desc;

		if (arg) {
			if (i + 1 >= n)
				return wfail(err, "option", w[i], "needs an argument");
			a = w[i + 1];
		}
		if (vi_corruption_lookup(w[i].s, w[i].n, VI_SPELL_TABLE, &c) == 0) {
			r = vi_target_set_num(t, VI_PARAM_CORRUPTION, c);
			if (r < 0)
				return vi_err(err, "dm-mod.create: more than one *_corruption option");
		} else if (vi_ioerror_lookup(w[i].s, w[i].n, VI_SPELL_TABLE, &e) == 0) {
			r = vi_target_set_num(t, VI_PARAM_IOERROR, e);
			if (r < 0)
				return vi_err(err, "dm-mod.create: both restart_on_error and "
					      "panic_on_error");
		} else if (word_is(w[i], "try_verify_in_tasklet")) {
			/* the kernel's alone: no other syntax has it */
			t->try_verify_in_tasklet = true;
		} else if (key_desc) {
			if (!vi_str_printable(a.s, a.n) || memchr(a.s, ',', a.n))
				return wfail(err, "root_hash_sig_key_desc", a, "bad characters");
			if (t->sig_key_desc[0] && (strlen(t->sig_key_desc) != a.n ||
						   memcmp(t->sig_key_desc, a.s, a.n) != 0))
				return wfail(err, "root_hash_sig_key_desc", a, "given twice");
			if (vi_strlcpy_exact(t->sig_key_desc, sizeof(t->sig_key_desc), a.s, a.n) < 0)
				return wfail(err, "root_hash_sig_key_desc", a, "too long");
		} else if (p >= 0) {
			r = opt_param((enum vi_param)p, w[i], a, t, err);
			if (r < 0)
				return r;
		} else {
			return wfail(err, "option", w[i], "unknown verity table option");
		}
		if (arg)
			i++;
	}
	if ((vi_target_given(t) & fec) && !t->fec.spec[0])
		return vi_err(err, "dm-mod.create: fec_* options without use_fec_from_device");
	return 0;
}

static int table(struct span tbl, struct vi_target *t, struct vi_error *err)
{
	struct span w[VI_DM_MAX_WORDS];
	struct vi_params *p = &t->params;
	struct vi_error e;
	uint64_t start, sectors, hash_start, nopt;
	size_t n = 0, i = 0, len;
	int r;

	while (i < tbl.n) {
		size_t b;

		while (i < tbl.n && is_space(tbl.s[i]))
			i++;
		if (i >= tbl.n)
			break;
		b = i;
		while (i < tbl.n && !is_space(tbl.s[i]))
			i++;
		if (n == VI_DM_MAX_WORDS)
			return vi_err(err, "dm-mod.create: more than %u words in the table",
				      VI_DM_MAX_WORDS);
		w[n++] = (struct span){ tbl.s + b, i - b };
	}
	if (n < 13)
		return vi_err(err, "dm-mod.create: a verity table needs 13 words: <start> <length> "
			      "verity <version> <dev> <hash_dev> <data_bs> <hash_bs> "
			      "<num_data_blocks> <hash_start> <alg> <digest> <salt>");
	if ((r = num64c(w[0], "start sector", &start, err)) < 0)
		return r;
	if (start != 0)
		return wfail(err, "start sector", w[0], "must be 0 (one target)");
	if ((r = num64c(w[1], "length", &sectors, err)) < 0)
		return r;
	if (!word_is(w[2], "verity"))
		return wfail(err, "target", w[2], "only the verity target is supported");
	if ((r = num32(w[3], "version", &p->hash_type, err)) < 0)
		return r;
	if (p->hash_type > 1)
		return wfail(err, "version", w[3], "must be 0 or 1");
	if ((r = dev(w[4], "data device", &t->data, err)) < 0)
		return r;
	if ((r = dev(w[5], "hash device", &t->hash, err)) < 0)
		return r;
	if ((r = num32(w[6], "data block size", &p->data_block_size, err)) < 0)
		return r;
	if ((r = num32(w[7], "hash block size", &p->hash_block_size, err)) < 0)
		return r;
	if ((r = num64(w[8], "number of data blocks", &p->data_blocks, err)) < 0)
		return r;
	if ((r = num64(w[9], "hash start block", &hash_start, err)) < 0)
		return r;
	if (vi_strlcpy_exact(p->hash_name, sizeof(p->hash_name), w[10].s, w[10].n) < 0 ||
	    vi_digest_size(p->hash_name) == 0)
		return wfail(err, "algorithm", w[10], "unknown hash algorithm");
	r = vi_hex_decode(w[11].s, w[11].n, t->root_hash, sizeof(t->root_hash), &len);
	if (r < 0 || len != vi_digest_size(p->hash_name))
		return wfail(err, "digest", w[11], "not hex of the algorithm's digest size");
	t->root_hash_len = (unsigned)len;
	if (word_is(w[12], "-")) {
		p->salt_size = 0;
	} else {
		r = vi_hex_decode(w[12].s, w[12].n, p->salt, sizeof(p->salt), &len);
		if (r < 0)
			return wfail(err, "salt", w[12], "not hex of at most 256 bytes, or '-'");
		p->salt_size = (uint16_t)len;
	}
	p->no_superblock = true;
	if (vi_params_validate(p, &e) < 0)
		return vi_err(err, "dm-mod.create: %s", e.msg);
	if (hash_start > UINT64_MAX / p->hash_block_size)
		return wfail(err, "hash start block", w[9], "too large");
	p->hash_offset = hash_start * p->hash_block_size;
	/* validate() guarantees data_blocks * data_block_size does not overflow. */
	if (sectors == 0 || sectors > p->data_blocks * (p->data_block_size / 512))
		return wfail(err, "length", w[1], "must be 1 .. num_data_blocks * data_bs / 512");
	t->dm_sectors = sectors;

	if (n > 13) {
		if ((r = num64(w[13], "#opt_params", &nopt, err)) < 0)
			return r;
		if (nopt != n - 14)
			return vi_err(err, "dm-mod.create: #opt_params is %llu but %zu words follow",
				      (unsigned long long)nopt, n - 14);
		r = opt_params(w + 14, n - 14, t, err);
		if (r < 0)
			return r;
	}
	t->given |= VI_GIVEN_HASH_NAME | VI_GIVEN_FORMAT | VI_GIVEN_DATA_BS | VI_GIVEN_HASH_BS |
		    VI_GIVEN_DATA_BLOCKS | VI_GIVEN_HASH_OFFSET | VI_GIVEN_SALT |
		    VI_GIVEN_SUPERBLOCK;
	return 0;
}

int vi_dm_create_parse(const char *s, size_t len, struct vi_target *ret, struct vi_error *err)
{
	struct span f[4];
	struct vi_target t;
	size_t pos = 0;
	int r;

	if (len > VI_MAX_CMDLINE)
		return vi_err(err, "dm-mod.create: too long");
	if (!vi_str_printable(s, len))
		return vi_err(err, "dm-mod.create: control characters");
	if (memchr(s, ';', len))
		return vi_err(err, "dm-mod.create: only one device is supported (';' found)");
	for (unsigned i = 0; i < 4; i++) {
		const char *c = memchr(s + pos, ',', len - pos);

		if (!c)
			return vi_err(err, "dm-mod.create: expected <name>,<uuid>,<minor>,<flags>,"
				      "<table>");
		f[i] = trim(s + pos, (size_t)(c - (s + pos)));
		pos = (size_t)(c - s) + 1;
	}
	if (memchr(s + pos, ',', len - pos))
		return vi_err(err, "dm-mod.create: only one table line is supported (',' found)");

	t = *ret;
	t.enabled = true;
	t.from_dm_create = true;
	t.superblock = false;
	if ((r = vi_name_check(f[0].s, f[0].n, err)) < 0)
		return r;
	memcpy(t.name, f[0].s, f[0].n);
	t.name[f[0].n] = '\0';
	if (f[1].n) {
		for (size_t i = 0; i < f[1].n; i++)
			if (f[1].s[i] == ' ' || f[1].s[i] == '\t')
				return wfail(err, "uuid", f[1], "contains spaces");
		if (vi_strlcpy_exact(t.dm_uuid, sizeof(t.dm_uuid), f[1].s, f[1].n) < 0)
			return wfail(err, "uuid", f[1], "too long");
	}
	t.dm_minor = -1;
	if (f[2].n) {
		uint64_t minor64 = 0;

		if (num64c(f[2], "minor", &minor64, err) < 0 || minor64 > VI_DM_MAX_MINOR)
			return wfail(err, "minor", f[2], "not a minor number");
		t.dm_minor = (int)minor64;
	}
	if (word_is(f[3], "rw"))
		return vi_err(err, "dm-mod.create: flags 'rw': a verity device is read-only, use ro");
	if (!word_is(f[3], "ro"))
		return wfail(err, "flags", f[3], "must be ro");
	r = table(trim(s + pos, len - pos), &t, err);
	if (r < 0)
		return r;
	*ret = t;
	return 0;
}
