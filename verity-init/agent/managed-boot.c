// SPDX-License-Identifier: LGPL-2.1-or-later
/* Managed recovery after the switch (policy managed=yes; include/managed.h, docs/security.md
 * "After the switch"): how the last boot ended, from pstore and the agent's EFI variable; a
 * root whose last boot ended on a dm-verity corruption boots degraded (I/O errors for bad
 * blocks), is measured and reported as such; an A/B slot is marked bad instead (slot-boot.c).
 * Declared in agent.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "efivars.h"
#include "fileio.h"
#include "hex.h"
#include "params.h"
#include "status.h"

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

/* Neither reboot nor panic in this boot's fail list, in this process and in the dracut
 * runtime's later ones. */
static void no_reboot(struct agent *a)
{
	a->managed.no_reboot = true;
	(void)vi_agent_run_mark(a, VI_MANAGED_NO_REBOOT, false);
}

void vi_agent_managed_no_reboot_read(struct agent *a)
{
	if (vi_agent_run_marked(a, VI_MANAGED_NO_REBOOT))
		a->managed.no_reboot = true;
}

int vi_agent_managed_boot(struct agent *a)
{
	struct agent_managed *m = &a->managed;
	struct vi_managed_decision d;
	struct vi_target *t = keyed(a);
	struct vi_error err = { "" };

	if (!a->plan.policy.managed || !t ||
	    vi_managed_decide(m->scan.end, m->have_last ? &m->last : NULL, t->root_hash,
			      t->root_hash_len, &d) < 0)
		return 0;
	if (m->scan.end != VI_PSTORE_OTHER && !d.crashed)
		vi_kmsg_log(&a->log, KMSG_NOTICE, "managed recovery: that was another root than %s's "
			    "(an update since): not degraded", t->name);
	m->degraded = d.degraded;
	if (!d.degraded)
		return 0;
	if (d.refused) {
		/* the same root in the same mode would end the same way: a loop */
		no_reboot(a);
		vi_err(&err, "its last degraded boots did not come up (%u, none confirmed by "
		       "`verity-init managed mark-good`): not booted again until its root hash "
		       "changes", m->last.boots);
		return vi_agent_fail_target(a, VI_STAGE_MANAGED, t, -ESTALE, &err);
	}
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
	/* counted before anything of this boot runs: one that never comes up is not repeated */
	if (vi_managed_var_write(VI_EFIVARS_DIR, &d.next, &err) < 0) {
		/* uncounted, a boot that does not come up would come back here forever */
		no_reboot(a);
		vi_kmsg_log(&a->log, KMSG_WARNING, "managed recovery: %s: this degraded boot is not "
			    "counted: the fail list will neither reboot nor panic", err.msg);
		return 0;
	}
	vi_kmsg_log(&a->log, KMSG_INFO, "managed recovery: %s recorded (degraded, %u unconfirmed "
		    "boot%s)", VI_MANAGED_VAR, d.next.boots, d.next.boots == 1 ? "" : "s");
	m->last = d.next;
	m->have_last = true;
	return 0;
}

#define PSTORE_BACKEND_PARAM "/sys/module/pstore/parameters/backend"
#define RAMOOPS_MAX_REASON_PARAM "/sys/module/ramoops/parameters/max_reason"
#define ALWAYS_KMSG_DUMP_PARAM "/sys/module/printk/parameters/always_kmsg_dump"
#define KMSG_DUMP_OOPS 2   /* what ramoops takes when its max_reason is not set (-1) */

/* Whether a dm-verity end of root t reaches the next boot: said once, at the switch, when it
 * does not (managed=yes would protect nothing), and kept for the status file. */
static void managed_trace(struct agent *a, const struct vi_target *t)
{
	struct vi_managed_trace_input in = { .backend = "", .backend_max_reason = -1 };
	char backend[32] = "", word[16] = "";
	enum vi_managed_trace tr;

	in.panics = t->opts.corruption == VI_CORRUPT_PANIC || t->opts.ioerror == VI_IOERR_PANIC;
	in.restarts = t->opts.corruption == VI_CORRUPT_RESTART ||
		      t->opts.ioerror == VI_IOERR_RESTART;
	if (vi_fileio_read_text_at(AT_FDCWD, PSTORE_BACKEND_PARAM, backend, sizeof(backend)) == 0)
		in.backend = backend;
	if (!strcmp(backend, "ramoops")) {
		in.backend_max_reason = KMSG_DUMP_OOPS;
		if (vi_fileio_read_text_at(AT_FDCWD, RAMOOPS_MAX_REASON_PARAM, word,
					   sizeof(word)) == 0 && word[0] >= '0' && word[0] <= '9')
			in.backend_max_reason = word[0] - '0';
	}
	in.always_kmsg_dump = vi_fileio_read_text_at(AT_FDCWD, ALWAYS_KMSG_DUMP_PARAM, word,
						     sizeof(word)) == 0 && word[0] == 'Y';
	tr = vi_managed_trace(&in);
	if (tr == VI_MANAGED_TRACE_RECORDED)
		snprintf(a->managed.trace, sizeof(a->managed.trace), "pstore (%s)", backend);
	else
		snprintf(a->managed.trace, sizeof(a->managed.trace), "%s",
			 vi_managed_trace_text(tr));
	if (tr == VI_MANAGED_TRACE_NO_BACKEND || tr == VI_MANAGED_TRACE_RESTART_LOST)
		vi_kmsg_log(&a->log, KMSG_WARNING, "managed recovery protects nothing on this boot: "
			    "a dm-verity %s of %s leaves no record for the next boot (%s)",
			    in.panics ? "panic" : "restart", t->name, a->managed.trace);
}

