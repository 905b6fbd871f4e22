// SPDX-License-Identifier: LGPL-2.1-or-later
/* From the bytes stored on disk to a trusted target (include/manifest.h): the bundle split into
 * manifest and signature, the signature and rollback check against the trusted keys, and the
 * merge of the verified manifest into the target the command line described. The manifest's
 * text itself is parsed and written by manifest.c. */
#include "manifest.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "geometry.h"
#include "params.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static bool uuid_like(const char *spec, const char **value)
{
	static const char *const prefixes[] = { "UUID=", "PARTUUID=" };

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
		size_t n = strlen(prefixes[i]);

		if (strncmp(spec, prefixes[i], n) == 0) {
			*value = spec + n;
			return true;
		}
	}
	return false;
}

bool vi_manifest_devspec_eq(const char *a, const char *b)
{
	const char *va, *vb;

	if (uuid_like(a, &va) && uuid_like(b, &vb))
		return (va - a) == (vb - b) && strncmp(a, b, (size_t)(va - a)) == 0 &&
		       strcasecmp(va, vb) == 0;
	return strcmp(a, b) == 0;
}

static int contradicts(struct vi_error *err, const char *what)
{
	return vi_errno(err, -EPERM, "command line %s contradicts the signed manifest", what);
}

/* The parameters vi_manifest_apply compares with the table's rule (the devices are compared
 * as device specs, the signature is no mapping parameter). */
#define APPLY_COMPARED (((1u << VI_PARAM_COUNT) - 1u) & ~(VI_PARAM_BIT(VI_PARAM_FEC_DEVICE) | \
			 VI_PARAM_BIT(VI_PARAM_FEC_BLOCKS) | VI_PARAM_BIT(VI_PARAM_SIGNATURE)))

int vi_manifest_apply(const struct vi_manifest *m, struct vi_target *t, struct vi_error *err)
{
	const struct vi_params *mp = &m->params;
	struct vi_target n, mt;
	char what[48];
	int p;

	if (t->from_dm_create)
		return contradicts(err, "dm-mod.create= table");
	if (t->root_hash_len &&
	    (t->root_hash_len != m->root_hash_len ||
	     memcmp(t->root_hash, m->root_hash, m->root_hash_len) != 0))
		return contradicts(err, "root hash");
	if (t->data.spec[0] && !vi_manifest_devspec_eq(t->data.spec, m->data.spec))
		return contradicts(err, "data device");
	/* An explicit hash device equal to the data device means the same as "none". */
	if (t->hash.spec[0] &&
	    !vi_manifest_devspec_eq(t->hash.spec, m->hash.spec[0] ? m->hash.spec : m->data.spec))
		return contradicts(err, "hash device");
	if (t->fec.spec[0] && !vi_manifest_devspec_eq(t->fec.spec, m->fec.spec))
		return contradicts(err, "fec-device=");
	/* superblock=false is a setting even where superblock= was not written */
	n = *t;
	if (!n.superblock)
		n.given |= VI_GIVEN_SUPERBLOCK;
	vi_manifest_target(m, &mt);
	p = vi_target_conflict(&n, &mt, APPLY_COMPARED);
	if (p == VI_PARAM_CORRUPTION)
		return contradicts(err, "corruption option");
	if (p == VI_PARAM_IOERROR)
		return contradicts(err, "error option");
	if (p >= 0) {
		snprintf(what, sizeof(what), "%s%s", vi_param_name((enum vi_param)p, VI_SPELL_VOPTS),
			 vi_param_has_value((enum vi_param)p) ? "=" : "");
		return contradicts(err, what);
	}

	/* Everything that shapes the mapping now comes from the manifest alone. */
	n = *t;
	n.enabled = true;
	memcpy(n.root_hash, m->root_hash, m->root_hash_len);
	n.root_hash_len = m->root_hash_len;
	n.data = m->data;
	n.hash = m->hash;
	n.fec = m->fec;
	n.params = *mp;
	n.given = VI_GIVEN_HASH_NAME | VI_GIVEN_FORMAT | VI_GIVEN_DATA_BS | VI_GIVEN_HASH_BS |
		  VI_GIVEN_DATA_BLOCKS | VI_GIVEN_HASH_OFFSET | VI_GIVEN_SALT |
		  VI_GIVEN_SUPERBLOCK | (m->has_uuid ? VI_GIVEN_UUID : 0) |
		  (m->fec.spec[0] ? VI_GIVEN_FEC_OFFSET | VI_GIVEN_FEC_ROOTS : 0);
	n.fec_offset = m->fec_offset;
	n.fec_roots = m->fec_roots;
	n.opts = m->opts;
	n.superblock = !mp->no_superblock;
	n.discovered = false;
	*t = n;
	return 0;
}

