// SPDX-License-Identifier: GPL-2.0
/*
 * Demo and accuracy workload: three functions whose loops retire
 * instructions in a 6:3:1 ratio (the loop bodies are identical), so a
 * profile by instructions must show about 60% / 30% / 10%.
 *
 *   workload [N]   run 6N, 3N and N iterations (default N = 5,000,000)
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

#include "loop.h"

__attribute__((noinline)) void func_a(unsigned long n) { LOOP(n); }
__attribute__((noinline)) void func_b(unsigned long n) { LOOP(n); }
__attribute__((noinline)) void func_c(unsigned long n) { LOOP(n); }

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 5000000;

	func_a(6 * n);
	func_b(3 * n);
	func_c(n);
	printf("workload done: %lu\n", sink);
	return 0;
}
