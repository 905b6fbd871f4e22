// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the measurement log record built from an event string (vi_measure_record, and
 * vi_measure_record_of for systemd's verity NvPCR), systemd's NvPCR word with the bytes as its
 * signers (vi_measure_verity_word); what the TPM answers to the measurement is fuzz_tpm2's.
 * Input: the bytes, cut at the first NUL, as the event string. Oracles besides the sanitizers: a
 * record is built only from printable ASCII without '"' or '\', starts with 0x1E, ends with the
 * one newline, holds no other control byte, and contains the event verbatim; the same for the
 * NvPCR record, whose content starts with "nvIndexName":"verity"; a word is built only from
 * signers so checked (and without ':'), and is "verity:root:00:" and the signers. The whole
 * input is also a PKCS#7 signature for vi_p7s_signers: what it finds is hex, '/', base64 and
 * ',' only, and makes a word. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "p7s.h"
#include "tpm2.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char rec[VI_MEASURE_RECORD_MAX];
	struct vi_tpm_digest d = { .alg = VI_TPM_ALG_SHA256 };
	struct vi_error err = { "" };
	char event[VI_MEASURE_EVENT_MAX];
	size_t elen = 0;
	int r;

	while (elen < size && elen + 1 < sizeof(event) && data[elen])
		elen++;
	memcpy(event, data, elen);
	event[elen] = '\0';
	struct vi_target t = { .enabled = true, .name = "root", .root_hash_len = 1 };
	char word[VI_MEASURE_WORD_MAX];

	r = vi_measure_verity_word(&t, event, word, sizeof(word), &err);
	CHECK(r == 0 || r == -EINVAL || r == -ENOBUFS);
	if (r == 0) {
		CHECK(!strncmp(word, "verity:root:00:", 15) && !strcmp(word + 15, event));
		for (size_t i = 0; i < elen; i++)
			CHECK(event[i] > 0x20 && event[i] < 0x7f && event[i] != '"' &&
			      event[i] != '\\' && event[i] != ':');
	}
	r = vi_measure_record_of(&(const struct vi_measure_rec){
			.nv_name = "verity", .index = VI_TPM_NVPCR_VERITY, .d = &d, .n = 1,
			.event = event, .event_type = "dm-verity",
			.boot_id = "0123456789abcdef0123456789abcdef", .timestamp_us = 1 },
		rec, sizeof(rec), &err);
	CHECK(r == -EINVAL || r == -ENOBUFS || (r > 0 && (size_t)r == strlen(rec) &&
		strstr(rec, "\"content\":{\"nvIndexName\":\"verity\",\"string\":\"") &&
		strstr(rec, event) && rec[r - 1] == '\n'));
	{
		static char signers[VI_P7S_SIGNERS_MAX];

		r = vi_p7s_signers(data, size, signers, sizeof(signers), &err);
		CHECK(r == 0 || r == -EINVAL || r == -ENOBUFS);
		CHECK(memchr(signers, '\0', sizeof(signers)));
		if (r == 0) {
			CHECK(signers[0] && strchr(signers, '/'));
			for (const char *c = signers; *c; c++)
				CHECK((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') ||
				      (*c >= 'A' && *c <= 'Z') || *c == '/' || *c == '+' ||
				      *c == '=' || *c == ',');
			CHECK(vi_measure_verity_word(&t, signers, word, sizeof(word), &err) == 0);
		} else {
			CHECK(!signers[0]);
		}
	}
	r = vi_measure_record(14, &d, 1, event, "0123456789abcdef0123456789abcdef", 1, rec,
			      sizeof(rec), &err);
	if (r < 0) {
		CHECK(r == -EINVAL || r == -ENOBUFS);
		return 0;
	}
	CHECK((size_t)r == strlen(rec) && r > 2);
	CHECK(rec[0] == 0x1e && rec[r - 1] == '\n');
	for (int i = 1; i < r - 1; i++)
		CHECK(rec[i] >= 0x20 && rec[i] < 0x7f);
	for (size_t i = 0; i < elen; i++)
		CHECK(event[i] > 0x20 && event[i] < 0x7f && event[i] != '"' && event[i] != '\\');
	CHECK(strstr(rec, event));
	return 0;
}
