// SPDX-License-Identifier: LGPL-2.1-or-later
/* Signing keys on a PKCS#11 token (image-pkcs11.h), through OpenSSL's pkcs11 engine. The engine
 * API is the one OpenSSL 3.0 marks deprecated; Debian 12 has no pkcs11 provider, and the engine
 * is also what sbsign uses for the UKI (verity-init-mkuki), so one token setup serves both. */
#define OPENSSL_SUPPRESS_DEPRECATED 1

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/engine.h>
#include <openssl/err.h>

#include "image-pkcs11.h"
#include "prog.h"

bool image_is_pkcs11_uri(const char *s)
{
	return s && strncmp(s, "pkcs11:", 7) == 0;
}

/* The path part, without "pin-..." attributes (RFC 7512 puts the PIN in the query; libp11 also
 * reads one from the path). */
void image_pkcs11_redact(const char *uri, char *out, size_t size)
{
	const char *p = uri;
	size_t n = 0;
	bool first = true;

	if (size == 0)
		return;
	out[0] = '\0';
	if (strncmp(p, "pkcs11:", 7) == 0) {
		n = (size_t)snprintf(out, size, "pkcs11:");
		if (n >= size)
			return;
		p += 7;
	}
	while (*p && *p != '?') {
		size_t len = strcspn(p, ";?");

		if (strncmp(p, "pin-", 4) != 0) {
			int w = snprintf(out + n, size - n, "%s%.*s", first ? "" : ";", (int)len, p);

			if (w < 0 || (size_t)w >= size - n)
				return;
			n += (size_t)w;
			first = false;
		}
		p += len;
		if (*p == ';')
			p++;
	}
}

/* The reason the engine gave, from OpenSSL's error queue (emptied): the token's own (CKR_*,
 * "PIN incorrect") before the engine's ("object not found") before OpenSSL's generic one. */
static const char *engine_reason(char *buf, size_t size)
{
	unsigned long e;
	const char *best = NULL;
	int best_rank = -1;

	while ((e = ERR_get_error()) != 0) {
		const char *lib = ERR_lib_error_string(e), *why = ERR_reason_error_string(e);
		int rank;

		if (!why)
			continue;
		if (lib && strstr(lib, "PKCS#11"))
			rank = 3;
		else if (lib && strstr(lib, "pkcs11"))
			rank = 2;
		else
			rank = 1;
		if (rank > best_rank) {
			snprintf(buf, size, "%s", why);
			best = buf;
			best_rank = rank;
		}
	}
	return best ? best : "the engine gave no reason";
}

/* libp11 prints its own lines to stderr ("The private key was not found at: URI", the URI with
 * any PIN in it); the one error line is ours. stderr is pointed at /dev/null around the engine's
 * calls and restored after. */
static int quiet_begin(void)
{
	int saved = dup(STDERR_FILENO), null;

	if (saved < 0)
		return -1;
	fflush(stderr);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null < 0 || dup2(null, STDERR_FILENO) < 0) {
		if (null >= 0)
			close(null);
		close(saved);
		return -1;
	}
	close(null);
	return saved;
}

static void quiet_end(int saved)
{
	if (saved < 0)
		return;
	dup2(saved, STDERR_FILENO);
	close(saved);
}

int image_pkcs11_load_key(const char *option, const char *uri, struct image_token_key *ret)
{
	char shown[512], why[256];
	const char *pin = getenv(IMAGE_PKCS11_PIN_ENV);
	ENGINE *e;
	EVP_PKEY *key;
	int saved, r;

	image_pkcs11_redact(uri, shown, sizeof(shown));
	ret->key = NULL;
	ret->engine = NULL;
	/* a PIN on our command line is in /proc/PID/cmdline for every user to read */
	if (strstr(uri, "pin-value="))
		return die(EXIT_USAGE, "%s %s: a PIN in the URI (pin-value=) can be read by every user "
			   "of this machine: give pin-source=file:PATH or $" IMAGE_PKCS11_PIN_ENV,
			   option, shown);
	ERR_clear_error();
	saved = quiet_begin();
	e = ENGINE_by_id("pkcs11");
	if (!e) {
		quiet_end(saved);
		ERR_clear_error();
		return die(EXIT_INTERNAL, "%s %s: OpenSSL's pkcs11 engine is not installed "
			   "(Debian: libengine-pkcs11-openssl)", option, shown);
	}
	/* QUIET: no "was not found at" lines; a failing ctrl only means an older engine */
	ENGINE_ctrl_cmd_string(e, "QUIET", NULL, 1);
	if (pin && *pin && !ENGINE_ctrl_cmd_string(e, "PIN", pin, 0)) {
		quiet_end(saved);
		r = die(EXIT_INTERNAL, "%s %s: the engine refused the PIN from $%s: %s", option,
			shown, IMAGE_PKCS11_PIN_ENV, engine_reason(why, sizeof(why)));
		ENGINE_free(e);
		return r;
	}
	if (!ENGINE_init(e)) {
		quiet_end(saved);
		r = die(EXIT_KEY, "%s %s: the pkcs11 engine did not start: %s", option, shown,
			engine_reason(why, sizeof(why)));
		ENGINE_free(e);
		return r;
	}
	key = ENGINE_load_private_key(e, uri, NULL, NULL);
	quiet_end(saved);
	if (!key) {
		const char *reason = engine_reason(why, sizeof(why)), *hint = "";

		/* libp11's words, said for what they mean here */
		if (strcmp(reason, "object not found") == 0)
			hint = " (no token matches, or it has no such private key)";
		else if (strcmp(reason, "PIN incorrect") == 0)
			hint = " (wrong PIN)";
		else if (strcmp(reason, "User pin not initialized") == 0)
			hint = " (the token is not ready: its user PIN was never set)";
		else if (strcmp(reason, "PIN locked") == 0)
			hint = " (the token's user PIN is locked: its security officer must reset it)";
		else if (!(pin && *pin) && !strstr(uri, "pin-"))
			hint = " (no PIN was given: pin-source=file:PATH in the URI, or $"
			       IMAGE_PKCS11_PIN_ENV ")";
		r = die(EXIT_KEY, "%s %s: no private key from the token: %s%s", option, shown,
			reason, hint);
		ENGINE_finish(e);
		ENGINE_free(e);
		return r;
	}
	ret->key = key;
	ret->engine = e;
	return 0;
}

void image_token_key_free(struct image_token_key *k)
{
	EVP_PKEY_free(k->key);
	k->key = NULL;
	if (k->engine) {
		ENGINE_finish(k->engine);
		ENGINE_free(k->engine);
		k->engine = NULL;
	}
}
