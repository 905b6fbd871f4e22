// SPDX-License-Identifier: LGPL-2.1-or-later
/* Printing a resolved vi_config: "key=value" for people and tests, or VERITY_KEY='value' lines
 * that a POSIX shell's eval turns back into the values, and that the dracut module reads without
 * eval (vi_answer in dracut-module/verity-init-lib.sh). Same fields, same order, both styles. */
#include "config_print.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hex.h"
#include "strutil.h"
#include "usrcfg.h"
#include "vopts.h"

struct printer {
	FILE *f;
	enum vi_print_style style;
	int r;
};

/* key: the KV name ("recovery.data"); the shell name is VERITY_ + upper-cased key with '.'
 * turned into '_'. */
static void field(struct printer *p, const char *key, const char *val)
{
	char name[64];
	size_t i;

	if (p->r < 0)
		return;
	if (p->style == VI_PRINT_SHELL) {
		memcpy(name, "VERITY_", 7);
		for (i = 0; key[i] && i + 8 < sizeof(name); i++) {
			char c = key[i];

			name[7 + i] = c == '.' ? '_' : (c >= 'a' && c <= 'z') ? (char)(c - 32) : c;
		}
		name[7 + i] = '\0';
		if (fprintf(p->f, "%s=", name) < 0 || vi_shell_quote(p->f, val) < 0 ||
		    fputc('\n', p->f) == EOF)
			p->r = -EIO;
	} else {
		char clean[4 * VI_MAX_OPTIONS + 1];

		vi_sanitize(val, strlen(val), clean, sizeof(clean));
		if (fprintf(p->f, "%s=%s\n", key, clean) < 0)
			p->r = -EIO;
	}
}

static void fbool(struct printer *p, const char *key, bool b)
{
	field(p, key, p->style == VI_PRINT_SHELL ? (b ? "1" : "0") : (b ? "yes" : "no"));
}

static void fnum(struct printer *p, const char *key, unsigned long long v)
{
	char s[24];

	snprintf(s, sizeof(s), "%llu", v);
	field(p, key, s);
}

static void target(struct printer *p, const struct vi_target *t, const char *prefix)
{
	char key[48], hex[2 * VERITY_MAX_DIGEST + 1] = "", opts[VI_MAX_OPTIONS + 1024];

#define K(s) (snprintf(key, sizeof(key), "%s%s", prefix, s), key)
	fbool(p, K("enabled"), t->enabled);
	field(p, K("name"), t->name);
	if (t->root_hash_len)
		vi_hex_encode(t->root_hash, t->root_hash_len, hex, sizeof(hex));
	field(p, K("roothash"), hex);
	field(p, K("data"), t->data.spec);
	field(p, K("hash"), t->hash.spec);
	field(p, K("fec"), t->fec.spec);
	if (vi_vopts_format(t, opts, sizeof(opts)) < 0)
		p->r = -ENOBUFS;
	field(p, K("options"), opts);
	fbool(p, K("discovered"), t->discovered);
	field(p, K("source"), !t->enabled ? "" : t->from_dm_create ? "dm-mod.create" : "cmdline");
	if (t->from_dm_create) {
		field(p, K("dm_uuid"), t->dm_uuid);
		if (t->dm_minor >= 0)
			fnum(p, K("dm_minor"), (unsigned long long)t->dm_minor);
		else
			field(p, K("dm_minor"), "");
		fnum(p, K("dm_sectors"), t->dm_sectors);
		field(p, K("sig_key_desc"), t->sig_key_desc);
	}
#undef K
}

int vi_config_print(FILE *f, const struct vi_config *cfg, enum vi_print_style style)
{
	struct printer p = { f, style, 0 };
	char fail[64] = "";
	size_t n = 0;

	target(&p, &cfg->root, "");
	for (unsigned i = 0; i < VI_MAX_FAIL && cfg->fail[i] != VI_FAIL_NONE; i++) {
		const char *a = vi_fail_action_name(cfg->fail[i]);

		if (a)
			n += (size_t)snprintf(fail + n, sizeof(fail) - n, "%s%s", n ? "," : "", a);
	}
	field(&p, "fail", fail);
	fnum(&p, "timeout", cfg->timeout_s);
	field(&p, "sig", cfg->root.sig_path);
	field(&p, "manifest", cfg->manifest);
	fbool(&p, "require_signature", cfg->require_signature);
	fbool(&p, "disabled", cfg->verity_disabled);
	fbool(&p, "off_allowed", cfg->verity_off_allowed);
	fbool(&p, "shell_allowed", cfg->shell_allowed);
	field(&p, "root", cfg->root_dev);
	fbool(&p, "root_ignored", cfg->root_dev_ignored);
	field(&p, "rootfstype", cfg->rootfstype);
	field(&p, "rootflags", cfg->rootflags);
	field(&p, "init", cfg->init);
	fbool(&p, "ro", cfg->ro);
	field(&p, "volatile", vi_volatile_name(cfg->volatile_mode));
	target(&p, &cfg->recovery, "recovery.");
	/* only with a verified /usr: the lines above stay what they were without one */
	if (cfg->usr.enabled) {
		target(&p, &cfg->usr, "usr.");
		field(&p, "usr.sig", cfg->usr.sig_path);
		field(&p, "usr.mount", cfg->usr_dev);
		field(&p, "usr.fstype", cfg->usrfstype);
		field(&p, "usr.flags", cfg->usrflags);
		field(&p, "layout", vi_layout_name(cfg->layout));
		fbool(&p, "rw", cfg->rw);
	}
	if (p.r == 0 && fflush(f) == EOF)
		p.r = -EIO;
	return p.r;
}
