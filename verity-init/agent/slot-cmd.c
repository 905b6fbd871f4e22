// SPDX-License-Identifier: LGPL-2.1-or-later
/* `verity-init slot [OPTIONS] VERB [ARGS]`: the A/B slot state store from the running system
 * (docs/slots.md, verity-init(8)). The decisions are lib/boot/slots.c's; this file finds the
 * store and the booted slot, runs one verb, and prints.
 *
 *   status [--json]            the state in use and both copies
 *   get-primary                the slot the next boot takes
 *   get-current                the slot running now
 *   get-state SLOT             good | bad (bootable or not)
 *   set-primary SLOT           boot SLOT next, with fresh tries
 *   set-state SLOT good|bad    as RAUC's custom backend means them (good: bootable; as
 *                              mark-good only for the running slot)
 *   mark-good [--json] [--full-read | --no-full-read]
 *                              the running slot booted completely (raises the floor; the
 *                              TPM's at the next boot); with a full read (the option, or the
 *                              policy's slot_full_read=yes recorded as full_read=yes in the
 *                              status file) only once every block of its mapping was read
 *                              and verified
 *   mark-bad [--reason TEXT]   the running slot is bad
 *   tpm-floor                  the TPM NV counter holding the floor (slot_floor=tpm)
 *
 * The floor rises only as vi_slots_floor_may_rise() says: for the slot the agent booted in
 * this boot (the status file's slot= with result=ok), marked good there.
 *
 * Options: --store DEV (default: the store= the agent recorded, else
 * /dev/disk/by-partlabel/verity-slots), --status FILE (default /run/verity-init/status),
 * --cmdline STRING (default /proc/cmdline). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "config.h"
#include "fileio.h"
#include "corruption.h"
#include "hex.h"
#include "runtime.h"
#include "slot-cmd.h"
#include "slot-tpm.h"
#include "slots.h"
#include "status.h"
#include "strutil.h"

#define STATUS_PATH VI_STATUS_DIR "/" VI_STATUS_FILE
#define CMDLINE_MAX 4096

struct slot_cmd {
	const char *store;     /* --store, else the status file's store=, else the default */
	const char *status;    /* the agent's status file */
	const char *cmdline;   /* --cmdline, else /proc/cmdline is read */
	const char *reason;    /* mark-bad --reason */
	bool json;
	int full_read_opt;     /* --full-read 1, --no-full-read 0, else -1 */
	bool full_read;        /* the status file's full_read=yes (the policy's slot_full_read=),
	                        * unless the option says otherwise */
	char mapping[VI_CORRUPT_MAPPING_MAX];   /* the status file's name=: the running root's
	                                      * mapping, read by the full read */
	char store_buf[512];
	char current[8];       /* the booted slot's name, "" when unknown */
	char result[16];       /* the status file's result= ("ok": the agent switched to the
	                        * root), "" without a status file */
	bool booted;           /* current booted completely: the status file's result=ok; never
	                        * without it (verity.slot= alone proves nothing of a version) */
	bool have_status;      /* the status file was read */
	char floor_nv[16];     /* the status file's floor_nv=: the floor's TPM NV counter */
};

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("verity-init: slot: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static int usage(FILE *f)
{
	fputs("Usage: verity-init slot [--store DEV] [--status FILE] [--cmdline STRING] VERB\n"
	      "  status [--json] | get-primary | get-current | get-state SLOT |\n"
	      "  set-primary SLOT | set-state SLOT good|bad |\n"
	      "  mark-good [--json] [--full-read | --no-full-read] |\n"
	      "  mark-bad [--reason TEXT] | tpm-floor\n"
	      "See verity-init(8), docs/slots.md.\n",
	      f);
	return f == stdout ? 0 : 2;
}

/* A slot name as get-current may report it: a..d. */
static bool slot_name_ok(const char *s, size_t len)
{
	return len == 1 && s[0] >= 'a' && s[0] < 'a' + VI_SLOTS_MAX;
}

/* The value of KEY= on a line of the status file (key=value per line), copied into out. */
static bool status_value(const char *file, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key);

	for (const char *p = file; *p;) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len > klen && !strncmp(p, key, klen) && p[klen] == '=')
			return vi_strlcpy_exact(out, size, p + klen + 1, len - klen - 1) == 0;
		p += len + (end ? 1 : 0);
	}
	return false;
}

/* verity.slot= on the kernel command line (the last one wins, as in the kernel). Words split
 * on spaces only: the value is a slot name, never quoted. */
