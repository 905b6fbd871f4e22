/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A/B slot state: the small store partition the agent counts boot tries in, and the decisions
 * over it (docs/formats.md, "Slot state store"; docs/slots.md).
 *
 *   lib/format/slotstate.c  one copy <-> struct vi_slots (pure, strict), and the whole store:
 *                           which copy holds the state, what an update writes where;
 *   lib/boot/slots.c        pick, try, mark bad, mark good, set primary (pure), and the
 *                           store's read and write on a file descriptor.
 *
 * Slots are named a, b, c, d (index 0..3). A slot is bootable when its priority and its tries
 * remaining are both non-zero; the agent takes the bootable slot of highest priority (the lower
 * index on a tie), takes one try off it before the switch, and mark-good gives the tries back
 * once the system reached boot-complete.target. Functions return 0 or a negative errno. */
#ifndef VERITY_SLOTS_H
#define VERITY_SLOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define VI_SLOTS_MAX            4
#define VI_SLOTS_DEFAULT_COUNT  2
#define VI_SLOT_REASON_MAX      80    /* with its NUL */
#define VI_SLOT_PRIORITY_MAX    15
#define VI_SLOT_PRIORITY_PRIMARY 15   /* set-primary's slot */
#define VI_SLOT_PRIORITY_OTHER  14    /* the others that were bootable */
#define VI_SLOT_TRIES_MAX       7
#define VI_SLOT_TRIES_DEFAULT   3

/* The store: two copies, each one 512-byte record at the start of its own 4 KiB block. */
#define VI_SLOTS_RECORD_SIZE    512
#define VI_SLOTS_COPY_STRIDE    4096
#define VI_SLOTS_COPIES         2
#define VI_SLOTS_STORE_SIZE     (VI_SLOTS_COPIES * VI_SLOTS_COPY_STRIDE)

struct vi_slot {
	uint8_t priority;     /* 0..15; 0: never booted */
	uint8_t tries;        /* 0..7: boots left; 0: not bootable */
	bool successful;      /* its recorded version booted completely as the running slot
	                       * (the floor rule, below); what the next boot may raise the
	                       * TPM counter to */
	uint64_t version;     /* manifest version the agent last set up from it; 0: unknown */
	char reason[VI_SLOT_REASON_MAX];   /* why its last set-up failed, marked bad or not
	                                    * (printable ASCII); cleared by mark-good */
};

struct vi_slots {
	uint64_t seq;         /* the copy's sequence number (serial arithmetic: it may wrap) */
	uint64_t floor;       /* rollback floor: lowest manifest version that may boot */
	unsigned count;       /* 1..VI_SLOTS_MAX */
	struct vi_slot slot[VI_SLOTS_MAX];
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
	/* the highest sequence number that may be on disk: the newer valid copy's (0 for the
	 * defaults), raised to every number a write was attempted with, written or not; the
	 * next write takes seq_max + 1, so no two different records ever share a number. A
	 * copy that is not valid is not counted: none of its bytes can be trusted. */
	uint64_t seq_max;
};

/* --- names --- */
/* "a".."d" for 0..3; "?" otherwise. */
const char *vi_slot_name(unsigned index);
/* The index of a slot name of s ("a".."d", below s->count), or -EINVAL. */
int vi_slot_index(const struct vi_slots *s, const char *name);
const char *vi_slots_source_name(enum vi_slots_source source);

/* --- on-disk (lib/format/slotstate.c) --- */
/* The defaults used when neither copy is valid: count slots (VI_SLOTS_DEFAULT_COUNT when 0 or
 * too many), slot a primary (priority 15), the others 14, all VI_SLOT_TRIES_DEFAULT tries, not
 * successful, floor 0, seq 0. */
void vi_slots_defaults(struct vi_slots *s, unsigned count);
/* One copy: s into out[VI_SLOTS_RECORD_SIZE]. -EINVAL (with a reason) when s is out of range. */
int vi_slots_encode(const struct vi_slots *s, uint8_t *out, struct vi_error *err);
/* One copy from buf[0..VI_SLOTS_RECORD_SIZE): magic, version, checksum, every field in range,
 * every reserved byte zero; -EINVAL with a reason otherwise. *ret is untouched on failure. */
int vi_slots_decode(const uint8_t *buf, struct vi_slots *ret, struct vi_error *err);
/* Whether sequence number a is newer than b (serial arithmetic over 64 bits). */
bool vi_slots_seq_newer(uint64_t a, uint64_t b);
/* The store from its first len bytes (missing bytes count as a copy that is not valid): the
 * newer valid copy (copy 0 on equal numbers), else the defaults for default_count slots. */
void vi_slots_store_parse(const uint8_t *buf, size_t len, unsigned default_count,
			  struct vi_slots_store *ret);
