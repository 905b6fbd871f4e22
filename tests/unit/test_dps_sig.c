// SPDX-License-Identifier: LGPL-2.1-or-later
/* The DPS verity-signature JSON parser, on the object systemd-repart 252 wrote for a test image
 * (CopyBlocks= data, Verity=data/hash/signature, a self-signed RSA test certificate), and on
 * mutations of it. The signature inside is checked here only structurally (DER); the kernel
 * verifies it against its keyrings. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dps_sig.h"
#include "hex.h"

#define ROOT "6d7eb4c35ee7e5f624c135b703dcf4a94772041095be74abb30c839c2ea9c057"
#define FPR  "3520be668e85b6d5de62c2c364614755bc82929a1a591e9416fe61f6628a1427"

/* systemd-repart --private-key=test.key --certificate=test.crt: partition 3 up to its first
 * NUL (the rest of the 16 KiB partition is NUL padding). */
static const char REPART[] =
	"{\"rootHash\":\"6d7eb4c35ee7e5f624c135b703dcf4a94772041095be74abb30c839c2ea9c057\",\"certificateF"
	"ingerprint\":\"3520be668e85b6d5de62c2c364614755bc82929a1a591e9416fe61f6628a1427\",\"signature\":\""
	"MIIEwQYJKoZIhvcNAQcCoIIEsjCCBK4CAQExDzANBglghkgBZQMEAgEFADALBgkqhkiG9w0BBwGgggMjMIIDHzCCAgeg"
	"AwIBAgIUTE+aqe+7J/u3Y74ktk2WREmw2uUwDQYJKoZIhvcNAQELBQAwHzEdMBsGA1UEAwwUdmVyaXR5LWluaXQgdGVz"
	"dCBrZXkwHhcNMjYxMjAzMDgwNzE5WhcNMzYxMTMwMDgwNzE5WjAfMR0wGwYDVQQDDBR2ZXJpdHktaW5pdCB0ZXN0IGtl"
	"eTCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAKw00SSN5ZocYFuYrokUo3IYWSPm/HoMVF6OivFxSb8AP/Mz"
	"bmvFdTTa2w1BscGrXwBZjOkFOPDLSwQWyJ8AGNPYOWgHfVkoB4UXcUolMvaTKjIyd6AAGSqljsv/ZJqadIvrVm/uukba"
	"unigKAYMdi1eAp5CnYrmZGHbGDQglE+6iH8aRlbfwxdGqMEtOB21ilW8hQZ1kxANG17R+enfgPHXLJgvC1RNSFPjVwmo"
	"cFfoDnpyRPmkgm/NsropS476qIrs+VVPWf6VhcvJ9rEouewz9AgCTgmhOtwjfTFMUszfcFdQD2jxrdxvsU0wF29RhVY7"
	"UOBJStxIa/henvrF7jsCAwEAAaNTMFEwHQYDVR0OBBYEFI9EnNszmexGo70Mjnrv/u1D5+1cMB8GA1UdIwQYMBaAFI9E"
	"nNszmexGo70Mjnrv/u1D5+1cMA8GA1UdEwEB/wQFMAMBAf8wDQYJKoZIhvcNAQELBQADggEBAGbU7zrYw6pwXvQRKlYQ"
	"CBzTslp7PHQpxgu+T4UDylIFDgiA0UMLvH3fVW3GnrBhaJ5ddopgpsX6kWxjbBtMSNLHSDXE2Mc1EPN0iopWHt01tOKh"
	"NYVmufSthBUMO8CSgFyHG0Z1W9/vHMpJ4TDuyJl7YBsVfKy/fqR0KKzz9x6U3x+WR95YEAqv1UrHngaMcyq74fez9z92"
	"9fMi7X/gdD0PDXn7niJ0w4tR/LRIrnIXsxDsmZxWbS8RZCeNSeBNqNBgozQi/j80I+AJqk/XlK45g6wBYJxr1aLsEsmW"
	"nrVXonIAX7XiVWZHNkMYpSktb6uJbZQdWT87rNXA0D5fPkwxggFiMIIBXgIBATA3MB8xHTAbBgNVBAMMFHZlcml0eS1p"
	"bml0IHRlc3Qga2V5AhRMT5qp77sn+7djviS2TZZESbDa5TANBglghkgBZQMEAgEFADANBgkqhkiG9w0BAQEFAASCAQCq"
	"UjlxQaa0dGIeCPUwow8tif/+MtN34vcCBY6deeSxTZLGrkx65ntBaHndzkOMUKfKObxEexqzzFSu8WJ5+ZBxEdG9uIgD"
	"f+1Co9UNoySkgfx93AcZ/cD/nc0YyvSpuQmlHp32IMFbgtAyKzzmXMjZY4QCD8lyKLqB/H51fjuaBjgvx5NsmqPWu+ZF"
	"b0wmGursTWCQHrgUiJgWCkHvHAYoXThm6Q1xDoCUHzH9zC7euQTZ6MIOdMEjm1kzxSwZJK5ESJPIQd0nLcbNHMleV6uR"
	"gvZlJ//0fwgVLyYkq//IYOzNXdkFKcQGLdmJCVzO6CnmKcOGJd79c9L0gQC3kOjk\"}";

