// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/format/slotstate.c, lib/boot/slots.c and lib/boot/slots_store.c: the slot state record,
 * the two-copy store (torn writes, both copies bad, sequence wrap), the pick / try / mark
 * decisions, and the store's read and write on a file. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "slots.h"

/* The checksum as docs/formats.md names it, written here independently of the library. */
static uint32_t crc32c_ref(const uint8_t *p, size_t len)
{
	uint32_t table[256], crc = 0xffffffffu;

	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		table[i] = c;
	}
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* Re-seal a tampered record, so that the field check (not the checksum) must refuse it. */
static void reseal(uint8_t *rec)
{
	uint32_t crc = crc32c_ref(rec, 508);

	for (int i = 0; i < 4; i++)
		rec[508 + i] = (uint8_t)(crc >> (8 * i));
}

static void sample(struct vi_slots *s)
{
	vi_slots_defaults(s, 4);
	s->seq = 41;
	s->floor = 7;
	s->slot[1].successful = true;
	s->slot[1].version = 9;
	s->slot[2].tries = 0;
	snprintf(s->slot[2].reason, sizeof(s->slot[2].reason), "activate: bad table");
}

static void test_crc_vector(void **state)
{
	(void)state;
	assert_int_equal(crc32c_ref((const uint8_t *)"123456789", 9), 0xe3069283u);
}

static void test_round_trip(void **state)
{
	uint8_t rec[VI_SLOTS_RECORD_SIZE], again[VI_SLOTS_RECORD_SIZE];
	struct vi_error err = { "" };
	struct vi_slots s, d;

	(void)state;
	sample(&s);
	assert_int_equal(vi_slots_encode(&s, rec, &err), 0);
	assert_memory_equal(rec, "VISL\x01\x00\x04\x00", 8);
	assert_int_equal(rec[8], 41);
	assert_int_equal(rec[16], 7);
	assert_int_equal(crc32c_ref(rec, 508), rec[508] | rec[509] << 8 | rec[510] << 16 |
						(uint32_t)rec[511] << 24);
	/* slot c: priority at 32 + 2 * 96, reason at + 16 */
	assert_int_equal(rec[32 + 192], VI_SLOT_PRIORITY_OTHER);
	assert_string_equal((const char *)rec + 32 + 192 + 16, "activate: bad table");
	assert_int_equal(vi_slots_decode(rec, &d, &err), 0);
	assert_int_equal(d.seq, 41);
	assert_int_equal(d.floor, 7);
	assert_int_equal(d.count, 4);
	assert_true(d.slot[1].successful);
	assert_int_equal(d.slot[1].version, 9);
	assert_string_equal(d.slot[2].reason, "activate: bad table");
	assert_int_equal(vi_slots_encode(&d, again, &err), 0);
	assert_memory_equal(rec, again, sizeof(rec));
}

static void expect_refused(const uint8_t *rec, const char *why)
{
	struct vi_error err = { "" };
	struct vi_slots d;

	memset(&d, 0x5a, sizeof(d));
	assert_int_equal(vi_slots_decode(rec, &d, &err), -EINVAL);
	assert_non_null(strstr(err.msg, why));
	assert_int_equal(d.count, 0x5a5a5a5au);   /* untouched */
}

static void test_decode_refuses(void **state)
{
	uint8_t good[VI_SLOTS_RECORD_SIZE], rec[VI_SLOTS_RECORD_SIZE];
	struct vi_error err = { "" };
	struct vi_slots s;

	(void)state;
	vi_slots_defaults(&s, 2);
	assert_int_equal(vi_slots_encode(&s, good, &err), 0);
	memset(rec, 0, sizeof(rec));
	expect_refused(rec, "bad magic");
	memcpy(rec, good, sizeof(rec));
	rec[33] ^= 1;
	expect_refused(rec, "checksum mismatch");
	memcpy(rec, good, sizeof(rec));
	rec[4] = 2;
	reseal(rec);
	expect_refused(rec, "unknown version 2");
	memcpy(rec, good, sizeof(rec));
	rec[6] = 5;
	reseal(rec);
	expect_refused(rec, "slot count 5");
	memcpy(rec, good, sizeof(rec));
	rec[6] = 0;
	reseal(rec);
	expect_refused(rec, "slot count 0");
	memcpy(rec, good, sizeof(rec));
	rec[32] = 16;
	reseal(rec);
	expect_refused(rec, "slot a: priority 16");
	memcpy(rec, good, sizeof(rec));
	rec[32 + 96 + 1] = 8;
	reseal(rec);
	expect_refused(rec, "slot b: priority 14 or tries 8");
	memcpy(rec, good, sizeof(rec));
	rec[32 + 2] = 2;
	reseal(rec);
	expect_refused(rec, "unknown flags");
	memcpy(rec, good, sizeof(rec));
	rec[32 + 16] = '\n';
	reseal(rec);
	expect_refused(rec, "not printable");
	memcpy(rec, good, sizeof(rec));
	rec[32 + 16 + 5] = 'x';   /* after the (empty) reason's NUL */
	reseal(rec);
	expect_refused(rec, "zero-padded");
	memset(rec + 32 + 16, 'x', 80);
	reseal(rec);
	expect_refused(rec, "NUL-terminated");
	memcpy(rec, good, sizeof(rec));
	rec[32 + 2 * 96] = 1;     /* slot c of a 2-slot store */
	reseal(rec);
	expect_refused(rec, "slot c beyond the count");
	memcpy(rec, good, sizeof(rec));
	rec[500] = 1;
	reseal(rec);
	expect_refused(rec, "reserved bytes");
	/* and the encoder refuses what the decoder would */
	s.slot[0].tries = 8;
	assert_int_equal(vi_slots_encode(&s, rec, &err), -EINVAL);
	s.slot[0].tries = 1;
	s.count = 0;
	assert_int_equal(vi_slots_encode(&s, rec, &err), -EINVAL);
}

