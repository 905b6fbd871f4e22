// SPDX-License-Identifier: LGPL-2.1-or-later
/* The DPS verity-signature JSON object: see include/dps_sig.h for the accepted grammar. */
#include "dps_sig.h"

#include <errno.h>
#include <string.h>

#include "base64.h"
#include "hex.h"
#include "strutil.h"

struct cur {
	const char *p;
	const char *end;
};

static void skip_ws(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
		c->p++;
}

static bool eat(struct cur *c, char ch)
{
	skip_ws(c);
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

/* A string of printable ASCII without escapes. */
static int string(struct cur *c, const char **ret, size_t *ret_len)
{
	const char *s;

	if (!eat(c, '"'))
		return -EINVAL;
	s = c->p;
	while (c->p < c->end && *c->p != '"') {
		unsigned char ch = (unsigned char)*c->p;

		if (ch < 0x20 || ch > 0x7e || ch == '\\')
			return -EINVAL;
		c->p++;
	}
	if (c->p >= c->end)
		return -EINVAL;
	*ret = s;
	*ret_len = (size_t)(c->p - s);
	c->p++;
	return 0;
}

int vi_dps_sig_parse(const char *buf, size_t len, struct vi_dps_sig *ret, struct vi_error *err)
{
	enum { ROOT = 1u, FPR = 2u, SIG = 4u };
	struct cur c = { buf, buf + len };
	const char *nul;
	unsigned seen = 0;
	size_t n;

	if (len > VI_DPS_SIG_MAX) {
		vi_err(err, "signature partition data larger than %u bytes", VI_DPS_SIG_MAX);
		return -E2BIG;
	}
	/* As systemd: the object ends at the first NUL, and only NULs may follow it. */
	nul = memchr(buf, '\0', len);
	if (nul) {
		for (const char *p = nul; p < buf + len; p++)
			if (*p)
				return vi_err(err, "signature JSON: data after the NUL padding");
		c.end = nul;
	}
	if (!eat(&c, '{'))
		return vi_err(err, "signature JSON: not an object");
	do {
		const char *k, *v;
		size_t klen, vlen;
		unsigned bit;

		if (string(&c, &k, &klen) < 0 || !eat(&c, ':') || string(&c, &v, &vlen) < 0)
			return vi_err(err, "signature JSON: expected \"key\":\"value\"");
		if (vi_str_eq(k, klen, "rootHash"))
			bit = ROOT;
		else if (vi_str_eq(k, klen, "certificateFingerprint"))
			bit = FPR;
		else if (vi_str_eq(k, klen, "signature"))
			bit = SIG;
		else
			return vi_err(err, "signature JSON: unknown key");
		if (seen & bit)
			return vi_err(err, "signature JSON: key given twice");
		seen |= bit;
		switch (bit) {
		case ROOT:
			if (vi_hex_decode(v, vlen, ret->root_hash, sizeof(ret->root_hash), &n) < 0 ||
			    n < 16)
				return vi_err(err, "signature JSON: rootHash is not a hex root hash");
			ret->root_hash_len = (unsigned)n;
			break;
		case FPR:
			if (vi_hex_decode(v, vlen, ret->fingerprint, sizeof(ret->fingerprint), &n) < 0 ||
			    n != sizeof(ret->fingerprint))
				return vi_err(err, "signature JSON: certificateFingerprint is not a "
					      "SHA-256 in hex");
			ret->has_fingerprint = true;
			break;
		default:
			if (vi_b64_decode(v, vlen, ret->sig, sizeof(ret->sig), &n) < 0)
				return vi_err(err, "signature JSON: signature is not base64 of at most "
					      "%u bytes", VI_P7S_MAX);
			ret->sig_len = n;
			if (vi_p7s_check(ret->sig, n, err) < 0)
				return -EINVAL;
			break;
		}
	} while (eat(&c, ','));
	if (!eat(&c, '}'))
		return vi_err(err, "signature JSON: expected ',' or '}'");
	skip_ws(&c);
	if (c.p != c.end)
		return vi_err(err, "signature JSON: data after the object");
	if (!(seen & ROOT) || !(seen & SIG))
		return vi_err(err, "signature JSON: rootHash or signature missing");
	if (!(seen & FPR))
		ret->has_fingerprint = false;
	return 0;
}
