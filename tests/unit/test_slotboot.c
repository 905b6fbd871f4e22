// SPDX-License-Identifier: LGPL-2.1-or-later
/* The A/B boot step's decisions (lib/boot/slots.c), the policy's slot keys and the plan's
 * A/B refusals (lib/boot/plan.c): layout, the decision sequence over struct vi_slots (pick,
 * version floor, try, mark bad, next slot), the skipped= list. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "plan.h"
#include "policy.h"
#include "slots.h"

#ifndef KEYS_SRC
#define KEYS_SRC "tests/vm/keys/test.pub"
#endif

static int parse(const char *text, struct vi_policy *p, struct vi_error *err)
{
	return vi_policy_parse(text, strlen(text), p, err);
}

static void test_policy_slot_keys(void **state)
{
	struct vi_policy p;
	struct vi_error err;

	(void)state;
	assert_int_equal(parse("", &p, &err), 0);
	assert_int_equal(p.slot_count, 0);
	assert_string_equal(p.slot_store, "PARTLABEL=verity-slots");
	assert_string_equal(p.slot_prefix, "root-");
	assert_int_equal(parse("slots=a,b\nslot_store=PARTUUID=0fc63daf-8483-4772-8e79-"
			       "3d69d8477de4\nslot_prefix=os_\n", &p, &err), 0);
	assert_int_equal(p.slot_count, 2);
	assert_string_equal(p.slot_store, "PARTUUID=0fc63daf-8483-4772-8e79-3d69d8477de4");
	assert_string_equal(p.slot_prefix, "os_");
	assert_int_equal(parse("slots=a,b,c,d\n", &p, &err), 0);
	assert_int_equal(p.slot_count, 4);
	assert_int_equal(parse("slots=none\n", &p, &err), 0);
	assert_int_equal(p.slot_count, 0);
	/* refused: other names, one slot, gaps, a bad store, a label prefix a shell or GPT
	 * could not take */
	static const char *const bad[] = {
		"slots=a\n", "slots=b,a\n", "slots=a,c\n", "slots=a,b,c,d,e\n", "slots=A,B\n",
		"slots=a,b,\n", "slot_store=\n", "slot_store=/dev/../vda\n",
		"slot_store=PARTLABEL=x y\n", "slot_prefix=\n", "slot_prefix=root a\n",
		"slot_prefix=$(reboot)\n", "slot_prefix=abcdefghijklmnopqrstuvwxyz012\n",
		"slots=a,b\nslots=a,b,c\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i], &p, &err) == 0)
			fail_msg("accepted: %s", bad[i]);
	}
	assert_int_equal(parse("slot_prefix=abcdefghijklmnopqrstuvwxyz01\n", &p, &err), 0);
}

static void test_layout(void **state)
{
	struct vi_policy p;
	struct vi_config base, c;
	struct vi_error err;

	(void)state;
	vi_policy_init(&p);
	p.slot_count = 2;
	vi_config_init(&base);
	snprintf(base.root.name, sizeof(base.root.name), "%s", "sysroot");
	base.root.opts.corruption = VI_CORRUPT_RESTART;
	assert_int_equal(vi_slot_layout(&p, 1, &base, &c, &err), 0);
	assert_true(c.root.enabled);
	assert_int_equal(c.root.root_hash_len, 0);
	assert_string_equal(c.root.data.spec, "PARTLABEL=root-b");
	assert_string_equal(c.root.hash.spec, "PARTLABEL=root-b-verity");
	assert_string_equal(c.manifest, "PARTLABEL=root-b-verity");
	/* what the base gave stays: name, options (the plan refuses verity options from the
	 * command line with slots=: test_plan_refusals) */
	assert_string_equal(c.root.name, "sysroot");
	assert_int_equal(c.root.opts.corruption, VI_CORRUPT_RESTART);
	assert_int_equal(vi_slot_layout(&p, 0, &base, &c, &err), 0);
	assert_string_equal(c.root.data.spec, "PARTLABEL=root-a");
	/* a slot the policy does not have */
	assert_int_equal(vi_slot_layout(&p, 2, &base, &c, &err), -EINVAL);
	assert_int_equal(vi_slot_layout(&p, 99, &base, &c, &err), -EINVAL);
}

