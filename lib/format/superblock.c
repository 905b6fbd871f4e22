// SPDX-License-Identifier: LGPL-2.1-or-later
/* The veritysetup superblock: 512 bytes, little-endian, at the hash offset of the hash device.
 * Decoding is strict: every byte veritysetup writes as zero must be zero, so a superblock that
 * decodes here re-encodes to the same 512 bytes. */
#include "superblock.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hex.h"
#include "strutil.h"

static const uint8_t sb_magic[8] = { 'v', 'e', 'r', 'i', 't', 'y', 0, 0 };

/* On-disk layout (cryptsetup lib/verity/verity.c, struct verity_sb). */
struct vi_sb_disk {
	uint8_t  signature[8];     /* "verity\0\0" */
	uint32_t version;          /* le32, 1 */
	uint32_t hash_type;        /* le32, 0 Chrome OS, 1 normal */
	uint8_t  uuid[16];         /* binary UUID */
	uint8_t  algorithm[32];    /* NUL-padded hash name */
	uint32_t data_block_size;  /* le32 */
	uint32_t hash_block_size;  /* le32 */
	uint64_t data_blocks;      /* le64 */
	uint16_t salt_size;        /* le16 */
	uint8_t  _pad1[6];
	uint8_t  salt[256];
	uint8_t  _pad2[168];
} __attribute__((packed));

_Static_assert(sizeof(struct vi_sb_disk) == VERITY_SB_SIZE, "superblock is 512 bytes");

static const struct {
	const char *name;
	unsigned size;
} digests[] = {
	/* Names as both the kernel crypto API and OpenSSL spell them. */
	{ "sha1", 20 }, { "sha224", 28 }, { "sha256", 32 }, { "sha384", 48 }, { "sha512", 64 },
	{ "sha3-224", 28 }, { "sha3-256", 32 }, { "sha3-384", 48 }, { "sha3-512", 64 },
	{ "sm3", 32 }, { "blake2b-512", 64 },
};

unsigned vi_digest_size(const char *hash_name)
{
	if (!hash_name)
		return 0;
	for (size_t i = 0; i < sizeof(digests) / sizeof(digests[0]); i++)
		if (strcmp(hash_name, digests[i].name) == 0)
			return digests[i].size;
	return 0;
}

