// SPDX-License-Identifier: LGPL-2.1-or-later
/* The rollback floor's NV counter, by hand (include/tpmnv.h). Big-endian throughout:
 *
 *   NV_ReadPublic   8001 | size | 00000169 | nvIndex
 *                -> 8001 | size | rc | TPM2B_NV_PUBLIC (size u16 | nvIndex u32 | nameAlg u16 |
 *                   attributes u32 | authPolicy u16+bytes | dataSize u16) | TPM2B_NAME
 *   NV_Read         8002 | size | 0000014e | authHandle (the index) | nvIndex | 00000009 |
 *                   password session | size u16 (8) | offset u16 (0)
 *                -> 8002 | size | rc | parameterSize u32 | TPM2B_MAX_NV_BUFFER | session
 *   NV_Increment    8002 | size | 00000134 | authHandle (the index) | nvIndex | 00000009 |
 *                   password session
 *   NV_WriteLock    8002 | size | 00000138 | authHandle (the index) | nvIndex | 00000009 |
 *                   password session
 *   NV_DefineSpace  8002 | size | 0000012a | TPM_RH_OWNER | 00000009 | password session |
 *                   TPM2B_AUTH (empty) | TPM2B_NV_PUBLIC (14 bytes)
 *
 * The password session (TPM_RS_PW, empty nonce, attributes 0, empty password) is 9 bytes; the
 * session's answer in a response is nonce u16+bytes | attributes u8 | hmac u16+bytes. */
#include "tpmnv.h"

#include <errno.h>
#include <string.h>

#include "tpm.h"
#include "tpmwire.h"

#define ST_NO_SESSIONS   0x8001u
#define ST_SESSIONS      0x8002u
#define CC_NV_DEFINE     0x0000012au
#define CC_NV_INCREMENT  0x00000134u
#define CC_NV_WRITELOCK  0x00000138u
#define CC_NV_READ       0x0000014eu
#define CC_NV_READPUBLIC 0x00000169u
#define RH_OWNER         0x40000001u
#define HEADER           10u
#define SESSION_SIZE     VI_TPM_PW_SESSION_LEN
#define PUBLIC_SIZE      14u   /* the floor's TPMS_NV_PUBLIC: no authPolicy */
#define COUNTER_SIZE     8u
#define POLICY_MAX       64u   /* the largest digest: SHA-512 */

