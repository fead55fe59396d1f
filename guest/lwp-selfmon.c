// SPDX-License-Identifier: GPL-2.0
/*
 * A program that profiles itself with LWP, round after round, for a given
 * time, and checks every round exactly: to run across something that
 * happens to the system meanwhile (suspend to RAM: 40-lwp-suspend).
 *
 *   lwp-selfmon SECONDS [MIN_ACROSS]
 *
 * A round loads a fresh LWPCB (EventId 2, instructions retired, period
 * P = 10007, the first record P / 2 + 1 instructions in), runs 100 * P
 * iterations of one LOOP instruction, reads the LWPCB back (SLWPCB) and
 * turns LWP off.  It must find exactly 100 records, all of EventId 2 at
 * the LOOP instruction, none missed, and CPUID 8000_001C EAX (the features
 * LWP_CFG enables on the CPU) equal to EDX (those the CPU has) inside the
 * round.  SECONDS count CLOCK_MONOTONIC, which stops while the system
 * sleeps; a round during which CLOCK_BOOTTIME ran ahead of it by half a
 * second or more ran across a suspend.  With MIN_ACROSS, fewer such rounds
 * than that fail.
 *
 * Prints "lwp-selfmon: R rounds, A across a suspend, all exact" and exits
 * 0, or says which round went wrong and how, and exits 1; exits 77 where
 * LWP cannot be had (no LWP, or no grant).
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lwp.h"

#define ARCH_REQ_XCOMP_PERM	0x1023
#define XFEATURE_LWP		62

#define PERIOD			10007
#define RECORDS			100
#define EV_INSTRUCTIONS		2

static struct lwpcb cb __attribute__((aligned(64)));
static struct lwp_rec ring[2 * RECORDS] __attribute__((aligned(64)));

static double seconds(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* How far CLOCK_BOOTTIME is ahead of CLOCK_MONOTONIC: the time slept */
static double slept(void)
{
	return seconds(CLOCK_BOOTTIME) - seconds(CLOCK_MONOTONIC);
}

/* One round; 0 if exact, else the reason in why */
static int round_once(char *why, size_t len)
{
	unsigned long n = (unsigned long)RECORDS * PERIOD, ip;
	unsigned int eax, ebx, ecx, edx, i, nr;
	void *back;

	memset(&cb, 0, sizeof(cb));
	cb.flags = 1u << EV_INSTRUCTIONS;
	cb.size = sizeof(ring);
	cb.base = (uintptr_t)ring;
	cb.ev[EV_INSTRUCTIONS - 1].interval = PERIOD - 1;
	cb.ev[EV_INSTRUCTIONS - 1].counter = PERIOD / 2;

	asm volatile("lea 1f(%%rip), %[ip]\n\t"
		     "llwpcb %[cb]\n"
		     "1:\tloop 1b\n\t"
		     "slwpcb %[back]"
		     : [ip] "=&r" (ip), [back] "=r" (back), "+c" (n)
		     : [cb] "r" (&cb)
		     : "memory");
	__cpuid(0x8000001c, eax, ebx, ecx, edx);
	asm volatile("llwpcb %0" : : "r" (0UL) : "memory");

	if (back != &cb) {
		snprintf(why, len, "SLWPCB gave %p, not the LWPCB %p", back, (void *)&cb);
		return 1;
	}
	if (eax != edx) {
		snprintf(why, len, "CPUID 8000_001C EAX %#x, EDX %#x: LWP_CFG not set up",
			 eax, edx);
		return 1;
	}
	nr = cb.head / sizeof(struct lwp_rec);
	if (nr != RECORDS || cb.missed) {
		snprintf(why, len, "%u records (want %u), %llu missed", nr, RECORDS,
			 (unsigned long long)cb.missed);
		return 1;
	}
	for (i = 0; i < nr; i++) {
		if (ring[i].id != EV_INSTRUCTIONS || ring[i].ip != ip) {
			snprintf(why, len, "record %u: EventId %u at %#llx (the loop: %#lx)",
				 i, ring[i].id,
				 (unsigned long long)ring[i].ip, ip);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long rounds = 0, across = 0, min_across;
	unsigned int eax, ebx, ecx, edx;
	double end, before, after;
	char why[160];

	if (argc < 2 || argc > 3 || atof(argv[1]) <= 0) {
		fprintf(stderr, "usage: lwp-selfmon SECONDS [MIN_ACROSS]\n");
		return 2;
	}
	min_across = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
	if (!__get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 15))) {
		printf("lwp-selfmon: no LWP (CPUID 8000_0001 ECX[15] clear)\n");
		return 77;
	}
	if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_LWP)) {
		perror("lwp-selfmon: arch_prctl(ARCH_REQ_XCOMP_PERM, 62)");
		return 77;
	}

	end = seconds(CLOCK_MONOTONIC) + atof(argv[1]);
	while (seconds(CLOCK_MONOTONIC) < end) {
		before = slept();
		if (round_once(why, sizeof(why))) {
			printf("lwp-selfmon: round %lu: %s\n", rounds, why);
			return 1;
		}
		after = slept();
		rounds++;
		if (after - before >= 0.5) {
			across++;
			printf("lwp-selfmon: round %lu ran across %.1f s of sleep\n",
			       rounds - 1, after - before);
			fflush(stdout);
		}
	}
	printf("lwp-selfmon: %lu rounds, %lu across a suspend, all exact\n", rounds, across);
	if (across < min_across) {
		printf("lwp-selfmon: want at least %lu rounds across a suspend\n", min_across);
		return 1;
	}
	return 0;
}
