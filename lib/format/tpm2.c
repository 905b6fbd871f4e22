// SPDX-License-Identifier: LGPL-2.1-or-later
/* The TPM 2.0 commands and responses of include/tpm2.h, by hand. Big-endian throughout (Part 1,
 * "Byte ordering"); a command starts with tag u16 | size u32 | commandCode u32, a response with
 * tag u16 | size u32 | responseCode u32:
 *
 *   PCR_Event       8002 | size | 0000013c | pcrHandle (the PCR's number) | 00000009 |
 *                   password session | TPM2B_EVENT (size u16, up to 1024 bytes)
 *                -> 8002 | size | rc | parameterSize u32 | TPML_DIGEST_VALUES (count u32, then
 *                   per bank the hashAlg u16 and its digest) | session's answer
 *   NV_ReadPublic   8001 | size | 00000169 | nvIndex
 *                -> 8001 | size | rc | TPM2B_NV_PUBLIC (size u16 | nvIndex u32 | nameAlg u16 |
 *                   attributes u32 | authPolicy u16+bytes | dataSize u16) | TPM2B_NAME
 *   NV_Read         8002 | size | 0000014e | authHandle (the index) | nvIndex | 00000009 |
 *                   password session | size u16 (8) | offset u16 (0)
 *                -> 8002 | size | rc | parameterSize u32 | TPM2B_MAX_NV_BUFFER | session's answer
 *   NV_Increment    8002 | size | 00000134 | authHandle (the index) | nvIndex | 00000009 |
 *                   password session
 *   NV_WriteLock    8002 | size | 00000138 | authHandle (the index) | nvIndex | 00000009 |
 *                   password session
 *   NV_DefineSpace  8002 | size | 0000012a | TPM_RH_OWNER | 00000009 | password session |
 *                   TPM2B_AUTH (empty) | TPM2B_NV_PUBLIC (14 bytes; an NvPCR's: 46, its
 *                   authPolicy 32)
 *   NV_UndefineSpace 8002 | size | 00000122 | TPM_RH_OWNER | nvIndex | 00000009 |
 *                   password session
 *   StartAuthSession 8001 | size | 00000176 | tpmKey TPM_RH_NULL | bind TPM_RH_NULL |
 *                   nonceCaller (0010 + 16 bytes) | encryptedSalt (0000) | sessionType 01
 *                   (policy) | symmetric 0010 (TPM_ALG_NULL) | authHash 000b
 *                -> 8001 | size | rc | sessionHandle | TPM2B_NONCE nonceTPM
 *   PolicyNvWritten 8001 | size | 0000018f | policySession | writtenSet u8  -> 8001 | 10 | rc
 *   PolicyOR        8001 | size | 00000171 | policySession | TPML_DIGEST (count 2, then
 *                   0020 + 32 bytes each)  -> 8001 | 10 | rc
 *   NV_Extend       8002 | size | 00000136 | authHandle (the index) | nvIndex | 00000009 |
 *                   policy session (its handle, empty nonce, attributes 0, empty hmac) |
 *                   TPM2B_MAX_NV_BUFFER
 *
 * The password session (TPMS_AUTH_COMMAND: TPM_RS_PW, empty nonce, attributes 0, empty password)
 * is 9 bytes; the session's answer (TPMS_AUTH_RESPONSE) is nonce u16+bytes | attributes u8 |
 * hmac u16+bytes.
 *
 * The TPM hashes a PCR event with the algorithm of every bank it has allocated and extends each
 * bank with its digest, which is what TPM2_PCR_Extend with digests made here would do, without
 * the digests to make here or the banks to find: no bank can be left out, whatever its
 * algorithm. */
#include "tpm2.h"

#include <errno.h>
#include <string.h>

