/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* systemd's Discoverable Partitions "verity signature" partition (root-verity-sig, written by
 * systemd-repart and mkosi): one JSON object, NUL-padded to the partition's end,
 *
 *   {"rootHash":"<hex>","certificateFingerprint":"<sha256 hex of the DER certificate>",
 *    "signature":"<base64 of the DER PKCS#7 detached signature of the hex root hash>"}
 *
 * A small strict parser for exactly that object, not a JSON library: whitespace between tokens,
 * keys in any order, each at most once; rootHash and signature required, certificateFingerprint
 * optional (systemd does not need it either); any other key, a backslash escape, a non-ASCII
 * byte, or anything but NUL bytes after the object is refused. */
#ifndef VERITY_DPS_SIG_H
#define VERITY_DPS_SIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p7s.h"
#include "err.h"
#include "superblock.h"   /* VERITY_MAX_DIGEST */

#define VI_DPS_SIG_MAX (64u * 1024u)   /* bytes of partition we read and parse */

struct vi_dps_sig {
	uint8_t root_hash[VERITY_MAX_DIGEST];
	unsigned root_hash_len;
	bool has_fingerprint;
	uint8_t fingerprint[32];
	uint8_t sig[VI_P7S_MAX];      /* DER PKCS#7 */
	size_t sig_len;
};

/* Parse buf[0..len) (the start of the partition). -EINVAL with err set, -E2BIG above
 * VI_DPS_SIG_MAX. *ret is unspecified on failure. */
int vi_dps_sig_parse(const char *buf, size_t len, struct vi_dps_sig *ret, struct vi_error *err);

#endif