static bool cmdline_slot(const char *cmdline, char *out, size_t size)
{
	static const char key[] = "verity.slot=";
	bool found = false;

	for (const char *p = cmdline; *p;) {
		size_t len = strcspn(p, " \t\n");

		/* a later word replaces an earlier one, even when it is no name we can take */
		if (len > sizeof(key) - 1 && !strncmp(p, key, sizeof(key) - 1))
			found = vi_strlcpy_exact(out, size, p + sizeof(key) - 1,
						 len - (sizeof(key) - 1)) == 0;
		p += len;
		p += strspn(p, " \t\n");
	}
	return found;
}

/* What the agent recorded at boot: the slot and the store it used (docs/slots.md). */
static void read_boot_record(struct slot_cmd *c)
{
	char file[4096], cmdline[CMDLINE_MAX], name[8], full[8];
	const char *line;

	/* no status file: the boot loader chose the slot (verity.slot=), which names the running
	 * slot for get-current and RAUC, but the floor rises only on the agent's own record */
	c->booted = false;
	if (vi_fileio_read_text_at(AT_FDCWD, c->status, file, sizeof(file)) == 0) {
		char store[sizeof(c->store_buf)];
		bool ab_boot = status_value(file, "store", store, sizeof(store));

		status_value(file, "floor_nv", c->floor_nv, sizeof(c->floor_nv));
		if (status_value(file, "full_read", full, sizeof(full)))
			c->full_read = !strcmp(full, "yes");
		if (!status_value(file, "name", c->mapping, sizeof(c->mapping)))
			c->mapping[0] = '\0';
		c->have_status = true;
		status_value(file, "result", c->result, sizeof(c->result));
		/* a slot= of a boot that failed (under dracut after setup, a recovery root runs)
		 * is where the boot stopped, not a version that proved itself */
		c->booted = !strcmp(c->result, VI_STATUS_RESULT_OK);

		if (!c->store && ab_boot && store[0] == '/') {
			memcpy(c->store_buf, store, sizeof(store));
			c->store = c->store_buf;
		}
		if (status_value(file, "slot", name, sizeof(name)) &&
		    slot_name_ok(name, strlen(name))) {
			memcpy(c->current, name, sizeof(name));
			return;
		}
		/* the agent chose the slots this boot and booted none of them (a recovery root
		 * runs): the command line must not name a "running" slot for mark-good */
		if (ab_boot)
			return;
	}
	line = c->cmdline;
	if (!line) {
		if (vi_fileio_read_text_at(AT_FDCWD, "/proc/cmdline", cmdline, sizeof(cmdline)) < 0)
			return;
		line = cmdline;
	}
	if (cmdline_slot(line, name, sizeof(name)) && slot_name_ok(name, strlen(name)))
		memcpy(c->current, name, sizeof(name));
}

static int open_store(const struct slot_cmd *c, bool write, int *ret_fd, struct vi_slots_store *st)
{
	struct vi_error err = { "" };
	int fd = -1, r;

	r = vi_fileio_open_input(c->store, write ? O_RDWR : O_RDONLY, 0, &fd);
	if (r < 0)
		return fail("cannot open the slot store %s: %s", c->store, strerror(-r));
	/* writers one at a time: mark-good and RAUC may run together */
	if (flock(fd, write ? LOCK_EX : LOCK_SH) < 0) {
		r = errno;
		close(fd);
		return fail("cannot lock the slot store %s: %s", c->store, strerror(r));
	}
	if (vi_slots_store_read(fd, VI_SLOTS_DEFAULT_COUNT, st, &err) < 0) {
		close(fd);
		return fail("%s: %s", c->store, err.msg);
	}
	*ret_fd = fd;
	return 0;
}

static int save(const struct slot_cmd *c, int fd, struct vi_slots_store *st,
		const struct vi_slots *next)
{
	struct vi_error err = { "" };

	if (vi_slots_store_write(fd, st, next, &err) < 0)
		return fail("%s: %s", c->store, err.msg);
	return 0;
}

/* JSON string on stdout (strutil.h's, one escaping for every JSON the agent prints). */
static void json_str(const char *s)
{
	vi_json_quote(stdout, s);
}

static void kv(const char *key, const char *value)
{
	char out[256];

	vi_sanitize(value, strlen(value), out, sizeof(out));
	printf("%s=%s\n", key, out);
}

/* The store's ran record as "SLOT MAJ:MIN ROOTHASH" into buf (VI_SLOT_RAN_TEXT_MAX), "" when
 * no slot is recorded. */
