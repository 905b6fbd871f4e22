// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/format/managed.c: a pstore record of the last boot, the agent's EFI variable and the
 * decision of managed recovery; lib/boot/managedio.c's variable on a plain directory. The whole
 * path with the kernel's efi-pstore is tests/vm/managed_test.sh. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "managed.h"
#include "managedio.h"

/* the tail of a real record: efi-pstore on Debian's 6.1 under OVMF (tests/vm/managed_test.sh) */
static const char panic_record[] =
	"Panic#1 Part1\n"
	"<6>[    8.39] random: crng init done\n"
	"<3>[    8.40] device-mapper: verity: 254:0: data block 501 is corrupted\n"
	"<0>[    8.40] Kernel panic - not syncing: dm-verity device corrupted\n"
	"<4>[    8.41] CPU: 0 PID: 7 Comm: kworker/u2:0 Not tainted 6.1.0-57-amd64 #1\n";

#define PANIC_LINE "<0>Kernel panic - not syncing: dm-verity device corrupted"

static enum vi_pstore_end parse(const char *s, char *reason)
{
	return vi_pstore_parse(s, strlen(s), reason);
}

static void test_pstore_records(void **state)
{
	char reason[VI_PSTORE_REASON_MAX];
	char big[VI_PSTORE_RECORD_MAX + 200];

	(void)state;
	assert_int_equal(parse(panic_record, reason), VI_PSTORE_CORRUPTION);
	assert_string_equal(reason, "Panic");
	assert_int_equal(parse("Shutdown#3 Part2\n<0>[ 9.1] reboot: Restarting system with command "
			       "'dm-verity device has I/O error'\n", reason), VI_PSTORE_IO_ERROR);
	assert_string_equal(reason, "Shutdown");
	/* the message on the last line, without its newline; a kernel without time stamps */
	assert_int_equal(parse("Panic#12 Part10\nx\n<0>Kernel panic - not syncing: dm-verity device "
			       "corrupted", reason), VI_PSTORE_CORRUPTION);
	/* the words inside another kernel message (an exec warning's file name, a device label), a
	 * line user space wrote (facility 1: <8>..), a reason that does not fit the message, text
	 * after the message: not dm-verity's end */
	assert_int_equal(parse("Shutdown#1 Part1\n<4>[ 5.1] process 'x' launched '/tmp/dm-verity "
			       "device corrupted' with NULL argv\n", reason), VI_PSTORE_OTHER);
	assert_int_equal(parse("Oops#1 Part1\n<6>[ 5.1] BTRFS: device label dm-verity device "
			       "corrupted\n", reason), VI_PSTORE_OTHER);
	assert_int_equal(parse("Panic#1 Part1\n<8>[ 5.1] Kernel panic - not syncing: dm-verity "
			       "device corrupted\n", reason), VI_PSTORE_OTHER);
	assert_int_equal(parse("Oops#1 Part1\n<0>[ 5.1] Kernel panic - not syncing: dm-verity "
			       "device corrupted\n", reason), VI_PSTORE_OTHER);
	assert_int_equal(parse("Panic#1 Part1\n<5>[ 5.1] reboot: Restarting system with command "
			       "'dm-verity device corrupted'\n", reason), VI_PSTORE_OTHER);
	assert_int_equal(parse("Panic#1 Part1\n<0>[ 5.1] Kernel panic - not syncing: dm-verity "
			       "device corrupted!\n", reason), VI_PSTORE_OTHER);
	assert_int_equal(parse("Panic#1 Part1\n<0>[x5.1] Kernel panic - not syncing: dm-verity "
			       "device corrupted\n", reason), VI_PSTORE_OTHER);
	/* another panic, and the corruption line alone (the EIO mode logs it, and a later oops of
	 * anything dumps it): not dm-verity's end */
	assert_int_equal(parse("Panic#1 Part1\n<0>Kernel panic - not syncing: Attempted to kill "
			       "init!\n", reason), VI_PSTORE_OTHER);
	assert_string_equal(reason, "Panic");
	assert_int_equal(parse("Oops#1 Part1\ndevice-mapper: verity: 254:0: data block 5 is "
			       "corrupted\n", reason), VI_PSTORE_OTHER);
	/* no pstore header: not a dump, whatever it says */
	assert_int_equal(parse("dm-verity device corrupted\n", reason), VI_PSTORE_OTHER);
	assert_string_equal(reason, "");
	static const char *const bad_headers[] = {
		"", "\n", "Panic\n", "Panic#\n", "Panic#1\n", "Panic#1 Part\nx", "Panic#x Part1\n",
		"#1 Part1\n", "Panic#1 Part1 \n", "Panic#1  Part1\n", "Pa-nic#1 Part1\n",
		"AVeryLongReasonWordIndeed#1 Part1\n", "Panic#1 Part1x\n",
	};
	for (size_t i = 0; i < sizeof(bad_headers) / sizeof(bad_headers[0]); i++) {
		char s[128];

		snprintf(s, sizeof(s), "%s<0>Kernel panic - not syncing: dm-verity device corrupted\n",
			 bad_headers[i]);
		assert_int_equal(parse(s, reason), VI_PSTORE_OTHER);
		assert_string_equal(reason, "");
	}
	/* NUL bytes and other binary in the text are bytes like any other */
	static const char bin[] = "Panic#2 Part1\n\0\xff\x01\n<0>Kernel panic - not syncing: dm-verity "
				  "device corrupted\n";
	assert_int_equal(vi_pstore_parse(bin, sizeof(bin) - 1, reason), VI_PSTORE_CORRUPTION);
	assert_int_equal(vi_pstore_parse(NULL, 0, reason), VI_PSTORE_OTHER);
	/* only the first VI_PSTORE_RECORD_MAX bytes count */
	memset(big, 'x', sizeof(big));
	memcpy(big, "Panic#1 Part1\n", 14);
	memcpy(big + VI_PSTORE_RECORD_MAX + 50, "\n" PANIC_LINE "\n", sizeof(PANIC_LINE) + 1);
	assert_int_equal(vi_pstore_parse(big, sizeof(big), reason), VI_PSTORE_OTHER);
	memcpy(big + VI_PSTORE_RECORD_MAX - 100, "\n" PANIC_LINE "\n", sizeof(PANIC_LINE) + 1);
	assert_int_equal(vi_pstore_parse(big, sizeof(big), reason), VI_PSTORE_CORRUPTION);
	assert_string_equal(vi_pstore_end_name(VI_PSTORE_CORRUPTION), "corruption");
	assert_string_equal(vi_pstore_end_name(VI_PSTORE_IO_ERROR), "I/O error");
	assert_string_equal(vi_pstore_end_name(VI_PSTORE_OTHER), "other");
}

