// SPDX-License-Identifier: LGPL-2.1-or-later
/* The dracut runtime's record of its mappings (verity-init/agent/dracut-maprec.h). pre-pivot checks
 * "a verity mapping named root with status V" at the least; the record makes it "the very table
 * setup loaded": a mapping replaced between setup and pre-pivot (suspend, reload, resume: any
 * verity table of another valid image would also be status V) is refused. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "dm.h"
#include "dracut-maprec.h"
#include "maprec.h"

/* name's table line as device-mapper reports it ("0 LENGTH TYPE PARAMS") and its dm UUID. */
static int live_mapping(const char *name, char *ret_type, size_t type_size, char *ret_line,
			size_t line_size, char *ret_uuid, size_t uuid_size, struct vi_error *err)
{
	char params[VI_TABLE_MAX];
	uint64_t sectors = 0;
	int r;

	r = vi_dm_table(name, ret_type, type_size, params, sizeof(params), &sectors, err);
	if (r == 0)
		r = vi_dm_uuid(name, ret_uuid, uuid_size, err);
	if (r < 0)
		return r;
	if (snprintf(ret_line, line_size, "0 %" PRIu64 " %s %s", sectors, ret_type, params) >=
	    (int)line_size)
		return vi_errno(err, -ENOBUFS, "the table of %s is too long to record", name);
	return 0;
}

static int record(const char *rundir, const char *const names[], unsigned n,
		  struct vi_error *err)
{
	struct vi_maprec rec = { 0 };
	char type[32], line[VI_MAPREC_LINE_MAX], uuid[VI_MAX_DM_UUID];
	int r;

	for (unsigned i = 0; i < n; i++) {
		r = live_mapping(names[i], type, sizeof(type), line, sizeof(line), uuid,
				 sizeof(uuid), err);
		if (r == 0)
			r = vi_maprec_add(&rec, names[i], uuid, line, err);
		if (r < 0)
			return vi_err_wrap(err, r, "recording the mappings for pre-pivot: ");
	}
	r = vi_maprec_write(rundir, &rec, err);
	return r < 0 ? vi_err_wrap(err, r, "recording the mappings for pre-pivot: ") : 0;
}

/* The recorded mapping e against the live one. */
static int entry_check(const struct vi_maprec_entry *e, struct vi_error *err)
{
	char type[32], line[VI_MAPREC_LINE_MAX], uuid[VI_MAX_DM_UUID], status[64] = "";
	struct vi_error why = { "" };
	bool exists = false;
	int r;

	r = vi_dm_exists(e->name, &exists, NULL, &why);
	if (r == 0 && !exists)
		r = vi_errno(&why, -ENXIO, "it is gone");
	if (r == 0)
		r = live_mapping(e->name, type, sizeof(type), line, sizeof(line), uuid,
				 sizeof(uuid), &why);
	if (r < 0)
		return vi_errno(err, r, "mapping %s that setup made: %s", e->name, why.msg);
	r = vi_maprec_compare(e, uuid, line, err);
	if (r < 0)
		return r;
	if (vi_dm_status(e->name, status, sizeof(status), &why) < 0 || status[0] != 'V')
		return vi_errno(err, -EPERM, "mapping %s: the kernel's status is not V (\"%.20s\")",
				e->name, status);
	return 0;
}

/* The record against what is live (vi_dracut_mappings_check). A refusal names the mapping in
 * ret_name (want[0] when the record itself is refused). */
static int record_check(const char *rundir, const char *const want[], unsigned nwant,
			const char *const watch[], unsigned nwatch,
			char ret_name[static VI_MAX_NAME], struct vi_error *err)
{
	struct vi_maprec rec = { 0 };
	struct vi_error why = { "" };
	int r;

	snprintf(ret_name, VI_MAX_NAME, "%s", nwant ? want[0] : "");
	r = vi_maprec_read(rundir, &rec, &why);
	if (r == -ENOENT)
		return vi_errno(err, -EPERM, "no record of the mappings setup made (%.150s)",
				why.msg);
	if (r < 0)
		return vi_errno(err, r, "the record of the mappings setup made is refused: %.140s",
				why.msg);
	for (unsigned i = 0; i < nwant; i++) {
		snprintf(ret_name, VI_MAX_NAME, "%s", want[i]);
		if (!vi_maprec_find(&rec, want[i]))
			return vi_errno(err, -EPERM, "mapping %s is not in the record of the "
					"mappings setup made", want[i]);
	}
	for (unsigned i = 0; i < rec.n; i++) {
		snprintf(ret_name, VI_MAX_NAME, "%s", rec.e[i].name);
		r = entry_check(&rec.e[i], err);
		if (r < 0)
			return r;
	}
	for (unsigned i = 0; i < nwatch; i++) {
		char type[32] = "", params[VI_TABLE_MAX];
		bool exists = false;

		snprintf(ret_name, VI_MAX_NAME, "%s", watch[i]);
		if (!watch[i][0] || vi_maprec_find(&rec, watch[i]))
			continue;
		/* a mapping that cannot be read is not shown to be no verity mapping */
		r = vi_dm_exists(watch[i], &exists, NULL, &why);
		if (r == 0 && exists)
			r = vi_dm_table(watch[i], type, sizeof(type), params, sizeof(params), NULL,
					&why);
		if ((r < 0 && exists) || (exists && !strcmp(type, "verity")))
			return vi_errno(err, -EPERM, "a verity mapping %s exists that setup did not "
					"make", watch[i]);
	}
	return 0;
}

int vi_dracut_record_mappings(struct agent *a, const struct vi_target *t,
			      const char *const names[], unsigned n)
{
	struct vi_error err = { "" };
	int r = record(a->status_dir, names, n, &err);

	return r < 0 ? vi_agent_fail_target(a, VI_STAGE_ACTIVATE, t, r, &err) : 0;
}

int vi_dracut_mappings_check(struct agent *a, bool plain)
{
	const struct vi_config *cfg = &a->plan.cfg;
	const char *want[2], *watch[2] = { cfg->root.name, cfg->usr.name };
	char bad[VI_MAX_NAME] = "";
	struct vi_error err = { "" };
	unsigned n = 0;
	int r;

	if (plain || cfg->root.enabled)
		want[n++] = cfg->root.name;
	if (!plain && cfg->usr.enabled)
		want[n++] = cfg->usr.name;
	r = record_check(a->status_dir, want, n, watch, 2, bad, &err);
	if (r < 0)
		return vi_agent_fail_target(a, VI_STAGE_ACTIVATE, !plain && cfg->usr.enabled &&
					    !strcmp(bad, cfg->usr.name) ? &cfg->usr : &cfg->root,
					    r, &err);
	return 0;
}
