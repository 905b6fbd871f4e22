// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the slot state store (include/slotstate.h; the decisions: include/slots.h),
 * which the agent reads from a partition anyone with the disk can write. Input: the store image
 * (up to 8192 bytes); one more byte with bit 0 set re-seals both copies' checksums first (their
 * state and ran records), so the fuzzer reaches the field checks behind the CRC. Oracles
 * besides the sanitizers:
 *  - a copy that decodes re-encodes to the very same 512 bytes (strict decoding), *ret
 *    untouched when it does not; the same for the ran record beside it;
 *  - whatever the bytes, the state in use is in range and encodable, and the defaults (both
 *    copies bad) always leave a bootable slot;
 *  - pick / try / mark-bad / mark-failed / mark-good over the state, resized to a policy's
 *    count, written as an update, read back as the new state, whichever copy was in use; a
 *    write torn in the first copy reads back the old;
 *  - an update's number is above every valid copy's (never equal to one), and after a write
 *    that failed the next update goes above the failed one's number too. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slots.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

static uint32_t crc32c(const uint8_t *p, size_t len)
{
	uint32_t crc = 0xffffffffu;

	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
	}
	return ~crc;
}

static void reseal(uint8_t *rec)
{
	uint32_t crc = crc32c(rec, 508);

	for (int i = 0; i < 4; i++)
		rec[508 + i] = (uint8_t)(crc >> (8 * i));
}

static void check_state(const struct vi_slots *s)
{
	uint8_t rec[VI_SLOTS_RECORD_SIZE];
	struct vi_error err;

	CHECK(s->count >= 1 && s->count <= VI_SLOTS_MAX);
	for (unsigned i = 0; i < s->count; i++) {
		CHECK(s->slot[i].priority <= VI_SLOT_PRIORITY_MAX);
		CHECK(s->slot[i].tries <= VI_SLOT_TRIES_MAX);
		CHECK(memchr(s->slot[i].reason, '\0', VI_SLOT_REASON_MAX) != NULL);
	}
	CHECK(vi_slots_encode(s, rec, &err) == 0);
	CHECK(!s->ran.set || (s->ran.slot < s->count && s->ran.root_hash_len >= 1 &&
			      s->ran.root_hash_len <= VERITY_MAX_DIGEST));
	CHECK(vi_slots_ran_encode(s, rec, &err) == 0);
}

