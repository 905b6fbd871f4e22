// SPDX-License-Identifier: LGPL-2.1-or-later
/* libdevmapper wrapper for one read-only verity mapping. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

#include <libdevmapper.h>

#include "dm.h"

/* libdevmapper's logger is process-wide; keep its last error so the caller can say why. */
static _Thread_local char dm_last_error[128];

__attribute__((format(printf, 5, 6)))
static void dm_log_capture(int level, const char *file, int line, int dm_errno_or_class,
			   const char *f, ...)
{
	va_list ap;

	(void)file;
	(void)line;
	(void)dm_errno_or_class;
	if ((level & ~0x80) > 3) /* _LOG_ERR is 3; ignore warnings, notices, debug */
		return;
	va_start(ap, f);
	vsnprintf(dm_last_error, sizeof(dm_last_error), f, ap);
	va_end(ap);
}

void vi_dm_init(enum vi_dm_nodes nodes)
{
	dm_log_with_errno_init(dm_log_capture);
	if (nodes == VI_DM_NODES_SELF) {
		dm_udev_set_sync_support(0);
		dm_udev_set_checking(0);
	} else {
		dm_udev_set_sync_support(1);
	}
}

void vi_dm_release(void)
{
	/* closes /dev/mapper/control, which libdevmapper opens without O_CLOEXEC */
	dm_lib_release();
}

static int fail(struct vi_error *err, int r, const char *what, const char *name)
{
	if (dm_last_error[0])
		r = vi_errno(err, r, "%s %s: %s", what, name, dm_last_error);
	else
		r = vi_errno(err, r, "%s %s failed", what, name);
	dm_last_error[0] = '\0';
	return r;
}

int vi_dm_target_version(const char *target, uint32_t ret_version[3], struct vi_error *err)
{
	struct dm_task *dmt;
	struct dm_versions *v, *last;
	int r = -ENOENT;

	dmt = dm_task_create(DM_DEVICE_LIST_VERSIONS);
	if (!dmt)
		return fail(err, -ENOMEM, "listing target versions for", target);
	if (!dm_task_run(dmt)) {
		r = fail(err, -EIO, "listing target versions for", target);
		goto out;
	}
	v = dm_task_get_versions(dmt);
	do {
		last = v;
		if (!strcmp(v->name, target)) {
			memcpy(ret_version, v->version, sizeof(v->version));
			r = 0;
			break;
		}
		v = (struct dm_versions *)((char *)v + v->next);
	} while (last != v);
	if (r == -ENOENT)
		r = vi_errno(err, r, "kernel has no %s target (module not loaded?)", target);
out:
	dm_task_destroy(dmt);
	return r;
}

/* DM_DEVICE_INFO of the mapping name, run: the task (the caller destroys it) and its info, or
 * NULL with *ret_r and err set. */
static struct dm_task *info_task(const char *name, struct dm_info *info, int *ret_r,
				 struct vi_error *err)
{
	struct dm_task *dmt = dm_task_create(DM_DEVICE_INFO);

	*ret_r = 0;
	if (!dmt)
		*ret_r = fail(err, -ENOMEM, "querying", name);
	else if (!dm_task_set_name(dmt, name))
		*ret_r = fail(err, -EINVAL, "querying", name);
	else if (!dm_task_run(dmt) || !dm_task_get_info(dmt, info))
		*ret_r = fail(err, -EIO, "querying", name);
	if (*ret_r < 0 && dmt) {
		dm_task_destroy(dmt);
		dmt = NULL;
	}
	return dmt;
}

int vi_dm_exists(const char *name, bool *ret_exists, dev_t *ret_devno, struct vi_error *err)
{
	struct dm_task *dmt;
	struct dm_info info;
	int r;

	dmt = info_task(name, &info, &r, err);
	if (!dmt)
		return r;
	*ret_exists = info.exists;
	if (info.exists && ret_devno)
		*ret_devno = makedev((unsigned)info.major, (unsigned)info.minor);
	/* An existing mapping is only worth reusing when what it serves now is all it can serve:
	 * live, read-only, and no loaded inactive table that a resume would swap in. */
	if (info.exists && (info.suspended || !info.read_only || !info.live_table ||
			    info.inactive_table))
		r = vi_errno(err, -EBUSY, "mapping %s exists but is %s: refused", name,
			     info.suspended	 ? "suspended"
			     : !info.read_only	 ? "writable"
			     : !info.live_table ? "without a live table"
						 : "holding an inactive table");
	dm_task_destroy(dmt);
	return r;
}

