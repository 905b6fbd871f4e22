// SPDX-License-Identifier: LGPL-2.1-or-later
/* The A/B slots' decisions, all pure (include/slots.h, docs/slots.md): over the state, then the
 * agent's boot step's. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "slots.h"

bool vi_slot_bootable(const struct vi_slot *slot)
{
	return slot->priority > 0 && slot->tries > 0;
}

int vi_slots_pick(const struct vi_slots *s, unsigned tried)
{
	int best = -ENOENT;

	for (unsigned i = 0; i < s->count && i < VI_SLOTS_MAX; i++)
		if (vi_slot_bootable(&s->slot[i]) && !(tried & (1u << i)) &&
		    (best < 0 || s->slot[i].priority > s->slot[best].priority))
			best = (int)i;
	return best;
}

int vi_slots_try(struct vi_slots *s, unsigned i, uint64_t version)
{
	if (i >= s->count || i >= VI_SLOTS_MAX)
		return -EINVAL;
	if (!vi_slot_bootable(&s->slot[i]))
		return -ESTALE;
	/* every boot costs a try, a good slot's too: one that fails after the switch (a
	 * corruption reboot, a hang the watchdog ends) runs out; mark-good gives them back */
	s->slot[i].tries--;
	/* a new image in a slot (written without set-primary) has not proven itself: the next
	 * boot must not raise the TPM counter to it if this one dies */
	if (s->slot[i].version != version)
		s->slot[i].successful = false;
	s->slot[i].version = version;
	return 0;
}