/* A store image with copy 0 at seq0 and copy 1 at seq1 (0: leave the copy blank). */
static void make_store(uint8_t *store, uint64_t seq0, uint64_t seq1)
{
	struct vi_error err = { "" };
	struct vi_slots s;

	memset(store, 0, VI_SLOTS_STORE_SIZE);
	vi_slots_defaults(&s, 2);
	if (seq0) {
		s.seq = seq0;
		s.floor = seq0;   /* tells the copies apart */
		assert_int_equal(vi_slots_encode(&s, store, &err), 0);
	}
	if (seq1) {
		s.seq = seq1;
		s.floor = seq1;
		assert_int_equal(vi_slots_encode(&s, store + VI_SLOTS_COPY_STRIDE, &err), 0);
	}
}

static void test_store_choice(void **state)
{
	uint8_t store[VI_SLOTS_STORE_SIZE];
	struct vi_slots_store st;

	(void)state;
	make_store(store, 5, 6);
	vi_slots_store_parse(store, sizeof(store), 2, &st);
	assert_int_equal(st.source, VI_SLOTS_FROM_COPY1);
	assert_int_equal(st.state.floor, 6);
	make_store(store, 8, 7);
	vi_slots_store_parse(store, sizeof(store), 2, &st);
	assert_int_equal(st.source, VI_SLOTS_FROM_COPY0);
	/* equal numbers (a complete update writes both): copy 0 */
	make_store(store, 9, 9);
	vi_slots_store_parse(store, sizeof(store), 2, &st);
	assert_int_equal(st.source, VI_SLOTS_FROM_COPY0);
	/* wrap: 0 comes after UINT64_MAX */
	make_store(store, UINT64_MAX, 0);
	{
		struct vi_error err = { "" };
		struct vi_slots s;

		vi_slots_defaults(&s, 2);
		s.seq = 0;
		s.floor = 1234;
		assert_int_equal(vi_slots_encode(&s, store + VI_SLOTS_COPY_STRIDE, &err), 0);
	}
	vi_slots_store_parse(store, sizeof(store), 2, &st);
	assert_int_equal(st.source, VI_SLOTS_FROM_COPY1);
	assert_int_equal(st.state.floor, 1234);
	assert_true(vi_slots_seq_newer(0, UINT64_MAX));
	assert_true(vi_slots_seq_newer(3, UINT64_MAX - 2));
	assert_false(vi_slots_seq_newer(UINT64_MAX, 0));
	assert_false(vi_slots_seq_newer(4, 4));
	/* the newer copy torn (checksum): the older one is the state */
	make_store(store, 5, 6);
	store[VI_SLOTS_COPY_STRIDE + 100] ^= 0xff;
	vi_slots_store_parse(store, sizeof(store), 2, &st);
	assert_int_equal(st.source, VI_SLOTS_FROM_COPY0);
	assert_int_equal(st.state.floor, 5);
	assert_false(st.valid[1]);
	assert_string_equal(st.why[1].msg, "checksum mismatch");
	/* a store cut short: copy 1 missing */
	make_store(store, 5, 6);
	vi_slots_store_parse(store, 4096, 2, &st);
	assert_int_equal(st.source, VI_SLOTS_FROM_COPY0);
	assert_non_null(strstr(st.why[1].msg, "missing"));
}