#define ST_NO_SESSIONS   0x8001u
#define ST_SESSIONS      0x8002u
#define CC_NV_UNDEFINE   0x00000122u
#define CC_NV_DEFINE     0x0000012au
#define CC_NV_EXTEND     0x00000136u
#define CC_POLICY_OR     0x00000171u
#define CC_START_SESSION 0x00000176u
#define CC_POLICY_NV_WRITTEN 0x0000018fu
#define CC_NV_INCREMENT  0x00000134u
#define CC_NV_WRITELOCK  0x00000138u
#define CC_PCR_EVENT     0x0000013cu
#define CC_NV_READ       0x0000014eu
#define CC_NV_READPUBLIC 0x00000169u
#define RS_PW            0x40000009u   /* TPM_RS_PW: the password "session" */
#define RH_OWNER         0x40000001u
#define RH_NULL          0x40000007u
#define SE_POLICY        0x01u
#define ALG_NULL         0x0010u
#define NONCE_SIZE       16u  /* the least nonceCaller StartAuthSession takes */
#define HEADER           10u
#define SESSION_SIZE     9u   /* the password session's TPMS_AUTH_COMMAND, as put below */
#define ANSWER_MIN       5u   /* a TPMS_AUTH_RESPONSE: empty nonce, attributes, empty hmac */
#define PUBLIC_SIZE      14u  /* the floor's TPMS_NV_PUBLIC: no authPolicy */
#define NVPCR_PUBLIC_SIZE (PUBLIC_SIZE + VI_TPM_POLICY_SIZE)
#define POLICY_MAX       64u  /* the largest digest: SHA-512 */

/* header, PCR handle, authorization size and session, TPM2B_EVENT size */
#define EVENT_CMD_HEADER (HEADER + 4u + 4u + SESSION_SIZE + 2u)
/* header, the owner's handle, authorization size and session, TPM2B_AUTH, TPM2B_NV_PUBLIC */
#define DEFINE_CMD_SIZE  (HEADER + 4u + 4u + SESSION_SIZE + 2u + 2u + PUBLIC_SIZE)
#define DEFINE_NVPCR_CMD_SIZE (DEFINE_CMD_SIZE + VI_TPM_POLICY_SIZE)
/* header, the two handles, authorization size and session, TPM2B_MAX_NV_BUFFER */
#define EXTEND_CMD_HEADER (HEADER + 4u + 4u + 4u + SESSION_SIZE + 2u)
#define EXTEND_DATA_MAX   64u
_Static_assert(VI_TPM_NV_CMD_MAX >= DEFINE_NVPCR_CMD_SIZE, "VI_TPM_NV_CMD_MAX holds NV_DefineSpace");
_Static_assert(VI_TPM_NV_CMD_MAX >= EXTEND_CMD_HEADER + EXTEND_DATA_MAX,
	       "VI_TPM_NV_CMD_MAX holds NV_Extend");

/* The three digests of include/tpm2.h's NvPCR write policy, each SHA-256 over the previous
 * policy digest (zeros at a session's start) and the policy command (Part 3, 23.x):
 *   written = H(0^32 | 0000018f | 01)         PolicyNvWritten(YES)
 *   first   = H(0^32 | 0000018f | 00)         PolicyNvWritten(NO)
 *   policy  = H(0^32 | 00000171 | first | written)   PolicyOR
 * Constants, recomputed in tests/unit/test_tpm2.c; written is the digest systemd's tools log as
 * "PolicyNvWritten calculated digest", and the OR is computed as systemd computes its own. */