/* The agent's sequence: a fails before the switch, b is set up in the same boot. */
static void test_sequence_fallback(void **state)
{
	struct vi_slots s;
	struct vi_error err;

	(void)state;
	vi_slots_defaults(&s, 2);
	assert_int_equal(vi_slots_pick(&s, 0), 0);
	assert_int_equal(vi_slots_admit(&s, 0, 3, &err), 0);
	assert_int_equal(s.slot[0].tries, VI_SLOT_TRIES_DEFAULT - 1);
	assert_int_equal(s.slot[0].version, 3);
	assert_int_equal(vi_slots_record_failure(&s, 0, VI_SLOT_BLAME_CONTENT, true, "preflight",
					     "root hash mismatch"), 0);
	assert_string_equal(s.slot[0].reason, "preflight: root hash mismatch");
	assert_false(vi_slot_bootable(&s.slot[0]));
	assert_int_equal(vi_slots_pick(&s, 1u << 0), 1);
	assert_int_equal(vi_slots_admit(&s, 1, 3, &err), 0);
	assert_int_equal(vi_slots_record_failure(&s, 1, VI_SLOT_BLAME_CONTENT, true, "init",
					     "no /sbin/init"), 0);
	assert_int_equal(vi_slots_pick(&s, 3), -ENOENT);
}

/* Whom each failure is blamed on: the content only for what the slot's verified data alone
 * decides; never for what the command line, a device or the kernel can cause. */
static void test_blame(void **state)
{
	static const enum vi_stage content[] = {
		VI_STAGE_SUPERBLOCK, VI_STAGE_SIZES, VI_STAGE_PREFLIGHT, VI_STAGE_INIT,
	};
	static const enum vi_stage boot[] = {
		VI_STAGE_CONFIG, VI_STAGE_DEVICES, VI_STAGE_ACTIVATE, VI_STAGE_STATUS,
		VI_STAGE_SWITCH, VI_STAGE_MEASURE, VI_STAGE_IPE,
	};
	struct vi_config c;

	(void)state;
	vi_config_init(&c);
	for (size_t k = 0; k < sizeof(content) / sizeof(content[0]); k++)
		assert_int_equal(vi_slot_setup_blame(content[k], -EPERM, &c), VI_SLOT_BLAME_CONTENT);
	for (size_t k = 0; k < sizeof(boot) / sizeof(boot[0]); k++) {
		assert_int_equal(vi_slot_setup_blame(boot[k], -EPERM, &c), VI_SLOT_BLAME_BOOT);
		assert_int_equal(vi_slot_setup_blame(boot[k], -ENOTUNIQ, &c), VI_SLOT_BLAME_BOOT);
	}
	/* the tree's checks: a read error or a hash the kernel cannot do is not the data */
	assert_int_equal(vi_slot_setup_blame(VI_STAGE_PREFLIGHT, -EIO, &c), VI_SLOT_BLAME_BOOT);
	assert_int_equal(vi_slot_setup_blame(VI_STAGE_PREFLIGHT, -ENOPROTOOPT, &c),
			 VI_SLOT_BLAME_BOOT);
	assert_int_equal(vi_slot_setup_blame(VI_STAGE_SUPERBLOCK, -ENOMEM, &c), VI_SLOT_BLAME_BOOT);
	/* the mount: a verity read error is the data; an option refused, a missing module not */
	assert_int_equal(vi_slot_setup_blame(VI_STAGE_MOUNT, -EIO, &c), VI_SLOT_BLAME_CONTENT);
	assert_int_equal(vi_slot_setup_blame(VI_STAGE_MOUNT, -EINVAL, &c), VI_SLOT_BLAME_BOOT);
	assert_int_equal(vi_slot_setup_blame(VI_STAGE_MOUNT, -ENODEV, &c), VI_SLOT_BLAME_BOOT);
	/* ... and nothing of the mount or init once the command line shaped them */
	snprintf(c.rootflags, sizeof(c.rootflags), "%s", "errors=bogus");
	assert_int_equal(vi_slot_setup_blame(VI_STAGE_MOUNT, -EIO, &c), VI_SLOT_BLAME_BOOT);
	assert_int_equal(vi_slot_setup_blame(VI_STAGE_INIT, -ENOENT, &c), VI_SLOT_BLAME_BOOT);
	assert_int_equal(vi_slot_setup_blame(VI_STAGE_PREFLIGHT, -EPERM, &c),
			 VI_SLOT_BLAME_CONTENT);
	vi_config_init(&c);
	c.init_given = true;
	assert_int_equal(vi_slot_setup_blame(VI_STAGE_INIT, -ENOENT, &c), VI_SLOT_BLAME_BOOT);
	vi_config_init(&c);
	snprintf(c.rootfstype, sizeof(c.rootfstype), "%s", "erofs");
	assert_int_equal(vi_slot_setup_blame(VI_STAGE_MOUNT, -EIO, &c), VI_SLOT_BLAME_BOOT);
	vi_config_init(&c);
	c.volatile_mode = VI_VOLATILE_OVERLAY;
	assert_int_equal(vi_slot_setup_blame(VI_STAGE_INIT, -EIO, &c), VI_SLOT_BLAME_BOOT);
	/* the signature step, its devices found: the manifest is the slot's */
	assert_int_equal(vi_slot_manifest_blame(-EPERM), VI_SLOT_BLAME_CONTENT);
	assert_int_equal(vi_slot_manifest_blame(-EINVAL), VI_SLOT_BLAME_CONTENT);
	assert_int_equal(vi_slot_manifest_blame(-ENOENT), VI_SLOT_BLAME_CONTENT);
	assert_int_equal(vi_slot_manifest_blame(-EIO), VI_SLOT_BLAME_BOOT);
	assert_int_equal(vi_slot_manifest_blame(-ENOMEM), VI_SLOT_BLAME_BOOT);
}