/* Both copies bad (or a blank store): the documented defaults, never "nothing bootable". */
static void test_both_bad_defaults(void **state)
{
	uint8_t store[VI_SLOTS_STORE_SIZE];
	struct vi_slots_store st;

	(void)state;
	make_store(store, 5, 6);
	store[10] ^= 1;
	store[VI_SLOTS_COPY_STRIDE + 10] ^= 1;
	vi_slots_store_parse(store, sizeof(store), 2, &st);
	assert_int_equal(st.source, VI_SLOTS_FROM_DEFAULTS);
	assert_string_equal(vi_slots_source_name(st.source), "defaults");
	assert_int_equal(st.state.count, 2);
	assert_int_equal(st.state.floor, 0);
	assert_int_equal(st.state.slot[0].priority, 15);
	assert_int_equal(st.state.slot[1].priority, 14);
	assert_int_equal(st.state.slot[0].tries, VI_SLOT_TRIES_DEFAULT);
	assert_int_equal(st.state.slot[1].tries, VI_SLOT_TRIES_DEFAULT);
	assert_int_equal(vi_slots_pick(&st.state, 0), 0);
	memset(store, 0, sizeof(store));
	vi_slots_store_parse(store, 0, 3, &st);
	assert_int_equal(st.source, VI_SLOTS_FROM_DEFAULTS);
	assert_int_equal(st.state.count, 3);
	assert_true(vi_slot_bootable(&st.state.slot[2]));
}

/* An update writes the copy not in use first: a write torn at any byte of it leaves the old
 * state; once it is complete, a tear in the second write leaves the new one. */
static void test_update_torn_writes(void **state)
{
	uint8_t store[VI_SLOTS_STORE_SIZE], out[VI_SLOTS_STORE_SIZE], disk[VI_SLOTS_STORE_SIZE];
	struct vi_error err = { "" };
	struct vi_slots_store st, after;
	struct vi_slots next;
	unsigned order[2];

	(void)state;
	make_store(store, 5, 4);
	vi_slots_store_parse(store, sizeof(store), 2, &st);
	next = st.state;
	assert_int_equal(vi_slots_mark_bad(&next, 0, "init: not found"), 0);
	assert_int_equal(vi_slots_store_update(&st, &next, out, order, &err), 0);
	assert_int_equal(next.seq, 6);
	assert_int_equal(order[0], 1);
	assert_int_equal(order[1], 0);
	for (size_t torn = 0; torn <= VI_SLOTS_RECORD_SIZE; torn += 7) {
		size_t first = (size_t)order[0] * VI_SLOTS_COPY_STRIDE;
		size_t second = (size_t)order[1] * VI_SLOTS_COPY_STRIDE;

		/* the first write torn after `torn` bytes */
		memcpy(disk, store, sizeof(disk));
		memcpy(disk + first, out + first, torn);
		vi_slots_store_parse(disk, sizeof(disk), 2, &after);
		assert_int_equal(after.source, VI_SLOTS_FROM_COPY0);
		assert_int_equal(after.state.seq, 5);
		assert_int_equal(after.state.slot[0].tries, VI_SLOT_TRIES_DEFAULT);
		/* the first complete, the second torn */
		memcpy(disk + first, out + first, VI_SLOTS_RECORD_SIZE);
		memcpy(disk + second, out + second, torn);
		vi_slots_store_parse(disk, sizeof(disk), 2, &after);
		assert_int_equal(after.state.seq, 6);
		assert_int_equal(after.state.slot[0].tries, 0);
		assert_string_equal(after.state.slot[0].reason, "init: not found");
	}
	/* from copy 1 in use, copy 0 is written first; from the defaults the count starts at 1 */
	make_store(store, 4, 5);
	vi_slots_store_parse(store, sizeof(store), 2, &st);
	assert_int_equal(vi_slots_store_update(&st, &next, out, order, &err), 0);
	assert_int_equal(order[0], 0);
	memset(store, 0, sizeof(store));
	vi_slots_store_parse(store, sizeof(store), 2, &st);
	assert_int_equal(vi_slots_store_update(&st, &next, out, order, &err), 0);
	assert_int_equal(next.seq, 1);
	next.count = 9;
	assert_int_equal(vi_slots_store_update(&st, &next, out, order, &err), -EINVAL);
}

static void test_pick_and_try(void **state)
{
	struct vi_slots s;

	(void)state;
	vi_slots_defaults(&s, 2);
	assert_int_equal(vi_slots_pick(&s, 0), 0);
	/* three boots of a that never reach mark-good: then b */
	for (int i = 0; i < VI_SLOT_TRIES_DEFAULT; i++) {
		assert_int_equal(vi_slots_pick(&s, 0), 0);
		assert_int_equal(vi_slots_try(&s, 0, 12), 0);
	}
	assert_int_equal(s.slot[0].tries, 0);
	assert_int_equal(s.slot[0].version, 12);
	assert_int_equal(vi_slots_try(&s, 0, 12), -ESTALE);
	assert_int_equal(vi_slots_pick(&s, 0), 1);
	/* none left */
	s.slot[1].priority = 0;
	assert_int_equal(vi_slots_pick(&s, 0), -ENOENT);
	/* a tie goes to the lower index */
	vi_slots_defaults(&s, 3);
	s.slot[0].priority = 3;
	s.slot[1].priority = 9;
	s.slot[2].priority = 9;
	assert_int_equal(vi_slots_pick(&s, 0), 1);
	assert_int_equal(vi_slots_try(&s, 3, 1), -EINVAL);
}

