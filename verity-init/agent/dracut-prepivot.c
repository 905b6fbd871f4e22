// SPDX-License-Identifier: LGPL-2.1-or-later
/* The dracut runtime's `pre-pivot` (dracut-mode.h) and `check-init`: the last look before dracut
 * switches to the root. The mappings must be the ones setup recorded (dracut-maprec.c), the
 * root on NEWROOT the verified mapping (or the layout of a verified /usr or of
 * systemd.volatile=overlay: dracut-layout.c), and its init, with systemd the service manager,
 * must read completely; else NEWROOT is unmounted, the mappings removed and the fail list
 * walked. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "agent.h"
#include "devices.h"
#include "dm.h"
#include "dracut-layout.h"
#include "dracut-maprec.h"
#include "dracut-mode.h"
#include "dracut-saved.h"
#include "maprec.h"
#include "mountroot.h"
#include "overlay.h"
#include "status.h"

/* opens dracut's emergency shell for the pre-pivot unit, then resumes the fail list */
#define DRACUT_SHELL_HELPER "/sbin/verity-init-dracut"

/* ROOT is the mapping NAME (or the device devno when not 0), a verity target the kernel has
 * verified so far, and init is read completely from it, not from a file system mounted inside
 * it. err says which check refused. */
static int root_check(const char *root, const char *name, dev_t devno, const char *init,
		      const char *const *also, struct vi_error *err)
{
	int r = 0;

	if (!devno) {
		struct vi_error why = { "" };

		r = vi_dracut_mapping_check(name, &devno, &why);
		if (r < 0)
			return vi_err(err, "%s is not the verified mapping: %s", root, why.msg);
	}
	r = vi_dracut_program_path(root, init, err);
	if (r >= 0)
		r = vi_init_check(root, init, devno, NULL, err);
	for (size_t i = 0; r == 0 && also && i < VI_DRACUT_ALSO_MAX && also[i]; i++) {
		r = vi_dracut_program_path(root, also[i], err);
		if (r > 0)
			r = vi_init_check(root, also[i], devno, NULL, err);
	}
	if (r == 0)
		r = vi_root_dirs_check(root, devno, err);
	return r;
}

/* systemd's switch-root without init= does not run /sbin/init: PID 1 executes the new root's
 * service manager at the path it was built with (SYSTEMD_BINARY_PATH: /lib/systemd/systemd on
 * Debian, /usr/lib/systemd/systemd elsewhere), and /sbin/init only when that cannot be executed.
 * systemctl takes init= from /proc/cmdline alone (not from dracut's /etc/cmdline.d, which the
 * saved line has), so whatever init= says, each of them the new root has is read through the
 * final layout as init is. */
static const char *const systemd_managers[VI_DRACUT_ALSO_MAX + 1] = {
	"/lib/systemd/systemd", "/usr/lib/systemd/systemd", NULL,
};

/* The layout on NEWROOT: the verified root alone (root_check), or a verified /usr or the
 * overlay of systemd.volatile=overlay (dracut-layout.c). A refusal is recorded. */
static int layout_check(struct agent *a, const char *newroot, const char *init, bool plain)
{
	const struct dracut_state *d = a->dracut;
	const char *const *also = d->systemd ? systemd_managers : NULL;
	const struct vi_config *cfg = &a->plan.cfg;
	struct vi_dracut_check c = { .stage = VI_STAGE_INIT };
	int r;

	if (plain || (!cfg->usr.enabled && cfg->volatile_mode != VI_VOLATILE_OVERLAY)) {
		r = root_check(newroot, cfg->root.name, 0, init, also, &c.err);
		snprintf(c.what, sizeof(c.what), "from the verified root");
	} else {
		r = vi_dracut_layout_check(cfg, newroot, init, also, &c);
	}
	if (r < 0)
		return vi_agent_fail_target(a, c.stage, c.usr ? &cfg->usr : &cfg->root, r, &c.err);
	vi_kmsg_log(&a->log, KMSG_NOTICE, "init %s read completely %s", init, c.what);
	return 0;
}

