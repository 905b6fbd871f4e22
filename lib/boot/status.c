// SPDX-License-Identifier: LGPL-2.1-or-later
/* The status file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "hex.h"
#include "status.h"

/* Printable ASCII only: values come partly from disks and end up in logs and shell scripts. */
static void put(FILE *f, const char *key, const char *value)
{
	fprintf(f, "%s=", key);
	for (const char *p = value ? value : ""; *p; p++)
		fputc((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f ? *p : '?', f);
	fputc('\n', f);
}

int vi_status_write(const char *dir, const struct vi_status *st, struct vi_error *err)
{
	char path[512], tmp[520];
	FILE *f;
	int fd, r;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		r = -errno;
		return vi_errno(err, r, "cannot create %.150s: %s", dir, strerror(-r));
	}
	snprintf(path, sizeof(path), "%.400s/%s", dir, VI_STATUS_FILE);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		r = -errno;
		return vi_errno(err, r, "cannot write %.150s: %s", tmp, strerror(-r));
	}
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		goto out_unlink;
	}
	put(f, "result", st->result);
	put(f, "name", st->name);
	put(f, "roothash", st->root_hash);
	put(f, "stage", st->stage);
	put(f, "reason", st->reason);
	put(f, "action", st->action);
	put(f, "booted", st->booted);
	if (st->slot)
		put(f, "slot", st->slot);
	if (st->store)
		put(f, "store", st->store);
	if (st->skipped && st->skipped[0])
		put(f, "skipped", st->skipped);
	if (st->floor_nv && st->floor_nv[0])
		put(f, "floor_nv", st->floor_nv);
	if (st->full_read)
		put(f, "full_read", st->full_read);
	if (st->usr)
		put(f, "usr", st->usr);
	if (st->usr_hash)
		put(f, "usrhash", st->usr_hash);
	if (st->on_corruption)
		put(f, "on_corruption", st->on_corruption);
	if (st->managed)
		put(f, "managed", st->managed);
	if (st->managed_trace)
		put(f, "managed_trace", st->managed_trace);
	if (fclose(f) != 0) {
		r = -EIO;
		goto out_unlink;
	}
	if (rename(tmp, path) < 0) {
		r = -errno;
		goto out_unlink;
	}
	return 0;
out_unlink:
	vi_errno(err, r, "cannot write %.150s: %s", path, strerror(-r));
	unlink(tmp);
	return r;
}

void vi_status_set_slot(struct vi_status *st, const char *slot, const char *store)
{
	st->slot = slot;
	st->store = store;
}

void vi_status_set_skipped(struct vi_status *st, const char *skipped)
{
	st->skipped = skipped;
}

static void hash_hex(const struct vi_target *t, char *out, size_t size)
{
	if (!t || !t->root_hash_len || vi_hex_encode(t->root_hash, t->root_hash_len, out, size) < 0)
		snprintf(out, size, "%s", "");
}

void vi_status_set_usr(struct vi_status *st, const struct vi_target *usr,
		       struct vi_status_hashes *hashes)
{
	hash_hex(usr, hashes->usr, sizeof(hashes->usr));
	st->usr = usr->name;
	st->usr_hash = hashes->usr;
}

void vi_status_from_failure(const char *result, const char *action, const struct vi_failure *f,
			    const struct vi_target *booted, struct vi_status_hashes *hashes,
			    struct vi_status *ret)
{
	bool failed = f && f->set;
	const struct vi_target *t = failed ? f->target : NULL;

	hash_hex(t ? t : booted, hashes->failed, sizeof(hashes->failed));
	hash_hex(booted, hashes->booted, sizeof(hashes->booted));
	*ret = (struct vi_status){
		.result = result,
		.name = t ? t->name : (booted ? booted->name : ""),
		.root_hash = hashes->failed,
		.stage = failed ? vi_stage_name(f->stage) : "",
		.reason = failed ? f->reason.msg : "",
		.action = action,
		.booted = hashes->booted,
	};
}

void vi_status_parse(char *text, struct vi_status *ret)
{
	static const char *const keys[] = { "result", "name", "roothash", "stage", "reason",
					    "action", "booted", "slot", "store", "usr", "usrhash",
					    "on_corruption", "managed" };
	const char **fields[] = { &ret->result, &ret->name, &ret->root_hash, &ret->stage,
				  &ret->reason, &ret->action, &ret->booted, &ret->slot,
				  &ret->store, &ret->usr, &ret->usr_hash, &ret->on_corruption,
				  &ret->managed };
	char *line = text, *next;

	/* the optional lines (slot, store, skipped, usr, usrhash, on_corruption, managed) are
	 * NULL when absent */
	memset(ret, 0, sizeof(*ret));
	for (size_t i = 0; i < 7; i++)
		*fields[i] = "";
	for (; line && *line; line = next) {
		char *eq;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strcmp(line, keys[i]))
				*fields[i] = eq + 1;
	}
}

enum vi_boot_outcome vi_status_outcome(const struct vi_status *st)
{
	if (st->result && !strcmp(st->result, VI_STATUS_RESULT_OK))
		return VI_BOOT_BOOTED;
	if (st->result && !strcmp(st->result, VI_STATUS_RESULT_FAILED) && st->action &&
	    !strcmp(st->action, VI_STATUS_ACTION_RECOVERY))
		return VI_BOOT_RECOVERY;
	return VI_BOOT_FAILED;
}

int vi_status_read(const char *dir, char *buf, size_t size, struct vi_status *ret)
{
	char path[512];
	int r;

	snprintf(path, sizeof(path), "%.400s/%s", dir, VI_STATUS_FILE);
	r = vi_fileio_read_text_at(AT_FDCWD, path, buf, size);
	if (r < 0)
		return r;
	vi_status_parse(buf, ret);
	return 0;
}

static int mkdir_one(const char *path, struct vi_error *err)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return vi_errno(err, -errno, "cannot create %.200s: %s", path, strerror(errno));
	return 0;
}

int vi_status_veritysetup_standdown(const char *unit_dir, const char *name, struct vi_error *err)
{
	char dir[512], path[560], tmp[570], text[256];
	size_t n = strlen(name);
	int fd, r, len;
	char *slash;

	if (n == 0 || n > 64 || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_") != n)
		return vi_err(err, "mapping name %.80s needs systemd's unit-name escaping", name);
	/* unit_dir and its parents (/run/systemd may not exist before systemd runs) */
	snprintf(dir, sizeof(dir), "%.400s", unit_dir);
	for (slash = strchr(dir + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		r = mkdir_one(dir, err);
		*slash = '/';
		if (r < 0)
			return r;
	}
	r = mkdir_one(dir, err);
	if (r < 0)
		return r;
	snprintf(dir, sizeof(dir), "%.400s/systemd-veritysetup@%s.service.d", unit_dir, name);
	r = mkdir_one(dir, err);
	if (r < 0)
		return r;
	len = snprintf(text, sizeof(text),
		       "# verity-init set up and verified /dev/mapper/%s before the switch\n"
		       "# (/run/verity-init/status): systemd's veritysetup stands down for it.\n"
		       "[Unit]\nConditionPathExists=!/dev/mapper/%s\n", name, name);
	snprintf(path, sizeof(path), "%s/50-verity-init.conf", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return vi_errno(err, -errno, "cannot write %.200s: %s", tmp, strerror(errno));
	r = write(fd, text, (size_t)len) == len ? 0 : -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return vi_errno(err, r, "cannot write %.200s: %s", path, strerror(-r));
	}
	return 0;
}