/* The floor rule (vi_slots_floor_may_rise): only the slot running after a complete boot;
 * and its record (vi_slots_floor_proven): successful with that very version. */
static void test_floor_rule(void **state)
{
	struct vi_slots s;

	(void)state;
	vi_slots_defaults(&s, 3);
	s.slot[1].version = 5;
	for (int running = -1; running < 4; running++)
		for (unsigned i = 0; i < 5; i++)
			assert_int_equal(vi_slots_floor_may_rise(&s, i, running),
					 i < 3 && running == (int)i);
	assert_false(vi_slots_floor_proven(&s, 1, 5));
	/* every writer of the state, and what the rule's record is after it */
	assert_int_equal(vi_slots_mark_good(&s, 1, 1), 0);
	assert_true(vi_slots_floor_proven(&s, 1, 5));
	assert_false(vi_slots_floor_proven(&s, 1, 6));
	assert_false(vi_slots_floor_proven(&s, 7, 5));
	assert_int_equal(s.floor, 5);
	assert_int_equal(vi_slots_try(&s, 1, 5), 0);          /* the same version: kept */
	assert_true(vi_slots_floor_proven(&s, 1, 5));
	assert_int_equal(vi_slots_mark_failed(&s, 1, true, "mount: x"), 0);
	assert_true(vi_slots_floor_proven(&s, 1, 5));
	assert_int_equal(vi_slots_try(&s, 1, 6), 0);          /* another version: not proven */
	assert_false(vi_slots_floor_proven(&s, 1, 6));
	assert_false(vi_slots_floor_proven(&s, 1, 5));
	assert_int_equal(vi_slots_mark_good(&s, 1, 1), 0);
	assert_int_equal(s.floor, 6);
	assert_int_equal(vi_slots_set_primary(&s, 1), 0);     /* RAUC set-primary */
	assert_false(vi_slots_floor_proven(&s, 1, 6));
	assert_int_equal(vi_slots_mark_good(&s, 1, 1), 0);
	assert_int_equal(vi_slots_mark_bad(&s, 1, "x"), 0);   /* set-state bad, mark-bad */
	assert_false(vi_slots_floor_proven(&s, 1, 6));
	assert_int_equal(vi_slots_mark_good(&s, 1, 2), 0);    /* set-state good, c runs */
	assert_false(vi_slots_floor_proven(&s, 1, 6));
	assert_int_equal(s.floor, 6);
	assert_int_equal(vi_slots_resize(&s, 1), 0);
	assert_false(vi_slots_floor_may_rise(&s, 1, 1));
	assert_int_equal(vi_slots_mark_good(&s, 1, 1), -EINVAL);
}

static void test_mark_and_primary(void **state)
{
	struct vi_slots s;
	char long_reason[200];

	(void)state;
	vi_slots_defaults(&s, 2);
	s.floor = 4;
	/* b installed and made primary (RAUC set-primary) */
	assert_int_equal(vi_slots_set_primary(&s, 1), 0);
	assert_int_equal(s.slot[1].priority, 15);
	assert_int_equal(s.slot[0].priority, 14);
	assert_false(s.slot[1].successful);
	assert_int_equal(vi_slots_pick(&s, 0), 1);
	/* it boots version 6, fails verification: marked bad, a again */
	assert_int_equal(vi_slots_try(&s, 1, 6), 0);
	memset(long_reason, 'x', sizeof(long_reason));
	long_reason[0] = '\x1b';
	long_reason[sizeof(long_reason) - 1] = '\0';
	assert_int_equal(vi_slots_mark_bad(&s, 1, long_reason), 0);
	assert_int_equal(strlen(s.slot[1].reason), VI_SLOT_REASON_MAX - 1);
	assert_int_equal(s.slot[1].reason[0], '?');
	assert_int_equal(vi_slots_pick(&s, 0), 0);
	assert_int_equal(s.floor, 4);
	/* set-state good of a slot that is not running (a runs): bootable, the floor stays,
	 * not successful; nor when the running slot is not known (-1) */
	assert_int_equal(vi_slots_mark_good(&s, 1, 0), 0);
	assert_int_equal(s.floor, 4);
	assert_string_equal(s.slot[1].reason, "");
	assert_false(s.slot[1].successful);
	assert_true(vi_slot_bootable(&s.slot[1]));
	assert_int_equal(vi_slots_mark_good(&s, 1, -1), 0);
	assert_int_equal(s.floor, 4);
	assert_false(s.slot[1].successful);
	/* mark-good of the running slot raises it, never lowers it */
	assert_int_equal(vi_slots_mark_good(&s, 1, 1), 0);
	assert_int_equal(s.floor, 6);
	assert_true(s.slot[1].successful);
	assert_int_equal(s.slot[1].tries, VI_SLOT_TRIES_DEFAULT);
	s.slot[0].version = 3;
	assert_int_equal(vi_slots_mark_good(&s, 0, 0), 0);
	assert_int_equal(s.floor, 6);
	assert_false(vi_slots_version_allowed(&s, 5));
	assert_true(vi_slots_version_allowed(&s, 6));
	/* a successful slot set good again from the other one no longer counts */
	assert_int_equal(vi_slots_mark_good(&s, 1, 0), 0);
	assert_false(s.slot[1].successful);
	assert_int_equal(s.floor, 6);
	/* a slot of priority 0 marked good can boot again */
	s.slot[0].priority = 0;
	assert_int_equal(vi_slots_mark_good(&s, 0, 1), 0);
	assert_int_equal(s.slot[0].priority, VI_SLOT_PRIORITY_OTHER);
	assert_int_equal(vi_slots_mark_bad(&s, 2, "x"), -EINVAL);
	assert_int_equal(vi_slots_set_primary(&s, 2), -EINVAL);
	/* names */
	assert_int_equal(vi_slot_index(&s, "b"), 1);
	assert_int_equal(vi_slot_index(&s, "c"), -EINVAL);
	assert_int_equal(vi_slot_index(&s, "B"), -EINVAL);
	assert_string_equal(vi_slot_name(3), "d");
	assert_string_equal(vi_slot_name(4), "?");
}

