// SPDX-License-Identifier: LGPL-2.1-or-later
/* The agent's failure value (include/failure.h). */
#include <errno.h>
#include <stdio.h>

#include "failure.h"

int vi_failure_set(struct vi_failure *f, enum vi_stage stage, const struct vi_target *target,
		   int error, const char *context, const struct vi_error *reason)
{
	f->set = true;
	f->stage = stage;
	f->target = target;
	f->error = error < 0 ? error : -EINVAL;
	snprintf(f->reason.msg, sizeof(f->reason.msg), "%s", reason ? reason->msg : "");
	snprintf(f->context, sizeof(f->context), "%s", context ? context : "");
	return f->error;
}

void vi_failure_log_line(const struct vi_failure *f, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s", f->context, f->context[0] ? ": " : "", f->reason.msg);
}
