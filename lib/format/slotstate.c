// SPDX-License-Identifier: LGPL-2.1-or-later
/* The slot state store on disk (include/slotstate.h, docs/formats.md "Slot state store").
 *
 * One copy is a 512-byte record, little-endian:
 *
 *   0    4  magic "VISL"                  32+96i  1  priority 0..15
 *   4    2  version 1                       +1    1  tries 0..7
 *   6    1  slot count 1..4                 +2    1  flags: bit 0 successful, others 0
 *   7    1  zero                            +3    5  zero
 *   8    8  sequence number                 +8    8  manifest version last set up
 *   16   8  rollback floor                  +16  80  reason: printable ASCII, NUL, zeros
 *   24   8  zero
 *   32 384  4 slots of 96 bytes (the ones past the count all zero)
 *   416 92  zero
 *   508  4  CRC32C (Castagnoli) of bytes 0..507
 *
 * After each state record, at +512, its ran record (all zeros when no slot ran):
 *
 *   0    4  magic "VIRN"                    16   4  data partition's major
 *   4    2  version 1                       20   4  data partition's minor
 *   6    1  slot index (below the count)    24  64  root hash, zeros after its length
 *   7    1  root hash length 1..64          88 420  zero
 *   8    8  the state record's sequence number
 *   508  4  CRC32C of bytes 0..507
 *
 * It is a record of its own rather than fields in the state record's reserved bytes: an agent
 * that predates it reads the state record alone (its strict decoding would refuse a state
 * record with new fields, and fall back to the defaults: every slot bootable, the floor 0),
 * and leaves a ran record behind that no longer carries its state's number.
 *
 * The store holds two copies, at 0 and at 4096. Decoding is strict: a record decodes only if
 * encoding the result gives the very same 512 bytes. */
#include <errno.h>
#include <string.h>

#include "slotstate.h"

#define VERSION      1
#define OFF_SLOTS    32
#define SLOT_SIZE    96
#define OFF_REASON   16
#define OFF_CRC      508
#define FLAG_SUCCESSFUL 0x01u

#define RAN_VERSION  1
#define RAN_OFF_HASH 24

static const uint8_t magic[4] = { 'V', 'I', 'S', 'L' };
static const uint8_t ran_magic[4] = { 'V', 'I', 'R', 'N' };
static const char *const names[VI_SLOTS_MAX] = { "a", "b", "c", "d" };

const char *vi_slot_name(unsigned index)
{
	return index < VI_SLOTS_MAX ? names[index] : "?";
}

int vi_slot_index(const struct vi_slots *s, const char *name)
{
	for (unsigned i = 0; i < s->count && i < VI_SLOTS_MAX; i++)
		if (!strcmp(name, names[i]))
			return (int)i;
	return -EINVAL;
}

const char *vi_slots_source_name(enum vi_slots_source source)
{
	switch (source) {
	case VI_SLOTS_FROM_COPY0:
		return "copy0";
	case VI_SLOTS_FROM_COPY1:
		return "copy1";
	case VI_SLOTS_FROM_DEFAULTS:
		break;
	}
	return "defaults";
}

/* CRC32C, bit by bit: 508 bytes once per copy, no table needed. */
static uint32_t crc32c(const uint8_t *p, size_t len)
{
	uint32_t crc = 0xffffffffu;

	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1u)));
	}
	return ~crc;
}

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static bool all_zero(const uint8_t *p, size_t len)
{
	while (len--)
		if (*p++)
			return false;
	return true;
}

void vi_slots_defaults(struct vi_slots *s, unsigned count)
{
	memset(s, 0, sizeof(*s));
	s->count = count && count <= VI_SLOTS_MAX ? count : VI_SLOTS_DEFAULT_COUNT;
	for (unsigned i = 0; i < s->count; i++) {
		s->slot[i].priority = i == 0 ? VI_SLOT_PRIORITY_PRIMARY : VI_SLOT_PRIORITY_OTHER;
		s->slot[i].tries = VI_SLOT_TRIES_DEFAULT;
	}
}

/* A reason: printable ASCII up to its NUL, within the field. */
static bool reason_ok(const char *r)
{
	size_t n = strnlen(r, VI_SLOT_REASON_MAX);

	if (n == VI_SLOT_REASON_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)r[i] < 0x20 || (unsigned char)r[i] > 0x7e)
			return false;
	return true;
}