/* Through a file: write, read back, a damaged copy. */
static void test_fd_io(void **state)
{
	char path[] = "/tmp/vi-slots-XXXXXX";
	struct vi_error err = { "" };
	struct vi_slots_store st, back;
	struct vi_slots next;
	uint8_t junk[16];
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(ftruncate(fd, VI_SLOTS_STORE_SIZE), 0);
	assert_int_equal(vi_slots_store_read(fd, 2, &st, &err), 0);
	assert_int_equal(st.source, VI_SLOTS_FROM_DEFAULTS);
	next = st.state;
	assert_int_equal(vi_slots_set_primary(&next, 1), 0);
	assert_int_equal(vi_slots_store_write(fd, &st, &next, &err), 0);
	assert_int_equal(st.state.seq, 1);
	assert_int_equal(vi_slots_store_read(fd, 2, &back, &err), 0);
	assert_true(back.valid[0] && back.valid[1]);
	assert_int_equal(back.state.seq, 1);
	assert_int_equal(vi_slots_pick(&back.state, 0), 1);
	/* copy 0 damaged: copy 1 holds the same state; the next write repairs copy 0 */
	memset(junk, 0xee, sizeof(junk));
	assert_int_equal(pwrite(fd, junk, sizeof(junk), 40), (ssize_t)sizeof(junk));
	assert_int_equal(vi_slots_store_read(fd, 2, &back, &err), 0);
	assert_int_equal(back.source, VI_SLOTS_FROM_COPY1);
	assert_false(back.valid[0]);
	next = back.state;
	assert_int_equal(vi_slots_try(&next, 1, 2), 0);
	assert_int_equal(vi_slots_store_write(fd, &back, &next, &err), 0);
	assert_int_equal(vi_slots_store_read(fd, 2, &back, &err), 0);
	assert_true(back.valid[0] && back.valid[1]);
	assert_int_equal(back.state.seq, 2);
	assert_int_equal(back.state.slot[1].tries, VI_SLOT_TRIES_DEFAULT - 1);
	close(fd);
	/* a descriptor that cannot be read is an error, not the defaults */
	assert_true(vi_slots_store_read(-1, 2, &back, &err) < 0);
	assert_non_null(strstr(err.msg, "the slot store"));
}

/* A store too small for its second copy is refused: its writes could never complete, and no
 * try would ever be counted. A file by its size, a block device by BLKGETSIZE64, anything
 * else not at all. */
static void test_store_too_small(void **state)
{
	static const off_t sizes[] = { 0, 512, 4096, 4608, VI_SLOTS_STORE_SIZE - 1 };
	char path[] = "/tmp/vi-slots-XXXXXX", want[96];
	struct vi_error err = { "" };
	struct vi_slots_store st;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		assert_int_equal(ftruncate(fd, sizes[k]), 0);
		assert_int_equal(vi_slots_store_read(fd, 2, &st, &err), -ENOSPC);
		snprintf(want, sizeof(want), "the slot store has %lld bytes, fewer than the 8192 "
			 "its two copies need", (long long)sizes[k]);
		assert_string_equal(err.msg, want);
	}
	assert_int_equal(ftruncate(fd, VI_SLOTS_STORE_SIZE), 0);
	assert_int_equal(vi_slots_store_read(fd, 2, &st, &err), 0);
	close(fd);
	fd = open("/dev/null", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(vi_slots_store_read(fd, 2, &st, &err), -EINVAL);
	assert_string_equal(err.msg, "the slot store is not a block device or a file");
	close(fd);
}

