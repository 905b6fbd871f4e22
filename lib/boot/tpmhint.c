// SPDX-License-Identifier: LGPL-2.1-or-later
/* A TPM the kernel does not show: what the firmware announces and what the command line may
 * hide (include/tpmhint.h). */
#include "tpmhint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cmdtoken.h"
#include "strutil.h"

/* the kernel's records are at most 1024 bytes of text plus the prefix and escapes (printk's
 * CONSOLE_EXT_LOG_MAX is 8192); a smaller buffer would make read(2) fail with EINVAL */
#define KMSG_RECORD_MAX 8192

static bool key_is(const struct vi_cmdline_tok *t, const char *k)
{
	return t->key_len == strlen(k) && !memcmp(t->key, k, t->key_len);
}

static bool val_is(const struct vi_cmdline_tok *t, const char *v)
{
	return t->val && t->val_len == strlen(v) && !memcmp(t->val, v, t->val_len);
}

/* s[0..len) contains needle, any case */
static bool has_word_part(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; i + n <= len; i++)
		if (!strncasecmp(s + i, needle, n))
			return true;
	return false;
}

/* a comma-separated list with an entry naming a TPM driver or its init function */
static bool list_names_tpm(const char *v, size_t len)
{
	size_t start = 0;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && v[i] != ',')
			continue;
		if (has_word_part(v + start, i - start, "tpm") ||
		    has_word_part(v + start, i - start, "tis") ||
		    has_word_part(v + start, i - start, "crb"))
			return true;
		start = i + 1;
	}
	return false;
}

/* The kernel's own parameters: it reads '-' and '_' in a name as the same (parameq), and none
 * after "--". */
static bool kernel_word_hides(const struct vi_cmdline_tok *t)
{
	if (vi_key_eq(t->key, t->key_len, "acpi"))
		return val_is(t, "off") || val_is(t, "ht");
	if (vi_key_eq(t->key, t->key_len, "acpi_rsdp"))
		return true;
	if (vi_key_eq(t->key, t->key_len, "module_blacklist") ||
	    vi_key_eq(t->key, t->key_len, "initcall_blacklist"))
		return t->val && list_names_tpm(t->val, t->val_len);
	return false;
}

/* What programs of the initramfs read from /proc/cmdline, past "--" too: kmod's
 * modprobe.blacklist=, dracut's rd.driver.blacklist= and its older spelling rdblacklist=. */
static bool initramfs_word_hides(const struct vi_cmdline_tok *t)
{
	if (key_is(t, "modprobe.blacklist") || key_is(t, "rd.driver.blacklist") ||
	    key_is(t, "rdblacklist"))
		return t->val && list_names_tpm(t->val, t->val_len);
	return false;
}

bool vi_tpm_cmdline_hides(const char *cmdline, size_t len, char *word, size_t size)
{
	struct vi_cmdline_tok t;
	bool past_dashdash = false;
	size_t pos = 0;
	int r;

	/* 1: a word; 2: "--" (init's words follow); 0: the end */
	while ((r = vi_cmdline_next(cmdline, len, &pos, &t)) > 0) {
		if (r == 2) {
			past_dashdash = true;
			continue;
		}
		if (!initramfs_word_hides(&t) && (past_dashdash || !kernel_word_hides(&t)))
			continue;
		if (size)
			vi_sanitize(t.key, t.val ? (size_t)(t.val + t.val_len - t.key) : t.key_len,
				    word, size);
		return true;
	}
	return false;
}

/* A decimal number ending at one of stops; *p moves past it. Strict: digits only, no overflow. */
static int number(const char **p, const char *end, char stop, uint64_t *ret)
{
	uint64_t v = 0;
	const char *s = *p;

	if (s == end || *s < '0' || *s > '9')
		return -EINVAL;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (s == end || *s != stop)
		return -EINVAL;
	*p = s + 1;
	*ret = v;
	return 0;
}

