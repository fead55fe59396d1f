// SPDX-License-Identifier: GPL-2.0
/*
 * How much slower the emulated CPU runs user code while LWP counts it:
 * the same loops, timed with LWP off and with LWP counting instructions
 * and branches retired (EventIds 2 and 3, records every ~10^5 events),
 * interleaved five times in one run; medians.  Prints guest instructions
 * per second both ways and the ratio, for `make bench`.
 * "lwp-speed once off|on N" runs the tight loop once, N iterations, for
 * `make bench` to count the emulator's host instructions under valgrind:
 * it prints LWP-ONCE-START, idles 3 s, runs the loop, prints LWP-ONCE-END
 * and idles 3 s, so that the host can switch the count on and off while
 * the emulator has next to nothing to do.
 */
// harness-cflags: -O2 -mlwp
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "lwp.h"

#define ARCH_REQ_XCOMP_PERM	0x1023

/* 5 instructions, 1 branch per iteration */
void tight_loop(unsigned long n);
/* 18 instructions, 1 branch per iteration */
void straight_loop(unsigned long n);
asm(".text\n"
    ".globl tight_loop\n"
    "tight_loop:\n"
    "	mov %rdi, %rcx\n"
    "1:	add %eax, %edx\n"
    "	xor %edx, %eax\n"
    "	rol $3, %eax\n"
    "	dec %rcx\n"
    "	jnz 1b\n"
    "	ret\n"
    ".globl straight_loop\n"
    "straight_loop:\n"
    "	mov %rdi, %rcx\n"
    "2:	add %eax, %edx\n	xor %edx, %eax\n	rol $3, %eax\n	add %esi, %eax\n"
    "	add %eax, %edx\n	xor %edx, %eax\n	rol $5, %eax\n	add %esi, %edx\n"
    "	add %eax, %edx\n	xor %edx, %eax\n	rol $7, %eax\n	add %esi, %eax\n"
    "	add %eax, %edx\n	xor %edx, %eax\n	rol $9, %eax\n	add %esi, %edx\n"
    "	dec %rcx\n"
    "	jnz 2b\n"
    "	ret\n");

static struct lwpcb cb __attribute__((aligned(64)));
static uint8_t ring[1 << 20] __attribute__((aligned(64)));
static unsigned long records;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double run(void (*loop)(unsigned long), unsigned long n, int lwp)
{
	double t;

	if (lwp) {
		memset(&cb, 0, sizeof(cb));
		cb.flags = (1u << 2) | (1u << 3);	/* instructions, branches */
		cb.size = sizeof(ring);
		cb.base = (uintptr_t)ring;
		cb.ev[1].interval = cb.ev[1].counter = 99999;
		cb.ev[2].interval = cb.ev[2].counter = 9999;
		__llwpcb(&cb);
	}
	t = now();
	loop(n);
	t = now() - t;
	if (lwp) {
		__llwpcb(NULL);
		records = cb.head / 32 + cb.missed;
	}
	return t;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void measure(const char *name, void (*loop)(unsigned long), unsigned long n,
		    int insns_per_iter)
{
	double off[5], on[5], insns = (double)n * insns_per_iter + 1;
	int i;

	for (i = 0; i < 5; i++) {
		off[i] = run(loop, n, 0);
		on[i] = run(loop, n, 1);
	}
	qsort(off, 5, sizeof(double), cmp);
	qsort(on, 5, sizeof(double), cmp);
	printf("LWP-SPEED %s: %.0f insns; LWP off %.1f M insns/s, LWP on %.1f M insns/s, "
	       "slowdown %.2fx (%lu records a run, expected %lu)\n", name, insns,
	       insns / off[2] / 1e6, insns / on[2] / 1e6, on[2] / off[2], records,
	       (unsigned long)(insns / 100000) + n / 10000);
}

/* The markers of "lwp-speed once", each followed by 3 s of idle */
static void once_start(void)
{
	printf("LWP-ONCE-START\n");
	fflush(stdout);
	sleep(3);
}

static void once_end(void)
{
	printf("LWP-ONCE-END\n");
	fflush(stdout);
	sleep(3);
}

static int xcr0_lwp(void)
{
	uint32_t lo, hi;

	asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return hi >> 30 & 1;
}

/* Without an LWP-aware kernel, configure CPU 0 as it would */
static void program_cfg(void)
{
	cpu_set_t set;
	uint64_t cfg;
	int fd;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	fd = open("/dev/cpu/0/msr", O_RDWR);
	if (fd >= 0 && pread(fd, &cfg, 8, 0xc0000105) == 8 && !cfg) {
		cfg = 0x8000000e;
		if (pwrite(fd, &cfg, 8, 0xc0000105) != 8)
			printf("LWP-SPEED: cannot program LWP_CFG\n");
	}
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	int once = argc == 4 && !strcmp(argv[1], "once");
	int lwp = once && !strcmp(argv[2], "on");

	if (once && !lwp) {
		once_start();
		tight_loop(strtoul(argv[3], NULL, 0));
		once_end();
		printf("LWP-ONCE: tight loop, %s iterations, LWP off\n", argv[3]);
		return 0;
	}
	/* the grant, or a test kernel that sets XCR0[62] for everyone */
	if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, 62)) {
		if (!xcr0_lwp()) {
			printf("LWP-SPEED: no LWP (arch_prctl(ARCH_REQ_XCOMP_PERM, 62) failed)\n");
			return 0;
		}
		program_cfg();
	}
	if (once) {
		once_start();
		run(tight_loop, strtoul(argv[3], NULL, 0), 1);
		once_end();
		printf("LWP-ONCE: tight loop, %s iterations, LWP on, %lu records\n", argv[3],
		       records);
		return 0;
	}
	measure("tight loop (5 insns, 1 branch)", tight_loop, 20000000, 5);
	measure("straight loop (18 insns, 1 branch)", straight_loop, 10000000, 18);
	return 0;
}
