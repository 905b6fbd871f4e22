// SPDX-License-Identifier: LGPL-2.1-or-later
/* The A/B boot step's decisions (include/slotboot.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "slotboot.h"

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

int vi_slot_boot_pick(const struct vi_slots *s, unsigned tried)
{
	struct vi_slots left = *s;

	for (unsigned i = 0; i < left.count && i < VI_SLOTS_MAX; i++)
		if (tried & (1u << i))
			left.slot[i].tries = 0;
	return vi_slots_pick(&left);
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
		break;
	}
	return VI_SLOT_BLAME_BOOT;
}

int vi_slot_boot_admit(struct vi_slots *s, unsigned i, uint64_t version, struct vi_error *err)
{
	if (!vi_slots_version_allowed(s, version))
		return vi_errno(err, -EPERM, "manifest version %llu is below the rollback floor "
				"%llu", (unsigned long long)version, (unsigned long long)s->floor);
	if (vi_slots_try(s, i, version) < 0)
		return vi_errno(err, -ESTALE, "slot %s has no try left", vi_slot_name(i));
	return 0;
}

enum vi_slot_tpm_action vi_slot_boot_tpm_action(const struct vi_slots *s, unsigned i,
						uint64_t version, uint64_t counter)
{
	/* a counter raised above the images (wrongly, or by whoever could) would otherwise mark
	 * every slot bad for good: the slot is refused, its content not blamed */
	if (version < counter)
		return VI_SLOT_TPM_REFUSE;
	/* the floor rule's record: the slot booted completely as the running slot with this
	 * very version (vi_slots_floor_may_rise when it was marked good) */
	if (version > counter && vi_slots_floor_proven(s, i, version))
		return VI_SLOT_TPM_RAISE;
	return VI_SLOT_TPM_KEEP;
}

int vi_slot_boot_failed(struct vi_slots *s, unsigned i, enum vi_slot_blame blame, bool try_taken,
			const char *stage, const char *reason)
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
