/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the kernel command line hands to the booted system, read word by word by
 * vi_cmdline_parse (lib/config/cmdline.c) into struct vi_config's env_names and handover_*:
 * the environment words and the switches that hand control to a shell or to code no signature
 * covers (docs/security.md). Pure (lib/config/cmdline_handover.c). */
#ifndef VERITY_CMDLINE_HANDOVER_H
#define VERITY_CMDLINE_HANDOVER_H

#include <stdbool.h>

#include "cmdtoken.h"
#include "config.h"
#include "err.h"

struct vi_cmdline_handover {
	char env[VI_MAX_ENV][VI_MAX_ENV_NAME];   /* names of init's environment, each once */
	unsigned env_count;
	bool handover;                           /* a switch that hands control away */
	char handover_key[48];                   /* the first one, sanitized */
};

/*
 * A NAME=value word before "--" (t->val set), which the kernel puts in init's environment:
 * refused (-EINVAL) when NAME has no dot and is no name a program takes as a variable (bash
 * would import BASH_FUNC_x%% as a function), or for TERM= a value that is no terminal name;
 * an environment name (vi_env_name) is recorded in h. More than VI_MAX_ENV names: -EINVAL.
 */
int vi_cmdline_env_word(const struct vi_cmdline_tok *t, struct vi_cmdline_handover *h,
			struct vi_error *err);

/*
 * Any word, also after "--" (systemd reads its runlevel words there): a switch of systemd
 * (with or without "rd."), the kernel or dracut that hands control to a shell or to unchecked
 * code sets h->handover (the policy decides); systemd.setenv=NAME=... records NAME as an
 * environment name. Fails only as vi_cmdline_env_word does on too many names.
 */
int vi_cmdline_handover_word(const struct vi_cmdline_tok *t, struct vi_cmdline_handover *h,
			     struct vi_error *err);

#endif
