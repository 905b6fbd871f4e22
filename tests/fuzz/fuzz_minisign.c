// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: minisign public keys, signatures and secret keys (the signature file is
 * untrusted: it sits next to the manifest on a disk). Every parser sees the whole input.
 * Oracle besides the sanitizers: a parsed signature never verifies against a fixed key over a
 * fixed message (the fuzzer cannot forge Ed25519; a success means the check was skipped), and
 * the key id is forced equal so the Ed25519 path is actually reached. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "minisign.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A real key (minisign -G), so the verifier does real curve arithmetic on it. */
static const char test_pub[] =
	"untrusted comment: minisign public key CFF5BA0D34E8A7B0\n"
	"RWSwp+g0Dbr1z+7gXaTbu0t+4i40TN2boF5ENfC1CMkU5rqdoV17zZuo\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t msg[] = "not the signed message\n";
	const char *s = (const char *)data;
	struct vi_minisign_pubkey pk, fixed;
	struct vi_minisign_seckey sk;
	struct vi_minisign_sig sig;
	struct vi_error err;
	int r;

	(void)vi_minisign_pubkey_parse(s, size, &pk, &err);
	(void)vi_minisign_seckey_parse(s, size, &sk, &err);

	memset(&err, 0x55, sizeof(err));
	r = vi_minisign_sig_parse(s, size, &sig, &err);
	if (r < 0) {
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		return 0;
	}
	CHECK(size <= MINISIGN_MAX_FILE);
	CHECK(sig.trusted_comment_len <= MINISIGN_COMMENT_MAX);
	CHECK(strlen(sig.trusted_comment) == sig.trusted_comment_len);

	CHECK(vi_minisign_pubkey_parse(test_pub, sizeof(test_pub) - 1, &fixed, &err) == 0);
	memcpy(sig.key_id, fixed.key_id, sizeof(sig.key_id));
	CHECK(vi_minisign_verify(&fixed, &sig, msg, sizeof(msg) - 1, true, &err) < 0);
	CHECK(vi_minisign_verify(&fixed, &sig, msg, sizeof(msg) - 1, false, &err) < 0);
	return 0;
}