/* A command line that makes every mount fail (rootflags=): each slot is set up once per boot
 * and loses one try, never all of them: the next boot still has both. A slot that keeps
 * failing so runs out of tries over boots all the same. */
static void test_boot_failure_costs_one_try(void **state)
{
	struct vi_slots s;
	struct vi_error err;
	unsigned tried = 0;
	int i;

	(void)state;
	vi_slots_defaults(&s, 2);
	s.slot[0].successful = true;   /* proven with version 3, the one it boots again */
	s.slot[0].version = 3;
	while ((i = vi_slots_pick(&s, tried)) >= 0) {
		tried |= 1u << i;
		assert_int_equal(vi_slots_admit(&s, (unsigned)i, 3, &err), 0);
		assert_int_equal(vi_slots_record_failure(&s, (unsigned)i, VI_SLOT_BLAME_BOOT, true,
						     "mount", "Invalid argument"), 0);
	}
	assert_int_equal(tried, 3u);
	for (unsigned k = 0; k < 2; k++) {
		assert_int_equal(s.slot[k].tries, VI_SLOT_TRIES_DEFAULT - 1);
		assert_true(vi_slot_bootable(&s.slot[k]));
		assert_string_equal(s.slot[k].reason, "mount: Invalid argument");
	}
	assert_true(s.slot[0].successful);
	assert_int_equal(vi_slots_pick(&s, 0), 0);
	/* a device missing before the try: that failure takes the try itself */
	assert_int_equal(vi_slots_record_failure(&s, 1, VI_SLOT_BLAME_BOOT, false, "devices",
					     "no device matches PARTLABEL=root-b"), 0);
	assert_int_equal(s.slot[1].tries, VI_SLOT_TRIES_DEFAULT - 2);
	assert_int_equal(vi_slots_record_failure(&s, 1, VI_SLOT_BLAME_BOOT, false, "devices", "x"), 0);
	assert_int_equal(s.slot[1].tries, 0);
	assert_false(vi_slot_bootable(&s.slot[1]));
	assert_int_equal(vi_slots_record_failure(&s, 1, VI_SLOT_BLAME_BOOT, false, "devices", "x"), 0);
	assert_int_equal(s.slot[1].tries, 0);
}

static void test_sequence_floor(void **state)
{
	struct vi_slots s;
	struct vi_error err;

	(void)state;
	vi_slots_defaults(&s, 2);
	s.floor = 5;
	assert_int_equal(vi_slots_admit(&s, 0, 4, &err), -EPERM);
	assert_string_equal(err.msg, "manifest version 4 is below the rollback floor 5");
	assert_int_equal(s.slot[0].tries, VI_SLOT_TRIES_DEFAULT);   /* no try taken */
	assert_int_equal(vi_slots_admit(&s, 0, 5, &err), 0);
}