#define VI_SLOT_RAN_TEXT_MAX (2 * VERITY_MAX_DIGEST + 32)
static void ran_text(const struct vi_slot_ran *ran, char *buf, size_t size)
{
	char hex[2 * VERITY_MAX_DIGEST + 1];

	buf[0] = '\0';
	if (!ran->set || vi_hex_encode(ran->root_hash, ran->root_hash_len, hex, sizeof(hex)) < 0)
		return;
	snprintf(buf, size, "%s %u:%u %s", vi_slot_name(ran->slot), ran->major, ran->minor, hex);
}

/* status: key=value lines. */
static void status_text(const struct slot_cmd *c, const struct vi_slots_store *st)
{
	const struct vi_slots *s = &st->state;
	int primary = vi_slots_pick(s, 0);
	char ran[VI_SLOT_RAN_TEXT_MAX];

	kv("store", c->store);
	kv("source", vi_slots_source_name(st->source));
	printf("seq=%llu\nfloor=%llu\n", (unsigned long long)s->seq, (unsigned long long)s->floor);
	for (unsigned k = 0; k < VI_SLOTS_COPIES; k++) {
		if (st->valid[k])
			printf("copy%u=valid seq %llu\n", k, (unsigned long long)st->seq[k]);
		else
			printf("copy%u=invalid: %s\n", k, st->why[k].msg);
	}
	printf("current=%s\nprimary=%s\n", c->current,
	       primary >= 0 ? vi_slot_name((unsigned)primary) : "");
	ran_text(&s->ran, ran, sizeof(ran));
	printf("ran=%s\n", ran);
	for (unsigned i = 0; i < s->count; i++) {
		const struct vi_slot *sl = &s->slot[i];
		const char *n = vi_slot_name(i);
		char key[32];

		printf("slot.%s.priority=%u\nslot.%s.tries=%u\nslot.%s.successful=%s\n"
		       "slot.%s.bootable=%s\nslot.%s.version=%llu\n",
		       n, sl->priority, n, sl->tries, n, sl->successful ? "yes" : "no", n,
		       vi_slot_bootable(sl) ? "yes" : "no", n, (unsigned long long)sl->version);
		/* the reason is the store's, read from a disk: its line form, as in the JSON */
		snprintf(key, sizeof(key), "slot.%s.reason", n);
		kv(key, sl->reason);
	}
}

/* A JSON string, or null for "". */
static void json_str_or_null(const char *s)
{
	if (s[0])
		json_str(s);
	else
		fputs("null", stdout);
}

/* status --json: one object. */
static void status_json(const struct slot_cmd *c, const struct vi_slots_store *st)
{
	const struct vi_slots *s = &st->state;
	int primary = vi_slots_pick(s, 0);

	fputs("{\"store\":", stdout);
	json_str(c->store);
	printf(",\"source\":\"%s\",\"seq\":%llu,\"floor\":%llu,\"copies\":[",
	       vi_slots_source_name(st->source), (unsigned long long)s->seq,
	       (unsigned long long)s->floor);
	for (unsigned k = 0; k < VI_SLOTS_COPIES; k++) {
		printf("%s{\"valid\":%s,", k ? "," : "", st->valid[k] ? "true" : "false");
		if (st->valid[k]) {
			printf("\"seq\":%llu}", (unsigned long long)st->seq[k]);
		} else {
			fputs("\"error\":", stdout);
			json_str(st->why[k].msg);
			putchar('}');
		}
	}
	fputs("],\"current\":", stdout);
	json_str_or_null(c->current);
	fputs(",\"primary\":", stdout);
	json_str_or_null(primary >= 0 ? vi_slot_name((unsigned)primary) : "");
	fputs(",\"ran\":", stdout);
	if (s->ran.set) {
		char hex[2 * VERITY_MAX_DIGEST + 1] = "";

		(void)vi_hex_encode(s->ran.root_hash, s->ran.root_hash_len, hex, sizeof(hex));
		printf("{\"slot\":\"%s\",\"device\":\"%u:%u\",\"root_hash\":\"%s\"}",
		       vi_slot_name(s->ran.slot), s->ran.major, s->ran.minor, hex);
	} else {
		fputs("null", stdout);
	}
	fputs(",\"slots\":[", stdout);
	for (unsigned i = 0; i < s->count; i++) {
		const struct vi_slot *sl = &s->slot[i];

		printf("%s{\"name\":\"%s\",\"priority\":%u,\"tries\":%u,\"successful\":%s,"
		       "\"bootable\":%s,\"version\":%llu,\"reason\":", i ? "," : "",
		       vi_slot_name(i), sl->priority, sl->tries, sl->successful ? "true" : "false",
		       vi_slot_bootable(sl) ? "true" : "false", (unsigned long long)sl->version);
		json_str(sl->reason);
		putchar('}');
	}
	puts("]}");
}