int vi_bundle_split(const char *buf, size_t len, size_t *ret_manifest_len, size_t *ret_sig_off,
		    size_t *ret_sig_len, struct vi_error *err)
{
	static const char sep[] = "\nuntrusted comment: ";
	const char *nul, *s;
	size_t end = len;

	if (len > VI_BUNDLE_MAX)
		return vi_err(err, "bundle larger than %u bytes", VI_BUNDLE_MAX);
	if (len == 0 || buf[0] == '\0')
		return vi_errno(err, -ENODATA, "no manifest stored (region is empty)");
	nul = memchr(buf, '\0', len);
	if (nul) {
		end = (size_t)(nul - buf);
		for (size_t i = end; i < len; i++)
			if (buf[i] != '\0')
				return vi_err(err, "bundle: data after the NUL padding");
	}
	s = memmem(buf, end, sep, sizeof(sep) - 1);
	if (!s)
		return vi_err(err, "bundle: no minisign signature after the manifest");
	*ret_manifest_len = (size_t)(s - buf) + 1;
	*ret_sig_off = *ret_manifest_len;
	*ret_sig_len = end - *ret_sig_off;
	return 0;
}

int vi_bundle_offset(const struct vi_params *p, uint64_t *ret, struct vi_error *err)
{
	struct vi_geometry g;
	int r;

	r = vi_geometry_compute(p, &g, err);
	if (r < 0)
		return r;
	*ret = g.hash_device_size;
	return 0;
}

int vi_manifest_verify(const struct vi_keyset *keys, const char *man, size_t man_len,
		       const char *sig, size_t sig_len, uint64_t min_version,
		       struct vi_manifest *ret, unsigned *ret_key, struct vi_error *err)
{
	struct vi_minisign_sig s;
	struct vi_manifest m;
	char id[17];
	unsigned k;
	int r;

	r = vi_minisign_sig_parse(sig, sig_len, &s, err);
	if (r < 0)
		return vi_err_wrap(err, -EINVAL, "manifest signature: ");
	for (k = 0; k < keys->n; k++)
		if (memcmp(keys->key[k].key_id, s.key_id, sizeof(s.key_id)) == 0)
			break;
	vi_minisign_key_id_format(s.key_id, id);
	if (k == keys->n)
		return vi_errno(err, -ENOKEY, "manifest signed by key %s, which is not a trusted key",
				id);
	/* The size cap is the manifest's: a huge "manifest" is not even hashed. */
	if (man_len > VI_MANIFEST_MAX)
		return vi_errno(err, -E2BIG, "manifest larger than %u bytes", VI_MANIFEST_MAX);
	r = vi_minisign_verify(&keys->key[k], &s, (const uint8_t *)man, man_len, false, err);
	if (r < 0)
		return vi_err_wrap(err, r, "manifest signature (key %s): ", id);
	r = vi_manifest_parse(man, man_len, &m, err);
	if (r < 0)
		return r;
	if (m.version < min_version)
		return vi_errno(err, -ESTALE,
				"manifest version %llu is below the minimum %llu (rollback refused)",
				(unsigned long long)m.version, (unsigned long long)min_version);
	*ret = m;
	*ret_key = k;
	return 0;
}
