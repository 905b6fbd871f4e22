// SPDX-License-Identifier: LGPL-2.1-or-later
/* The rollback floor's TPM NV counter for the A/B boot step and `verity-init slot`
 * (slot-tpm.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "clock.h"
#include "slot-tpm.h"
#include "tpm.h"
#include "tpm2.h"
#include "tpmnv.h"

/* A failure of the floor at boot: no slot may boot. */
static int floor_failed(struct vi_slot_boot *sb, int r, struct vi_error *err)
{
	vi_err_wrap(err, r, "rollback floor (slot_floor=tpm): ");
	vi_failure_set(sb->failure, VI_STAGE_DEVICES, &sb->plan->cfg.root, r, "A/B slots", err);
	vi_kmsg_log(sb->log, KMSG_ERR, "A/B slots: %s", err->msg);
	return r;
}

int vi_slot_tpm_boot_read(struct vi_slot_boot *sb, const struct vi_slots *s)
{
	const struct vi_policy *p = &sb->plan->policy;
	struct vi_error err = { "" };
	struct vi_tpm_floor f;
	uint64_t t0 = vi_now_us();
	int r;

	if (!p->slot_floor_tpm)
		return 0;
	r = vi_tpm_floor_read(VI_TPM_DEV, p->slot_floor_nv, true, &f, &err);
	/* no TPM is a failure too, whatever require_tpm= says: whoever can edit the command line
	 * can hide a TPM (acpi=off, module_blacklist=), and a floor that falls back to the store
	 * is one they can reset */
	if (r < 0)
		return floor_failed(sb, r, &err);
	snprintf(sb->floor_nv, sizeof(sb->floor_nv), "0x%08x", p->slot_floor_nv);
	sb->tpm_floor = f.value;
	/* locked before this boot could lock it: the TPM was not reset since (kexec) */
	sb->tpm_locked = f.locked;
	vi_kmsg_log(sb->log, KMSG_INFO, "rollback floor %llu from TPM NV counter %s%s (the "
		    "store's: %llu; read in %llu us)", (unsigned long long)f.value, sb->floor_nv,
		    f.defined ? ", defined now" : f.initialized ? ", first value given now" :
		    f.locked ? ", write-locked already: not raised in this boot" : "",
		    (unsigned long long)s->floor, (unsigned long long)(vi_now_us() - t0));
	return 0;
}

int vi_slot_tpm_lock(struct vi_slot_boot *sb)
{
	struct vi_error err = { "" };
	uint64_t t0 = vi_now_us();
	uint32_t rc;
	int r;

	if (!sb->floor_nv[0] || sb->tpm_locked)
		return 0;
	r = vi_tpm_floor_lock(VI_TPM_DEV, sb->plan->policy.slot_floor_nv, &rc, &err);
	/* unlocked, the running system could raise the counter past every image */
	if (r < 0)
		return floor_failed(sb, r, &err);
	sb->tpm_locked = true;
	vi_kmsg_log(sb->log, KMSG_INFO, "TPM NV counter %s write-locked until the next reboot "
		    "(in %llu us)", sb->floor_nv, (unsigned long long)(vi_now_us() - t0));
	return 0;
}

void vi_slot_tpm_lock_before_fallback(const struct vi_policy *p, struct vi_slot_boot *sb,
				      struct vi_kmsg *log)
{
	struct vi_error err = { "" };
	struct vi_tpm_floor f;
	uint32_t rc;
	int r;

	if (!p->slot_floor_tpm || sb->tpm_locked)
		return;
	/* read, never defined here: no TPM device or no index leaves nothing to raise */
	r = vi_tpm_floor_read(VI_TPM_DEV, p->slot_floor_nv, false, &f, &err);
	if (r == -ENOENT || r == -ENODEV)
		return;
	if (r == 0 && !f.locked)
		r = vi_tpm_floor_lock(VI_TPM_DEV, p->slot_floor_nv, &rc, &err);
	if (r < 0) {
		vi_kmsg_log(log, KMSG_ERR, "fallback: rollback floor (slot_floor=tpm) not "
			    "write-locked: %s", err.msg);
		return;
	}
	sb->tpm_locked = true;
	vi_kmsg_log(log, KMSG_INFO, "fallback: TPM NV counter 0x%08x write-locked until the next "
		    "reboot", p->slot_floor_nv);
}