int vi_slots_encode(const struct vi_slots *s, uint8_t *out, struct vi_error *err)
{
	if (s->count < 1 || s->count > VI_SLOTS_MAX)
		return vi_err(err, "slot count %u not in 1..%d", s->count, VI_SLOTS_MAX);
	for (unsigned i = 0; i < s->count; i++) {
		const struct vi_slot *sl = &s->slot[i];

		if (sl->priority > VI_SLOT_PRIORITY_MAX || sl->tries > VI_SLOT_TRIES_MAX)
			return vi_err(err, "slot %s: priority %u or tries %u out of range",
				      names[i], sl->priority, sl->tries);
		if (!reason_ok(sl->reason))
			return vi_err(err, "slot %s: reason not printable text", names[i]);
	}
	memset(out, 0, VI_SLOTS_RECORD_SIZE);
	memcpy(out, magic, sizeof(magic));
	put_le(out + 4, VERSION, 2);
	out[6] = (uint8_t)s->count;
	put_le(out + 8, s->seq, 8);
	put_le(out + 16, s->floor, 8);
	for (unsigned i = 0; i < s->count; i++) {
		const struct vi_slot *sl = &s->slot[i];
		uint8_t *p = out + OFF_SLOTS + i * SLOT_SIZE;

		p[0] = sl->priority;
		p[1] = sl->tries;
		p[2] = sl->successful ? FLAG_SUCCESSFUL : 0;
		put_le(p + 8, sl->version, 8);
		memcpy(p + OFF_REASON, sl->reason, strlen(sl->reason));
	}
	put_le(out + OFF_CRC, crc32c(out, OFF_CRC), 4);
	return 0;
}

static int decode_slot(const uint8_t *p, unsigned i, struct vi_slot *ret, struct vi_error *err)
{
	const char *r = (const char *)(p + OFF_REASON);
	size_t n;

	if (p[0] > VI_SLOT_PRIORITY_MAX || p[1] > VI_SLOT_TRIES_MAX)
		return vi_err(err, "slot %s: priority %u or tries %u out of range", names[i], p[0],
			      p[1]);
	if (p[2] & ~FLAG_SUCCESSFUL)
		return vi_err(err, "slot %s: unknown flags 0x%02x", names[i], p[2]);
	if (!all_zero(p + 3, 5))
		return vi_err(err, "slot %s: reserved bytes not zero", names[i]);
	n = strnlen(r, VI_SLOT_REASON_MAX);
	if (n == VI_SLOT_REASON_MAX || !all_zero(p + OFF_REASON + n, VI_SLOT_REASON_MAX - n))
		return vi_err(err, "slot %s: reason not NUL-terminated and zero-padded", names[i]);
	for (size_t k = 0; k < n; k++)
		if ((unsigned char)r[k] < 0x20 || (unsigned char)r[k] > 0x7e)
			return vi_err(err, "slot %s: reason not printable text", names[i]);
	ret->priority = p[0];
	ret->tries = p[1];
	ret->successful = p[2] & FLAG_SUCCESSFUL;
	ret->version = get_le(p + 8, 8);
	memcpy(ret->reason, r, n);
	ret->reason[n] = '\0';
	return 0;
}

int vi_slots_decode(const uint8_t *buf, struct vi_slots *ret, struct vi_error *err)
{
	struct vi_slots s;
	uint32_t crc;
	int r;

	if (memcmp(buf, magic, sizeof(magic)))
		return vi_err(err, "no slot state (bad magic)");
	crc = (uint32_t)get_le(buf + OFF_CRC, 4);
	if (crc != crc32c(buf, OFF_CRC))
		return vi_err(err, "checksum mismatch");
	if (get_le(buf + 4, 2) != VERSION)
		return vi_err(err, "unknown version %u", (unsigned)get_le(buf + 4, 2));
	memset(&s, 0, sizeof(s));
	s.count = buf[6];
	if (s.count < 1 || s.count > VI_SLOTS_MAX)
		return vi_err(err, "slot count %u not in 1..%d", s.count, VI_SLOTS_MAX);
	if (buf[7] || !all_zero(buf + 24, 8) || !all_zero(buf + OFF_SLOTS + 4 * SLOT_SIZE,
							 OFF_CRC - OFF_SLOTS - 4 * SLOT_SIZE))
		return vi_err(err, "reserved bytes not zero");
	s.seq = get_le(buf + 8, 8);
	s.floor = get_le(buf + 16, 8);
	for (unsigned i = 0; i < VI_SLOTS_MAX; i++) {
		const uint8_t *p = buf + OFF_SLOTS + i * SLOT_SIZE;

		if (i >= s.count) {
			if (!all_zero(p, SLOT_SIZE))
				return vi_err(err, "slot %s beyond the count not zero", names[i]);
			continue;
		}
		r = decode_slot(p, i, &s.slot[i], err);
		if (r < 0)
			return r;
	}
	*ret = s;
	return 0;
}

