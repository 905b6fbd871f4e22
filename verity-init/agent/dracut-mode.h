/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The dracut runtime's own state and the steps its verbs share, between dracut-mode.c (its
 * options, verbs and fallback actions) and dracut-prepivot.c (`pre-pivot`, `check-init`). */
#ifndef VERITY_DRACUT_MODE_H
#define VERITY_DRACUT_MODE_H
#include <stdbool.h>

#include "agent.h"

#define EXIT_SHELL     3      /* open dracut's emergency shell, then resume at VERITY_NEXT */

/* What the runtime's fallback actions and pre-pivot read (a->dracut), for the process's run. */
struct dracut_state {
	const char *sysrq;       /* /proc/sysrq-trigger, or a test's file (--sysrq) */
	bool test_sysrq;         /* a test's file: no reboot(2), no wait */
	const char *newroot;     /* pre-pivot: where dracut mounted the root */
	const char *init;        /* pre-pivot, refused line: the init dracut's init.sh runs */
	bool other_init;         /* pre-pivot: real_init= or rd.distroinit= (dracut runs another) */
	bool systemd;            /* systemd in the initramfs: /sysroot is sysroot.mount's */
	const char *no_recovery; /* why the recovery root is not tried (fail --reason) */
	unsigned shell_next;     /* exit 3: the fail list's entry after the shell */
	bool saved_cmdline;      /* pre-pivot: the line setup saved (the systemd unit) */
	int saved_r;             /* reading it failed: why (saved_err) */
	struct vi_error saved_err;
	char line[VI_MAX_CMDLINE + 1];
	char saved_init[VI_MAX_PATH];
};

/* The options every verb of the runtime takes, and those of some (each verb checks its own). */
struct dracut_args {
	const char *cmdline;      /* --cmdline: dracut's getcmdline; NULL: /proc/cmdline */
	const char *kmsg;         /* --kmsg FILE: a test's stand-in for /dev/kmsg */
	const char *reason;       /* fail --reason CODE */
	const char *unit;         /* fail, before-shell --unit UNIT */
	bool fallback;            /* setup --fallback */
	int resume;               /* --resume N: the fail list from entry N; -1: none */
};

/* The answer on stdout (VERITY_RESULT, VERITY_ACTION, VERITY_NEXT when next is not 0,
 * VERITY_REASON when a failure is recorded); returns code. */
int vi_dracut_answer(struct agent *a, const char *result, const char *action, unsigned next,
		     int code);
/* Walk the fail list from entry first with the runtime's actions, and answer. Returns the
 * exit code: 0 recovered, EXIT_SHELL, or 1 after the panic. */
int vi_dracut_walk(struct agent *a, unsigned first);
/* Remove the mapping name if there is one; 0 when it is gone, else logged. */
int vi_dracut_remove_mapping(struct agent *a, const char *name);
/* Whether the recovery root was tried in this boot (its marker in the run directory). */
bool vi_dracut_recovery_marked(const struct agent *a);

/* `pre-pivot` (dracut-prepivot.c): the exit code, or -EINVAL for options it does not take. */
int vi_dracut_pre_pivot(struct agent *a, const struct dracut_args *o);

#endif