/* `pre-pivot` from the hook: the last look before dracut switches to NEWROOT. */
static int pre_pivot(struct agent *a, const char *cmdline, int resume)
{
	const struct dracut_state *d = a->dracut;
	const struct vi_config *cfg = &a->plan.cfg;
	const char *init = cfg->init;
	char text[VI_STATUS_MAX];
	struct vi_status st;
	bool refused, plain;

	refused = vi_agent_configure(a, cmdline, false, resume < 0 ? &a->failure : NULL) < 0;
	if (resume >= 0) {
		/* the plan with the recovery root's signature step, no failure to report */
		vi_agent_configure(a, cmdline, true, NULL);
		return vi_dracut_walk(a, (unsigned)resume);
	}
	if (d->saved_r < 0) {
		/* the line setup used is unknown: what was set up cannot be told */
		vi_agent_fail_target(a, VI_STAGE_CONFIG, &cfg->root, d->saved_r, &d->saved_err);
		vi_agent_log_failure(a);
		goto out_refuse;
	}
	if (refused) {
		/* switched to only when setup put the recovery root in its place, and then with
		 * the init dracut will run */
		if (d->other_init || !vi_dracut_recovery_marked(a) ||
		    vi_status_read(a->status_dir, text, sizeof(text), &st) < 0 || !st.booted[0]) {
			vi_agent_log_failure(a);
			goto out_refuse;
		}
		init = d->init && d->init[0] ? d->init : "/sbin/init";
	}
	/* the recovery root put in the root's place by setup: the verified root alone */
	plain = refused || vi_dracut_recovery_marked(a);
	if (vi_dracut_mappings_check(a, plain) == 0 &&
	    layout_check(a, d->newroot, init, plain) == 0) {
		a->failure.set = false;
		return vi_dracut_answer(a, "ok", "none", 0, EXIT_SUCCESS);
	}
	/* A/B: the slot setup booted is blamed as PID 1 blames it; the other one is the next
	 * boot's (the initramfs cannot set it up once dracut has mounted this one) */
	if (a->plan.slots && vi_status_read(a->status_dir, text, sizeof(text), &st) == 0 &&
	    st.slot) {
		a->slots = (struct vi_slot_boot){ .log = &a->log, .plan = &a->plan };
		snprintf(a->slots.skipped, sizeof(a->slots.skipped), "%s", st.skipped ? st.skipped : "");
		vi_slot_boot_failed_later(&a->slots, st.slot, a->failure.stage, a->failure.error,
					  a->failure.reason.msg);
	}
out_refuse:
	/* never switched to: nothing that is not the verified root stays on NEWROOT */
	vi_dracut_umount_tree(d->newroot);
	if (cfg->volatile_mode == VI_VOLATILE_OVERLAY)
		umount2(VI_OVERLAY_DIR, MNT_DETACH);
	vi_dracut_remove_mapping(a, cfg->root.name);
	if (cfg->usr.enabled)
		vi_dracut_remove_mapping(a, cfg->usr.name);
	vi_maprec_remove(a->status_dir);
	/* the plan with the recovery root's signature step; the failure found stays the one
	 * reported */
	vi_agent_configure(a, cmdline, true, NULL);
	return vi_dracut_walk(a, 0);
}

/* `pre-pivot --saved-cmdline`: verity-init-pre-pivot.service. The shell the fail list may reach
 * is dracut's, opened by its library: handed over to the module's script with the list's next
 * entry, as the hook's loop does after exit 3. */
static int saved_pre_pivot(struct agent *a, struct dracut_state *d)
{
	char next[16];
	int r;

	d->saved_r = vi_dracut_read_saved_cmdline(a->status_dir, d->line, sizeof(d->line),
						  &d->saved_err);
	if (d->saved_r == 0) {
		d->saved_r = vi_dracut_init_words(d->line, d->saved_init, sizeof(d->saved_init),
						  &d->other_init);
		if (d->saved_r < 0)
			vi_err(&d->saved_err, "init= of the command line setup used: %s",
			       strerror(-d->saved_r));
		d->init = d->saved_init;
	}
	r = pre_pivot(a, d->saved_r == 0 ? d->line : NULL, -1);
	if (r != EXIT_SHELL)
		return r;
	snprintf(next, sizeof(next), "%u", d->shell_next);
	execl(DRACUT_SHELL_HELPER, DRACUT_SHELL_HELPER, "pre-pivot-shell", next, (char *)NULL);
	vi_kmsg_log(&a->log, KMSG_ERR, "cannot run %s for the fallback shell: %s",
		    DRACUT_SHELL_HELPER, strerror(errno));
	return EXIT_FAILURE;
}

/* `pre-pivot --newroot DIR ...` from the hook, or `--saved-cmdline` from the systemd unit */
int vi_dracut_pre_pivot(struct agent *a, const struct dracut_args *o)
{
	struct dracut_state *d = a->dracut;

	if (!d->newroot || o->fallback)
		return -EINVAL;
	if (!d->saved_cmdline)
		return pre_pivot(a, o->cmdline, o->resume);
	if (!d->systemd || o->cmdline || d->init || d->other_init || o->resume >= 0)
		return -EINVAL;
	return saved_pre_pivot(a, d);
}

/* `check-init`: the module's check by itself (tests, a hand-run check). */
int vi_dracut_check_init(int argc, char **argv)
{
	const char *name = VI_DEFAULT_NAME, *device = NULL, *init = "/sbin/init", *root = NULL;
	struct vi_error err = { "" };
	dev_t devno = 0;
	bool name_given = false;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--name") && i + 1 < argc) {
			name = argv[++i];
			name_given = true;
		} else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
			device = argv[++i];
		} else if (!strcmp(argv[i], "--init") && i + 1 < argc) {
			init = argv[++i];
		} else if (argv[i][0] != '-' && !root) {
			root = argv[i];
		} else {
			return -EINVAL;
		}
	}
	if (!root || (device && name_given))
		return -EINVAL;
	vi_dm_init(VI_DM_NODES_SELF);
	if (device && (!vi_parse_majmin(device, &devno) || !devno)) {
		fprintf(stderr, "verity-init: --device %s: not MAJ:MIN\n", device);
		return EXIT_FAILURE;
	}
	if (root_check(root, name, devno, init, NULL, &err) < 0) {
		fprintf(stderr, "verity-init: %s\n", err.msg);
		return EXIT_FAILURE;
	}
	return 0;
}
