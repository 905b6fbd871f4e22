// SPDX-License-Identifier: LGPL-2.1-or-later
/* The trust steps the agent adds right before the switch (docs/signing.md): the TPM
 * measurement of each booted target and of a fallback (lib/boot/measure.c: into the policy's
 * PCR, systemd's verity NvPCR or both, tpm_measure=), and the signed IPE
 * policy, read before the switch and activated after it (lib/boot/ipe.c). Declared in agent.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "clock.h"
#include "digest.h"
#include "fileio.h"
#include "hex.h"
#include "ipe.h"
#include "keyring.h"
#include "measure.h"
#include "tpm.h"
#include "tpmhint.h"

#define ACPI_TPM2_TABLE "/sys/firmware/acpi/tables/TPM2"

bool vi_agent_no_tpm(int r)
{
	return r == -ENODEV && access(ACPI_TPM2_TABLE, F_OK) < 0;
}

/* Extend the policy's PCR with event (include/measure.h) and log it with the time taken, the
 * agent's own and the TPM's answer. A failure is returned with err set. */
static int measure_pcr(struct agent *a, const char *event, struct vi_error *err)
{
	const struct vi_measure_opts o = {
		.pcr = a->plan.policy.tpm_pcr,
		.dev = VI_TPM_DEV,
		.log_path = VI_MEASURE_LOG,
		.boot_id_path = VI_MEASURE_BOOT_ID,
	};
	struct vi_measure_result res;
	char banks[64] = "";
	uint64_t t0 = vi_now_us(), total, own;
	int r;

	r = vi_measure(&o, event, &res, err);
	total = vi_now_us() - t0;
	own = total - res.tpm_us;
	if (r < 0)
		return r;
	for (size_t i = 0; i < res.banks; i++)
		snprintf(banks + strlen(banks), sizeof(banks) - strlen(banks), "%s%s", i ? "," : "",
			 vi_tpm_alg_name(res.digests[i].alg));
	vi_kmsg_log(&a->log, KMSG_INFO, "measured into PCR %u (%s) in %llu us (%llu us own, "
		 "%llu us the TPM's answer): %s", o.pcr, banks, (unsigned long long)total,
		 (unsigned long long)own, (unsigned long long)res.tpm_us, event);
	if (!res.logged)
		vi_kmsg_log(&a->log, KMSG_WARNING, "measurement not in " VI_MEASURE_LOG ": %s",
			 res.log_note.msg);
	return 0;
}

/* Extend systemd's verity NvPCR with word (include/measure.h, "NvPCR") and log it. */
static int measure_nvpcr(struct agent *a, const char *word, struct vi_error *err)
{
	const struct vi_measure_opts o = {
		.dev = VI_TPM_DEV,
		.log_path = VI_MEASURE_LOG,
		.boot_id_path = VI_MEASURE_BOOT_ID,
		.ops = &vi_digest_afalg_ops,
		.nvpcr_auth_path = VI_MEASURE_NVPCR_AUTH,
	};
	struct vi_measure_nvpcr_result res;
	uint64_t t0 = vi_now_us();
	int r = vi_measure_nvpcr(&o, word, &res, err);

	if (r < 0)
		return r;
	vi_kmsg_log(&a->log, KMSG_INFO, "measured into NvPCR verity (NV index 0x%08x%s%s) in %llu "
		 "us (%llu us the TPM's answers): %s", VI_TPM_NVPCR_VERITY,
		 res.nv.defined ? ", defined" : res.nv.replaced ? ", replaced" : "",
		 res.nv.anchored ? ", anchored in PCR 9" : "",
		 (unsigned long long)(vi_now_us() - t0), (unsigned long long)res.tpm_us, word);
	if (!res.logged || (res.nv.anchored && !res.anchor.logged))
		vi_kmsg_log(&a->log, KMSG_WARNING, "NvPCR measurement not all in " VI_MEASURE_LOG
			 ": %s", res.log_note.msg[0] ? res.log_note.msg : res.anchor.log_note.msg);
	return 0;
}

/* Measure where the policy's tpm_measure= says: event into the PCR, nvpcr_word (event when
 * NULL) into the NvPCR. */
static int measure_event(struct agent *a, const char *event, const char *nvpcr_word,
			 struct vi_error *err)
{
	unsigned where = a->plan.policy.tpm_measure;
	int r = 0;

