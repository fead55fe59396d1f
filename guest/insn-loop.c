// SPDX-License-Identifier: GPL-2.0
/*
 * A user loop whose instruction count is known from its code, for the
 * counting tests (perf stat): N iterations of "dec; jnz" retire exactly 2N
 * instructions.  With T threads, each runs the loop, 2NT in all.  The rest
 * of the program (start-up, thread creation, printf, exit) adds a few
 * hundred thousand at most.
 *
 *   insn-loop [N [T]]   (default N = 50,000,000, T = 1: 10^8 instructions)
 *
 * Prints "insn-loop: 2NT instructions in the loop" when done.
 */
// harness-cflags: -pthread
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long iters;

static void *loop(void *arg)
{
	unsigned long i = iters;

	asm volatile("1: dec %0\n\tjnz 1b" : "+r"(i) :: "cc");
	return arg;
}

int main(int argc, char **argv)
{
	unsigned long t, nthreads = argc > 2 ? strtoul(argv[2], NULL, 0) : 1;
	pthread_t th[64];
	int err;

	iters = argc > 1 ? strtoul(argv[1], NULL, 0) : 50000000;
	if (!iters || !nthreads || nthreads > 64) {
		fprintf(stderr, "usage: insn-loop [N >= 1 [T 1..64]]\n");
		return 2;
	}
	for (t = 1; t < nthreads; t++) {
		err = pthread_create(&th[t], NULL, loop, NULL);
		if (err) {
			fprintf(stderr, "insn-loop: pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	loop(NULL);
	for (t = 1; t < nthreads; t++)
		pthread_join(th[t], NULL);
	printf("insn-loop: %lu instructions in the loop\n", 2 * iters * nthreads);
	return 0;
}