/* The slot named by argument `name`, or a refusal. */
static int slot_arg(const struct vi_slots *s, const char *name, unsigned *ret)
{
	int i = vi_slot_index(s, name);

	if (i < 0) {
		char shown[64];

		vi_sanitize(name, strlen(name), shown, sizeof(shown));
		return fail("no slot '%s' (the store has %u: a..%s)", shown, s->count,
			    vi_slot_name(s->count - 1));
	}
	*ret = (unsigned)i;
	return 0;
}

/* The index of the slot that booted completely in this boot, for the floor rule
 * (vi_slots_floor_may_rise), or -1. */
static int running_index(const struct slot_cmd *c, const struct vi_slots *s)
{
	int i;

	if (!c->current[0] || !c->booted)
		return -1;
	i = vi_slot_index(s, c->current);
	return i < 0 ? -1 : i;
}

/* The running slot, or a refusal. */
static int current_slot(const struct slot_cmd *c, const struct vi_slots *s, unsigned *ret)
{
	if (!c->current[0])
		return fail("the running slot is not known: no slot= in %s and no verity.slot= "
			    "on the kernel command line", c->status);
	return slot_arg(s, c->current, ret);
}

enum verb {
	STATUS, GET_PRIMARY, GET_CURRENT, GET_STATE, SET_PRIMARY, SET_STATE, MARK_GOOD, MARK_BAD,
	TPM_FLOOR
};

/* What a verb works on: the command's options, its words (argv[0] the verb), and for a verb
 * over the store the store read from fd and the slot it names (its argument, or the running
 * slot for mark-good and mark-bad). */
struct verb_args {
	const struct slot_cmd *c;
	char **argv;
	int fd;
	struct vi_slots_store *st;
	unsigned i;
};

struct slot_verb {
	const char *name;
	int (*run)(const struct verb_args *a);   /* returns the exit code */
	int argc;      /* with the verb itself */
	bool store;    /* reads the store */
	bool write;
};

/* Before the store says slot i is good: the floor's TPM counter (write-locked now; the agent
 * raises it to the slot's version at the next boot) read into *ret_value, and a raise it could
 * not make refused: a failure leaves the store as it was. */
static int tpm_floor_next(const struct slot_cmd *c, const struct vi_slots *s, unsigned i,
			  uint64_t *ret_value)
{
	struct vi_error err = { "" };

	if (vi_slot_tpm_floor_next(c->floor_nv, s->slot[i].version, ret_value, &err) < 0)
		return fail("%s", err.msg);
	return 0;
}

/* Before the running slot is marked good under a full read: every block of its mapping read
 * and verified, or a refusal that names the block. */
static int full_read_check(const struct slot_cmd *c, unsigned i)
{
	struct vi_error err = { "" };
	struct vi_scrub_result res;

	if (!c->full_read)
		return 0;
	if (vi_scrub(c->mapping, true, c->json, &res, &err) < 0)
		return fail("slot %s: full read of mapping %s: %s: not marked good", vi_slot_name(i),
			    c->mapping, err.msg);
	if (res.nbad)
		return fail("slot %s: full read of mapping %s: data block %llu is corrupted "
			    "(or cannot be read): not marked good", vi_slot_name(i), c->mapping,
			    (unsigned long long)res.bad[0]);
	fprintf(stderr, "verity-init: slot %s: full read of mapping %s: %llu MiB verified in "
		"%.1f s\n", vi_slot_name(i), c->mapping, (unsigned long long)(res.bytes >> 20),
		(double)res.usec / 1e6);
	if (res.fec_corrected != UINT64_MAX && res.fec_corrected)
		fprintf(stderr, "verity-init: slot %s: %llu blocks read only through FEC's "
			"correction (the device is wearing)\n", vi_slot_name(i),
			(unsigned long long)res.fec_corrected);
	return 0;
}