static struct vi_dps_sig sig;   /* 16 KiB: not on the stack */

static int parse(const char *s, size_t len, struct vi_error *err)
{
	return vi_dps_sig_parse(s, len, &sig, err);
}

/* REPART with the first occurrence of `from` replaced by `to`. */
static char *subst(const char *from, const char *to, size_t *ret_len)
{
	const char *p = strstr(REPART, from);
	size_t n = sizeof(REPART) - 1 - strlen(from) + strlen(to);
	char *out = malloc(n + 1);

	assert_non_null(p);
	assert_non_null(out);
	snprintf(out, n + 1, "%.*s%s%s", (int)(p - REPART), REPART, to, p + strlen(from));
	*ret_len = n;
	return out;
}

static int parse_subst(const char *from, const char *to, struct vi_error *err)
{
	size_t n = 0;
	char *s = subst(from, to, &n);
	int r = parse(s, n, err);

	free(s);
	return r;
}

static void test_repart_object(void **state)
{
	struct vi_error err = { "" };
	uint8_t root[32], fpr[32];

	(void)state;
	assert_int_equal(parse(REPART, sizeof(REPART) - 1, &err), 0);
	assert_int_equal(vi_hex_decode_exact(ROOT, root, sizeof(root)), 0);
	assert_int_equal(vi_hex_decode_exact(FPR, fpr, sizeof(fpr)), 0);
	assert_int_equal(sig.root_hash_len, 32);
	assert_memory_equal(sig.root_hash, root, 32);
	assert_true(sig.has_fingerprint);
	assert_memory_equal(sig.fingerprint, fpr, 32);
	/* DER SEQUENCE, long form length: 0x30 0x82 0x04 0xc1 -> 4 + 1217 bytes */
	assert_int_equal(sig.sig_len, 1221);
	assert_int_equal(sig.sig[0], 0x30);
}

static void test_padding(void **state)
{
	struct vi_error err = { "" };
	size_t n = sizeof(REPART) - 1;
	char *buf = calloc(1, 16384);

	(void)state;
	assert_non_null(buf);
	memcpy(buf, REPART, n);
	/* the whole partition, as read from disk */
	assert_int_equal(parse(buf, 16384, &err), 0);
	/* a byte after the padding starts */
	buf[9000] = 'x';
	assert_int_equal(parse(buf, 16384, &err), -EINVAL);
	assert_string_equal(err.msg, "signature JSON: data after the NUL padding");
	free(buf);
	/* whitespace and a newline after the object are fine */
	assert_int_equal(parse_subst("\"}", "\"}\n", &err), 0);
	assert_int_equal(parse_subst("{\"rootHash\":", "{\n  \"rootHash\" : ", &err), 0);
}

