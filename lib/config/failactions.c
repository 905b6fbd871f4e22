// SPDX-License-Identifier: LGPL-2.1-or-later
/* The fail actions and their list (include/failactions.h). */
#include "failactions.h"

#include <string.h>

#include "strutil.h"

static const char *const fail_names[] = {
	[VI_FAIL_RECOVERY] = "recovery", [VI_FAIL_REBOOT] = "reboot",
	[VI_FAIL_POWEROFF] = "poweroff", [VI_FAIL_PANIC] = "panic", [VI_FAIL_SHELL] = "shell",
};

const char *vi_fail_action_name(enum vi_fail_action a)
{
	if (a <= VI_FAIL_NONE || (unsigned)a >= sizeof(fail_names) / sizeof(fail_names[0]))
		return NULL;
	return fail_names[a];
}

int vi_fail_list_parse(const char *s, size_t len, enum vi_fail_action fail[VI_MAX_FAIL],
		       struct vi_error *err)
{
	enum vi_fail_action out[VI_MAX_FAIL] = { VI_FAIL_NONE };
	unsigned n = 0;
	size_t start = 0;

	if (len == 0)
		return vi_err(err, "empty fail action list");
	for (size_t i = 0; i <= len; i++) {
		enum vi_fail_action a = VI_FAIL_NONE;

		if (i < len && s[i] != ',')
			continue;
		for (unsigned k = VI_FAIL_RECOVERY; k <= VI_FAIL_SHELL; k++)
			if (strlen(fail_names[k]) == i - start &&
			    memcmp(fail_names[k], s + start, i - start) == 0)
				a = (enum vi_fail_action)k;
		if (a == VI_FAIL_NONE)
			return vi_err_value(err, "fail action", s + start, i - start,
				      "not recovery, reboot, poweroff, panic or shell");
		for (unsigned k = 0; k < n; k++)
			if (out[k] == a)
				return vi_err(err, "fail action '%s' listed twice", fail_names[a]);
		/* Five distinct actions always fit in VI_MAX_FAIL - 1, leaving the terminator. */
		out[n++] = a;
		start = i + 1;
	}
	memcpy(fail, out, sizeof(out));
	return 0;
}
