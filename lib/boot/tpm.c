// SPDX-License-Identifier: LGPL-2.1-or-later
/* TPM2_PCR_Extend, by hand (include/tpm.h). Big-endian throughout, as the TPM wants it:
 *
 *   command   tag u16 (TPM_ST_SESSIONS) | size u32 | TPM_CC_PCR_Extend u32 | pcrHandle u32 |
 *             authorizationSize u32 | TPMS_AUTH_COMMAND (TPM_RS_PW, empty nonce, attributes 0,
 *             empty password: 9 bytes) | TPML_DIGEST_VALUES (count u32, then per bank the
 *             hashAlg u16 and its digest)
 *   response  tag u16 | size u32 | responseCode u32 | ...                                     */
#include "tpm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TPM_ST_NO_SESSIONS 0x8001u
#define TPM_ST_SESSIONS    0x8002u
#define TPM_CC_PCR_EXTEND  0x00000182u
#define TPM_RS_PW          0x40000009u
#define TPM_RSP_HEADER     10u
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

static uint8_t *put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return p + 2;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
	return p + 4;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int vi_tpm_extend_command(unsigned pcr, const struct vi_tpm_digest *d, size_t n, uint8_t *buf,
			  size_t size, struct vi_error *err)
{
	size_t len = 10 + 4 + 4 + 9 + 4;
	uint8_t *p = buf;

	if (pcr >= VI_TPM_NUM_PCRS)
		return vi_err(err, "PCR %u does not exist (0-%u)", pcr, VI_TPM_NUM_PCRS - 1);
	if (n == 0 || n > VI_TPM_MAX_BANKS)
		return vi_err(err, "%zu digests for a PCR extend (1-%u)", n, VI_TPM_MAX_BANKS);
	for (size_t i = 0; i < n; i++) {
		if (!vi_tpm_alg_size(d[i].alg))
			return vi_err(err, "unknown TPM hash algorithm 0x%04x", d[i].alg);
		for (size_t j = 0; j < i; j++)
			if (d[j].alg == d[i].alg)
				return vi_err(err, "two %s digests for one extend",
					      vi_tpm_alg_name(d[i].alg));
		len += 2 + vi_tpm_alg_size(d[i].alg);
	}
	if (len > size)
		return vi_errno(err, -ENOBUFS, "PCR extend command of %zu bytes", len);
	p = put16(p, TPM_ST_SESSIONS);
	p = put32(p, (uint32_t)len);
	p = put32(p, TPM_CC_PCR_EXTEND);
	p = put32(p, pcr);              /* a PCR's handle is its index */
	p = put32(p, 9);
	p = put32(p, TPM_RS_PW);
	p = put16(p, 0);                /* nonce */
	*p++ = 0;                       /* session attributes */
	p = put16(p, 0);                /* password */
	p = put32(p, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		size_t dl = vi_tpm_alg_size(d[i].alg);

		p = put16(p, d[i].alg);
		memcpy(p, d[i].value, dl);
		p += dl;
	}
	return (int)(p - buf);
}

int vi_tpm_response_check(const uint8_t *buf, size_t len, uint32_t *ret_rc, struct vi_error *err)
{
	uint16_t tag;
	uint32_t rc;

	if (ret_rc)
		*ret_rc = 0;
	if (len < TPM_RSP_HEADER)
		return vi_errno(err, -EPROTO, "TPM response of %zu bytes (header is %u)", len,
				TPM_RSP_HEADER);
	tag = (uint16_t)(buf[0] << 8 | buf[1]);
	if (tag != TPM_ST_SESSIONS && tag != TPM_ST_NO_SESSIONS)
		return vi_errno(err, -EPROTO, "TPM response with tag 0x%04x", tag);
	if (get32(buf + 2) != len)
		return vi_errno(err, -EPROTO, "TPM response of %zu bytes says it has %u", len,
				get32(buf + 2));
	rc = get32(buf + 6);
	if (ret_rc)
		*ret_rc = rc;
	if (rc != 0)
		return vi_errno(err, -EIO, "TPM refused the command: response code 0x%08x", rc);
	/* success for a command with a session: the parameter size and the session's answer
	 * (nonce, attributes, empty HMAC) follow */
	if (tag != TPM_ST_SESSIONS || len < TPM_RSP_HEADER + 4 + 5)
		return vi_errno(err, -EPROTO, "TPM success response of %zu bytes with tag 0x%04x",
				len, tag);
	return 0;
}

int vi_tpm_banks(const char *sysfs_dir, uint16_t out[VI_TPM_MAX_BANKS], size_t *ret_n,
		 struct vi_error *err)
{
	bool seen[sizeof(algs) / sizeof(algs[0])] = { false };
	struct dirent *e;
	size_t n = 0;
	DIR *d;
	int r;

	d = opendir(sysfs_dir);
	if (!d) {
		r = -errno;
		if (r == -ENOENT || r == -ENOTDIR)
			return vi_errno(err, -ENODEV, "no TPM (%.100s)", sysfs_dir);
		return vi_errno(err, r, "%.100s: %s", sysfs_dir, strerror(-r));
	}
	/* every bank the kernel lists: one left out could later be extended by anyone with the
	 * value a verifier expects */
	while ((e = readdir(d))) {
		size_t i;

		if (strncmp(e->d_name, "pcr-", 4))
			continue;
		for (i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
			if (!strcmp(e->d_name + 4, algs[i].name))
				break;
		if (i == sizeof(algs) / sizeof(algs[0])) {
			vi_errno(err, -EOPNOTSUPP, "the TPM has a %.32s bank, which this agent "
				 "cannot extend", e->d_name + 4);
			closedir(d);   /* e points into d */
			return -EOPNOTSUPP;
		}
		seen[i] = true;
	}
	closedir(d);
	for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		if (seen[i])
			out[n++] = algs[i].alg;
	*ret_n = n;
	if (n == 0)
		return vi_errno(err, -ENOENT, "the TPM at %.100s lists no PCR bank (pcr-sha256/ ...): "
				"not a TPM 2.0, or a kernel older than 5.12", sysfs_dir);
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

int vi_tpm_transmit(const char *dev, const uint8_t *cmd, size_t len, struct vi_error *err)
{
	uint8_t rsp[VI_TPM_RSP_MAX];
	ssize_t n;
	int fd, r;

	fd = open(dev, O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		return vi_errno(err, r == -ENOENT ? -ENODEV : r, "%.100s: %s", dev, strerror(errno));
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
		n = read(fd, rsp, sizeof(rsp));
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		r = -errno;
		vi_errno(err, r, "reading from %.100s: %s", dev, strerror(-r));
		goto out;
	}
	r = vi_tpm_response_check(rsp, (size_t)n, NULL, err);
out:
	close(fd);
	return r;
}