static const struct vi_tpm_nvpcr_policy nvpcr_policy = {
	.written = { 0xf7, 0x88, 0x7d, 0x15, 0x8a, 0xe8, 0xd3, 0x8b, 0xe0, 0xac, 0x53, 0x19, 0xf3,
		     0x7a, 0x9e, 0x07, 0x61, 0x8b, 0xf5, 0x48, 0x85, 0x45, 0x3c, 0x7a, 0x54, 0xdd,
		     0xb0, 0xc6, 0xa6, 0x19, 0x3b, 0xeb },
	.first = { 0x3c, 0x32, 0x63, 0x23, 0x67, 0x0e, 0x28, 0xad, 0x37, 0xbd, 0x57, 0xf6, 0x3b,
		   0x4c, 0xc3, 0x4d, 0x26, 0xab, 0x20, 0x5e, 0xf2, 0x2f, 0x27, 0x5c, 0x58, 0xd4,
		   0x7f, 0xab, 0x24, 0x85, 0x46, 0x6e },
	.policy = { 0x45, 0xe0, 0xba, 0x58, 0xe5, 0xa0, 0x65, 0x5e, 0x57, 0x39, 0x12, 0x57, 0x0d,
		    0xd5, 0x37, 0x76, 0x91, 0xc0, 0x0e, 0x1c, 0x52, 0x3c, 0xf7, 0x81, 0xa7, 0xff,
		    0x79, 0x4a, 0x85, 0x43, 0x40, 0xcd },
};

const struct vi_tpm_nvpcr_policy *vi_tpm_nvpcr_policy(void)
{
	return &nvpcr_policy;
}

static const struct {
	uint16_t alg;
	const char *name;
	size_t size;
} algs[] = {
	{ VI_TPM_ALG_SHA1, "sha1", 20 },
	{ VI_TPM_ALG_SHA256, "sha256", 32 },
	{ VI_TPM_ALG_SHA384, "sha384", 48 },
	{ VI_TPM_ALG_SHA512, "sha512", 64 },
	{ VI_TPM_ALG_SM3_256, "sm3_256", 32 },
};

const char *vi_tpm_alg_name(uint16_t alg)
{
	for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		if (algs[i].alg == alg)
			return algs[i].name;
	return NULL;
}

size_t vi_tpm_alg_size(uint16_t alg)
{
	for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		if (algs[i].alg == alg)
			return algs[i].size;
	return 0;
}

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

/* --- commands --- */

/* A writer into a command buffer whose room command_start checked: at its start, then past
 * what it put. */
struct put {
	uint8_t *p;
};

static void put16(struct put *w, uint16_t v)
{
	w->p[0] = (uint8_t)(v >> 8);
	w->p[1] = (uint8_t)v;
	w->p += 2;
}

static void put32(struct put *w, uint32_t v)
{
	put16(w, (uint16_t)(v >> 16));
	put16(w, (uint16_t)v);
}

/* The header of a command of len bytes, when the size bytes at w have room for all of it (what
 * names the command in the refusal). */
static int command_start(struct put *w, size_t size, size_t len, uint16_t tag, uint32_t cc,
			 const char *what, struct vi_error *err)
{
	if (len > size)
		return vi_errno(err, -ENOBUFS, "%s command of %zu bytes", what, len);
	put16(w, tag);
	put32(w, (uint32_t)len);
	put32(w, cc);
	return 0;
}

/* authorizationSize, then TPMS_AUTH_COMMAND: TPM_RS_PW, an empty nonce, attributes 0 (the
 * session ends with the command) and an empty password. */
static void put_pw_session(struct put *w)
{
	put32(w, SESSION_SIZE);
	put32(w, RS_PW);
	put16(w, 0);    /* nonce */
	*w->p++ = 0;    /* session attributes */
	put16(w, 0);    /* password */
}

int vi_tpm_event_command(unsigned pcr, const char *event, size_t n, uint8_t *buf, size_t size,
			 struct vi_error *err)
{
	size_t len = EVENT_CMD_HEADER + n;
	struct put w = { buf };
	int r;

	if (pcr >= VI_TPM_NUM_PCRS)
		return vi_err(err, "PCR %u does not exist (0-%u)", pcr, VI_TPM_NUM_PCRS - 1);
	if (n == 0 || n > VI_TPM_EVENT_MAX)
		return vi_errno(err, n ? -ENOBUFS : -EINVAL, "an event of %zu bytes (1-%u)", n,
				VI_TPM_EVENT_MAX);
	r = command_start(&w, size, len, ST_SESSIONS, CC_PCR_EVENT, "PCR event", err);
	if (r < 0)
		return r;
	put32(&w, pcr);                  /* a PCR's handle is its index */
	put_pw_session(&w);
	put16(&w, (uint16_t)n);          /* TPM2B_EVENT */
	memcpy(w.p, event, n);
	return (int)len;
}