/* What mark-good did, and under a TPM floor what the next boot does. */
static void print_marked_good(const struct slot_cmd *c, const struct vi_slots *s, unsigned i,
			      uint64_t counter)
{
	uint64_t version = s->slot[i].version;
	bool tpm = c->floor_nv[0] != '\0';
	unsigned long long next = tpm && version > counter ? version : counter;

	if (c->json) {
		printf("{\"slot\":\"%s\",\"floor\":%llu,\"floor_nv\":", vi_slot_name(i),
		       (unsigned long long)s->floor);
		if (tpm) {
			json_str(c->floor_nv);
			printf(",\"tpm_floor\":%llu,\"tpm_floor_next_boot\":%llu}\n",
			       (unsigned long long)counter, next);
		} else {
			puts("null,\"tpm_floor\":null,\"tpm_floor_next_boot\":null}");
		}
		return;
	}
	printf("slot %s marked good (rollback floor %llu", vi_slot_name(i),
	       (unsigned long long)s->floor);
	/* floor_nv was checked to be an NV index ("0x" and hex digits) */
	if (tpm && next > counter)
		printf("; TPM NV counter %s: %llu, raised to %llu at the next boot", c->floor_nv,
		       (unsigned long long)counter, next);
	else if (tpm)
		printf("; TPM NV counter %s: %llu", c->floor_nv, (unsigned long long)counter);
	puts(")");
}

static int verb_tpm_floor(const struct verb_args *a)
{
	const struct slot_cmd *c = a->c;
	struct vi_error err = { "" };
	uint32_t index;
	uint64_t v;

	if (vi_slot_tpm_floor_show(c->floor_nv, &v, &index, &err) < 0)
		return fail("%s", err.msg);
	printf("%llu\n", (unsigned long long)v);
	return 0;
}

/* set-state SLOT good|bad. good: bootable; as mark-good (the floor, the TPM's next boot) only
 * for the slot that booted completely and runs now. RAUC's mark-good other lands here for a
 * slot whose version a try that never finished may have recorded. */
static int verb_set_state(const struct verb_args *a)
{
	const struct slot_cmd *c = a->c;
	struct vi_slots_store *st = a->st;
	unsigned i = a->i;
	bool good = !strcmp(a->argv[2], "good");
	struct vi_slots next = st->state;
	int running = running_index(c, &next), rc = 0;
	uint64_t counter = 0;

	if (!good) {
		vi_slots_mark_bad(&next, i, "set-state bad");
	} else {
		/* RAUC's mark-good of the running slot: as mark-good, the full read included */
		if (vi_slots_floor_may_rise(&next, i, running)) {
			rc = full_read_check(c, i);
			if (!rc)
				rc = tpm_floor_next(c, &next, i, &counter);
		}
		vi_slots_mark_good(&next, i, running);
	}
	return rc ? rc : save(c, a->fd, st, &next);
}

/* mark-good of the running slot: refused unless it booted completely (the floor rule). */
static int verb_mark_good(const struct verb_args *a)
{
	const struct slot_cmd *c = a->c;
	struct vi_slots_store *st = a->st;
	unsigned i = a->i;
	struct vi_slots next = st->state;
	int running = running_index(c, &next), rc;
	uint64_t counter = 0;

	if (!c->have_status)
		return fail("slot %s: no status file %s: the agent did not record this boot, and "
			    "verity.slot= on the command line does not count for the rollback floor: "
			    "not marked good", vi_slot_name(i), c->status);
	if (!vi_slots_floor_may_rise(&next, i, running))
		return fail("slot %s did not boot completely (result=%s in %s): not marked good",
			    vi_slot_name(i), c->result, c->status);
	rc = full_read_check(c, i);
	if (rc)
		return rc;
	vi_slots_mark_good(&next, i, running);
	rc = tpm_floor_next(c, &next, i, &counter);
	if (!rc)
		rc = save(c, a->fd, st, &next);
	if (!rc)
		print_marked_good(c, &next, i, counter);
	return rc;
}

static int verb_status(const struct verb_args *a)
{
	if (a->c->json)
		status_json(a->c, a->st);
	else
		status_text(a->c, a->st);
	return 0;
}

static int verb_get_primary(const struct verb_args *a)
{
	int p = vi_slots_pick(&a->st->state, 0);

	if (p < 0)
		return fail("no bootable slot");
	puts(vi_slot_name((unsigned)p));
	return 0;
}

static int verb_get_current(const struct verb_args *a)
{
	if (!a->c->current[0])
		return fail("the running slot is not known: no slot= in %s and no "
			    "verity.slot= on the kernel command line", a->c->status);
	puts(a->c->current);
	return 0;
}

static int verb_get_state(const struct verb_args *a)
{
	puts(vi_slot_bootable(&a->st->state.slot[a->i]) ? "good" : "bad");
	return 0;
}

