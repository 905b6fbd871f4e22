// SPDX-License-Identifier: LGPL-2.1-or-later
/* Managed recovery after the switch, the pure part (include/managed.h): the pstore record's
 * reading, the EFI variable's text, the decision. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "hex.h"
#include "managed.h"

#define PREFIX "verity-init-managed 1 roothash="
#define DEGRADED " state=degraded boots="

/* next.boots = before + 1 stays one digit */
_Static_assert(VI_MANAGED_TRIES < VI_MANAGED_BOOTS_MAX, "the boot count outgrows its digit");

/* The lines the kernel prints when dm-verity ends the boot (verity_handle_err and its I/O error
 * path: panic() or kernel_restart()), whole: the message text of a kernel record (facility 0,
 * so "<0>".."<7>"; user space cannot write those), after its optional time stamp, is exactly one
 * of these, and the record's reason fits (a panic is dumped as "Panic", a restart as "Shutdown",
 * "Restart" on kernels before 5.8, or "Emergency"). A message that merely contains the words
 * (a file name in an exec warning, a device label) is not dm-verity's end. */
static const struct {
	const char *text;
	bool panic;
	enum vi_pstore_end end;
} endings[] = {
	{ "Kernel panic - not syncing: dm-verity device corrupted", true, VI_PSTORE_CORRUPTION },
	{ "Kernel panic - not syncing: dm-verity device has I/O error", true, VI_PSTORE_IO_ERROR },
	{ "reboot: Restarting system with command 'dm-verity device corrupted'", false,
	  VI_PSTORE_CORRUPTION },
	{ "reboot: Restarting system with command 'dm-verity device has I/O error'", false,
	  VI_PSTORE_IO_ERROR },
};

/* The message text of a kernel record's line [p, e): after "<L>" (L 0-7) and an optional
 * "[ seconds.fraction] "; NULL when the line is not a kernel record's. */
static const char *kernel_message(const char *p, const char *e)
{
	if (e - p < 3 || p[0] != '<' || p[1] < '0' || p[1] > '7' || p[2] != '>')
		return NULL;
	p += 3;
	if (p < e && *p == '[') {
		const char *q = memchr(p, ']', (size_t)(e - p));

		if (!q || q + 1 >= e || q[1] != ' ')
			return NULL;
		for (const char *c = p + 1; c < q; c++)
			if (*c != ' ' && *c != '.' && (*c < '0' || *c > '9'))
				return NULL;
		p = q + 2;
	}
	return p;
}

static bool reason_is(const char *reason, bool panic)
{
	if (panic)
		return !strcmp(reason, "Panic");
	return !strcmp(reason, "Shutdown") || !strcmp(reason, "Restart") ||
	       !strcmp(reason, "Emergency");
}