	if (where & VI_TPM_MEASURE_PCR)
		r = measure_pcr(a, event, err);
	if (r == 0 && (where & VI_TPM_MEASURE_NVPCR)) {
		r = measure_nvpcr(a, nvpcr_word ? nvpcr_word : event, err);
		if (r < 0 && r != -ENODEV)
			vi_err_wrap(err, r, "systemd's verity NvPCR%s: ",
				    where & VI_TPM_MEASURE_PCR ? " (PCR measured)" : "");
	}
	if (r == -ENODEV && !vi_agent_no_tpm(r))
		vi_err_wrap(err, r, "the firmware announces a TPM (ACPI TPM2 table) but the kernel "
			    "has no TPM device: ");
	return r;
}

/* The signers of t's PKCS#7 signature for the NvPCR word ("" without one), or NULL when they
 * could not be read from it. */
static const char *signers_of(const struct agent *a, const struct vi_target *t)
{
	const struct vi_config *cfg = &a->plan.cfg;
	const struct vi_trust_result *tr = &a->plan.trust;
	const struct vi_trust_sig *s = t == &cfg->root ? &tr->root_sig :
				       t == &cfg->usr ? &tr->usr_sig :
				       t == &cfg->recovery ? &tr->recovery_sig : NULL;

	if (!t->sig_key_desc[0])
		return "";
	return s && s->signers_ok ? s->signers : NULL;
}

int vi_agent_measure(struct agent *a, const struct vi_target *t)
{
	const struct vi_config *cfg = &a->plan.cfg;
	char signer[VI_MAX_PATH + 16], event[VI_MEASURE_EVENT_MAX], word[VI_MEASURE_WORD_MAX];
	/* the root and /usr are booted in the command line's layout; a recovery root alone, on
	 * its own /usr (an A/B slot is the root: slots come without a verified /usr) */
	const enum vi_layout layout = t == &cfg->root || t == &cfg->usr ? cfg->layout :
				      VI_LAYOUT_ROOT;
	const enum vi_measure_role role = t == &cfg->usr ? VI_MEASURE_ROLE_USR :
					  VI_MEASURE_ROLE_ROOT;
	const char *signers = signers_of(a, t);
	struct vi_error err = { "" };
	int r;

	if (a->managed.unmeasured) {
		vi_kmsg_log(&a->log, KMSG_WARNING, "%s: not measured: the degraded boot's event was "
			    "not extended before it", t->name);
		return 0;
	}
	r = vi_measure_signer(t, t == &cfg->root, &a->plan.trust, signer, sizeof(signer), &err);
	if (r == 0)
		r = vi_measure_event(t, layout, role, signer, event, sizeof(event), &err);
	if (r == 0 && !signers && (a->plan.policy.tpm_measure & VI_TPM_MEASURE_NVPCR))
		r = vi_err(&err, "%s: the signers of its signature cannot be "
			   "read for systemd's NvPCR word", t->name);
	if (r == 0)
		r = vi_measure_verity_word(t, signers ? signers : "", word, sizeof(word), &err);
	if (r == 0)
		r = measure_event(a, event, word, &err);
	if (r < 0 && a->plan.policy.require_tpm)
		return vi_agent_fail_target(a, VI_STAGE_MEASURE, t, r, &err);
	if (r < 0)
		vi_kmsg_log(&a->log, vi_agent_no_tpm(r) ? KMSG_INFO : KMSG_WARNING,
			    "%s: not measured: %s", t->name, err.msg);
	return 0;
}

int vi_agent_measure_degraded(struct agent *a, const struct vi_target *t)
{
	char hex[2 * VERITY_MAX_DIGEST + 1], event[VI_MEASURE_EVENT_MAX];
	struct vi_error err = { "" };
	int r;

	if (vi_hex_encode(t->root_hash, t->root_hash_len, hex, sizeof(hex)) < 0)
		hex[0] = '\0';
	snprintf(event, sizeof(event), "dm-verity-degraded:%s:%s", t->name, hex);
	/* the NvPCR gets the same word, as a fallback's */
	r = measure_event(a, event, NULL, &err);
	if (r < 0 && a->plan.policy.require_tpm)
		return vi_agent_fail_target(a, VI_STAGE_MEASURE, t, r, &err);
	if (r < 0) {
		/* the root's own event alone would give the PCR a normal boot's value */
		a->managed.unmeasured = true;
		vi_kmsg_log(&a->log, vi_agent_no_tpm(r) ? KMSG_INFO : KMSG_WARNING,
			    "%s: degraded boot not measured: %s", t->name, err.msg);
	}
	return 0;
}

