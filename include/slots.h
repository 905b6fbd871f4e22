/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The A/B slots' decisions and the store's I/O (docs/slots.md): lib/boot/slots.c decides over
 * the state (include/slotstate.h) -- which slot boots, what a boot, a failure, mark-good and
 * set-primary do to it, where the rollback floor may rise -- all pure; lib/boot/slots_store.c
 * reads and writes the store on a file descriptor. The programs do the rest:
 * verity-init/agent/slot-boot.c (the agent's A/B boot step), slot-tpm.c (the floor's TPM
 * counter), slot-cmd.c (`verity-init slot`).
 *
 * A slot is bootable when its priority and its tries remaining are both non-zero; the agent
 * takes the bootable slot of highest priority (the lower index on a tie), takes one try off it
 * before the switch, and mark-good gives the tries back once the system reached
 * boot-complete.target. Functions return 0 or a negative errno. */
#ifndef VERITY_SLOTS_H
#define VERITY_SLOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "activate.h"
#include "config.h"
#include "err.h"
#include "policy.h"
#include "slotstate.h"

/* --- the state's decisions --- */
bool vi_slot_bootable(const struct vi_slot *slot);
/* The bootable slot of highest priority (the lower index on a tie) among those not in tried
 * (bit i: slot i was set up in this boot already: one set-up per slot and boot; 0 for the
 * next boot's pick), or -ENOENT. */
int vi_slots_pick(const struct vi_slots *s, unsigned tried);
/* Before the switch to slot i: one try less, its manifest version recorded; a version other
 * than the one recorded is not proven (successful cleared: the floor rule). -ESTALE when it has
 * no try left (not bootable: pick another), -EINVAL for a bad index. */
int vi_slots_try(struct vi_slots *s, unsigned i, uint64_t version);
/* Slot i failed: no tries, not successful, reason kept (printable ASCII, cut to fit; NULL: ""). */
int vi_slots_mark_bad(struct vi_slots *s, unsigned i, const char *reason);
/* Slot i failed for a reason its own content is not blamed for (a device missing, the command
 * line's mount options, the kernel): the reason is kept as by vi_slots_mark_bad, the tries are
 * not zeroed, successful stays as it was; one try is taken unless try_taken says this boot took
 * it already (vi_slots_try). A slot that keeps failing so still runs out of tries, one boot at
 * a time. */
int vi_slots_mark_failed(struct vi_slots *s, unsigned i, bool try_taken, const char *reason);
/* The state cut or grown to count slots (1..VI_SLOTS_MAX; others: -EINVAL, s untouched): the
 * slots past count are dropped (a ran record of one with them), new ones start never booted
 * (priority 0, no tries: not bootable until set-primary). */
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

/* --- the boot step's decisions (docs/slots.md, "Booting a slot") --- */
/* Room for the status file's skipped= value: "b:preflight:REASON;c:..." */
#define VI_SLOT_SKIPPED_MAX 512u

/* The root of slot index under policy p: base (the command line's root: name, options) with
 * data PARTLABEL=<prefix>X, hash PARTLABEL=<prefix>X-verity and the signed manifest after the
 * hash tree on that hash device (verity.manifest= with the hash device: docs/signing.md).
 * -EINVAL when index is not one of the policy's slots. */
int vi_slot_layout(const struct vi_policy *p, unsigned index, const struct vi_config *base,
		   struct vi_config *ret, struct vi_error *err);

/* Whom a failed slot is blamed on (docs/slots.md, "Which failure marks a slot bad"). */
enum vi_slot_blame {
	VI_SLOT_BLAME_CONTENT,  /* the slot's own data: marked bad, no tries left */
	VI_SLOT_BLAME_BOOT,     /* what the slot's data cannot cause (a device missing or
	                         * ambiguous, the command line, the kernel): one try taken */
};

/* The signature step of a slot whose devices were found failed with r: its manifest's
 * signature, text or version refused (the content), or a read error, out of memory (not). */
enum vi_slot_blame vi_slot_manifest_blame(int r);

/* The set-up of a slot (devices, superblock, ..., init, switch) failed at stage with r, under
 * the configuration cfg. The content is blamed for what its verified data alone decides: the
 * superblock, sizes and pre-flight of its tree, and a verity read error mounting it or init
 * missing from it, those two only when the command line shaped neither the mount (rootflags=,
 * rootfstype=, systemd.volatile=) nor init (init=). */
enum vi_slot_blame vi_slot_setup_blame(enum vi_stage stage, int r, const struct vi_config *cfg);

/* Slot i's manifest verified with version: refused (-EPERM, err says why) below the store's
 * rollback floor; else its try is taken and the version recorded (vi_slots_try), to be written
 * before the switch. */
int vi_slots_admit(struct vi_slots *s, unsigned i, uint64_t version, struct vi_error *err);

/* What becomes of the rollback floor's TPM counter (slot_floor=tpm) for slot i, whose manifest
 * verified with version in this boot, before its try is taken (s: the store as read). The
 * counter only rises to a version a manifest verified in this boot carries, and only for a
 * slot the store says booted completely with that very version as the running slot (the floor
 * rule's record, vi_slots_floor_proven). */
enum vi_slots_counter_action {
	VI_SLOTS_COUNTER_KEEP,     /* at or above the counter: it stays */
	VI_SLOTS_COUNTER_RAISE,    /* above it, and good with this version: raise it to version */
	VI_SLOTS_COUNTER_REFUSE,   /* below it: refused, blamed on the boot (not marked bad) */
};
enum vi_slots_counter_action vi_slots_counter_action(const struct vi_slots *s, unsigned i,
						     uint64_t version, uint64_t counter);

/* Slot i failed at stage ("devices", "preflight", "manifest", "version", ...), with the reason
 * "STAGE: REASON" kept (what fits, printable ASCII): blamed on its content, marked bad
 * (vi_slots_mark_bad); else one try taken, unless try_taken says the boot took it already
 * (vi_slots_mark_failed). */
int vi_slots_record_failure(struct vi_slots *s, unsigned i, enum vi_slot_blame blame,
			    bool try_taken, const char *stage, const char *reason);

/* Append "SLOT:STAGE:REASON" to the skipped list (size bytes, ";" between entries); the reason
 * loses its ';' (they separate entries) and non-printable bytes; cut to fit, always NUL-ended. */
void vi_slot_skipped_add(char *list, size_t size, const char *slot, const char *stage,
			 const char *reason);

/* --- the store device (lib/boot/slots_store.c) ---
 * fd is opened without O_DIRECT (the buffers are not aligned for it): fdatasync after each copy
 * is what orders the writes and puts them on the medium, through the device's cache too. */
/* Read the store from fd (its first VI_SLOTS_STORE_SIZE bytes). A store smaller than that (the
 * size of a block device, of a regular file) is refused with -ENOSPC: its second copy could
 * never be written, so no try would ever be saved. Otherwise only a read error fails; an
 * unreadable state is the defaults (see the source). */
int vi_slots_store_read(int fd, unsigned default_count, struct vi_slots_store *ret,
			struct vi_error *err);
/* Write next to fd as an update of st (vi_slots_store_update): the copy not in use first, then
 * fdatasync, then the other, then fdatasync, so one complete copy is on disk at every moment.
 * On success st is the store as now written; on failure too st->seq_max holds the number
 * tried, so a later write from st goes above whatever part of this one reached the disk. */
int vi_slots_store_write(int fd, struct vi_slots_store *st, const struct vi_slots *next,
			 struct vi_error *err);

#endif
