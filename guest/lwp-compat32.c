// SPDX-License-Identifier: GPL-2.0
/*
 * lwp-compat32: the emulated LWP in a 32-bit program (compat mode), driven
 * from user space like lwp-conformance: the LWPCB and the ring at 32-bit
 * addresses, records of instructions retired naming 32-bit instruction
 * addresses, LWPINS with a 32-bit Data2, and INTO, which exists only
 * outside 64-bit mode and, with OF set, traps after it retires: it and the
 * instructions before it count.  Prints TAP; skips without LWP or without
 * the kernel's grant of XCR0[62].
 */
// harness-cflags: -m32 -static -mlwp
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>

#include "lwp.h"
#include "tap.h"

#define ARCH_REQ_XCOMP_PERM	0x1023
#define XFEATURE_LWP		62
#define F_IRE			(1u << 2)
#define NREC			256

static struct lwpcb cb __attribute__((aligned(64)));
static struct lwp_rec ring[NREC] __attribute__((aligned(64)));
static volatile int ntraps;

/* cdecl: the arguments are on the stack */
void ire_loop32(struct lwpcb *cb, unsigned int n);
void into_nops(struct lwpcb *cb);
extern char ire_dec32[], ire_jnz32[], into_insn[], ins_at[];
asm(".text\n"
    /* counted: n times dec + jnz, then xor: 2n + 1 instructions */
    ".globl ire_loop32\n"
    "ire_loop32:\n"
    "	mov 4(%esp), %eax\n"
    "	mov 8(%esp), %ecx\n"
    "	llwpcb %eax\n"
    ".globl ire_dec32\n"
    "ire_dec32:\n"
    "	dec %ecx\n"
    ".globl ire_jnz32\n"
    "ire_jnz32:\n"
    "	jnz ire_dec32\n"
    "	xor %eax, %eax\n"
    "	llwpcb %eax\n"
    "	ret\n"
    /* OF set, LWP on (LLWPCB keeps the flags), 7 NOPs, INTO: #OF */
    ".globl into_nops\n"
    "into_nops:\n"
    "	mov 4(%esp), %eax\n"
    "	mov $0x7f, %dl\n"
    "	add $1, %dl\n"
    "	llwpcb %eax\n"
    "	.rept 7\n"
    "	nop\n"
    "	.endr\n"
    ".globl into_insn\n"
    "into_insn:\n"
    "	into\n"
    "	xor %eax, %eax\n"
    "	llwpcb %eax\n"
    "	ret\n");

static void setup(unsigned int interval)
{
	__llwpcb(NULL);
	memset(&cb, 0, sizeof(cb));
	memset(ring, 0, sizeof(ring));
	cb.flags = F_IRE;
	cb.size = sizeof(ring);
	cb.base = (uintptr_t)ring;
	cb.ev[1].interval = interval;
	cb.ev[1].counter = interval;
}

static unsigned int nrecords(void)
{
	return cb.head / sizeof(struct lwp_rec);
}

static void on_of(int sig)
{
	ntraps++;
}

static void test_ire(void)
{
	const unsigned int n = 5000, period = 99;
	unsigned int i, expected = (2 * n + 1) / period, ok;

	setup(period - 1);
	ire_loop32(&cb, n);
	result(nrecords() == expected,
	       "32-bit: instructions retired, interval %u over %u instructions: %u records (expected %u)",
	       period - 1, 2 * n + 1, nrecords(), expected);
	ok = nrecords() > 0;
	for (i = 0; ok && i < nrecords(); i++) {
		/* instruction number period * (i + 1): odd dec, even jnz */
		uint64_t want = (period * (i + 1)) % 2 ? (uintptr_t)ire_dec32 : (uintptr_t)ire_jnz32;

		ok = ring[i].id == 2 && ring[i].ip == want;
		if (!ok)
			printf("# record %u: id %u ip %#llx (expected %#llx)\n", i, ring[i].id,
			       (unsigned long long)ring[i].ip, (unsigned long long)want);
	}
	pin_u("no skid: the record names the instruction that overflowed the counter");
	result(ok, "32-bit: each record names the instruction at its 32-bit address");
}

static void test_lwpins(void)
{
	uint32_t data2 = 0xdeadbeef;

	setup(0);
	cb.flags = 0;
	__llwpcb(&cb);
	asm volatile("ins_at: lwpins $0x1234, %1, %0\n"
		     ".globl ins_at" : : "r"(data2), "rm"(0x5678u) : "cc");
	__llwpcb(NULL);
	result(nrecords() == 1 && ring[0].id == 255 && ring[0].ip == (uintptr_t)ins_at &&
	       ring[0].flags == 0x1234 && ring[0].data1 == 0x5678 && ring[0].data2 == data2,
	       "32-bit: LWPINS record: EventId %u, ip %#llx (expected %p), Flags %#x, Data1 %#x, "
	       "Data2 %#llx", ring[0].id, (unsigned long long)ring[0].ip, ins_at, ring[0].flags,
	       ring[0].data1, (unsigned long long)ring[0].data2);
}

static void test_into(void)
{
	struct sigaction sa = { .sa_handler = on_of };

	sigaction(SIGSEGV, &sa, NULL);
	setup(16);
	cb.ev[1].counter = 7;		/* the 8th instruction: INTO */
	ntraps = 0;
	into_nops(&cb);
	result(ntraps == 1, "INTO with OF set traps (#OF, SIGSEGV): %d", ntraps);
	pin_u("INTO counts as an instruction retired, and retires before #OF");
	result(nrecords() >= 1 && ring[0].id == 2 && ring[0].ip == (uintptr_t)into_insn,
	       "INTO retires before it traps: the record of the 8th instruction names it "
	       "(%u records, ip %#llx, expected %p)", nrecords(),
	       (unsigned long long)ring[0].ip, into_insn);
}

int main(void)
{
	unsigned int a, b, c, d;

	printf("TAP version 13\n");
	__cpuid(0x80000001, a, b, c, d);
	if (!(c & (1u << 15))) {
		printf("1..0 # SKIP this CPU has no LWP\n");
		return 0;
	}
	if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_LWP)) {
		printf("1..0 # SKIP arch_prctl(ARCH_REQ_XCOMP_PERM, 62): %s\n", strerror(errno));
		return 0;
	}
	test_ire();
	test_lwpins();
	test_into();
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}