bool vi_block_size_ok(uint64_t bs)
{
	return bs >= VERITY_MIN_BLOCK && bs <= VERITY_MAX_BLOCK && (bs & (bs - 1)) == 0;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

int vi_params_validate(const struct vi_params *p, struct vi_error *err)
{
	size_t name_len = strnlen(p->hash_name, sizeof(p->hash_name));
	unsigned ds;

	if (name_len == 0 || name_len == sizeof(p->hash_name))
		return vi_err(err, "hash algorithm name is empty or not terminated");
	ds = vi_digest_size(p->hash_name);
	if (!ds) {
		/* The name may come from a disk: never hand its raw bytes (terminal escapes, kmsg
		 * record separators) to a log line. */
		char shown[4 * VERITY_MAX_HASH_NAME + 4];

		vi_sanitize(p->hash_name, name_len, shown, sizeof(shown));
		return vi_err(err, "unknown hash algorithm '%s'", shown);
	}
	if (p->hash_type > 1)
		return vi_err(err, "unknown hash type %u (0 or 1)", p->hash_type);
	if (!vi_block_size_ok(p->data_block_size))
		return vi_err(err, "data block size %u is not a power of two in [%u, %u]",
			    p->data_block_size, VERITY_MIN_BLOCK, VERITY_MAX_BLOCK);
	if (!vi_block_size_ok(p->hash_block_size))
		return vi_err(err, "hash block size %u is not a power of two in [%u, %u]",
			    p->hash_block_size, VERITY_MIN_BLOCK, VERITY_MAX_BLOCK);
	/* The kernel needs at least two digests per hash block. */
	if (p->hash_block_size < 2u * ds)
		return vi_err(err, "hash block size %u too small for %s (needs %u)",
			    p->hash_block_size, p->hash_name, 2u * ds);
	if (p->salt_size > VERITY_MAX_SALT)
		return vi_err(err, "salt of %u bytes is longer than %u", p->salt_size, VERITY_MAX_SALT);
	if (p->data_blocks == 0)
		return vi_err(err, "data_blocks is zero");
	if (p->data_blocks > UINT64_MAX / p->data_block_size)
		return vi_err(err, "data_blocks %llu x block size %u overflows 64 bits",
			    (unsigned long long)p->data_blocks, p->data_block_size);
	/* veritysetup refuses a superblock offset that is not sector-aligned. */
	if (p->hash_offset % 512u)
		return vi_err(err, "hash offset %llu is not a multiple of 512",
			    (unsigned long long)p->hash_offset);
	if (p->no_superblock && p->hash_offset % p->hash_block_size)
		return vi_err(err, "hash offset %llu is not a multiple of the hash block size %u",
			    (unsigned long long)p->hash_offset, p->hash_block_size);
	return 0;
}

int vi_params_kernel_check(const struct vi_params *p, unsigned long page_size,
			       struct vi_error *err)
{
	if (p->data_block_size > page_size)
		return vi_err(err, "data block size %u exceeds the kernel page size %lu",
			    p->data_block_size, page_size);
	if (p->hash_block_size > page_size)
		return vi_err(err, "hash block size %u exceeds the kernel page size %lu",
			    p->hash_block_size, page_size);
	return 0;
}

int vi_sb_encode(const struct vi_params *p, uint8_t buf[VERITY_SB_SIZE],
		     struct vi_error *err)
{
	struct vi_sb_disk sb;
	int r;

	r = vi_params_validate(p, err);
	if (r < 0)
		return r;

	memset(&sb, 0, sizeof(sb));
	memcpy(sb.signature, sb_magic, sizeof(sb.signature));
	sb.version = htole32(VERITY_SB_VERSION);
	sb.hash_type = htole32(p->hash_type);
	memcpy(sb.uuid, p->uuid, sizeof(sb.uuid));
	/* validate() guarantees the name is NUL-terminated within 31 bytes. */
	memcpy(sb.algorithm, p->hash_name, strlen(p->hash_name));
	sb.data_block_size = htole32(p->data_block_size);
	sb.hash_block_size = htole32(p->hash_block_size);
	sb.data_blocks = htole64(p->data_blocks);
	sb.salt_size = htole16(p->salt_size);
	memcpy(sb.salt, p->salt, p->salt_size);
	memcpy(buf, &sb, sizeof(sb));
	return 0;
}

int vi_sb_decode(const uint8_t buf[VERITY_SB_SIZE], struct vi_params *ret,
		     struct vi_error *err)
{
	struct vi_sb_disk sb;
	struct vi_params p;
	size_t name_len;
	uint32_t v;
	int r;

	memcpy(&sb, buf, sizeof(sb));
	if (memcmp(sb.signature, sb_magic, sizeof(sb_magic)) != 0)
		return vi_err(err, "no verity superblock (bad magic)");
	v = le32toh(sb.version);
	if (v != VERITY_SB_VERSION)
		return vi_err(err, "unsupported superblock version %u", v);

	memset(&p, 0, sizeof(p));
	p.hash_type = le32toh(sb.hash_type);
	if (p.hash_type > 1)
		return vi_err(err, "unknown hash type %u (0 or 1)", p.hash_type);

	name_len = strnlen((const char *)sb.algorithm, sizeof(sb.algorithm));
	if (name_len == sizeof(sb.algorithm))
		return vi_err(err, "hash algorithm name is not NUL-terminated");
	if (!all_zero(sb.algorithm + name_len, sizeof(sb.algorithm) - name_len))
		return vi_err(err, "garbage after the hash algorithm name");
	memcpy(p.hash_name, sb.algorithm, name_len);

	p.data_block_size = le32toh(sb.data_block_size);
	p.hash_block_size = le32toh(sb.hash_block_size);
	p.data_blocks = le64toh(sb.data_blocks);
	p.salt_size = le16toh(sb.salt_size);
	if (p.salt_size > VERITY_MAX_SALT)
		return vi_err(err, "salt size %u is larger than %u", p.salt_size, VERITY_MAX_SALT);
	if (!all_zero(sb._pad1, sizeof(sb._pad1)) || !all_zero(sb._pad2, sizeof(sb._pad2)))
		return vi_err(err, "reserved superblock bytes are not zero");
	if (!all_zero(sb.salt + p.salt_size, sizeof(sb.salt) - p.salt_size))
		return vi_err(err, "non-zero bytes after the salt");
	memcpy(p.salt, sb.salt, p.salt_size);
	memcpy(p.uuid, sb.uuid, sizeof(p.uuid));
	p.hash_offset = ret->hash_offset;
	p.no_superblock = ret->no_superblock;

	r = vi_params_validate(&p, err);
	if (r < 0)
		return r;
	*ret = p;
	return 0;
}

void vi_uuid_format(const uint8_t uuid[16], char out[VERITY_UUID_STR_LEN + 1])
{
	static const char hexd[] = "0123456789abcdef";
	size_t o = 0;

	for (unsigned i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hexd[uuid[i] >> 4];
		out[o++] = hexd[uuid[i] & 0xf];
	}
	out[o] = '\0';
}

int vi_uuid_parse(const char *s, uint8_t ret_uuid[16])
{
	uint8_t u[16];
	unsigned n = 0;

	if (!s || strlen(s) != VERITY_UUID_STR_LEN)
		return -EINVAL;
	for (size_t i = 0; i < VERITY_UUID_STR_LEN;) {
		int hi, lo;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return -EINVAL;
			i++;
			continue;
		}
		hi = vi_hex_nibble(s[i]);
		lo = vi_hex_nibble(s[i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		u[n++] = (uint8_t)(hi << 4 | lo);
		i += 2;
	}
	memcpy(ret_uuid, u, sizeof(u));
	return 0;
}
