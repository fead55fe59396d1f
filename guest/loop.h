/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The loop of the guest workloads (workload.c, lwp-family.c): ITERS
 * iterations with identical bodies, so that functions made of it retire
 * instructions in the ratio of their iteration counts.  Adds into a
 * "static volatile unsigned long sink" the including file defines.
 */
#ifndef GUEST_LOOP_H
#define GUEST_LOOP_H

#define LOOP(iters) do {					\
	unsigned long i, x = 1;					\
	for (i = 0; i < (iters); i++) {				\
		x = x * 2862933555777941757UL + 3037000493UL;	\
		asm volatile("" : "+r"(x));			\
	}							\
	sink += x;						\
} while (0)

#endif