/* A write that failed may have reached the disk in part: the next write from the same state in
 * memory must go above its number. Else two different records share a number, and the one in
 * copy 0 wins a tie even when it is the older. */
static void test_seq_after_failed_write(void **state)
{
	char path[] = "/tmp/vi-slots-XXXXXX", ro[64];
	struct vi_error err = { "" };
	struct vi_slots_store st, back;
	struct vi_slots next;
	int fd, rofd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, VI_SLOTS_STORE_SIZE), 0);
	assert_int_equal(vi_slots_store_read(fd, 2, &st, &err), 0);
	next = st.state;
	assert_int_equal(vi_slots_store_write(fd, &st, &next, &err), 0);
	assert_int_equal(st.seq_max, 1);
	/* a write that fails (a descriptor open read-only: the agent's store going away) */
	snprintf(ro, sizeof(ro), "/proc/self/fd/%d", fd);
	rofd = open(ro, O_RDONLY);
	unlink(path);
	assert_true(rofd >= 0);
	assert_int_equal(vi_slots_try(&next, 0, 4), 0);
	assert_true(vi_slots_store_write(rofd, &st, &next, &err) < 0);
	assert_non_null(strstr(err.msg, "cannot write copy 1 of the slot store"));
	assert_int_equal(st.seq_max, 2);
	assert_int_equal(st.state.seq, 1);
	/* the next write takes 3, never 2 again */
	assert_int_equal(vi_slots_mark_bad(&next, 0, "mount: x"), 0);
	assert_int_equal(vi_slots_store_write(fd, &st, &next, &err), 0);
	assert_int_equal(vi_slots_store_read(fd, 2, &back, &err), 0);
	assert_int_equal(back.state.seq, 3);
	assert_int_equal(back.seq_max, 3);
	assert_string_equal(back.state.slot[0].reason, "mount: x");
	close(rofd);
	close(fd);
}

/* seq_max from the disk: the newer valid copy's; a copy that fails its checks counts for
 * nothing, whatever number its bytes hold. */
static void test_seq_max_from_disk(void **state)
{
	uint8_t store[VI_SLOTS_STORE_SIZE], out[VI_SLOTS_STORE_SIZE];
	struct vi_error err = { "" };
	struct vi_slots_store st;
	struct vi_slots next;
	unsigned order[2];

	(void)state;
	make_store(store, 7, 9);
	vi_slots_store_parse(store, sizeof(store), 2, &st);
	assert_int_equal(st.seq_max, 9);
	make_store(store, 9, 7);
	vi_slots_store_parse(store, sizeof(store), 2, &st);
	assert_int_equal(st.seq_max, 9);
	/* copy 1 torn: its sequence field says 2^63 + 9, its checksum fails */
	make_store(store, 9, UINT64_C(0x8000000000000009));
	store[VI_SLOTS_COPY_STRIDE + 100] ^= 1;
	vi_slots_store_parse(store, sizeof(store), 2, &st);
	assert_false(st.valid[1]);
	assert_int_equal(st.seq_max, 9);
	next = st.state;
	assert_int_equal(vi_slots_store_update(&st, &next, out, order, &err), 0);
	assert_int_equal(next.seq, 10);
	/* the defaults: 0, the first write 1 */
	memset(store, 0, sizeof(store));
	vi_slots_store_parse(store, sizeof(store), 2, &st);
	assert_int_equal(st.seq_max, 0);
}

/* A state whose ran record says slot b ran from 254:3 with a 32-byte root hash. */
static void sample_ran(struct vi_slots *s)
{
	vi_slots_defaults(s, 2);
	s->seq = 41;
	s->ran = (struct vi_slot_ran){ .set = true, .slot = 1, .major = 254, .minor = 3,
				       .root_hash_len = 32 };
	memset(s->ran.root_hash, 0xab, 32);
}

