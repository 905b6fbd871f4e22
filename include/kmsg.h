/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent's log sink: one write() per record to /dev/kmsg ("<prio>verity-init[pid]: msg\n"),
 * falling back to stderr when /dev/kmsg cannot be opened (not PID 1, no devtmpfs yet). Library
 * code never logs; the agent calls this. */
#ifndef VERITY_KMSG_H
#define VERITY_KMSG_H

#include <stddef.h>
#include <stdbool.h>
#include <sys/types.h>

/* syslog priorities, as the kernel's printk levels */
#define KMSG_CRIT    2
#define KMSG_ERR     3
#define KMSG_WARNING 4
#define KMSG_NOTICE  5
#define KMSG_INFO    6
#define KMSG_DEBUG   7

#define KMSG_LINE_MAX 900u   /* the kernel takes records up to about 1 KiB */

struct vi_kmsg {
	int fd;          /* /dev/kmsg, or -1 */
	int fallback_fd; /* stderr / console when fd < 0 or a write to it fails */
	pid_t pid;       /* in the record prefix; 0: getpid() at the first record */
	int max_prio;    /* records above this priority are dropped (verity.debug raises it) */
};

#define KMSG_INIT { .fd = -1, .fallback_fd = 2, .pid = 0, .max_prio = KMSG_INFO }

/* Open /dev/kmsg (O_WRONLY|O_CLOEXEC). Never fails: without /dev/kmsg records go to
 * fallback_fd. May be called again (e.g. after devtmpfs is mounted) to retry the open. */
void vi_kmsg_open(struct vi_kmsg *k, int fallback_fd);
void vi_kmsg_close(struct vi_kmsg *k);

/* Format one record. Control characters in the formatted message become '?', so a string read
 * from a disk can neither forge a second record nor smuggle terminal escapes; overlong messages
 * are cut and end in "...". Returns the record length (without the trailing NUL). Pure. */
size_t vi_kmsg_format(char *out, size_t out_size, int prio, pid_t pid, const char *msg);

__attribute__((format(printf, 3, 4)))
void vi_kmsg_log(struct vi_kmsg *k, int prio, const char *fmt, ...);

#endif
