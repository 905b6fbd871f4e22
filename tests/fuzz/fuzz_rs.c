// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the RS decoder (untrusted: a damaged image's data, tree and parity).
 * Input: one byte choosing roots (2..24), then up to 255 bytes of stored RS block
 * (zero-padded). Oracles besides the sanitizers:
 *  - a refusal is -EBADMSG and leaves the block as it was;
 *  - a correction changes exactly as many symbols as it reports (at most roots), and the
 *    result is a codeword: it decodes again with 0 errors and its parity re-encodes;
 *  - a codeword made from the input's message is accepted with 0 errors. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rs.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vi_rs rs[VERITY_FEC_MAX_ROOTS + 1];
	static int ready[VERITY_FEC_MAX_ROOTS + 1];
	uint8_t cw[VERITY_FEC_RSM], before[VERITY_FEC_RSM], par[VERITY_FEC_MAX_ROOTS];
	unsigned roots, rsn, changed = 0;
	int r;

	if (size < 1)
		return 0;
	roots = VERITY_FEC_MIN_ROOTS + data[0] % (VERITY_FEC_MAX_ROOTS - VERITY_FEC_MIN_ROOTS + 1);
	rsn = VERITY_FEC_RSM - roots;
	if (!ready[roots]) {
		CHECK(vi_rs_init(&rs[roots], roots) == 0);
		ready[roots] = 1;
	}
	memset(cw, 0, sizeof(cw));
	size--;
	memcpy(cw, data + 1, size < sizeof(cw) ? size : sizeof(cw));
	memcpy(before, cw, sizeof(cw));

	r = vi_rs_decode(&rs[roots], cw);
	if (r < 0) {
		CHECK(r == -EBADMSG);
		CHECK(memcmp(cw, before, sizeof(cw)) == 0);
	} else {
		for (unsigned i = 0; i < VERITY_FEC_RSM; i++)
			changed += cw[i] != before[i];
		CHECK(changed == (unsigned)r && (unsigned)r <= roots);
		vi_rs_encode(&rs[roots], cw, par);
		CHECK(memcmp(par, cw + rsn, roots) == 0);
		CHECK(vi_rs_decode(&rs[roots], cw) == 0);
	}
	/* the input's message with its own parity */
	memcpy(cw, before, sizeof(cw));
	vi_rs_encode(&rs[roots], cw, cw + rsn);
	memcpy(before, cw, sizeof(cw));
	CHECK(vi_rs_decode(&rs[roots], cw) == 0);
	CHECK(memcmp(cw, before, sizeof(cw)) == 0);
	return 0;
}
