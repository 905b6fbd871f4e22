// SPDX-License-Identifier: LGPL-2.1-or-later
/* Reed-Solomon RS(255, 255 - roots) over GF(2^8) for dm-verity's FEC (include/rs.h).
 *
 * The encoder is the textbook LFSR that divides message(x) × x^roots by the generator g(x): per
 * message symbol m, feedback f = m + s[0], shift the state one symbol, add f × g'(x). The
 * products f × g'(x) for all 256 values of f are one table of 256 × 24 bytes, and the state of
 * up to 24 parity bytes lives in three 64-bit words, so one symbol costs one table load and a
 * few shifts and XORs whatever the number of roots. */
#include "rs.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#define GF_POLY 0x11du   /* x^8 + x^4 + x^3 + x^2 + 1 (kernel, cryptsetup) */

/* Multiplication in GF(2^8) on the tables of rs (exp written twice over, so that
 * exp[log a + log b] needs no modulo), for the generator and the decoder alike. */
static inline uint8_t rs_mul(const struct vi_rs *rs, uint8_t a, uint8_t b)
{
	return a && b ? rs->exp[rs->log[a] + rs->log[b]] : 0;
}

int vi_rs_init(struct vi_rs *rs, unsigned roots)
{
	uint8_t g[VERITY_FEC_MAX_ROOTS + 1];   /* g[k]: coefficient of x^k of the generator */
	unsigned x = 1;

	if (roots < VERITY_FEC_MIN_ROOTS || roots > VERITY_FEC_MAX_ROOTS)
		return -EINVAL;
	memset(rs, 0, sizeof(*rs));
	rs->roots = roots;
	rs->words = (roots + 7) / 8;
	for (unsigned i = 0; i < 255; i++) {
		rs->exp[i] = (uint8_t)x;
		rs->exp[i + 255] = (uint8_t)x;
		rs->log[x] = (uint8_t)i;
		x <<= 1;           /* times alpha (= x), reduced by the field polynomial */
		if (x & 0x100)
			x ^= GF_POLY;
	}
	/* g(x) = (x + alpha^0)(x + alpha^1)...(x + alpha^(roots-1)): first consecutive root 0,
	 * primitive element 1 (cryptsetup's FEC_PARAMS, the kernel's init_rs(8, 0x11d, 0, 1)). */
	memset(g, 0, sizeof(g));
	g[0] = 1;
	for (unsigned i = 0; i < roots; i++) {
		uint8_t root = rs->exp[i];

		for (unsigned k = i + 1; k > 0; k--)
			g[k] = (uint8_t)(g[k - 1] ^ rs_mul(rs, g[k], root));
		g[0] = rs_mul(rs, g[0], root);
	}
	/* State byte j is the coefficient of x^(roots-1-j) of the remainder; the feedback f
	 * adds f × g[roots-1-j] to it after the shift. */
	for (unsigned fb = 0; fb < 256; fb++)
		for (unsigned j = 0; j < roots; j++)
			rs->lfsr[fb][j / 8] |=
				(uint64_t)rs_mul(rs, (uint8_t)fb, g[roots - 1 - j]) << (8 * (j % 8));
	return 0;
}

/* a × alpha^e, e < 255 */
static inline uint8_t rs_mul_pow(const struct vi_rs *rs, uint8_t a, unsigned e)
{
	return a ? rs->exp[rs->log[a] + e] : 0;
}

/* p(alpha^e) for p[0] + p[1] x + ... + p[n-1] x^(n-1) */
static uint8_t rs_eval(const struct vi_rs *rs, const uint8_t *p, unsigned n, unsigned e)
{
	uint8_t v = 0;

	for (unsigned k = n; k-- > 0;)
		v = (uint8_t)(rs_mul_pow(rs, v, e) ^ p[k]);
	return v;
}

/* Syndromes S_j = c(alpha^j), j < roots (first consecutive root 0); true when any is not 0.
 * cw[i] is the coefficient of x^(254 - i). */
static bool rs_syndromes(const struct vi_rs *rs, const uint8_t *cw, uint8_t *s)
{
	bool any = false;

	for (unsigned j = 0; j < rs->roots; j++) {
		uint8_t v = 0;

		for (unsigned i = 0; i < VERITY_FEC_RSM; i++)
			v = (uint8_t)(rs_mul_pow(rs, v, j) ^ cw[i]);
		s[j] = v;
		any |= v != 0;
	}
	return any;
}

/* Textbook decoding: Berlekamp-Massey for the error locator Lambda(x) = prod (1 + X_k x),
 * Chien search for its roots X_k^-1, Forney for the values: with the first root 0,
 * e_k = X_k Omega(X_k^-1) / Lambda'(X_k^-1), Omega(x) = S(x) Lambda(x) mod x^roots. */
