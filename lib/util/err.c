// SPDX-License-Identifier: LGPL-2.1-or-later
/* The one way lib/ fills a struct vi_error (include/err.h). */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void vformat(struct vi_error *err, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void vformat(struct vi_error *err, const char *fmt, va_list ap)
{
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
}

int (vi_err)(struct vi_error *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vformat(err, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int (vi_errno)(struct vi_error *err, int r, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vformat(err, fmt, ap);
		va_end(ap);
	}
	return r < 0 ? r : -EINVAL;
}

int vi_err_wrap(struct vi_error *err, int r, const char *fmt, ...)
{
	char why[sizeof(err->msg)], ctx[sizeof(err->msg)];
	va_list ap;

	if (!err)
		return r;
	memcpy(why, err->msg, sizeof(why));
	why[sizeof(why) - 1] = '\0';
	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	va_end(ap);
	/* the context first, then as much of the reason as fits */
	{
		size_t n = strnlen(ctx, sizeof(err->msg) - 1);

		memcpy(err->msg, ctx, n);
		memcpy(err->msg + n, why, strnlen(why, sizeof(err->msg) - 1 - n));
		err->msg[n + strnlen(why, sizeof(err->msg) - 1 - n)] = '\0';
	}
	return r;
}
