/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The A/B slot state and its on-disk codec (lib/format/slotstate.c; docs/formats.md, "Slot
 * state store"): struct vi_slots, one 512-byte record <-> that state (pure, strict), and the
 * store of two copies: which copy holds the state, what an update writes where. What the state
 * means and the decisions over it are include/slots.h's.
 *
 * Slots are named a, b, c, d (index 0..3). Functions return 0 or a negative errno. */
#ifndef VERITY_SLOTSTATE_H
#define VERITY_SLOTSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "superblock.h"   /* VERITY_MAX_DIGEST */

#define VI_SLOTS_MAX            4
#define VI_SLOTS_DEFAULT_COUNT  2
#define VI_SLOT_REASON_MAX      80    /* with its NUL */
#define VI_SLOT_PRIORITY_MAX    15
#define VI_SLOT_PRIORITY_PRIMARY 15   /* set-primary's slot */
#define VI_SLOT_PRIORITY_OTHER  14    /* the others that were bootable */
#define VI_SLOT_TRIES_MAX       7
#define VI_SLOT_TRIES_DEFAULT   3

/* The store: two copies, each one 512-byte state record at the start of its own 4 KiB block,
 * followed by the 512-byte ran record of that state (written with it, bound to its sequence
 * number). */
#define VI_SLOTS_RECORD_SIZE    512
#define VI_SLOTS_COPY_USED      (2 * VI_SLOTS_RECORD_SIZE)
#define VI_SLOTS_COPY_STRIDE    4096
#define VI_SLOTS_COPIES         2
#define VI_SLOTS_STORE_SIZE     (VI_SLOTS_COPIES * VI_SLOTS_COPY_STRIDE)

struct vi_slot {
	uint8_t priority;     /* 0..15; 0: never booted */
	uint8_t tries;        /* 0..7: boots left; 0: not bootable */
	bool successful;      /* its recorded version booted completely as the running slot
	                       * (the floor rule, include/slots.h); what the next boot may raise
	                       * the TPM counter to */
	uint64_t version;     /* manifest version the agent last set up from it; 0: unknown */
	char reason[VI_SLOT_REASON_MAX];   /* why its last set-up failed, marked bad or not
	                                    * (printable ASCII); cleared by mark-good */
};

/* The slot the agent last switched to, as it was then: which slot, the data partition it was
 * set up from (MAJ:MIN) and the root hash its manifest gave. A dm-verity end in pstore blames
 * this slot and no other, and only while all three still describe it (include/managed.h). */
struct vi_slot_ran {
	bool set;             /* false: no slot recorded (none ran, or the record is unknown) */
	unsigned slot;        /* index, below the state's count */
	uint32_t major, minor;
	unsigned root_hash_len;   /* 1..VERITY_MAX_DIGEST */
	uint8_t root_hash[VERITY_MAX_DIGEST];
};

struct vi_slots {
	uint64_t seq;         /* the copy's sequence number (serial arithmetic: it may wrap) */
	uint64_t floor;       /* rollback floor: lowest manifest version that may boot */
	unsigned count;       /* 1..VI_SLOTS_MAX */
	struct vi_slot slot[VI_SLOTS_MAX];
	struct vi_slot_ran ran;   /* kept in the ran record beside the state record */
};

/* Where the state came from when the store was read. */
enum vi_slots_source {
	VI_SLOTS_FROM_COPY0,
	VI_SLOTS_FROM_COPY1,
	VI_SLOTS_FROM_DEFAULTS,   /* neither copy valid (blank, torn twice, corrupt) */
};

/* The store as read: the state in use and what each copy held. */
struct vi_slots_store {
	struct vi_slots state;
	enum vi_slots_source source;
	bool valid[VI_SLOTS_COPIES];
	uint64_t seq[VI_SLOTS_COPIES];                 /* when valid */
	struct vi_error why[VI_SLOTS_COPIES];          /* when not valid */
	struct vi_error ran_why;   /* why state.ran is not set: "" when no ran record was there
	                            * (none written, or written by an agent without them) */
	/* the highest sequence number that may be on disk: the newer valid copy's (0 for the
	 * defaults) or a sealed ran record's (a write whose state record tore), raised to every
	 * number a write was attempted with, written or not; the next write takes seq_max + 1,
	 * so no two different records ever share a number. A state record that is not valid is
	 * not counted: none of its bytes can be trusted. */
	uint64_t seq_max;
};

/* "a".."d" for 0..3; "?" otherwise. */
const char *vi_slot_name(unsigned index);
/* The index of a slot name of s ("a".."d", below s->count), or -EINVAL. */
int vi_slot_index(const struct vi_slots *s, const char *name);
const char *vi_slots_source_name(enum vi_slots_source source);

/* The defaults used when neither copy is valid: count slots (VI_SLOTS_DEFAULT_COUNT when 0 or
 * too many), slot a primary (priority 15), the others 14, all VI_SLOT_TRIES_DEFAULT tries, not
 * successful, floor 0, seq 0. */
void vi_slots_defaults(struct vi_slots *s, unsigned count);
/* One copy: s into out[VI_SLOTS_RECORD_SIZE]. -EINVAL (with a reason) when s is out of range. */
int vi_slots_encode(const struct vi_slots *s, uint8_t *out, struct vi_error *err);
/* One copy from buf[0..VI_SLOTS_RECORD_SIZE): magic, version, checksum, every field in range,
 * every reserved byte zero; -EINVAL with a reason otherwise. *ret is untouched on failure. */
int vi_slots_decode(const uint8_t *buf, struct vi_slots *ret, struct vi_error *err);
/* The ran record of state s into out[VI_SLOTS_RECORD_SIZE]: s->ran bound to s->seq; all zeros
 * when s->ran is not set. -EINVAL (with a reason) when s->ran is out of range. */
int vi_slots_ran_encode(const struct vi_slots *s, uint8_t *out, struct vi_error *err);
/* The ran record in buf[0..VI_SLOTS_RECORD_SIZE) of the state s decoded from the record before
 * it: magic, version, checksum, s's sequence number (a record of another state is stale: a
 * writer without ran records, or a write torn between the two), a slot below s's count, every
 * reserved byte zero. Sets s->ran; all zeros leave it unset and return 0; -EINVAL with a reason
 * otherwise, s->ran untouched. */
int vi_slots_ran_decode(const uint8_t *buf, struct vi_slots *s, struct vi_error *err);
/* Whether sequence number a is newer than b (serial arithmetic over 64 bits). */
bool vi_slots_seq_newer(uint64_t a, uint64_t b);
/* The store from its first len bytes (missing bytes count as a copy that is not valid): the
 * newer valid copy (copy 0 on equal numbers), else the defaults for default_count slots; the
 * ran record beside the copy in use sets state.ran (ran_why says why one there does not). */
void vi_slots_store_parse(const uint8_t *buf, size_t len, unsigned default_count,
			  struct vi_slots_store *ret);
/* An update of store st to state next: next->seq becomes st->seq_max + 1, and out
 * (VI_SLOTS_STORE_SIZE bytes) the new contents. order[0] is the copy to write first (the one not
 * holding the state in use), order[1] the other; each gets the same state and ran records (its
 * first VI_SLOTS_COPY_USED bytes). */
int vi_slots_store_update(const struct vi_slots_store *st, struct vi_slots *next, uint8_t *out,
			  unsigned order[VI_SLOTS_COPIES], struct vi_error *err);

#endif
