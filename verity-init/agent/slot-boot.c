// SPDX-License-Identifier: LGPL-2.1-or-later
/* The agent's A/B boot step (slot-boot.h). The store is the one device the agent opens for
 * writing: O_RDWR on exactly the device the policy's slot_store= names, checked to be the
 * device found; every slot device is opened read-only by the usual set-up. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "clock.h"
#include "devices.h"
#include "slot-boot.h"
#include "slot-tpm.h"

/* Find the store (bounded wait) and open that very device read-write. */
static int open_store(struct vi_slot_boot *sb, int *ret_fd, struct vi_error *err)
{
	const struct vi_plan *p = sb->plan;
	struct vi_dev dev = { .spec = p->policy.slot_store, .fd = -1 };
	struct stat st;
	int r, fd;

	r = vi_devs_wait(&dev, 1, p->cfg.timeout_s * 1000u, err);
	if (r < 0)
		return vi_err_wrap(err, r, "slot store %s: ", p->policy.slot_store);
	snprintf(sb->store_path, sizeof(sb->store_path), "/dev/%s", dev.name);
	fd = open(sb->store_path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		r = -errno;
		vi_devs_close(&dev, 1);
		return vi_errno(err, r, "slot store %s: cannot open %s for writing: %s",
				p->policy.slot_store, sb->store_path, strerror(-r));
	}
	/* the node opened must be the device libblkid found, not whatever a name resolves to */
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != dev.devno) {
		close(fd);
		vi_devs_close(&dev, 1);
		return vi_errno(err, -ENODEV, "slot store %s: %s is not the device found",
				p->policy.slot_store, sb->store_path);
	}
	vi_devs_close(&dev, 1);
	*ret_fd = fd;
	return 0;
}

static void store_write(struct vi_slot_boot *sb, int fd, struct vi_slots_store *st,
			const struct vi_slots *next, const char *what)
{
	struct vi_error err = { "" };

	if (vi_slots_store_write(fd, st, next, &err) < 0) {
		/* the boot goes on with the state in memory (a slot marked bad is not picked
		 * again); a store that cannot be written cannot count tries: logged as an error */
		st->state = *next;
		vi_kmsg_log(sb->log, KMSG_ERR, "slot store %s: %s not written: %s",
			    sb->store_path, what, err.msg);
	}
}

/* Slot i failed at stage: marked bad when its content is blamed, else one try taken (unless
 * try_taken: this boot took it before the set-up); skipped= for the status file. */
static void slot_failed(struct vi_slot_boot *sb, int fd, struct vi_slots_store *st, unsigned i,
			enum vi_slot_blame blame, bool try_taken, const char *stage,
			const char *reason)
{
	struct vi_slots next = st->state;

	vi_slots_record_failure(&next, i, blame, try_taken, stage, reason);
	/* it did not run on: a later record of a dm-verity end is not its */
	if (next.ran.set && next.ran.slot == i)
		memset(&next.ran, 0, sizeof(next.ran));
	store_write(sb, fd, st, &next, "the failed slot");
	vi_slot_skipped_add(sb->skipped, sizeof(sb->skipped), vi_slot_name(i), stage, reason);
	if (blame == VI_SLOT_BLAME_CONTENT)
		vi_kmsg_log(sb->log, KMSG_WARNING, "slot %s marked bad (%s: %s)", vi_slot_name(i),
			    stage, reason);
	else
		vi_kmsg_log(sb->log, KMSG_WARNING, "slot %s failed, not marked bad: its content "
			    "is not to blame, %u tries left (%s: %s)", vi_slot_name(i),
			    next.slot[i].tries, stage, reason);
	sb->slot = NULL;
}

/* Slot i's devices: its data and hash partitions found, each once (bounded wait); the data
 * partition's number in *ret_data. */