/* The TPM counter's part (slot_floor=tpm): raised only for a slot the store says is good with
 * the version verified now; a version below it refused, its slot not marked bad. */
static void test_tpm_floor_action(void **state)
{
	struct vi_slots s;
	struct vi_error err;

	(void)state;
	vi_slots_defaults(&s, 2);
	s.slot[0].successful = true;
	s.slot[0].version = 3;   /* recorded by the boot that mark-good followed */
	s.floor = 3;             /* which raised the store's floor to it */
	assert_int_equal(vi_slots_counter_action(&s, 0, 3, 2), VI_SLOTS_COUNTER_RAISE);
	assert_int_equal(vi_slots_counter_action(&s, 0, 3, 1), VI_SLOTS_COUNTER_RAISE);
	assert_int_equal(vi_slots_counter_action(&s, 0, 3, 3), VI_SLOTS_COUNTER_KEEP);
	/* a newer image in a good slot (written without set-primary): not proven yet */
	assert_int_equal(vi_slots_counter_action(&s, 0, 4, 2), VI_SLOTS_COUNTER_KEEP);
	/* not marked good */
	s.slot[0].successful = false;
	assert_int_equal(vi_slots_counter_action(&s, 0, 3, 2), VI_SLOTS_COUNTER_KEEP);
	assert_int_equal(vi_slots_counter_action(&s, 9, 3, 2), VI_SLOTS_COUNTER_KEEP);
	s.floor = 0;
	/* below the counter, good or not, whatever the store's floor (0 here) says */
	assert_int_equal(vi_slots_counter_action(&s, 1, 1, 2), VI_SLOTS_COUNTER_REFUSE);
	s.slot[0].successful = true;
	assert_int_equal(vi_slots_counter_action(&s, 0, 3, 4), VI_SLOTS_COUNTER_REFUSE);
	assert_int_equal(vi_slots_admit(&s, 1, 1, &err), 0);   /* the store's floor lets it */
	/* the refusal is the boot's: one try, not marked bad, the slot stays bootable */
	vi_slots_defaults(&s, 2);
	assert_int_equal(vi_slots_record_failure(&s, 1, VI_SLOT_BLAME_BOOT, false, "version",
					     "manifest version 1 is below the TPM rollback floor "
					     "2"), 0);
	assert_int_equal(s.slot[1].tries, VI_SLOT_TRIES_DEFAULT - 1);
	assert_true(vi_slot_bootable(&s.slot[1]));
	assert_string_equal(s.slot[1].reason, "version: manifest version 1 is below the TPM "
			    "rollback floor 2");
}

/* The floor rule across boots, issue 30 item 3: RAUC's `mark-good other` (set-state b good while
 * a runs) after b's try of version 3 never finished must not let the next boot raise the TPM
 * counter to 3; nor may a new version written into a good slot count before it booted
 * completely. Only mark-good of the running slot makes a version count. */
static void test_tpm_floor_only_from_a_complete_boot(void **state)
{
	struct vi_slots s;
	struct vi_error err;

	(void)state;
	vi_slots_defaults(&s, 2);
	/* a boots version 2 and is marked good there: the TPM's next boot raises to 2 */
	assert_int_equal(vi_slots_admit(&s, 0, 2, &err), 0);
	s.slot[0].successful = true;   /* what mark-good in a records (test_slots.c) */
	s.floor = 2;
	assert_int_equal(vi_slots_counter_action(&s, 0, 2, 1), VI_SLOTS_COUNTER_RAISE);
	/* an update to b (RAUC: set-state bad, write, set-primary); b's boot of 3 hangs */
	assert_int_equal(vi_slots_mark_bad(&s, 1, "set-state bad"), 0);
	assert_int_equal(vi_slots_set_primary(&s, 1), 0);
	assert_int_equal(vi_slots_admit(&s, 1, 3, &err), 0);
	/* back in a, RAUC's mark-good other: set-state b good while a (index 0) runs */
	assert_int_equal(vi_slots_mark_good(&s, 1, 0), 0);
	assert_true(vi_slot_bootable(&s.slot[1]));
	assert_int_equal(s.slot[1].tries, VI_SLOT_TRIES_DEFAULT);
	assert_false(s.slot[1].successful);
	assert_int_equal(s.floor, 2);
	/* the next boot verifies b's version 3: the counter (2) stays */
	assert_int_equal(vi_slots_counter_action(&s, 1, 3, 2), VI_SLOTS_COUNTER_KEEP);
	/* a store kept from before the rule: b successful with 3 although only a (2) raised the
	 * store's floor; the counter stays all the same */
	s.slot[1].successful = true;
	assert_int_equal(vi_slots_counter_action(&s, 1, 3, 2), VI_SLOTS_COUNTER_KEEP);
	s.floor = 3;
	assert_int_equal(vi_slots_counter_action(&s, 1, 3, 2), VI_SLOTS_COUNTER_RAISE);
}

