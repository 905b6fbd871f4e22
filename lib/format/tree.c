// SPDX-License-Identifier: LGPL-2.1-or-later
/* The hash tree engine. One "level job" hashes a run of input blocks (data blocks, or the hash
 * blocks of the level below) into the digests of the level above, or compares them with the
 * digests stored there. A job is cut into chunks of consecutive input blocks; worker threads
 * claim chunks in increasing order, read a chunk with one pread, hash each block from a copy of
 * the salted digest state, and write (or compare) the byte span of the output level that the
 * chunk's digests occupy, including the zero padding around them. Consecutive chunks' spans
 * are adjacent and do not overlap, so the workers never share an output block's bytes.
 * Here: the level jobs, and building and verifying a whole tree with them; the digest of one
 * block is blockhash.c's, the device I/O blockio.c's. */
#include "tree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blockio.h"
#include "geometry.h"
#include "workers.h"

#define DEFAULT_CHUNK   (512u << 10)   /* swept 256 KiB - 2 MiB: 512 KiB was best */

struct job {
	const struct vi_hasher *h;
	int in_fd;
	uint64_t in_off;           /* byte offset of input block 0 */
	uint32_t in_bs;
	uint64_t count;            /* input blocks */
	int out_fd;
	uint64_t out_off;          /* byte offset of the output level's first block */
	uint32_t hbs;
	unsigned hpb, stride, ds;
	uint64_t per_chunk;        /* input blocks per chunk */
	uint64_t nchunks;
	bool verify;

	atomic_uint_fast64_t bad;        /* verify: smallest mismatching input block */
	atomic_uint_fast64_t bad_pad;    /* verify: smallest output block with dirty padding */
	struct vi_work pool;             /* items: chunks */
};

struct worker {
	struct job *job;
	uint8_t *in, *out, *cmp;
	struct vi_digest_ctx *work;
};

static uint64_t digest_pos(const struct job *j, uint64_t i)
{
	return (i / j->hpb) * j->hbs + (i % j->hpb) * j->stride;
}

/* End of the span of digests ending with input block last: the next digest's position, or the
 * end of the hash block when last is the final digest of its block or of the level. */
static uint64_t span_end(const struct job *j, uint64_t last)
{
	if (last % j->hpb == j->hpb - 1 || last == j->count - 1)
		return (last / j->hpb + 1) * j->hbs;
	return digest_pos(j, last) + j->stride;
}

static size_t span_max(const struct job *j)
{
	return (size_t)(j->per_chunk / j->hpb + 2) * j->hbs;
}

static int run_chunk(struct worker *w, uint64_t c)
{
	struct job *j = w->job;
	uint64_t a = c * j->per_chunk;
	uint64_t b = a + j->per_chunk < j->count ? a + j->per_chunk : j->count;
	uint64_t start = digest_pos(j, a), end = span_end(j, b - 1);
	size_t len = (size_t)(end - start);
	uint64_t in_off = j->in_off + a * j->in_bs;
	int r;

	r = vi_pread_full(j->in_fd, w->in, (size_t)(b - a) * j->in_bs, in_off);
	if (r < 0) {
		vi_work_fail(&j->pool, r, "read failed", in_off);
		return r;
	}
	memset(w->out, 0, len);
	for (uint64_t i = a; i < b; i++) {
		r = vi_hasher_block(j->h, w->work, w->in + (size_t)(i - a) * j->in_bs, j->in_bs,
				 w->out + (digest_pos(j, i) - start));
		if (r < 0) {
			vi_work_fail(&j->pool, r, "hashing failed", in_off);
			return r;
		}
	}
	if (!j->verify) {
		r = vi_pwrite_full(j->out_fd, w->out, len, j->out_off + start);
		if (r < 0)
			vi_work_fail(&j->pool, r, "write failed", j->out_off + start);
		return r;
	}

	r = vi_pread_full(j->out_fd, w->cmp, len, j->out_off + start);
	if (r < 0) {
		vi_work_fail(&j->pool, r, "read failed", j->out_off + start);
		return r;
	}
	if (memcmp(w->out, w->cmp, len) == 0)
		return 0;
	for (uint64_t i = a; i < b; i++) {
		size_t off = (size_t)(digest_pos(j, i) - start);

		if (memcmp(w->out + off, w->cmp + off, j->ds) != 0) {
			vi_atomic_min_u64(&j->bad, i);
			/* chunks after this one cannot hold the first mismatch */
			vi_work_limit(&j->pool, c + 1);
			return 0;
		}
	}
	/* Digests fine, padding not: name the output block holding the first dirty byte. */
	for (size_t k = 0; k < len; k++)
		if (w->out[k] != w->cmp[k]) {
			vi_atomic_min_u64(&j->bad_pad, (start + k) / j->hbs);
			break;
		}
	return 0;
}