int vi_tpm_nv_read_public_command(uint32_t index, uint8_t *buf, size_t size,
				  struct vi_error *err)
{
	struct put w = { buf };
	int r = command_start(&w, size, HEADER + 4, ST_NO_SESSIONS, CC_NV_READPUBLIC, "TPM NV",
			      err);

	if (r < 0)
		return r;
	put32(&w, index);
	return (int)(HEADER + 4);
}

/* A command on index authorized by the index itself: NV_Read, NV_Increment, NV_WriteLock; the
 * params bytes of its parameters follow at w. */
static int index_command(uint32_t cc, uint32_t index, size_t params, uint8_t *buf, size_t size,
			 struct put *w, struct vi_error *err)
{
	size_t len = HEADER + 4 + 4 + 4 + SESSION_SIZE + params;
	int r;

	w->p = buf;
	r = command_start(w, size, len, ST_SESSIONS, cc, "TPM NV", err);
	if (r < 0)
		return r;
	put32(w, index);   /* authHandle: the index (TPMA_NV_AUTHREAD / AUTHWRITE) */
	put32(w, index);
	put_pw_session(w);
	return (int)len;
}

int vi_tpm_nv_read_command(uint32_t index, uint8_t *buf, size_t size, struct vi_error *err)
{
	struct put w;
	int len = index_command(CC_NV_READ, index, 4, buf, size, &w, err);

	if (len < 0)
		return len;
	put16(&w, VI_TPM_NV_COUNTER_SIZE);
	put16(&w, 0);   /* offset */
	return len;
}

int vi_tpm_nv_increment_command(uint32_t index, uint8_t *buf, size_t size, struct vi_error *err)
{
	struct put w;

	return index_command(CC_NV_INCREMENT, index, 0, buf, size, &w, err);
}

int vi_tpm_nv_write_lock_command(uint32_t index, uint8_t *buf, size_t size, struct vi_error *err)
{
	struct put w;

	return index_command(CC_NV_WRITELOCK, index, 0, buf, size, &w, err);
}

/* NV_DefineSpace of index with a SHA-256 name, an empty authorization value, attrs, the
 * policy_size bytes of policy and data_size bytes of data, authorized by the owner. */
static int define_command(uint32_t index, uint32_t attrs, const uint8_t *policy,
			  uint16_t policy_size, uint16_t data_size, uint8_t *buf, size_t size,
			  struct vi_error *err)
{
	size_t len = DEFINE_CMD_SIZE + policy_size;
	struct put w = { buf };
	int r = command_start(&w, size, len, ST_SESSIONS, CC_NV_DEFINE, "TPM NV", err);

	if (r < 0)
		return r;
	put32(&w, RH_OWNER);
	put_pw_session(&w);
	put16(&w, 0);                   /* the index's authorization value: empty */
	put16(&w, (uint16_t)(PUBLIC_SIZE + policy_size));
	put32(&w, index);
	put16(&w, VI_TPM_ALG_SHA256);   /* nameAlg */
	put32(&w, attrs);
	put16(&w, policy_size);
	if (policy_size)
		memcpy(w.p, policy, policy_size);
	w.p += policy_size;
	put16(&w, data_size);
	return (int)len;
}

int vi_tpm_nv_define_floor_command(uint32_t index, uint8_t *buf, size_t size,
				   struct vi_error *err)
{
	return define_command(index, VI_TPM_FLOOR_ATTRS, NULL, 0, VI_TPM_NV_COUNTER_SIZE, buf, size,
			      err);
}

