/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How lib/ reports a refusal: a negative errno as the return value, and one reason in a
 * struct vi_error for the one log line the caller prints (lib/util/err.c). lib/ itself never logs. */
#ifndef VERITY_ERR_H
#define VERITY_ERR_H

#include <errno.h>

/* A reason for a refusal, for the one log line the caller prints. */
struct vi_error {
	char msg[192];
};

/* Format a reason into err (if non-NULL) and return -EINVAL: `return vi_err(err, ...)`. */
int vi_err(struct vi_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Format a reason into err (if non-NULL) and return r, a negative errno (-EINVAL when r is not
 * negative): `return vi_errno(err, -ENOENT, "no device matches %s", spec)`. */
int vi_errno(struct vi_error *err, int r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix err's reason with a formatted context ("verity.data: " + reason), keeping r. */
int vi_err_wrap(struct vi_error *err, int r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#ifdef __clang_analyzer__
/* clang-tidy analyzes one file at a time: show it that these always fail, or it follows
 * `return vi_err(...)` paths as successes (make lint). The inner call is the function. */
#define vi_err(err, ...) (vi_err((err), __VA_ARGS__), -EINVAL)
#define vi_errno(err, r, ...) (vi_errno((err), (r), __VA_ARGS__), (r) < 0 ? (r) : -EINVAL)
#endif

#endif
