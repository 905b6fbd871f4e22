// SPDX-License-Identifier: LGPL-2.1-or-later
/* The rollback floor's NV counter on the TPM device (include/tpmnv.h): which commands of
 * include/tpm2.h are sent, in which order, and what their answers decide. */
#include "tpmnv.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "tpm.h"
#include "tpm2.h"

/* Send a command built by build for index; the raw response in rsp. */
static int send(const char *dev, int (*build)(uint32_t, uint8_t *, size_t, struct vi_error *),
		uint32_t index, uint8_t *rsp, size_t size, size_t *ret_len, struct vi_error *err)
{
	uint8_t cmd[VI_TPM_NV_CMD_MAX];
	int len = build(index, cmd, sizeof(cmd), err);

	if (len < 0)
		return len;
	return vi_tpm_exchange(dev, cmd, (size_t)len, rsp, size, ret_len, err);
}

/* A command whose success carries nothing but the session's answer. */
static int send_checked(const char *dev,
			int (*build)(uint32_t, uint8_t *, size_t, struct vi_error *),
			uint32_t index, uint32_t *ret_rc, struct vi_error *err)
{
	uint8_t rsp[VI_TPM_RSP_MAX];
	size_t n = 0;
	int r = send(dev, build, index, rsp, sizeof(rsp), &n, err);

	*ret_rc = 0;
	if (r < 0)
		return r;
	return vi_tpm_response_check(rsp, n, ret_rc, err);
}

static int read_value(const char *dev, uint32_t index, uint32_t *ret_rc, uint64_t *ret,
		      struct vi_error *err)
{
	uint8_t rsp[VI_TPM_RSP_MAX];
	size_t n = 0;
	int r = send(dev, vi_tpm_nv_read_command, index, rsp, sizeof(rsp), &n, err);

	*ret_rc = 0;
	if (r < 0)
		return r;
	return vi_tpm_nv_read_parse(rsp, n, ret_rc, ret, err);
}

int vi_tpm_floor_read(const char *dev, uint32_t index, bool define, struct vi_tpm_floor *ret,
		      struct vi_error *err)
{
	struct vi_tpm_floor f = { 0 };
	struct vi_tpm_nv_public pub;
	uint8_t rsp[VI_TPM_RSP_MAX];
	uint32_t rc = 0;
	size_t n = 0;
	int r;

	r = send(dev, vi_tpm_nv_read_public_command, index, rsp, sizeof(rsp), &n, err);
	if (r < 0)
		return r;
	r = vi_tpm_nv_public_parse(rsp, n, &rc, &pub, err);
	if (r == -EIO && vi_tpm_rc_no_index(rc)) {
		if (!define)
			return vi_errno(err, -ENOENT, "no TPM NV index 0x%08x", index);
		r = send_checked(dev, vi_tpm_nv_define_floor_command, index, &rc, err);
		if (r < 0)
			return vi_err_wrap(err, r, "defining TPM NV counter 0x%08x: ", index);
		f.defined = true;
		pub = (struct vi_tpm_nv_public){ .index = index, .name_alg = VI_TPM_ALG_SHA256,
						 .attrs = VI_TPM_FLOOR_ATTRS,
						 .data_size = VI_TPM_NV_COUNTER_SIZE };
	} else if (r < 0) {
		return vi_err_wrap(err, r, "reading TPM NV index 0x%08x: ", index);
	}
	r = vi_tpm_nv_floor_check(&pub, index, err);
	if (r < 0)
		return r;
	f.locked = (pub.attrs & VI_TPMA_NV_WRITELOCKED) != 0;
	r = read_value(dev, index, &rc, &f.value, err);
	if (r == -EIO && rc == VI_TPM_RC_NV_UNINITIALIZED && !define) {
		f.value = 0;   /* no value yet: below every manifest version (>= 1) */
		r = 0;
	} else if (r == -EIO && rc == VI_TPM_RC_NV_UNINITIALIZED) {
		r = send_checked(dev, vi_tpm_nv_increment_command, index, &rc, err);
		if (r == 0)
			r = read_value(dev, index, &rc, &f.value, err);
		f.initialized = true;
	}
	if (r < 0)
		return vi_err_wrap(err, r, "TPM NV counter 0x%08x: ", index);
	*ret = f;
	return 0;
}

