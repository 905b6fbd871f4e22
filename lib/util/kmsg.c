// SPDX-License-Identifier: LGPL-2.1-or-later
/* Logging to /dev/kmsg, one write() per record (the kernel treats each write as one record). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kmsg.h"

void vi_kmsg_open(struct vi_kmsg *k, int fallback_fd)
{
	k->fallback_fd = fallback_fd;
	k->pid = getpid();
	if (k->max_prio == 0)
		k->max_prio = KMSG_INFO;
	if (k->fd >= 0)
		return;
	k->fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);
}

void vi_kmsg_close(struct vi_kmsg *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

size_t vi_kmsg_format(char *out, size_t out_size, int prio, pid_t pid, const char *msg)
{
	int n;
	size_t len, i, room;

	if (out_size < 16)
		return 0;
	if (prio < 0 || prio > 7)
		prio = KMSG_ERR;
	n = snprintf(out, out_size, "<%d>verity-init[%d]: ", prio, (int)pid);
	if (n < 0 || (size_t)n >= out_size - 5)
		return 0;
	len = (size_t)n;
	room = out_size - 2 - len; /* keep space for '\n' and NUL */
	for (i = 0; i < room && msg[i]; i++) {
		unsigned char c = (unsigned char)msg[i];

		out[len + i] = (c < 0x20 || c > 0x7e) ? '?' : (char)c;
	}
	len += i;
	if (msg[i]) /* cut: mark it */
		memcpy(out + len - 3, "...", 3);
	out[len++] = '\n';
	out[len] = '\0';
	return len;
}

void vi_kmsg_log(struct vi_kmsg *k, int prio, const char *fmt, ...)
{
	char msg[KMSG_LINE_MAX];
	char rec[KMSG_LINE_MAX + 48];
	size_t len;
	va_list ap;
	int saved = errno;

	if (prio > k->max_prio)
		return;
	if (k->pid <= 0)   /* a record before vi_kmsg_open (KMSG_INIT) */
		k->pid = getpid();
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	len = vi_kmsg_format(rec, sizeof(rec), prio, k->pid, msg);
	if (len == 0)
		goto out;
	if (k->fd >= 0 && write(k->fd, rec, len) == (ssize_t)len)
		goto out;
	/* the console does not need the <prio> prefix */
	if (k->fallback_fd >= 0) {
		const char *p = strchr(rec, '>');
		const char *body = p ? p + 1 : rec;

		if (write(k->fallback_fd, body, len - (size_t)(body - rec)) < 0)
			goto out;   /* nothing else to try */
	}
out:
	errno = saved;
}
