// SPDX-License-Identifier: GPL-2.0
/*
 * A program that annotates its own profile with GCC's -mlwp intrinsics:
 * LWPINS markers at the start and end of each of its three phases, and an
 * LWPVAL per item of a phase, with the item's size.  perf samples them with
 * lwp/lwpins/ and lwp/lwpval/; unprofiled, they do nothing.
 *
 *   markers [N [T [V]]]   T threads (default 1: the main thread alone) each
 *                         run the phases parse, compute and emit, of N, 3N
 *                         and 2N loop iterations (default N = 1,000,000),
 *                         and compute feeds V values (default 1000)
 *
 * Each thread's markers, in order: for phase p = 0, 1, 2, a begin marker
 * and an end marker, with Data2 = tid << 32 | p, Data1 = the marker's
 * number in the thread (0-5), Flags = 1 (begin) or 2 (end).  Its values:
 * Data2 = 64 * (i + 1), Data1 = i, Flags = 3, for i = 0 .. V - 1, called
 * from compute between its begin and end markers.  The program prints
 * each thread's tid and the OR of its markers' CFs (1: a marker was lost
 * because the ring was full).
 */
// harness-cflags: -mlwp -pthread
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <x86intrin.h>

#include "loop.h"

#define MARK_BEGIN	1
#define MARK_END	2
#define VAL_ITEM	3

static volatile unsigned long sink;
static unsigned long n = 1000000, values = 1000;

struct thread {
	pthread_t th;
	pid_t tid;
	unsigned int seq;
	unsigned char cf;
};

/* kind: an immediate operand of LWPINS */
#define mark(t, phase, kind) \
	((t)->cf |= __lwpins64((unsigned long long)(t)->tid << 32 | (phase), \
			       (t)->seq++, (kind)))

__attribute__((noinline)) static void parse(struct thread *t)
{
	mark(t, 0, MARK_BEGIN);
	LOOP(n);
	mark(t, 0, MARK_END);
}

__attribute__((noinline)) static void compute(struct thread *t)
{
	unsigned long i;

	mark(t, 1, MARK_BEGIN);
	for (i = 0; i < values; i++) {
		__lwpval64(64 * (i + 1), i, VAL_ITEM);
		LOOP(3 * n / values);
	}
	mark(t, 1, MARK_END);
}

__attribute__((noinline)) static void emit(struct thread *t)
{
	mark(t, 2, MARK_BEGIN);
	LOOP(2 * n);
	mark(t, 2, MARK_END);
}

static void *run(void *arg)
{
	struct thread *t = arg;

	t->tid = gettid();
	parse(t);
	compute(t);
	emit(t);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long i, nr = 1;
	struct thread *t;

	if (argc > 1)
		n = strtoul(argv[1], NULL, 0);
	if (argc > 2)
		nr = strtoul(argv[2], NULL, 0);
	if (argc > 3)
		values = strtoul(argv[3], NULL, 0);
	if (!nr || !values || values > n) {
		fprintf(stderr, "usage: markers [N [T [V]]], T >= 1, 1 <= V <= N\n");
		return 2;
	}
	t = calloc(nr, sizeof(*t));
	if (!t)
		return 1;
	for (i = 1; i < nr; i++) {
		if (pthread_create(&t[i].th, NULL, run, &t[i])) {
			perror("markers: pthread_create");
			return 1;
		}
	}
	run(&t[0]);
	for (i = 1; i < nr; i++)
		pthread_join(t[i].th, NULL);
	for (i = 0; i < nr; i++)
		printf("markers: thread %d cf %u\n", t[i].tid, t[i].cf);
	printf("markers done: %lu\n", sink);
	return 0;
}
