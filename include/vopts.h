/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* systemd veritytab option words (systemd.verity_root_options=, verity.options=,
 * verity.recovery.options=): "superblock=false,hash=sha256,panic-on-corruption". Unlike systemd,
 * an unknown word, an empty word, or a word repeated with a different value is an error. */
#ifndef VERITY_VOPTS_H
#define VERITY_VOPTS_H

#include <stddef.h>

#include "config.h"
#include "devspec.h"


/* Apply the comma-separated words in s[0..len) to t (which holds defaults or earlier values:
 * a word contradicting a value t already has is an error too). Pure: no I/O.
 * -EINVAL with err set; t may be partly updated on failure (the caller discards it). */
int vi_vopts_parse(const char *s, size_t len, struct vi_target *t, struct vi_error *err);

/* t's options as canonical veritytab words (only what was given or differs from the default),
 * comma-separated, "" when there is nothing to say. -ENOBUFS if out_size is too small. */
int vi_vopts_format(const struct vi_target *t, char *out, size_t out_size);

#endif
