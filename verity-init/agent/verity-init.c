// SPDX-License-Identifier: LGPL-2.1-or-later
/* verity-init: the dm-verity boot agent. main() and its verbs; the work is in lib/.
 *
 *   /init (PID 1)       mount API filesystems, load modules, set up the verity root, mount it
 *                       read-only, check its init, switch root and exec init; on any failure
 *                       write /run/verity-init/status and take the verity.fail= actions
 *                       (pid1-early.c, pid1-boot.c).
 *   setup [--cmdline S] create the mapping only; 0 when /dev/mapper/NAME is ready.
 *   setup --fallback, fail, before-shell, pre-pivot   the dracut runtime (dracut-mode.c).
 *   parse [--cmdline S] [--shell]   print the resolved configuration; touches no device.
 *   generator DIR...    (or run as verity-init-generator) the dracut module's systemd
 *                       generator (dracut-generator.c).
 *   status [--json] [NAME]   the mapping's table, the kernel's verdict, the status file and
 *                       the corruption the monitor recorded.
 *   monitor, scrub      verification failures on the running system (runtime.c).
 *   check-init ...      the dracut module's check of a root by itself (dracut-prepivot.c).
 *   slot ...            the A/B slot store from the running system (slot-cmd.c).
 *   managed mark-good   a degraded boot came up (managed recovery; managed-boot.c).        */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "activate.h"
#include "agent.h"
#include "config_print.h"
#include "corruption.h"
#include "dm.h"
#include "dracut-generator.h"
#include "fileio.h"
#include "kmsg.h"
#include "policy.h"
#include "runtime.h"
#include "slot-cmd.h"
#include "status.h"
#include "strutil.h"

/* `setup`: create the mapping and stop; the failure on stderr (the dracut runtime's
 * `setup --fallback` applies the fail list instead: dracut-mode.c). The records go to the
 * kernel log only: stderr gets the one line. */
static int run_setup(struct agent *a, const char *cmdline)
{
	const struct vi_target *root = &a->plan.cfg.root, *usr = &a->plan.cfg.usr;
	const struct vi_target *t = root;
	struct vi_activation act, uact;
	struct vi_error ignored;
	int r;

	vi_kmsg_open(&a->log, -1);
	r = vi_agent_configure(a, cmdline, true, &a->failure);
	if (r < 0) {
		vi_agent_log_failure(a);
		if (!a->plan.trusted) {
			/* refused before any device was read */
			fprintf(stderr, "verity-init: %s\n", a->failure.reason.msg);
			return EXIT_FAILURE;
		}
	} else {
		vi_dm_init(access("/run/udev/control", F_OK) == 0 ? VI_DM_NODES_UDEV
								  : VI_DM_NODES_SELF);
		/* a verified /usr after the root, either may be all there is */
		r = root->enabled ? vi_agent_activate(a, root, &act) : 0;
		if (r == 0 && usr->enabled) {
			t = usr;
			r = vi_agent_activate(a, usr, &uact);
			if (r < 0 && root->enabled && !act.reused)
				vi_dm_remove(root->name, &ignored);
		}
	}
	if (r < 0) {
		vi_agent_write_status(a, VI_STATUS_RESULT_FAILED, VI_STATUS_ACTION_NONE, NULL);
		fprintf(stderr, "verity-init: %s: %s: %s\n", t->name,
			vi_stage_name(a->failure.stage), a->failure.reason.msg);
		return EXIT_FAILURE;
	}
	vi_agent_write_status(a, VI_STATUS_RESULT_OK, VI_STATUS_ACTION_NONE,
			      root->enabled ? root : usr);
	if (root->enabled)
		printf("%s\n", act.node);
	if (usr->enabled)
		printf("%s\n", uact.node);
	return EXIT_SUCCESS;
}

/* For the dracut hooks: the environment names the policy lets the command line give init. */
static void print_init_env(const struct vi_policy *p)
{
	printf("VERITY_INIT_ENV='");
	for (unsigned i = 0; i < p->init_env_count; i++)
		printf("%s%s", i ? " " : "", p->init_env[i]);   /* [A-Z0-9_] only: policy.c */
	printf("'\n");
}

