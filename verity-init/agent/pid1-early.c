// SPDX-License-Identifier: LGPL-2.1-or-later
/* PID 1's first steps, before the configuration pipeline: the API filesystems and the console,
 * the kernel log's rate limit, the initramfs's modules with their parameters (and the policy,
 * read once for them). Declared in agent.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "clock.h"
#include "fileio.h"
#include "keyring.h"
#include "modules.h"
#include "policy.h"
#include "rootopts.h"

#define DEVKMSG_SYSCTL "/proc/sys/kernel/printk_devkmsg"

/* The kernel keeps 10 /dev/kmsg records per 5 s by default and drops the rest silently: the
 * one that says why the boot stopped must not be the one dropped. PID 1 lifts the limit for its
 * own run and puts it back before handing over to init (a printk.devkmsg= on the command line
 * locks the setting; then the writes fail and nothing changes). */
void vi_pid1_devkmsg_unlimit(struct agent *a)
{
	char cur[32];
	int fd;

	if (vi_fileio_read_text_at(AT_FDCWD, DEVKMSG_SYSCTL, cur, sizeof(cur)) < 0 || strcmp(cur, "ratelimit"))
		return;
	fd = open(DEVKMSG_SYSCTL, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	a->pid1.devkmsg_restore = write(fd, "on\n", 3) == 3;
	close(fd);
}

void vi_pid1_devkmsg_restore(struct agent *a)
{
	int fd;

	if (!a->pid1.devkmsg_restore)
		return;
	fd = open(DEVKMSG_SYSCTL, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "ratelimit\n", 10) == 10)
			a->pid1.devkmsg_restore = false;
		close(fd);
	}
}

void vi_pid1_mount_api(struct agent *a)
{
	static const struct {
		const char *src, *dir, *type, *data;
		unsigned long flags;
	} m[] = {
		{ "proc", "/proc", "proc", NULL, MS_NOSUID | MS_NODEV | MS_NOEXEC },
		{ "sysfs", "/sys", "sysfs", NULL, MS_NOSUID | MS_NODEV | MS_NOEXEC },
		{ "devtmpfs", "/dev", "devtmpfs", "mode=0755", MS_NOSUID },
		{ "tmpfs", "/run", "tmpfs", "mode=0755", MS_NOSUID | MS_NODEV },
	};

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		mkdir(m[i].dir, 0755);
		if (mount(m[i].src, m[i].dir, m[i].type, m[i].flags, m[i].data) < 0 &&
		    errno != EBUSY)
			vi_kmsg_log(&a->log, KMSG_ERR, "mounting %s failed: %s", m[i].dir,
				 strerror(errno));
	}
	/* Without /dev/console in the archive the kernel started us with no fds 0-2. */
	if (fcntl(0, F_GETFD) < 0) {
		int fd = open("/dev/console", O_RDWR | O_NOCTTY);

		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
	}
}

#define REQUIRE_SIGNATURES_PARAM "/sys/module/dm_verity/parameters/require_signatures"

/* The parameters of every module PID 1 loads: the kernel applies MODULE.PARAM words of the
 * command line to built-in code only, so for modules they come from the command line (and
 * modprobe.d) as modprobe would pass them, then the policy's forced ones
 * (a->pid1.policy_file). */
static void modload_params(const struct agent *a, struct vi_modload_params *mp)
{
	static char cmdline[VI_MAX_CMDLINE + 2];

	static char forced[VI_MODPARAMS_MAX];
	const char *policy_forced = NULL;

	*mp = (struct vi_modload_params){ .modprobe_dir = VI_MODPROBE_DIR };
	if (a->pid1.policy_file.r == 0)
		policy_forced = vi_policy_forced_modparams(&a->pid1.policy_file.policy);
	mp->forced = policy_forced;
	/* the device maker's certificates go into dm-verity's keyring before it is sealed
	 * (keyring-step.c): only the agent opens it, whatever the command line says */
	if (a->pid1.certs_present) {
		snprintf(forced, sizeof(forced), "%s%s" VI_DMVERITY_UNSEALED_PARAM,
			 policy_forced ? policy_forced : "", policy_forced ? " " : "");
		mp->forced = forced;
	}
	if (vi_fileio_read_text_at(AT_FDCWD, "/proc/cmdline", cmdline, sizeof(cmdline)) == 0) {
		mp->cmdline = cmdline;
		mp->cmdline_len = strlen(cmdline);
	}
}