/* An update of store st to state next: next->seq becomes st->seq_max + 1, and out
 * (VI_SLOTS_STORE_SIZE bytes) the new contents. order[0] is the copy to write first (the one not
 * holding the state in use), order[1] the other; each gets the same record. */
int vi_slots_store_update(const struct vi_slots_store *st, struct vi_slots *next, uint8_t *out,
			  unsigned order[VI_SLOTS_COPIES], struct vi_error *err);

/* --- decisions (lib/boot/slots.c) --- */
bool vi_slot_bootable(const struct vi_slot *slot);
/* The bootable slot of highest priority (the lower index on a tie), or -ENOENT. */
int vi_slots_pick(const struct vi_slots *s);
/* Before the switch to slot i: one try less, its manifest version recorded; a version other
 * than the one recorded is not proven (successful cleared: the floor rule). -ESTALE when it has
 * no try left (not bootable: pick another), -EINVAL for a bad index. */
int vi_slots_try(struct vi_slots *s, unsigned i, uint64_t version);
/* Slot i failed: no tries, not successful, reason kept (printable ASCII, cut to fit; NULL: ""). */
int vi_slots_mark_bad(struct vi_slots *s, unsigned i, const char *reason);
/* Slot i failed for a reason its own content is not blamed for (a device missing, the command
 * line's mount options, the kernel): the reason is kept as by vi_slots_mark_bad, the tries are
 * not zeroed, successful stays as it was; one try is taken unless try_taken says this boot took it already (vi_slots_try).
 * A slot that keeps failing so still runs out of tries, one boot at a time. */
int vi_slots_mark_failed(struct vi_slots *s, unsigned i, bool try_taken, const char *reason);
/* The state cut or grown to count slots (1..VI_SLOTS_MAX; others: -EINVAL, s untouched): the
 * slots past count are dropped, new ones start never booted (priority 0, no tries: not
 * bootable until set-primary). */
int vi_slots_resize(struct vi_slots *s, unsigned count);
/* The floor rule, the one place it is decided (docs/slots.md, "The floor"): a manifest version
 * may become the rollback floor -- the store's now, the TPM counter's (slot_floor=tpm) at the
 * next boot -- only when it booted completely as the running slot. True when slot i is running
 * (running: the index of the slot the agent switched to in this boot, from its status file's
 * slot= with result=ok; -1 when not known or that boot did not complete); the caller is
 * mark-good or set-state good, which say the running system reached boot-complete.
 * The store keeps the answer as the slot's `successful`: set only where this is true
 * (vi_slots_mark_good), cleared by set-primary, mark-bad, a try of another version and
 * set-state good of a slot this says no to. */
bool vi_slots_floor_may_rise(const struct vi_slots *s, unsigned i, int running);
/* Whether the store records slot i as proven by the rule above with version (successful,
 * that version, and the store's floor at least that high, as that mark-good left it): the only
 * version the next boot may raise the TPM counter to for it. */
bool vi_slots_floor_proven(const struct vi_slots *s, unsigned i, uint64_t version);
/* Slot i marked good (mark-good, set-state good): bootable again -- tries back to the default,
 * reason cleared, priority 0 raised to VI_SLOT_PRIORITY_OTHER. When the floor rule says its
 * version may count (running, above), it is also successful and the floor becomes its version
 * when that is higher: the only place the floor ever rises. Otherwise (RAUC's `mark-good
 * other`, a boot that did not complete) not successful, the floor as it was. */
int vi_slots_mark_good(struct vi_slots *s, unsigned i, int running);
/* Boot slot i next: priority 15, default tries, not successful (its new image has yet to prove
 * itself), reason cleared; every other slot with a priority gets 14. */
int vi_slots_set_primary(struct vi_slots *s, unsigned i);
/* Whether a manifest version may boot under s's floor. */
bool vi_slots_version_allowed(const struct vi_slots *s, uint64_t version);

/* --- the store device ---
 * fd is opened without O_DIRECT (the buffers are not aligned for it): fdatasync after each copy
 * is what orders the writes and puts them on the medium, through the device's cache too. */
/* Read the store from fd (its first VI_SLOTS_STORE_SIZE bytes). A store smaller than that (the
 * size of a block device, of a regular file) is refused with -ENOSPC: its second copy could
 * never be written, so no try would ever be saved. Otherwise only a read error fails; an
 * unreadable state is the defaults (see the source). */
int vi_slots_read_fd(int fd, unsigned default_count, struct vi_slots_store *ret,
		     struct vi_error *err);
/* Write next to fd as an update of st (vi_slots_store_update): the copy not in use first, then
 * fdatasync, then the other, then fdatasync, so one complete copy is on disk at every moment.
 * On success st is the store as now written; on failure too st->seq_max holds the number
 * tried, so a later write from st goes above whatever part of this one reached the disk. */
int vi_slots_write_fd(int fd, struct vi_slots_store *st, const struct vi_slots *next,
		      struct vi_error *err);

#endif