/* `parse`: the plan without its device steps (no signature is read), printed. */
static int run_parse(struct agent *a, const char *cmdline, bool shell)
{
	int r;

	r = vi_agent_configure(a, cmdline, false, &a->failure);

	if (shell)
		print_init_env(&a->plan.policy);
	if (shell && a->plan.slots)
		puts("VERITY_SLOTS=1");   /* the root comes from a slot: no root hash on the line */

	if (r < 0) {
		/* the one line for this refusal */
		fprintf(stderr, "verity-init: %s\n", a->failure.reason.msg);
		/* for the dracut hooks: what applies instead (defaults + the policy's fail actions) */
		if (shell)
			vi_config_print(stdout, &a->plan.cfg, VI_PRINT_SHELL);
		return EXIT_FAILURE;
	}
	return vi_config_print(stdout, &a->plan.cfg, shell ? VI_PRINT_SHELL : VI_PRINT_KV) < 0
		       ? EXIT_FAILURE
		       : EXIT_SUCCESS;
}

/* The status file's lines as JSON members: every KEY=VALUE line, whatever its key. */
static void status_file_json(char *file)
{
	bool first = true;

	putchar('{');
	for (char *p = strtok(file, "\n"); p; p = strtok(NULL, "\n")) {
		char *eq = strchr(p, '=');

		if (!eq || eq == p)
			continue;
		*eq = '\0';
		if (!first)
			putchar(',');
		first = false;
		vi_json_quote(stdout, p);
		putchar(':');
		vi_json_quote(stdout, eq + 1);
	}
	putchar('}');
}

static int run_status(const char *name, bool json)
{
	struct vi_error err = { "" };
	char type[32], table[VI_TABLE_MAX], status[128], file[2048];
	uint64_t sectors = 0, fec = UINT64_MAX;
	bool mapped, corrupted = false;
	const char *verdict = "unknown";
	int rc = EXIT_SUCCESS;

	vi_dm_init(VI_DM_NODES_SELF);
	mapped = vi_dm_table(name, type, sizeof(type), table, sizeof(table), &sectors, &err) == 0 &&
		 vi_dm_status(name, status, sizeof(status), &err) == 0;
	if (!mapped) {
		fprintf(stderr, "verity-init: %s\n", err.msg);
		rc = EXIT_FAILURE;
	} else {
		bool verity = !strcmp(type, "verity");

		if (verity && vi_corruption_status(status, strlen(status), &corrupted, &fec) == 0)
			verdict = corrupted ? "corruption detected" : "verified";
		else if (status[0] == 'C')
			verdict = "corruption detected";
		if (!verity || strcmp(verdict, "verified"))
			rc = EXIT_FAILURE;
	}
	if (vi_fileio_read_text_at(AT_FDCWD, VI_STATUS_DIR "/" VI_STATUS_FILE, file, sizeof(file)) < 0)
		file[0] = '\0';
	if (json) {
		fputs("{\"name\":", stdout);
		vi_json_quote(stdout, name);
		fputs(",\"mapping\":", stdout);
		if (mapped) {
			fputs("{\"target\":", stdout);
			vi_json_quote(stdout, type);
			printf(",\"sectors\":%llu,\"table\":", (unsigned long long)sectors);
			vi_json_quote(stdout, table);
			fputs(",\"kernel_status\":", stdout);
			vi_json_quote(stdout, status);
			printf(",\"verdict\":\"%s\",\"fec_corrected\":", verdict);
			if (fec != UINT64_MAX)
				printf("%llu}", (unsigned long long)fec);
			else
				fputs("null}", stdout);
		} else {
			fputs("null", stdout);
		}
		fputs(",\"agent\":", stdout);
		status_file_json(file);
		fputs(",\"corruption\":", stdout);
		vi_corruption_print(stdout, VI_STATUS_DIR, true);
		puts("}");
		return rc;
	}
	if (!mapped) {
		printf("name=%s\nmapping=absent\n", name);
	} else {
		printf("name=%s\ntarget=%s\nsectors=%llu\ntable=%s\n", name, type,
		       (unsigned long long)sectors, table);
		printf("kernel_status=%s\nverdict=%s\n", status, verdict);
		if (fec != UINT64_MAX)
			printf("fec_corrected=%llu\n", (unsigned long long)fec);
	}
	if (file[0]) {
		char line[sizeof(file)];

		/* re-sanitized: the file may not have been written by us */
		for (char *p = strtok(file, "\n"); p; p = strtok(NULL, "\n")) {
			vi_sanitize(p, strlen(p), line, sizeof(line));
			printf("agent.%s\n", line);
		}
	}
	vi_corruption_print(stdout, VI_STATUS_DIR, false);
	return rc;
}

