// SPDX-License-Identifier: LGPL-2.1-or-later
/* One verity target from configuration to a verified, read-only mapping (setup steps 1-6). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "activate.h"
#include "clock.h"
#include "devices.h"
#include "fec.h"
#include "geometry.h"
#include "hex.h"
#include "preflight.h"

const char *vi_stage_name(enum vi_stage s)
{
	static const char *const names[] = {
		[VI_STAGE_CONFIG] = "config",         [VI_STAGE_DEVICES] = "devices",
		[VI_STAGE_SUPERBLOCK] = "superblock", [VI_STAGE_SIZES] = "sizes",
		[VI_STAGE_PREFLIGHT] = "preflight",   [VI_STAGE_ACTIVATE] = "activate",
		[VI_STAGE_STATUS] = "status",         [VI_STAGE_MOUNT] = "mount",
		[VI_STAGE_INIT] = "init",             [VI_STAGE_SWITCH] = "switch-root",
		[VI_STAGE_MEASURE] = "measure",       [VI_STAGE_IPE] = "ipe",
		[VI_STAGE_MANAGED] = "managed",
	};

	return (unsigned)s < sizeof(names) / sizeof(names[0]) && names[s] ? names[s] : "unknown";
}

static int mismatch(struct vi_error *err, const char *key, uint64_t cmdline, uint64_t sb)
{
	return vi_errno(err, -EINVAL,
		 "%s=%" PRIu64 " on the command line but the superblock says %" PRIu64, key, cmdline,
		 sb);
}

int vi_params_merge(const struct vi_target *t, const struct vi_params *sb,
		    bool allow_fewer_data_blocks, struct vi_params *ret,
		    struct vi_error *err)
{
	const struct vi_params *c = &t->params;

	if ((t->given & VI_GIVEN_HASH_NAME) && strcmp(c->hash_name, sb->hash_name)) {
		return vi_errno(err, -EINVAL,
			 "hash=%s on the command line but the superblock says %s", c->hash_name,
			 sb->hash_name);
	}
	if ((t->given & VI_GIVEN_FORMAT) && c->hash_type != sb->hash_type)
		return mismatch(err, "format", c->hash_type, sb->hash_type);
	if ((t->given & VI_GIVEN_DATA_BS) && c->data_block_size != sb->data_block_size)
		return mismatch(err, "data-block-size", c->data_block_size, sb->data_block_size);
	if ((t->given & VI_GIVEN_HASH_BS) && c->hash_block_size != sb->hash_block_size)
		return mismatch(err, "hash-block-size", c->hash_block_size, sb->hash_block_size);
	/* Lowering data-blocks would truncate the device while the root hash still verifies. */
	if ((t->given & VI_GIVEN_DATA_BLOCKS) && c->data_blocks != sb->data_blocks &&
	    !(allow_fewer_data_blocks && c->data_blocks < sb->data_blocks))
		return mismatch(err, "data-blocks", c->data_blocks, sb->data_blocks);
	if ((t->given & VI_GIVEN_SALT) &&
	    (c->salt_size != sb->salt_size || memcmp(c->salt, sb->salt, c->salt_size))) {
		return vi_errno(err, -EINVAL,
			 "salt= on the command line differs from the superblock's");
	}
	if ((t->given & VI_GIVEN_UUID) && memcmp(c->uuid, sb->uuid, sizeof(c->uuid))) {
		return vi_errno(err, -EINVAL,
			 "uuid= on the command line differs from the superblock's");
	}
	*ret = *sb;
	if (t->given & VI_GIVEN_DATA_BLOCKS)
		ret->data_blocks = c->data_blocks;
	ret->hash_offset = c->hash_offset;
	ret->no_superblock = false;
	return 0;
}

/* Parameters from the superblock (checked against the command line) or the command line. */
static int resolve_params(const struct vi_target *t, const struct vi_dev *data,
			  const struct vi_dev *hash, bool allow_fewer, struct vi_params *ret,
			  struct vi_error *err)
{
	uint8_t buf[VERITY_SB_SIZE];
	struct vi_params sb;
	ssize_t n;
	int r;

