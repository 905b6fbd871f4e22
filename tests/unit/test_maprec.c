// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/boot/maprec.c: the record of the mappings dracut's setup made, written, read back,
 * compared with a live mapping, and refused whenever it is not exactly what setup wrote. */
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

#include "helpers.h"
#include "maprec.h"

#define ROOT_TABLE "0 16384 verity 1 254:0 254:16 4096 4096 2048 1 sha256 " \
	"4392ab7cb1e4bd6b9e3f4ea0f1d8ecd2e6f3a4e1e7f1b5d5c61e7a3c7bb3c8a1 " \
	"7665726974792d696e69742d766d2d7465737473000000000000000000000001"
#define USR_TABLE "0 8192 verity 1 254:32 254:48 4096 4096 1024 1 sha256 " \
	"aa92ab7cb1e4bd6b9e3f4ea0f1d8ecd2e6f3a4e1e7f1b5d5c61e7a3c7bb3c8a1 - 2 " \
	"ignore_zero_blocks check_at_most_once"

static void two(struct vi_maprec *rec)
{
	struct vi_error err = { "" };

	memset(rec, 0, sizeof(*rec));
	assert_int_equal(vi_maprec_add(rec, "root", "", ROOT_TABLE, &err), 0);
	assert_int_equal(vi_maprec_add(rec, "usr", "CRYPT-VERITY-abc", USR_TABLE, &err), 0);
}

static size_t format(const struct vi_maprec *rec, char *buf, size_t size)
{
	size_t len = 0;

	assert_int_equal(vi_maprec_format(rec, buf, size, &len), 0);
	return len;
}

/* what setup writes is what pre-pivot reads, entry for entry */
static void test_round_trip(void **state)
{
	struct vi_maprec rec, back;
	struct vi_error err = { "" };
	char text[VI_MAPREC_TEXT_MAX];
	size_t len;

	(void)state;
	two(&rec);
	len = format(&rec, text, sizeof(text));
	assert_int_equal(strncmp(text, "verity-init mappings 1\nmap name=root uuid= table=0 16384 "
				 "verity 1 254:0", 55), 0);
	memset(&back, 0, sizeof(back));
	assert_int_equal(vi_maprec_parse(text, len, &back, &err), 0);
	assert_int_equal(back.n, 2);
	assert_string_equal(back.e[0].name, "root");
	assert_string_equal(back.e[0].uuid, "");
	assert_string_equal(back.e[0].table, ROOT_TABLE);
	assert_string_equal(vi_maprec_find(&back, "usr")->uuid, "CRYPT-VERITY-abc");
	assert_string_equal(vi_maprec_find(&back, "usr")->table, USR_TABLE);
	assert_null(vi_maprec_find(&back, "recovery"));
	/* an empty record is a record too (nothing to compare, so pre-pivot's want list decides) */
	memset(&rec, 0, sizeof(rec));
	len = format(&rec, text, sizeof(text));
	assert_int_equal(vi_maprec_parse(text, len, &back, &err), 0);
	assert_int_equal(back.n, 0);
	/* the same name again replaces its entry */
	two(&rec);
	assert_int_equal(vi_maprec_add(&rec, "root", "x", "0 8 verity 1", &err), 0);
	assert_int_equal(rec.n, 2);
	assert_string_equal(vi_maprec_find(&rec, "root")->table, "0 8 verity 1");
}

/* parse text (NUL-terminated) and expect a refusal whose reason contains why; *ret untouched */
static void refused(const char *text, size_t len, const char *why)
{
	struct vi_maprec back, before;
	struct vi_error err = { "" };

	memset(&back, 0x5a, sizeof(back));
	memcpy(&before, &back, sizeof(back));
	assert_true(vi_maprec_parse(text, len, &back, &err) < 0);
	if (!strstr(err.msg, why))
		fail_msg("reason \"%s\" lacks \"%s\"", err.msg, why);
	assert_memory_equal(&back, &before, sizeof(back));
}

#define REFUSED(text, why) refused((text), sizeof(text) - 1, (why))