/* Field by field: the structures have padding. */
static bool same_state(const struct vi_slots *a, const struct vi_slots *b)
{
	if (a->seq != b->seq || a->floor != b->floor || a->count != b->count)
		return false;
	for (unsigned i = 0; i < a->count; i++) {
		const struct vi_slot *x = &a->slot[i], *y = &b->slot[i];

		if (x->priority != y->priority || x->tries != y->tries ||
		    x->successful != y->successful || x->version != y->version ||
		    strcmp(x->reason, y->reason))
			return false;
	}
	if (a->ran.set != b->ran.set)
		return false;
	return !a->ran.set || (a->ran.slot == b->ran.slot && a->ran.major == b->ran.major &&
			       a->ran.minor == b->ran.minor &&
			       a->ran.root_hash_len == b->ran.root_hash_len &&
			       !memcmp(a->ran.root_hash, b->ran.root_hash, a->ran.root_hash_len));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t store[VI_SLOTS_STORE_SIZE], out[VI_SLOTS_STORE_SIZE], disk[VI_SLOTS_STORE_SIZE];
	uint8_t again[VI_SLOTS_RECORD_SIZE];
	struct vi_slots_store st, back;
	struct vi_slots one, before, next;
	struct vi_error err;
	unsigned order[VI_SLOTS_COPIES];
	size_t len = size < sizeof(store) ? size : sizeof(store);
	int pick;

	memset(store, 0, sizeof(store));
	memcpy(store, data, len);
	if (size > sizeof(store) && (data[sizeof(store)] & 1))
		for (unsigned c = 0; c < VI_SLOTS_COPIES; c++)
			for (unsigned k = 0; k < 2; k++)
				reseal(store + (size_t)c * VI_SLOTS_COPY_STRIDE +
				       k * VI_SLOTS_RECORD_SIZE);

	/* one copy: strict */
	memset(&one, 0xa5, sizeof(one));
	memset(&before, 0xa5, sizeof(before));
	memset(&err, 0x55, sizeof(err));
	if (vi_slots_decode(store, &one, &err) == 0) {
		CHECK(vi_slots_encode(&one, again, &err) == 0);
		CHECK(memcmp(again, store, sizeof(again)) == 0);
		before = one;
		if (vi_slots_ran_decode(store + VI_SLOTS_RECORD_SIZE, &one, &err) == 0) {
			CHECK(vi_slots_ran_encode(&one, again, &err) == 0);
			CHECK(memcmp(again, store + VI_SLOTS_RECORD_SIZE, sizeof(again)) == 0);
		} else {
			CHECK(memcmp(&one.ran, &before.ran, sizeof(one.ran)) == 0);
		}
	} else {
		CHECK(memcmp(&one, &before, sizeof(one)) == 0);
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
	}

	/* the store */
	vi_slots_store_parse(store, len, size ? (data[0] & 7u) : 0, &st);
	check_state(&st.state);
	if (st.source == VI_SLOTS_FROM_DEFAULTS)
		CHECK(vi_slots_pick(&st.state, 0) >= 0);
	else
		CHECK(st.valid[st.source == VI_SLOTS_FROM_COPY1]);

	/* a boot's decisions, written as an update and read back */
	next = st.state;
	if (size > 1) {
		unsigned count = ((data[1] >> 4) & 3u) + 1;

		CHECK(vi_slots_resize(&next, count) == 0);
		CHECK(next.count == count);
		for (unsigned i = count; i < VI_SLOTS_MAX; i++)
			CHECK(!next.slot[i].priority && !next.slot[i].tries && !next.slot[i].reason[0]);
	}
	pick = vi_slots_pick(&next, 0);
	if (pick >= 0) {
		uint8_t tries = next.slot[pick].tries;

		CHECK(vi_slot_bootable(&next.slot[pick]));
		if (size > 1 && (data[1] & 1)) {
			/* not blamed on the slot: one try, never more */
			CHECK(vi_slots_mark_failed(&next, (unsigned)pick, false,
						   (const char *)store + 64) == 0);
			CHECK(next.slot[pick].tries == tries - 1);
		} else {
			CHECK(vi_slots_try(&next, (unsigned)pick, 3) == 0);
			if (next.slot[pick].tries & 1)
				CHECK(vi_slots_mark_bad(&next, (unsigned)pick,
							(const char *)store + 64) == 0);
			else
				CHECK(vi_slots_mark_good(&next, (unsigned)pick, pick) == 0);
			/* the floor rule: set-state good of a slot that is not running
			 * never raises the floor, nor records it for the TPM's next boot */
			if (next.count > 1) {
				unsigned other = ((unsigned)pick + 1) % next.count;
				uint64_t floor = next.floor;

				CHECK(vi_slots_mark_good(&next, other, pick) == 0);
				CHECK(next.floor == floor && !next.slot[other].successful);
			}
		}
	}
	check_state(&next);
	CHECK(vi_slots_store_update(&st, &next, out, order, &err) == 0);
	CHECK(order[0] != order[1]);
	CHECK(next.seq == st.seq_max + 1);
	for (unsigned c = 0; c < VI_SLOTS_COPIES; c++)
		CHECK(!st.valid[c] || next.seq != st.seq[c]);
	if (st.source != VI_SLOTS_FROM_DEFAULTS)
		CHECK(vi_slots_seq_newer(next.seq, st.state.seq));
	/* that write failed (its number may be on disk): the next one goes above it */
	{
		struct vi_slots_store failed = st;
		struct vi_slots again_next = next;
		uint8_t out2[VI_SLOTS_STORE_SIZE];

		failed.seq_max = next.seq;
		CHECK(vi_slots_store_update(&failed, &again_next, out2, order, &err) == 0);
		CHECK(vi_slots_seq_newer(again_next.seq, next.seq));
	}
	CHECK(vi_slots_store_update(&st, &next, out, order, &err) == 0);
	memcpy(disk, store, sizeof(disk));
	if (len < sizeof(disk))
		memset(disk + len, 0, sizeof(disk) - len);
	/* torn in the first copy: the state in use is still there */
	memset(disk + (size_t)order[0] * VI_SLOTS_COPY_STRIDE, 0, VI_SLOTS_RECORD_SIZE);
	vi_slots_store_parse(disk, sizeof(disk), st.state.count, &back);
	CHECK(back.source == VI_SLOTS_FROM_DEFAULTS || st.source != VI_SLOTS_FROM_DEFAULTS);
	if (st.source != VI_SLOTS_FROM_DEFAULTS)
		CHECK(same_state(&back.state, &st.state));
	/* both written */
	memcpy(disk, out, sizeof(disk));
	vi_slots_store_parse(disk, sizeof(disk), st.state.count, &back);
	CHECK(back.source != VI_SLOTS_FROM_DEFAULTS);
	CHECK(same_state(&back.state, &next));
	return 0;
}