const char *vi_pstore_end_name(enum vi_pstore_end end)
{
	switch (end) {
	case VI_PSTORE_CORRUPTION: return "corruption";
	case VI_PSTORE_IO_ERROR: return "I/O error";
	default: return "other";
	}
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* pstore's header "REASON#N PartM" over the line [p, e): the reason copied, or false. */
static bool header(const char *p, const char *e, char reason[VI_PSTORE_REASON_MAX])
{
	size_t n = 0;

	while (p + n < e && is_alpha(p[n]) && n < VI_PSTORE_REASON_MAX - 1)
		n++;
	if (n == 0 || p + n >= e || p[n] != '#')
		return false;
	memcpy(reason, p, n);
	reason[n] = '\0';
	p += n + 1;
	if (p >= e || !is_digit(*p))
		return false;
	while (p < e && is_digit(*p))
		p++;
	if ((size_t)(e - p) < sizeof(" Part1") - 1 || memcmp(p, " Part", 5) != 0 || !is_digit(p[5]))
		return false;
	for (p += 5; p < e && is_digit(*p); p++)
		;
	return p == e;
}

enum vi_pstore_end vi_pstore_parse(const char *buf, size_t len, char reason[VI_PSTORE_REASON_MAX])
{
	const char *p = buf, *e, *end;
	enum vi_pstore_end ret = VI_PSTORE_OTHER;

	reason[0] = '\0';
	if (!buf || len == 0)
		return VI_PSTORE_OTHER;
	end = buf + (len > VI_PSTORE_RECORD_MAX ? VI_PSTORE_RECORD_MAX : len);
	e = memchr(p, '\n', (size_t)(end - p));
	if (!e)
		e = end;
	if (!header(p, e, reason)) {
		reason[0] = '\0';
		return VI_PSTORE_OTHER;
	}
	for (p = e; p < end && ret == VI_PSTORE_OTHER; p = e + 1) {
		e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		const char *m = kernel_message(p, e);

		for (size_t i = 0; m && i < sizeof(endings) / sizeof(endings[0]); i++)
			if ((size_t)(e - m) == strlen(endings[i].text) &&
			    !memcmp(m, endings[i].text, (size_t)(e - m)) &&
			    reason_is(reason, endings[i].panic))
				ret = endings[i].end;
		if (e == end)
			break;
	}
	return ret;
}

int vi_managed_encode(const struct vi_managed_record *rec, char *buf, size_t size,
		      struct vi_error *err)
{
	char hex[2 * VERITY_MAX_DIGEST + 1];
	int n;

	if (rec->root_hash_len == 0 || rec->root_hash_len > VERITY_MAX_DIGEST)
		return vi_err(err, "managed record: root hash of %u bytes", rec->root_hash_len);
	if (vi_hex_encode(rec->root_hash, rec->root_hash_len, hex, sizeof(hex)) < 0)
		return vi_err(err, "managed record: root hash not encodable");
	if (rec->boots > VI_MANAGED_BOOTS_MAX || (rec->boots && !rec->degraded))
		return vi_err(err, "managed record: %u boots", rec->boots);
	if (rec->degraded)
		n = snprintf(buf, size, PREFIX "%s state=degraded boots=%u\n", hex, rec->boots);
	else
		n = snprintf(buf, size, PREFIX "%s state=restart\n", hex);
	if (n < 0 || (size_t)n >= size)
		return vi_errno(err, -ENOBUFS, "managed record: does not fit %zu bytes", size);
	return n;
}

int vi_managed_decode(const char *buf, size_t len, struct vi_managed_record *ret,
		      struct vi_error *err)
{
	const size_t plen = sizeof(PREFIX) - 1;
	struct vi_managed_record rec = { .root_hash_len = 0 };
	const char *p, *end = buf + len;
	size_t n = 0;

	if (len < plen || memcmp(buf, PREFIX, plen) != 0)
		return vi_err(err, "managed record: not a verity-init-managed 1 line");
	for (p = buf + plen; p + n < end && ((p[n] >= '0' && p[n] <= '9') ||
					      (p[n] >= 'a' && p[n] <= 'f')); n++)
		;
	if (n == 0 || n % 2 || n > 2 * VERITY_MAX_DIGEST)
		return vi_err(err, "managed record: root hash of %zu hex digits", n);
	if (vi_hex_decode(p, n, rec.root_hash, sizeof(rec.root_hash), NULL) < 0)
		return vi_err(err, "managed record: root hash not hex");
	rec.root_hash_len = (unsigned)(n / 2);
	p += n;
	if ((size_t)(end - p) == sizeof(" state=restart\n") - 1 &&
	    !memcmp(p, " state=restart\n", (size_t)(end - p)))
		rec.degraded = false;
	else if ((size_t)(end - p) == sizeof(" state=degraded\n") - 1 &&
		 !memcmp(p, " state=degraded\n", (size_t)(end - p)))
		rec.degraded = true;
	else if ((size_t)(end - p) == sizeof(DEGRADED "N\n") - 1 &&
		 !memcmp(p, DEGRADED, sizeof(DEGRADED) - 1) && end[-1] == '\n' &&
		 is_digit(end[-2]) && (unsigned)(end[-2] - '0') <= VI_MANAGED_BOOTS_MAX) {
		rec.degraded = true;
		rec.boots = (unsigned)(end[-2] - '0');
	} else {
		return vi_err(err, "managed record: no state=restart or state=degraded boots=N line "
			      "end");
	}
	*ret = rec;
	return 0;
}

static bool same_root(const struct vi_managed_record *rec, const uint8_t *hash, unsigned len)
{
	return rec->root_hash_len == len && !memcmp(rec->root_hash, hash, len);
}

int vi_managed_decide(enum vi_pstore_end end, const struct vi_managed_record *last,
		      const uint8_t *hash, unsigned len, struct vi_managed_decision *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (len == 0 || len > VERITY_MAX_DIGEST)
		return -EINVAL;
	bool was_degraded = last && last->degraded && same_root(last, hash, len);

	if (end != VI_PSTORE_OTHER)
		ret->crashed = !last || same_root(last, hash, len);
	ret->degraded = ret->crashed || was_degraded;
	memcpy(ret->next.root_hash, hash, len);
	ret->next.root_hash_len = len;
	ret->next.degraded = ret->degraded;
	if (ret->degraded) {
		unsigned before = was_degraded ? last->boots : 0;

		ret->refused = before >= VI_MANAGED_TRIES;
		ret->next.boots = ret->refused ? before : before + 1;
	}
	ret->write = !last || !same_root(last, hash, len) || last->degraded != ret->degraded ||
		     last->boots != ret->next.boots;
	return 0;
}

bool vi_managed_confirm(const struct vi_managed_record *last, const uint8_t *hash, unsigned len,
			struct vi_managed_record *next)
{
	if (!last->degraded || !last->boots || !same_root(last, hash, len))
		return false;
	*next = *last;
	next->boots = 0;
	return true;
}

/* kmsg_dump's reasons (include/linux/kmsg_dump.h): a restart dumps with SHUTDOWN, which a
 * dumper without a max_reason of its own takes only with printk.always_kmsg_dump */
#define KMSG_DUMP_SHUTDOWN 4

enum vi_managed_trace vi_managed_trace(const struct vi_managed_trace_input *in)
{
	if (!in->panics && !in->restarts)
		return VI_MANAGED_TRACE_NOT_NEEDED;
	if (!in->backend[0] || !strcmp(in->backend, "(null)"))
		return VI_MANAGED_TRACE_NO_BACKEND;
	if (in->restarts && (in->backend_max_reason >= 0 ?
			     in->backend_max_reason < KMSG_DUMP_SHUTDOWN : !in->always_kmsg_dump))
		return VI_MANAGED_TRACE_RESTART_LOST;
	return VI_MANAGED_TRACE_RECORDED;
}

const char *vi_managed_trace_text(enum vi_managed_trace t)
{
	switch (t) {
	case VI_MANAGED_TRACE_RECORDED:
		return "pstore";
	case VI_MANAGED_TRACE_NOT_NEEDED:
		return "not needed (bad blocks are I/O errors)";
	case VI_MANAGED_TRACE_NO_BACKEND:
		return "none: no pstore backend (efi_pstore, ramoops) is registered";
	case VI_MANAGED_TRACE_RESTART_LOST:
		break;
	}
	return "none: a restart is not dumped (printk.always_kmsg_dump=1 or ramoops.max_reason=4 "
	       "keeps it)";
}

enum vi_managed_slot_verdict vi_managed_slot_verdict(enum vi_pstore_end end,
						     const struct vi_slot_ran *ran, unsigned i,
						     uint32_t major, uint32_t minor,
						     const uint8_t *hash, unsigned len)
{
	if (end == VI_PSTORE_OTHER)
		return VI_MANAGED_SLOT_CLEAR;
	if (!ran->set)
		return VI_MANAGED_SLOT_UNKNOWN;
	if (ran->slot != i)
		return VI_MANAGED_SLOT_OTHER;
	if (ran->major != major || ran->minor != minor || ran->root_hash_len != len ||
	    memcmp(ran->root_hash, hash, len))
		return VI_MANAGED_SLOT_CHANGED;
	return VI_MANAGED_SLOT_BLAMED;
}

const char *vi_managed_slot_verdict_name(enum vi_managed_slot_verdict v)
{
	switch (v) {
	case VI_MANAGED_SLOT_CLEAR:
		return "clear";
	case VI_MANAGED_SLOT_BLAMED:
		return "blamed";
	case VI_MANAGED_SLOT_OTHER:
		return "another slot ran";
	case VI_MANAGED_SLOT_CHANGED:
		return "changed since it ran";
	case VI_MANAGED_SLOT_UNKNOWN:
		break;
	}
	return "no record of the slot that ran";
}
