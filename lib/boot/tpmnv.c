// SPDX-License-Identifier: LGPL-2.1-or-later
/* The rollback floor's NV counter on the TPM device (include/tpmnv.h): which commands of
 * include/tpm2.h are sent, in which order, and what their answers decide. */
#include "tpmnv.h"

#include <errno.h>

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
		pub = (struct vi_tpm_nv_public){ index, VI_TPM_ALG_SHA256, VI_TPM_FLOOR_ATTRS, 0,
						 VI_TPM_NV_COUNTER_SIZE };
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