int vi_tpm_nv_index_parse(const char *v, size_t n, uint32_t *ret)
{
	uint32_t u = 0;
	size_t i = 2;

	for (; n == 10 && !strncmp(v, "0x", 2) && i < n; i++) {
		char c = v[i];

		if (c >= '0' && c <= '9')
			u = u << 4 | (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			u = u << 4 | (uint32_t)(c - 'a' + 10);
		else
			break;
	}
	if (i != 10 || u < VI_TPM_NV_OWNER_FIRST || u > VI_TPM_NV_OWNER_LAST)
		return -EINVAL;
	*ret = u;
	return 0;
}

static int room(size_t len, size_t size, struct vi_error *err)
{
	if (len > size)
		return vi_errno(err, -ENOBUFS, "TPM NV command of %zu bytes", len);
	return 0;
}

int vi_tpm_nv_read_public_command(uint32_t index, uint8_t *buf, size_t size,
				  struct vi_error *err)
{
	struct vi_tpm_put w = { buf };
	int r = room(HEADER + 4, size, err);

	if (r < 0)
		return r;
	vi_tpm_put16(&w, ST_NO_SESSIONS);
	vi_tpm_put32(&w, HEADER + 4);
	vi_tpm_put32(&w, CC_NV_READPUBLIC);
	vi_tpm_put32(&w, index);
	return (int)(w.p - buf);
}

/* A command on index authorized by the index itself: NV_Read, NV_Increment, NV_WriteLock. */
static int index_command(uint32_t cc, uint32_t index, size_t params, uint8_t *buf, size_t size,
			 struct vi_tpm_put *w, struct vi_error *err)
{
	size_t len = HEADER + 4 + 4 + 4 + SESSION_SIZE + params;
	int r = room(len, size, err);

	if (r < 0)
		return r;
	w->p = buf;
	vi_tpm_put16(w, ST_SESSIONS);
	vi_tpm_put32(w, (uint32_t)len);
	vi_tpm_put32(w, cc);
	vi_tpm_put32(w, index);   /* authHandle: the index (TPMA_NV_AUTHREAD / AUTHWRITE) */
	vi_tpm_put32(w, index);
	vi_tpm_put_pw_session(w);
	return (int)len;
}

int vi_tpm_nv_read_command(uint32_t index, uint8_t *buf, size_t size, struct vi_error *err)
{
	struct vi_tpm_put w;
	int len = index_command(CC_NV_READ, index, 4, buf, size, &w, err);

	if (len < 0)
		return len;
	vi_tpm_put16(&w, COUNTER_SIZE);
	vi_tpm_put16(&w, 0);   /* offset */
	return len;
}

int vi_tpm_nv_increment_command(uint32_t index, uint8_t *buf, size_t size, struct vi_error *err)
{
	struct vi_tpm_put w;

	return index_command(CC_NV_INCREMENT, index, 0, buf, size, &w, err);
}

int vi_tpm_nv_write_lock_command(uint32_t index, uint8_t *buf, size_t size, struct vi_error *err)
{
	struct vi_tpm_put w;

	return index_command(CC_NV_WRITELOCK, index, 0, buf, size, &w, err);
}

int vi_tpm_nv_define_floor_command(uint32_t index, uint8_t *buf, size_t size,
				   struct vi_error *err)
{
	size_t len = HEADER + 4 + 4 + SESSION_SIZE + 2 + 2 + PUBLIC_SIZE;
	struct vi_tpm_put w = { buf };
	int r = room(len, size, err);

	if (r < 0)
		return r;
	vi_tpm_put16(&w, ST_SESSIONS);
	vi_tpm_put32(&w, (uint32_t)len);
	vi_tpm_put32(&w, CC_NV_DEFINE);
	vi_tpm_put32(&w, RH_OWNER);
	vi_tpm_put_pw_session(&w);
	vi_tpm_put16(&w, 0);                   /* the index's authorization value: empty */
	vi_tpm_put16(&w, PUBLIC_SIZE);
	vi_tpm_put32(&w, index);
	vi_tpm_put16(&w, VI_TPM_ALG_SHA256);   /* nameAlg */
	vi_tpm_put32(&w, VI_TPM_FLOOR_ATTRS);
	vi_tpm_put16(&w, 0);                   /* authPolicy: none */
	vi_tpm_put16(&w, COUNTER_SIZE);
	return (int)len;
}

/* A reader over a response: every take checks what is left. */
struct take {
	const uint8_t *p;
	size_t left;
	bool short_;
};

static uint32_t take_n(struct take *t, unsigned n)
{
	uint32_t v = 0;

	if (t->short_ || t->left < n) {
		t->short_ = true;
		return 0;
	}
	for (unsigned i = 0; i < n; i++)
		v = v << 8 | t->p[i];
	t->p += n;
	t->left -= n;
	return v;
}

static void skip(struct take *t, size_t n)
{
	if (t->short_ || t->left < n) {
		t->short_ = true;
		return;
	}
	t->p += n;
	t->left -= n;
}

/* The header, with the tag the command was sent with. */
static int header(const uint8_t *rsp, size_t len, uint16_t want_tag, uint32_t *ret_rc,
		  struct take *t, struct vi_error *err)
{
	uint32_t rc = 0;
	int tag = vi_tpm_response_header(rsp, len, &rc, err);

	if (ret_rc)
		*ret_rc = rc;
	if (tag < 0)
		return tag;
	if (tag != want_tag)
		return vi_errno(err, -EPROTO, "TPM NV response with tag 0x%04x", (unsigned)tag);
	t->p = rsp + HEADER;
	t->left = len - HEADER;
	t->short_ = false;
	return 0;
}

int vi_tpm_nv_public_parse(const uint8_t *rsp, size_t len, uint32_t *ret_rc,
			   struct vi_tpm_nv_public *ret, struct vi_error *err)
{
	struct vi_tpm_nv_public pub;
	struct take t;
	size_t outer, inner_start, name;
	int r;

	r = header(rsp, len, ST_NO_SESSIONS, ret_rc, &t, err);
	if (r < 0)
		return r;
	outer = take_n(&t, 2);
	inner_start = t.left;
	pub.index = take_n(&t, 4);
	pub.name_alg = (uint16_t)take_n(&t, 2);
	pub.attrs = take_n(&t, 4);
	pub.policy_size = (uint16_t)take_n(&t, 2);
	if (pub.policy_size > POLICY_MAX)
		return vi_errno(err, -EPROTO, "TPM NV public area with a %u-byte policy",
				pub.policy_size);
	skip(&t, pub.policy_size);
	pub.data_size = (uint16_t)take_n(&t, 2);
	if (t.short_ || inner_start - t.left != outer)
		return vi_errno(err, -EPROTO, "TPM NV public area of %zu bytes says it has %zu",
				t.short_ ? 0 : inner_start - t.left, outer);
	name = take_n(&t, 2);
	skip(&t, name);
	if (t.short_ || t.left)
		return vi_errno(err, -EPROTO, "TPM NV_ReadPublic response of %zu bytes: its name "
				"does not end it", len);
	*ret = pub;
	return 0;
}

int vi_tpm_nv_read_parse(const uint8_t *rsp, size_t len, uint32_t *ret_rc, uint64_t *ret,
			 struct vi_error *err)
{
	uint64_t v = 0;
	struct take t;
	size_t params, n;
	int r;

	r = header(rsp, len, ST_SESSIONS, ret_rc, &t, err);
	if (r < 0)
		return r;
	params = take_n(&t, 4);
	n = take_n(&t, 2);
	if (t.short_ || params != 2 + COUNTER_SIZE || n != COUNTER_SIZE)
		return vi_errno(err, -EPROTO, "TPM NV_Read response: %zu parameter bytes, %zu data "
				"bytes (a counter is %u)", params, n, COUNTER_SIZE);
	v = (uint64_t)take_n(&t, 4) << 32;
	v |= take_n(&t, 4);
	skip(&t, take_n(&t, 2));   /* the session's answer: nonce, attributes, hmac */
	skip(&t, 1);
	skip(&t, take_n(&t, 2));
	if (t.short_ || t.left)
		return vi_errno(err, -EPROTO, "TPM NV_Read response of %zu bytes: its session "
				"does not end it", len);
	*ret = v;
	return 0;
}

bool vi_tpm_rc_no_index(uint32_t rc)
{
	/* TPM_RC_HANDLE (format 1: 0x080 | 0x00b), for handle 1 (0x100) or without a number:
	 * NV_ReadPublic's one handle. For a session (bit 11) or a parameter (bit 6) it means
	 * something else. */
	return rc == 0x18bu || rc == 0x08bu;
}

int vi_tpm_nv_floor_check(const struct vi_tpm_nv_public *pub, uint32_t index,
			  struct vi_error *err)
{
	uint32_t attrs;

	if (pub->index != index)
		return vi_errno(err, -EPERM, "the TPM answered for NV index 0x%08x, not 0x%08x",
				pub->index, index);
	if ((pub->attrs & 0xf0u) != VI_TPMA_NV_TPM_NT_COUNTER)
		return vi_errno(err, -EPERM, "TPM NV index 0x%08x is not a counter (type %u)",
				index, (pub->attrs >> 4) & 0xfu);
	attrs = pub->attrs & ~(VI_TPMA_NV_WRITTEN | VI_TPMA_NV_WRITELOCKED);
	if (attrs == VI_TPM_FLOOR_ATTRS_UNLOCKABLE)
		return vi_errno(err, -EPERM, "TPM NV counter 0x%08x cannot be write-locked "
				"(attributes 0x%08x): undefine it (tpm2_nvundefine 0x%08x -C o), the "
				"next boot defines it again", index, pub->attrs, index);
	if (attrs != VI_TPM_FLOOR_ATTRS ||
	    pub->name_alg != VI_TPM_ALG_SHA256 || pub->policy_size || pub->data_size != COUNTER_SIZE)
		return vi_errno(err, -EPERM, "TPM NV counter 0x%08x is not the floor's (attributes "
				"0x%08x, name algorithm 0x%04x, policy %u bytes; the floor's: 0x%08x, "
				"sha256, none)", index, pub->attrs, pub->name_alg, pub->policy_size,
				VI_TPM_FLOOR_ATTRS);
	return 0;
}

/* --- the device --- */

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
						 COUNTER_SIZE };
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
