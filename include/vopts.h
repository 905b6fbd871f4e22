/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* systemd veritytab option words (systemd.verity_root_options=, verity.options=,
 * verity.recovery.options=): "superblock=false,hash=sha256,panic-on-corruption". Unlike systemd,
 * an unknown word, an empty word, or a word repeated with a different value is an error. */
#ifndef VERITY_VOPTS_H
#define VERITY_VOPTS_H

#include <stddef.h>

#include "config.h"


/* Apply the comma-separated words in s[0..len) to t (which holds defaults or earlier values:
 * a word contradicting a value t already has is an error too). Pure: no I/O.
 * -EINVAL with err set; t may be partly updated on failure (the caller discards it). */
int vi_vopts_parse(const char *s, size_t len, struct vi_target *t, struct verity_err *err);

/* t's options as canonical veritytab words (only what was given or differs from the default),
 * comma-separated, "" when there is nothing to say. -ENOBUFS if out_size is too small. */
int vi_vopts_format(const struct vi_target *t, char *out, size_t out_size);

/* Path checks shared by the parsers (lib/cmdline.c): absolute path without "", "." or ".."
 * components, without whitespace/control bytes, shorter than VI_MAX_PATH. */
int vi_abspath_check(const char *s, size_t len, struct verity_err *err);
/* Where a signature or manifest may live: an absolute path (file in the initramfs) or a device
 * spec (UUID=, PARTUUID=, LABEL=, PARTLABEL=, /dev/...). */
int vi_location_check(const char *s, size_t len, struct verity_err *err);
/* A root-hash signature: a location as above, or systemd's inline form "base64:" followed by
 * the DER PKCS#7 signature in strict base64 (checked to decode to DER here). */
#define VI_SIG_INLINE_PREFIX "base64:"
int vi_sig_location_check(const char *s, size_t len, struct verity_err *err);
/* Decode an inline signature (s starts with VI_SIG_INLINE_PREFIX) into out. */
int vi_sig_inline_decode(const char *s, size_t len, uint8_t *out, size_t out_size,
			 size_t *ret_len, struct verity_err *err);

#endif
