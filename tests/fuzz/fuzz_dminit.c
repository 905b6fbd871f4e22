// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the value of dm-mod.create= (the kernel's dm-init syntax; untrusted like
 * the rest of the command line). Oracles besides the sanitizers: the target is untouched on
 * failure; an accepted table is a complete verity target (devices and root hash set, digest
 * length matching the algorithm, superblock off, parameters that pass validation). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "dminit.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vi_config cfg;
	struct vi_target t, before;
	struct vi_error err;

	vi_config_init(&cfg);
	t = cfg.root;
	memcpy(&before, &t, sizeof(t));
	memset(&err, 0x55, sizeof(err));
	if (vi_dm_create_parse((const char *)data, size, &t, &err) < 0) {
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		CHECK(memcmp(&t, &before, sizeof(t)) == 0);
		return 0;
	}
	CHECK(t.from_dm_create);
	CHECK(t.params.no_superblock);
	CHECK(t.data.spec[0] != '\0');
	CHECK(memchr(t.name, '\0', sizeof(t.name)) != NULL && t.name[0] != '\0');
	CHECK(memchr(t.dm_uuid, '\0', sizeof(t.dm_uuid)) != NULL);
	CHECK(t.root_hash_len == vi_digest_size(t.params.hash_name));
	CHECK(t.params.salt_size <= VERITY_MAX_SALT);
	CHECK(t.dm_minor >= -1 && t.dm_minor <= (int)VI_DM_MAX_MINOR);
	CHECK(vi_params_validate(&t.params, &err) == 0);
	return 0;
}