static const char hash_hex[] = "1f5ab3a19be8140f8e9cb06442106fb3e71756eabafc0b696ca121519bdcf3dd";

static struct vi_managed_record record(uint8_t fill, unsigned len, bool degraded)
{
	struct vi_managed_record r = { .root_hash_len = len, .degraded = degraded };

	memset(r.root_hash, fill, len);
	return r;
}

static void test_variable_text(void **state)
{
	struct vi_managed_record r = record(0xab, 32, true), back = record(0, 1, false);
	struct vi_error err;
	char buf[VI_MANAGED_TEXT_MAX];
	char line[256];
	int n;

	(void)state;
	n = vi_managed_encode(&r, buf, sizeof(buf), &err);
	assert_true(n > 0);
	assert_int_equal((size_t)n, strlen(buf));
	assert_int_equal(strncmp(buf, "verity-init-managed 1 roothash=abab", 35), 0);
	assert_string_equal(buf + n - 24, " state=degraded boots=0\n");
	assert_int_equal(vi_managed_decode(buf, (size_t)n, &back, &err), 0);
	assert_memory_equal(&back, &r, sizeof(r));
	r = record(0x01, VERITY_MAX_DIGEST, false);
	n = vi_managed_encode(&r, buf, sizeof(buf), &err);
	assert_true(n > 0);
	assert_int_equal(vi_managed_decode(buf, (size_t)n, &back, &err), 0);
	assert_false(back.degraded);
	assert_int_equal(back.root_hash_len, VERITY_MAX_DIGEST);
	assert_int_equal(vi_managed_encode(&r, buf, 20, &err), -ENOBUFS);
	r.root_hash_len = 0;
	assert_int_equal(vi_managed_encode(&r, buf, sizeof(buf), &err), -EINVAL);

	/* a degraded record counts its unconfirmed boots; a restart record has none */
	/* the line without boots= (the variable's first form) reads as none unconfirmed */
	snprintf(line, sizeof(line), "verity-init-managed 1 roothash=%s state=degraded\n", hash_hex);
	assert_int_equal(vi_managed_decode(line, strlen(line), &back, &err), 0);
	assert_true(back.degraded);
	assert_int_equal(back.boots, 0);
	r = record(0x01, 32, true);
	r.boots = 7;
	n = vi_managed_encode(&r, buf, sizeof(buf), &err);
	assert_true(n > 0);
	assert_non_null(strstr(buf, " state=degraded boots=7\n"));
	assert_int_equal(vi_managed_decode(buf, (size_t)n, &back, &err), 0);
	assert_int_equal(back.boots, 7);
	r.boots = VI_MANAGED_BOOTS_MAX + 1;
	assert_int_equal(vi_managed_encode(&r, buf, sizeof(buf), &err), -EINVAL);
	r = record(0x01, 32, false);
	r.boots = 1;
	assert_int_equal(vi_managed_encode(&r, buf, sizeof(buf), &err), -EINVAL);

	snprintf(line, sizeof(line), "verity-init-managed 1 roothash=%s state=restart\n", hash_hex);
	assert_int_equal(vi_managed_decode(line, strlen(line), &back, &err), 0);
	assert_int_equal(back.root_hash_len, 32);
	assert_int_equal(back.root_hash[0], 0x1f);
	static const char *const bad[] = {
		"", "verity-init-managed 1 roothash=", "verity-init-managed 2 roothash=ab state=restart\n",
		"verity-init-managed 1 roothash= state=restart\n",
		"verity-init-managed 1 roothash=abc state=restart\n",
		"verity-init-managed 1 roothash=AB state=restart\n",
		"verity-init-managed 1 roothash=ab state=restart",
		"verity-init-managed 1 roothash=ab state=restart\n\n",
		"verity-init-managed 1 roothash=ab state=degraded boots=\n",
		"verity-init-managed 1 roothash=ab state=degraded boots=10\n",
		"verity-init-managed 1 roothash=ab state=degraded boots=x\n",
		"verity-init-managed 1 roothash=ab state=degraded boots=1",
		"verity-init-managed 1 roothash=ab state=restart boots=1\n",
		"verity-init-managed 1 roothash=ab state=panic\n",
		"verity-init-managed 1 roothash=ab  state=restart\n",
		"verity-init-managed 1 roothash=abxx state=restart\n",
		" verity-init-managed 1 roothash=ab state=restart\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		back = record(0x55, 3, true);
		assert_int_equal(vi_managed_decode(bad[i], strlen(bad[i]), &back, &err), -EINVAL);
		assert_int_equal(back.root_hash_len, 3);   /* untouched */
	}
	/* a root hash longer than any digest */
	memset(line, 0, sizeof(line));
	strcpy(line, "verity-init-managed 1 roothash=");
	memset(line + strlen(line), 'a', 2 * VERITY_MAX_DIGEST + 2);
	strcat(line, " state=restart\n");
	assert_int_equal(vi_managed_decode(line, strlen(line), &back, &err), -EINVAL);
}

