// SPDX-License-Identifier: LGPL-2.1-or-later
/* The dracut module's systemd generator (systemd.generator(7)), run by systemd in the
 * initramfs before any unit, through a link named verity-init-generator to the agent. When the
 * command line asks for a verity root it pulls verity-init-setup.service into
 * initrd-root-device.target and verity-init-pre-pivot.service in before the switch, and mounts
 * the mapping read-only on /sysroot (with a verified /usr, that mapping on /sysroot/usr; a
 * tmpfs on /sysroot under it with systemd.volatile=yes). Being the agent, it reads the line
 * with the same parser as setup and pre-pivot, without a shell: a generator holds up the start
 * of every unit, and dracut's shell library costs most of a second there in a slow guest.
 *
 * The units that must rank above those of systemd-fstab-generator (its sysroot.mount from
 * root=, never to be mounted unverified) go to the early directory. Nothing of the line reaches
 * a unit except the mapping's name and the mount options the agent accepted, escaped for the
 * unit file (include/unitname.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dracut-generator.h"
#include "dracutline.h"
#include "fileio.h"
#include "unitname.h"

#define UNIT_DIR       "/usr/lib/systemd/system"
#define DROPIN         "50-verity-init.conf"
#define REFUSE_SHELL   "/sbin/verity-init-dracut refuse-shell"
#define BEFORE_SHELL   "/sbin/verity-init-dracut before-shell"

/* The units that open a shell. The initramfs's systemd acts on rd.systemd.unit=emergency.target,
 * rd.systemd.debug_shell or rd.emergency before any job of ours runs: unless the policy allows
 * a shell, each first applies the policy's fail actions instead; where it allows one, each
 * first extends "dm-verity-fallback:shell" (dracut's rd.break breakpoints start
 * dracut-emergency.service), so that no shell runs with the PCR at a good boot's value. */
static const char *const shell_units[] = {
	"emergency.service", "rescue.service", "debug-shell.service", "dracut-emergency.service",
};

struct gen {
	struct vi_kmsg *log;
	int normal;   /* directory fds */
	int early;
	int r;        /* the first failure: the exit status */
};

/* The lines of one file. A file of the image the shell cannot open or read (a symlink loop,
 * a socket: `[ -e ]` is false or the redirection fails) adds nothing there, and getcmdline goes
 * on with the next one, so that file is skipped here too: the setup service reads the same
 * line. The kernel's line (kernel) is not skipped but an error: a refused line. */
static int read_part(int rootfd, const char *path, bool kernel, char *part, size_t size,
		     size_t *len)
{
	char buf[VI_MAX_CMDLINE + 1];
	size_t n = 0;
	int r;

	r = vi_fileio_read_file_at(rootfd, path, FILEIO_REGULAR, buf, sizeof(buf), &n);
	if (r == -EFBIG)
		return -E2BIG;
	if (r == -ENOENT || r == -EINVAL || r == -EISDIR || (r < 0 && !kernel))
		return 0;   /* not there, or nothing `read` takes a line from */
	if (r < 0)
		return r;
	return vi_dracut_line_append(part, size, len, buf, n);
}

/* the glob *.conf: no hidden file, something before ".conf" */
static bool conf_file(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 5 && !strcmp(name + n - 5, ".conf");
}

/* The .conf files of etc/cmdline.d in the glob's order (byte order in the initramfs's C
 * locale), one pass over the directory per file: there are a few, and nothing is kept. */
static int read_conf_dir(int rootfd, char *part, size_t size, size_t *len)
{
	char last[256] = "", next[256], path[300];
	struct dirent *d;
	DIR *dir;
	int fd, r = 0;

	/* a directory the glob cannot list matches nothing */
	fd = openat(rootfd, "etc/cmdline.d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -errno;
	}
	for (bool first = true; r == 0; first = false) {
		next[0] = '\0';
		rewinddir(dir);
		while ((d = readdir(dir))) {
			if (conf_file(d->d_name) && strlen(d->d_name) < sizeof(next) &&
			    (first || strcmp(d->d_name, last) > 0) &&
			    (!next[0] || strcmp(d->d_name, next) < 0))
				snprintf(next, sizeof(next), "%s", d->d_name);
		}
		if (!next[0])
			break;
		snprintf(path, sizeof(path), "etc/cmdline.d/%s", next);
		r = read_part(rootfd, path, false, part, size, len);
		memcpy(last, next, sizeof(last));
	}
	closedir(dir);
	return r;
}

