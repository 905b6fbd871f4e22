// SPDX-License-Identifier: LGPL-2.1-or-later
/* Managed recovery after the switch (policy managed=yes; include/managed.h, docs/security.md
 * "After the switch"): how the last boot ended, from pstore and the agent's EFI variable; a
 * root whose last boot ended on a dm-verity corruption boots degraded (I/O errors for bad
 * blocks), is measured and reported as such; an A/B slot is marked bad instead (slot-boot.c).
 * Declared in agent.h. */
#include <errno.h>
#include <string.h>

#include "agent.h"
#include "efivars.h"
#include "params.h"

void vi_agent_managed_read(struct agent *a)
{
	struct agent_managed *m = &a->managed;
	struct vi_error err = { "" };
	int r;

	if (!a->plan.policy.managed || m->read)
		return;
	m->read = true;
	r = vi_pstore_scan(VI_PSTORE_DIR, true, &m->scan, &err);
	if (r < 0)
		vi_kmsg_log(&a->log, KMSG_WARNING, "managed recovery: pstore not read: %s", err.msg);
	if (m->scan.end != VI_PSTORE_OTHER)
		vi_kmsg_log(&a->log, KMSG_WARNING, "managed recovery: the last boot ended on a "
			    "dm-verity %s (pstore %s, %s; %u records)%s%s",
			    vi_pstore_end_name(m->scan.end), m->scan.file, m->scan.reason,
			    m->scan.records, m->scan.consumed ? ", not removed: " : ", removed",
			    m->scan.consumed ? strerror(-m->scan.consumed) : "");
	else
		vi_kmsg_log(&a->log, KMSG_INFO, "managed recovery: no dm-verity end in pstore "
			    "(%u records)", m->scan.records);
	r = vi_managed_var_read(VI_EFIVARS_DIR, &m->last, &err);
	m->have_last = r == 0;
	if (r < 0 && r != -ENOENT)
		vi_kmsg_log(&a->log, KMSG_WARNING, "managed recovery: %s", err.msg);
}

/* A bad block is an I/O error for t: no restart, no panic (never ignore_corruption: a bad block
 * stays an error the system sees). */
static void degrade(struct vi_target *t)
{
	if (t->opts.corruption != VI_CORRUPT_IGNORE)
		t->opts.corruption = VI_CORRUPT_EIO;
	t->opts.ioerror = VI_IOERR_EIO;
}

/* The target whose root hash the variable keeps: the root, or a verified /usr under a tmpfs. */
static struct vi_target *keyed(struct agent *a)
{
	return a->plan.cfg.root.enabled ? &a->plan.cfg.root :
	       a->plan.cfg.usr.enabled ? &a->plan.cfg.usr : NULL;
}

void vi_agent_managed_boot(struct agent *a)
{
	struct agent_managed *m = &a->managed;
	struct vi_managed_decision d;
	struct vi_target *t = keyed(a);

	if (!a->plan.policy.managed || !t ||
	    vi_managed_decide(m->scan.end, m->have_last ? &m->last : NULL, t->root_hash,
			      t->root_hash_len, &d) < 0)
		return;
	if (m->scan.end != VI_PSTORE_OTHER && !d.crashed)
		vi_kmsg_log(&a->log, KMSG_NOTICE, "managed recovery: that was another root than %s's "
			    "(an update since): not degraded", t->name);
	m->degraded = d.degraded;
	if (!d.degraded)
		return;
	vi_kmsg_log(&a->log, KMSG_WARNING, "%s: degraded: %s; bad blocks are I/O errors (was %s%s%s) "
		    "until its root hash changes", t->name,
		    d.crashed ? "its last boot ended on a dm-verity corruption"
			      : "it booted degraded before",
		    vi_corruption_word(t->opts.corruption, VI_SPELL_MANIFEST),
		    t->opts.ioerror ? ", on I/O errors " : "",
		    t->opts.ioerror ? vi_ioerror_word(t->opts.ioerror, VI_SPELL_MANIFEST) : "");
	/* the panic may have come from either mapping: both boot degraded */
	degrade(t);
	if (a->plan.cfg.usr.enabled)
		degrade(&a->plan.cfg.usr);
}

int vi_agent_managed_commit(struct agent *a, const struct vi_target *t)
{
	struct agent_managed *m = &a->managed;
	struct vi_managed_record rec = { .degraded = m->degraded };
	struct vi_error err = { "" };
	int r;

	if (!a->plan.policy.managed || !t || t != keyed(a) || !t->root_hash_len ||
	    t->root_hash_len > sizeof(rec.root_hash))
		return 0;
	memcpy(rec.root_hash, t->root_hash, t->root_hash_len);
	rec.root_hash_len = t->root_hash_len;
	if (!m->have_last || m->last.degraded != rec.degraded ||
	    m->last.root_hash_len != rec.root_hash_len ||
	    memcmp(m->last.root_hash, rec.root_hash, rec.root_hash_len)) {
		r = vi_managed_var_write(VI_EFIVARS_DIR, &rec, &err);
		if (r < 0)
			vi_kmsg_log(&a->log, KMSG_WARNING, "managed recovery: %s: a later boot cannot "
				    "tell which root a pstore record is of", err.msg);
		else
			vi_kmsg_log(&a->log, KMSG_INFO, "managed recovery: %s recorded (%s)",
				    VI_MANAGED_VAR, rec.degraded ? "degraded" : "restart");
		if (r == 0) {
			m->last = rec;
			m->have_last = true;
		}
	}
	return m->degraded ? vi_agent_measure_degraded(a, t) : 0;
}
