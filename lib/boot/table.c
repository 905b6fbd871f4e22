// SPDX-License-Identifier: LGPL-2.1-or-later
/* Build and compare dm-verity table lines (Documentation/admin-guide/device-mapper/verity.rst):
 *   <version> <data dev> <hash dev> <data bs> <hash bs> <#data blocks> <hash start>
 *   <algorithm> <root digest> <salt|-> [<#opt args> <opt args>...]                          */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/sysmacros.h>

#include "hex.h"
#include "table.h"

#define TABLE_MAX_TOKENS 40u   /* 10 positional + count + at most 5+8+2 option words */

uint64_t vi_table_sectors(const struct vi_table *t)
{
	uint64_t per_block = t->p.data_block_size / 512u;

	if (!per_block || t->p.data_block_size % 512u || !t->p.data_blocks)
		return 0;
	if (t->p.data_blocks > UINT64_MAX / per_block)
		return 0;
	return t->p.data_blocks * per_block;
}

/* Append formatted text; sets *overflow when out is too small. */
__attribute__((format(printf, 5, 6)))
static void emit(char *out, size_t out_size, size_t *pos, bool *overflow, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(out + *pos, out_size - *pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= out_size - *pos) {
		*overflow = true;
		return;
	}
	*pos += (size_t)n;
}

static bool key_desc_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

int vi_table_build(const struct vi_table *t, char *out, size_t out_size, struct vi_error *err)
{
	char root_hex[2 * VERITY_MAX_DIGEST + 1];
	char salt_hex[2 * VERITY_MAX_SALT + 1];
	unsigned nopt = 0;
	size_t pos = 0;
	bool overflow = false;
	unsigned dsize = vi_digest_size(t->p.hash_name);

	if (!out_size)
		return -ENOBUFS;
	if (!dsize || t->root_hash_len != dsize)
		return vi_err(err, "root hash length does not match the hash algorithm");
	if (t->p.hash_type > 1 || !vi_table_sectors(t) || t->p.salt_size > VERITY_MAX_SALT)
		return vi_err(err, "invalid verity parameters for a table");
	if (t->fec && (t->fec_roots < 2 || t->fec_roots > 24 || !t->fec_blocks))
		return vi_err(err, "FEC needs fec_roots in 2..24 and a non-zero block count");
	if (t->sig_key_desc[0] && !key_desc_ok(t->sig_key_desc))
		return vi_err(err,
			      "signature key description contains blanks or control characters");
	if (vi_hex_encode(t->root_hash, t->root_hash_len, root_hex, sizeof(root_hex)) < 0)
		return -EINVAL;
	if (t->p.salt_size) {
		if (vi_hex_encode(t->p.salt, t->p.salt_size, salt_hex, sizeof(salt_hex)) < 0)
			return -EINVAL;
	} else {
		strcpy(salt_hex, "-");
	}

	emit(out, out_size, &pos, &overflow, "%u %u:%u %u:%u %u %u %" PRIu64 " %" PRIu64 " %s %s %s",
	     t->p.hash_type, major(t->data_dev), minor(t->data_dev), major(t->hash_dev),
	     minor(t->hash_dev), t->p.data_block_size, t->p.hash_block_size, t->p.data_blocks,
	     t->hash_start, t->p.hash_name, root_hex, salt_hex);

	nopt += t->opts.corruption != VI_CORRUPT_EIO;
	nopt += t->opts.ioerror != VI_IOERR_EIO;
	nopt += t->opts.ignore_zero_blocks;
	nopt += t->opts.check_at_most_once;
	nopt += t->try_verify_in_tasklet;
	nopt += t->fec ? 8u : 0u;
	nopt += t->sig_key_desc[0] ? 2u : 0u;
	if (nopt) {
		static const char *const corruption[] = {
			[VI_CORRUPT_IGNORE] = "ignore_corruption",
			[VI_CORRUPT_RESTART] = "restart_on_corruption",
			[VI_CORRUPT_PANIC] = "panic_on_corruption",
		};

		emit(out, out_size, &pos, &overflow, " %u", nopt);
		if (t->opts.corruption != VI_CORRUPT_EIO)
			emit(out, out_size, &pos, &overflow, " %s",
			     corruption[t->opts.corruption]);
		if (t->opts.ioerror != VI_IOERR_EIO)
			emit(out, out_size, &pos, &overflow, " %s",
			     t->opts.ioerror == VI_IOERR_RESTART ? "restart_on_error" :
								   "panic_on_error");
		if (t->opts.ignore_zero_blocks)
			emit(out, out_size, &pos, &overflow, " ignore_zero_blocks");
		if (t->opts.check_at_most_once)
			emit(out, out_size, &pos, &overflow, " check_at_most_once");
		if (t->try_verify_in_tasklet)
			emit(out, out_size, &pos, &overflow, " try_verify_in_tasklet");
		if (t->fec)
			emit(out, out_size, &pos, &overflow,
			     " use_fec_from_device %u:%u fec_blocks %" PRIu64 " fec_start %" PRIu64
			     " fec_roots %u", major(t->fec_dev), minor(t->fec_dev), t->fec_blocks,
			     t->fec_start, t->fec_roots);
		if (t->sig_key_desc[0])
			emit(out, out_size, &pos, &overflow, " root_hash_sig_key_desc %s",
			     t->sig_key_desc);
	}
	if (overflow)
		return vi_errno(err, -ENOBUFS, "verity table does not fit the buffer");
	return 0;
}