static int slot_devices(struct vi_slot_boot *sb, dev_t *ret_data, struct vi_error *err)
{
	const struct vi_target *t = &sb->plan->cfg.root;
	struct vi_dev devs[2] = {
		{ .spec = t->data.spec, .fd = -1 },
		{ .spec = t->hash.spec, .fd = -1 },
	};
	uint64_t start = vi_now_ms();
	int r;

	r = vi_devs_wait(devs, 2, sb->plan->cfg.timeout_s * 1000u, err);
	*sb->wait_ms += vi_now_ms() - start;
	if (r == 0) {
		*ret_data = devs[0].devno;
		vi_devs_close(devs, 2);
	}
	return r;
}

/* Slot i's root: the layout, its devices, then its signed manifest (the plan's trust step, per
 * slot). On failure *ret_stage names the step and *ret_blame whom it is blamed on. */
static int slot_trust(struct vi_slot_boot *sb, const struct vi_config *base, unsigned i,
		      dev_t *ret_data, const char **ret_stage, enum vi_slot_blame *ret_blame,
		      struct vi_error *err)
{
	struct vi_plan *p = sb->plan;
	char line[VI_PLAN_MANIFEST_LINE_MAX], who[16];
	int r;

	/* the keys of the slot set up before go first, before this slot's devices are waited
	 * for: should they not come, no key of a slot that does not boot stays in the keyring */
	vi_plan_release_keys(p);
	*ret_stage = "devices";
	*ret_blame = VI_SLOT_BLAME_BOOT;
	r = vi_slot_layout(&p->policy, i, base, &p->cfg, err);
	if (r == 0)
		r = slot_devices(sb, ret_data, err);
	if (r < 0)
		return r;
	*ret_stage = "manifest";
	r = vi_plan_trust(p, AT_FDCWD, err);
	*sb->wait_ms += p->trust.wait_ms;
	if (r < 0) {
		*ret_blame = vi_slot_manifest_blame(r);
		return r;
	}
	snprintf(who, sizeof(who), "slot %s", vi_slot_name(i));
	if (vi_plan_manifest_line(p, who, line, sizeof(line)))
		vi_kmsg_log(sb->log, KMSG_INFO, "%s", line);
	return 0;
}

/* The slots out of the running before this boot: no tries left (failed earlier, or boots that
 * died after the switch), or never made bootable. */
static void skip_not_bootable(struct vi_slot_boot *sb, const struct vi_slots *s)
{
	for (unsigned k = 0; k < s->count; k++) {
		const struct vi_slot *sl = &s->slot[k];

		if (vi_slot_bootable(sl))
			continue;
		vi_slot_skipped_add(sb->skipped, sizeof(sb->skipped), vi_slot_name(k),
				    "not-bootable", sl->reason[0] ? sl->reason : !sl->priority ?
				    "priority 0" : "no tries left");
		vi_kmsg_log(sb->log, KMSG_NOTICE, "slot %s: not bootable (priority %u, %u tries "
			    "left%s%s)", vi_slot_name(k), sl->priority, sl->tries,
			    sl->reason[0] ? "; last failure: " : "", sl->reason);
	}
}

/* One run of the boot step: the store, open read-write, and its state. */
struct slot_run {
	struct vi_slot_boot *sb;
	struct vi_config base;       /* the command line's root, before any slot's layout */
	int fd;
	struct vi_slots_store st;
	/* the slot step's own time, summed over spans that each open with start = vi_now_us():
	 * reading the store (read_us) and the decision (decide_us: resize, skip list, pick,
	 * admission); the TPM's answers, the slot's manifest and the store write are apart */
	uint64_t read_us, decide_us;
	/* the slot that ran last, as the store said when this boot began: set-ups in this boot
	 * change the state's, not the question of whose boot ended on dm-verity */
	struct vi_slot_ran ran;
	dev_t data;                  /* the data partition of the slot being set up */
};

/* The store found, opened and read; the policy's slot count, the TPM floor, the slots that are
 * not bootable. A failure is *sb->failure (stage devices), logged: no slot boots. */
