// SPDX-License-Identifier: LGPL-2.1-or-later
/* The initramfs policy file (grammar in include/policy.h). The command line may be edited by
 * whoever sits at the bootloader; this file is inside the initramfs, so it decides what the
 * command line may weaken. */
#include "policy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "strutil.h"

static const struct {
	const char *name;
	uint32_t bit;
} weak_names[] = {
	{ "ignore-corruption",            VI_WEAK_IGNORE_CORRUPTION },
	{ "check-at-most-once",           VI_WEAK_CHECK_AT_MOST_ONCE },
	{ "ignore-zero-blocks",           VI_WEAK_IGNORE_ZERO_BLOCKS },
	{ "no-superblock",                VI_WEAK_NO_SUPERBLOCK },
	{ "data-blocks-below-superblock", VI_WEAK_DATA_BLOCKS_BELOW_SB },
	{ "verity-off",                   VI_WEAK_VERITY_OFF },
};

const char *vi_weak_name(uint32_t weak)
{
	for (size_t i = 0; i < sizeof(weak_names) / sizeof(weak_names[0]); i++)
		if (weak_names[i].bit == weak)
			return weak_names[i].name;
	return NULL;
}

bool vi_policy_allows(const struct vi_policy *p, uint32_t weak)
{
	return weak && (p->allow_weak & weak) == weak;
}

void vi_policy_init(struct vi_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->fail[0] = VI_FAIL_PANIC;
	p->timeout_s = VI_DEFAULT_TIMEOUT_S;
	p->tpm_pcr = VI_POLICY_TPM_PCR_DEFAULT;
	p->tpm_measure = VI_TPM_MEASURE_PCR;
	snprintf(p->slot_store, sizeof(p->slot_store), "%s", VI_POLICY_SLOT_STORE_DEFAULT);
	snprintf(p->slot_prefix, sizeof(p->slot_prefix), "%s", VI_POLICY_SLOT_PREFIX_DEFAULT);
	p->slot_floor_nv = VI_TPM_FLOOR_NV_DEFAULT;
}

enum pkey {
	P_FAIL, P_TIMEOUT, P_ALLOW_SHELL, P_ALLOW_WEAK, P_REQSIG, P_MIN_VERSION, P_INIT,
	P_INIT_ENV, P_REQ_MANIFEST, P_REQ_TPM, P_TPM_PCR, P_IPE_POLICY, P_SLOTS,
	P_SLOT_STORE, P_SLOT_PREFIX, P_ALLOW_UNVERIFIED_ROOT, P_SLOT_FLOOR, P_SLOT_FLOOR_NV,
	P_TPM_MEASURE, P_SLOT_FULL_READ, P_MANAGED,
	P__MAX
};

static const char *const pkeys[P__MAX] = {
	[P_FAIL] = "fail", [P_TIMEOUT] = "timeout", [P_ALLOW_SHELL] = "allow_shell",
	[P_ALLOW_WEAK] = "allow_weak", [P_REQSIG] = "require_signature",
	[P_MIN_VERSION] = "min_version", [P_INIT] = "init", [P_INIT_ENV] = "init_env",
	[P_REQ_MANIFEST] = "require_manifest", [P_REQ_TPM] = "require_tpm",
	[P_TPM_PCR] = "tpm_pcr", [P_IPE_POLICY] = "ipe_policy", [P_SLOTS] = "slots",
	[P_SLOT_STORE] = "slot_store", [P_SLOT_PREFIX] = "slot_prefix",
	[P_ALLOW_UNVERIFIED_ROOT] = "allow_unverified_root", [P_SLOT_FLOOR] = "slot_floor",
	[P_SLOT_FLOOR_NV] = "slot_floor_nv", [P_TPM_MEASURE] = "tpm_measure",
	[P_SLOT_FULL_READ] = "slot_full_read", [P_MANAGED] = "managed",
};

const char *vi_policy_forced_modparams(const struct vi_policy *p)
{
	return p->require_kernel_signature ? "dm_verity.require_signatures=1" : NULL;
}

bool vi_env_name_forbidden(const char *name, size_t len)
{
	static const char *const prefixes[] = {
		"LD_", "MALLOC_", "GLIBC_", "SYSTEMD_", "LISTEN_", "RD_", "DRACUT_", "BASH_",
		"DM_", "BLKID_", "LIBMOUNT_", "UDEV_", "PYTHON", "PERL", "RUBY", "NODE_", "LUA_",
	};
	static const char *const names[] = {
		"GCONV_PATH", "GETCONF_DIR", "HOSTALIASES", "LOCALDOMAIN", "LOCPATH", "NIS_PATH",
		"NLSPATH", "RESOLV_HOST_CONF", "RES_OPTIONS", "TMPDIR", "TZDIR", "TZ", "PATH",
		"IFS", "ENV", "SHELLOPTS", "BASHOPTS", "CDPATH", "PS4", "HOME", "SHELL",
		"NOTIFY_SOCKET", "CREDENTIALS_DIRECTORY", "INVOCATION_ID", "MANAGERPID",
		"WATCHDOG_PID", "WATCHDOG_USEC", "TERMINFO", "TERMINFO_DIRS", "TERMCAP",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i]);

		if (len >= n && memcmp(name, prefixes[i], n) == 0)
			return true;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (vi_str_eq(name, len, names[i]))
			return true;
	return false;
}

