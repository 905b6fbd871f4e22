/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit-test helper: make one system call fail with ENOSYS in the calling process (a seccomp
 * filter), to run the fallbacks meant for older kernels (openat2 before 5.6, close_range before
 * 5.11) on this one. Call it in a forked child: the filter cannot be removed. */
#ifndef VERITY_TEST_DENY_SYSCALL_H
#define VERITY_TEST_DENY_SYSCALL_H

#include <errno.h>
#include <stddef.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>

/* Install the filter f[0..n) on this process: 0, or -errno when seccomp is unavailable (the
 * caller skips). */
static inline int seccomp_install(struct sock_filter *f, unsigned short n)
{
	struct sock_fprog prog = { .len = n, .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return -errno;
	return 0;
}

/* 0, or -errno when seccomp is unavailable (the caller skips). */
static inline int deny_syscall(long nr)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	return seccomp_install(f, sizeof(f) / sizeof(f[0]));
}

#endif
