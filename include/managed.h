/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Managed recovery from a verification failure after the switch (docs/security.md, "After the
 * switch"), the pure part (lib/format/managed.c): what a pstore record of the last boot says,
 * the agent's own EFI variable that ties that record to a root hash, and the decision.
 *
 * dm-verity checks a block when it is read, so most corruption is found long after the switch;
 * with panic-on-corruption (or panic-on-error) the kernel's panic dumps its log into pstore
 * (efi-pstore, ramoops), and the next boot's agent reads it from /sys/fs/pstore. The record is
 * untrusted: it can only make a boot more conservative (a slot marked bad, a root booted with
 * I/O errors instead of a reboot), never let an unverified byte through.
 *
 * The variable VerityInitManaged-<VI_MANAGED_GUID> holds one line
 *
 *     verity-init-managed 1 roothash=HEX state=restart\n
 *     verity-init-managed 1 roothash=HEX state=degraded boots=N\n
 *
 * (a degraded line without " boots=N" reads as boots=0), the root hash the agent last switched
 * to, whether it booted degraded and, when it did, how many
 * of its degraded boots the running system has not yet confirmed (`verity-init managed
 * mark-good`). A degraded root is booted again only while that count is below
 * VI_MANAGED_TRIES: one that did not come up (its bad block in init, in the service manager, in
 * what the system needs to reach the confirmation) is not booted in a loop. The variable is
 * written only when that changes (an update, a corruption, a degraded boot and its
 * confirmation), never on a normal boot like the last. Functions return 0 or a negative
 * errno. */
#ifndef VERITY_MANAGED_H
#define VERITY_MANAGED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "slotstate.h"    /* struct vi_slot_ran */
#include "superblock.h"   /* VERITY_MAX_DIGEST */

#define VI_MANAGED_GUID      "3af7829d-8a96-4776-92ff-f0596c1422c0"
#define VI_MANAGED_VAR       "VerityInitManaged-" VI_MANAGED_GUID
#define VI_MANAGED_TEXT_MAX  (64u + 2u * VERITY_MAX_DIGEST)
#define VI_PSTORE_RECORD_MAX 65536u   /* what is read of one pstore file */
#define VI_PSTORE_REASON_MAX 16u
#define VI_MANAGED_TRIES     2u       /* unconfirmed degraded boots before the root is refused:
                                       * one may be cut short by a power cut or a reset */
#define VI_MANAGED_BOOTS_MAX 9u       /* what the variable's boots=N may say */

/* How the boot a pstore record describes ended, as far as dm-verity is concerned. */
enum vi_pstore_end {
	VI_PSTORE_OTHER = 0,      /* not by dm-verity (another oops or panic, or not a dump) */
	VI_PSTORE_CORRUPTION,     /* "dm-verity device corrupted": a block failed its hash */
	VI_PSTORE_IO_ERROR,       /* "dm-verity device has I/O error" (*_on_error, 6.12+) */
};

/* One file of the pstore filesystem (a dmesg-BACKEND-ID record) from its first len bytes: a
 * dump's header line "REASON#N PartM" (pstore's: Panic, Oops, Emergency, Shutdown, ...), then
 * the kernel log's last lines; the end is dm-verity's when a line carries its panic or restart
 * message. reason gets the header's REASON (letters only, VI_PSTORE_REASON_MAX with the NUL;
 * "" without a header); a file without a header is VI_PSTORE_OTHER. Bytes may be anything. */
enum vi_pstore_end vi_pstore_parse(const char *buf, size_t len, char reason[VI_PSTORE_REASON_MAX]);
const char *vi_pstore_end_name(enum vi_pstore_end end);   /* "corruption", "I/O error", "other" */

/* What the variable holds. */
struct vi_managed_record {
	uint8_t root_hash[VERITY_MAX_DIGEST];
	unsigned root_hash_len;   /* 1..VERITY_MAX_DIGEST */
	bool degraded;
	unsigned boots;           /* degraded: boots not confirmed yet, 0..VI_MANAGED_BOOTS_MAX;
	                           * 0 otherwise */
};

/* The variable's text (without the 4 attribute bytes efivarfs puts first) into buf (size bytes,
 * VI_MANAGED_TEXT_MAX is enough): its length, or -EINVAL / -ENOBUFS. */
int vi_managed_encode(const struct vi_managed_record *rec, char *buf, size_t size,
		      struct vi_error *err);
/* The variable's text from len bytes: exactly one of the lines above (or " state=degraded\n",
 * boots 0), lower-case hex of an even length up to 2 * VERITY_MAX_DIGEST, N one digit; -EINVAL
 * with a reason otherwise, *ret untouched. */
int vi_managed_decode(const char *buf, size_t len, struct vi_managed_record *ret,
		      struct vi_error *err);

/* The decision for a boot without slots of the root with root hash hash (len bytes), from how
 * the last boot ended (end: the pstore records found) and the variable as read (last, NULL: none
 * or unreadable). */
struct vi_managed_decision {
	bool degraded;            /* boot this root with I/O errors for a bad block (no restart,
	                           * no panic: EIO), measure and report it as degraded */
	bool crashed;             /* the record names this boot's root (its last boot ended on
	                           * dm-verity); false with end set: an earlier root's */
	bool refused;             /* degraded, and its last VI_MANAGED_TRIES degraded boots were
	                           * not confirmed: not booted again (next is last) */
	bool write;               /* next differs from last: write the variable */
	struct vi_managed_record next;   /* what the variable is to hold */
};
/* degraded when the record's boot was of this root (the variable's root hash, or this one when
 * no variable says which: the conservative answer), or when the variable says this root booted
 * degraded before: restart mode returns only with another root hash (an update). A degraded
 * boot counts one more unconfirmed boot in next, before anything of it runs; refused when the
 * count has reached VI_MANAGED_TRIES. */
int vi_managed_decide(enum vi_pstore_end end, const struct vi_managed_record *last,
		      const uint8_t *hash, unsigned len, struct vi_managed_decision *ret);

/* The running system came up on the root with root hash hash (len bytes): its degraded boots
 * are confirmed. True, with *next (boots 0) to write, when last is that root's degraded record
 * with boots to confirm; false when there is nothing to write. */
bool vi_managed_confirm(const struct vi_managed_record *last, const uint8_t *hash, unsigned len,
			struct vi_managed_record *next);

/* Whether a dm-verity end of this boot reaches the next boot's agent at all: a panic or restart
 * leaves a pstore record only through a registered backend (efi_pstore, ramoops), and a
 * restart only when that backend keeps a shutdown's dump. Without one, managed=yes protects
 * nothing: said at boot and in the status file (managed_trace=). */
enum vi_managed_trace {
	VI_MANAGED_TRACE_RECORDED,     /* a panic or restart of this root leaves a record */
	VI_MANAGED_TRACE_NOT_NEEDED,   /* the root's bad blocks are I/O errors: nothing ends it */
	VI_MANAGED_TRACE_NO_BACKEND,   /* no pstore backend registered: nothing is kept */
	VI_MANAGED_TRACE_RESTART_LOST, /* it restarts, and the backend keeps no shutdown dump */
};
struct vi_managed_trace_input {
	const char *backend;       /* /sys/module/pstore/parameters/backend, "" when unreadable;
	                            * "(null)": none registered */
	bool panics, restarts;     /* the root's table on corruption or I/O error */
	bool always_kmsg_dump;     /* printk.always_kmsg_dump=Y */
	int backend_max_reason;    /* the backend's own max_reason (ramoops.max_reason), -1 when
	                            * it sets none: then printk.always_kmsg_dump decides */
};
enum vi_managed_trace vi_managed_trace(const struct vi_managed_trace_input *in);
/* "pstore BACKEND", "not needed (I/O errors)", "none: no pstore backend", "none: ..." */
const char *vi_managed_trace_text(enum vi_managed_trace t);

/* A/B slots: whom a dm-verity end in pstore (end) blames, asked for slot i, found in this boot
 * on data partition major:minor with root hash hash (len bytes). The store's ran record (ran,
 * written before the switch to a slot: include/slotstate.h) is the only witness of which slot
 * ran: the EFI variable keeps a root hash, which two slots holding the same image share, and a
 * board without UEFI has no variable at all. */
enum vi_managed_slot_verdict {
	VI_MANAGED_SLOT_CLEAR,     /* the last boot did not end on dm-verity */
	VI_MANAGED_SLOT_BLAMED,    /* slot i ran, from this partition with this root hash: it is
	                            * marked bad (its content is to blame), the next one set up */
	VI_MANAGED_SLOT_OTHER,     /* another slot ran */
	VI_MANAGED_SLOT_CHANGED,   /* slot i ran, from another partition or with another root hash
	                            * (repartitioned, an update since): what ran is not there */
	VI_MANAGED_SLOT_UNKNOWN,   /* no ran record (an older agent's store, a write torn between
	                            * the two records): no slot is blamed; the try each boot takes
	                            * before its switch still ends a slot that keeps failing. A
	                            * write that failed whole leaves the last good pair instead
	                            * (docs/security.md, "Gaps") */
};
enum vi_managed_slot_verdict vi_managed_slot_verdict(enum vi_pstore_end end,
						     const struct vi_slot_ran *ran, unsigned i,
						     uint32_t major, uint32_t minor,
						     const uint8_t *hash, unsigned len);
const char *vi_managed_slot_verdict_name(enum vi_managed_slot_verdict v);

#endif