int vi_slots_ran_encode(const struct vi_slots *s, uint8_t *out, struct vi_error *err)
{
	const struct vi_slot_ran *ran = &s->ran;

	memset(out, 0, VI_SLOTS_RECORD_SIZE);
	if (!ran->set)
		return 0;
	if (ran->slot >= s->count || ran->root_hash_len < 1 ||
	    ran->root_hash_len > VERITY_MAX_DIGEST)
		return vi_err(err, "ran record: slot %u of %u, root hash of %u bytes", ran->slot,
			      s->count, ran->root_hash_len);
	memcpy(out, ran_magic, sizeof(ran_magic));
	put_le(out + 4, RAN_VERSION, 2);
	out[6] = (uint8_t)ran->slot;
	out[7] = (uint8_t)ran->root_hash_len;
	put_le(out + 8, s->seq, 8);
	put_le(out + 16, ran->major, 4);
	put_le(out + 20, ran->minor, 4);
	memcpy(out + RAN_OFF_HASH, ran->root_hash, ran->root_hash_len);
	put_le(out + OFF_CRC, crc32c(out, OFF_CRC), 4);
	return 0;
}

/* A ran record's magic and checksum hold: *ret_seq is the number of the state it was written
 * with, whatever became of that state. */
static bool ran_sealed(const uint8_t *buf, uint64_t *ret_seq)
{
	if (memcmp(buf, ran_magic, sizeof(ran_magic)) ||
	    (uint32_t)get_le(buf + OFF_CRC, 4) != crc32c(buf, OFF_CRC))
		return false;
	*ret_seq = get_le(buf + 8, 8);
	return true;
}

int vi_slots_ran_decode(const uint8_t *buf, struct vi_slots *s, struct vi_error *err)
{
	struct vi_slot_ran ran = { .set = true };
	uint64_t seq;

	if (all_zero(buf, VI_SLOTS_RECORD_SIZE)) {
		memset(&s->ran, 0, sizeof(s->ran));
		return 0;
	}
	if (memcmp(buf, ran_magic, sizeof(ran_magic)))
		return vi_err(err, "ran record: bad magic");
	if ((uint32_t)get_le(buf + OFF_CRC, 4) != crc32c(buf, OFF_CRC))
		return vi_err(err, "ran record: checksum mismatch");
	if (get_le(buf + 4, 2) != RAN_VERSION)
		return vi_err(err, "ran record: unknown version %u", (unsigned)get_le(buf + 4, 2));
	seq = get_le(buf + 8, 8);
	if (seq != s->seq)
		return vi_err(err, "ran record of state %llu beside state %llu (stale)",
			      (unsigned long long)seq, (unsigned long long)s->seq);
	ran.slot = buf[6];
	ran.root_hash_len = buf[7];
	if (ran.slot >= s->count)
		return vi_err(err, "ran record: slot %u of %u", ran.slot, s->count);
	if (ran.root_hash_len < 1 || ran.root_hash_len > VERITY_MAX_DIGEST ||
	    !all_zero(buf + RAN_OFF_HASH + ran.root_hash_len,
		      OFF_CRC - RAN_OFF_HASH - ran.root_hash_len))
		return vi_err(err, "ran record: root hash of %u bytes or reserved bytes not zero",
			      ran.root_hash_len);
	ran.major = (uint32_t)get_le(buf + 16, 4);
	ran.minor = (uint32_t)get_le(buf + 20, 4);
	memcpy(ran.root_hash, buf + RAN_OFF_HASH, ran.root_hash_len);
	s->ran = ran;
	return 0;
}