int vi_tpm_floor_raise(const char *dev, uint32_t index, uint64_t to, unsigned max_steps,
		       uint64_t *ret_value, struct vi_error *err)
{
	struct vi_tpm_floor f = { 0 };
	uint64_t v;
	uint32_t rc;
	int r;

	/* the index checked to be the floor's again: it may have changed since the boot */
	r = vi_tpm_floor_read(dev, index, false, &f, err);
	if (r < 0)
		return r;
	v = *ret_value = f.value;
	if (v >= to)
		return 0;
	if (to - v > max_steps)
		return vi_errno(err, -ERANGE, "raising TPM NV counter 0x%08x from %llu to %llu takes "
				"more than %u increments", index, (unsigned long long)v,
				(unsigned long long)to, max_steps);
	/* bounded too by the steps: a TPM whose counter does not move must not hold us here */
	for (unsigned k = 0; v < to; k++) {
		if (k == max_steps)
			return vi_errno(err, -EIO, "TPM NV counter 0x%08x at %llu after %u increments",
					index, (unsigned long long)v, k);
		r = send_checked(dev, vi_tpm_nv_increment_command, index, &rc, err);
		if (r == 0)
			r = read_value(dev, index, &rc, &v, err);
		if (r < 0)
			return vi_err_wrap(err, r, "incrementing TPM NV counter 0x%08x: ", index);
		*ret_value = v;
	}
	return 0;
}

int vi_tpm_floor_lock(const char *dev, uint32_t index, uint32_t *ret_rc, struct vi_error *err)
{
	int r = send_checked(dev, vi_tpm_nv_write_lock_command, index, ret_rc, err);

	if (r < 0)
		return vi_err_wrap(err, r, "write-locking TPM NV counter 0x%08x: ", index);
	return 0;
}

/* --- systemd's verity NvPCR, one descriptor for the whole sequence --- */

struct nv {
	int fd;
	const char *dev;
	uint32_t index;
};

/* A command built into cmd (len bytes, or the builder's error), sent on the descriptor; the raw
 * answer in rsp. */
static int nv_call(const struct nv *nv, const uint8_t *cmd, int len, uint8_t *rsp,
		   size_t *ret_len, struct vi_error *err)
{
	if (len < 0)
		return len;
	return vi_tpm_call(nv->fd, nv->dev, cmd, (size_t)len, rsp, VI_TPM_RSP_MAX, ret_len, err);
}

static int nv_public(const struct nv *nv, uint32_t *ret_rc, struct vi_tpm_nv_public *pub,
		     struct vi_error *err)
{
	uint8_t cmd[VI_TPM_NV_CMD_MAX], rsp[VI_TPM_RSP_MAX];
	size_t n = 0;
	int r = nv_call(nv, cmd, vi_tpm_nv_read_public_command(nv->index, cmd, sizeof(cmd), err),
			rsp, &n, err);

	*ret_rc = 0;
	if (r < 0)
		return r;
	return vi_tpm_nv_public_parse(rsp, n, ret_rc, pub, err);
}

/* An owner command whose success carries only the session's answer (define, undefine). */
static int nv_owner(const struct nv *nv, int (*build)(uint32_t, uint8_t *, size_t,
						       struct vi_error *), struct vi_error *err)
{
	uint8_t cmd[VI_TPM_NV_CMD_MAX], rsp[VI_TPM_RSP_MAX];
	size_t n = 0;
	int r = nv_call(nv, cmd, build(nv->index, cmd, sizeof(cmd), err), rsp, &n, err);

	return r < 0 ? r : vi_tpm_response_check(rsp, n, NULL, err);
}

/* One write of data through a fresh policy session: PolicyNvWritten(written), the OR of the
 * index's two branches, NV_Extend (which ends the session; a session left by a failure goes
 * with the descriptor). The caller's nonce only feeds HMACs and parameter encryption, which
 * this session has neither of: a constant serves. */