bool vi_policy_env_allowed(const struct vi_policy *p, const char *name, size_t len)
{
	if (vi_env_name_forbidden(name, len))
		return false;
	if (vi_str_eq(name, len, "TERM") || vi_str_eq(name, len, "BOOT_IMAGE"))
		return true;
	for (unsigned i = 0; i < p->init_env_count; i++)
		if (vi_str_eq(name, len, p->init_env[i]))
			return true;
	return false;
}

static int env_list(struct vi_policy *p, const char *s, size_t len, struct vi_error *err)
{
	size_t start = 0;

	p->init_env_count = 0;
	if (len == 0 || (len == 4 && memcmp(s, "none", 4) == 0))
		return 0;
	for (size_t i = 0; i <= len; i++) {
		size_t n = i - start;
		char w[64];

		if (i < len && s[i] != ',')
			continue;
		vi_sanitize(s + start, n, w, sizeof(w));
		if (!vi_env_name(s + start, n))
			return vi_err(err, "init_env: '%s' is not an environment name "
				      "([A-Z_][A-Z0-9_]*)", w);
		if (vi_env_name_forbidden(s + start, n))
			return vi_err(err, "init_env: '%s' loads code or reconfigures the system "
				      "and is never taken from the command line", w);
		if (p->init_env_count == VI_MAX_ENV)
			return vi_err(err, "init_env: more than %u names", VI_MAX_ENV);
		memcpy(p->init_env[p->init_env_count], s + start, n);
		p->init_env[p->init_env_count][n] = '\0';
		p->init_env_count++;
		start = i + 1;
	}
	return 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int weak_list(const char *s, size_t len, uint32_t *ret, struct vi_error *err)
{
	uint32_t bits = 0;
	size_t start = 0;

	if (len == 0 || (len == 4 && memcmp(s, "none", 4) == 0)) {
		*ret = 0;
		return 0;
	}
	for (size_t i = 0; i <= len; i++) {
		bool found = false;
		char w[64];

		if (i < len && s[i] != ',')
			continue;
		for (size_t k = 0; k < sizeof(weak_names) / sizeof(weak_names[0]); k++)
			if (strlen(weak_names[k].name) == i - start &&
			    memcmp(weak_names[k].name, s + start, i - start) == 0) {
				bits |= weak_names[k].bit;
				found = true;
			}
		if (!found) {
			vi_sanitize(s + start, i - start, w, sizeof(w));
			return vi_err(err, "allow_weak: unknown option '%s'", w);
		}
		start = i + 1;
	}
	*ret = bits;
	return 0;
}

/* slots=: "a,b", "a,b,c" or "a,b,c,d" (the store's slot names, in order); "none": off. */
static int slot_list(struct vi_policy *p, const char *v, size_t n, struct vi_error *err)
{
	static const char *const lists[] = { "a,b", "a,b,c", "a,b,c,d" };

	if (vi_str_eq(v, n, "none")) {
		p->slot_count = 0;
		return 0;
	}
	for (unsigned i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		if (vi_str_eq(v, n, lists[i])) {
			p->slot_count = i + 2;
			return 0;
		}
	return vi_err(err, "slots: not a,b / a,b,c / a,b,c,d (or none)");
}

/* slot_prefix=: the start of the slots' partition labels, [A-Za-z0-9._-]; the longest label
 * (PREFIX + "d-verity") must fit GPT's 36 characters. */
static int slot_prefix(struct vi_policy *p, const char *v, size_t n, struct vi_error *err)
{
	if (n == 0 || n + sizeof("d-verity") - 1 > 36)
		return vi_err(err, "slot_prefix: 1 to %zu characters", 36 - (sizeof("d-verity") - 1));
	for (size_t i = 0; i < n; i++)
		if (!((v[i] >= 'a' && v[i] <= 'z') || (v[i] >= 'A' && v[i] <= 'Z') ||
		      (v[i] >= '0' && v[i] <= '9') || v[i] == '.' || v[i] == '_' || v[i] == '-'))
			return vi_err(err, "slot_prefix: only letters, digits, '.', '_' and '-'");
	memcpy(p->slot_prefix, v, n);
	p->slot_prefix[n] = '\0';
	return 0;
}

/* The yes/no keys: one field each, one message. */
static bool *bool_field(struct vi_policy *p, enum pkey k)
{
	switch (k) {
	case P_ALLOW_SHELL: return &p->allow_shell;
	case P_REQ_MANIFEST: return &p->require_manifest;
	case P_ALLOW_UNVERIFIED_ROOT: return &p->allow_unverified_root;
	case P_REQ_TPM: return &p->require_tpm;
	case P_SLOT_FULL_READ: return &p->slot_full_read;
	case P_MANAGED: return &p->managed;
	default: return NULL;
	}
}

/* init= and ipe_policy=: an absolute path as the init check accepts it (no "..", no control
 * characters, shorter than VI_MAX_PATH); ipe_policy= also takes "none". */
static int set_path(char dst[VI_MAX_PATH], const char *key, bool none_ok, const char *v, size_t n,
		    struct vi_error *err)
{
	struct vi_error e;

	if (none_ok && vi_str_eq(v, n, "none")) {
		dst[0] = '\0';
		return 0;
	}
	if (vi_init_path_check(v, n, &e) < 0)
		return vi_err(err, "%s: %s", key, e.msg);
	memcpy(dst, v, n);   /* n < VI_MAX_PATH: checked above */
	dst[n] = '\0';
	return 0;
}

static int set_value(struct vi_policy *p, enum pkey k, const char *v, size_t n,
		     struct vi_error *err)
{
	bool *flag = bool_field(p, k);
	uint64_t u;

	if (flag) {
		if (vi_parse_bool(v, n, flag) < 0)
			return vi_err(err, "%s: not yes or no", pkeys[k]);
		return 0;
	}
	switch (k) {
	case P_FAIL:
		p->fail_set = true;
		return vi_fail_list_parse(v, n, p->fail, err);
	case P_TIMEOUT:
		if (vi_parse_u64(v, n, &u) < 0 || u > VI_MAX_TIMEOUT_S)
			return vi_err(err, "timeout: not a number of seconds between 0 and %u",
				      VI_MAX_TIMEOUT_S);
		p->timeout_s = (unsigned)u;
		p->timeout_set = true;
		return 0;
	case P_ALLOW_WEAK:
		return weak_list(v, n, &p->allow_weak, err);
	case P_REQSIG:
		if (vi_str_eq(v, n, "kernel")) {
			p->require_signature = p->require_kernel_signature = true;
			return 0;
		}
		if (vi_parse_bool(v, n, &p->require_signature) < 0)
			return vi_err(err, "require_signature: not yes, no or kernel");
		return 0;
	case P_MIN_VERSION:
		if (vi_parse_u64(v, n, &p->min_version) < 0)
			return vi_err(err, "min_version: not a decimal number");
		return 0;
	case P_INIT:
		return set_path(p->init, pkeys[k], false, v, n, err);
	case P_INIT_ENV:
		return env_list(p, v, n, err);
	case P_TPM_PCR:
		/* the operating system's static PCRs: 0-7 belong to the firmware, 16 and 23 can
		 * be reset by anyone, 17-22 only by a dynamic launch and not extended from here */
		if (vi_parse_u64(v, n, &u) < 0 || u < 8 || u > 15)
			return vi_err(err, "tpm_pcr: not one of the operating system's PCRs (8-15)");
		p->tpm_pcr = (unsigned)u;
		return 0;
	case P_TPM_MEASURE:
		if (vi_str_eq(v, n, "pcr"))
			p->tpm_measure = VI_TPM_MEASURE_PCR;
		else if (vi_str_eq(v, n, "nvpcr"))
			p->tpm_measure = VI_TPM_MEASURE_NVPCR;
		else if (vi_str_eq(v, n, "both"))
			p->tpm_measure = VI_TPM_MEASURE_PCR | VI_TPM_MEASURE_NVPCR;
		else
			return vi_err(err, "tpm_measure: not pcr, nvpcr or both");
		return 0;
	case P_IPE_POLICY:
		return set_path(p->ipe_policy, pkeys[k], true, v, n, err);
	case P_SLOTS:
		return slot_list(p, v, n, err);
	case P_SLOT_STORE: {
		struct vi_error e;

		/* the characters of a command-line device spec too: the value reaches the log
		 * and the status file, which `slot` and RAUC's backend read */
		if (n >= sizeof(p->slot_store) || vi_devspec_check(v, n, false, &e) < 0 ||
		    vi_devspec_chars_check("slot_store", v, n, &e) < 0)
			return vi_err(err, "slot_store: %s", n >= sizeof(p->slot_store) ?
				      "too long" : e.msg);
		memcpy(p->slot_store, v, n);
		p->slot_store[n] = '\0';
		return 0;
	}
	case P_SLOT_PREFIX:
		return slot_prefix(p, v, n, err);
	case P_SLOT_FLOOR:
		if (!vi_str_eq(v, n, "store") && !vi_str_eq(v, n, "tpm"))
			return vi_err(err, "slot_floor: not store or tpm");
		p->slot_floor_tpm = vi_str_eq(v, n, "tpm");
		return 0;
	case P_ALLOW_SHELL:
	case P_REQ_MANIFEST:
	case P_ALLOW_UNVERIFIED_ROOT:
	case P_REQ_TPM:
	case P_SLOT_FULL_READ:
	case P_MANAGED:
		break;   /* bool_field() */
	case P_SLOT_FLOOR_NV:
		if (vi_tpm_nv_index_parse(v, n, &p->slot_floor_nv) < 0)
			return vi_err(err, "slot_floor_nv: not an NV index of the owner's range "
				      "(0x%08x to 0x%08x)", VI_TPM_NV_OWNER_FIRST,
				      VI_TPM_NV_OWNER_LAST);
		return 0;
	case P__MAX:
		break;
	}
	return -EINVAL;
}

int vi_policy_parse(const char *buf, size_t len, struct vi_policy *ret, struct vi_error *err)
{
	struct { const char *v; size_t n; } seen[P__MAX] = { { NULL, 0 } };
	struct vi_policy p;
	unsigned line = 0;
	size_t pos = 0;

	if (len > VI_POLICY_MAX_SIZE) {
		vi_err(err, "policy file larger than %u bytes", VI_POLICY_MAX_SIZE);
		return -E2BIG;
	}
	if (len && memchr(buf, '\0', len))
		return vi_err(err, "policy file contains a NUL byte");
	vi_policy_init(&p);
	while (pos < len) {
		const char *l = buf + pos, *nl = memchr(l, '\n', len - pos), *eq;
		size_t n = nl ? (size_t)(nl - l) : len - pos, kn, vs, vn;
		struct vi_error e;
		enum pkey k = P__MAX;
		int r;

		pos += n + (nl ? 1 : 0);
		line++;
		if (n > VI_POLICY_MAX_LINE)
			return vi_err(err, "policy line %u: longer than %u bytes", line,
				      VI_POLICY_MAX_LINE);
		while (n && is_blank(*l)) {
			l++;
			n--;
		}
		while (n && is_blank(l[n - 1]))
			n--;
		if (n == 0 || l[0] == '#')
			continue;
		for (size_t i = 0; i < n; i++)
			if (l[i] != '\t' && !vi_str_printable(l + i, 1))
				return vi_err(err, "policy line %u: control characters", line);
		eq = memchr(l, '=', n);
		if (!eq)
			return vi_err(err, "policy line %u: expected key=value", line);
		kn = (size_t)(eq - l);
		while (kn && is_blank(l[kn - 1]))
			kn--;
		vs = (size_t)(eq - l) + 1;
		while (vs < n && is_blank(l[vs]))
			vs++;
		vn = n - vs;
		for (unsigned i = 0; i < P__MAX; i++)
			if (vi_str_eq(l, kn, pkeys[i]))
				k = (enum pkey)i;
		if (k == P__MAX) {
			char kk[64];

			vi_sanitize(l, kn, kk, sizeof(kk));
			return vi_err(err, "policy line %u: unknown key '%s'", line, kk);
		}
		if (seen[k].v) {
			if (seen[k].n != vn || memcmp(seen[k].v, l + vs, vn) != 0)
				return vi_err(err, "policy line %u: '%s' given twice with different "
					      "values", line, pkeys[k]);
			continue;
		}
		seen[k].v = l + vs;
		seen[k].n = vn;
		r = set_value(&p, k, l + vs, vn, &e);
		if (r < 0)
			return vi_err(err, "policy line %u: %s", line, e.msg);
	}
	*ret = p;
	return 0;
}

int vi_policy_load(const char *path, struct vi_policy *ret, struct vi_error *err)
{
	size_t len = 0;
	char *buf;
	int r;

	buf = malloc(VI_POLICY_MAX_SIZE);
	if (!buf) {
		vi_err(err, "out of memory reading %s", path);
		return -ENOMEM;
	}
	r = vi_fileio_read_file_at(AT_FDCWD, path, FILEIO_REGULAR, buf, VI_POLICY_MAX_SIZE, &len);
	if (r == -ENOENT) {
		vi_policy_init(ret);
		r = 0;
	} else if (r == -EFBIG) {
		/* refused rather than cut, as vi_policy_parse refuses it */
		vi_err(err, "policy file larger than %u bytes", VI_POLICY_MAX_SIZE);
		r = -E2BIG;
	} else if (r < 0) {
		vi_err(err, "cannot read %s: %s", path, strerror(-r));
	} else {
		r = vi_policy_parse(buf, len, ret, err);
	}
	free(buf);
	return r;
}
