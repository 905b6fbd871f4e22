/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the commands of verity-image share: exit codes, the one error line, strict number
 * options, and the entry points of the commands that parse their own options. */
#ifndef VERITY_PROG_H
#define VERITY_PROG_H

#include <stdint.h>
#include <stdio.h>

#define PROG_NAME "verity-image"

#ifndef VERITY_INIT_VERSION
#define VERITY_INIT_VERSION "0.1"
#endif

/* Exit codes (docs/verity-image.8); veritysetup -v reports them as "code -N". */
enum {
	EXIT_USAGE = 1,           /* wrong or missing parameters */
	EXIT_MISMATCH = 2,        /* verification failed */
	EXIT_IO = 3,              /* I/O error */
	EXIT_INVALID = 4,         /* invalid superblock or parameters */
	EXIT_INTERNAL = 5,        /* memory, algorithm unavailable */
	EXIT_KEY = 6,             /* sign: the signing key is unavailable (PKCS#11 token missing,
	                           * locked, wrong PIN, no such key) */
};

/* The command being run ("format", "sign", ...), named in every error line; "" before one is
 * chosen. */
extern const char *prog_cmd;

/* "verity-image: CMD: message" on stderr; returns code, for `return die(...)`. */
__attribute__((format(printf, 2, 3)))
int die(int code, const char *fmt, ...);

/* The exit code for a negative errno from lib/: -EPERM mismatch, -EINVAL invalid,
 * -ENOMEM / -ENOENT / -ENOBUFS internal, anything else I/O. */
int prog_code_of(int r);

/* veritysetup -v's last line for an exit status, in its words and form ("code -N"). */
void prog_verbose_outcome(int status);

/* "verity-image VERSION" on stdout. */
void prog_print_version(void);

/* Strict unsigned decimal over a C string (lib/util/strutil.c): digits only, no sign, no junk, no
 * overflow. 0 or -EINVAL / -ERANGE. */
int prog_parse_u64(const char *s, uint64_t *ret);
int prog_parse_u32(const char *s, uint32_t *ret);

/* Commands with their own options (verity-init/image/image-sign.c, image-check.c): argv[0] is the
 * command name. Return the exit code. */
int image_sign_main(int argc, char **argv);
int image_check_manifest_main(int argc, char **argv);

#endif