static int run_start(struct slot_run *run)
{
	struct vi_slot_boot *sb = run->sb;
	const struct vi_policy *p = &sb->plan->policy;
	struct vi_error err = { "" };
	uint64_t start;
	int r;

	r = open_store(sb, &run->fd, &err);
	start = vi_now_us();
	if (r == 0) {
		r = vi_slots_store_read(run->fd, p->slot_count, &run->st, &err);
		if (r < 0)
			vi_err_wrap(&err, r, "slot store %s (%s): ", p->slot_store, sb->store_path);
	}
	run->read_us = vi_now_us() - start;
	if (r < 0) {
		vi_failure_set(sb->failure, VI_STAGE_DEVICES, &sb->plan->cfg.root, r, "A/B slots",
			       &err);
		vi_kmsg_log(sb->log, KMSG_ERR, "A/B slots: %s", err.msg);
		return r;
	}
	sb->store = sb->store_path;
	vi_kmsg_log(sb->log, KMSG_INFO, "slot store %s (%s): state from %s, seq %llu, floor %llu "
		    "(read in %llu us)", p->slot_store, sb->store_path,
		    vi_slots_source_name(run->st.source), (unsigned long long)run->st.state.seq,
		    (unsigned long long)run->st.state.floor, (unsigned long long)run->read_us);
	start = vi_now_us();
	/* the policy's slots= decides which slots there are; the store follows it (new slots
	 * never booted, slots past it dropped at the next write) */
	if (run->st.state.count != p->slot_count) {
		vi_kmsg_log(sb->log, KMSG_NOTICE, "slot store has %u slots, the policy %u: the "
			    "store follows the policy", run->st.state.count, p->slot_count);
		vi_slots_resize(&run->st.state, p->slot_count);
	}
	run->decide_us += vi_now_us() - start;
	run->ran = run->st.state.ran;
	if (sb->crash_end != VI_PSTORE_OTHER && !run->ran.set)
		vi_kmsg_log(sb->log, KMSG_WARNING, "managed recovery: the slot store does not say "
			    "which slot ran%s%s%s: the dm-verity %s blames no slot; each slot's try, "
			    "taken before its switch, still ends one that keeps failing",
			    run->st.ran_why.msg[0] ? " (" : "", run->st.ran_why.msg[0] ?
			    run->st.ran_why.msg : "", run->st.ran_why.msg[0] ? ")" : "",
			    vi_pstore_end_name(sb->crash_end));
	r = vi_slot_tpm_boot_read(sb, &run->st.state);
	if (r < 0)
		return r;
	start = vi_now_us();
	skip_not_bootable(sb, &run->st.state);
	run->decide_us += vi_now_us() - start;
	return 0;
}

/* What became of a slot's set-up. */
enum slot_outcome {
	SLOT_SET_UP,     /* the boot callback returned 0: the caller boots it */
	SLOT_NEXT,       /* set aside (the store says why): the next slot */
	SLOT_STOP,       /* no other slot may be set up: the initramfs is gone, or the TPM
	                  * floor could not be locked (*sb->failure says which) */
};

/* Slot i's manifest verified: its version admitted under the store's floor and the TPM's, the
 * TPM counter raised (a good slot) and locked, and its try taken and written before anything
 * else happens. SLOT_SET_UP here means: go on with the set-up. */
static enum slot_outcome admit_slot(struct slot_run *run, unsigned i)
{
	struct vi_slot_boot *sb = run->sb;
	uint64_t version = sb->plan->trust.version, start = vi_now_us(), write_us;
	struct vi_error err = { "" };
	struct vi_slots next = run->st.state;
	int r;