int vi_dracut_getcmdline(int rootfd, char *line, size_t size)
{
	char etc_d[VI_MAX_CMDLINE + 1] = "", etc[VI_MAX_CMDLINE + 1] = "",
	     proc[VI_MAX_CMDLINE + 1] = "";
	size_t ld = 0, le = 0, lp = 0;
	int r;

	r = read_conf_dir(rootfd, etc_d, sizeof(etc_d), &ld);
	if (r == 0)
		r = read_part(rootfd, "etc/cmdline", false, etc, sizeof(etc), &le);
	if (r == 0)
		r = read_part(rootfd, "proc/cmdline", true, proc, sizeof(proc), &lp);
	if (r < 0)
		return r;
	if ((size_t)snprintf(line, size, "%s %s %s", etc_d, etc, proc) >= size)
		return -E2BIG;
	return 0;
}

static void gen_failed(struct gen *g, int r, const char *what)
{
	vi_kmsg_log(g->log, KMSG_ERR, "generator: cannot write %s: %s", what, strerror(-r));
	if (g->r == 0)
		g->r = r;
}

/* dir/[sub/]name holding text, replaced whole */
static void write_file(struct gen *g, int dir, const char *sub, const char *name, const char *text)
{
	char path[256];
	size_t len = strlen(text);
	int fd;

	if (sub && mkdirat(dir, sub, 0755) < 0 && errno != EEXIST)
		return gen_failed(g, -errno, sub);
	snprintf(path, sizeof(path), "%s%s%s", sub ? sub : "", sub ? "/" : "", name);
	fd = openat(dir, path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return gen_failed(g, -errno, path);
	errno = EIO;
	if (write(fd, text, len) != (ssize_t)len) {
		gen_failed(g, -errno, path);
		close(fd);
		return;
	}
	if (close(fd) < 0)
		gen_failed(g, -errno, path);
}

/* dir/[sub/]name removed, and sub with it when nothing else is in it (another generator may
 * have written there) */
static void unwrite(struct gen *g, int dir, const char *sub, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s%s%s", sub ? sub : "", sub ? "/" : "", name);
	if (unlinkat(dir, path, 0) < 0 && errno != ENOENT)
		return gen_failed(g, -errno, path);
	if (sub)
		(void)unlinkat(dir, sub, AT_REMOVEDIR);
}

static void dropin(struct gen *g, const char *unit, const char *text)
{
	char sub[128];

	snprintf(sub, sizeof(sub), "%s.d", unit);
	write_file(g, g->early, sub, DROPIN, text);
}

/* dir/target.requires/unit -> to */
static void require(struct gen *g, int dir, const char *target, const char *unit, const char *to)
{
	char sub[128], path[256];

	snprintf(sub, sizeof(sub), "%s.requires", target);
	snprintf(path, sizeof(path), "%s/%s", sub, unit);
	if (mkdirat(dir, sub, 0755) < 0 && errno != EEXIST)
		return gen_failed(g, -errno, sub);
	if (unlinkat(dir, path, 0) < 0 && errno != ENOENT)
		return gen_failed(g, -errno, path);
	if (symlinkat(to, dir, path) < 0)
		gen_failed(g, -errno, path);
}

/* Options= of a mount: the agent's flags (escaped) and ro. A value a unit file cannot hold is
 * left out (ro stays): the mount then goes on without it, still read-only and verified. */
static void mount_options(struct gen *g, const char *flags, char *out, size_t size)
{
	char esc[2 * VI_MAX_OPTIONS + 1];
	int r = flags[0] ? vi_unit_value_escape(flags, esc, sizeof(esc)) : -ENODATA;

	if (r < 0 && r != -ENODATA)
		vi_kmsg_log(g->log, KMSG_WARNING, "generator: mount options left out of the unit "
			    "(%s): mounting with ro alone", strerror(-r));
	snprintf(out, size, "%s%sro", r == 0 ? esc : "", r == 0 ? "," : "");
}

/* Type= of a mount: one type the agent accepted; a list is probed (Type= takes one) */
static const char *mount_type(const char *types)
{
	return !types[0] || strchr(types, ',') || strpbrk(types, "\\%\n") ? "auto" : types;
}

/* the mapping's mount unit: a mount of /dev/mapper/name, after setup and its device */
static void mapping_mount(struct gen *g, const char *unit, const char *comment, const char *before,
			  const char *after, const char *name, const char *where, const char *type,
			  const char *flags)
{
	char dev[VI_MAX_PATH], devunit[4 * VI_MAX_PATH], opts[2 * VI_MAX_OPTIONS + 16], text[8192];

	snprintf(dev, sizeof(dev), "/dev/mapper/%s", name);
	if (vi_unit_path_escape(dev, devunit, sizeof(devunit)) < 0)
		return gen_failed(g, -EINVAL, unit);   /* a mapping name the agent refuses */
	mount_options(g, flags, opts, sizeof(opts));
	if ((size_t)snprintf(text, sizeof(text),
		 "# generated by " VI_GENERATOR_NAME ": %s\n"
		 "[Unit]\n"
		 "Before=%s\n"
		 "Requires=%s.device\n"
		 "After=%s.device verity-init-setup.service%s\n"
		 "[Mount]\n"
		 "What=%s\n"
		 "Where=%s\n"
		 "Type=%s\n"
		 "Options=%s\n",
		 comment, before, devunit, devunit, after, dev, where, type, opts) >= sizeof(text))
		return gen_failed(g, -ENOBUFS, unit);
	write_file(g, g->early, NULL, unit, text);
}

static void generate(struct gen *g, const struct vi_config *cfg, bool refused)
{
	const char *name = refused || !cfg->root.name[0] ? "root" : cfg->root.name;
	const char *usr_name = cfg->usr.name[0] ? cfg->usr.name : "usr";

	for (size_t i = 0; i < sizeof(shell_units) / sizeof(shell_units[0]); i++) {
		char text[256];

		snprintf(text, sizeof(text), "# generated by " VI_GENERATOR_NAME ": %s\n[Service]\n"
			 "ExecStartPre=%s %s\n", cfg->shell_allowed ?
			 "the fallback measured before the shell" :
			 "the initramfs policy allows no shell",
			 cfg->shell_allowed ? BEFORE_SHELL : REFUSE_SHELL, shell_units[i]);
		dropin(g, shell_units[i], text);
	}

	require(g, g->normal, "initrd-root-device.target", "verity-init-setup.service",
		UNIT_DIR "/verity-init-setup.service");
	/* The check before the switch: pulled in with initrd.target, and required by what
	 * switches, so that no switch to /sysroot happens unless it ran and succeeded (a unit
	 * that fails or never ran fails the switch's job: the initramfs stays where it is). */
	require(g, g->normal, "initrd.target", "verity-init-pre-pivot.service",
		UNIT_DIR "/verity-init-pre-pivot.service");
	dropin(g, "initrd-cleanup.service",
	       "# generated by " VI_GENERATOR_NAME ": no switch without the check\n[Unit]\n"
	       "Requires=verity-init-pre-pivot.service\nAfter=verity-init-pre-pivot.service\n");
	dropin(g, "initrd-switch-root.service",
	       "# generated by " VI_GENERATOR_NAME ": no switch without the check\n[Unit]\n"
	       "Requires=verity-init-pre-pivot.service\nAfter=verity-init-pre-pivot.service\n");

	/* /sysroot is always the mapping, whatever root= says: rootfstype=/rootflags= as the
	 * agent accepted them (a refused line: none). With systemd.volatile=yes and a verified
	 * /usr, a tmpfs root; systemd-volatile-root, run for that key, keeps both (a tmpfs with
	 * that /usr), and verity-init-pre-pivot.service checks the result. */
	if (cfg->usr.enabled && cfg->layout == VI_LAYOUT_TMPFS_USR)
		write_file(g, g->early, NULL, "sysroot.mount",
			   "# generated by " VI_GENERATOR_NAME ": a tmpfs root over the verified "
			   "/usr\n[Unit]\nBefore=initrd-root-fs.target\n[Mount]\nWhat=tmpfs\n"
			   "Where=/sysroot\nType=tmpfs\nOptions=mode=0755,nosuid,nodev\n");
	else
		mapping_mount(g, "sysroot.mount", "the verified root, whatever root= says",
			      "initrd-root-fs.target", "", name, "/sysroot",
			      refused ? "auto" : mount_type(cfg->rootfstype),
			      refused ? "" : cfg->rootflags);
	require(g, g->early, "initrd-root-fs.target", "sysroot.mount", "../sysroot.mount");

	/* a verified /usr: its mapping on /sysroot/usr, in place of systemd-fstab-generator's
	 * unit for usrhash= */
	if (cfg->usr.enabled) {
		mapping_mount(g, "sysroot-usr.mount", "the verified /usr", "initrd-fs.target",
			      " sysroot.mount", usr_name, "/sysroot/usr", mount_type(cfg->usrfstype),
			      cfg->usrflags);
		require(g, g->early, "initrd-fs.target", "sysroot-usr.mount", "../sysroot-usr.mount");
	}

	/* systemd.volatile=overlay: the agent's pre-pivot stacks the overlay and checks that its
	 * upper layer is empty; systemd-volatile-root (which systemd-fstab-generator requires
	 * from initrd-root-fs.target) would stack one whose upper tmpfs it detaches, which could
	 * not be checked: its condition never holds here (a skipped unit satisfies Requires=) */
	if (cfg->volatile_mode == VI_VOLATILE_OVERLAY)
		dropin(g, "systemd-volatile-root.service",
		       "# generated by " VI_GENERATOR_NAME ": the overlay is stacked in "
		       "pre-pivot\n[Unit]\nConditionPathExists=!/\n");
}

static void unwrite_shell_dropins(struct gen *g)
{
	char sub[128];

	for (size_t i = 0; i < sizeof(shell_units) / sizeof(shell_units[0]); i++) {
		snprintf(sub, sizeof(sub), "%s.d", shell_units[i]);
		unwrite(g, g->early, sub, DROPIN);
	}
}

/* what generate() wrote for a refused line: for a line that asks for no verity root */
static void unwrite_all(struct gen *g)
{
	unwrite_shell_dropins(g);
	unwrite(g, g->normal, "initrd-root-device.target.requires", "verity-init-setup.service");
	unwrite(g, g->normal, "initrd.target.requires", "verity-init-pre-pivot.service");
	unwrite(g, g->early, "initrd-cleanup.service.d", DROPIN);
	unwrite(g, g->early, "initrd-switch-root.service.d", DROPIN);
	unwrite(g, g->early, "initrd-root-fs.target.requires", "sysroot.mount");
	unwrite(g, g->early, NULL, "sysroot.mount");
}

static int open_dir(const char *path)
{
	return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* dracut's command line under the directory root into line[0..size). 0 or a negative errno. */
static int read_cmdline(const char *root, char *line, size_t size)
{
	int rootfd = open_dir(root), r;

	if (rootfd < 0)
		return -errno;
	r = vi_dracut_getcmdline(rootfd, line, size);
	close(rootfd);
	return r;
}

/* `--print-cmdline`: the line the generator reads, on stdout. */
static int print_cmdline(const char *root)
{
	static char line[VI_MAX_CMDLINE + 1];
	int r = read_cmdline(root, line, sizeof(line));

	if (r < 0) {
		fprintf(stderr, "verity-init: cannot read the command line: %s\n", strerror(-r));
		return 1;
	}
	fputs(line, stdout);
	return fflush(stdout) == EOF ? 1 : 0;
}

int vi_dracut_generator_main(struct agent *a, int argc, char **argv, bool multicall)
{
	static char line[VI_MAX_CMDLINE + 1];
	static struct vi_config closed;
	const struct vi_config *cfg = &a->plan.cfg;
	struct gen g = { .log = &a->log, .normal = -1, .early = -1 };
	const char *root = "/";
	int i = 1, r;
	bool refused = false, print = false;

	for (; !multicall && i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--root") && i + 1 < argc)
			root = argv[++i];
		else if (!strcmp(argv[i], "--print-cmdline"))
			print = true;
		else
			break;
	}
	if (print ? argc != i : argc - i < 1 || argc - i > 3 || argv[i][0] != '/') {
		fputs("usage: " VI_GENERATOR_NAME " NORMAL-DIR [EARLY-DIR [LATE-DIR]]\n"
		      "       verity-init generator [--root DIR] NORMAL-DIR [EARLY-DIR [LATE-DIR]]\n"
		      "       verity-init generator [--root DIR] --print-cmdline\n", stderr);
		return 2;
	}
	if (print)
		return print_cmdline(root);
	g.normal = open_dir(argv[i]);
	g.early = argc - i > 1 ? open_dir(argv[i + 1]) : dup(g.normal);
	if (g.normal < 0 || g.early < 0) {
		gen_failed(&g, -errno, "the generator directories");
		goto out;
	}
	/* The units of a refused line before anything of the line is read: the parser runs in
	 * this process, and if the line made it die, those units must be what systemd finds (none
	 * would let systemd-fstab-generator mount root= unverified). */
	vi_config_init(&closed);
	generate(&g, &closed, true);
	r = read_cmdline(root, line, sizeof(line));
	if (r < 0) {
		/* setup reads the line again and applies the policy; here every unit is written
		 * as for a refused line (the policy's shell setting still read) */
		vi_kmsg_log(&a->log, KMSG_ERR, "generator: cannot read the command line: %s",
			    strerror(-r));
		refused = true;
		line[0] = '\0';
	}
	/* a refusal is the setup service's to log and act on (it reads the same line) */
	r = vi_agent_configure(a, line, false, NULL);
	if (r < 0) {
		refused = true;
	} else if (!refused) {
		/* systemd.verity=0, accepted only with allow_weak=verity-off; a line without a root
		 * hash: an image built with this module boots a verified root, so that is refused
		 * unless the policy allows it (A/B slots: the slot's manifest has the hash) */
		if (cfg->verity_disabled ||
		    (!cfg->root.enabled && !cfg->usr.enabled && !a->plan.slots &&
		     cfg->verity_off_allowed)) {
			unwrite_all(&g);
			goto out;
		}
		if (!cfg->root.enabled && !cfg->usr.enabled && !a->plan.slots)
			refused = true;
	}
	generate(&g, cfg, refused);
out:
	if (g.normal >= 0)
		close(g.normal);
	if (g.early >= 0)
		close(g.early);
	return g.r < 0 ? 1 : 0;
}
