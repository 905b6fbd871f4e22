// SPDX-License-Identifier: LGPL-2.1-or-later
/* The fail list (verity.fail=, the policy's fail=), walked the same way by PID 1 and by the
 * dracut runtime: one status line and one log record per action, in order; the actions
 * themselves are the runtime's (struct vi_fallback_ops). */
#include "agent.h"
#include "failactions.h"
#include "slot-tpm.h"

enum vi_fallback_end vi_fallback_walk(struct agent *a, const struct vi_fallback_ops *ops,
				      unsigned first, unsigned *ret_next)
{
	const enum vi_fail_action *fail_list = a->plan.cfg.fail;

	*ret_next = VI_MAX_FAIL;
	vi_slot_tpm_lock_before_fallback(&a->plan.policy, &a->slots, &a->log);
	for (unsigned i = first; i < VI_MAX_FAIL && fail_list[i] != VI_FAIL_NONE; i++) {
		enum vi_fail_action act = fail_list[i];
		const char *name = vi_fail_action_name(act);

		switch (act) {
		case VI_FAIL_RECOVERY:
			/* the runtime writes the status: for the recovery root once it is set up */
			if (ops->recovery(a) == 0)
				return VI_FALLBACK_RECOVERED;
			continue;
		case VI_FAIL_REBOOT:
			if (a->managed.no_reboot) {
				vi_kmsg_log(&a->log, KMSG_WARNING, "fallback reboot: not taken: it "
					    "would come back to the same degraded root");
				continue;
			}
			/* fall through */
		case VI_FAIL_POWEROFF:
			vi_agent_write_status(a, VI_STATUS_RESULT_FAILED, name, NULL);
			vi_kmsg_log(&a->log, KMSG_CRIT, "fallback: %s", name);
			ops->power(a, act);
			continue;
		case VI_FAIL_SHELL:
			if (!a->plan.policy.allow_shell) {
				vi_kmsg_log(&a->log, KMSG_WARNING,
					 "fallback shell: not allowed by the initramfs policy");
				continue;
			}
			if (ops->shell_refused && ops->shell_refused(a)) {
				vi_kmsg_log(&a->log, KMSG_WARNING, "fallback shell: %s",
					 ops->shell_refused(a));
				continue;
			}
			vi_agent_write_status(a, VI_STATUS_RESULT_FAILED, name, NULL);
			vi_kmsg_log(&a->log, KMSG_NOTICE, "fallback: shell");
			if (ops->shell(a)) {
				*ret_next = i + 1;
				return VI_FALLBACK_SHELL;
			}
			continue;
		case VI_FAIL_PANIC:
		case VI_FAIL_NONE:
			break;
		}
		break; /* panic */
	}
	if (a->managed.no_reboot) {
		/* a panic reboots with panic=N, managed recovery's recommended setting */
		vi_agent_write_status(a, VI_STATUS_RESULT_FAILED, "poweroff", NULL);
		vi_kmsg_log(&a->log, KMSG_CRIT, "fallback: poweroff (a panic would reboot into the "
			    "same degraded root)");
		ops->power(a, VI_FAIL_POWEROFF);
	}
	vi_agent_write_status(a, VI_STATUS_RESULT_FAILED, "panic", NULL);
	vi_kmsg_log(&a->log, KMSG_CRIT, "fallback: panic (no verified root; refusing to continue)");
	return VI_FALLBACK_PANIC;
}