int vi_tpm_nv_define_nvpcr_command(uint32_t index, uint8_t *buf, size_t size,
				   struct vi_error *err)
{
	return define_command(index, VI_TPM_NVPCR_ATTRS, nvpcr_policy.policy, VI_TPM_POLICY_SIZE,
			      VI_TPM_NVPCR_SIZE, buf, size, err);
}

int vi_tpm_nv_undefine_command(uint32_t index, uint8_t *buf, size_t size, struct vi_error *err)
{
	size_t len = HEADER + 4 + 4 + 4 + SESSION_SIZE;
	struct put w = { buf };
	int r = command_start(&w, size, len, ST_SESSIONS, CC_NV_UNDEFINE, "TPM NV", err);

	if (r < 0)
		return r;
	put32(&w, RH_OWNER);
	put32(&w, index);
	put_pw_session(&w);
	return (int)len;
}

int vi_tpm_policy_session_command(const uint8_t nonce[16], uint8_t *buf, size_t size,
				  struct vi_error *err)
{
	size_t len = HEADER + 4 + 4 + 2 + NONCE_SIZE + 2 + 1 + 2 + 2;
	struct put w = { buf };
	int r = command_start(&w, size, len, ST_NO_SESSIONS, CC_START_SESSION, "TPM policy", err);

	if (r < 0)
		return r;
	put32(&w, RH_NULL);            /* tpmKey: no salt */
	put32(&w, RH_NULL);            /* bind: none */
	put16(&w, NONCE_SIZE);
	memcpy(w.p, nonce, NONCE_SIZE);
	w.p += NONCE_SIZE;
	put16(&w, 0);                  /* encryptedSalt */
	*w.p++ = SE_POLICY;
	put16(&w, ALG_NULL);           /* symmetric: no parameter encryption */
	put16(&w, VI_TPM_ALG_SHA256);  /* authHash: the policy digest's */
	return (int)len;
}

int vi_tpm_policy_nv_written_command(uint32_t session, bool written, uint8_t *buf, size_t size,
				     struct vi_error *err)
{
	size_t len = HEADER + 4 + 1;
	struct put w = { buf };
	int r = command_start(&w, size, len, ST_NO_SESSIONS, CC_POLICY_NV_WRITTEN, "TPM policy",
			      err);

	if (r < 0)
		return r;
	put32(&w, session);
	*w.p++ = written ? 1 : 0;
	return (int)len;
}

int vi_tpm_policy_or_nvpcr_command(uint32_t session, const uint8_t *first, uint8_t *buf,
				   size_t size, struct vi_error *err)
{
	size_t len = HEADER + 4 + 4 + 2 * (2 + VI_TPM_POLICY_SIZE);
	struct put w = { buf };
	int r = command_start(&w, size, len, ST_NO_SESSIONS, CC_POLICY_OR, "TPM policy", err);

	if (r < 0)
		return r;
	put32(&w, session);
	put32(&w, 2);
	put16(&w, VI_TPM_POLICY_SIZE);
	memcpy(w.p, first ? first : nvpcr_policy.first, VI_TPM_POLICY_SIZE);
	w.p += VI_TPM_POLICY_SIZE;
	put16(&w, VI_TPM_POLICY_SIZE);
	memcpy(w.p, nvpcr_policy.written, VI_TPM_POLICY_SIZE);
	return (int)len;
}

int vi_tpm_nv_extend_command(uint32_t index, uint32_t session, const uint8_t *data, size_t n,
			     uint8_t *buf, size_t size, struct vi_error *err)
{
	size_t len = EXTEND_CMD_HEADER + n;
	struct put w = { buf };
	int r;

	if (n == 0 || n > EXTEND_DATA_MAX)
		return vi_errno(err, -EINVAL, "NV_Extend of %zu bytes (1-%u)", n, EXTEND_DATA_MAX);
	r = command_start(&w, size, len, ST_SESSIONS, CC_NV_EXTEND, "TPM NV", err);
	if (r < 0)
		return r;
	put32(&w, index);     /* authHandle: the index, whose policy authorizes the write */
	put32(&w, index);
	/* TPMS_AUTH_COMMAND of the policy session: no nonce, no HMAC (the policy has no
	 * PolicyAuthValue), attributes 0: the session ends with the command */
	put32(&w, SESSION_SIZE);
	put32(&w, session);
	put16(&w, 0);
	*w.p++ = 0;
	put16(&w, 0);
	put16(&w, (uint16_t)n);
	memcpy(w.p, data, n);
	return (int)len;
}

