// SPDX-License-Identifier: LGPL-2.1-or-later
/* The agent's signature step: see include/trust.h. */
#include "trust.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "devices.h"
#include "dps_sig.h"
#include "dirnames.h"
#include "fileio.h"
#include "hex.h"
#include "keyring.h"
#include "strutil.h"
#include "vopts.h"

/* Paths are absolute by contract; under rootfd they are opened relative to it. */
static const char *rel(int rootfd, const char *path)
{
	if (rootfd == AT_FDCWD)
		return path;
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

static int read_file(int rootfd, const char *path, char *buf, size_t cap, size_t *ret_len,
		     const char *what, struct vi_error *err)
{
	char s[96];
	int r = vi_fileio_read_file_at(rootfd, rel(rootfd, path), FILEIO_REGULAR, buf, cap,
				    ret_len);

	if (r == 0)
		return 0;
	vi_sanitize(path, strlen(path), s, sizeof(s));
	if (r == -EFBIG)
		vi_err(err, "%s %s is larger than %zu bytes", what, s, cap);
	else
		vi_err(err, "%s %s: %s", what, s, strerror(-r));
	return r;
}

int vi_keys_load(int rootfd, const char *dir, struct vi_keyset *ret, struct vi_error *err)
{
	struct vi_dir_names names;
	int fd, r;

	ret->n = 0;
	fd = openat(rootfd, rel(rootfd, dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		vi_err(err, "no public keys: %s: %s", dir, strerror(-r));
		return r == -ENOENT ? -ENOENT : r;
	}
	r = vi_dir_names(fd, dir, ".pub", VI_KEYS_MAX, sizeof(ret->file[0]), "public keys", &names,
			 err);
	for (unsigned i = 0; r == 0 && i < names.n; i++) {
		char buf[MINISIGN_MAX_FILE];
		struct vi_minisign_pubkey *k = &ret->key[ret->n];
		size_t len = 0;

		r = vi_fileio_read_file_at(fd, names.name[i], FILEIO_REGULAR, buf, sizeof(buf), &len);
		if (r < 0) {
			vi_err(err, "public key %s/%s: %s", dir, names.name[i],
			       r == -EFBIG ? "too large" : strerror(-r));
			goto out;
		}
		r = vi_minisign_pubkey_parse(buf, len, k, err);
		if (r < 0) {
			char why[sizeof(err->msg)];

			snprintf(why, sizeof(why), "%s", err->msg);
			vi_err(err, "public key %s/%s: %s", dir, names.name[i], why);
			goto out;
		}
		for (unsigned j = 0; j < ret->n; j++) {
			if (memcmp(ret->key[j].key_id, k->key_id, sizeof(k->key_id)) == 0 &&
			    memcmp(ret->key[j].pk, k->pk, sizeof(k->pk)) != 0) {
				r = vi_err(err, "public keys %s and %s have the same key id",
					   ret->file[j], names.name[i]);
				goto out;
			}
		}
		snprintf(ret->file[ret->n], sizeof(ret->file[0]), "%s", names.name[i]);
		ret->n++;
	}
	if (r == 0 && ret->n == 0) {
		vi_err(err, "no public keys (*.pub) in %s", dir);
		r = -ENOENT;
	}
out:
	vi_dir_names_free(&names);
	close(fd);
	if (r < 0)
		ret->n = 0;
	return r;
}

/* Wait for one device, read up to cap bytes at off (fewer if the device ends first). */
static int read_device(const char *spec, uint64_t off, char *buf, size_t cap, size_t *ret_len,
		       unsigned timeout_ms, uint64_t *wait_ms, struct vi_error *err)
{
	struct vi_dev d = { .spec = spec, .fd = -1 };
	uint64_t t0 = vi_now_ms();
	size_t len = 0;
	ssize_t n;
	int r;

	r = vi_devs_wait(&d, 1, timeout_ms, err);
	*wait_ms += vi_now_ms() - t0;
	if (r < 0)
		return r;
	if (off > d.size) {
		r = vi_err(err, "%s: offset %llu is beyond its end", d.name, (unsigned long long)off);
		goto out;
	}
	if (cap > d.size - off)
		cap = (size_t)(d.size - off);
	while (len < cap) {
		n = pread(d.fd, buf + len, cap - len, (off_t)(off + len));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO;
			vi_err(err, "%s: read failed: %s", d.name, strerror(-r));
			goto out;
		}
		len += (size_t)n;
	}
	*ret_len = len;
	r = 0;
out:
	vi_devs_close(&d, 1);
	return r;
}

/* The root's hash device as the command line wrote it, or its data device. */
static const char *hash_spec(const struct vi_target *t)
{
	return t->hash.spec[0] ? t->hash.spec : t->data.spec;
}

/* Bundle offset on the hash device: the tree geometry from its superblock. The superblock is
 * not trusted here: it only says where to look; the manifest then has to verify, and the
 * superblock is cross-checked against it during setup. */
static int region_offset(const struct vi_target *t, unsigned timeout_ms, uint64_t *wait_ms,
			 uint64_t *ret, struct vi_error *err)
{
	uint8_t sb[VERITY_SB_SIZE];
	struct vi_params p;
	size_t n = 0;
	int r;

	if (!t->superblock || t->params.no_superblock)
		return vi_err(err, "a manifest after the hash tree needs a superblock to find it");
	r = read_device(hash_spec(t), t->params.hash_offset, (char *)sb, sizeof(sb), &n,
			timeout_ms, wait_ms, err);
	if (r < 0)
		return r;
	if (n != sizeof(sb))
		return vi_err(err, "hash device too small for a superblock");
	memset(&p, 0, sizeof(p));
	p.hash_offset = t->params.hash_offset;
	r = vi_sb_decode(sb, &p, err);
	if (r < 0)
		return r;
	return vi_bundle_offset(&p, ret, err);
}

static bool is_file_location(const char *loc)
{
	return loc[0] == '/' && strncmp(loc, "/dev/", 5) != 0;
}

/* The step's buffers, on the heap for one vi_trust_setup call (lib keeps no state between
 * calls, and 70 KB is too much for a stack frame). */
struct trust_work {
	char buf[VI_DPS_SIG_MAX];          /* a manifest bundle, a signature file or partition */
	char sigbuf[MINISIGN_MAX_FILE];    /* a manifest's .minisig file */
	struct vi_keyset keys;
	struct vi_dps_sig dps;
};
_Static_assert(VI_BUNDLE_MAX <= VI_DPS_SIG_MAX && VI_MANIFEST_MAX <= VI_DPS_SIG_MAX &&
	       VI_P7S_MAX <= VI_DPS_SIG_MAX, "trust_work.buf holds every read of the step");

static int manifest_step(struct vi_config *cfg, const struct vi_trust_ctx *ctx,
			 struct vi_trust_result *res, struct trust_work *w,
			 struct vi_error *err)
{
	char *buf = w->buf, *sigbuf = w->sigbuf;
	struct vi_keyset *keys = &w->keys;
	struct vi_target *t = &cfg->root;
	const char *loc = cfg->manifest;
	const char *man, *sig;
	size_t man_len = 0, sig_len = 0, len = 0, sig_off = 0;
	struct vi_manifest m;
	unsigned k = 0;
	char path[VI_MAX_PATH + 16], sloc[96];
	int r;

	vi_sanitize(loc, strlen(loc), sloc, sizeof(sloc));
	r = vi_keys_load(ctx->rootfd, VI_KEYS_DIR, keys, err);
	if (r < 0)
		return r;
	if (is_file_location(loc)) {
		r = read_file(ctx->rootfd, loc, buf, VI_MANIFEST_MAX, &man_len, "manifest", err);
		if (r < 0)
			return r;
		if (snprintf(path, sizeof(path), "%s.minisig", loc) >= (int)sizeof(path))
			return vi_err(err, "manifest path too long");
		r = read_file(ctx->rootfd, path, sigbuf, sizeof(w->sigbuf), &sig_len,
			      "manifest signature", err);
		if (r < 0)
			return r;
		man = buf;
		sig = sigbuf;
		snprintf(res->source, sizeof(res->source), "%s", sloc);
	} else {
		uint64_t off = 0;
		const char *hs = hash_spec(t);
		bool region = hs[0] && vi_manifest_devspec_eq(loc, hs);

		if (region) {
			r = region_offset(t, ctx->timeout_ms, &res->wait_ms, &off, err);
			if (r < 0)
				return r;
		}
		r = read_device(loc, off, buf, VI_BUNDLE_MAX, &len, ctx->timeout_ms, &res->wait_ms,
				err);
		if (r < 0)
			return r;
		r = vi_bundle_split(buf, len, &man_len, &sig_off, &sig_len, err);
		if (r < 0)
			return r == -ENODATA ? -ENOENT : r;
		man = buf;
		sig = buf + sig_off;
		snprintf(res->source, sizeof(res->source), "%s (%s)", sloc,
			 region ? "after the hash tree" : "bundle");
	}
	r = vi_manifest_verify(keys, man, man_len, sig, sig_len, ctx->min_version, &m, &k, err);
	if (r < 0)
		return r;
	r = vi_manifest_apply(&m, t, err);
	if (r < 0)
		return r;
	res->manifest = true;
	res->version = m.version;
	vi_minisign_key_id_format(keys->key[k].key_id, res->key_id);
	snprintf(res->key_file, sizeof(res->key_file), "%s", keys->file[k]);
	return 0;
}

static int signature_step(struct vi_target *t, const struct vi_trust_ctx *ctx,
			  struct vi_trust_sig *res, uint64_t *wait_ms, struct trust_work *w,
			  struct vi_error *err)
{
	char *buf = w->buf;
	struct vi_dps_sig *dps = &w->dps;
	const char *loc = t->sig_path;
	const uint8_t *sig;
	char desc[VI_MAX_PATH];
	size_t len = 0;
	uint64_t t0 = vi_now_us(), w0 = *wait_ms, elapsed, waited;
	int32_t serial;
	int r;

	if (t->root_hash_len == 0)
		return vi_err(err, "a root-hash signature needs a root hash");
	if (strncmp(loc, VI_SIG_INLINE_PREFIX, sizeof(VI_SIG_INLINE_PREFIX) - 1) == 0) {
		/* systemd's inline form: the command line carries the DER signature itself */
		r = vi_sig_inline_decode(loc, strlen(loc), (uint8_t *)buf, VI_P7S_MAX, &len, err);
		if (r < 0)
			return r;
		sig = (const uint8_t *)buf;
	} else if (is_file_location(loc)) {
		r = read_file(ctx->rootfd, loc, buf, VI_P7S_MAX, &len, "root hash signature", err);
		if (r < 0)
			return r;
		r = vi_p7s_check((const uint8_t *)buf, len, err);
		if (r < 0)
			return r;
		sig = (const uint8_t *)buf;
	} else {
		r = read_device(loc, 0, buf, sizeof(w->buf), &len, ctx->timeout_ms, wait_ms, err);
		if (r < 0)
			return r;
		r = vi_dps_sig_parse(buf, len, dps, err);
		if (r < 0)
			return r;
		if (dps->root_hash_len != t->root_hash_len ||
		    memcmp(dps->root_hash, t->root_hash, t->root_hash_len) != 0) {
			vi_err(err, "the signature partition is for another root hash");
			return -EPERM;
		}
		sig = dps->sig;
		len = dps->sig_len;
	}
	r = vi_keyring_desc(t->name, desc, sizeof(desc));
	if (r < 0)
		return vi_err(err, "mapping name too long for a key description");
	serial = vi_keyring_add(desc, sig, len, err);
	if (serial < 0)
		return serial;
	snprintf(t->sig_key_desc, sizeof(t->sig_key_desc), "%s", desc);
	res->serial = serial;
	res->len = len;
	/* for the NvPCR measurement only: the kernel, not this, decides whether the signature is
	 * good */
	res->signers_ok = vi_p7s_signers(sig, len, res->signers, sizeof(res->signers),
					 &(struct vi_error){ "" }) == 0;
	elapsed = vi_now_us() - t0;
	waited = (*wait_ms - w0) * 1000u;
	res->own_us = elapsed > waited ? elapsed - waited : 0;
	return 0;
}

static int target_signature(struct vi_target *t, const char *label,
			    const struct vi_trust_ctx *ctx, struct vi_trust_sig *res,
			    uint64_t *wait_ms, struct trust_work *w, struct vi_error *err)
{
	char why[sizeof(err->msg)];
	int r = signature_step(t, ctx, res, wait_ms, w, err);

	if (r < 0) {
		snprintf(why, sizeof(why), "%s", err->msg);
		vi_err(err, "%s: %s", label, why);
	}
	return r;
}

/* The recovery root is a second way in: it is checked on its own, whatever happened to the root
 * (a refused root must not leave its recovery unchecked). A recovery signature that does not
 * load, or none while signatures are required, disables the recovery root (res says so; cfg
 * keeps what the command line asked for); the root's outcome is not changed by it. */
static void recovery_trust(struct vi_config *cfg, const struct vi_trust_ctx *ctx,
			   struct vi_trust_result *res, struct trust_work *w)
{
	struct vi_error rerr = { "" };

	if (!cfg->recovery.enabled)
		return;
	if (cfg->recovery.sig_path[0]) {
		if (target_signature(&cfg->recovery, "recovery root hash signature", ctx,
				     &res->recovery_sig, &res->wait_ms, w, &rerr) == 0)
			return;
		snprintf(res->recovery_note, sizeof(res->recovery_note), "%s", rerr.msg);
	} else if (cfg->require_signature) {
		snprintf(res->recovery_note, sizeof(res->recovery_note), "%s",
			 "signatures are required and it has none");
	} else {
		return;
	}
	cfg->recovery.sig_key_desc[0] = '\0';
	res->recovery_dropped = true;
}

static int root_trust(struct vi_config *cfg, const struct vi_trust_ctx *ctx,
		      struct vi_trust_result *res, struct trust_work *w, struct vi_error *err)
{
	int r;

	if (cfg->manifest[0]) {
		r = manifest_step(cfg, ctx, res, w, err);
		if (r < 0) {
			char why[sizeof(err->msg)];

			snprintf(why, sizeof(why), "%s", err->msg);
			vi_err(err, "signed manifest refused: %s", why);
			return r;
		}
	}
	if (cfg->root.enabled && cfg->root.sig_path[0]) {
		r = target_signature(&cfg->root, "root hash signature", ctx, &res->root_sig,
				     &res->wait_ms, w, err);
		if (r < 0)
			return r;
	}
	if (cfg->require_signature && cfg->root.enabled && !res->manifest &&
	    !cfg->root.sig_key_desc[0]) {
		vi_err(err, "a signed root hash is required but none was given");
		return -EPERM;
	}
	return 0;
}

/* /usr is booted with the root, so its signature is part of the root's step: a /usr that
 * does not verify fails the boot as a bad root would (never a manifest: it names the root). */
static int usr_trust(struct vi_config *cfg, const struct vi_trust_ctx *ctx,
		     struct vi_trust_result *res, struct trust_work *w, struct vi_error *err)
{
	int r;

	if (!cfg->usr.enabled)
		return 0;
	if (cfg->usr.sig_path[0]) {
		r = target_signature(&cfg->usr, "/usr hash signature", ctx, &res->usr_sig,
				     &res->wait_ms, w, err);
		if (r < 0)
			return r;
	}
	if (cfg->require_signature && !cfg->usr.sig_key_desc[0]) {
		vi_err(err, "a signed /usr hash is required but none was given");
		return -EPERM;
	}
	return 0;
}

int vi_trust_setup(struct vi_config *cfg, const struct vi_trust_ctx *ctx,
		   struct vi_trust_result *res, struct vi_error *err)
{
	struct trust_work *w;
	int r;

	memset(res, 0, sizeof(*res));
	w = calloc(1, sizeof(*w));
	if (!w) {
		vi_err(err, "out of memory for the signature step");
		return -ENOMEM;
	}
	r = root_trust(cfg, ctx, res, w, err);
	if (r == 0)
		r = usr_trust(cfg, ctx, res, w, err);
	if (r < 0) {
		if (res->usr_sig.serial > 0)
			vi_keyring_remove(res->usr_sig.serial);
		res->usr_sig.serial = 0;
		cfg->usr.sig_key_desc[0] = '\0';
		/* the root will not be activated: its key must not linger for anyone else */
		if (res->root_sig.serial > 0)
			vi_keyring_remove(res->root_sig.serial);
		res->root_sig.serial = 0;
		cfg->root.sig_key_desc[0] = '\0';
	}
	recovery_trust(cfg, ctx, res, w);
	free(w);
	return r;
}

void vi_trust_release(struct vi_trust_result *res)
{
	if (res->root_sig.serial > 0)
		vi_keyring_remove(res->root_sig.serial);
	if (res->recovery_sig.serial > 0)
		vi_keyring_remove(res->recovery_sig.serial);
	if (res->usr_sig.serial > 0)
		vi_keyring_remove(res->usr_sig.serial);
	res->usr_sig.serial = 0;
	res->root_sig.serial = 0;
	res->recovery_sig.serial = 0;
}
