// SPDX-License-Identifier: LGPL-2.1-or-later
/* What the kernel command line hands to the booted system (include/cmdline_handover.h): the
 * environment words init and systemd's services get, and the switches that hand control to a
 * shell or to code no signature covers. Pure. */
#include "cmdline_handover.h"

#include <string.h>

#include "strutil.h"

static int env_add(struct vi_cmdline_handover *h, const char *name, size_t n,
		   struct vi_error *err)
{
	for (unsigned i = 0; i < h->env_count; i++)
		if (vi_str_eq(name, n, h->env[i]))
			return 0;
	if (h->env_count == VI_MAX_ENV)
		return vi_err(err, "more than %u environment words on the command line", VI_MAX_ENV);
	memcpy(h->env[h->env_count], name, n);
	h->env[h->env_count][n] = '\0';
	h->env_count++;
	return 0;
}

/* Letters, digits, '_' and '-' (the kernel reads '-' in a parameter name as '_'). */
static bool plain_name(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-'))
			return false;
	return n > 0;
}

int vi_cmdline_env_word(const struct vi_cmdline_tok *t, struct vi_cmdline_handover *h,
			struct vi_error *err)
{
	char kn[64];
	int r;

	/* NAME=value without a dot: the kernel makes it init's environment, and that of every hook
	 * dracut's shell init runs. bash imports a function from any variable named
	 * BASH_FUNC_name%% (or BASH_FUNC_name()), so such a word would replace the module's own
	 * shell functions: a name no program takes as a variable is refused. */
	if (!memchr(t->key, '.', t->key_len) &&
	    (vi_has_prefix(t->key, t->key_len, "BASH_FUNC_") || !plain_name(t->key, t->key_len))) {
		vi_sanitize(t->key, t->key_len, kn, sizeof(kn));
		return vi_err(err, "%s=: reaches init's environment under a name no program takes as "
			      "a variable (a shell would import it as a function)", kn);
	}
	if (!vi_env_name(t->key, t->key_len))
		return 0;
	r = env_add(h, t->key, t->key_len, err);
	if (r < 0)
		return r;
	/* init and every shell read TERM: a terminal name, nothing a shell interprets */
	if (vi_str_eq(t->key, t->key_len, "TERM"))
		for (size_t i = 0; i < t->val_len; i++) {
			char c = t->val[i];

			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '+' ||
			      c == '-'))
				return vi_err(err, "TERM=: not a terminal name");
		}
	return 0;
}

static void handover(struct vi_cmdline_handover *h, const struct vi_cmdline_tok *t)
{
	if (h->handover)
		return;
	h->handover = true;
	vi_sanitize(t->key, t->key_len, h->handover_key, sizeof(h->handover_key));
}

static bool val_is(const struct vi_cmdline_tok *t, const char *v)
{
	return t->val && vi_str_eq(t->val, t->val_len, v);
}

/* systemd's parse_boolean() false words; anything else (a typo included) counts as on. */
static bool systemd_false(const struct vi_cmdline_tok *t)
{
	static const char *const no[] = { "0", "no", "n", "false", "f", "off" };

	if (!t->val)
		return false;
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (vi_key_eq(t->val, t->val_len, no[i]))
			return true;
	return false;
}

static bool ends_with_n(const char *s, size_t n, const char *suffix)
{
	size_t m = strlen(suffix);

	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/*
 * Switches of systemd (in the initramfs with an "rd." prefix, in the booted system without),
 * the kernel and dracut that hand control to a shell or to code no signature covers. The root
 * hash covers the root's blocks, not what these start: refused unless the initramfs policy
 * allows a shell (docs/security.md lists each, and those out of the agent's hands).
 */
int vi_cmdline_handover_word(const struct vi_cmdline_tok *t, struct vi_cmdline_handover *h,
			     struct vi_error *err)
{
	static const char *const runlevel_shells[] = {
		"emergency", "-b", "rescue", "single", "s", "S", "-s", "1",
	};
	const char *k = t->key;
	size_t n = t->key_len;

	if (!t->val) {
		for (size_t i = 0; i < sizeof(runlevel_shells) / sizeof(runlevel_shells[0]); i++)
			if (vi_str_eq(k, n, runlevel_shells[i]))
				handover(h, t);
		/* the initramfs's systemd reads these two with the "rd." prefix (a value is
		 * dracut's rd.emergency= action instead) */
		if (vi_str_eq(k, n, "rd.emergency") || vi_str_eq(k, n, "rd.rescue"))
			handover(h, t);
	}
	/* Words starting with "-" reach init as arguments, and systemd as PID 1 reads its own
	 * options there: --unit=debug-shell.service, --crash-shell, --confirm-spawn. */
	if (n > 1 && k[0] == '-' && !(n == 2 && k[1] == '-'))
		handover(h, t);
	if (n > 3 && memcmp(k, "rd.", 3) == 0) {
		k += 3;
		n -= 3;
	}
	if (vi_key_eq(k, n, "systemd.debug_shell") || vi_key_eq(k, n, "systemd.crash_shell") ||
	    /* whoever is at the console skips or fails units one by one */
	    vi_key_eq(k, n, "systemd.confirm_spawn")) {
		if (!systemd_false(t))
			handover(h, t);
	} else if (vi_key_eq(k, n, "systemd.wants") || vi_key_eq(k, n, "systemd.mask") ||
		   vi_key_eq(k, n, "systemd.run") || vi_key_eq(k, n, "resume") ||
		   /* credentials reach the booted system's units: a root password, tmpfiles */
		   vi_key_eq(k, n, "systemd.set_credential") ||
		   vi_key_eq(k, n, "systemd.set_credential_binary") ||
		   /* runs a program as root whenever a process crashes */
		   vi_key_eq(k, n, "systemd.early_core_pattern")) {
		handover(h, t);
	} else if (vi_key_eq(k, n, "systemd.unit")) {
		/* a target to boot into, never a service, and not the ones that are shells */
		if (!t->val || !ends_with_n(t->val, t->val_len, ".target") ||
		    val_is(t, "emergency.target") || val_is(t, "rescue.target") ||
		    val_is(t, "runlevel1.target"))
			handover(h, t);
	} else if (vi_key_eq(k, n, "systemd.setenv") && t->val) {
		const char *eq = memchr(t->val, '=', t->val_len);
		size_t vn = eq ? (size_t)(eq - t->val) : t->val_len;

		/* every service of the booted system gets it: the same names as init's */
		if (vi_env_name(t->val, vn))
			return env_add(h, t->val, vn, err);
	}
	return 0;
}