	if (!t->superblock || t->params.no_superblock) {
		*ret = t->params;
		ret->no_superblock = true;
		if (!(t->given & VI_GIVEN_DATA_BLOCKS) && !ret->data_blocks &&
		    ret->data_block_size) {
			/* the whole data device; with the tree on it, what comes before the tree */
			uint64_t end = data->size;

			if (data->devno == hash->devno && ret->hash_offset < end)
				end = ret->hash_offset;
			ret->data_blocks = end / ret->data_block_size;
		}
		return vi_params_validate(ret, err);
	}
	/* One request for the superblock and the block after it, the tree's top block with the
	 * usual 4 KiB hash blocks, which the pre-flight reads next (devices are opened with
	 * FADV_RANDOM: no readahead otherwise). A hint only: correctness never depends on it. */
	(void)posix_fadvise(hash->fd, (off_t)t->params.hash_offset, 2 * 4096, POSIX_FADV_WILLNEED);
	n = pread(hash->fd, buf, sizeof(buf), (off_t)t->params.hash_offset);
	if (n != (ssize_t)sizeof(buf)) {
		return vi_errno(err, -EIO,
			 "cannot read the verity superblock at byte %" PRIu64 " of %s: %s",
			 t->params.hash_offset, hash->name, n < 0 ? strerror(errno) : "short read");
	}
	memset(&sb, 0, sizeof(sb));
	sb.hash_offset = t->params.hash_offset;
	r = vi_sb_decode(buf, &sb, err);
	if (r < 0)
		return r;
	return vi_params_merge(t, &sb, allow_fewer, ret, err);
}

static int check_sizes(const struct vi_params *p, const struct vi_geometry *g,
		       const struct vi_dev *data, const struct vi_dev *hash, struct vi_error *err)
{
	uint64_t hash_area_start = p->hash_offset;

	if (g->data_size > data->size) {
		return vi_errno(err, -EINVAL,
			 "data area (%" PRIu64 " bytes) is larger than %s (%" PRIu64 " bytes)",
			 g->data_size, data->name, data->size);
	}
	if (g->hash_device_size > hash->size) {
		return vi_errno(err, -EINVAL,
			 "hash tree ends at byte %" PRIu64 ", beyond the end of %s (%" PRIu64 ")",
			 g->hash_device_size, hash->name, hash->size);
	}
	if (data->devno == hash->devno && hash_area_start < g->data_size) {
		return vi_errno(err, -EINVAL,
			 "hash area at byte %" PRIu64 " overlaps the data area (%" PRIu64
			 " bytes) on %s",
			 hash_area_start, g->data_size, data->name);
	}
	return 0;
}

static int fill_table(const struct vi_target *t, const struct vi_params *p,
		      const struct vi_geometry *g, const struct vi_dev *devs, bool have_fec,
		      struct vi_table *tb, struct vi_error *err)
{
	memset(tb, 0, sizeof(*tb));
	tb->p = *p;
	tb->hash_start = g->tree_start;
	tb->data_dev = devs[0].devno;
	tb->hash_dev = devs[1].devno;
	memcpy(tb->root_hash, t->root_hash, sizeof(tb->root_hash));
	tb->root_hash_len = t->root_hash_len;
	tb->opts = t->opts;
	tb->try_verify_in_tasklet = t->try_verify_in_tasklet;
	if (have_fec) {
		tb->fec = true;
		tb->fec_dev = devs[2].devno;
		tb->fec_roots = t->fec_roots ? t->fec_roots : 2;
		if (p->data_block_size != p->hash_block_size) {
			return vi_errno(err, -EINVAL,
				 "FEC needs equal data and hash block sizes (kernel rule)");
		}
		if (t->fec_offset % p->data_block_size) {
			return vi_errno(err, -EINVAL,
				 "fec-offset=%" PRIu64 " is not a multiple of the data block size",
				 t->fec_offset);
		}
		tb->fec_start = t->fec_offset / p->data_block_size;
		/* FEC covers the data blocks and then the hash device from the tree's first block
		 * (the kernel reads metadata block i at hash_start + i) up to the FEC area when
		 * they share the device, else to the device's end: what veritysetup encodes and
		 * libcryptsetup (so systemd) puts in the table, even past the tree. */
		if (t->fec_blocks) {
			tb->fec_blocks = t->fec_blocks;
		} else {
			bool on_hash = devs[2].devno == devs[1].devno;
			uint64_t hash_cov;
			int r = vi_fec_hash_blocks(on_hash ? t->fec_offset : devs[1].size, on_hash,
						       p->data_block_size, g->tree_start,
						       g->hash_blocks, &hash_cov, err);

			if (r < 0)
				return r;
			tb->fec_blocks = p->data_blocks + hash_cov;
		}
	}
	if (t->sig_key_desc[0] &&
	    snprintf(tb->sig_key_desc, sizeof(tb->sig_key_desc), "%s", t->sig_key_desc) >=
		    (int)sizeof(tb->sig_key_desc)) {
		return vi_errno(err, -EINVAL, "signature key description too long");
	}
	return 0;
}

