// SPDX-License-Identifier: LGPL-2.1-or-later
/* What verity-image's format, verify and dump print (image.h): the progress bar on stderr, and the
 * report on stdout, in veritysetup's field names and form or as JSON. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hex.h"
#include "image.h"
#include "strutil.h"


static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

void image_progress_cb(void *userdata, uint64_t done, uint64_t total)
{
	struct image_progress *pr = userdata;
	double t = since(&pr->t0), rate = t > 0 ? (double)done / t : 0;
	int width = 30, fill = total ? (int)((double)done * width / (double)total) : width;
	char bar[32];

	if (!pr->on)
		return;
	for (int i = 0; i < width; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[width] = '\0';
	fprintf(stderr, "\r%s[%s] %5.1f%% %.1f/%.1f MiB %.2f GB/s ETA %.0fs ",
		pr->label ? pr->label : "", bar,
		total ? 100.0 * (double)done / (double)total : 100.0,
		(double)done / 1048576.0, (double)total / 1048576.0, rate / 1e9,
		rate > 0 ? (double)(total - done) / rate : 0.0);
	pr->drawn = true;
}

void image_progress_end(struct image_progress *pr)
{
	if (pr->drawn)
		fputs("\r\033[K", stderr);
}

void image_print_header(const char *hash_path, const struct vi_params *p,
			const struct vi_geometry *g, const char *uuid_text,
			const char *hash_text, const struct image_fec *fec)
{
	char uuid[VERITY_UUID_STR_LEN + 1] = "";
	char salt[2 * VERITY_MAX_SALT + 1];

	if (!p->no_superblock && uuid_text && strlen(uuid_text) == VERITY_UUID_STR_LEN)
		memcpy(uuid, uuid_text, sizeof(uuid));   /* as given, letter case kept */
	else if (!p->no_superblock)
		vi_uuid_format(p->uuid, uuid);
	if (p->salt_size)
		vi_hex_encode(p->salt, p->salt_size, salt, sizeof(salt));
	else
		strcpy(salt, "-");
	/* Field names and the tab after them are veritysetup's. */
	printf("VERITY header information for %s\n", hash_path);
	printf("UUID:            \t%s\n", uuid);
	printf("Hash type:       \t%u\n", p->hash_type);
	printf("Data blocks:     \t%" PRIu64 "\n", p->data_blocks);
	printf("Data block size: \t%u\n", p->data_block_size);
	printf("Hash blocks:     \t%" PRIu64 "\n", g->hash_blocks);
	printf("Hash block size: \t%u\n", p->hash_block_size);
	printf("Hash algorithm:  \t%s\n", hash_text ? hash_text : p->hash_name);
	if (fec->on) {
		/* veritysetup's "FEC blocks" is the size of the parity area, in blocks */
		printf("FEC RS roots:   \t%u\n", fec->g.roots);
		printf("FEC blocks:     \t%" PRIu64 "\n", fec->g.parity_blocks);
	}
	printf("Salt:            \t%s\n", salt);
}

/* veritysetup's closing lines. Hash device: only with the superblock at 0, and with the FEC
 * area counted in when it shares the device, as if it followed the tree (whatever the offset).
 * FEC device: only for an area at 0 on its own device. */
void image_print_sizes(const struct vi_params *p, const struct vi_geometry *g,
		       const struct image_fec *fec)
{
	if (p->hash_offset == 0)
		printf("Hash device size: \t%" PRIu64 " [bytes]\n", g->hash_device_size +
		       (fec->on && fec->on_hash ? fec->g.size : 0));
	if (fec->on && !fec->on_hash && fec->offset == 0)
		printf("FEC device size: \t%" PRIu64 " [bytes]\n", fec->g.size);
}

void image_print_json(const struct vi_params *p, const struct vi_geometry *g,
		      const struct image_fec *fec, const char *fec_path, const char *root_hex)
{
	char uuid[VERITY_UUID_STR_LEN + 1] = "";
	char salt[2 * VERITY_MAX_SALT + 1] = "";

	if (!p->no_superblock)
		vi_uuid_format(p->uuid, uuid);
	vi_hex_encode(p->salt, p->salt_size, salt, sizeof(salt));
	printf("{\"superblock\":%s,\"uuid\":\"%s\",\"hash_type\":%u,\"data_blocks\":%" PRIu64
	       ",\"data_block_size\":%u,\"hash_blocks\":%" PRIu64 ",\"hash_block_size\":%u,"
	       "\"hash_algorithm\":\"%s\",\"salt\":\"%s\",\"hash_offset\":%" PRIu64
	       ",\"tree_offset\":%" PRIu64 ",\"hash_device_size\":%" PRIu64,
	       p->no_superblock ? "false" : "true", uuid, p->hash_type, p->data_blocks,
	       p->data_block_size, g->hash_blocks, p->hash_block_size, p->hash_name, salt,
	       p->hash_offset, g->tree_start * p->hash_block_size, g->hash_device_size);
	if (fec->on) {
		printf(",\"fec\":{\"device\":");
		vi_json_quote(stdout, fec_path);
		printf(",\"offset\":%" PRIu64 ",\"roots\":%u,\"fec_blocks\":%" PRIu64
		       ",\"rounds\":%" PRIu64 ",\"parity_blocks\":%" PRIu64 ",\"size\":%" PRIu64 "}",
		       fec->offset, fec->g.roots, fec->g.blocks, fec->g.rounds, fec->g.parity_blocks,
		       fec->g.size);
	}
	if (root_hex)
		printf(",\"root_hash\":\"%s\"", root_hex);
	printf("}\n");
}
