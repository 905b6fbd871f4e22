// SPDX-License-Identifier: LGPL-2.1-or-later
/* TPM2_PCR_Event, by hand (include/tpm.h). Big-endian throughout, as the TPM wants it:
 *
 *   command   tag u16 (TPM_ST_SESSIONS) | size u32 | TPM_CC_PCR_Event u32 | pcrHandle u32 |
 *             authorizationSize u32 | TPMS_AUTH_COMMAND (TPM_RS_PW, empty nonce, attributes 0,
 *             empty password: 9 bytes) | TPM2B_EVENT (size u16, up to 1024 bytes)
 *   response  tag u16 | size u32 | responseCode u32 | parameterSize u32 |
 *             TPML_DIGEST_VALUES (count u32, then per bank the hashAlg u16 and its digest) |
 *             TPMS_AUTH_RESPONSE (empty nonce, attributes, empty HMAC: 5 bytes)
 *
 * The TPM hashes the event with the algorithm of every bank it has allocated and extends each
 * bank with its digest, which is what TPM2_PCR_Extend with digests made here would do, without
 * the digests to make here or the banks to find: no bank can be left out, whatever its
 * algorithm. */
#include "tpm.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tpmwire.h"

#define TPM_ST_NO_SESSIONS 0x8001u
#define TPM_ST_SESSIONS    0x8002u
#define TPM_CC_PCR_EVENT   0x0000013cu
#define TPM_RSP_HEADER     10u
/* tag, size, code, PCR handle, authorization size and session, TPM2B_EVENT size */
#define TPM_EVENT_CMD_HEADER (10u + 4u + 4u + VI_TPM_PW_SESSION_LEN + 2u)
/* The resource manager answers at once; a TPM busy with a self test can take a second or two. */
#define TPM_TIMEOUT_MS     5000

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

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int vi_tpm_event_command(unsigned pcr, const char *event, size_t n, uint8_t *buf, size_t size,
			 struct vi_error *err)
{
	size_t len = TPM_EVENT_CMD_HEADER + n;
	struct vi_tpm_put w = { buf };

	if (pcr >= VI_TPM_NUM_PCRS)
		return vi_err(err, "PCR %u does not exist (0-%u)", pcr, VI_TPM_NUM_PCRS - 1);
	if (n == 0 || n > VI_TPM_EVENT_MAX)
		return vi_errno(err, n ? -ENOBUFS : -EINVAL, "an event of %zu bytes (1-%u)", n,
				VI_TPM_EVENT_MAX);
	if (len > size)
		return vi_errno(err, -ENOBUFS, "PCR event command of %zu bytes", len);
	vi_tpm_put16(&w, TPM_ST_SESSIONS);
	vi_tpm_put32(&w, (uint32_t)len);
	vi_tpm_put32(&w, TPM_CC_PCR_EVENT);
	vi_tpm_put32(&w, pcr);                  /* a PCR's handle is its index */
	vi_tpm_put_pw_session(&w);
	vi_tpm_put16(&w, (uint16_t)n);          /* TPM2B_EVENT */
	memcpy(w.p, event, n);
	return (int)(w.p + n - buf);
}

int vi_tpm_response_header(const uint8_t *buf, size_t len, uint32_t *ret_rc,
			   struct vi_error *err)
{
	uint16_t tag;

	*ret_rc = 0;
	if (len < TPM_RSP_HEADER)
		return vi_errno(err, -EPROTO, "TPM response of %zu bytes (header is %u)", len,
				TPM_RSP_HEADER);
	tag = get16(buf);
	if (tag != TPM_ST_SESSIONS && tag != TPM_ST_NO_SESSIONS)
		return vi_errno(err, -EPROTO, "TPM response with tag 0x%04x", tag);
	if (get32(buf + 2) != len)
		return vi_errno(err, -EPROTO, "TPM response of %zu bytes says it has %u", len,
				get32(buf + 2));
	*ret_rc = get32(buf + 6);
	if (*ret_rc != 0)
		return vi_errno(err, -EIO, "TPM refused the command: response code 0x%08x",
				*ret_rc);
	return tag;
}