/* Pool item: one chunk, counted as its input bytes. */
static int chunk_item(void *arg, uint64_t c)
{
	struct worker *w = arg;
	struct job *j = w->job;
	int r = run_chunk(w, c);

	if (r == 0)
		vi_work_done(&j->pool, (c + 1 == j->nchunks ? j->count - c * j->per_chunk :
					j->per_chunk) * j->in_bs);
	return r;
}

/* Run a job on up to o->threads workers; progress is reported (when report) out of total. */
static int run_job(struct job *j, const struct vi_tree_opts *o, bool report,
		   uint64_t total, struct vi_error *err)
{
	size_t chunk = o->chunk_size ? o->chunk_size : DEFAULT_CHUNK;
	unsigned n = vi_work_threads(o->threads, UINT64_MAX);
	struct worker *ws = NULL;
	int r = 0;

	if (j->count == 0)
		return 0;
	/* Keep the read buffers of all workers within VI_WORK_MAX_BUFFERS, whatever the CPU
	 * count. */
	if (!o->chunk_size && chunk > VI_WORK_MAX_BUFFERS / n)
		chunk = VI_WORK_MAX_BUFFERS / n;
	j->per_chunk = (chunk / j->in_bs) ? chunk / j->in_bs : 1;
	j->nchunks = j->count / j->per_chunk + ((j->count % j->per_chunk) ? 1 : 0);
	n = vi_work_threads(n, j->nchunks);
	atomic_init(&j->bad, UINT64_MAX);
	atomic_init(&j->bad_pad, UINT64_MAX);

	ws = calloc(n, sizeof(*ws));
	if (!ws) {
		r = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < n; i++) {
		struct worker *w = &ws[i];

		w->job = j;
		if (posix_memalign((void **)&w->in, 4096, (size_t)j->per_chunk * j->in_bs) ||
		    posix_memalign((void **)&w->out, 4096, span_max(j)) ||
		    (j->verify && posix_memalign((void **)&w->cmp, 4096, span_max(j)))) {
			r = -ENOMEM;
			goto out;
		}
		r = j->h->ops->dup(j->h->base, &w->work);
		if (r < 0)
			goto out;
	}
	r = vi_work_run(&j->pool, j->nchunks, n, ws, sizeof(*ws), chunk_item,
			report ? o->progress : NULL, o->userdata, total, err);
out:
	for (unsigned i = 0; ws && i < n; i++) {
		if (ws[i].work)
			j->h->ops->free(ws[i].work);
		free(ws[i].in);
		free(ws[i].out);
		free(ws[i].cmp);
	}
	free(ws);
	if (r == -ENOMEM && !err->msg[0])
		r = vi_errno(err, r, "out of memory");
	else if (r < 0 && !err->msg[0])
		r = vi_errno(err, r, "cannot set up the digest: %s", strerror(-r));
	return r;
}

static void job_setup(struct job *j, const struct vi_hasher *h, const struct vi_params *p,
		      const struct vi_geometry *g)
{
	memset(j, 0, sizeof(*j));
	j->h = h;
	j->hbs = p->hash_block_size;
	j->hpb = g->hash_per_block;
	j->stride = g->digest_stride;
	j->ds = g->digest_size;
}

/* Common checks: geometry, device sizes, data and hash areas apart on one device. */
static int prepare(int data_fd, int hash_fd, const struct vi_params *p, bool need_hash,
		   struct vi_geometry *g, struct vi_error *err)
{
	uint64_t size = 0;
	int r;

	r = vi_geometry_compute(p, g, err);
	if (r < 0)
		return r;
	r = vi_fd_size(data_fd, &size);
	if (r < 0) {
		return vi_errno(err, r, "cannot get the data device size: %s",
			 strerror(-r));
	}
	if (size < g->data_size) {
		return vi_errno(err, -EIO,
			 "data device has %llu bytes, %llu blocks of %u need %llu",
			 (unsigned long long)size, (unsigned long long)p->data_blocks,
			 p->data_block_size, (unsigned long long)g->data_size);
	}
	/* One sequential pass: ask for aggressive readahead (a hint; failure is harmless). */
	(void)posix_fadvise(data_fd, 0, (off_t)g->data_size, POSIX_FADV_SEQUENTIAL);
	if (vi_same_file(data_fd, hash_fd) && p->hash_offset < g->data_size) {
		return vi_errno(err, -EINVAL,
			 "hash offset %llu lies inside the data (%llu bytes) on the same device",
			 (unsigned long long)p->hash_offset, (unsigned long long)g->data_size);
	}
	if (need_hash) {
		r = vi_fd_size(hash_fd, &size);
		if (r < 0) {
			return vi_errno(err, r, "cannot get the hash device size: %s",
				 strerror(-r));
		}
		if (size < g->hash_device_size) {
			return vi_errno(err, -EIO,
				 "hash device has %llu bytes, the tree needs %llu",
				 (unsigned long long)size, (unsigned long long)g->hash_device_size);
		}
	}
	return 0;
}