/* --- responses --- */

/* A reader over a response: every take checks what is left; once short, it stays short and
 * takes read 0. */
struct reader {
	const uint8_t *p;
	size_t left;
	bool short_;
};

static uint32_t take(struct reader *t, unsigned n)
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

static void skip(struct reader *t, size_t n)
{
	if (t->short_ || t->left < n) {
		t->short_ = true;
		return;
	}
	t->p += n;
	t->left -= n;
}

/* The header of a response of len bytes: a known tag, a size field that is len, and the
 * response code in *ret_rc (0 when there is none). Returns the tag when the code is
 * TPM_RC_SUCCESS, with t at what follows the header; -EPROTO for a malformed header, -EIO for
 * an error code. */
static int header(const uint8_t *buf, size_t len, uint32_t *ret_rc, struct reader *t,
		  struct vi_error *err)
{
	uint32_t size, rc;
	uint16_t tag;

	*ret_rc = 0;
	if (len < HEADER)
		return vi_errno(err, -EPROTO, "TPM response of %zu bytes (header is %u)", len,
				HEADER);
	*t = (struct reader){ buf, len, false };
	tag = (uint16_t)take(t, 2);
	size = take(t, 4);
	rc = take(t, 4);
	if (tag != ST_SESSIONS && tag != ST_NO_SESSIONS)
		return vi_errno(err, -EPROTO, "TPM response with tag 0x%04x", tag);
	if (size != len)
		return vi_errno(err, -EPROTO, "TPM response of %zu bytes says it has %u", len,
				size);
	*ret_rc = rc;
	if (rc != 0)
		return vi_errno(err, -EIO, "TPM refused the command: response code 0x%08x", rc);
	return tag;
}

/* The header of a success to a command sent with the password session: the parameter size and
 * the session's answer follow. */
static int session_header(const uint8_t *buf, size_t len, uint32_t *ret_rc, struct reader *t,
			  struct vi_error *err)
{
	uint32_t rc;
	int tag = header(buf, len, &rc, t, err);

	if (ret_rc)
		*ret_rc = rc;
	if (tag < 0)
		return tag;
	if (tag != ST_SESSIONS || t->left < 4 + ANSWER_MIN)
		return vi_errno(err, -EPROTO, "TPM success response of %zu bytes with tag 0x%04x",
				len, (unsigned)tag);
	return 0;
}

int vi_tpm_response_check(const uint8_t *buf, size_t len, uint32_t *ret_rc, struct vi_error *err)
{
	struct reader t;

	return session_header(buf, len, ret_rc, &t, err);
}