/* Split a copy of s on blanks. Returns the token count, or -1 when there are too many. */
static int tokenize(char *s, char *tok[], unsigned max)
{
	unsigned n = 0;
	char *save = NULL;

	for (char *p = strtok_r(s, " \t\n", &save); p; p = strtok_r(NULL, " \t\n", &save)) {
		if (n == max)
			return -1;
		tok[n++] = p;
	}
	return (int)n;
}

/* Number of values an optional argument word takes. */
static unsigned opt_values(const char *word)
{
	static const char *const one[] = { "use_fec_from_device", "fec_blocks", "fec_start",
					   "fec_roots", "root_hash_sig_key_desc" };

	for (size_t i = 0; i < sizeof(one) / sizeof(one[0]); i++)
		if (!strcasecmp(word, one[i]))
			return 1;
	return 0;
}

/* Join optional arguments into "word value" groups so they compare as units. */
static int opt_groups(char *tok[], int ntok, char groups[][160], unsigned max)
{
	unsigned n = 0;

	for (int i = 0; i < ntok; i++) {
		unsigned v = opt_values(tok[i]);
		int len;

		if (n == max || i + (int)v >= ntok)
			return -1;
		len = v ? snprintf(groups[n], 160, "%s %s", tok[i], tok[i + 1])
			: snprintf(groups[n], 160, "%s", tok[i]);
		if (len < 0 || len >= 160)
			return -1;
		for (char *c = groups[n]; *c; c++)
			if (*c >= 'A' && *c <= 'Z')
				*c = (char)(*c - 'A' + 'a');
		n++;
		i += (int)v;
	}
	return (int)n;
}

static int cmp_group(const void *a, const void *b)
{
	return strcmp(a, b);
}

bool vi_table_equal(const char *a, const char *b)
{
	char ca[VI_TABLE_MAX], cb[VI_TABLE_MAX];
	char *ta[TABLE_MAX_TOKENS], *tb[TABLE_MAX_TOKENS];
	char ga[TABLE_MAX_TOKENS][160], gb[TABLE_MAX_TOKENS][160];
	int na, nb, gna, gnb;

	if (snprintf(ca, sizeof(ca), "%s", a) >= (int)sizeof(ca) ||
	    snprintf(cb, sizeof(cb), "%s", b) >= (int)sizeof(cb))
		return false;
	na = tokenize(ca, ta, TABLE_MAX_TOKENS);
	nb = tokenize(cb, tb, TABLE_MAX_TOKENS);
	if (na < 10 || nb < 10)
		return false;
	for (int i = 0; i < 10; i++)
		if (strcasecmp(ta[i], tb[i]))
			return false;
	/* no options on one side: the other must have none (or a count of 0) */
	gna = na > 10 ? opt_groups(ta + 11, na - 11, ga, TABLE_MAX_TOKENS) : 0;
	gnb = nb > 10 ? opt_groups(tb + 11, nb - 11, gb, TABLE_MAX_TOKENS) : 0;
	if (gna < 0 || gnb < 0 || gna != gnb)
		return false;
	if ((na > 10 && strtoul(ta[10], NULL, 10) != (unsigned long)(na - 11)) ||
	    (nb > 10 && strtoul(tb[10], NULL, 10) != (unsigned long)(nb - 11)))
		return false;
	qsort(ga, (size_t)gna, sizeof(ga[0]), cmp_group);
	qsort(gb, (size_t)gnb, sizeof(gb[0]), cmp_group);
	for (int i = 0; i < gna; i++)
		if (strcmp(ga[i], gb[i]))
			return false;
	return true;
}
