// SPDX-License-Identifier: LGPL-2.1-or-later
/* Program helpers shared by verity-image's commands (verity-init/image/prog.h). */
#include "prog.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "strutil.h"

const char *prog_cmd = "";

int die(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s%s", PROG_NAME, prog_cmd, *prog_cmd ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

int prog_code_of(int r)
{
	switch (r) {
	case -EPERM:
		return EXIT_MISMATCH;
	case -EINVAL:
		return EXIT_INVALID;
	case -ENOMEM:
	case -ENOENT:
	case -ENOBUFS:
		return EXIT_INTERNAL;
	default:
		return EXIT_IO;
	}
}

void prog_verbose_outcome(int status)
{
	static const char *const meaning[] = {
		[EXIT_USAGE] = "wrong or missing parameters",
		[EXIT_MISMATCH] = "verification failed",
		[EXIT_IO] = "I/O error",
		[EXIT_INVALID] = "invalid superblock or parameters",
		[EXIT_INTERNAL] = "internal error",
		[EXIT_KEY] = "signing key unavailable",
	};

	if (status == 0)
		printf("Command successful.\n");
	else
		printf("Command failed with code %d (%s).\n", -status,
		       status > 0 && status <= EXIT_KEY ? meaning[status] : "unknown error");
}

void prog_print_version(void)
{
	puts(PROG_NAME " " VERITY_INIT_VERSION);
}

int prog_parse_u64(const char *s, uint64_t *ret)
{
	return vi_parse_u64(s, strlen(s), ret);
}

int prog_parse_u32(const char *s, uint32_t *ret)
{
	return vi_parse_u32(s, strlen(s), ret);
}