int vi_tpm_event_digests(const uint8_t *buf, size_t len, struct vi_tpm_digest *d,
			 size_t *ret_n, struct vi_error *err)
{
	struct reader t, list;
	size_t params, count;
	int r;

	*ret_n = 0;
	r = session_header(buf, len, NULL, &t, err);
	if (r < 0)
		return r;
	/* parameterSize, then TPML_DIGEST_VALUES; the session's answer (at least ANSWER_MIN bytes)
	 * after */
	params = take(&t, 4);
	if (params > t.left - ANSWER_MIN || params < 4)
		return vi_errno(err, -EPROTO, "PCR event response: parameters of %zu bytes in %zu",
				params, len);
	list = (struct reader){ t.p, params, false };
	count = take(&list, 4);
	if (count == 0 || count > VI_TPM_MAX_BANKS)
		return vi_errno(err, -EPROTO, "PCR event response with %zu digests (1-%u)", count,
				VI_TPM_MAX_BANKS);
	for (size_t i = 0; i < count; i++) {
		uint16_t alg;
		size_t dl;

		if (list.left < 2)
			return vi_errno(err, -EPROTO, "PCR event response: digest %zu cut short", i);
		alg = (uint16_t)take(&list, 2);
		dl = vi_tpm_alg_size(alg);
		if (!dl)
			return vi_errno(err, -EPROTO, "PCR event response: a bank of algorithm "
					"0x%04x, unknown here", alg);
		if (list.left < dl)
			return vi_errno(err, -EPROTO, "PCR event response: digest %zu cut short", i);
		for (size_t j = 0; j < i; j++)
			if (d[j].alg == alg)
				return vi_errno(err, -EPROTO, "PCR event response: two %s digests",
						vi_tpm_alg_name(alg));
		d[i].alg = alg;
		memcpy(d[i].value, list.p, dl);
		skip(&list, dl);
	}
	if (list.left)
		return vi_errno(err, -EPROTO, "PCR event response: %zu bytes after the digests",
				list.left);
	*ret_n = count;
	return 0;
}

int vi_tpm_plain_response_check(const uint8_t *buf, size_t len, uint32_t *ret_rc,
				struct vi_error *err)
{
	struct reader t;
	uint32_t rc;
	int tag = header(buf, len, &rc, &t, err);

	if (ret_rc)
		*ret_rc = rc;
	if (tag < 0)
		return tag;
	if (tag != ST_NO_SESSIONS || t.left)
		return vi_errno(err, -EPROTO, "TPM success response of %zu bytes with tag 0x%04x "
				"(a bare header was expected)", len, (unsigned)tag);
	return 0;
}

int vi_tpm_policy_session_parse(const uint8_t *rsp, size_t len, uint32_t *ret_rc,
				uint32_t *ret_session, struct vi_error *err)
{
	struct reader t;
	uint32_t rc, handle;
	size_t nonce;
	int tag = header(rsp, len, &rc, &t, err);

	if (ret_rc)
		*ret_rc = rc;
	if (tag < 0)
		return tag;
	handle = take(&t, 4);
	nonce = take(&t, 2);
	skip(&t, nonce);
	if (tag != ST_NO_SESSIONS || t.short_ || t.left || nonce > VI_TPM_MAX_DIGEST ||
	    handle >> 24 != 0x03)
		return vi_errno(err, -EPROTO, "TPM StartAuthSession response of %zu bytes: not a "
				"policy session's handle (0x%08x) and nonce", len, handle);
	*ret_session = handle;
	return 0;
}

/* The header of a response to an NV command sent with want_tag. */
static int nv_header(const uint8_t *rsp, size_t len, uint16_t want_tag, uint32_t *ret_rc,
		     struct reader *t, struct vi_error *err)
{
	uint32_t rc;
	int tag = header(rsp, len, &rc, t, err);

	if (ret_rc)
		*ret_rc = rc;
	if (tag < 0)
		return tag;
	if (tag != want_tag)
		return vi_errno(err, -EPROTO, "TPM NV response with tag 0x%04x", (unsigned)tag);
	return 0;
}

int vi_tpm_nv_public_parse(const uint8_t *rsp, size_t len, uint32_t *ret_rc,
			   struct vi_tpm_nv_public *ret, struct vi_error *err)
{
	struct vi_tpm_nv_public pub;
	struct reader t;
	size_t outer, inner_start, name;
	int r;