static int write_superblock(int hash_fd, const struct vi_params *p,
			    struct vi_error *err)
{
	/* The 512-byte superblock only: the gap up to the tree start keeps whatever the device
	 * held (a hole in a new file), as veritysetup leaves it; nothing reads it. */
	uint8_t buf[VERITY_SB_SIZE] = { 0 };
	int r = vi_sb_encode(p, buf, err);

	if (r < 0)
		return r;
	r = vi_pwrite_full(hash_fd, buf, sizeof(buf), p->hash_offset);
	if (r < 0)
		return vi_errno(err, r, "cannot write the superblock at byte %llu: %s",
				(unsigned long long)p->hash_offset, strerror(-r));
	return 0;
}

/* Digest of one block read from fd at off (the single data block, or the top hash block). */
static int hash_one(const struct vi_hasher *h, int fd, uint64_t off, uint32_t bs, uint8_t *out,
		    struct vi_error *err)
{
	struct vi_digest_ctx *work = NULL;
	uint8_t *buf;
	int r;

	buf = malloc(bs);
	if (!buf)
		return vi_errno(err, -ENOMEM, "out of memory");
	r = vi_pread_full(fd, buf, bs, off);
	if (r < 0) {
		r = vi_errno(err, r, "read failed at byte %llu: %s", (unsigned long long)off,
			     strerror(-r));
		goto out;
	}
	r = h->ops->dup(h->base, &work);
	if (r == 0)
		r = vi_hasher_block(h, work, buf, bs, out);
	if (r < 0)
		r = vi_errno(err, r, "hashing failed: %s", strerror(-r));
out:
	if (work)
		h->ops->free(work);
	free(buf);
	return r;
}

static int hasher_for(struct vi_hasher *h, const struct vi_tree_opts *o,
		      const struct vi_params *p, const struct vi_geometry *g,
		      struct vi_error *err)
{
	int r = vi_hasher_init(h, o->ops, p, g->digest_size);

	if (r < 0)
		return vi_errno(err, r, "hash algorithm %s unavailable (%s): %s", p->hash_name,
				o->ops->name, strerror(-r));
	return 0;
}

int vi_tree_build(int data_fd, int hash_fd, const struct vi_params *p,
		  const struct vi_tree_opts *o, uint8_t *root, size_t root_len,
		  struct vi_error *err)
{
	struct vi_geometry g;
	struct vi_hasher h;
	struct job j;
	int r;

	err->msg[0] = '\0';
	r = prepare(data_fd, hash_fd, p, false, &g, err);
	if (r < 0)
		return r;
	if (root_len < g.digest_size)
		return vi_errno(err, -ENOBUFS, "root buffer too small");
	r = hasher_for(&h, o, p, &g, err);
	if (r < 0)
		return r;
	if (!p->no_superblock) {
		r = write_superblock(hash_fd, p, err);
		if (r < 0)
			goto out;
	}
	{
		/* A file ends where the hash area does, tree or not (veritysetup's size for a
		 * one-block image); never shortened */
		struct stat st;

		if (fstat(hash_fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    (uint64_t)st.st_size < g.hash_device_size &&
		    ftruncate(hash_fd, (off_t)g.hash_device_size) < 0) {
			r = -errno;
			r = vi_errno(err, r, "cannot extend the hash file to %llu bytes: %s",
				     (unsigned long long)g.hash_device_size, strerror(-r));
			goto out;
		}
	}
	if (g.levels == 0) {
		/* One data block: its digest is the root and there is no tree. */
		r = hash_one(&h, data_fd, 0, p->data_block_size, root, err);
		if (r == 0 && o->progress)
			o->progress(o->userdata, g.data_size, g.data_size);
		goto out;
	}

	job_setup(&j, &h, p, &g);
	j.in_fd = data_fd;
	j.in_off = 0;
	j.in_bs = p->data_block_size;
	j.count = p->data_blocks;
	j.out_fd = hash_fd;
	j.out_off = g.level_block[0] * p->hash_block_size;
	r = run_job(&j, o, true, g.data_size, err);
	if (r < 0)
		goto out;

	for (unsigned l = 0; l + 1 < g.levels; l++) {
		job_setup(&j, &h, p, &g);
		j.in_fd = hash_fd;
		j.in_off = g.level_block[l] * p->hash_block_size;
		j.in_bs = p->hash_block_size;
		j.count = g.level_size[l];
		j.out_fd = hash_fd;
		j.out_off = g.level_block[l + 1] * p->hash_block_size;
		r = run_job(&j, o, false, 0, err);
		if (r < 0)
			goto out;
	}
	r = hash_one(&h, hash_fd, g.level_block[g.levels - 1] * p->hash_block_size,
		     p->hash_block_size, root, err);
out:
	vi_hasher_done(&h);
	return r;
}

static int mismatch(struct vi_bad *bad, enum vi_bad_kind kind, unsigned level,
		    uint64_t index, uint64_t offset, struct vi_error *err)
{
	bad->kind = kind;
	bad->level = level;
	bad->index = index;
	bad->offset = offset;
	if (kind == VERITY_BAD_DATA)
		return vi_errno(err, -EPERM, "data block %llu (byte %llu) does not match",
				(unsigned long long)index, (unsigned long long)offset);
	return vi_errno(err, -EPERM, "hash block %llu of level %u (byte %llu) does not match",
			(unsigned long long)index, level, (unsigned long long)offset);
}

int vi_tree_verify(int data_fd, int hash_fd, const struct vi_params *p,
		   const uint8_t *root, size_t root_len, const struct vi_tree_opts *o,
		   struct vi_bad *bad, struct vi_error *err)
{
	uint8_t digest[VERITY_MAX_DIGEST];
	struct vi_geometry g;
	uint64_t hbs = p->hash_block_size;
	struct vi_hasher h;
	struct job j;
	int r;