/* A good slot whose image changed without set-primary: its try of the new version 4 takes the
 * proof away until mark-good; a try of the same version keeps it. */
static void test_tpm_floor_new_image_in_a_good_slot(void **state)
{
	struct vi_slots s;
	struct vi_error err;

	(void)state;
	vi_slots_defaults(&s, 2);
	assert_int_equal(vi_slots_admit(&s, 0, 2, &err), 0);
	s.slot[0].successful = true;
	assert_int_equal(vi_slots_admit(&s, 0, 2, &err), 0);
	assert_true(s.slot[0].successful);
	assert_int_equal(vi_slots_admit(&s, 0, 4, &err), 0);
	assert_false(s.slot[0].successful);
	/* that boot hung: the next one verifies 4 again and must not raise the counter to it */
	assert_int_equal(vi_slots_counter_action(&s, 0, 4, 2), VI_SLOTS_COUNTER_KEEP);
}

/* Post-switch failures nobody records: every boot takes a try, the slot runs out, the other
 * one is picked. */
static void test_sequence_tries_run_out(void **state)
{
	struct vi_slots s;
	struct vi_error err;

	(void)state;
	vi_slots_defaults(&s, 2);
	for (unsigned boot = 0; boot < VI_SLOT_TRIES_DEFAULT; boot++) {
		assert_int_equal(vi_slots_pick(&s, 0), 0);
		assert_int_equal(vi_slots_admit(&s, 0, 1, &err), 0);
	}
	assert_int_equal(s.slot[0].tries, 0);
	assert_int_equal(vi_slots_pick(&s, 0), 1);
	assert_int_equal(vi_slots_admit(&s, 0, 1, &err), -ESTALE);
}

/* A slot set up once in this boot is not picked again, whatever tries it has left. */
static void test_pick_skips_tried(void **state)
{
	struct vi_slots s;

	(void)state;
	vi_slots_defaults(&s, 4);
	s.slot[0].tries = 0;
	assert_int_equal(vi_slots_pick(&s, 0), 1);
	assert_int_equal(vi_slots_pick(&s, 1u << 1), 2);
	assert_int_equal(vi_slots_pick(&s, (1u << 1) | (1u << 2)), 3);
	assert_int_equal(vi_slots_pick(&s, 0xe), -ENOENT);
	assert_int_equal(s.slot[1].tries, VI_SLOT_TRIES_DEFAULT);   /* s itself untouched */
}

