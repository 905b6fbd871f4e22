/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers shared by the unit tests (prefix ut_; the child-check macros CHILD_CHECK and
 * SKIP_CHILD read as what they do): temporary trees and the files in them, a check run in a child
 * process, the verdict of a parser (accepted, or refused with a reason), and the verity
 * parameters and command lines the tests start from. It includes cmocka and what cmocka needs;
 * everything here fails the calling test through cmocka unless it says otherwise. */
#ifndef VERITY_TEST_HELPERS_H
#define VERITY_TEST_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cmdline.h"
#include "config.h"
#include "err.h"
#include "policy.h"
#include "superblock.h"

#define UT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- files ---- */

/* dir/rel into out; a path longer than out fails the test rather than naming another file. */
static inline void ut_path(char *out, size_t size, const char *dir, const char *rel)
{
	int n = snprintf(out, size, "%s/%s", dir, rel);

	assert_true(n > 0 && (size_t)n < size);
}

/* Write len bytes of data as path (created or truncated) with exactly mode, whatever the umask.
 * 0, or -1 with errno: no cmocka check, so a forked child can use it too. */
static inline int ut_write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = len ? write(fd, data, len) : 0;
	if (n != (ssize_t)len || fchmod(fd, mode) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* dir/rel with len bytes of data and mode. */
static inline void ut_put(const char *dir, const char *rel, const void *data, size_t len,
			  mode_t mode)
{
	char p[512];

	ut_path(p, sizeof(p), dir, rel);
	if (ut_write_file(p, data, len, mode) < 0)
		fail_msg("writing %s: %s", p, strerror(errno));
}

/* The whole of a small file as a string in buf (cut to size - 1 bytes); its length. */
static inline size_t ut_read_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f) {
		fail_msg("reading %s: %s", path, strerror(errno));
		return 0;
	}
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	return n;
}

/* XOR the byte at off of fd with mask: one corrupted byte, undone by a second call. */
static inline void ut_flip(int fd, uint64_t off, uint8_t mask)
{
	uint8_t b;

	assert_int_equal(pread(fd, &b, 1, (off_t)off), 1);
	b ^= mask;
	assert_int_equal(pwrite(fd, &b, 1, (off_t)off), 1);
}

/* ---- temporary trees ---- */

/* Remove dir and everything in it (without following symbolic links out of it): 0 or -1. */
static inline int ut_rm_tree(const char *dir)
{
	char cmd[600];
	int n = snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);

	if (n < 0 || (size_t)n >= sizeof(cmd) || strchr(dir, '\''))
		return -1;
	return system(cmd) == 0 ? 0 : -1;
}

/* ---- checks in a child process ---- */

/* A child's exit status for "skipped" (no namespace, no seccomp here). */
#define SKIP_CHILD 77

/* Check n of a child: unless cond, print why on stderr and give n as its exit status. */
#define CHILD_CHECK(n, cond, ...)                              \
	do {                                                      \
		if (!(cond)) {                                    \
			fprintf(stderr, "check %d: ", n);         \
			fprintf(stderr, __VA_ARGS__);             \
			fputc('\n', stderr);                      \
			return n;                                 \
		}                                                 \
	} while (0)

/* Run fn in a child process (a seccomp filter or a mount namespace must not outlive the check);
 * its exit status: 0 passed, SKIP_CHILD skipped, else the number of the failed check. */
static inline int ut_in_child(int (*fn)(void))
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* ut_in_child as a test: skipped on SKIP_CHILD, failed on any other status but 0. */
static inline void ut_run_child(int (*fn)(void))
{
	int rc = ut_in_child(fn);

	if (rc == SKIP_CHILD)
		skip();
	assert_int_equal(rc, 0);
}

/* ---- parsers ---- */

/* A parser's verdict r on input: want_r (0: accepted), and, when want is not NULL, a reason in
 * err containing want. The failure names the input. */
static inline void ut_verdict(const char *input, int r, const struct vi_error *err, int want_r,
			      const char *want)
{
	if (r != want_r)
		fail_msg("'%s': got %d (%s), want %d", input, r, err->msg, want_r);
	if (want && !strstr(err->msg, want))
		fail_msg("'%s': reason '%s' lacks '%s'", input, err->msg, want);
}

/* The root target as vi_config_init leaves it, before any key of a command line. */
static inline struct vi_target ut_default_target(void)
{
	struct vi_config c;

	vi_config_init(&c);
	return c.root;
}

/* Parse cmdline into cfg; a refusal fails the test with its reason. */
static inline void ut_cmdline(const char *cmdline, struct vi_config *cfg)
{
	struct vi_error why = { "" };

	if (vi_cmdline_parse(cmdline, 0, cfg, &why) != 0)
		fail_msg("refused '%s': %s", cmdline, why.msg);
}

/* The policy text, then the command line, then vi_policy_apply: its verdict want_r and, when
 * want is not NULL, a reason containing want. pol and cfg keep what the three made. */
static inline void ut_policy_apply(const char *policy, const char *cmdline, struct vi_policy *pol,
				   struct vi_config *cfg, int want_r, const char *want)
{
	struct vi_error why = { "" };
	int r;

	if (vi_policy_parse(policy, strlen(policy), pol, &why) != 0)
		fail_msg("policy '%s' refused: %s", policy, why.msg);
	ut_cmdline(cmdline, cfg);
	r = vi_policy_apply(pol, cfg, &why);
	if (r != want_r)
		fail_msg("policy '%s' + '%s': got %d (%s), want %d", policy, cmdline, r, why.msg,
			 want_r);
	if (want && !strstr(why.msg, want))
		fail_msg("policy '%s' + '%s': reason '%s' lacks '%s'", policy, cmdline, why.msg,
			 want);
}

/* Parameters of a tree: the hash, format, block sizes and data blocks given, the rest zero. */
static inline struct vi_params ut_params(const char *hash, uint32_t type, uint32_t dbs,
					 uint32_t hbs, uint64_t blocks)
{
	struct vi_params p;

	memset(&p, 0, sizeof(p));
	assert_true(strlen(hash) < sizeof(p.hash_name));
	strcpy(p.hash_name, hash);
	p.hash_type = type;
	p.data_block_size = dbs;
	p.hash_block_size = hbs;
	p.data_blocks = blocks;
	return p;
}

#endif
