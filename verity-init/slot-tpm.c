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
#include "tpmnv.h"

int vi_slot_boot_tpm_floor(struct vi_slot_boot *sb, struct vi_slots *s)
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
	if (r < 0) {
		vi_err_wrap(&err, r, "rollback floor (slot_floor=tpm): ");
		vi_failure_set(sb->failure, VI_STAGE_DEVICES, &sb->plan->cfg.root, r, "A/B slots",
			       &err);
		vi_kmsg_log(sb->log, KMSG_ERR, "A/B slots: %s", err.msg);
		return r;
	}
	snprintf(sb->floor_nv, sizeof(sb->floor_nv), "0x%08x", p->slot_floor_nv);
	vi_kmsg_log(sb->log, KMSG_INFO, "rollback floor %llu from TPM NV counter %s%s (the "
		    "store's: %llu; read in %llu us)", (unsigned long long)f.value, sb->floor_nv,
		    f.defined ? ", defined now" : f.initialized ? ", first value given now" : "",
		    (unsigned long long)s->floor, (unsigned long long)(vi_now_us() - t0));
	/* the store's floor is at least the counter's from now on: a manifest below either
	 * never boots, and the store says which floor held */
	if (f.value > s->floor)
		s->floor = f.value;
	return 0;
}

static int index_of(const char *nv, uint32_t *ret, struct vi_error *err)
{
	if (vi_tpm_nv_index_parse(nv, strlen(nv), ret) < 0)
		return vi_err(err, "floor_nv=%.16s in the status file is not an NV index", nv);
	return 0;
}

int vi_slot_tpm_floor_raise(const char *nv, uint64_t version, uint64_t *ret_value,
			    struct vi_error *err)
{
	uint32_t index;
	int r;

	*ret_value = 0;
	if (!nv[0])
		return 0;
	r = index_of(nv, &index, err);
	if (r == 0)
		r = vi_tpm_floor_raise(VI_TPM_DEV, index, version, VI_TPM_FLOOR_RAISE_MAX,
				       ret_value, err);
	if (r == -ERANGE)
		vi_err_wrap(err, r, "manifest versions under slot_floor=tpm must grow in steps of "
			    "at most %u: ", VI_TPM_FLOOR_RAISE_MAX);
	else if (r < 0)
		vi_err_wrap(err, r, "rollback floor not raised: ");
	return r;
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
