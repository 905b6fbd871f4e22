/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Device specs, paths and mapping names: what the command line, dm-mod.create= tables, option
 * words and manifests may name, and in which characters (lib/config/devspec.c). Pure syntax, no I/O:
 * whether a device exists is lib/boot/devices.c's question. */
#ifndef VERITY_DEVSPEC_H
#define VERITY_DEVSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define VI_MAX_PATH      256u
#define VI_MAX_SIG_LOC   2048u   /* a signature's location, or systemd's inline base64:DER */
#define VI_MAX_NAME      64u     /* dm names: DM_NAME_LEN is 128, we keep it short */

/* A device reference as written by the user: "/dev/vda1", "UUID=...", "PARTUUID=...",
 * "LABEL=...", "PARTLABEL=...", and (dm-mod.create= tables only) "MAJ:MIN". Syntax is checked
 * by the parser; an empty spec means "not given". */
struct vi_devspec {
	char spec[VI_MAX_PATH];
};

enum vi_devspec_kind {
	VI_DEV_NONE = 0,         /* empty */
	VI_DEV_PATH,             /* /dev/..., no ".." or "." components */
	VI_DEV_UUID,             /* UUID=     (filesystem UUID, libblkid tag) */
	VI_DEV_PARTUUID,         /* PARTUUID= (GPT/MBR partition UUID) */
	VI_DEV_LABEL,            /* LABEL= */
	VI_DEV_PARTLABEL,        /* PARTLABEL= */
	VI_DEV_MAJMIN,           /* "254:0", only from dm-mod.create= */
};

/* Syntax check of a device spec (see struct vi_devspec); allow_majmin for dm-mod.create.
 * Returns the kind, or -EINVAL with err set. */
int vi_devspec_check(const char *spec, size_t len, bool allow_majmin, struct vi_error *err);

/* The characters a device spec written on the command line (or in a table) may use: letters,
 * digits, "/._-:+@=", non-ASCII bytes and udev's \xHH escapes; quotes, whitespace and every
 * other byte a shell or a unit file interprets are refused (-EINVAL, err names the byte). */
int vi_devspec_chars_check(const char *what, const char *s, size_t len,
			   struct vi_error *err);

/* A device as systemd writes it, in the form the agent looks it up by: udev's
 * /dev/disk/by-{uuid,partuuid,label,partlabel}/NAME (\xNN escapes decoded) becomes UUID=,
 * PARTUUID=, LABEL=, PARTLABEL= -- those links need udev, which PID 1 does not have; libblkid
 * finds the same device. Anything else is copied. out is NUL-terminated; -ENAMETOOLONG when it
 * does not fit, -EINVAL for a bad escape. */
int vi_devspec_normalize(const char *s, size_t len, char *out, size_t out_size, size_t *ret_len);
#define VI_DEVSPEC_LINK_ERR "not a udev link name, or a name with a control byte, quote or comma"
enum vi_devspec_kind vi_devspec_kind(const struct vi_devspec *d);

/* init= (command line or policy): an absolute path (vi_abspath_check) not under /dev/, /proc/,
 * /sys/ or /run/, which the switch covers with the initramfs' own filesystems after init was
 * checked on the verified root. -EINVAL with err set. */
int vi_init_path_check(const char *s, size_t len, struct vi_error *err);

/* Mapping name: [A-Za-z0-9][A-Za-z0-9._-]*, shorter than VI_MAX_NAME, not "control". */
int vi_name_check(const char *s, size_t len, struct vi_error *err);

/* Absolute path without "", "." or ".."
 * components, without whitespace/control bytes, shorter than VI_MAX_PATH. */
int vi_abspath_check(const char *s, size_t len, struct vi_error *err);
/* Where a signature or manifest may live: an absolute path (file in the initramfs) or a device
 * spec (UUID=, PARTUUID=, LABEL=, PARTLABEL=, /dev/...). */
int vi_location_check(const char *s, size_t len, struct vi_error *err);
/* A root-hash signature: a location as above, or systemd's inline form "base64:" followed by
 * the DER PKCS#7 signature in strict base64 (checked to decode to DER here). */
#define VI_SIG_INLINE_PREFIX "base64:"
int vi_sig_location_check(const char *s, size_t len, struct vi_error *err);
/* Decode an inline signature (s starts with VI_SIG_INLINE_PREFIX) into out. */
int vi_sig_inline_decode(const char *s, size_t len, uint8_t *out, size_t out_size,
			 size_t *ret_len, struct vi_error *err);

#endif