/* "efi: " then words separated by spaces; one starts with a TPM table's name */
static bool efi_names_tpm(const char *m, const char *end)
{
	static const char prefix[] = "efi: ";
	const char *w;

	if ((size_t)(end - m) < sizeof(prefix) - 1 || memcmp(m, prefix, sizeof(prefix) - 1))
		return false;
	for (w = m + sizeof(prefix) - 1; w < end; w++) {
		if (w[-1] != ' ')
			continue;
		if ((size_t)(end - w) >= 12 && (!memcmp(w, "TPMFinalLog=", 12) ||
						 !memcmp(w, "TPMEventLog=", 12)))
			return true;
	}
	return false;
}

/* Record: PRIO,SEQ,TIMESTAMP,FLAGS[,more fields];MESSAGE\n[ KEY=VALUE\n]...
 * (Documentation/ABI/testing/dev-kmsg). PRIO is facility * 8 + level. */
int vi_kmsg_record_tpm(const char *rec, size_t len, uint64_t *ret_seq)
{
	const char *p = rec, *end = rec + len, *msg, *nl;
	uint64_t prio, seq, ts;

	if (number(&p, end, ',', &prio) < 0 || number(&p, end, ',', &seq) < 0 ||
	    number(&p, end, ',', &ts) < 0)
		return -EINVAL;
	msg = memchr(p, ';', (size_t)(end - p));
	if (!msg)
		return -EINVAL;
	msg++;
	nl = memchr(msg, '\n', (size_t)(end - msg));
	*ret_seq = seq;
	return prio < 8 && efi_names_tpm(msg, nl ? nl : end);
}

int vi_kmsg_scan_tpm(int fd, bool *ret_announced, bool *ret_complete)
{
	char rec[KMSG_RECORD_MAX];
	bool announced = false, complete = true, any = false;
	uint64_t next = 0, seq;

	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec));
		int r;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EPIPE) {
			complete = false;   /* overwritten while we read */
			continue;
		}
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		r = vi_kmsg_record_tpm(rec, (size_t)n, &seq);
		if (r < 0)
			return r;
		if (seq != next)    /* the first is 0: a later one means the start was lost */
			complete = false;
		any = true;
		next = seq + 1;
		announced = announced || r == 1;
	}
	*ret_announced = announced;
	*ret_complete = complete && any;
	return 0;
}

static void why(struct vi_tpm_hint *h, const char *text)
{
	if (!h->why[0])
		snprintf(h->why, sizeof(h->why), "%s", text);
}

void vi_tpm_hint_read(const char *fw_dir, const char *kmsg_path, const char *cmdline,
		      struct vi_tpm_hint *h)
{
	char path[512], word[96];
	bool announced = false, complete = false;
	int fd;

	memset(h, 0, sizeof(*h));
	snprintf(path, sizeof(path), "%s/acpi/tables/TPM2", fw_dir);
	if (access(path, F_OK) == 0) {
		h->announced = true;
		why(h, "the firmware announces one: ACPI TPM2 table");
	}
	snprintf(path, sizeof(path), "%s/efi", fw_dir);
	if (access(path, F_OK) == 0) {
		fd = open(kmsg_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (fd >= 0) {
			if (vi_kmsg_scan_tpm(fd, &announced, &complete) < 0)
				complete = false;
			close(fd);
		}
		if (announced) {
			h->announced = true;
			why(h, "the firmware announces one: EFI TPM event log in the kernel log");
		} else if (!complete) {
			h->may_be_hidden = true;
			why(h, "the kernel log of this EFI boot does not reach back to its first "
			    "records, which name the EFI TPM tables");
		}
	}
	if (cmdline && vi_tpm_cmdline_hides(cmdline, strlen(cmdline), word, sizeof(word))) {
		h->may_be_hidden = true;
		if (!h->why[0])
			snprintf(h->why, sizeof(h->why), "the command line may hide one: %s", word);
	}
}