/* The counter raised to version: a failure leaves it lower, which the next boot retries, and
 * is logged; the lock after it is what keeps the running system from raising it. */
static void tpm_raise(struct vi_slot_boot *sb, unsigned i, uint64_t version)
{
	struct vi_error err = { "" };
	uint64_t t0 = vi_now_us(), from = sb->tpm_floor, v = 0;
	int r;

	if (sb->tpm_locked) {
		vi_kmsg_log(sb->log, KMSG_WARNING, "rollback floor not raised to %llu: TPM NV "
			    "counter %s is write-locked until the next reboot",
			    (unsigned long long)version, sb->floor_nv);
		return;
	}
	r = vi_tpm_floor_raise(VI_TPM_DEV, sb->plan->policy.slot_floor_nv, version,
			       VI_TPM_FLOOR_RAISE_MAX, &v, &err);
	if (r == -ERANGE)
		vi_err_wrap(&err, r, "manifest versions under slot_floor=tpm must grow in steps of "
			    "at most %u: ", VI_TPM_FLOOR_RAISE_MAX);
	if (r < 0) {
		vi_kmsg_log(sb->log, KMSG_ERR, "rollback floor not raised to %llu: %s",
			    (unsigned long long)version, err.msg);
		return;
	}
	sb->tpm_floor = v;
	vi_kmsg_log(sb->log, KMSG_NOTICE, "rollback floor raised from %llu to %llu: TPM NV "
		    "counter %s (slot %s marked good with version %llu; in %llu us)",
		    (unsigned long long)from, (unsigned long long)v, sb->floor_nv, vi_slot_name(i),
		    (unsigned long long)version, (unsigned long long)(vi_now_us() - t0));
}

int vi_slot_tpm_admit(struct vi_slot_boot *sb, const struct vi_slots *s, unsigned i,
		      uint64_t version, struct vi_error *err)
{
	if (!sb->floor_nv[0])
		return 0;
	switch (vi_slots_counter_action(s, i, version, sb->tpm_floor)) {
	case VI_SLOTS_COUNTER_REFUSE:
		return vi_errno(err, -EPERM, "manifest version %llu is below the TPM rollback "
				"floor %llu", (unsigned long long)version,
				(unsigned long long)sb->tpm_floor);
	case VI_SLOTS_COUNTER_RAISE:
		tpm_raise(sb, i, version);
		break;
	case VI_SLOTS_COUNTER_KEEP:
		break;
	}
	return vi_slot_tpm_lock(sb) < 0 ? -ENOLCK : 0;
}

static int index_of(const char *nv, uint32_t *ret, struct vi_error *err)
{
	if (vi_tpm_nv_index_parse(nv, strlen(nv), ret) < 0)
		return vi_err(err, "floor_nv=%.16s in the status file is not an NV index", nv);
	return 0;
}

int vi_slot_tpm_floor_show(const char *nv, uint64_t *ret_value, uint32_t *ret_index,
			   struct vi_error *err)
{
	struct vi_tpm_floor f;
	uint32_t index = VI_TPM_FLOOR_NV_DEFAULT;
	int r;

	if (nv[0]) {
		r = index_of(nv, &index, err);
		if (r < 0)
			return r;
	}
	*ret_index = index;
	r = vi_tpm_floor_read(VI_TPM_DEV, index, false, &f, err);
	if (r < 0)
		return r;
	*ret_value = f.value;
	return 0;
}

int vi_slot_tpm_floor_next(const char *nv, uint64_t version, uint64_t *ret_value,
			   struct vi_error *err)
{
	uint32_t index;
	int r;

	*ret_value = 0;
	if (!nv[0])
		return 0;
	r = vi_slot_tpm_floor_show(nv, ret_value, &index, err);
	if (r < 0)
		return vi_err_wrap(err, r, "rollback floor (TPM NV counter %s): ", nv);
	if (version > *ret_value && version - *ret_value > VI_TPM_FLOOR_RAISE_MAX)
		return vi_errno(err, -ERANGE, "manifest versions under slot_floor=tpm must grow in "
				"steps of at most %u: version %llu, TPM NV counter %s at %llu",
				VI_TPM_FLOOR_RAISE_MAX, (unsigned long long)version, nv,
				(unsigned long long)*ret_value);
	return 0;
}