static void test_decision(void **state)
{
	const struct vi_managed_record h1 = record(1, 32, false);
	const struct vi_managed_record h2 = record(2, 32, false);
	struct vi_managed_record h1d = record(1, 32, true), h1d0, confirmed;
	struct vi_managed_decision d;

	(void)state;
	/* first boot with managed=yes: nothing known, restart mode, the variable written */
	assert_int_equal(vi_managed_decide(VI_PSTORE_OTHER, NULL, h1.root_hash, 32, &d), 0);
	assert_false(d.degraded);
	assert_false(d.crashed);
	assert_true(d.write);
	assert_memory_equal(&d.next, &h1, sizeof(h1));
	/* a boot like the last: nothing written */
	assert_int_equal(vi_managed_decide(VI_PSTORE_OTHER, &h1, h1.root_hash, 32, &d), 0);
	assert_false(d.degraded);
	assert_false(d.write);
	/* the last boot of this root ended on a corruption: degraded, recorded */
	assert_int_equal(vi_managed_decide(VI_PSTORE_CORRUPTION, &h1, h1.root_hash, 32, &d), 0);
	assert_true(d.degraded);
	assert_true(d.crashed);
	assert_true(d.write);
	assert_false(d.refused);
	h1d.boots = 1;   /* this boot, unconfirmed until the running system says it came up */
	assert_memory_equal(&d.next, &h1d, sizeof(h1d));
	/* an I/O error ending counts the same */
	assert_int_equal(vi_managed_decide(VI_PSTORE_IO_ERROR, &h1, h1.root_hash, 32, &d), 0);
	assert_true(d.degraded);
	/* the degraded boot came up: confirmed by the running system, for its own root only */
	assert_false(vi_managed_confirm(&h1d, h2.root_hash, 32, &confirmed));
	assert_false(vi_managed_confirm(&h1, h1.root_hash, 32, &confirmed));
	assert_true(vi_managed_confirm(&h1d, h1.root_hash, 32, &confirmed));
	assert_true(confirmed.degraded);
	assert_int_equal(confirmed.boots, 0);
	h1d0 = confirmed;
	assert_false(vi_managed_confirm(&h1d0, h1.root_hash, 32, &confirmed));
	/* no record any more: still degraded, this boot counted */
	assert_int_equal(vi_managed_decide(VI_PSTORE_OTHER, &h1d0, h1.root_hash, 32, &d), 0);
	assert_true(d.degraded);
	assert_false(d.crashed);
	assert_false(d.refused);
	assert_true(d.write);
	assert_int_equal(d.next.boots, 1);
	/* a degraded boot that did not come up (not confirmed): one more try, counted */
	assert_int_equal(vi_managed_decide(VI_PSTORE_OTHER, &h1d, h1.root_hash, 32, &d), 0);
	assert_true(d.degraded);
	assert_false(d.refused);
	assert_true(d.write);
	assert_int_equal(d.next.boots, 2);
	/* VI_MANAGED_TRIES of them: not booted again, nothing written */
	h1d.boots = VI_MANAGED_TRIES;
	assert_int_equal(vi_managed_decide(VI_PSTORE_OTHER, &h1d, h1.root_hash, 32, &d), 0);
	assert_true(d.degraded);
	assert_true(d.refused);
	assert_false(d.write);
	assert_memory_equal(&d.next, &h1d, sizeof(h1d));
	/* a panic of that boot (a corruption record: it cannot come from EIO mode, but a stale one
	 * might) changes nothing */
	assert_int_equal(vi_managed_decide(VI_PSTORE_CORRUPTION, &h1d, h1.root_hash, 32, &d), 0);
	assert_true(d.refused);
	/* an update boots in restart mode again */
	assert_int_equal(vi_managed_decide(VI_PSTORE_OTHER, &h1d, h2.root_hash, 32, &d), 0);
	assert_false(d.degraded);
	assert_false(d.refused);
	assert_true(d.write);
	/* an update: restart mode returns, recorded */
	assert_int_equal(vi_managed_decide(VI_PSTORE_OTHER, &h1d, h2.root_hash, 32, &d), 0);
	assert_false(d.degraded);
	assert_true(d.write);
	assert_memory_equal(&d.next, &h2, sizeof(h2));
	/* a record of the root before the update: not this one's */
	assert_int_equal(vi_managed_decide(VI_PSTORE_CORRUPTION, &h1, h2.root_hash, 32, &d), 0);
	assert_false(d.degraded);
	assert_false(d.crashed);
	/* a record and no variable: which root is unknown, the conservative answer */
	assert_int_equal(vi_managed_decide(VI_PSTORE_CORRUPTION, NULL, h2.root_hash, 32, &d), 0);
	assert_true(d.degraded);
	assert_true(d.crashed);
	/* the same bytes of another length are another root */
	assert_int_equal(vi_managed_decide(VI_PSTORE_CORRUPTION, &h1, h1.root_hash, 20, &d), 0);
	assert_false(d.degraded);
	assert_int_equal(vi_managed_decide(VI_PSTORE_OTHER, NULL, h1.root_hash, 0, &d), -EINVAL);
	assert_int_equal(vi_managed_decide(VI_PSTORE_OTHER, NULL, h1.root_hash,
					   VERITY_MAX_DIGEST + 1, &d), -EINVAL);

}