static void test_skipped_list(void **state)
{
	char list[VI_SLOT_SKIPPED_MAX] = "";
	char small[16] = "";

	(void)state;
	vi_slot_skipped_add(list, sizeof(list), "a", "preflight", "root hash; mismatch\n");
	vi_slot_skipped_add(list, sizeof(list), "b", "version", "below");
	assert_string_equal(list, "a:preflight:root hash, mismatch?;b:version:below");
	vi_slot_skipped_add(small, sizeof(small), "a", "preflight", "a long reason here");
	assert_string_equal(small, "a:preflight:a l");
	vi_slot_skipped_add(small, sizeof(small), "b", "x", "y");
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

/* The plan: a root on the command line, or no manifest keys, is refused before any device. */
static void test_plan_refusals(void **state)
{
	char dir[] = "/tmp/test_slotboot.XXXXXX", path[256], cmd[512];
	struct vi_plan plan;
	struct vi_failure failure;
	struct vi_plan_input in = { .pid1 = true, .boot = true };
	int rootfd;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/verity-init.conf", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("slots=a,b\n", f);
	assert_int_equal(fclose(f), 0);
	rootfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(rootfd >= 0);
	in.policy_path = path;
	in.rootfd = rootfd;

	/* no keys in the initramfs */
	in.cmdline = "root=/dev/mapper/root";
	assert_int_equal(vi_plan_build(&in, &plan, &failure), -ENOENT);
	assert_non_null(strstr(failure.reason.msg, "A/B slots (policy slots=) need the manifest keys"));

	snprintf(cmd, sizeof(cmd), "mkdir -p %s/etc/verity-init/keys && cp %s %s/etc/verity-init/keys/",
		 dir, KEYS_SRC, dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(vi_plan_build(&in, &plan, &failure), 0);
	assert_true(plan.slots);

	/* a root named on the command line: refused, whatever it is */
	in.cmdline = "roothash=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff "
		     "verity.data=/dev/vda verity.hash=/dev/vdb";
	assert_int_equal(vi_plan_build(&in, &plan, &failure), -EPERM);
	assert_non_null(strstr(failure.reason.msg, "the command line may not name a root"));
	in.cmdline = "verity.manifest=/dev/vdb";
	assert_int_equal(vi_plan_build(&in, &plan, &failure), -EPERM);
	/* a signature, verity options or devices of the root (without a root hash: none can
	 * come with one) are refused before the store is touched: a slot's manifest, tree and
	 * mapping failures are then its content's (test_blame) */
	static const char *const opts[] = {
		"systemd.verity_root_options=hash-offset=4096", "verity.hash=/dev/vdb",
		"systemd.verity_root_data=/dev/vda", "systemd.verity_root_options=superblock=false",
		"verity.sig=/x.p7s", "verity.options=panic-on-corruption",
		"verity.hashoffset=4096", "verity.fec=/dev/vdc",
	};
	for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
		in.cmdline = opts[k];
		if (vi_plan_build(&in, &plan, &failure) >= 0 || failure.stage != VI_STAGE_CONFIG)
			fail_msg("not refused: %s", opts[k]);
	}

	/* every other way a root can come in: refused at the policy step, the same verdict for
	 * PID 1, dracut's setup and `parse` (which does not reach the device steps) */
	static const char *const roots[] = {
		"verity.fail=recovery verity.recovery.roothash="
		"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff "
		"verity.recovery.data=/dev/vdc verity.recovery.hash=/dev/vdd",
		"usrhash=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff "
		"systemd.volatile=yes",
		"usrhash=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff "
		"mount.usr=/dev/mapper/usr root=tmpfs",
		"dm-mod.create=\"root,,,ro,0 8 verity 1 /dev/vda /dev/vdb 4096 4096 1 1 sha256 "
		"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff -\"",
		"roothash=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
	};
	for (size_t k = 0; k < sizeof(roots) / sizeof(roots[0]); k++) {
		/* `parse`, dracut's setup, PID 1 */
		for (int mode = 0; mode < 3; mode++) {
			in.cmdline = roots[k];
			in.boot = mode > 0;
			in.pid1 = mode == 2;
			if (vi_plan_build(&in, &plan, &failure) != -EPERM ||
			    failure.stage != VI_STAGE_CONFIG ||
			    !strstr(failure.reason.msg, "boots A/B slots (slots=)"))
				fail_msg("%s: not refused under slots= (mode %d): %s", roots[k],
					 mode, failure.reason.msg);
			assert_false(plan.recovery_allowed);
			assert_false(plan.cfg.recovery.enabled);
			assert_false(plan.cfg.usr.enabled);
		}
	}
	in.boot = true;
	in.pid1 = true;

	/* mount and init options stay the command line's */
	in.cmdline = "root=/dev/mapper/root rootflags=noatime init=/sbin/init";
	assert_int_equal(vi_plan_build(&in, &plan, &failure), 0);

	close(rootfd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_slot_keys),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_sequence_fallback),
		cmocka_unit_test(test_sequence_floor),
		cmocka_unit_test(test_tpm_floor_action),
		cmocka_unit_test(test_tpm_floor_only_from_a_complete_boot),
		cmocka_unit_test(test_tpm_floor_new_image_in_a_good_slot),
		cmocka_unit_test(test_sequence_tries_run_out),
		cmocka_unit_test(test_blame),
		cmocka_unit_test(test_boot_failure_costs_one_try),
		cmocka_unit_test(test_pick_skips_tried),
		cmocka_unit_test(test_skipped_list),
		cmocka_unit_test(test_plan_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
