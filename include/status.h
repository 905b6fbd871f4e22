/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /run/verity-init/status: what the agent decided, for the booted (or recovery) root and for
 * `verity-init status`. One key=value per line; values are sanitized (printable ASCII only). */
#ifndef VERITY_STATUS_H
#define VERITY_STATUS_H

#include "failure.h"
#include "superblock.h"

#define VI_STATUS_DIR  "/run/verity-init"
#define VI_STATUS_FILE "status"

struct vi_status {
	const char *result;    /* "ok" | "failed" | "recovery" */
	const char *name;      /* mapping name of the root that was set up (or failed) */
	const char *root_hash; /* hex root hash of the failed (or booted) root */
	const char *stage;     /* step that failed: devices, superblock, preflight, activate, ... */
	const char *reason;    /* the one-line reason */
	const char *action;    /* fallback taken: none, recovery, reboot, poweroff, panic, shell */
	const char *booted;    /* root hash of the root that was finally mounted, or empty */
	const char *slot;      /* A/B: the slot booted or failed (a, b, ...); NULL: no line */
	const char *store;     /* A/B: the slot state store used; NULL: no line */
	const char *skipped;   /* A/B: slots set aside this boot, "b:STAGE:REASON;..."; NULL
	                        * or "": no line */
	const char *floor_nv;  /* A/B: the TPM NV counter holding the rollback floor
	                        * (slot_floor=tpm), "0x01005649"; NULL or "": no line (not
	                        * read back by vi_status_parse) */
	const char *full_read; /* A/B: "yes" when the policy has mark-good read the whole slot
	                        * first (slot_full_read=yes); NULL: no line (not read back by
	                        * vi_status_parse) */
	const char *usr;       /* the verified /usr mapping set up with the root; NULL: no line */
	const char *usr_hash;  /* its root hash (usrhash=); NULL: no line */
	const char *on_corruption; /* what the kernel does on a bad block of the booted root:
	                            * eio, restart, panic, ignore; NULL: no line */
	const char *managed;   /* policy managed=yes: "normal", or "degraded" when the root boots
	                        * with I/O errors after a corruption (include/managed.h); NULL: no
	                        * line */
	const char *managed_trace; /* policy managed=yes: whether a dm-verity end of this root
	                            * reaches the next boot ("pstore (efi)", the kernel's backend
	                            * name; vi_managed_trace_text's "none: ..."); NULL: no line (not
	                            * read back) */
};

/* What a boot came to, in the status file's words: the agent writes result= and action= from
 * these, and the programs that read the file back (`managed mark-good`, `slot`) ask
 * vi_status_outcome(), so that writer and readers cannot drift apart. */
#define VI_STATUS_RESULT_OK      "ok"        /* the verified root (or /usr) was switched to */
#define VI_STATUS_RESULT_FAILED  "failed"    /* it was not: action= says what came instead */
#define VI_STATUS_ACTION_NONE    "none"
#define VI_STATUS_ACTION_RECOVERY "recovery" /* the recovery root runs in its place */

enum vi_boot_outcome {
	VI_BOOT_BOOTED,     /* result=ok */
	VI_BOOT_RECOVERY,   /* result=failed action=recovery */
	VI_BOOT_FAILED,     /* anything else, a file that says nothing included */
};
enum vi_boot_outcome vi_status_outcome(const struct vi_status *st);

/* Room for a hex root hash, for vi_status_from_failure. */
struct vi_status_hashes {
	char failed[2 * VERITY_MAX_DIGEST + 1];
	char booted[2 * VERITY_MAX_DIGEST + 1];
	char usr[2 * VERITY_MAX_DIGEST + 1];
};

/* The status of a boot from the failure value f (may be NULL or not set: no failure) and the
 * target finally set up, booted (may be NULL): name= and roothash= of the failed target, else of
 * booted; stage= and reason= from f; booted= booted's root hash. The strings point into f,
 * the targets, result, action and hashes, which must outlive *ret. */
void vi_status_from_failure(const char *result, const char *action, const struct vi_failure *f,
			    const struct vi_target *booted, struct vi_status_hashes *hashes,
			    struct vi_status *ret);

/* A/B boots: record the slot (slot=) and the store (store=) in st, which `verity-init slot
 * get-current` and the RAUC integration read back. Without this call neither line is written. */
void vi_status_set_slot(struct vi_status *st, const char *slot, const char *store);
/* A/B boots: the slots skipped this boot and why (skipped=, include/slots.h's list). */
void vi_status_set_skipped(struct vi_status *st, const char *skipped);

/* Room for the status file's text (vi_status_read). */
#define VI_STATUS_MAX 4096

/* Fill *ret from the text of a status file, in place: lines KEY=VALUE, the known keys only, the
 * last of a repeated key wins, a key absent is "" (slot, store, skipped, usr, usrhash,
 * on_corruption and managed: NULL, as for writing). The
 * strings point into text, whose line ends become NULs. Pure; never fails. */
void vi_status_parse(char *text, struct vi_status *ret);
/* Read dir/status into buf (size bytes; what does not fit is cut) and parse it. -errno when it
 * cannot be read. */
int vi_status_read(const char *dir, char *buf, size_t size, struct vi_status *ret);

/* A boot with a verified /usr: record its mapping (usr=) and root hash (usrhash=), hex in
 * hashes->usr. Without this call neither line is written. */
void vi_status_set_usr(struct vi_status *st, const struct vi_target *usr,
		       struct vi_status_hashes *hashes);
/* Write dir/status atomically (temporary file + rename), creating dir (0755). */
int vi_status_write(const char *dir, const struct vi_status *st, struct vi_error *err);

/* Where the agent's drop-ins for the booted system's systemd go (kept across the switch): the
 * runtime control directory, a unit search path of systemd's since 233. Not /run/systemd/system:
 * that directory existing is how programs tell systemd is PID 1 (sd_booted(), dracut's shell
 * hooks, a sysvinit root's tools), and the agent also runs where systemd does not. */
#define VI_SYSTEMD_RUNTIME_SUBDIR "systemd/system.control"
#define VI_SYSTEMD_RUNTIME_UNITS "/run/" VI_SYSTEMD_RUNTIME_SUBDIR

/* systemd's own veritysetup (its generator reads roothash= and usrhash= as the agent does)
 * stands down for mapping name, which the agent set up and verified: a drop-in under unit_dir
 * (VI_SYSTEMD_RUNTIME_UNITS) for systemd-veritysetup@NAME.service that skips the unit while
 * /dev/mapper/NAME exists, in the journal as an unmet condition, instead of a second program
 * opening a volume that is already active. name of [A-Za-z0-9_] only (1-64; other names would
 * need systemd's unit-name escaping): -EINVAL, nothing written. */
int vi_status_veritysetup_standdown(const char *unit_dir, const char *name, struct vi_error *err);

#endif
