// SPDX-License-Identifier: LGPL-2.1-or-later
/* The agent's own records for the cli tests, written by the library functions the agent writes
 * them with, so that a test of a reader (`managed mark-good`, `slot`, RAUC's backend) never
 * holds a hand-written copy that can drift from what a boot leaves:
 *
 *   agent_records status DIR booted HASH [SLOT STORE]
 *       the status file of a boot that switched to the root with root hash HASH (and, A/B,
 *       slot SLOT from store STORE; SLOT "-": none booted): the agent's VI_STATUS_RESULT_OK,
 *       VI_STATUS_ACTION_NONE
 *   agent_records status DIR recovery FAILED HASH [SLOT STORE]
 *       the root with root hash FAILED failed its init check; the recovery root with root
 *       hash HASH runs instead
 *   agent_records status DIR failed FAILED ACTION [SLOT STORE]
 *       the root with root hash FAILED failed its init check, the fail action ACTION was taken
 *   agent_records managed-var DIR HASH restart|degraded [BOOTS]
 *       the agent's EFI variable (efivarfs's form) in DIR
 *   agent_records slot-ran STORE SLOT MAJ:MIN HASH
 *       the store's state with the ran record the agent writes when it takes SLOT's try
 *
 * Built by the tests against $BUILD/libverity.a. Exit 0, or 1 with a reason on stderr. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "config.h"
#include "devices.h"
#include "failure.h"
#include "hex.h"
#include "managed.h"
#include "managedio.h"
#include "slots.h"
#include "status.h"

static int usage(void)
{
	fputs("usage: agent_records status DIR booted HASH [SLOT STORE]\n"
	      "       agent_records status DIR recovery FAILED HASH [SLOT STORE]\n"
	      "       agent_records status DIR failed FAILED ACTION [SLOT STORE]\n"
	      "       agent_records managed-var DIR HASH restart|degraded [BOOTS]\n"
	      "       agent_records slot-ran STORE SLOT MAJ:MIN HASH\n", stderr);
	return 2;
}

static int hash_arg(const char *hex, uint8_t *out, unsigned *ret_len)
{
	size_t len = 0;

	if (vi_hex_decode(hex, strlen(hex), out, VERITY_MAX_DIGEST, &len) < 0 || !len) {
		fprintf(stderr, "agent_records: %s: not a root hash\n", hex);
		return -EINVAL;
	}
	*ret_len = (unsigned)len;
	return 0;
}

static int status_cmd(int argc, char **argv)
{
	static struct vi_target root = { .enabled = true, .name = "root" };
	static struct vi_target recovery = { .enabled = true, .name = "root" };
	struct vi_failure f = { .set = false };
	struct vi_status_hashes hashes;
	struct vi_error err = { "" };
	const struct vi_target *booted = NULL;
	const char *result, *action;
	struct vi_status st;
	int slot_at;

	if (!strcmp(argv[3], "booted")) {
		if ((argc != 5 && argc != 7) ||
		    hash_arg(argv[4], root.root_hash, &root.root_hash_len) < 0)
			return usage();
		booted = &root;
		result = VI_STATUS_RESULT_OK;
		action = VI_STATUS_ACTION_NONE;
		slot_at = 5;
	} else if (!strcmp(argv[3], "recovery") || !strcmp(argv[3], "failed")) {
		bool rec = !strcmp(argv[3], "recovery");

		if ((argc != 6 && argc != 8) ||
		    hash_arg(argv[4], root.root_hash, &root.root_hash_len) < 0 ||
		    (rec && hash_arg(argv[5], recovery.root_hash, &recovery.root_hash_len) < 0))
			return usage();
		vi_err(&err, "init not found on the root");
		vi_failure_set(&f, VI_STAGE_INIT, &root, -ENOENT, "root", &err);
		booted = rec ? &recovery : NULL;
		result = VI_STATUS_RESULT_FAILED;
		action = rec ? VI_STATUS_ACTION_RECOVERY : argv[5];
		slot_at = 6;
	} else {
		return usage();
	}
	vi_status_from_failure(result, action, &f, booted, &hashes, &st);
	/* SLOT "-": an A/B boot that booted no slot (store= alone) */
	if (argc == slot_at + 2)
		vi_status_set_slot(&st, strcmp(argv[slot_at], "-") ? argv[slot_at] : NULL,
				   argv[slot_at + 1]);
	if (vi_status_write(argv[2], &st, &err) < 0) {
		fprintf(stderr, "agent_records: %s\n", err.msg);
		return 1;
	}
	return 0;
}

static int managed_var_cmd(int argc, char **argv)
{
	struct vi_managed_record rec = { .degraded = false };
	struct vi_error err = { "" };

	if (argc != 5 && argc != 6)
		return usage();
	if (hash_arg(argv[3], rec.root_hash, &rec.root_hash_len) < 0)
		return 1;
	if (!strcmp(argv[4], "degraded"))
		rec.degraded = true;
	else if (strcmp(argv[4], "restart"))
		return usage();
	if (argc == 6) {
		char *end;
		unsigned long boots = strtoul(argv[5], &end, 10);

		if (*end || end == argv[5] || boots > VI_MANAGED_BOOTS_MAX)
			return usage();
		rec.boots = (unsigned)boots;
	}
	if (vi_managed_var_write(argv[2], &rec, &err) < 0) {
		fprintf(stderr, "agent_records: %s\n", err.msg);
		return 1;
	}
	return 0;
}

static int slot_ran_cmd(int argc, char **argv)
{
	struct vi_slots_store st;
	struct vi_error err = { "" };
	struct vi_slots next;
	dev_t data;
	int fd, i, r;

	if (argc != 6 || !vi_parse_majmin(argv[4], &data))
		return usage();
	fd = open(argv[2], O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[2]);
		return 1;
	}
	r = vi_slots_store_read(fd, VI_SLOTS_DEFAULT_COUNT, &st, &err);
	next = st.state;
	i = r < 0 ? r : vi_slot_index(&next, argv[3]);
	if (i >= 0) {
		next.ran = (struct vi_slot_ran){ .set = true, .slot = (unsigned)i, .major = major(data),
						 .minor = minor(data) };
		r = hash_arg(argv[5], next.ran.root_hash, &next.ran.root_hash_len);
		if (r == 0)
			r = vi_slots_store_write(fd, &st, &next, &err);
	}
	close(fd);
	if (i < 0 || r < 0) {
		fprintf(stderr, "agent_records: %s\n", err.msg[0] ? err.msg : "no such slot");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return usage();
	if (!strcmp(argv[1], "status"))
		return status_cmd(argc, argv);
	if (!strcmp(argv[1], "managed-var"))
		return managed_var_cmd(argc, argv);
	if (!strcmp(argv[1], "slot-ran"))
		return slot_ran_cmd(argc, argv);
	return usage();
}
