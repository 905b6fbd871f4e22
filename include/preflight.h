/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Pre-flight check before activation: hash the top block of the tree (or the only data block)
 * with the kernel's crypto and compare with the root hash, so a wrong root hash, salt, offset
 * or a tampered top of the tree is refused before anything is mapped. */
#ifndef VERITY_PREFLIGHT_H
#define VERITY_PREFLIGHT_H

#include <stdint.h>

#include "digest.h"
#include "geometry.h"
#include "superblock.h"

/* 0: the root hash matches. -EPERM: it does not (err set). -EIO: read error or short read.
 * -ENOPROTOOPT: the digest backend cannot hash this algorithm (AF_ALG missing, module not
 * loaded): the caller says so and continues, the kernel still checks every block. */
int vi_preflight(int data_fd, int hash_fd, const struct vi_params *p,
		 const struct vi_geometry *g, const uint8_t *root_hash, unsigned root_hash_len,
		 const struct vi_digest_ops *ops, struct vi_error *err);

#endif