/* A TPM that may be there although the extend found no device: the firmware's tables, the
 * kernel's command line and the one the runtime was given (dracut's). */
static void tpm_hint(struct agent *a, struct vi_tpm_hint *h)
{
	char kernel[4096];

	if (vi_fileio_read_text_at(AT_FDCWD, "/proc/cmdline", kernel, sizeof(kernel)) < 0)
		kernel[0] = '\0';
	vi_tpm_hint_read(VI_SYSFS_FIRMWARE, VI_KMSG_PATH, kernel, h);
	if (!h->announced && !h->may_be_hidden && a->cmdline)
		vi_tpm_hint_read(VI_SYSFS_FIRMWARE, VI_KMSG_PATH, a->cmdline, h);
}

/* Before any fail action: the PCR must not keep (or be able to reach) the value of a good
 * boot while a shell or another root runs, so "dm-verity-fallback:STAGE" is extended into it.
 * When that did not work, no shell where a TPM is or may be (agent.h). */
bool vi_agent_measure_fallback(struct agent *a)
{
	return vi_agent_measure_fallback_as(a, vi_stage_name(a->failure.stage));
}

bool vi_agent_measure_fallback_as(struct agent *a, const char *what)
{
	char event[64];
	struct vi_error err = { "" };
	struct vi_tpm_hint h;
	int r;

	a->fallback.unmeasured[0] = '\0';
	snprintf(event, sizeof(event), "dm-verity-fallback:%s", what);
	r = measure_event(a, event, NULL, &err);
	if (r == 0)
		return true;
	vi_kmsg_log(&a->log, vi_agent_no_tpm(r) ? KMSG_INFO : KMSG_WARNING,
		    "fallback not measured: %s", err.msg);
	if (a->plan.policy.require_tpm) {
		snprintf(a->fallback.unmeasured, sizeof(a->fallback.unmeasured),
			 "the TPM did not record the fallback and the policy requires it "
			 "(require_tpm=yes)");
		return false;
	}
	if (r != -ENODEV) {
		snprintf(a->fallback.unmeasured, sizeof(a->fallback.unmeasured),
			 "the TPM did not record the fallback and a TPM device is there");
		return false;
	}
	tpm_hint(a, &h);
	if (!h.announced && !h.may_be_hidden)
		return true;
	snprintf(a->fallback.unmeasured, sizeof(a->fallback.unmeasured),
		 "the TPM did not record the fallback (no TPM device) and %s: the shell could load "
		 "its driver and replay a good boot's event", h.why);
	return false;
}

/* The policy's signed IPE policy: read before the switch (the initramfs goes away with it). */
int vi_agent_read_ipe(struct agent *a, const struct vi_target *t)
{
	const char *path = a->plan.policy.ipe_policy;
	struct vi_error err = { "" };
	int r;

	if (!path[0] || a->pid1.ipe.buf)
		return 0;
	r = vi_ipe_policy_read(path, &a->pid1.ipe, &err);
	return r < 0 ? vi_agent_fail_target(a, VI_STAGE_IPE, t, r, &err) : 0;
}

/* ... and activated after it, right before init is executed: a policy that allows only the
 * signed root would deny the initramfs's programs, the fallback shell and a recovery root. */
int vi_agent_activate_ipe(struct agent *a, const struct vi_target *t)
{
	struct vi_ipe_result res;
	struct vi_error err = { "" };
	uint64_t t0 = vi_now_us();
	int r;

	if (!a->pid1.ipe.buf)
		return 0;
	r = vi_ipe_activate(&a->pid1.ipe, VI_SECURITYFS, VI_IPE_DIR, &res, &err);
	vi_ipe_policy_free(&a->pid1.ipe);
	if (r < 0)
		return vi_agent_fail_target(a, VI_STAGE_IPE, t, r, &err);
	vi_kmsg_log(&a->log, KMSG_INFO, "IPE policy %s from %s active%s (%llu us)", res.name,
		 a->plan.policy.ipe_policy, res.enforce_raised ?
		 ", switched from permissive (ipe.enforce=0) to enforcing" : "",
		 (unsigned long long)(vi_now_us() - t0));
	return 0;
}

const char *vi_agent_shell_refused(struct agent *a)
{
	if (a->keyring_open)
		return "the kernel's " VI_DMVERITY_KEYRING " keyring could not be sealed";
	return a->fallback.measured || !a->fallback.unmeasured[0] ? NULL : a->fallback.unmeasured;
}
