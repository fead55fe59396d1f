// SPDX-License-Identifier: GPL-2.0
/*
 * Demo and accuracy workload: three functions whose loops retire
 * instructions in a 6:3:1 ratio (the loop bodies are identical), so a
 * profile by instructions must show about 60% / 30% / 10%.
 *
 *   workload [N [R [hop]]]   run 6N, 3N and N iterations (default
 *                            N = 5,000,000), R times over (default 1);
 *                            with "hop", each round on the next CPU
 *                            (sched_setaffinity()), and print how many
 *                            times it moved
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>

static volatile unsigned long sink;

#include "loop.h"

__attribute__((noinline)) void func_a(unsigned long n) { LOOP(n); }
__attribute__((noinline)) void func_b(unsigned long n) { LOOP(n); }
__attribute__((noinline)) void func_c(unsigned long n) { LOOP(n); }

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 5000000;
	unsigned long r, rounds = argc > 2 ? strtoul(argv[2], NULL, 0) : 1;
	int hop = argc > 3 && !strcmp(argv[3], "hop");
	int cpu, last = -1, ncpus = get_nprocs();
	unsigned long moves = 0;
	cpu_set_t set;

	for (r = 0; r < rounds; r++) {
		if (hop) {
			CPU_ZERO(&set);
			CPU_SET(r % ncpus, &set);
			if (sched_setaffinity(0, sizeof(set), &set)) {
				perror("workload: sched_setaffinity");
				return 1;
			}
			cpu = sched_getcpu();
			moves += last >= 0 && cpu != last;
			last = cpu;
		}
		func_a(6 * n);
		func_b(3 * n);
		func_c(n);
	}
	if (hop)
		printf("workload: %lu moves between CPUs\n", moves);
	printf("workload done: %lu\n", sink);
	return 0;
}