static void test_variable_file(void **state)
{
	char dir[] = "/tmp/test_managed.XXXXXX", path[256], buf[256];
	struct vi_managed_record r = record(0x3c, 32, true), back;
	struct vi_error err;
	ssize_t n;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(vi_managed_var_read(dir, &back, &err), -ENOENT);
	assert_int_equal(vi_managed_var_write(dir, &r, &err), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, VI_MANAGED_VAR);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	/* efivarfs's form: the attributes (NV, BS, RT) in 4 bytes, then the text */
	assert_true(n > 4);
	assert_memory_equal(buf, "\x07\0\0\0verity-init-managed 1 roothash=3c3c", 39);
	assert_int_equal(vi_managed_var_read(dir, &back, &err), 0);
	assert_memory_equal(&back, &r, sizeof(r));
	/* too short, or not the text: refused */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "\x07\0", 2), 2);
	close(fd);
	assert_int_equal(vi_managed_var_read(dir, &back, &err), -EINVAL);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "\x07\0\0\0junk", 8), 8);
	close(fd);
	assert_int_equal(vi_managed_var_read(dir, &back, &err), -EINVAL);
	/* the agent's text under other attributes (time-based authenticated writes: a variable the
	 * agent could not overwrite) is not its record */
	n = vi_managed_encode(&r, buf + 4, sizeof(buf) - 4, &err);
	assert_true(n > 0);
	memcpy(buf, "\x27\0\0\0", 4);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, buf, (size_t)n + 4), n + 4);
	close(fd);
	assert_int_equal(vi_managed_var_read(dir, &back, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "attributes 00000027, not the agent's"));
	memcpy(buf, "\x07\0\0\0", 4);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, buf, (size_t)n + 4), n + 4);
	close(fd);
	assert_int_equal(vi_managed_var_read(dir, &back, &err), 0);
	unlink(path);
	/* a directory without pstore is no record */
	struct vi_pstore_scan scan;
	snprintf(path, sizeof(path), "%s/none", dir);
	assert_int_equal(vi_pstore_scan(path, true, &scan, &err), 0);
	assert_int_equal(scan.end, VI_PSTORE_OTHER);
	assert_int_equal(scan.records, 0);
	rmdir(dir);
}