/* The index of type in vi_root_fs_types (below 32, a bit of a->pid1.fs_modules_tried), or -1
 * when it is not there or not a plain [a-z0-9] name: the type becomes a path. */
static int fs_type_index(const char *type)
{
	size_t n = strlen(type);

	if (!n || n >= VI_MAX_FSTYPE || strspn(type, "abcdefghijklmnopqrstuvwxyz0123456789") != n)
		return -1;
	for (int i = 0; i < 32 && vi_root_fs_types[i]; i++)
		if (!strcmp(vi_root_fs_types[i], type))
			return i;
	return -1;
}

/* a->pid1.fs_loader's load: VI_FS_MODULES_DIR/type, once per type, with the parameters of the
 * base load. No list: the driver is built in, or the image (an older one) has it in the base
 * list. */
static void load_fs_modules(void *ctx, const char *type)
{
	struct agent *a = ctx;
	struct vi_modload_params mp;
	struct vi_error err = { "" };
	unsigned loaded = 0, skipped = 0;
	char list[sizeof(VI_FS_MODULES_DIR) + VI_MAX_FSTYPE];
	uint64_t t0, ms;
	int i = fs_type_index(type), r;

	if (i < 0 || a->pid1.fs_modules_tried & (UINT32_C(1) << i))
		return;
	a->pid1.fs_modules_tried |= UINT32_C(1) << i;
	snprintf(list, sizeof(list), VI_FS_MODULES_DIR "/%s", type);
	modload_params(a, &mp);
	t0 = vi_now_ms();
	r = vi_modules_load(list, &mp, &loaded, &skipped, &err);
	ms = vi_now_ms() - t0;
	a->time.modules_ms += ms;
	if (r < 0)
		vi_kmsg_log(&a->log, KMSG_WARNING, "fs modules for %s: %s", type, err.msg);
	if (r < 0 || loaded || skipped)
		vi_kmsg_log(&a->log, KMSG_INFO, "fs modules for %s: %u loaded, %u without "
			 "hardware, in %llu ms", type, loaded, skipped, (unsigned long long)ms);
}

/* Load the initramfs's base modules (a filesystem's own come before its mount:
 * a->pid1.fs_loader). */
void vi_pid1_load_modules(struct agent *a)
{
	struct agent_policy_file *pf = &a->pid1.policy_file;
	struct vi_modload_params mp;
	struct vi_error err = { "" };
	unsigned loaded = 0, skipped = 0;
	uint64_t t0 = vi_now_ms();
	char val[8] = "";
	int r;

	/* read once: the configuration pipeline takes this copy (and refuses a bad file) */
	pf->r = vi_policy_load(VI_POLICY_FILE, &pf->policy, &pf->err);
	pf->read = true;
	/* listed once: every module load (the base list, each filesystem's) asks */
	a->pid1.certs_present = vi_certs_present(VI_CERTS_DIR);
	a->pid1.fs_loader = (struct vi_fs_loader){ load_fs_modules, a };
	modload_params(a, &mp);
	r = vi_modules_load(VI_MODULES_LIST, &mp, &loaded, &skipped, &err);
	a->time.modules_ms = vi_now_ms() - t0;
	if (r < 0)
		vi_kmsg_log(&a->log, KMSG_WARNING, "%s", err.msg);
	vi_kmsg_log(&a->log, KMSG_INFO, "%u modules loaded, %u without hardware, in %llu ms", loaded,
		 skipped, (unsigned long long)a->time.modules_ms);
	/* the policy's guard only: the certificates' keyring_unsealed word, forced as well, is
	 * the keyring step's to check, and asks for no signature */
	if (pf->r < 0 || !vi_policy_forced_modparams(&pf->policy))
		return;
	/* a dm_verity built in, or loaded before us, did not get the forced word: the policy's
	 * kernel-side guard would be missing, so the boot does not go on without it */
	if (vi_fileio_read_text_at(AT_FDCWD, REQUIRE_SIGNATURES_PARAM, val, sizeof(val)) < 0 || strcmp(val, "Y")) {
		a->pid1.kernel_guard_missing = true;
		return;
	}
	vi_kmsg_log(&a->log, KMSG_INFO, "dm_verity.require_signatures=Y, as the initramfs policy "
		 "requires (require_signature=kernel)");
}