int vi_dm_create_verity(const char *name, const char *uuid, int minor, uint64_t sectors,
			const char *params, dev_t *ret_devno, struct vi_error *err)
{
	struct dm_task *dmt;
	struct dm_info info;
	uint32_t cookie = 0;
	bool exists = false;
	int r;

	r = vi_dm_exists(name, &exists, NULL, err);
	if (r < 0)
		return r;
	if (exists)
		return vi_errno(err, -EEXIST, "mapping %s already exists", name);
	dmt = dm_task_create(DM_DEVICE_CREATE);
	if (!dmt)
		return fail(err, -ENOMEM, "creating", name);
	if (!dm_task_set_name(dmt, name) || !dm_task_set_ro(dmt) ||
	    (uuid && *uuid && !dm_task_set_uuid(dmt, uuid)) ||
	    (minor >= 0 && !dm_task_set_minor(dmt, minor)) ||
	    !dm_task_add_target(dmt, 0, sectors, "verity", params) ||
	    !dm_task_set_add_node(dmt, DM_ADD_NODE_ON_CREATE)) {
		r = fail(err, -EINVAL, "preparing mapping", name);
		goto out;
	}
	/* With udev sync disabled this only tags the request; libdevmapper makes the node. */
	if (!dm_task_set_cookie(dmt, &cookie, 0)) {
		r = fail(err, -EIO, "preparing mapping", name);
		goto out;
	}
	if (!dm_task_run(dmt)) {
		r = fail(err, -EINVAL, "kernel refused mapping", name);
		dm_udev_wait(cookie);
		goto out;
	}
	dm_udev_wait(cookie);
	if (!dm_task_get_info(dmt, &info) || !info.exists) {
		r = fail(err, -EIO, "reading back mapping", name);
		goto out;
	}
	if (ret_devno)
		*ret_devno = makedev((unsigned)info.major, (unsigned)info.minor);
	r = 0;
out:
	dm_task_destroy(dmt);
	dm_task_update_nodes();
	return r;
}

int vi_dm_uuid(const char *name, char *ret_uuid, size_t size, struct vi_error *err)
{
	struct dm_task *dmt;
	struct dm_info info;
	const char *uuid;
	int r;

	dmt = info_task(name, &info, &r, err);
	if (!dmt)
		return r;
	if (!info.exists) {
		r = vi_errno(err, -ENXIO, "no mapping named %s", name);
		goto out;
	}
	uuid = dm_task_get_uuid(dmt);
	if (snprintf(ret_uuid, size, "%s", uuid ? uuid : "") >= (int)size)
		r = vi_errno(err, -ENOBUFS, "the dm UUID of %s is too long", name);
out:
	dm_task_destroy(dmt);
	return r;
}

/* One single-target query (TABLE or STATUS). */
static int query_one(int type, const char *name, char *ret_type, size_t type_size,
		     char *ret_params, size_t params_size, uint64_t *ret_sectors,
		     struct vi_error *err)
{
	struct dm_task *dmt;
	struct dm_info info;
	uint64_t start, length;
	char *ttype = NULL, *params = NULL;
	void *next;
	int r;
	const char *what = type == DM_DEVICE_TABLE ? "reading table of" : "reading status of";

	dmt = dm_task_create(type);
	if (!dmt)
		return fail(err, -ENOMEM, what, name);
	if (!dm_task_set_name(dmt, name) || !dm_task_no_open_count(dmt)) {
		r = fail(err, -EINVAL, what, name);
		goto out;
	}
	if (!dm_task_run(dmt) || !dm_task_get_info(dmt, &info)) {
		r = fail(err, -EIO, what, name);
		goto out;
	}
	if (!info.exists) {
		r = vi_errno(err, -ENXIO, "no mapping named %s", name);
		goto out;
	}
	next = dm_get_next_target(dmt, NULL, &start, &length, &ttype, &params);
	if (next || !ttype || start != 0) {
		r = vi_err(err, "mapping %s is not a single target", name);
		goto out;
	}
	if ((ret_type && snprintf(ret_type, type_size, "%s", ttype) >= (int)type_size) ||
	    snprintf(ret_params, params_size, "%s", params ? params : "") >= (int)params_size) {
		r = vi_errno(err, -ENOBUFS, "%s %s: line too long", what, name);
		goto out;
	}
	if (ret_sectors)
		*ret_sectors = length;
	r = 0;
out:
	dm_task_destroy(dmt);
	return r;
}

int vi_dm_table(const char *name, char *ret_type, size_t type_size, char *ret_params,
		size_t params_size, uint64_t *ret_sectors, struct vi_error *err)
{
	return query_one(DM_DEVICE_TABLE, name, ret_type, type_size, ret_params, params_size,
			 ret_sectors, err);
}

int vi_dm_status(const char *name, char *ret_status, size_t size, struct vi_error *err)
{
	return query_one(DM_DEVICE_STATUS, name, NULL, 0, ret_status, size, NULL, err);
}

int vi_dm_remove(const char *name, struct vi_error *err)
{
	struct dm_task *dmt;
	uint32_t cookie = 0;
	int r = 0;

	dmt = dm_task_create(DM_DEVICE_REMOVE);
	if (!dmt)
		return fail(err, -ENOMEM, "removing", name);
	if (!dm_task_set_name(dmt, name) || !dm_task_retry_remove(dmt) ||
	    !dm_task_set_cookie(dmt, &cookie, 0)) {
		r = fail(err, -EINVAL, "removing", name);
		goto out;
	}
	if (!dm_task_run(dmt))
		r = fail(err, -EBUSY, "removing", name);
	dm_udev_wait(cookie);
out:
	dm_task_destroy(dmt);
	dm_task_update_nodes();
	return r;
}
