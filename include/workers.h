/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A pool of worker threads over items 0 .. count-1, claimed in increasing order, for the
 * streaming passes of lib/format/tree.c and lib/format/fec.c. The caller owns the per-worker state (its
 * buffers) and the item function; the pool starts the threads, stops them at the first
 * error, reports progress from the calling thread and joins them. */
#ifndef VERITY_WORKERS_H
#define VERITY_WORKERS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define VI_WORK_MAX_THREADS 256u
#define VI_WORK_MAX_BUFFERS (32u << 20)   /* read buffers of all workers of one pass together */

struct vi_work {
	atomic_uint_fast64_t next;        /* next item to claim */
	atomic_uint_fast64_t limit;       /* items from here on are not started */
	atomic_uint_fast64_t done;        /* progress units (bytes) done */
	atomic_int error;                 /* first failure, negative errno */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned running;
	char errmsg[160];                 /* set with the first error, under lock */
};

/* Run fn(worker, item) for every item on `threads` threads (at least 1), worker i getting
 * (char *)workers + i × worker_size. fn returns 0, or a negative errno after vi_work_fail.
 * progress (may be NULL) is called from this thread about 5 times a second with the units
 * passed to vi_work_done out of total, and once with (total, total) on success. Returns 0 or
 * the first failure, with err set ("cannot start workers" when a thread cannot be created). */
int vi_work_run(struct vi_work *w, uint64_t count, unsigned threads, void *workers,
		size_t worker_size, int (*fn)(void *worker, uint64_t item),
		void (*progress)(void *userdata, uint64_t done, uint64_t total), void *userdata,
		uint64_t total, struct vi_error *err);

/* From an item: record the first failure as "WHAT at byte OFF: reason" and stop the pool. */
void vi_work_fail(struct vi_work *w, int r, const char *what, uint64_t off);

/* From an item: items from end on need not run (a verifier found its first mismatch before). */
void vi_work_limit(struct vi_work *w, uint64_t end);

/* From an item: add units to the progress count. */
void vi_work_done(struct vi_work *w, uint64_t units);

/* Smallest of *a and v, atomically (first mismatches). */
void vi_atomic_min_u64(atomic_uint_fast64_t *a, uint64_t v);

/* Threads for a pass of `items` items when `requested` (0: the CPUs this process may run on):
 * 1 .. VI_WORK_MAX_THREADS and no more than the items. */
unsigned vi_work_threads(unsigned requested, uint64_t items);

#endif
