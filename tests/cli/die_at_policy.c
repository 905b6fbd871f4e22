// SPDX-License-Identifier: LGPL-2.1-or-later
/* LD_PRELOAD shim of generator_test.sh: the agent dies (abort) where its parser opens the
 * initramfs policy, as a crash the command line caused would end it. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

int openat(int dirfd, const char *path, int flags, ...)
{
	int (*real)(int, const char *, int, ...);
	va_list ap;
	mode_t mode;

	if (!strcmp(path, "/etc/verity-init.conf"))
		abort();
	va_start(ap, flags);
	mode = va_arg(ap, mode_t);
	va_end(ap);
	*(void **)&real = dlsym(RTLD_NEXT, "openat");
	return real(dirfd, path, flags, mode);
}