	r = vi_slots_admit(&next, i, version, &err);
	if (r == 0) {
		/* the witness of which slot runs: a later boot blames its dm-verity end on this
		 * slot, from this partition with this root hash, and on no other */
		const struct vi_target *t = &sb->plan->cfg.root;

		next.ran = (struct vi_slot_ran){ .set = true, .slot = i,
						 .major = major(run->data),
						 .minor = minor(run->data),
						 .root_hash_len = t->root_hash_len };
		memcpy(next.ran.root_hash, t->root_hash, t->root_hash_len);
	}
	run->decide_us += vi_now_us() - start;
	if (r < 0) {
		slot_failed(sb, run->fd, &run->st, i, VI_SLOT_BLAME_CONTENT, false, "version",
			    err.msg);
		return SLOT_NEXT;
	}
	/* the TPM's floor: raised for a good slot, then locked before any root runs */
	r = vi_slot_tpm_admit(sb, &run->st.state, i, version, &err);
	if (r == -EPERM) {
		slot_failed(sb, run->fd, &run->st, i, VI_SLOT_BLAME_BOOT, false, "version", err.msg);
		return SLOT_NEXT;
	}
	if (r < 0) {
		sb->slot = NULL;   /* not locked: no slot boots (the failure is set) */
		return SLOT_STOP;
	}
	/* the try is spent before the switch: a slot that dies after it (a corruption reboot,
	 * a hang the watchdog ends) runs out of tries */
	start = vi_now_us();
	store_write(sb, run->fd, &run->st, &next, "the try");
	write_us = vi_now_us() - start;
	vi_kmsg_log(sb->log, KMSG_INFO, "slot %s: try taken, %u left, version %llu recorded (store "
		    "written in %llu us; the slot step %llu us own: read %llu us, decision %llu us)",
		    sb->slot, next.slot[i].tries, (unsigned long long)next.slot[i].version,
		    (unsigned long long)write_us, (unsigned long long)run->read_us + run->decide_us,
		    (unsigned long long)run->read_us, (unsigned long long)run->decide_us);
	return SLOT_SET_UP;
}

/* Slot i set up, from its manifest to the boot callback; a failure is recorded in the store. */
static enum slot_outcome try_slot(struct slot_run *run, unsigned i, bool *ret_switched)
{
	struct vi_slot_boot *sb = run->sb;
	const struct vi_failure *f = sb->failure;
	struct vi_error err = { "" };
	enum vi_slot_blame blame;
	enum vi_managed_slot_verdict verdict;
	enum slot_outcome o;
	const char *stage;
	int r;

	sb->slot = vi_slot_name(i);
	vi_kmsg_log(sb->log, KMSG_NOTICE, "slot %s: priority %u, %u tries left: setting up",
		    sb->slot, run->st.state.slot[i].priority, run->st.state.slot[i].tries);
	r = slot_trust(sb, &run->base, i, &run->data, &stage, &blame, &err);
	if (r < 0) {
		slot_failed(sb, run->fd, &run->st, i, blame, false, stage, err.msg);
		return SLOT_NEXT;
	}
	/* managed recovery: the last boot ended on dm-verity after the switch to this slot */
	verdict = vi_managed_slot_verdict(sb->crash_end, &run->ran, i, major(run->data),
					  minor(run->data), sb->plan->cfg.root.root_hash,
					  sb->plan->cfg.root.root_hash_len);
	if (verdict == VI_MANAGED_SLOT_OTHER || verdict == VI_MANAGED_SLOT_CHANGED)
		vi_kmsg_log(sb->log, KMSG_NOTICE, "slot %s: not blamed for the last boot's dm-verity "
			    "%s: %s (slot %s ran, from %u:%u)", sb->slot,
			    vi_pstore_end_name(sb->crash_end), vi_managed_slot_verdict_name(verdict),
			    vi_slot_name(run->ran.slot), run->ran.major, run->ran.minor);
	if (verdict == VI_MANAGED_SLOT_BLAMED) {
		slot_failed(sb, run->fd, &run->st, i, VI_SLOT_BLAME_CONTENT, false, "corruption",
			    sb->crash_end == VI_PSTORE_IO_ERROR ?
			    "its last boot ended on a dm-verity I/O error (pstore)" :
			    "its last boot ended on a dm-verity corruption (pstore)");
		return SLOT_NEXT;
	}
	o = admit_slot(run, i);
	if (o != SLOT_SET_UP)
		return o;
	sb->failure->set = false;
	r = sb->boot(sb->ctx, &sb->plan->cfg.root, ret_switched);
	if (r == 0)
		return SLOT_SET_UP;
	stage = f->set ? vi_stage_name(f->stage) : "boot";
	blame = f->set ? vi_slot_setup_blame(f->stage, f->error, &sb->plan->cfg)
		       : VI_SLOT_BLAME_BOOT;
	slot_failed(sb, run->fd, &run->st, i, blame, true, stage,
		    f->set ? f->reason.msg : strerror(-r));
	/* the initramfs is gone: no other slot to set up from */
	return *ret_switched ? SLOT_STOP : SLOT_NEXT;
}

