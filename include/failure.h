/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent's failure value: which stage refused which target, with which errno and reason.
 * It is set in one place (vi_failure_set) and everything said about a failure comes from it:
 * the log line (vi_failure_log_line) and the status file's name=, roothash=, stage= and
 * reason= (docs/design.md, "The configuration pipeline and the failure value"). */
#ifndef VERITY_FAILURE_H
#define VERITY_FAILURE_H

#include <stdbool.h>
#include <stddef.h>

#include "activate.h"
#include "config.h"

struct vi_failure {
	bool set;                       /* a failure is recorded */
	enum vi_stage stage;
	const struct vi_target *target; /* the target refused (the root for a configuration
	                                 * refusal); NULL: none chosen yet */
	int error;                      /* negative errno */
	struct vi_error reason;       /* one line, the status file's reason= */
	char context[VI_MAX_NAME + 32]; /* what the log line puts before the reason:
	                                 * "command line refused", "policy", "root", ... or "" */
};

/* Record a failure, replacing any earlier one; reason may be NULL (empty). Returns error
 * (negative), for `return vi_failure_set(...)`. */
int vi_failure_set(struct vi_failure *f, enum vi_stage stage, const struct vi_target *target,
		   int error, const char *context, const struct vi_error *reason);

/* The log line of f: "CONTEXT: REASON", or REASON alone when there is no context. */
void vi_failure_log_line(const struct vi_failure *f, char *buf, size_t size);

#endif