int vi_rs_decode(const struct vi_rs *rs, uint8_t *cw)
{
	unsigned nr = rs->roots, len = 0, m = 1, nerr = 0;
	uint8_t s[VERITY_FEC_MAX_ROOTS], lambda[VERITY_FEC_MAX_ROOTS + 1] = { 1 };
	uint8_t b[VERITY_FEC_MAX_ROOTS + 1] = { 1 }, t[VERITY_FEC_MAX_ROOTS + 1];
	uint8_t omega[VERITY_FEC_MAX_ROOTS], dlambda[VERITY_FEC_MAX_ROOTS];
	uint8_t pos[VERITY_FEC_MAX_ROOTS], val[VERITY_FEC_MAX_ROOTS], bd = 1;

	if (!rs_syndromes(rs, cw, s))
		return 0;
	for (unsigned n = 0; n < nr; n++) {
		uint8_t d = s[n], coef;

		for (unsigned i = 1; i <= len; i++)
			d ^= rs_mul(rs, lambda[i], s[n - i]);
		if (d == 0) {
			m++;
			continue;
		}
		coef = rs->exp[rs->log[d] + 255 - rs->log[bd]];   /* d / bd */
		memcpy(t, lambda, sizeof(t));
		for (unsigned i = 0; i + m <= nr; i++)
			lambda[i + m] ^= rs_mul(rs, coef, b[i]);
		if (2 * len <= n) {
			len = n + 1 - len;
			memcpy(b, t, sizeof(b));
			bd = d;
			m = 1;
		} else {
			m++;
		}
	}
	/* No cut at roots / 2: the kernel's decode_rs8 (lib/reed_solomon since Linux 5.3)
	 * accepts a locator of BM length L with L distinct roots, which with odd roots sometimes
	 * corrects (roots + 1) / 2 errors; the kernel's answer is the point, since it is what
	 * dm-verity repairs. cryptsetup's older copy of Karn's decoder also accepts a few blocks
	 * whose locator is shorter than L (then not a codeword): veritysetup counts those as
	 * repairable, this refuses them. */
	for (unsigned k = len + 1; k <= nr; k++)
		if (lambda[k])
			return -EBADMSG;
	/* Omega, and Lambda' (characteristic 2: only the odd terms survive) */
	for (unsigned k = 0; k < nr; k++) {
		omega[k] = 0;
		for (unsigned i = 0; i <= k && i <= len; i++)
			omega[k] ^= rs_mul(rs, s[k - i], lambda[i]);
	}
	for (unsigned k = 0; k < nr; k++)
		dlambda[k] = (k + 1) % 2 ? lambda[k + 1] : 0;
	/* Position i has X = alpha^(254 - i), so X^-1 = alpha^((i + 1) mod 255). */
	for (unsigned i = 0; i < VERITY_FEC_RSM; i++) {
		unsigned xinv = (i + 1) % 255;
		uint8_t num, den;

		if (rs_eval(rs, lambda, len + 1, xinv) != 0)
			continue;
		if (nerr == len)
			return -EBADMSG;
		num = rs_eval(rs, omega, nr, xinv);
		den = rs_eval(rs, dlambda, nr, xinv);
		if (den == 0)
			return -EBADMSG;
		pos[nerr] = (uint8_t)i;
		/* X × num / den */
		val[nerr++] = num ? rs->exp[(rs->log[num] + 254 - i + 255 - rs->log[den]) % 255] : 0;
	}
	if (nerr != len)
		return -EBADMSG;   /* the locator does not split: more errors than it can place */
	for (unsigned k = 0; k < nerr; k++)
		cw[pos[k]] ^= val[k];
	/* A wrong locator could still leave a non-codeword: never report it corrected. */
	if (rs_syndromes(rs, cw, s)) {
		for (unsigned k = 0; k < nerr; k++)
			cw[pos[k]] ^= val[k];
		return -EBADMSG;
	}
	return (int)nerr;
}

/* One message symbol into the state (words: 1..3, a constant where inlined). */
static inline __attribute__((always_inline)) void lfsr_step(const struct vi_rs *rs,
							    uint64_t *s, unsigned words,
							    uint8_t m)
{
	const uint64_t *t = rs->lfsr[(uint8_t)(m ^ (uint8_t)s[0])];

	for (unsigned k = 0; k + 1 < words; k++)
		s[k] = ((s[k] >> 8) | (s[k + 1] << 56)) ^ t[k];
	s[words - 1] = (s[words - 1] >> 8) ^ t[words - 1];
}

static void state_out(const uint64_t *s, unsigned roots, uint8_t *parity)
{
	for (unsigned j = 0; j < roots; j++)
		parity[j] = (uint8_t)(s[j / 8] >> (8 * (j % 8)));
}

/* One copy of vi_rs_encode_cols per state width (words: 1..3, a constant where inlined). */
static inline __attribute__((always_inline)) void encode_cols_w(const struct vi_rs *rs,
								unsigned words,
								const uint8_t *rows,
								size_t stride, size_t n,
								uint64_t *st, uint8_t *out)
{
	unsigned rsn = VERITY_FEC_RSM - rs->roots;

	memset(st, 0, n * words * sizeof(st[0]));
	for (unsigned i = 0; i < rsn; i++) {
		const uint8_t *m = rows + (size_t)i * stride;

		for (size_t b = 0; b < n; b++)
			lfsr_step(rs, st + b * words, words, m[b]);
	}
	for (size_t b = 0; b < n; b++)
		state_out(st + b * words, rs->roots, out + b * rs->roots);
}

void vi_rs_encode_cols(const struct vi_rs *rs, const uint8_t *rows, size_t stride,
			   size_t n, uint64_t *st, uint8_t *out)
{
	/* One copy of the loop per state width, so that the word loop unrolls away. */
	switch (rs->words) {
	case 1:
		encode_cols_w(rs, 1, rows, stride, n, st, out);
		break;
	case 2:
		encode_cols_w(rs, 2, rows, stride, n, st, out);
		break;
	default:
		encode_cols_w(rs, 3, rows, stride, n, st, out);
		break;
	}
}

void vi_rs_encode(const struct vi_rs *rs, const uint8_t *msg, uint8_t *parity)
{
	uint64_t st[3];

	/* One RS block: symbol i is "row" i, one byte wide (stride 1). */
	vi_rs_encode_cols(rs, msg, 1, 1, st, parity);
}