/* The ran record: encoded beside its state, bound to its sequence number, strict. */
static void test_ran_record(void **state)
{
	uint8_t rec[VI_SLOTS_RECORD_SIZE], ran[VI_SLOTS_RECORD_SIZE], again[VI_SLOTS_RECORD_SIZE];
	struct vi_error err = { "" };
	struct vi_slots s, d;

	(void)state;
	sample_ran(&s);
	assert_int_equal(vi_slots_encode(&s, rec, &err), 0);
	assert_int_equal(vi_slots_ran_encode(&s, ran, &err), 0);
	assert_memory_equal(ran, "VIRN\x01\x00\x01\x20", 8);
	assert_int_equal(vi_slots_decode(rec, &d, &err), 0);
	assert_false(d.ran.set);
	assert_int_equal(vi_slots_ran_decode(ran, &d, &err), 0);
	assert_true(d.ran.set);
	assert_int_equal(d.ran.slot, 1);
	assert_int_equal(d.ran.major, 254);
	assert_int_equal(d.ran.minor, 3);
	assert_int_equal(d.ran.root_hash_len, 32);
	assert_memory_equal(d.ran.root_hash, s.ran.root_hash, 32);
	assert_int_equal(vi_slots_ran_encode(&d, again, &err), 0);
	assert_memory_equal(again, ran, sizeof(ran));
	/* no slot ran: all zeros, and zeros decode to none */
	d.ran.set = false;
	assert_int_equal(vi_slots_ran_encode(&d, again, &err), 0);
	for (size_t k = 0; k < sizeof(again); k++)
		assert_int_equal(again[k], 0);
	d.ran.set = true;
	assert_int_equal(vi_slots_ran_decode(again, &d, &err), 0);
	assert_false(d.ran.set);
	/* another state's record (an agent without ran records wrote the state since, or the
	 * write was torn between the two): stale, not believed */
	assert_int_equal(vi_slots_decode(rec, &d, &err), 0);
	d.seq = 42;
	assert_int_equal(vi_slots_ran_decode(ran, &d, &err), -EINVAL);
	assert_false(d.ran.set);
	assert_non_null(strstr(err.msg, "stale"));
	/* a slot past the state's count, a bad checksum, a byte after the hash */
	d.seq = 41;
	d.count = 1;
	assert_int_equal(vi_slots_ran_decode(ran, &d, &err), -EINVAL);
	d.count = 2;
	ran[100] ^= 1;
	assert_int_equal(vi_slots_ran_decode(ran, &d, &err), -EINVAL);
	assert_string_equal(err.msg, "ran record: checksum mismatch");
	ran[100] ^= 1;
	/* out of range: not encoded */
	s.ran.slot = 2;
	assert_int_equal(vi_slots_ran_encode(&s, ran, &err), -EINVAL);
	s.ran.slot = 0;
	s.ran.root_hash_len = 0;
	assert_int_equal(vi_slots_ran_encode(&s, ran, &err), -EINVAL);
	s.ran.root_hash_len = VERITY_MAX_DIGEST + 1;
	assert_int_equal(vi_slots_ran_encode(&s, ran, &err), -EINVAL);
}

/* Through the store: an update carries the ran record into both copies; a state written later
 * by an agent without ran records (its 512 bytes alone) leaves the old ran record stale. */
static void test_store_ran(void **state)
{
	uint8_t store[VI_SLOTS_STORE_SIZE], out[VI_SLOTS_STORE_SIZE];
	struct vi_error err = { "" };
	struct vi_slots_store st, after;
	struct vi_slots next;
	unsigned order[2];

	(void)state;
	make_store(store, 5, 4);
	vi_slots_store_parse(store, sizeof(store), 2, &st);
	assert_false(st.state.ran.set);
	assert_string_equal(st.ran_why.msg, "");
	sample_ran(&next);
	assert_int_equal(vi_slots_store_update(&st, &next, out, order, &err), 0);
	vi_slots_store_parse(out, sizeof(out), 2, &after);
	assert_true(after.state.ran.set);
	assert_int_equal(after.state.ran.slot, 1);
	/* the first copy complete, the second torn inside its ran record: the first holds both */
	memcpy(store + (size_t)order[0] * VI_SLOTS_COPY_STRIDE,
	       out + (size_t)order[0] * VI_SLOTS_COPY_STRIDE, VI_SLOTS_COPY_USED);
	vi_slots_store_parse(store, sizeof(store), 2, &after);
	assert_int_equal(after.state.seq, 6);
	assert_true(after.state.ran.set);
	/* the state record alone rewritten with a newer number: its ran record is stale */
	next = after.state;
	next.seq = 7;
	assert_int_equal(vi_slots_encode(&next, out, &err), 0);
	memcpy(store + (size_t)order[0] * VI_SLOTS_COPY_STRIDE, out, VI_SLOTS_RECORD_SIZE);
	vi_slots_store_parse(store, sizeof(store), 2, &after);
	assert_int_equal(after.state.seq, 7);
	assert_false(after.state.ran.set);
	assert_non_null(strstr(after.ran_why.msg, "stale"));
	/* a copy torn after its ran record landed and before its state did: the number of that
	 * write may be on disk, so the next one goes above it and never meets the stale record
	 * as its own */
	make_store(store, 5, 4);
	vi_slots_store_parse(store, sizeof(store), 2, &st);
	sample_ran(&next);
	assert_int_equal(vi_slots_store_update(&st, &next, out, order, &err), 0);
	assert_int_equal(next.seq, 6);
	memcpy(store + (size_t)order[0] * VI_SLOTS_COPY_STRIDE + VI_SLOTS_RECORD_SIZE,
	       out + (size_t)order[0] * VI_SLOTS_COPY_STRIDE + VI_SLOTS_RECORD_SIZE,
	       VI_SLOTS_RECORD_SIZE);
	vi_slots_store_parse(store, sizeof(store), 2, &after);
	assert_int_equal(after.state.seq, 5);
	assert_false(after.state.ran.set);
	assert_int_equal(after.seq_max, 6);
	next = after.state;
	assert_int_equal(vi_slots_store_update(&after, &next, out, order, &err), 0);
	assert_int_equal(next.seq, 7);
	/* resize below the slot that ran drops the record */
	sample_ran(&next);
	assert_int_equal(vi_slots_resize(&next, 1), 0);
	assert_false(next.ran.set);
}

