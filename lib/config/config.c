// SPDX-License-Identifier: LGPL-2.1-or-later
/* A configuration's defaults (include/config.h): what every target and the boot have before
 * the command line, the policy or a manifest says anything. */
#include "config.h"

#include <stdio.h>
#include <string.h>

static void target_init(struct vi_target *t, const char *name)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->superblock = true;
	t->dm_minor = -1;
}

void vi_config_init(struct vi_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	target_init(&cfg->root, VI_DEFAULT_NAME);
	target_init(&cfg->recovery, VI_DEFAULT_RECOVERY_NAME);
	target_init(&cfg->usr, VI_DEFAULT_USR_NAME);
	cfg->fail[0] = VI_FAIL_PANIC;
	cfg->timeout_s = VI_DEFAULT_TIMEOUT_S;
	snprintf(cfg->init, sizeof(cfg->init), "%s", VI_DEFAULT_INIT);
}