/* Whether a dm-verity end reaches the next boot: a backend, and for a restart a dump of it. */
static void test_trace(void **state)
{
	struct vi_managed_trace_input in = { .backend = "efi_pstore", .panics = true,
					     .backend_max_reason = -1 };

	(void)state;
	assert_int_equal(vi_managed_trace(&in), VI_MANAGED_TRACE_RECORDED);
	in.backend = "(null)";
	assert_int_equal(vi_managed_trace(&in), VI_MANAGED_TRACE_NO_BACKEND);
	in.backend = "";
	assert_int_equal(vi_managed_trace(&in), VI_MANAGED_TRACE_NO_BACKEND);
	/* efi_pstore sets no max_reason: a restart is dumped with printk.always_kmsg_dump only */
	in = (struct vi_managed_trace_input){ .backend = "efi_pstore", .restarts = true,
					      .backend_max_reason = -1 };
	assert_int_equal(vi_managed_trace(&in), VI_MANAGED_TRACE_RESTART_LOST);
	in.always_kmsg_dump = true;
	assert_int_equal(vi_managed_trace(&in), VI_MANAGED_TRACE_RECORDED);
	/* ramoops decides by its own max_reason, whatever printk says */
	in.backend = "ramoops";
	in.backend_max_reason = 2;
	assert_int_equal(vi_managed_trace(&in), VI_MANAGED_TRACE_RESTART_LOST);
	in.backend_max_reason = 4;
	in.always_kmsg_dump = false;
	assert_int_equal(vi_managed_trace(&in), VI_MANAGED_TRACE_RECORDED);
	/* I/O errors end nothing: no record is needed, with or without a backend */
	in = (struct vi_managed_trace_input){ .backend = "", .backend_max_reason = -1 };
	assert_int_equal(vi_managed_trace(&in), VI_MANAGED_TRACE_NOT_NEEDED);
	assert_non_null(strstr(vi_managed_trace_text(VI_MANAGED_TRACE_NO_BACKEND),
			       "no pstore backend"));
}