static int nv_policy_extend(const struct nv *nv, bool written, const uint8_t *first,
			    const uint8_t *data, struct vi_error *err)
{
	static const uint8_t nonce[16] = { 'v', 'e', 'r', 'i', 't', 'y', '-', 'i', 'n', 'i',
					   't', '-', 'n', 'v', 'p', 'c' };
	uint8_t cmd[VI_TPM_NV_CMD_MAX], rsp[VI_TPM_RSP_MAX];
	uint32_t session = 0;
	size_t n = 0;
	int r;

	r = nv_call(nv, cmd, vi_tpm_policy_session_command(nonce, cmd, sizeof(cmd), err), rsp,
		    &n, err);
	if (r == 0)
		r = vi_tpm_policy_session_parse(rsp, n, NULL, &session, err);
	if (r == 0)
		r = nv_call(nv, cmd, vi_tpm_policy_nv_written_command(session, written, cmd,
								       sizeof(cmd), err),
			    rsp, &n, err);
	if (r == 0)
		r = vi_tpm_plain_response_check(rsp, n, NULL, err);
	if (r == 0)
		r = nv_call(nv, cmd, vi_tpm_policy_or_nvpcr_command(session, first, cmd, sizeof(cmd),
								     err),
			    rsp, &n, err);
	if (r == 0)
		r = vi_tpm_plain_response_check(rsp, n, NULL, err);
	if (r == 0)
		r = nv_call(nv, cmd, vi_tpm_nv_extend_command(nv->index, session, data,
							       VI_TPM_NVPCR_SIZE, cmd, sizeof(cmd),
							       err),
			    rsp, &n, err);
	if (r == 0)
		r = vi_tpm_response_check(rsp, n, NULL, err);
	return r;
}

static int nvpcr_extend(const struct nv *nv, const uint8_t data[32], const uint8_t *its_first,
			struct vi_tpm_nvpcr *f, struct vi_error *err)
{
	static const uint8_t anchor[VI_TPM_NVPCR_SIZE];
	struct vi_tpm_nv_public pub;
	uint32_t rc = 0;
	int r;

	r = nv_public(nv, &rc, &pub, err);
	if (r == -EIO && vi_tpm_rc_no_index(rc)) {
		r = nv_owner(nv, vi_tpm_nv_define_nvpcr_command, err);
		if (r < 0)
			return vi_err_wrap(err, r, "defining TPM NV index 0x%08x: ", nv->index);
		f->defined = true;
		r = nv_public(nv, &rc, &pub, err);
	}
	if (r < 0)
		return vi_err_wrap(err, r, "reading TPM NV index 0x%08x: ", nv->index);
	r = vi_tpm_nvpcr_check(&pub, nv->index, err);
	if (r < 0)
		return r;
	if (r == 0 && (pub.attrs & VI_TPMA_NV_WRITTEN) && !its_first)
		return vi_errno(err, -EPERM, "TPM NvPCR 0x%08x was written this boot under another "
				"policy (systemd's) and its first branch is unknown: the agent cannot "
				"extend it", nv->index);
	if (r == 0 && (pub.attrs & VI_TPMA_NV_WRITTEN)) {
		f->theirs = true;
	} else if (r == 0) {
		/* as systemd-tpm2-setup replaces an NvPCR whose policy is not its own */
		r = nv_owner(nv, vi_tpm_nv_undefine_command, err);
		if (r == 0)
			r = nv_owner(nv, vi_tpm_nv_define_nvpcr_command, err);
		if (r < 0)
			return vi_err_wrap(err, r, "replacing TPM NvPCR 0x%08x: ", nv->index);
		f->replaced = true;
		pub.attrs &= ~VI_TPMA_NV_WRITTEN;
	}
	if (!(pub.attrs & VI_TPMA_NV_WRITTEN)) {
		r = nv_policy_extend(nv, false, NULL, anchor, err);
		if (r < 0)
			return vi_err_wrap(err, r, "first write of TPM NvPCR 0x%08x: ", nv->index);
		f->anchored = true;
	}
	r = nv_policy_extend(nv, true, f->theirs ? its_first : NULL, data, err);
	if (r < 0)
		return vi_err_wrap(err, r, "extending TPM NvPCR 0x%08x: ", nv->index);
	r = nv_public(nv, &rc, &pub, err);
	if (r < 0)
		return vi_err_wrap(err, r, "reading TPM NV index 0x%08x: ", nv->index);
	f->name_size = pub.name_size;
	memcpy(f->name, pub.name, pub.name_size);
	return 0;
}

int vi_tpm_nvpcr_extend(const char *dev, uint32_t index, const uint8_t data[32],
			const uint8_t *its_first, struct vi_tpm_nvpcr *ret, struct vi_error *err)
{
	struct vi_tpm_nvpcr f = { 0 };
	struct nv nv = { -1, dev, index };
	int r;

	nv.fd = vi_tpm_open(dev, err);
	if (nv.fd < 0)
		return nv.fd;
	r = nvpcr_extend(&nv, data, its_first, &f, err);
	close(nv.fd);
	if (r == 0)
		*ret = f;
	return r;
}