/* Create the mapping, or accept an existing one whose table is the same. */
static int create_or_reuse(const struct vi_target *t, uint64_t sectors,
			   struct vi_activation *a, struct vi_error *err)
{
	char type[32], params[VI_TABLE_MAX];
	uint64_t len = 0;
	bool exists = false;
	int r;

	r = vi_dm_exists(t->name, &exists, &a->devno, err);
	if (r < 0)
		return r;
	if (!exists)
		return vi_dm_create_verity(t->name, t->from_dm_create ? t->dm_uuid : NULL,
					   t->from_dm_create ? t->dm_minor : -1, sectors, a->table,
					   &a->devno, err);
	r = vi_dm_table(t->name, type, sizeof(type), params, sizeof(params), &len, err);
	if (r < 0)
		return r;
	if (strcmp(type, "verity") || len != sectors || !vi_table_equal(params, a->table)) {
		return vi_errno(err, -EEXIST,
			 "a different mapping named %s exists already: refused", t->name);
	}
	a->reused = true;
	return 0;
}

/* /dev/mapper/NAME must be the block device we created (libdevmapper or udev made it). */
static int check_node(const char *node, dev_t devno, struct vi_error *err)
{
	struct stat st;

	if (stat(node, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != devno) {
		return vi_errno(err, -ENODEV, "%.100s is missing or is not the mapping %u:%u",
			 node, major(devno), minor(devno));
	}
	return 0;
}

/* Whether the device a wait timeout names (the first one still missing, as vi_devs_scan
 * reports it) was derived from the root hash rather than given. */
static bool first_missing_derived(const struct vi_target *t, const struct vi_dev *devs)
{
	if (devs[0].fd < 0)
		return t->data_derived;
	return devs[1].fd < 0 && t->hash_derived;
}

/* The parameters of t completed from the superblock (stage superblock), checked against what
 * this kernel accepts, and the tree's geometry. */
static int params_and_geometry(const struct vi_target *t, struct vi_dev devs[2],
			       bool allow_fewer_data_blocks, struct vi_params *ret_params,
			       struct vi_geometry *ret_geometry, struct vi_error *err)
{
	int r;

	r = resolve_params(t, &devs[0], &devs[1], allow_fewer_data_blocks, ret_params, err);
	if (r < 0)
		return r;
	r = vi_params_kernel_check(ret_params, (unsigned long)sysconf(_SC_PAGESIZE), err);
	if (r < 0)
		return r;
	return vi_geometry_compute(ret_params, ret_geometry, err);
}

/* restart-on-error / panic-on-error need dm-verity 1.10: refused (-EOPNOTSUPP) on an older
 * kernel rather than loaded without them. */
static int ioerror_supported(const struct vi_target *t, struct vi_error *err)
{
	uint32_t v[3];
	int r;

	if (t->opts.ioerror == VI_IOERR_EIO)
		return 0;
	r = vi_dm_target_version("verity", v, err);
	if (r < 0)
		return r;
	if (v[0] < VI_DM_VERITY_IOERR_MAJOR ||
	    (v[0] == VI_DM_VERITY_IOERR_MAJOR && v[1] < VI_DM_VERITY_IOERR_MINOR)) {
		return vi_errno(err, -EOPNOTSUPP,
			 "%s needs dm-verity target 1.10 (Linux 6.12), this kernel has %u.%u.%u: "
			 "refused",
			 t->opts.ioerror == VI_IOERR_RESTART ? "restart-on-error" :
							       "panic-on-error",
			 v[0], v[1], v[2]);
	}
	return 0;
}

/* The kernel's verdict on a fresh mapping: V, or -EPERM. */
static int status_verified(const char *name, struct vi_error *err)
{
	char status[64];
	int r;

	r = vi_dm_status(name, status, sizeof(status), err);
	if (r < 0)
		return r;
	if (status[0] != 'V') {
		return vi_errno(err, -EPERM,
			 "kernel reports status \"%.20s\" for %s, not V (verified): refused", status,
			 name);
	}
	return 0;
}

int vi_activate(const struct vi_target *t, const struct vi_activate_opts *o,
		struct vi_activation *a, struct vi_error *err)
{
	struct vi_dev devs[3] = {
		{ .spec = t->data.spec, .fd = -1 },
		{ .spec = t->hash.spec[0] ? t->hash.spec : t->data.spec, .fd = -1 },
		{ .spec = t->fec.spec, .fd = -1 },
	};
	unsigned ndev = t->fec.spec[0] ? 3 : 2;
	struct vi_geometry g;
	struct vi_table tb;
	uint64_t sectors;
	bool created = false;
	int r;

	memset(a, 0, sizeof(*a));
	a->stage = VI_STAGE_CONFIG;
	if (!t->enabled || !t->data.spec[0] || !t->root_hash_len)
		return vi_err(err, "%s: no root hash or data device configured", t->name);

	a->stage = VI_STAGE_DEVICES;
	a->wait_ms = vi_now_ms();
	r = vi_devs_wait_noted(devs, ndev, o->timeout_ms, &o->wait_note, err);
	a->wait_ms = vi_now_ms() - a->wait_ms;
	if (r == -ETIMEDOUT && first_missing_derived(t, devs)) {
		/* a partition named after the root hash that is not there: say where it came from */
		char why[sizeof(err->msg)];

		memcpy(why, err->msg, sizeof(why));
		r = vi_errno(err, r, "%s (a device not given is the partition named after the root "
			     "hash; give it, or hash-offset=)", why);
	}
	if (r < 0)
		goto out;
	snprintf(a->data_name, sizeof(a->data_name), "%s", devs[0].name);
	snprintf(a->hash_name, sizeof(a->hash_name), "%s", devs[1].name);

	a->stage = VI_STAGE_SUPERBLOCK;
	r = params_and_geometry(t, devs, o->allow_fewer_data_blocks, &a->params, &g, err);
	if (r < 0)
		goto out;

	a->stage = VI_STAGE_SIZES;
	r = check_sizes(&a->params, &g, &devs[0], &devs[1], err);
	if (r < 0)
		goto out;

	a->stage = VI_STAGE_PREFLIGHT;
	r = vi_preflight(devs[0].fd, devs[1].fd, &a->params, &g, t->root_hash, t->root_hash_len,
			 o->ops, &a->preflight_note);
	if (r == -ENOPROTOOPT) {
		a->preflight_skipped = true;
	} else if (r < 0) {
		*err = a->preflight_note;
		goto out;
	}

	a->stage = VI_STAGE_ACTIVATE;
	r = fill_table(t, &a->params, &g, devs, ndev == 3, &tb, err);
	if (r < 0)
		goto out;
	r = vi_table_build(&tb, a->table, sizeof(a->table), err);
	if (r < 0)
		goto out;
	sectors = t->from_dm_create && t->dm_sectors ? t->dm_sectors : vi_table_sectors(&tb);
	r = ioerror_supported(t, err);
	if (r < 0)
		goto out;
	r = create_or_reuse(t, sectors, a, err);
	if (r < 0)
		goto out;
	created = !a->reused;
	snprintf(a->node, sizeof(a->node), "/dev/mapper/%s", t->name);
	r = check_node(a->node, a->devno, err);
	if (r < 0)
		goto out;

	a->stage = VI_STAGE_STATUS;
	r = status_verified(t->name, err);
out:
	if (r < 0 && created) {
		struct vi_error ignored;

		vi_dm_remove(t->name, &ignored);
	}
	vi_devs_close(devs, ndev);
	return r;
}