	err->msg[0] = '\0';
	memset(bad, 0, sizeof(*bad));
	r = prepare(data_fd, hash_fd, p, true, &g, err);
	if (r < 0)
		return r;
	if (root_len != g.digest_size) {
		return vi_errno(err, -EINVAL, "root hash has %zu bytes, %s needs %u",
			 root_len, p->hash_name, g.digest_size);
	}
	r = hasher_for(&h, o, p, &g, err);
	if (r < 0)
		return r;

	if (g.levels == 0) {
		r = hash_one(&h, data_fd, 0, p->data_block_size, digest, err);
		if (r == 0 && memcmp(digest, root, root_len) != 0)
			r = mismatch(bad, VERITY_BAD_DATA, 0, 0, 0, err);
		if (r == 0 && o->progress)
			o->progress(o->userdata, g.data_size, g.data_size);
		goto out;
	}

	r = hash_one(&h, hash_fd, g.level_block[g.levels - 1] * hbs, p->hash_block_size, digest,
		     err);
	if (r < 0)
		goto out;
	if (memcmp(digest, root, root_len) != 0) {
		r = mismatch(bad, VERITY_BAD_HASH, g.levels - 1, 0,
			     g.level_block[g.levels - 1] * hbs, err);
		goto out;
	}

	/* Each level against the already verified level above it, then the data. */
	for (int l = (int)g.levels - 1; l >= 0; l--) {
		bool data = l == 0;

		job_setup(&j, &h, p, &g);
		j.verify = true;
		j.in_fd = data ? data_fd : hash_fd;
		j.in_off = data ? 0 : g.level_block[l - 1] * hbs;
		j.in_bs = data ? p->data_block_size : p->hash_block_size;
		j.count = data ? p->data_blocks : g.level_size[l - 1];
		j.out_fd = hash_fd;
		j.out_off = g.level_block[l] * hbs;
		r = run_job(&j, o, data, g.data_size, err);
		if (r < 0)
			goto out;
		if (atomic_load(&j.bad) != UINT64_MAX) {
			uint64_t i = atomic_load(&j.bad);

			if (data)
				r = mismatch(bad, VERITY_BAD_DATA, 0, i, i * p->data_block_size, err);
			else
				r = mismatch(bad, VERITY_BAD_HASH, (unsigned)l - 1, i,
					     (g.level_block[l - 1] + i) * hbs, err);
			goto out;
		}
		if (atomic_load(&j.bad_pad) != UINT64_MAX) {
			uint64_t i = atomic_load(&j.bad_pad);

			/* the block is named in bad; the reason is its padding, not its digests */
			r = mismatch(bad, VERITY_BAD_HASH, (unsigned)l, i,
				     (g.level_block[l] + i) * hbs, err);
			r = vi_errno(err, r,
				     "hash block %llu of level %u has non-zero unused bytes",
				     (unsigned long long)i, (unsigned)l);
			goto out;
		}
	}
out:
	vi_hasher_done(&h);
	return r;
}