int vi_tpm_response_check(const uint8_t *buf, size_t len, uint32_t *ret_rc, struct vi_error *err)
{
	uint32_t rc;
	int tag;

	tag = vi_tpm_response_header(buf, len, &rc, err);
	if (ret_rc)
		*ret_rc = rc;
	if (tag < 0)
		return tag;
	/* success for a command with a session: the parameter size and the session's answer
	 * (nonce, attributes, empty HMAC) follow */
	if (tag != TPM_ST_SESSIONS || len < TPM_RSP_HEADER + 4 + 5)
		return vi_errno(err, -EPROTO, "TPM success response of %zu bytes with tag 0x%04x",
				len, (unsigned)tag);
	return 0;
}

int vi_tpm_event_digests(const uint8_t *buf, size_t len, struct vi_tpm_digest *d,
			 size_t *ret_n, struct vi_error *err)
{
	size_t off = TPM_RSP_HEADER + 4, end, count;
	int r;

	*ret_n = 0;
	r = vi_tpm_response_check(buf, len, NULL, err);
	if (r < 0)
		return r;
	/* parameterSize, then TPML_DIGEST_VALUES; the session's answer (at least 5 bytes) after */
	end = off + get32(buf + TPM_RSP_HEADER);   /* size_t: a 32-bit size cannot wrap it */
	if (end > len - 5 || end - off < 4)
		return vi_errno(err, -EPROTO, "PCR event response: parameters of %u bytes in %zu",
				get32(buf + TPM_RSP_HEADER), len);
	count = get32(buf + off);
	off += 4;
	if (count == 0 || count > VI_TPM_MAX_BANKS)
		return vi_errno(err, -EPROTO, "PCR event response with %zu digests (1-%u)", count,
				VI_TPM_MAX_BANKS);
	for (size_t i = 0; i < count; i++) {
		uint16_t alg;
		size_t dl;

		if (end - off < 2)
			return vi_errno(err, -EPROTO, "PCR event response: digest %zu cut short", i);
		alg = get16(buf + off);
		dl = vi_tpm_alg_size(alg);
		if (!dl)
			return vi_errno(err, -EPROTO, "PCR event response: a bank of algorithm "
					"0x%04x, unknown here", alg);
		if (end - off - 2 < dl)
			return vi_errno(err, -EPROTO, "PCR event response: digest %zu cut short", i);
		for (size_t j = 0; j < i; j++)
			if (d[j].alg == alg)
				return vi_errno(err, -EPROTO, "PCR event response: two %s digests",
						vi_tpm_alg_name(alg));
		d[i].alg = alg;
		memcpy(d[i].value, buf + off + 2, dl);
		off += 2 + dl;
	}
	if (off != end)
		return vi_errno(err, -EPROTO, "PCR event response: %zu bytes after the digests",
				end - off);
	*ret_n = count;
	return 0;
}

static int io_wait(int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };
	int r;

	do
		r = poll(&p, 1, TPM_TIMEOUT_MS);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r == 0 ? -ETIMEDOUT : 0;
}

int vi_tpm_exchange(const char *dev, const uint8_t *cmd, size_t len, uint8_t *rsp,
		    size_t rsp_size, size_t *ret_len, struct vi_error *err)
{
	ssize_t n;
	int fd, r;

	fd = open(dev, O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		if (r == -ENOENT)
			return vi_errno(err, -ENODEV, "no TPM (%.100s)", dev);
		return vi_errno(err, r, "%.100s: %s", dev, strerror(-r));
	}
	/* the kernel's TPM character devices take one whole command per write and give one whole
	 * response per read */
	do
		n = write(fd, cmd, len);
	while (n < 0 && errno == EINTR);
	if (n < 0 || (size_t)n != len) {
		r = n < 0 ? -errno : -EIO;
		vi_errno(err, r, "writing to %.100s: %s", dev, n < 0 ? strerror(errno) : "short write");
		goto out;
	}
	r = io_wait(fd, POLLIN);
	if (r < 0) {
		vi_errno(err, r, "no answer from %.100s: %s", dev, strerror(-r));
		goto out;
	}
	do
		n = read(fd, rsp, rsp_size);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		r = -errno;
		vi_errno(err, r, "reading from %.100s: %s", dev, strerror(-r));
		goto out;
	}
	*ret_len = (size_t)n;
	r = 0;
out:
	close(fd);
	return r;
}

int vi_tpm_transmit(const char *dev, const uint8_t *cmd, size_t len, uint8_t *rsp,
		    size_t rsp_size, size_t *ret_len, struct vi_error *err)
{
	int r = vi_tpm_exchange(dev, cmd, len, rsp, rsp_size, ret_len, err);

	if (r < 0)
		return r;
	return vi_tpm_response_check(rsp, *ret_len, NULL, err);
}
