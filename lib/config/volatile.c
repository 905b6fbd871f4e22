// SPDX-License-Identifier: LGPL-2.1-or-later
/* systemd.volatile= and verity.volatile= (include/volatile.h). Pure. */
#include "volatile.h"

#include "strutil.h"

int vi_volatile_parse(const char *val, size_t len, enum vi_volatile *ret, struct vi_error *err)
{
	bool b;

	if (!val) {
		*ret = VI_VOLATILE_YES;
		return 0;
	}
	if (vi_parse_bool(val, len, &b) == 0) {
		*ret = b ? VI_VOLATILE_YES : VI_VOLATILE_NO;
		return 0;
	}
	if (vi_str_eq(val, len, "state")) {
		*ret = VI_VOLATILE_STATE;
		return 0;
	}
	if (vi_str_eq(val, len, "overlay")) {
		*ret = VI_VOLATILE_OVERLAY;
		return 0;
	}
	return vi_err(err, "not a volatile mode (yes, no, state or overlay)");
}

static int word(const struct vi_volatile_word *w, enum vi_volatile *ret, struct vi_error *err)
{
	char kn[32];
	int r = vi_volatile_parse(w->val, w->val_len, ret, err);

	if (r < 0) {
		vi_sanitize(w->key, w->key_len, kn, sizeof(kn));
		return vi_err_wrap(err, r, "%s: ", kn);
	}
	return 0;
}

int vi_volatile_resolve(const struct vi_volatile_word *sd, const struct vi_volatile_word *ours,
			enum vi_volatile *ret, struct vi_error *err)
{
	enum vi_volatile a = VI_VOLATILE_NO, b = VI_VOLATILE_NO;
	int r;

	if (sd->set) {
		r = word(sd, &a, err);
		if (r < 0)
			return r;
	}
	if (ours->set) {
		r = word(ours, &b, err);
		if (r < 0)
			return r;
		if (sd->set && a != b)
			return vi_err(err, "'systemd.volatile' and 'verity.volatile' give different "
				      "values; refusing to guess");
		a = b;
	}
	if (a == VI_VOLATILE_STATE && !sd->set)
		return vi_err(err, "verity.volatile=state: the root's systemd puts the tmpfs on "
			      "/var and reads only systemd.volatile=: give systemd.volatile=state");
	*ret = a;
	return 0;
}

const char *vi_volatile_name(enum vi_volatile m)
{
	switch (m) {
	case VI_VOLATILE_YES:
		return "yes";
	case VI_VOLATILE_STATE:
		return "state";
	case VI_VOLATILE_OVERLAY:
		return "overlay";
	case VI_VOLATILE_NO:
		break;
	}
	return "no";
}