/* No slot left to set up in this boot: the counter locked, the failure recorded and logged. */
static void none_left(struct slot_run *run)
{
	struct vi_slot_boot *sb = run->sb;
	struct vi_error err = { "" };

	/* locked when no slot boots too: the fail actions may open a shell */
	vi_slot_tpm_lock(sb);
	/* slots that failed for no fault of their own keep their other tries */
	vi_err(&err, "%s%s%s", vi_slots_pick(&run->st.state, 0) < 0 ? "no bootable slot left"
	       : "no slot booted, tries are left for the next boot", sb->skipped[0] ? ": " : "",
	       sb->skipped);
	vi_failure_set(sb->failure, VI_STAGE_CONFIG, &sb->plan->cfg.root, -ENOENT, "A/B slots",
		       &err);
	vi_kmsg_log(sb->log, KMSG_ERR, "A/B slots: %s", err.msg);
}

int vi_slot_boot_run(struct vi_slot_boot *sb, bool *ret_switched)
{
	struct slot_run run = { .sb = sb, .base = sb->plan->cfg, .fd = -1,
				.st = { .source = VI_SLOTS_FROM_DEFAULTS } };
	enum slot_outcome o = SLOT_NEXT;
	/* one set-up per slot and boot: a slot that failed for no fault of its own keeps its
	 * other tries for later boots */
	unsigned tried = 0;
	uint64_t start;
	int i;

	*ret_switched = false;
	if (run_start(&run) < 0)
		o = SLOT_STOP;
	while (o == SLOT_NEXT) {
		start = vi_now_us();
		i = vi_slots_pick(&run.st.state, tried);
		run.decide_us += vi_now_us() - start;
		if (i < 0) {
			none_left(&run);
			break;
		}
		tried |= 1u << i;
		o = try_slot(&run, (unsigned)i, ret_switched);
	}
	if (run.fd >= 0)
		close(run.fd);
	return o == SLOT_SET_UP ? 0 : -ENOENT;
}

int vi_slot_boot_failed_later(struct vi_slot_boot *sb, const char *slot, enum vi_stage stage,
			      int error, const char *reason)
{
	struct vi_slots_store st = { .source = VI_SLOTS_FROM_DEFAULTS };
	struct vi_error err = { "" };
	int fd = -1, r;

	r = open_store(sb, &fd, &err);
	if (r == 0) {
		int i;

		r = vi_slots_store_read(fd, sb->plan->policy.slot_count, &st, &err);
		i = r < 0 ? r : vi_slot_index(&st.state, slot);
		if (i >= 0) {
			sb->store = sb->store_path;
			slot_failed(sb, fd, &st, (unsigned)i,
				    vi_slot_setup_blame(stage, error, &sb->plan->cfg), true,
				    vi_stage_name(stage), reason);
		}
		close(fd);
		r = i < 0 ? i : 0;
	}
	if (r < 0)
		vi_kmsg_log(sb->log, KMSG_ERR, "slot %s: failure not recorded in the store: %s",
			    slot, err.msg[0] ? err.msg : strerror(-r));
	return r;
}