static void test_parse_refuses(void **state)
{
	struct vi_maprec rec;
	char text[VI_MAPREC_TEXT_MAX], bad[VI_MAPREC_TEXT_MAX + 64];
	size_t len;
	char *p;

	(void)state;
	two(&rec);
	len = format(&rec, text, sizeof(text));
	/* one byte of a table changed: the checksum no longer matches */
	memcpy(bad, text, len);
	p = strstr(bad, "254:0 ");
	p[4] = '1';
	refused(bad, len, "checksum");
	/* truncated: at the end line, inside it, inside a mapping line */
	refused(text, len - 1, "no end");
	refused(text, (size_t)(strstr(text, "end count") - text), "no end");
	refused(text, (size_t)(strstr(text, "254:16") - text), "no end");
	/* text after the end line */
	memcpy(bad, text, len);
	memcpy(bad + len, "map name=x uuid= table=0 8 verity 1\n", 36);
	refused(bad, len + 36, "after the end");
	/* a whole map line dropped: count and checksum do not match */
	{
		char *u = strstr(text, "map name=usr"), *e = strstr(text, "end count");
		size_t head = (size_t)(u - text);

		memcpy(bad, text, head);
		memcpy(bad + head, e, len - (size_t)(e - text));
		refused(bad, len - (size_t)(e - u), "count or checksum");
	}
	REFUSED("", "line 1");
	REFUSED("verity-init mappings 2\n", "line 1");
	REFUSED("verity-init mappings 1\nend count=0 crc32=00000000\n", "checksum");
	REFUSED("verity-init mappings 1\nend count=00 crc32=00000000\n", "neither");
	REFUSED("verity-init mappings 1\nend count=0 crc32=0000000G\n", "neither");
	REFUSED("verity-init mappings 1\nend count=0 crc32=00000000 \n", "neither");
	REFUSED("verity-init mappings 1\nmap name= uuid= table=0 8 verity 1\n", "not a mapping");
	REFUSED("verity-init mappings 1\nmap name=a b uuid= table=0 8 verity 1\n", "not a mapping");
	REFUSED("verity-init mappings 1\nmap name=a uuid= table=\n", "not a mapping");
	REFUSED("verity-init mappings 1\nmap name=a uuid=\tx table=0\n", "not a mapping");
	REFUSED("verity-init mappings 1\nmap name=a uuid= table=0\x01\n", "not a mapping");
	REFUSED("verity-init mappings 1\nmap name=a uuid= tabel=0\n", "not a mapping");
	REFUSED("verity-init mappings 1\nmap name=a uuid= table=0\nmap name=a uuid= table=1\n",
		"repeats a");
	/* a NUL inside a table line */
	REFUSED("verity-init mappings 1\nmap name=a uuid= table=0\0 1\n", "not a mapping");
	/* more mappings than a record holds */
	strcpy(bad, "verity-init mappings 1\n");
	for (unsigned i = 0; i <= VI_MAPREC_MAX; i++)
		snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), "map name=m%u uuid= table=0\n",
			 i);
	refused(bad, strlen(bad), "more than");
	/* too long to be a record */
	memset(bad, 'x', sizeof(bad));
	refused(bad, sizeof(bad), "longer than");
}

static void test_add_refuses(void **state)
{
	struct vi_maprec rec;
	struct vi_error err = { "" };
	char big[VI_MAPREC_LINE_MAX + 1];

	(void)state;
	memset(&rec, 0, sizeof(rec));
	assert_int_equal(vi_maprec_add(&rec, "ro ot", "", "0 8 verity", &err), -EINVAL);
	assert_int_equal(vi_maprec_add(&rec, "", "", "0 8 verity", &err), -EINVAL);
	assert_int_equal(vi_maprec_add(&rec, "root", "a\nb", "0 8 verity", &err), -EINVAL);
	assert_int_equal(vi_maprec_add(&rec, "root", "", "0 8\nverity", &err), -EINVAL);
	assert_int_equal(vi_maprec_add(&rec, "root", "", "", &err), -EINVAL);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(vi_maprec_add(&rec, "root", "", big, &err), -ENOBUFS);
	for (unsigned i = 0; i < VI_MAPREC_MAX; i++) {
		char name[8];

		snprintf(name, sizeof(name), "m%u", i);
		assert_int_equal(vi_maprec_add(&rec, name, "", "0 8 verity", &err), 0);
	}
	assert_int_equal(vi_maprec_add(&rec, "one-more", "", "0 8 verity", &err), -ENOSPC);
	assert_int_equal(rec.n, VI_MAPREC_MAX);
}

