/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agent's TPM measurement of the target it boots (docs/signing.md, "TPM measurement"):
 * before the switch, one PCR (the policy's tpm_pcr=, 14 by default) is extended in
 * every bank the TPM has with the digest of one event string per booted target (TPM2_PCR_Event:
 * the TPM hashes it)
 *
 *     dm-verity:NAME:ROOTHASH:SIGNER                  the root alone (layout root; a recovery
 *                                                     root, an A/B slot)
 *     dm-verity:LAYOUT:ROLE:NAME:ROOTHASH:SIGNER      each target of a /usr layout
 *
 * (LAYOUT: "root+usr", "tmpfs+usr", "writable+usr,unverified-root"; ROLE: "root" or "usr", where
 * the target is mounted; NAME: the mapping name; SIGNER: "minisign:KEYID" for a signed manifest,
 * "pkcs7:KEYDESC" for a root hash signature the kernel checked, "none"), and the event is
 * appended to systemd's userspace measurement log
 * /run/log/systemd/tpm2-measure.log in its format (JSON-SEQ records, close to TCG CEL-JSON), so
 * `systemd-pcrlock`, `systemd-analyze pcrs` and attestation tools replay it with systemd's own
 * records. lib/boot/measure.c */
#ifndef VERITY_MEASURE_H
#define VERITY_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "err.h"
#include "tpm2.h"
#include "trust.h"

#define VI_MEASURE_LOG         "/run/log/systemd/tpm2-measure.log"
#define VI_MEASURE_BOOT_ID     "/proc/sys/kernel/random/boot_id"
#define VI_MEASURE_LAYOUT_MAX  40u   /* "writable+usr,unverified-root:usr:" and room */
#define VI_MEASURE_EVENT_MAX   (16u + VI_MEASURE_LAYOUT_MAX + VI_MAX_NAME + \
				2u * VERITY_MAX_DIGEST + 16u + VI_MAX_PATH)
#define VI_MEASURE_RECORD_MAX  (VI_MEASURE_EVENT_MAX * 2u + 1024u)

struct vi_measure_opts {
	unsigned pcr;
	const char *dev;             /* VI_TPM_DEV */
	const char *log_path;        /* VI_MEASURE_LOG; NULL: no log */
	const char *boot_id_path;    /* VI_MEASURE_BOOT_ID */
};

struct vi_measure_result {
	size_t banks;
	struct vi_tpm_digest digests[VI_TPM_MAX_BANKS];   /* what each bank was extended with */
	uint64_t tpm_us;             /* from the command's write to the TPM's answer */
	bool logged;                 /* the record is in the log */
	struct vi_error log_note;    /* why not, when a log was asked for */
};

/* SIGNER for target t: the manifest's key id when trust merged a manifest into the root (root:
 * t is the root), the key description of a kernel-checked signature, else "none". -ENOBUFS
 * when it does not fit size. */
int vi_measure_signer(const struct vi_target *t, bool root, const struct vi_trust_result *tr,
		      char *buf, size_t size, struct vi_error *err);

/* Where a measured target is mounted in the layout it is booted in. */
enum vi_measure_role {
	VI_MEASURE_ROLE_ROOT = 0,   /* on / */
	VI_MEASURE_ROLE_USR,        /* on /usr */
};

/* The event string for target t, booted as role in layout (see above), into buf: the short
 * form for the root alone, the long one for the /usr layouts. -EINVAL for a place the layout does
 * not have (a /usr on a root alone, a root target under a tmpfs or unverified root), a name
 * outside the mapping name grammar (vi_name_check: it would make the string ambiguous), an
 * empty signer or one not printable ASCII (quotes would break the log record); -ENOBUFS when it
 * does not fit size. Pure. */
int vi_measure_event(const struct vi_target *t, enum vi_layout layout, enum vi_measure_role role,
		     const char *signer, char *buf, size_t size, struct vi_error *err);

/* One JSON-SEQ record (0x1E, the JSON object, '\n') for the event: pcr, digests (per bank, lower
 * case hex), content_type "systemd", content {string, bootId (32 hex digits), timestamp
 * (CLOCK_BOOTTIME, µs), eventType "dm-verity"}. Returns its length, or -EINVAL / -ENOBUFS. Pure. */
int vi_measure_record(unsigned pcr, const struct vi_tpm_digest *d, size_t n, const char *event,
		      const char *boot_id, uint64_t timestamp_us, char *buf, size_t size,
		      struct vi_error *err);

/* Measure event (above): one PCR_Event, then the log record with the digests the TPM answered
 * (its failure is only res->log_note). -ENODEV when there is no TPM; any other error means the
 * PCR may not hold the measurement. */
int vi_measure(const struct vi_measure_opts *o, const char *event, struct vi_measure_result *res,
	       struct vi_error *err);

#endif