static void set_reason(struct vi_slot *sl, const char *reason)
{
	size_t n = 0;

	/* printable ASCII only: the reason comes from disks and ends up in logs and scripts */
	for (const char *p = reason ? reason : ""; *p && n + 1 < sizeof(sl->reason); p++)
		sl->reason[n++] = (unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f ? *p : '?';
	sl->reason[n] = '\0';
}

int vi_slots_mark_bad(struct vi_slots *s, unsigned i, const char *reason)
{
	struct vi_slot *sl;

	if (i >= s->count || i >= VI_SLOTS_MAX)
		return -EINVAL;
	sl = &s->slot[i];
	sl->tries = 0;
	sl->successful = false;
	set_reason(sl, reason);
	return 0;
}

int vi_slots_mark_failed(struct vi_slots *s, unsigned i, bool try_taken, const char *reason)
{
	struct vi_slot *sl;

	if (i >= s->count || i >= VI_SLOTS_MAX)
		return -EINVAL;
	sl = &s->slot[i];
	if (!try_taken && sl->tries)
		sl->tries--;
	set_reason(sl, reason);
	return 0;
}

int vi_slots_resize(struct vi_slots *s, unsigned count)
{
	if (count < 1 || count > VI_SLOTS_MAX)
		return -EINVAL;
	for (unsigned i = count; i < VI_SLOTS_MAX; i++)
		memset(&s->slot[i], 0, sizeof(s->slot[i]));
	/* slots the store did not have are zero already: never booted, not bootable */
	s->count = count;
	if (s->ran.set && s->ran.slot >= count)
		memset(&s->ran, 0, sizeof(s->ran));
	return 0;
}

bool vi_slots_floor_may_rise(const struct vi_slots *s, unsigned i, int running)
{
	/* only the running slot's version proved itself, by the boot that reached mark-good:
	 * a slot made good from another (RAUC's mark-good other) may have a version recorded
	 * by a try that never finished, and a counter raised to it would lock out the slot that
	 * runs now should that version hang */
	return i < s->count && i < VI_SLOTS_MAX && running >= 0 && (unsigned)running == i;
}

bool vi_slots_floor_proven(const struct vi_slots *s, unsigned i, uint64_t version)
{
	/* and not above the store's floor, which rose with that mark-good: a `successful` a
	 * store kept from before the rule (set for a slot that was not running) has a version
	 * the floor never reached */
	return i < s->count && i < VI_SLOTS_MAX && s->slot[i].successful &&
	       s->slot[i].version == version && version <= s->floor;
}

int vi_slots_mark_good(struct vi_slots *s, unsigned i, int running)
{
	struct vi_slot *sl;
	bool proven;

	if (i >= s->count || i >= VI_SLOTS_MAX)
		return -EINVAL;
	proven = vi_slots_floor_may_rise(s, i, running);
	sl = &s->slot[i];
	sl->successful = proven;
	sl->tries = VI_SLOT_TRIES_DEFAULT;
	sl->reason[0] = '\0';
	if (!sl->priority)
		sl->priority = VI_SLOT_PRIORITY_OTHER;
	if (proven && sl->version > s->floor)
		s->floor = sl->version;
	return 0;
}

int vi_slots_set_primary(struct vi_slots *s, unsigned i)
{
	if (i >= s->count || i >= VI_SLOTS_MAX)
		return -EINVAL;
	for (unsigned k = 0; k < s->count; k++)
		if (k != i && s->slot[k].priority)
			s->slot[k].priority = VI_SLOT_PRIORITY_OTHER;
	s->slot[i].priority = VI_SLOT_PRIORITY_PRIMARY;
	s->slot[i].tries = VI_SLOT_TRIES_DEFAULT;
	s->slot[i].successful = false;
	s->slot[i].reason[0] = '\0';
	return 0;
}

bool vi_slots_version_allowed(const struct vi_slots *s, uint64_t version)
{
	return version >= s->floor;
}

int vi_slot_layout(const struct vi_policy *p, unsigned index, const struct vi_config *base,
		   struct vi_config *ret, struct vi_error *err)
{
	struct vi_config c = *base;
	const char *name = vi_slot_name(index);
	int n;

	if (index >= p->slot_count || index >= VI_SLOTS_MAX)
		return vi_errno(err, -EINVAL, "no slot %u in the policy's slots=", index);
	n = snprintf(c.root.data.spec, sizeof(c.root.data.spec), "PARTLABEL=%s%s", p->slot_prefix,
		     name);
	if (n < 0 || (size_t)n >= sizeof(c.root.data.spec))
		return vi_errno(err, -ENAMETOOLONG, "slot %s: partition label too long", name);
	n = snprintf(c.root.hash.spec, sizeof(c.root.hash.spec), "PARTLABEL=%s%s-verity",
		     p->slot_prefix, name);
	if (n < 0 || (size_t)n >= sizeof(c.root.hash.spec))
		return vi_errno(err, -ENAMETOOLONG, "slot %s: partition label too long", name);
	/* the manifest is the one stored with the slot, after its hash tree: an update writes
	 * image, tree and manifest together, and nothing on the command line changes */
	n = snprintf(c.manifest, sizeof(c.manifest), "%s", c.root.hash.spec);
	if (n < 0 || (size_t)n >= sizeof(c.manifest))
		return vi_errno(err, -ENAMETOOLONG, "slot %s: partition label too long", name);
	c.root.enabled = true;
	c.root.root_hash_len = 0;
	*ret = c;
	return 0;
}

enum vi_slot_blame vi_slot_manifest_blame(int r)
{
	/* the devices were found: what is read from them is the slot's, unless reading itself
	 * failed or memory ran out */
	return r == -EIO || r == -ENOMEM ? VI_SLOT_BLAME_BOOT : VI_SLOT_BLAME_CONTENT;
}

/* Whether the command line shaped the mount or the init of the root. */
static bool cmdline_shaped_root(const struct vi_config *cfg)
{
	return cfg->rootflags[0] || cfg->rootfstype[0] || cfg->init_given ||
	       cfg->volatile_mode != VI_VOLATILE_NO;
}

enum vi_slot_blame vi_slot_setup_blame(enum vi_stage stage, int r, const struct vi_config *cfg)
{
	/* a read error, no memory, a hash the kernel's crypto cannot do: never the data */
	if (r == -ENOMEM || r == -ENOPROTOOPT)
		return VI_SLOT_BLAME_BOOT;
	switch (stage) {
	case VI_STAGE_SUPERBLOCK:
	case VI_STAGE_SIZES:
	case VI_STAGE_PREFLIGHT:
		return r == -EIO ? VI_SLOT_BLAME_BOOT : VI_SLOT_BLAME_CONTENT;
	case VI_STAGE_MOUNT:
		/* -EIO: dm-verity refused a block of the file system; any other error may be
		 * an option or a module the command line took away */
		return r == -EIO && !cmdline_shaped_root(cfg) ? VI_SLOT_BLAME_CONTENT
							      : VI_SLOT_BLAME_BOOT;
	case VI_STAGE_INIT:
		return cmdline_shaped_root(cfg) ? VI_SLOT_BLAME_BOOT : VI_SLOT_BLAME_CONTENT;
	case VI_STAGE_CONFIG:
	case VI_STAGE_DEVICES:
	case VI_STAGE_ACTIVATE:
	case VI_STAGE_STATUS:
	case VI_STAGE_SWITCH:
	case VI_STAGE_MEASURE:
	case VI_STAGE_IPE:
	case VI_STAGE_MANAGED:
		break;
	}
	return VI_SLOT_BLAME_BOOT;
}

int vi_slots_admit(struct vi_slots *s, unsigned i, uint64_t version, struct vi_error *err)
{
	if (!vi_slots_version_allowed(s, version))
		return vi_errno(err, -EPERM, "manifest version %llu is below the rollback floor "
				"%llu", (unsigned long long)version, (unsigned long long)s->floor);
	if (vi_slots_try(s, i, version) < 0)
		return vi_errno(err, -ESTALE, "slot %s has no try left", vi_slot_name(i));
	return 0;
}

enum vi_slots_counter_action vi_slots_counter_action(const struct vi_slots *s, unsigned i,
						     uint64_t version, uint64_t counter)
{
	/* a counter raised above the images (wrongly, or by whoever could) would otherwise mark
	 * every slot bad for good: the slot is refused, its content not blamed */
	if (version < counter)
		return VI_SLOTS_COUNTER_REFUSE;
	/* the floor rule's record: the slot booted completely as the running slot with this
	 * very version (vi_slots_floor_may_rise when it was marked good) */
	if (version > counter && vi_slots_floor_proven(s, i, version))
		return VI_SLOTS_COUNTER_RAISE;
	return VI_SLOTS_COUNTER_KEEP;
}

int vi_slots_record_failure(struct vi_slots *s, unsigned i, enum vi_slot_blame blame,
			    bool try_taken, const char *stage, const char *reason)
{
	char why[VI_SLOT_REASON_MAX];

	snprintf(why, sizeof(why), "%s: %s", stage, reason ? reason : "");
	if (blame == VI_SLOT_BLAME_CONTENT)
		return vi_slots_mark_bad(s, i, why);
	return vi_slots_mark_failed(s, i, try_taken, why);
}

void vi_slot_skipped_add(char *list, size_t size, const char *slot, const char *stage,
			 const char *reason)
{
	size_t n = strnlen(list, size);
	char entry[VI_SLOT_SKIPPED_MAX];
	size_t k;

	if (!size)
		return;
	if (n >= size) {
		list[size - 1] = '\0';
		return;
	}
	snprintf(entry, sizeof(entry), "%s%s:%s:%s", n ? ";" : "", slot, stage,
		 reason ? reason : "");
	for (k = 0; entry[k] && n + 1 < size; k++) {
		unsigned char c = (unsigned char)entry[k];

		/* the first byte of a later entry is its separator */
		if (c == ';' && !(k == 0 && n))
			c = ',';
		list[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	list[n] = '\0';
}