int vi_agent_managed_commit(struct agent *a, const struct vi_target *t)
{
	struct agent_managed *m = &a->managed;
	struct vi_managed_record rec = { .degraded = false };
	struct vi_error err = { "" };
	int r;

	if (!a->plan.policy.managed || !t || t != keyed(a) || !t->root_hash_len ||
	    t->root_hash_len > sizeof(rec.root_hash))
		return 0;
	managed_trace(a, t);
	if (m->degraded)   /* recorded by vi_agent_managed_boot */
		return vi_agent_measure_degraded(a, t);
	memcpy(rec.root_hash, t->root_hash, t->root_hash_len);
	rec.root_hash_len = t->root_hash_len;
	if (!m->have_last || m->last.degraded || m->last.root_hash_len != rec.root_hash_len ||
	    memcmp(m->last.root_hash, rec.root_hash, rec.root_hash_len)) {
		r = vi_managed_var_write(VI_EFIVARS_DIR, &rec, &err);
		if (r < 0)
			vi_kmsg_log(&a->log, KMSG_WARNING, "managed recovery: %s: a later boot cannot "
				    "tell which root a pstore record is of", err.msg);
		else
			vi_kmsg_log(&a->log, KMSG_INFO, "managed recovery: %s recorded (restart)",
				    VI_MANAGED_VAR);
		if (r == 0) {
			m->last = rec;
			m->have_last = true;
		}
	}
	return 0;
}

/* `managed mark-good`: the running system reached the point where its boot counts as up. Only
 * the root the agent booted (the status file's result=ok and booted=) confirms its own degraded
 * boot: a recovery root (result=failed action=recovery) cannot lift the refusal of the root it
 * replaces, and is no failure of the unit either. */
static int mark_good(const char *efivars, const char *status_dir)
{
	struct vi_managed_record last, next;
	uint8_t hash[VERITY_MAX_DIGEST];
	char text[VI_STATUS_MAX];
	struct vi_error err = { "" };
	struct vi_status st;
	size_t len = 0;
	int r;

	r = vi_managed_var_read(efivars, &last, &err);
	if (r == -ENOENT) {
		printf("verity-init: managed: no %s: nothing to confirm\n", VI_MANAGED_VAR);
		return EXIT_SUCCESS;
	}
	if (r < 0) {
		fprintf(stderr, "verity-init: managed: %s\n", err.msg);
		return EXIT_FAILURE;
	}
	if (!last.degraded || !last.boots) {
		printf("verity-init: managed: %s: nothing to confirm\n",
		       last.degraded ? "degraded, confirmed already" : "not degraded");
		return EXIT_SUCCESS;
	}
	r = vi_status_read(status_dir, text, sizeof(text), &st);
	if (r == 0 && vi_status_outcome(&st) == VI_BOOT_RECOVERY) {
		/* the unit runs on the recovery root too: not a failure of it */
		printf("verity-init: managed: a recovery root runs: the degraded root's boot stays "
		       "unconfirmed\n");
		return EXIT_SUCCESS;
	}
	if (r < 0 || vi_status_outcome(&st) != VI_BOOT_BOOTED ||
	    vi_hex_decode(st.booted, strlen(st.booted), hash, sizeof(hash), &len) < 0 ||
	    !vi_managed_confirm(&last, hash, (unsigned)len, &next)) {
		fprintf(stderr, "verity-init: managed: the running root is not the degraded one the "
			"agent booted (status: %s%s%s): not confirmed\n", r < 0 ? strerror(-r) :
			"result=", r < 0 ? "" : st.result, r < 0 ? "" : ", another root hash");
		return EXIT_FAILURE;
	}
	if (vi_managed_var_write(efivars, &next, &err) < 0) {
		fprintf(stderr, "verity-init: managed: %s\n", err.msg);
		return EXIT_FAILURE;
	}
	printf("verity-init: managed: the degraded boot of %s confirmed; bad blocks stay I/O "
	       "errors until its root hash changes\n", st.booted);
	return EXIT_SUCCESS;
}

int vi_managed_cmd_main(int argc, char **argv)
{
	const char *efivars = VI_EFIVARS_DIR, *status_dir = VI_STATUS_DIR;

	if (argc < 2 || strcmp(argv[1], "mark-good"))
		goto usage;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--efivars") && i + 1 < argc)
			efivars = argv[++i];
		else if (!strcmp(argv[i], "--status-dir") && i + 1 < argc)
			status_dir = argv[++i];
		else
			goto usage;
	}
	return mark_good(efivars, status_dir);
usage:
	fprintf(stderr, "usage: verity-init managed mark-good [--efivars DIR] [--status-dir DIR]\n");
	return 2;
}
