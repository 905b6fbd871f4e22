/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Systematic Reed-Solomon RS(255, 255 - roots) over GF(2^8) as dm-verity's FEC uses it: field
 * polynomial 0x11d, generator roots alpha^0 .. alpha^(roots-1) (the kernel's
 * init_rs(8, 0x11d, 0, 1), cryptsetup's FEC_PARAMS). A codeword is stored message first,
 * parity after it, highest-degree coefficient first. Pure: no I/O, no allocation. */
#ifndef VERITY_RS_H
#define VERITY_RS_H

#include <stddef.h>
#include <stdint.h>

#define VERITY_FEC_RSM           255u   /* symbols per RS codeword (kernel DM_VERITY_FEC_RSM) */
#define VERITY_FEC_MIN_ROOTS     2u     /* kernel: 255 - DM_VERITY_FEC_MAX_RSN */
#define VERITY_FEC_MAX_ROOTS     24u    /* kernel: 255 - DM_VERITY_FEC_MIN_RSN */

/* One RS(255, 255 - roots) code. The LFSR table maps a feedback symbol f to f × g'(x),
 * where g' is the generator polynomial without its leading term, packed as up to 24 parity
 * bytes in three 64-bit words (byte j of the state = parity byte j, j = 0 written first). */
struct vi_rs {
	unsigned roots;
	unsigned words;             /* 64-bit words the state uses: ceil(roots / 8) */
	uint64_t lfsr[256][3];
	uint8_t exp[2 * 255];       /* GF(2^8): alpha^i, twice over */
	uint8_t log[256];
};

/* -EINVAL (no err: callers check the range first) for roots outside 2..24. */
int vi_rs_init(struct vi_rs *rs, unsigned roots);

/* Parity (rs->roots bytes) of one message of 255 - roots bytes, as stored on disk. */
void vi_rs_encode(const struct vi_rs *rs, const uint8_t *msg, uint8_t *parity);

/* Correct one stored RS block in place: cw is its 255 - roots message bytes followed by its
 * roots parity bytes, as on disk. Returns the number of symbols corrected, or -EBADMSG when
 * the errors cannot be corrected (cw unchanged). Decides as the kernel's decode_rs8 does
 * (Linux >= 5.3, no erasures: the Berlekamp-Massey locator of length L, accepted when it has
 * L distinct roots): up to roots / 2 errors are always corrected, sometimes one more with odd
 * roots, and more damage than that may also "decode" to a wrong codeword (dm-verity
 * re-checks the hash of every block it repairs; a result that is not a codeword is never
 * returned). cryptsetup's decode_rs_char, an older copy of the same decoder, also accepts a
 * few blocks whose locator is shorter than L, so veritysetup may count more as repairable. */
int vi_rs_decode(const struct vi_rs *rs, uint8_t *cw);

/* Parity of n RS blocks side by side: message byte i of block b is rows[i × stride + b];
 * the parity of block b goes to out[b × roots]. st: room for n states of rs->words 64-bit
 * words, packed so that they stay in L1 while the rows stream past (n of about 1024 keeps
 * them at 8 to 24 KiB). */
void vi_rs_encode_cols(const struct vi_rs *rs, const uint8_t *rows, size_t stride,
			   size_t n, uint64_t *st, uint8_t *out);

#endif