static int verb_set_primary(const struct verb_args *a)
{
	struct vi_slots next = a->st->state;

	vi_slots_set_primary(&next, a->i);
	return save(a->c, a->fd, a->st, &next);
}

static int verb_mark_bad(const struct verb_args *a)
{
	struct vi_slots next = a->st->state;
	int rc;

	vi_slots_mark_bad(&next, a->i, a->c->reason ? a->c->reason : "mark-bad");
	rc = save(a->c, a->fd, a->st, &next);
	if (!rc)
		printf("slot %s marked bad\n", vi_slot_name(a->i));
	return rc;
}

static const struct slot_verb verbs[] = {
	[STATUS] = { "status", verb_status, 1, true, false },
	[GET_PRIMARY] = { "get-primary", verb_get_primary, 1, true, false },
	[GET_CURRENT] = { "get-current", verb_get_current, 1, false, false },
	[GET_STATE] = { "get-state", verb_get_state, 2, true, false },
	[SET_PRIMARY] = { "set-primary", verb_set_primary, 2, true, true },
	[SET_STATE] = { "set-state", verb_set_state, 3, true, true },
	[MARK_GOOD] = { "mark-good", verb_mark_good, 1, true, true },
	[MARK_BAD] = { "mark-bad", verb_mark_bad, 1, true, true },
	[TPM_FLOOR] = { "tpm-floor", verb_tpm_floor, 1, false, false },
};

/* The verb of argv[0] with its arguments checked, or -1. */
static int verb_of(const struct slot_cmd *c, int argc, char **argv)
{
	for (size_t v = 0; v < sizeof(verbs) / sizeof(verbs[0]); v++) {
		if (strcmp(argv[0], verbs[v].name))
			continue;
		if (argc != verbs[v].argc || (c->json && v != STATUS && v != MARK_GOOD) ||
		    (c->reason && v != MARK_BAD) ||
		    (c->full_read_opt >= 0 && v != MARK_GOOD && v != SET_STATE))
			return -1;
		if (v == SET_STATE && strcmp(argv[2], "good") && strcmp(argv[2], "bad"))
			return -1;
		return (int)v;
	}
	return -1;
}

static int run_verb(struct slot_cmd *c, int argc, char **argv)
{
	struct vi_slots_store st = { .source = VI_SLOTS_FROM_DEFAULTS };
	struct verb_args a = { .c = c, .argv = argv, .fd = -1, .st = &st };
	int verb = verb_of(c, argc, argv), rc;

	if (verb < 0)
		return usage(stderr);
	if (!verbs[verb].store)
		return verbs[verb].run(&a);
	rc = open_store(c, verbs[verb].write, &a.fd, &st);
	if (rc)
		return rc;
	if (argc >= 2)
		rc = slot_arg(&st.state, argv[1], &a.i);
	else if (verb == MARK_GOOD || verb == MARK_BAD)
		rc = current_slot(c, &st.state, &a.i);
	if (!rc)
		rc = verbs[verb].run(&a);
	close(a.fd);
	return rc;
}

int vi_slot_cmd_main(int argc, char **argv)
{
	struct slot_cmd c = { .status = STATUS_PATH, .full_read_opt = -1 };
	char *pos[4];
	int n = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **opt = !strcmp(a, "--store")   ? &c.store
				   : !strcmp(a, "--status")  ? &c.status
				   : !strcmp(a, "--cmdline") ? &c.cmdline
				   : !strcmp(a, "--reason")  ? &c.reason
							     : NULL;

		if (opt && i + 1 < argc) {
			*opt = argv[++i];
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			return usage(stdout);
		} else if (!strcmp(a, "--json")) {
			c.json = true;
		} else if (!strcmp(a, "--full-read") || !strcmp(a, "--no-full-read")) {
			c.full_read_opt = a[2] == 'f';
		} else if (a[0] == '-' || opt || n == (int)(sizeof(pos) / sizeof(pos[0]))) {
			return usage(stderr);
		} else {
			pos[n++] = argv[i];
		}
	}
	if (!n)
		return usage(stderr);
	read_boot_record(&c);
	if (!c.mapping[0])
		snprintf(c.mapping, sizeof(c.mapping), "%s", VI_DEFAULT_NAME);
	if (c.full_read_opt >= 0)
		c.full_read = c.full_read_opt;
	if (!c.store)
		c.store = VI_SLOT_STORE_DEFAULT;
	return run_verb(&c, n, pos);
}