static void usage(FILE *f)
{
	fputs("Usage: verity-init                       (as /init, PID 1)\n"
	      "       verity-init setup [--cmdline STRING]\n"
	      "       verity-init setup --fallback | fail | before-shell | pre-pivot ...\n"
	      "                                         (the dracut module)\n"
	      "       verity-init parse [--cmdline STRING] [--shell]\n"
	      "       verity-init generator [--root DIR] NORMAL [EARLY [LATE]] | --print-cmdline\n"
	      "       verity-init status [--json] [NAME]\n"
	      "       verity-init monitor [--state-dir DIR]   (corruption reports; a service)\n"
	      "       verity-init scrub [--quiet] [NAME]      (read every block of a mapping)\n"
	      "       verity-init managed mark-good           (a degraded boot came up: managed recovery)\n"
	      "       verity-init check-init [--name NAME | --device MAJ:MIN] [--init PATH] ROOT\n"
	      "       verity-init slot [--store DEV] VERB ...   (A/B slots; verity-init slot --help)\n"
	      "       verity-init --help | --version\n"
	      "See verity-init(8).\n",
	      f);
}

static int usage_error(void)
{
	usage(stderr);
	return 2;
}

/* `setup [--cmdline STRING]`; with --fallback the dracut runtime's setup. */
static int cmd_setup(struct agent *a, int argc, char **argv)
{
	const char *cmdline = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--fallback"))
			return vi_dracut_main(a, argc, argv);
		if (strcmp(argv[i], "--cmdline") || i + 1 == argc)
			return usage_error();
		cmdline = argv[++i];
	}
	return run_setup(a, cmdline);
}

/* `parse [--cmdline STRING] [--shell]` */
static int cmd_parse(struct agent *a, int argc, char **argv)
{
	const char *cmdline = NULL;
	bool shell = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cmdline") && i + 1 < argc)
			cmdline = argv[++i];
		else if (!strcmp(argv[i], "--shell"))
			shell = true;
		else
			return usage_error();
	}
	return run_parse(a, cmdline, shell);
}

/* `status [--json] [NAME]` */
static int cmd_status(struct agent *a, int argc, char **argv)
{
	const char *name = VI_DEFAULT_NAME;
	bool json = false;
	int n = 0;

	(void)a;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (argv[i][0] != '-' && !n++)
			name = argv[i];
		else
			return usage_error();
	}
	return run_status(name, json);
}

static int cmd_monitor(struct agent *a, int argc, char **argv)
{
	(void)a;
	return vi_monitor_main(argc, argv);
}

static int cmd_scrub(struct agent *a, int argc, char **argv)
{
	(void)a;
	return vi_scrub_main(argc, argv);
}

/* `check-init [--name NAME | --device MAJ:MIN] [--init PATH] ROOT` (dracut-prepivot.c) */
static int cmd_check_init(struct agent *a, int argc, char **argv)
{
	int r = vi_dracut_check_init(argc, argv);

	(void)a;
	return r < 0 ? usage_error() : r;
}

static int cmd_generator(struct agent *a, int argc, char **argv)
{
	return vi_dracut_generator_main(a, argc, argv, false);
}

static int cmd_slot(struct agent *a, int argc, char **argv)
{
	(void)a;
	return vi_slot_cmd_main(argc, argv);
}

static int cmd_managed(struct agent *a, int argc, char **argv)
{
	(void)a;
	return vi_managed_cmd_main(argc, argv);
}

/* The verbs: argv[0] is the verb; each returns the exit code. */
static const struct verb {
	const char *name;
	int (*run)(struct agent *a, int argc, char **argv);
} verbs[] = {
	{ "setup", cmd_setup },
	{ "parse", cmd_parse },
	{ "status", cmd_status },
	{ "check-init", cmd_check_init },
	{ "generator", cmd_generator },
	{ "slot", cmd_slot },
	{ "monitor", cmd_monitor },
	{ "scrub", cmd_scrub },
	{ "managed", cmd_managed },
	/* the dracut runtime's (dracut-mode.c), as `setup --fallback` */
	{ "fail", vi_dracut_main },
	{ "before-shell", vi_dracut_main },
	{ "pre-pivot", vi_dracut_main },
};

int main(int argc, char **argv)
{
	/* zero-initialised (bss): an initialiser would put the whole structure, some 22 KiB of
	 * zeros, into the static program's file */
	static struct agent a;
	const struct vi_kmsg log = KMSG_INIT;

	a.log = log;
	a.status_dir = VI_STATUS_DIR;
	if (getpid() == 1)
		return vi_pid1_main(&a, argc, argv);
	if (argc > 0) {
		const char *base = strrchr(argv[0], '/');

		if (!strcmp(base ? base + 1 : argv[0], VI_GENERATOR_NAME))
			return vi_dracut_generator_main(&a, argc, argv, true);
	}
	if (argc < 2)
		return usage_error();
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		puts("verity-init " VERITY_INIT_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(argv[1], verbs[i].name))
			return verbs[i].run(&a, argc - 1, argv + 1);
	return usage_error();
}
