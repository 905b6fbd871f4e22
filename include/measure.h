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
 * records.
 *
 * NvPCR (the policy's tpm_measure=nvpcr or both): the measurement systemd >= 260 makes of every
 * verity activation (systemd-veritysetup, image dissection; its docs/TPM2_PCR_MEASUREMENTS.md,
 * "NvPCR verity"), made the same way for each booted target, so that systemd's tools read it as
 * one of theirs. The word
 *
 *     verity:NAME:ROOTHASH:SIGNERS
 *
 * (NAME: the mapping name; ROOTHASH: lower-case hex; SIGNERS: the PKCS#7 signature's signers,
 * each its serial's DER in lower-case hex, '/', its issuer's DER in base64, joined by ',';
 * empty for a root without one, and for a manifest: systemd has no such signature) is hashed
 * with SHA-256 and the digest extended into the NV index 0x01d10202 (include/tpmnv.h); the log
 * gets systemd's NvPCR record {"nv_index":30474754,"digests":[sha256],"content_type":"systemd",
 * "content":{"nvIndexName":"verity","string":WORD,"bootId","timestamp","eventType":"dm-verity"}}.
 * The boot's first write to the index (32 zero bytes) is systemd's anchor: as systemd does, the
 * agent then extends PCR 9 with "nvpcr-init:verity:0x1d10202:NAME" (NAME: the index's TPM name
 * in hex) and logs it (eventType "nvpcr-init"), and writes /run/systemd/nvpcr/verity.auth (the
 * hex of the index's first policy branch, include/tpm2.h), which systemd's tools take as "this
 * NvPCR is initialized": `systemd-analyze nvpcrs` reads it, `systemd-pcrextend --nvpcr=verity`
 * and systemd-veritysetup extend it further. lib/boot/measure.c */
#ifndef VERITY_MEASURE_H
#define VERITY_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "digest.h"
#include "err.h"
#include "tpm2.h"
#include "tpmnv.h"
#include "trust.h"

#define VI_MEASURE_LOG         "/run/log/systemd/tpm2-measure.log"
#define VI_MEASURE_BOOT_ID     "/proc/sys/kernel/random/boot_id"
#define VI_MEASURE_LAYOUT_MAX  40u   /* "writable+usr,unverified-root:usr:" and room */
#define VI_MEASURE_EVENT_MAX   (16u + VI_MEASURE_LAYOUT_MAX + VI_MAX_NAME + \
				2u * VERITY_MAX_DIGEST + 16u + VI_MAX_PATH)
#define VI_MEASURE_RECORD_MAX  (VI_MEASURE_EVENT_MAX * 2u + 1024u)
#define VI_MEASURE_NVPCR_AUTH  "/run/systemd/nvpcr/verity.auth"
#define VI_MEASURE_NVPCR_PCR   9u    /* systemd's "nvpcr-init" anchors */
/* "verity:" NAME ":" ROOTHASH ":" and SIGNERS (VI_MEASURE_SIGNERS_MAX) */
#define VI_MEASURE_SIGNERS_MAX 2048u
#define VI_MEASURE_WORD_MAX    (16u + VI_MAX_NAME + 2u * VERITY_MAX_DIGEST + \
				VI_MEASURE_SIGNERS_MAX)

struct vi_measure_opts {
	unsigned pcr;
	const char *dev;             /* VI_TPM_DEV */
	const char *log_path;        /* VI_MEASURE_LOG; NULL: no log */
	const char *boot_id_path;    /* VI_MEASURE_BOOT_ID */
	const char *event_type;      /* the record's eventType; NULL: "dm-verity" */
	/* the NvPCR (vi_measure_nvpcr) */
	const struct vi_digest_ops *ops;   /* SHA-256 of the word */
	const char *nvpcr_auth_path;       /* VI_MEASURE_NVPCR_AUTH */
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

/* A log record (as vi_measure_record) of any PCR or NvPCR measurement. */
struct vi_measure_rec {
	const char *nv_name;            /* an NvPCR's name ("verity"); NULL: a PCR's record */
	uint32_t index;                 /* the PCR's number, or the NV index */
	const struct vi_tpm_digest *d;  /* per bank; an NvPCR's: its one digest */
	size_t n;
	const char *event;
	const char *event_type;         /* "dm-verity", "nvpcr-init" */
	const char *boot_id;
	uint64_t timestamp_us;
};

/* The record: {"pcr":N or "nv_index":N,"digests":[...],"content_type":"systemd","content":{
 * ("nvIndexName":NAME,) "string":EVENT,"bootId":...,"timestamp":...,"eventType":TYPE}}, as
 * systemd 262 writes them. Returns its length, or -EINVAL / -ENOBUFS. Pure. */
int vi_measure_record_of(const struct vi_measure_rec *m, char *buf, size_t size,
			 struct vi_error *err);

/* The NvPCR word for target t with the signers (see above; "" for none) into buf. -EINVAL for
 * a target without a root hash, a name outside the mapping name grammar (systemd would escape
 * nothing in one inside it) or signers not printable without a quote or backslash; -ENOBUFS
 * when it does not fit. Pure. */
int vi_measure_verity_word(const struct vi_target *t, const char *signers, char *buf,
			   size_t size, struct vi_error *err);

/* systemd's anchor event for the NvPCR at index whose TPM name is the name_size bytes of name:
 * "nvpcr-init:verity:0x1d10202:000b...", into buf. Pure. */
int vi_measure_nvpcr_init_event(const char *nv_name, uint32_t index, const uint8_t *name,
				size_t name_size, char *buf, size_t size, struct vi_error *err);

struct vi_measure_nvpcr_result {
	struct vi_tpm_nvpcr nv;          /* what the extend did (include/tpmnv.h) */
	uint8_t digest[32];              /* SHA-256 of the word: what the index was extended with */
	uint64_t tpm_us;                 /* the TPM's answers to the NV sequence */
	struct vi_measure_result anchor; /* PCR 9's anchor event, when this call anchored */
	bool logged;                     /* the word's record is in the log */
	struct vi_error log_note;        /* why not, or why the auth file was not written */
};

/* Measure word into systemd's verity NvPCR (see above): its SHA-256 (o->ops) extended into the
 * index, then, when this was the boot's first write, the anchor into PCR 9 and its record, and
 * the auth file; then the word's record. -ENODEV when there is no TPM; any other error means
 * the NvPCR (or PCR 9's anchor) may not hold the measurement. */
int vi_measure_nvpcr(const struct vi_measure_opts *o, const char *word,
		     struct vi_measure_nvpcr_result *res, struct vi_error *err);

/* Measure event (above): one PCR_Event, then the log record with the digests the TPM answered
 * (its failure is only res->log_note). -ENODEV when there is no TPM; any other error means the
 * PCR may not hold the measurement. */
int vi_measure(const struct vi_measure_opts *o, const char *event, struct vi_measure_result *res,
	       struct vi_error *err);

#endif
