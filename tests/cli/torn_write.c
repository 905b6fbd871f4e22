// SPDX-License-Identifier: LGPL-2.1-or-later
/* LD_PRELOAD shim of tests/cli/slot_powerloss_test.sh: a power loss in the middle of a write.
 *
 * VI_TORN_AT=K:PERMILLE  the K-th pwrite() of the process (counted from 1) puts only the first
 *                        PERMILLE/1000 of its bytes into the file, then the process is killed
 *                        with SIGKILL: nothing it would do after that (the rest of the record,
 *                        fdatasync, the other copy) reaches the file. A process with fewer
 *                        writes ends normally.
 * Built by the test: cc -shared -fPIC -o torn_write.so torn_write.c -ldl */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);

static ssize_t torn(pwrite_fn real, int fd, const void *buf, size_t count, off_t off)
{
	static unsigned long calls;
	const char *at = getenv("VI_TORN_AT");
	unsigned long k, permille;
	size_t part;

	calls++;
	if (!at || sscanf(at, "%lu:%lu", &k, &permille) != 2 || permille > 1000 || calls != k)
		return real(fd, buf, count, off);
	part = (size_t)((unsigned long long)count * permille / 1000u);
	if (part && real(fd, buf, part, off) < 0)
		perror("torn_write: pwrite");
	raise(SIGKILL);
	_exit(125);   /* not reached */
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t off)
{
	return torn((pwrite_fn)dlsym(RTLD_NEXT, "pwrite"), fd, buf, count, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t off)
{
	return torn((pwrite_fn)dlsym(RTLD_NEXT, "pwrite64"), fd, buf, count, off);
}
