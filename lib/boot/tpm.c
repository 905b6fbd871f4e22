// SPDX-License-Identifier: LGPL-2.1-or-later
/* The exchange with the TPM device (include/tpm.h): one command written, one response read. The
 * bytes are include/tpm2.h's. */
#include "tpm.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tpm2.h"

/* The resource manager answers at once; a TPM busy with a self test can take a second or two. */
#define TPM_TIMEOUT_MS     5000

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

int vi_tpm_open(const char *dev, struct vi_error *err)
{
	int fd = open(dev, O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0) {
		int r = -errno;

		if (r == -ENOENT)
			return vi_errno(err, -ENODEV, "no TPM (%.100s)", dev);
		return vi_errno(err, r, "%.100s: %s", dev, strerror(-r));
	}
	return fd;
}

int vi_tpm_call(int fd, const char *dev, const uint8_t *cmd, size_t len, uint8_t *rsp,
		size_t rsp_size, size_t *ret_len, struct vi_error *err)
{
	ssize_t n;
	int r;

	/* the kernel's TPM character devices take one whole command per write and give one whole
	 * response per read */
	do
		n = write(fd, cmd, len);
	while (n < 0 && errno == EINTR);
	if (n < 0 || (size_t)n != len) {
		r = n < 0 ? -errno : -EIO;
		return vi_errno(err, r, "writing to %.100s: %s", dev,
				n < 0 ? strerror(-r) : "short write");
	}
	r = io_wait(fd, POLLIN);
	if (r < 0)
		return vi_errno(err, r, "no answer from %.100s: %s", dev, strerror(-r));
	do
		n = read(fd, rsp, rsp_size);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		r = -errno;
		return vi_errno(err, r, "reading from %.100s: %s", dev, strerror(-r));
	}
	*ret_len = (size_t)n;
	return 0;
}

int vi_tpm_exchange(const char *dev, const uint8_t *cmd, size_t len, uint8_t *rsp,
		    size_t rsp_size, size_t *ret_len, struct vi_error *err)
{
	int fd = vi_tpm_open(dev, err), r;

	if (fd < 0)
		return fd;
	r = vi_tpm_call(fd, dev, cmd, len, rsp, rsp_size, ret_len, err);
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
