// SPDX-License-Identifier: LGPL-2.1-or-later
/* The structural check of a DER PKCS#7 root hash signature (include/p7s.h). */
#include "p7s.h"

#include <errno.h>
#include <string.h>

#include "base64.h"
#include "hex.h"
#include "strutil.h"

int vi_p7s_check(const uint8_t *buf, size_t len, struct vi_error *err)
{
	size_t hdr, body;

	if (len == 0)
		return vi_err(err, "signature file is empty");
	if (len > VI_P7S_MAX)
		return vi_err(err, "signature larger than %u bytes", VI_P7S_MAX);
	if (len < 2 || buf[0] != 0x30)
		return vi_err(err, "signature is not DER (PEM or base64? convert with "
			      "`openssl pkcs7 -outform der`)");
	/* DER length: short form, or long form with 1-2 length bytes (we cap at 16 KiB) */
	if (buf[1] < 0x80) {
		hdr = 2;
		body = buf[1];
	} else if (buf[1] == 0x81 && len >= 3) {
		hdr = 3;
		body = buf[2];
	} else if (buf[1] == 0x82 && len >= 4) {
		hdr = 4;
		body = ((size_t)buf[2] << 8) | buf[3];
	} else {
		return vi_err(err, "signature has an unsupported DER length");
	}
	if (hdr + body != len)
		return vi_err(err, "signature DER length %zu does not match the file size %zu",
			      hdr + body, len);
	return 0;
}

/* --- the signers --- */

#define P7S_SIGNERS_MAX 32u   /* systemd's SIGNERS_MAX */

/* A DER element at the start of the len bytes at p: its one-byte tag, its value (*v, *vlen)
 * and its whole length (*tlen). Definite lengths of at most 3 bytes; -EINVAL otherwise. */
static int der(const uint8_t *p, size_t len, uint8_t *tag, const uint8_t **v, size_t *vlen,
	       size_t *tlen)
{
	size_t h = 2, n;

	if (len < 2 || (p[0] & 0x1f) == 0x1f)
		return -EINVAL;
	n = p[1];
	if (n & 0x80) {
		unsigned k = n & 0x7f;

		if (k == 0 || k > 3 || len < 2 + k)
			return -EINVAL;
		n = 0;
		for (unsigned i = 0; i < k; i++)
			n = n << 8 | p[2 + i];
		h += k;
	}
	if (n > len - h)
		return -EINVAL;
	*tag = p[0];
	*v = p + h;
	*vlen = n;
	*tlen = h + n;
	return 0;
}

/* The next element of the value at *p (*left bytes), which must have tag want: *p moves past
 * it. */
static int next(const uint8_t **p, size_t *left, uint8_t want, const uint8_t **v, size_t *vlen,
		size_t *tlen)
{
	uint8_t tag;

	if (der(*p, *left, &tag, v, vlen, tlen) < 0 || tag != want)
		return -EINVAL;
	*p += *tlen;
	*left -= *tlen;
	return 0;
}

/* One SignerInfo's "SERIAL/ISSUER" appended at out + *used. */
static int signer(const uint8_t *si, size_t n, char *out, size_t size, size_t *used)
{
	const uint8_t *v, *ias, *issuer, *serial;
	size_t vl, tl, ial, il, sl;
	int r;

	r = next(&si, &n, 0x02, &v, &vl, &tl);          /* version */
	if (r == 0)
		r = next(&si, &n, 0x30, &ias, &ial, &tl);   /* issuerAndSerialNumber */
	if (r < 0)
		return r;
	issuer = ias;
	r = next(&ias, &ial, 0x30, &v, &vl, &il);       /* issuer: a Name */
	serial = ias;
	if (r == 0)
		r = next(&ias, &ial, 0x02, &v, &vl, &sl);   /* serialNumber */
	if (r < 0 || ial)
		return -EINVAL;
	if (*used + 2 * sl + 1 + vi_b64_encoded_size(il) + 1 > size)
		return -ENOBUFS;
	if (*used)
		out[(*used)++] = ',';
	if (vi_hex_encode(serial, sl, out + *used, size - *used) < 0)
		return -ENOBUFS;
	*used += 2 * sl;
	out[(*used)++] = '/';
	if (vi_b64_encode(issuer, il, out + *used, size - *used) < 0)
		return -ENOBUFS;
	*used += strlen(out + *used);
	return 0;
}

int vi_p7s_signers(const uint8_t *buf, size_t len, char *out, size_t size, struct vi_error *err)
{
	static const uint8_t signed_data[] = { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07,
					       0x02 };   /* 1.2.840.113549.1.7.2 */
	const uint8_t *p = buf, *v, *sd, *sis;
	size_t left = len, vl, tl, sdl, sisl, used = 0;
	unsigned count = 0;
	uint8_t tag;
	int r;

	if (size == 0)
		return vi_errno(err, -ENOBUFS, "no room for the signature's signers");
	out[0] = '\0';
	r = next(&p, &left, 0x30, &v, &vl, &tl);         /* ContentInfo, the whole signature */
	if (r < 0 || left)
		goto bad;
	p = v;
	left = vl;
	if (next(&p, &left, 0x06, &v, &vl, &tl) < 0 || vl != sizeof(signed_data) ||
	    memcmp(v, signed_data, vl) != 0)
		return vi_err(err, "signature is not PKCS#7 SignedData");
	if (next(&p, &left, 0xa0, &v, &vl, &tl) < 0 || left)
		goto bad;
	p = v;
	left = vl;
	if (next(&p, &left, 0x30, &sd, &sdl, &tl) < 0 || left)
		goto bad;
	if (next(&sd, &sdl, 0x02, &v, &vl, &tl) < 0 ||   /* version */
	    next(&sd, &sdl, 0x31, &v, &vl, &tl) < 0 ||   /* digestAlgorithms */
	    next(&sd, &sdl, 0x30, &v, &vl, &tl) < 0)     /* contentInfo */
		goto bad;
	if (sdl && sd[0] == 0xa0 && next(&sd, &sdl, 0xa0, &v, &vl, &tl) < 0)   /* certificates */
		goto bad;
	if (sdl && sd[0] == 0xa1 && next(&sd, &sdl, 0xa1, &v, &vl, &tl) < 0)   /* crls */
		goto bad;
	if (next(&sd, &sdl, 0x31, &sis, &sisl, &tl) < 0 || sdl)   /* signerInfos, last */
		goto bad;
	while (sisl) {
		if (++count > P7S_SIGNERS_MAX) {
			out[0] = '\0';
			return vi_err(err, "signature with more than %u signers", P7S_SIGNERS_MAX);
		}
		if (der(sis, sisl, &tag, &v, &vl, &tl) < 0 || tag != 0x30)
			goto bad;
		r = signer(v, vl, out, size, &used);
		if (r < 0)
			out[0] = '\0';
		if (r == -ENOBUFS)
			return vi_errno(err, r, "the signature's signers do not fit %zu bytes", size);
		if (r < 0)
			return vi_err(err, "signer %u of the signature is not named by issuer and "
				      "serial number", count);
		sis += tl;
		sisl -= tl;
	}
	if (!count)
		return vi_err(err, "signature without a signer");
	out[used] = '\0';
	return 0;
bad:
	out[0] = '\0';
	return vi_err(err, "signature is not DER PKCS#7 SignedData");
}