static void test_key_order_and_optional(void **state)
{
	struct vi_error err = { "" };
	char buf[sizeof(REPART) + 64];

	(void)state;
	/* signature first, fingerprint absent */
	const char *s = strstr(REPART, "\"signature\":");
	int n = snprintf(buf, sizeof(buf), "{%.*s,\"rootHash\":\"" ROOT "\"}",
			 (int)(strlen(s) - 1), s);

	assert_true(n > 0);
	assert_int_equal(parse(buf, (size_t)n, &err), 0);
	assert_false(sig.has_fingerprint);
	assert_int_equal(sig.sig_len, 1221);
}

static void test_rejects(void **state)
{
	struct vi_error err = { "" };

	(void)state;
	assert_int_equal(parse("", 0, &err), -EINVAL);
	assert_int_equal(parse("[]", 2, &err), -EINVAL);
	assert_int_equal(parse("{}", 2, &err), -EINVAL);
	/* unknown key */
	assert_int_equal(parse_subst("\"certificateFingerprint\"", "\"certificateFingerprinT\"", &err),
			 -EINVAL);
	assert_string_equal(err.msg, "signature JSON: unknown key");
	/* duplicate key */
	assert_int_equal(parse_subst("\"certificateFingerprint\"", "\"rootHash\"", &err), -EINVAL);
	assert_string_equal(err.msg, "signature JSON: key given twice");
	/* escapes are not needed by any valid value and not accepted */
	assert_int_equal(parse_subst("\"rootHash\"", "\"root\\u0048ash\"", &err), -EINVAL);
	/* root hash: not hex, too short */
	assert_int_equal(parse_subst(ROOT, "6d7eb4c35ee7e5f624c135b703dcf4aZ", &err), -EINVAL);
	assert_int_equal(parse_subst(ROOT, "6d7eb4c35ee7e5f6", &err), -EINVAL);
	/* fingerprint of the wrong length */
	assert_int_equal(parse_subst(FPR, "3520be", &err), -EINVAL);
	/* signature: not base64; base64 of something that is not DER */
	assert_int_equal(parse_subst("\"signature\":\"MIIE", "\"signature\":\"MII*", &err), -EINVAL);
	assert_int_equal(parse_subst("\"signature\":\"MIIE", "\"signature\":\"AIIE", &err), -EINVAL);
	/* number instead of a string, missing colon, trailing comma, two objects */
	assert_int_equal(parse_subst("\"" ROOT "\"", "1", &err), -EINVAL);
	assert_int_equal(parse_subst("\"rootHash\":", "\"rootHash\"", &err), -EINVAL);
	assert_int_equal(parse_subst("\"}", "\",}", &err), -EINVAL);
	assert_int_equal(parse_subst("\"}", "\"}{}", &err), -EINVAL);
	assert_string_equal(err.msg, "signature JSON: data after the object");
	/* unterminated */
	assert_int_equal(parse(REPART, sizeof(REPART) - 3, &err), -EINVAL);
	/* required keys */
	assert_int_equal(parse("{\"rootHash\":\"" ROOT "\"}", strlen("{\"rootHash\":\"" ROOT "\"}"),
			       &err), -EINVAL);
	/* a non-ASCII byte */
	assert_int_equal(parse_subst("\"rootHash\"", "\"r\xc3\xb6otHash\"", &err), -EINVAL);
	/* size cap */
	{
		char *big = calloc(1, VI_DPS_SIG_MAX + 1);

		assert_non_null(big);
		memcpy(big, REPART, sizeof(REPART) - 1);
		assert_int_equal(parse(big, VI_DPS_SIG_MAX + 1, &err), -E2BIG);
		free(big);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repart_object),
		cmocka_unit_test(test_padding),
		cmocka_unit_test(test_key_order_and_optional),
		cmocka_unit_test(test_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
