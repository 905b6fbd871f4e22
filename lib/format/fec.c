// SPDX-License-Identifier: LGPL-2.1-or-later
/* FEC for dm-verity: the layout (include/fec.h) and the streaming of the devices through the
 * Reed-Solomon codec (lib/format/rs.c).
 *
 * Streaming: a worker claims a window of consecutive RS blocks (columns), reads the window's
 * bytes from each of the rsn stripes with one pread per stripe, runs the LFSRs of SUB_COLUMNS
 * RS blocks side by side (their states stay in L1 while the stripes stream past), and writes
 * (or compares) the window's parity, which is one contiguous span of the FEC area. Windows are
 * disjoint, so workers share nothing but the read-only table. */
#include "fec.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blockio.h"
#include "strutil.h"
#include "workers.h"

#define DEFAULT_WINDOW  (16u << 10)    /* RS blocks per step, × rsn bytes read (4-64 KiB: same) */
#define MIN_WINDOW      1024u
#define SUB_COLUMNS     1024u          /* RS blocks encoded side by side (swept 128-2048) */

/* ---- geometry ----------------------------------------------------------------------------- */

int vi_fec_geometry_compute(uint64_t data_blocks, uint32_t block_size, uint64_t hash_start,
			    uint64_t hash_blocks, unsigned roots,
			    struct vi_fec_geometry *ret, struct vi_error *err)
{
	struct vi_fec_geometry g;

	if (roots < VERITY_FEC_MIN_ROOTS || roots > VERITY_FEC_MAX_ROOTS)
		return vi_err(err, "FEC roots %u out of range (%u to %u parity bytes)", roots,
			      VERITY_FEC_MIN_ROOTS, VERITY_FEC_MAX_ROOTS);
	if (!vi_block_size_ok(block_size))
		return vi_err(err, "FEC block size %u is not a power of two from %u to %u",
			      block_size, VERITY_MIN_BLOCK, VERITY_MAX_BLOCK);
	if (data_blocks == 0)
		return vi_err(err, "FEC needs at least one data block");

	memset(&g, 0, sizeof(g));
	g.roots = roots;
	g.rsn = VERITY_FEC_RSM - roots;
	g.block_size = block_size;
	g.data_blocks = data_blocks;
	g.hash_start = hash_start;
	g.hash_blocks = hash_blocks;
	/* Every byte of the input, of the hash device part and of the padded stripes needs a
	 * 64-bit offset. */
	if (hash_blocks > UINT64_MAX - data_blocks)
		goto overflow;
	g.blocks = data_blocks + hash_blocks;
	if (g.blocks > UINT64_MAX / block_size || hash_start > UINT64_MAX - hash_blocks ||
	    hash_start + hash_blocks > UINT64_MAX / block_size)
		goto overflow;
	g.rounds = g.blocks / g.rsn + (g.blocks % g.rsn != 0 ? 1 : 0);
	if (g.rounds > UINT64_MAX / block_size / g.rsn)
		goto overflow;
	g.rs_blocks = g.rounds * block_size;
	g.parity_blocks = g.rounds * roots;    /* roots < rsn: no overflow */
	g.size = g.rs_blocks * roots;
	*ret = g;
	return 0;

overflow:
	return vi_err(err, "FEC area of %llu data and %llu hash blocks overflows 64 bits",
		      (unsigned long long)data_blocks, (unsigned long long)hash_blocks);
}

int vi_fec_hash_blocks(uint64_t hash_end, bool fec_on_hash, uint32_t block_size,
		       uint64_t tree_start, uint64_t tree_blocks, uint64_t *ret,
		       struct vi_error *err)
{
	uint64_t end;

	if (block_size == 0)
		return vi_err(err, "FEC block size 0");
	end = hash_end / block_size;
	if (end < tree_start || end - tree_start < tree_blocks) {
		if (fec_on_hash)
			return vi_err(err, "FEC area at byte %llu overlaps the hash area (hash blocks "
				      "up to %llu) on the same device", (unsigned long long)hash_end,
				      (unsigned long long)(tree_start + tree_blocks));
		return vi_err(err, "hash device of %llu bytes ends before the tree (hash blocks up "
			      "to %llu)", (unsigned long long)hash_end,
			      (unsigned long long)(tree_start + tree_blocks));
	}
	*ret = end - tree_start;
	return 0;
}

