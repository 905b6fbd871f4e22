// SPDX-License-Identifier: LGPL-2.1-or-later
/* Worker pool of the streaming passes (include/workers.h). */
#include "workers.h"

#include <errno.h>
#include <stdarg.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROGRESS_NS 200000000L

struct thread {
	struct vi_work *w;
	int (*fn)(void *worker, uint64_t item);
	void *worker;
	uint64_t count;
	pthread_t tid;
};

void vi_atomic_min_u64(atomic_uint_fast64_t *a, uint64_t v)
{
	uint_fast64_t cur = atomic_load(a);

	while (v < cur && !atomic_compare_exchange_weak(a, &cur, v))
		;
}

/* The first failure wins: its errno and its message. */
__attribute__((format(printf, 3, 4)))
static void record_failure(struct vi_work *w, int r, const char *fmt, ...)
{
	int expected = 0;
	va_list ap;

	if (!atomic_compare_exchange_strong(&w->error, &expected, r))
		return;
	pthread_mutex_lock(&w->lock);
	va_start(ap, fmt);
	vsnprintf(w->errmsg, sizeof(w->errmsg), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&w->lock);
}

void vi_work_fail(struct vi_work *w, int r, const char *what, uint64_t off)
{
	record_failure(w, r, "%s at byte %llu: %s", what, (unsigned long long)off,
		       r == -EIO ? "short read or I/O error" : strerror(-r));
}

void vi_work_limit(struct vi_work *w, uint64_t end)
{
	vi_atomic_min_u64(&w->limit, end);
}

void vi_work_done(struct vi_work *w, uint64_t units)
{
	atomic_fetch_add(&w->done, units);
}

/* The CPUs this process may run on (at least 1). */
static unsigned default_threads(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	return 1;
}

unsigned vi_work_threads(unsigned requested, uint64_t items)
{
	unsigned n = requested ? requested : default_threads();

	if (n > VI_WORK_MAX_THREADS)
		n = VI_WORK_MAX_THREADS;
	if (n > items)
		n = (unsigned)items;
	return n ? n : 1;
}

static void *thread_main(void *arg)
{
	struct thread *t = arg;
	struct vi_work *w = t->w;

	for (;;) {
		uint64_t item = atomic_fetch_add(&w->next, 1);

		/* Items are claimed in order: none past the limit can matter any more. */
		if (item >= t->count || item >= atomic_load(&w->limit) || atomic_load(&w->error))
			break;
		int r = t->fn(t->worker, item);

		if (r < 0) {
			/* an item that did not say why still stops the pass with its error */
			record_failure(w, r, "pass item %llu failed: %s", (unsigned long long)item,
				       strerror(-r));
			break;
		}
	}
	pthread_mutex_lock(&w->lock);
	w->running--;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int vi_work_run(struct vi_work *w, uint64_t count, unsigned threads, void *workers,
		size_t worker_size, int (*fn)(void *worker, uint64_t item),
		void (*progress)(void *userdata, uint64_t done, uint64_t total), void *userdata,
		uint64_t total, struct vi_error *err)
{
	struct thread *ts;
	unsigned started = 0;
	int r = 0;

	if (threads == 0)
		threads = 1;
	ts = calloc(threads, sizeof(*ts));
	if (!ts) {
		return vi_errno(err, -ENOMEM, "out of memory");
	}
	atomic_init(&w->next, 0);
	atomic_init(&w->limit, UINT64_MAX);
	atomic_init(&w->done, 0);
	atomic_init(&w->error, 0);
	w->errmsg[0] = '\0';
	w->running = 0;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);

	pthread_mutex_lock(&w->lock);
	for (; started < threads; started++) {
		struct thread *t = &ts[started];

		t->w = w;
		t->fn = fn;
		t->worker = (char *)workers + (size_t)started * worker_size;
		t->count = count;
		r = -pthread_create(&t->tid, NULL, thread_main, t);
		if (r < 0) {
			/* Stop the started ones: they see the error and leave. */
			atomic_store(&w->error, r);
			break;
		}
		w->running++;
	}
	while (w->running > 0) {
		struct timespec ts_end;

		clock_gettime(CLOCK_REALTIME, &ts_end);
		ts_end.tv_nsec += PROGRESS_NS;
		if (ts_end.tv_nsec >= 1000000000L) {
			ts_end.tv_sec++;
			ts_end.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&w->cond, &w->lock, &ts_end);
		if (progress && w->running > 0) {
			pthread_mutex_unlock(&w->lock);
			progress(userdata, atomic_load(&w->done), total);
			pthread_mutex_lock(&w->lock);
		}
	}
	pthread_mutex_unlock(&w->lock);
	for (unsigned i = 0; i < started; i++)
		pthread_join(ts[i].tid, NULL);
	free(ts);

	if (r < 0)
		r = vi_errno(err, r, "cannot start workers: %s", strerror(-r));
	else if (atomic_load(&w->error))
		r = vi_errno(err, atomic_load(&w->error), "%s", w->errmsg);
	else if (progress)
		progress(userdata, total, total);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	return r;
}
