/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the agent does when the root cannot be booted, and the comma list that names it
 * (verity.fail=, the policy's fail=). lib/config/failactions.c. */
#ifndef VERITY_FAILACTIONS_H
#define VERITY_FAILACTIONS_H

#include <stddef.h>

#include "err.h"

#define VI_MAX_FAIL      6u

enum vi_fail_action {
	VI_FAIL_NONE = 0,
	VI_FAIL_RECOVERY,
	VI_FAIL_REBOOT,
	VI_FAIL_POWEROFF,
	VI_FAIL_PANIC,
	VI_FAIL_SHELL,
};

/* "recovery", "reboot", ...; NULL for VI_FAIL_NONE or out of range. */
const char *vi_fail_action_name(enum vi_fail_action a);
/* Comma-separated action list (no empty item, no repeat) into fail[VI_MAX_FAIL]. */
int vi_fail_list_parse(const char *s, size_t len, enum vi_fail_action fail[VI_MAX_FAIL],
		       struct vi_error *err);

#endif