static bool fec_is_file(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

/* -EIO unless the FEC device holds size bytes at offset. */
static int fec_device_fits(int fec_fd, uint64_t offset, uint64_t size, struct vi_error *err)
{
	uint64_t have = 0;
	int r = vi_fd_size(fec_fd, &have);

	if (r < 0) {
		return vi_errno(err, r, "cannot get the FEC device size: %s",
			 strerror(-r));
	}
	if (have < offset + size) {
		return vi_errno(err, -EIO,
			 "FEC device has %llu bytes, the parity area ends at byte %llu",
			 (unsigned long long)have, (unsigned long long)(offset + size));
	}
	return 0;
}

int vi_fec_layout(int data_fd, int hash_fd, int fec_fd, const struct vi_params *p,
		  const struct vi_geometry *g, uint64_t fec_offset, unsigned roots,
		  struct vi_fec_geometry *ret, bool *ret_on_hash, struct vi_error *err)
{
	struct vi_fec_geometry fg;
	uint64_t hash_end, hash_blocks;
	bool on_hash;
	int r;

	if (p->data_block_size != p->hash_block_size)
		return vi_err(err, "block sizes must match for FEC (data %u, hash %u bytes)",
			      p->data_block_size, p->hash_block_size);
	if (roots < VERITY_FEC_MIN_ROOTS || roots > VERITY_FEC_MAX_ROOTS)
		return vi_err(err, "FEC roots %u out of range (%u to %u parity bytes)", roots,
			      VERITY_FEC_MIN_ROOTS, VERITY_FEC_MAX_ROOTS);
	if (fec_offset % 512)
		return vi_err(err, "FEC offset %llu is not a multiple of 512",
			      (unsigned long long)fec_offset);
	if (vi_same_file(fec_fd, data_fd) && fec_offset < g->data_size)
		return vi_err(err, "FEC area at byte %llu lies inside the data (%llu bytes) on the "
			      "same device", (unsigned long long)fec_offset,
			      (unsigned long long)g->data_size);
	on_hash = vi_same_file(fec_fd, hash_fd);
	if (on_hash) {
		/* The whole hash area, superblock included, comes first; veritysetup checks
		 * hash_offset + tree bytes only and lets the parity overwrite the last tree block. */
		if (fec_offset < g->hash_device_size)
			return vi_err(err, "FEC area at byte %llu overlaps the hash area (ending at "
				      "byte %llu) on the same device", (unsigned long long)fec_offset,
				      (unsigned long long)g->hash_device_size);
		hash_end = fec_offset;
	} else {
		struct stat st;

		r = vi_fd_size(hash_fd, &hash_end);
		if (r < 0) {
			return vi_errno(err, r, "cannot get the hash device size: %s",
				 strerror(-r));
		}
		/* vi_tree_build extends a short hash file to the end of the tree */
		if (fstat(hash_fd, &st) == 0 && S_ISREG(st.st_mode) && hash_end < g->hash_device_size)
			hash_end = g->hash_device_size;
	}
	r = vi_fec_hash_blocks(hash_end, on_hash, p->hash_block_size, g->tree_start,
				   g->hash_blocks, &hash_blocks, err);
	if (r < 0)
		return r;
	r = vi_fec_geometry_compute(p->data_blocks, p->data_block_size, g->tree_start,
					hash_blocks, roots, &fg, err);
	if (r < 0)
		return r;
	if (fec_offset > (uint64_t)INT64_MAX - fg.size)
		return vi_err(err, "FEC area at byte %llu (%llu bytes) ends past 2^63",
			      (unsigned long long)fec_offset, (unsigned long long)fg.size);
	/* A file grows; a device must already hold the area (format writes nothing otherwise). */
	if (!fec_is_file(fec_fd)) {
		r = fec_device_fits(fec_fd, fec_offset, fg.size, err);
		if (r < 0)
			return r;
	}
	*ret = fg;
	*ret_on_hash = on_hash;
	return 0;
}

/* ---- streaming over the devices ----------------------------------------------------------- */

struct fec_job {
	const struct vi_fec_geometry *g;
	struct vi_rs rs;
	int data_fd, hash_fd, fec_fd;
	uint64_t fec_offset;
	uint64_t data_bytes;            /* input bytes from the data device */
	uint64_t hash_bytes;            /* then this many from the hash device ... */
	uint64_t hash_off;              /* ... starting at this byte */
	size_t window;                  /* RS blocks per step */
	uint64_t nwin;
	bool verify;

	atomic_uint_fast64_t bad;       /* verify: first parity byte, relative to fec_offset, of
					 * an RS block that cannot be corrected */
	atomic_uint_fast64_t diff;      /* verify: first parity byte that differs */
	atomic_uint_fast64_t corrected; /* verify: symbols corrected in the other RS blocks */
	atomic_uint_fast64_t differ;    /* verify: parity bytes that differ */
	struct vi_work pool;            /* items: windows */
};

struct fec_worker {
	struct fec_job *job;
	uint8_t *rows, *par, *cmp;
	uint8_t cw[VERITY_FEC_RSM];     /* verify: one RS block being corrected */
	uint64_t *st;                   /* LFSR states of SUB_COLUMNS RS blocks */
};

/* len bytes of the FEC input from offset off: data device, then hash device, then zeros. */
static int read_input(struct fec_job *j, uint64_t off, size_t len, uint8_t *dst)
{
	while (len > 0) {
		size_t n;
		int r;

		if (off < j->data_bytes) {
			n = j->data_bytes - off < len ? (size_t)(j->data_bytes - off) : len;
			r = vi_pread_full(j->data_fd, dst, n, off);
			if (r < 0) {
				vi_work_fail(&j->pool, r, "FEC: read of the data device failed", off);
				return r;
			}
		} else if (off - j->data_bytes < j->hash_bytes) {
			uint64_t h = off - j->data_bytes;

			n = j->hash_bytes - h < len ? (size_t)(j->hash_bytes - h) : len;
			r = vi_pread_full(j->hash_fd, dst, n, j->hash_off + h);
			if (r < 0) {
				vi_work_fail(&j->pool, r, "FEC: read of the hash device failed",
					     j->hash_off + h);
				return r;
			}
		} else {
			memset(dst, 0, len);   /* past the inputs: zeros, as the kernel assumes */
			return 0;
		}
		dst += n;
		off += n;
		len -= n;
	}
	return 0;
}

static int run_window(struct fec_worker *w, uint64_t k)
{
	struct fec_job *j = w->job;
	const struct vi_fec_geometry *g = j->g;
	uint64_t c0 = k * j->window;
	size_t n = g->rs_blocks - c0 < j->window ? (size_t)(g->rs_blocks - c0) : j->window;
	size_t plen = n * g->roots;
	uint64_t poff = j->fec_offset + c0 * g->roots;
	int r;

	/* Row i: bytes c0 .. c0+n-1 of stripe i. */
	for (unsigned i = 0; i < g->rsn; i++) {
		r = read_input(j, (uint64_t)i * g->rs_blocks + c0, n, w->rows + (size_t)i * n);
		if (r < 0)
			return r;
	}
	for (size_t c = 0; c < n; c += SUB_COLUMNS)
		vi_rs_encode_cols(&j->rs, w->rows + c, n, n - c < SUB_COLUMNS ? n - c : SUB_COLUMNS,
			    w->st, w->par + c * g->roots);
	if (!j->verify) {
		r = vi_pwrite_full(j->fec_fd, w->par, plen, poff);
		if (r < 0)
			vi_work_fail(&j->pool, r, "FEC: write failed", poff);
		return r;
	}
	r = vi_pread_full(j->fec_fd, w->cmp, plen, poff);
	if (r < 0) {
		vi_work_fail(&j->pool, r, "FEC: read of the FEC device failed", poff);
		return r;
	}
	if (memcmp(w->par, w->cmp, plen) == 0)
		return 0;
	/* Damage: correct each RS block whose parity differs, as dm-verity would, to count the
	 * errors or find the first block beyond repair. */
	for (size_t c = 0; c < n; c++) {
		const uint8_t *want = w->cmp + c * g->roots, *got = w->par + c * g->roots;
		unsigned b = 0, nd;
		int nerr;

		if (memcmp(want, got, g->roots) == 0)
			continue;
		while (want[b] == got[b])
			b++;
		nd = 0;
		for (unsigned i = b; i < g->roots; i++)
			nd += want[i] != got[i];
		atomic_fetch_add(&j->differ, nd);
		vi_atomic_min_u64(&j->diff, (c0 + c) * g->roots + b);
		for (unsigned i = 0; i < g->rsn; i++)
			w->cw[i] = w->rows[(size_t)i * n + c];
		memcpy(w->cw + g->rsn, want, g->roots);
		nerr = vi_rs_decode(&j->rs, w->cw);
		if (nerr < 0) {
			vi_atomic_min_u64(&j->bad, (c0 + c) * g->roots + b);
			/* windows after this one cannot hold the first such block */
			vi_work_limit(&j->pool, k + 1);
			break;
		}
		atomic_fetch_add(&j->corrected, (uint64_t)nerr);
	}
	return 0;
}

/* Pool item: one window, counted as its input bytes. */
static int window_item(void *arg, uint64_t k)
{
	struct fec_worker *w = arg;
	struct fec_job *j = w->job;
	uint64_t c0 = k * j->window;
	int r = run_window(w, k);

	if (r == 0)
		vi_work_done(&j->pool, (j->g->rs_blocks - c0 < j->window ? j->g->rs_blocks - c0 :
					j->window) * j->g->rsn);
	return r;
}

static int run_job(struct fec_job *j, const struct vi_fec_opts *o, struct vi_error *err)
{
	const struct vi_fec_geometry *g = j->g;
	unsigned n = vi_work_threads(o->threads, UINT64_MAX);
	size_t win = o->window;
	struct fec_worker *ws = NULL;
	int r = 0;

	if (!win) {
		/* Input buffers of all workers within VI_WORK_MAX_BUFFERS, whatever the CPU count:
		 * smaller windows first, then fewer workers. */
		if ((uint64_t)n * g->rsn * MIN_WINDOW > VI_WORK_MAX_BUFFERS)
			n = VI_WORK_MAX_BUFFERS / (g->rsn * MIN_WINDOW);
		win = DEFAULT_WINDOW;
		if ((uint64_t)n * g->rsn * win > VI_WORK_MAX_BUFFERS)
			win = VI_WORK_MAX_BUFFERS / ((size_t)n * g->rsn);
	}
	if (win > g->rs_blocks)
		win = (size_t)g->rs_blocks;
	j->window = win;
	j->nwin = g->rs_blocks / win + (g->rs_blocks % win != 0 ? 1 : 0);
	n = vi_work_threads(n, j->nwin);
	atomic_init(&j->bad, UINT64_MAX);
	atomic_init(&j->diff, UINT64_MAX);
	atomic_init(&j->corrected, 0);
	atomic_init(&j->differ, 0);

	ws = calloc(n, sizeof(*ws));
	if (!ws) {
		r = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < n; i++) {
		struct fec_worker *w = &ws[i];

		w->job = j;
		w->rows = malloc((size_t)g->rsn * win);
		w->par = malloc(win * g->roots);
		w->cmp = j->verify ? malloc(win * g->roots) : NULL;
		w->st = calloc(SUB_COLUMNS, 3 * sizeof(*w->st));
		if (!w->rows || !w->par || !w->st || (j->verify && !w->cmp)) {
			r = -ENOMEM;
			goto out;
		}
	}
	r = vi_work_run(&j->pool, j->nwin, n, ws, sizeof(*ws), window_item, o->progress,
			o->userdata, g->rs_blocks * g->rsn, err);
out:
	for (unsigned i = 0; ws && i < n; i++) {
		free(ws[i].rows);
		free(ws[i].par);
		free(ws[i].cmp);
		free(ws[i].st);
	}
	free(ws);
	if (r == -ENOMEM)
		r = vi_errno(err, r, "out of memory");
	return r;
}

static int job_init(struct fec_job *j, const struct vi_fec_geometry *g, int data_fd,
		    int hash_fd, int fec_fd, uint64_t fec_offset, bool verify,
		    struct vi_error *err)
{
	memset(j, 0, sizeof(*j));
	if (vi_rs_init(&j->rs, g->roots) < 0 || g->rsn != VERITY_FEC_RSM - g->roots ||
	    g->rs_blocks == 0 || fec_offset > (uint64_t)INT64_MAX - g->size)
		return vi_err(err, "FEC: invalid geometry");
	j->g = g;
	j->data_fd = data_fd;
	j->hash_fd = hash_fd;
	j->fec_fd = fec_fd;
	j->fec_offset = fec_offset;
	j->data_bytes = g->data_blocks * g->block_size;
	j->hash_bytes = g->hash_blocks * g->block_size;
	j->hash_off = g->hash_start * g->block_size;
	j->verify = verify;
	return 0;
}

int vi_fec_encode(const struct vi_fec_geometry *g, int data_fd, int hash_fd,
		  int fec_fd, uint64_t fec_offset, const struct vi_fec_opts *o,
		  struct vi_error *err)
{
	struct fec_job *j;
	struct stat st;
	int r;

	err->msg[0] = '\0';
	/* The job holds the 6 KiB LFSR table: on the heap, not on a worker-sized stack. */
	j = malloc(sizeof(*j));
	if (!j)
		return vi_errno(err, -ENOMEM, "out of memory");
	r = job_init(j, g, data_fd, hash_fd, fec_fd, fec_offset, false, err);
	if (r < 0)
		goto out;
	if (fstat(fec_fd, &st) < 0) {
		r = -errno;
		r = vi_errno(err, r, "cannot stat the FEC device: %s", strerror(-r));
		goto out;
	}
	if (S_ISREG(st.st_mode)) {
		/* A file gets its final size first: when it is also the hash device, a gap between
		 * the tree and the FEC area is then input that reads as zeros (veritysetup fails
		 * to read it: "Failed to read RS block"). Never shortened. */
		if ((uint64_t)st.st_size < fec_offset + g->size &&
		    ftruncate(fec_fd, (off_t)(fec_offset + g->size)) < 0) {
			r = -errno;
			r = vi_errno(err, r, "cannot extend the FEC file to %llu bytes: %s",
				     (unsigned long long)(fec_offset + g->size), strerror(-r));
			goto out;
		}
	} else {
		/* A device must hold the area: refuse before writing anything. */
		r = fec_device_fits(fec_fd, fec_offset, g->size, err);
		if (r < 0)
			goto out;
	}
	r = run_job(j, o, err);
out:
	free(j);
	return r;
}

int vi_fec_verify(const struct vi_fec_geometry *g, int data_fd, int hash_fd,
		  int fec_fd, uint64_t fec_offset, const struct vi_fec_opts *o,
		  struct vi_fec_bad *bad, struct vi_error *err)
{
	struct fec_job *j;
	int r;

	err->msg[0] = '\0';
	memset(bad, 0, sizeof(*bad));
	j = malloc(sizeof(*j));
	if (!j)
		return vi_errno(err, -ENOMEM, "out of memory");
	r = job_init(j, g, data_fd, hash_fd, fec_fd, fec_offset, true, err);
	if (r < 0)
		goto out;
	r = fec_device_fits(fec_fd, fec_offset, g->size, err);
	if (r < 0)
		goto out;
	r = run_job(j, o, err);
	if (r == 0 && atomic_load(&j->bad) != UINT64_MAX) {
		uint64_t b = atomic_load(&j->bad);

		bad->rsb = b / g->roots;
		bad->offset = fec_offset + b;
		bad->uncorrectable = true;
		r = vi_errno(err, -EPERM,
			     "FEC parity of RS block %llu (byte %llu of the FEC device) does not "
			     "match, and the errors cannot be repaired with it",
			     (unsigned long long)bad->rsb, (unsigned long long)bad->offset);
	} else if (r == 0 && atomic_load(&j->diff) != UINT64_MAX) {
		uint64_t b = atomic_load(&j->diff);

		bad->rsb = b / g->roots;
		bad->offset = fec_offset + b;
		bad->corrected = atomic_load(&j->corrected);
		bad->differ = atomic_load(&j->differ);
		r = vi_errno(err, -EPERM,
			     "FEC parity of RS block %llu (byte %llu of the FEC device) does not "
			     "match (%llu parity bytes differ)",
			     (unsigned long long)bad->rsb, (unsigned long long)bad->offset,
			     (unsigned long long)bad->differ);
	}
out:
	free(j);
	return r;
}