/* A/B slots: a dm-verity end blames the slot the store says ran, from the same partition with
 * the same root hash, and no other: two slots holding the same image share a root hash. */
static void test_slot_verdict(void **state)
{
	struct vi_slot_ran ran = { .set = true, .slot = 0, .major = 8, .minor = 2,
				   .root_hash_len = 32 };
	uint8_t hash[32], other[32];

	(void)state;
	memset(hash, 0x5a, sizeof(hash));
	memset(other, 0x5b, sizeof(other));
	memcpy(ran.root_hash, hash, sizeof(hash));
	assert_int_equal(vi_managed_slot_verdict(VI_PSTORE_OTHER, &ran, 0, 8, 2, hash, 32),
			 VI_MANAGED_SLOT_CLEAR);
	assert_int_equal(vi_managed_slot_verdict(VI_PSTORE_CORRUPTION, &ran, 0, 8, 2, hash, 32),
			 VI_MANAGED_SLOT_BLAMED);
	assert_int_equal(vi_managed_slot_verdict(VI_PSTORE_IO_ERROR, &ran, 0, 8, 2, hash, 32),
			 VI_MANAGED_SLOT_BLAMED);
	/* slot b holds the same image (the same root hash) on its own partition: not blamed */
	assert_int_equal(vi_managed_slot_verdict(VI_PSTORE_CORRUPTION, &ran, 1, 8, 3, hash, 32),
			 VI_MANAGED_SLOT_OTHER);
	/* slot a, but another partition or another root hash than the one that ran */
	assert_int_equal(vi_managed_slot_verdict(VI_PSTORE_CORRUPTION, &ran, 0, 8, 5, hash, 32),
			 VI_MANAGED_SLOT_CHANGED);
	assert_int_equal(vi_managed_slot_verdict(VI_PSTORE_CORRUPTION, &ran, 0, 8, 2, other, 32),
			 VI_MANAGED_SLOT_CHANGED);
	assert_int_equal(vi_managed_slot_verdict(VI_PSTORE_CORRUPTION, &ran, 0, 8, 2, hash, 31),
			 VI_MANAGED_SLOT_CHANGED);
	/* no record of which slot ran: none is blamed, whichever comes first */
	ran.set = false;
	assert_int_equal(vi_managed_slot_verdict(VI_PSTORE_CORRUPTION, &ran, 0, 8, 2, hash, 32),
			 VI_MANAGED_SLOT_UNKNOWN);
	assert_string_equal(vi_managed_slot_verdict_name(VI_MANAGED_SLOT_UNKNOWN),
			    "no record of the slot that ran");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pstore_records),
		cmocka_unit_test(test_variable_text),
		cmocka_unit_test(test_decision),
		cmocka_unit_test(test_slot_verdict),
		cmocka_unit_test(test_trace),
		cmocka_unit_test(test_variable_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