/* The policy's slots= wins over the store's count: cut, or grown by slots never booted. */
static void test_resize(void **state)
{
	uint8_t rec[VI_SLOTS_RECORD_SIZE];
	struct vi_error err = { "" };
	struct vi_slots s, back;

	(void)state;
	sample(&s);
	s.count = 2;
	memset(&s.slot[2], 0, sizeof(s.slot[2]) * 2);
	assert_int_equal(vi_slots_resize(&s, 3), 0);
	assert_int_equal(s.count, 3);
	assert_int_equal(s.slot[2].priority, 0);
	assert_int_equal(s.slot[2].tries, 0);
	assert_false(vi_slot_bootable(&s.slot[2]));
	assert_int_equal(vi_slots_encode(&s, rec, &err), 0);
	assert_int_equal(vi_slots_decode(rec, &back, &err), 0);
	assert_int_equal(back.count, 3);
	/* set-primary makes the new slot bootable */
	assert_int_equal(vi_slots_set_primary(&s, 2), 0);
	assert_int_equal(vi_slots_pick(&s, 0), 2);
	/* 4 -> 2: c and d go, and the record is still strict (zero past the count) */
	vi_slots_defaults(&s, 4);
	snprintf(s.slot[3].reason, sizeof(s.slot[3].reason), "%s", "x");
	assert_int_equal(vi_slots_resize(&s, 2), 0);
	assert_int_equal(s.count, 2);
	assert_string_equal(s.slot[3].reason, "");
	assert_int_equal(vi_slots_encode(&s, rec, &err), 0);
	assert_int_equal(vi_slots_decode(rec, &back, &err), 0);
	assert_int_equal(back.count, 2);
	assert_int_equal(vi_slots_resize(&s, 0), -EINVAL);
	assert_int_equal(vi_slots_resize(&s, 5), -EINVAL);
	assert_int_equal(s.count, 2);
}

/* A failure the slot is not blamed for: one try (none when this boot took it already), the
 * reason kept, successful left alone. */
static void test_mark_failed(void **state)
{
	struct vi_slots s;

	(void)state;
	vi_slots_defaults(&s, 2);
	s.slot[0].successful = true;
	assert_int_equal(vi_slots_mark_failed(&s, 0, false, "devices: no device\x01"), 0);
	assert_int_equal(s.slot[0].tries, VI_SLOT_TRIES_DEFAULT - 1);
	assert_true(s.slot[0].successful);
	assert_string_equal(s.slot[0].reason, "devices: no device?");
	assert_int_equal(vi_slots_try(&s, 0, 1), 0);
	assert_int_equal(vi_slots_mark_failed(&s, 0, true, "mount: bad option"), 0);
	assert_int_equal(s.slot[0].tries, VI_SLOT_TRIES_DEFAULT - 2);
	assert_string_equal(s.slot[0].reason, "mount: bad option");
	assert_true(vi_slot_bootable(&s.slot[0]));
	assert_int_equal(vi_slots_mark_failed(&s, 0, false, "x"), 0);
	assert_int_equal(vi_slots_mark_failed(&s, 0, false, "x"), 0);
	assert_int_equal(s.slot[0].tries, 0);
	assert_int_equal(vi_slots_mark_failed(&s, 2, false, "x"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc_vector),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_decode_refuses),
		cmocka_unit_test(test_store_choice),
		cmocka_unit_test(test_both_bad_defaults),
		cmocka_unit_test(test_update_torn_writes),
		cmocka_unit_test(test_pick_and_try),
		cmocka_unit_test(test_mark_and_primary),
		cmocka_unit_test(test_floor_rule),
		cmocka_unit_test(test_fd_io),
		cmocka_unit_test(test_store_too_small),
		cmocka_unit_test(test_seq_after_failed_write),
		cmocka_unit_test(test_seq_max_from_disk),
		cmocka_unit_test(test_resize),
		cmocka_unit_test(test_ran_record),
		cmocka_unit_test(test_store_ran),
		cmocka_unit_test(test_mark_failed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