	r = nv_header(rsp, len, ST_NO_SESSIONS, ret_rc, &t, err);
	if (r < 0)
		return r;
	outer = take(&t, 2);
	inner_start = t.left;
	pub.index = take(&t, 4);
	pub.name_alg = (uint16_t)take(&t, 2);
	pub.attrs = take(&t, 4);
	pub.policy_size = (uint16_t)take(&t, 2);
	if (pub.policy_size > POLICY_MAX)
		return vi_errno(err, -EPROTO, "TPM NV public area with a %u-byte policy",
				pub.policy_size);
	memset(pub.policy, 0, sizeof(pub.policy));
	if (!t.short_ && t.left >= pub.policy_size)
		memcpy(pub.policy, t.p, pub.policy_size);
	skip(&t, pub.policy_size);
	pub.data_size = (uint16_t)take(&t, 2);
	if (t.short_ || inner_start - t.left != outer)
		return vi_errno(err, -EPROTO, "TPM NV public area of %zu bytes says it has %zu",
				t.short_ ? 0 : inner_start - t.left, outer);
	name = take(&t, 2);
	if (t.short_ || name > sizeof(pub.name) || t.left != name)
		return vi_errno(err, -EPROTO, "TPM NV_ReadPublic response of %zu bytes: its name "
				"does not end it", len);
	pub.name_size = (uint16_t)name;
	memset(pub.name, 0, sizeof(pub.name));
	memcpy(pub.name, t.p, name);
	*ret = pub;
	return 0;
}

int vi_tpm_nv_read_parse(const uint8_t *rsp, size_t len, uint32_t *ret_rc, uint64_t *ret,
			 struct vi_error *err)
{
	uint64_t v = 0;
	struct reader t;
	size_t params, n;
	int r;

	r = nv_header(rsp, len, ST_SESSIONS, ret_rc, &t, err);
	if (r < 0)
		return r;
	params = take(&t, 4);
	n = take(&t, 2);
	if (t.short_ || params != 2 + VI_TPM_NV_COUNTER_SIZE || n != VI_TPM_NV_COUNTER_SIZE)
		return vi_errno(err, -EPROTO, "TPM NV_Read response: %zu parameter bytes, %zu data "
				"bytes (a counter is %u)", params, n, VI_TPM_NV_COUNTER_SIZE);
	v = (uint64_t)take(&t, 4) << 32;
	v |= take(&t, 4);
	skip(&t, take(&t, 2));   /* the session's answer: nonce, attributes, hmac */
	skip(&t, 1);
	skip(&t, take(&t, 2));
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
	if (attrs != VI_TPM_FLOOR_ATTRS || pub->name_alg != VI_TPM_ALG_SHA256 ||
	    pub->policy_size || pub->data_size != VI_TPM_NV_COUNTER_SIZE)
		return vi_errno(err, -EPERM, "TPM NV counter 0x%08x is not the floor's (attributes "
				"0x%08x, name algorithm 0x%04x, policy %u bytes; the floor's: 0x%08x, "
				"sha256, none)", index, pub->attrs, pub->name_alg, pub->policy_size,
				VI_TPM_FLOOR_ATTRS);
	return 0;
}

int vi_tpm_nvpcr_check(const struct vi_tpm_nv_public *pub, uint32_t index, struct vi_error *err)
{
	if (pub->index != index)
		return vi_errno(err, -EPERM, "the TPM answered for NV index 0x%08x, not 0x%08x",
				pub->index, index);
	if ((pub->attrs & ~VI_TPMA_NV_WRITTEN) != VI_TPM_NVPCR_ATTRS ||
	    pub->name_alg != VI_TPM_ALG_SHA256 || pub->data_size != VI_TPM_NVPCR_SIZE ||
	    pub->policy_size != VI_TPM_POLICY_SIZE)
		return vi_errno(err, -EPERM, "TPM NV index 0x%08x is not an NvPCR (attributes "
				"0x%08x, name algorithm 0x%04x, %u bytes, policy %u bytes; an NvPCR's: "
				"0x%08x, sha256, 32, 32)", index, pub->attrs, pub->name_alg,
				pub->data_size, pub->policy_size, VI_TPM_NVPCR_ATTRS);
	return memcmp(pub->policy, nvpcr_policy.policy, VI_TPM_POLICY_SIZE) == 0;
}