/* byte for byte: a table the old tokenizing comparison calls equal is still another table */
static void test_compare(void **state)
{
	struct vi_maprec rec;
	struct vi_error err = { "" };
	const struct vi_maprec_entry *root;
	char upper[VI_MAPREC_LINE_MAX];

	(void)state;
	two(&rec);
	root = vi_maprec_find(&rec, "root");
	assert_int_equal(vi_maprec_compare(root, "", ROOT_TABLE, &err), 0);
	assert_int_equal(vi_maprec_compare(root, "CRYPT-VERITY-x", ROOT_TABLE, &err), -EPERM);
	assert_non_null(strstr(err.msg, "dm UUID"));
	assert_int_equal(vi_maprec_compare(root, "", "0 16384 verity 1 254:0 254:16 4096 4096 2048 1 "
					   "sha256 5392ab7cb1e4bd6b9e3f4ea0f1d8ecd2e6f3a4e1e7f1b5d5c6"
					   "1e7a3c7bb3c8a1 -", &err), -EPERM);
	assert_non_null(strstr(err.msg, "mapping root: its table is not the one setup loaded "
				   "(live: 0 16384 verity 1 254:0"));
	assert_int_equal(vi_maprec_compare(root, "", ROOT_TABLE " ", &err), -EPERM);
	snprintf(upper, sizeof(upper), "0 16384 VERITY%s", &ROOT_TABLE[14]);
	assert_int_equal(vi_maprec_compare(root, "", upper, &err), -EPERM);
}

/* run the shell command template with each '@' replaced by dir */
static void sh(const char *template, const char *dir)
{
	char cmd[1200];
	size_t n = 0, dl = strlen(dir);

	for (const char *c = template; *c && n + dl + 1 < sizeof(cmd); c++) {
		if (*c == '@') {
			memcpy(cmd + n, dir, dl);
			n += dl;
		} else {
			cmd[n++] = *c;
		}
	}
	cmd[n] = '\0';
	assert_int_equal(system(cmd), 0);
}

static void test_files(void **state)
{
	char top[] = "/tmp/vi-maprec-XXXXXX", run[300], path[400];
	struct vi_maprec rec, back;
	struct vi_error err = { "" };
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(run, sizeof(run), "%s/verity-init", top);
	two(&rec);
	/* no record yet */
	assert_int_equal(vi_maprec_read(run, &back, &err), -ENOENT);
	assert_int_equal(vi_maprec_remove(run), 0);
	assert_int_equal(vi_maprec_write(run, &rec, &err), 0);
	snprintf(path, sizeof(path), "%s/setup", run);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	snprintf(path, sizeof(path), "%s/setup/mappings", run);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	memset(&back, 0, sizeof(back));
	assert_int_equal(vi_maprec_read(run, &back, &err), 0);
	assert_int_equal(back.n, 2);
	assert_string_equal(back.e[1].table, USR_TABLE);
	/* rewritten: replaced, a temporary file left by a crashed run is no obstacle */
	sh("touch '@/setup/mappings.tmp'", run);
	rec.n = 1;
	assert_int_equal(vi_maprec_write(run, &rec, &err), 0);
	assert_int_equal(vi_maprec_read(run, &back, &err), 0);
	assert_int_equal(back.n, 1);
	snprintf(path, sizeof(path), "%s/setup/mappings.tmp", run);
	assert_int_equal(access(path, F_OK), -1);
	/* the file open to others, a symbolic link, a second link: refused */
	sh("chmod 0644 '@/setup/mappings'", run);
	assert_int_equal(vi_maprec_read(run, &back, &err), -EPERM);
	sh("chmod 0600 '@/setup/mappings' && mv '@/setup/mappings' '@/setup/real'", run);
	sh("ln -s real '@/setup/mappings'", run);
	assert_int_equal(vi_maprec_read(run, &back, &err), -ELOOP);
	sh("rm '@/setup/mappings' && ln '@/setup/real' '@/setup/mappings'", run);
	assert_int_equal(vi_maprec_read(run, &back, &err), -EPERM);
	sh("rm '@/setup/real'", run);
	assert_int_equal(vi_maprec_read(run, &back, &err), 0);
	/* the directory open to others: refused for reading and for writing */
	sh("chmod 0755 '@/setup'", run);
	assert_int_equal(vi_maprec_read(run, &back, &err), -EPERM);
	assert_non_null(strstr(err.msg, "open to others"));
	assert_int_equal(vi_maprec_write(run, &rec, &err), -EPERM);
	/* the directory a symbolic link to another of ours: refused */
	sh("mv '@/setup' '@/elsewhere'", run);
	sh("ln -s elsewhere '@/setup' && chmod 0700 '@/elsewhere'", run);
	assert_true(vi_maprec_read(run, &back, &err) < 0);
	assert_true(vi_maprec_write(run, &rec, &err) < 0);
	sh("rm '@/setup' && mv '@/elsewhere' '@/setup'", run);
	/* removed: no record */
	assert_int_equal(vi_maprec_remove(run), 0);
	assert_int_equal(vi_maprec_read(run, &back, &err), -ENOENT);
	assert_int_equal(ut_rm_tree(top), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_parse_refuses),
		cmocka_unit_test(test_add_refuses),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