bool vi_slots_seq_newer(uint64_t a, uint64_t b)
{
	return a != b && (a - b) < (UINT64_C(1) << 63);
}

void vi_slots_store_parse(const uint8_t *buf, size_t len, unsigned default_count,
			  struct vi_slots_store *ret)
{
	struct vi_slots copy[VI_SLOTS_COPIES];

	memset(ret, 0, sizeof(*ret));
	for (unsigned c = 0; c < VI_SLOTS_COPIES; c++) {
		size_t off = (size_t)c * VI_SLOTS_COPY_STRIDE;

		if (len < off + VI_SLOTS_RECORD_SIZE) {
			vi_err(&ret->why[c], "missing (store shorter than %zu bytes)",
			       off + VI_SLOTS_RECORD_SIZE);
			continue;
		}
		ret->valid[c] = vi_slots_decode(buf + off, &copy[c], &ret->why[c]) == 0;
		if (ret->valid[c])
			ret->seq[c] = copy[c].seq;
	}
	if (ret->valid[0] && (!ret->valid[1] || !vi_slots_seq_newer(ret->seq[1], ret->seq[0]))) {
		ret->state = copy[0];
		ret->source = VI_SLOTS_FROM_COPY0;
	} else if (ret->valid[1]) {
		ret->state = copy[1];
		ret->source = VI_SLOTS_FROM_COPY1;
	} else {
		vi_slots_defaults(&ret->state, default_count);
		ret->source = VI_SLOTS_FROM_DEFAULTS;
	}
	if (ret->source != VI_SLOTS_FROM_DEFAULTS) {
		size_t off = (ret->source == VI_SLOTS_FROM_COPY1 ? VI_SLOTS_COPY_STRIDE : 0) +
			     VI_SLOTS_RECORD_SIZE;

		if (len < off + VI_SLOTS_RECORD_SIZE)
			vi_err(&ret->ran_why, "ran record missing (store shorter than %zu bytes)",
			       off + VI_SLOTS_RECORD_SIZE);
		else
			(void)vi_slots_ran_decode(buf + off, &ret->state, &ret->ran_why);
	}
	/* the copy in use is the newer valid one: no valid copy is above it */
	ret->seq_max = ret->source == VI_SLOTS_FROM_DEFAULTS ? 0 : ret->state.seq;
	/* a sealed ran record is the trace of a write whose state record tore: its number may be
	 * on disk, and a later state reusing it would find that record beside it as its own */
	for (unsigned c = 0; c < VI_SLOTS_COPIES; c++) {
		size_t off = (size_t)c * VI_SLOTS_COPY_STRIDE + VI_SLOTS_RECORD_SIZE;
		uint64_t seq;

		if (len < off + VI_SLOTS_RECORD_SIZE || !ran_sealed(buf + off, &seq))
			continue;
		if (vi_slots_seq_newer(seq, ret->seq_max))
			ret->seq_max = seq;
	}
}

int vi_slots_store_update(const struct vi_slots_store *st, struct vi_slots *next, uint8_t *out,
			  unsigned order[VI_SLOTS_COPIES], struct vi_error *err)
{
	uint8_t rec[VI_SLOTS_COPY_USED];
	int r;

	/* above every number that may be on disk, a failed earlier write's too: two different
	 * records with one number would leave the choice between them to the copy's place */
	next->seq = st->seq_max + 1;
	r = vi_slots_encode(next, rec, err);
	if (r == 0)
		r = vi_slots_ran_encode(next, rec + VI_SLOTS_RECORD_SIZE, err);
	if (r < 0)
		return r;
	memset(out, 0, VI_SLOTS_STORE_SIZE);
	for (unsigned c = 0; c < VI_SLOTS_COPIES; c++)
		memcpy(out + (size_t)c * VI_SLOTS_COPY_STRIDE, rec, sizeof(rec));
	/* the copy in use is written last: until the first write is complete it is the state */
	order[0] = st->source == VI_SLOTS_FROM_COPY0 ? 1 : 0;
	order[1] = 1 - order[0];
	return 0;
}
