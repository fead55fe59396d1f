// SPDX-License-Identifier: GPL-2.0
/*
 * Conformance of the emulated AMD LWP hardware, driven from user space the
 * way a self-monitoring program drives it (../shared/lwp-spec.md, the QEMU
 * series' docs/system/i386/lwp.rst): the instructions and their faults,
 * LWPCB normalization, record contents of EventIds 1, 2, 3 and 255 with
 * exact counts and addresses, the branch filters, MissedEvents on a full
 * ring, the ring wrapping, record stores that fault and are retried, the
 * threshold interrupt, XSAVE/XRSTOR of component 62, LWP_CFG and
 * LWP_CBADDR written while LWP runs, and LWP staying off where it was not
 * granted.  Independent of the perf driver;
 * it needs only the kernel's grant of XCR0[62] through
 * arch_prctl(ARCH_REQ_XCOMP_PERM, 62).  Prints TAP.
 */
// harness-cflags: -O2 -mlwp -pthread
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lwp.h"
#include "tap.h"
#include "trap.h"
#include <x86intrin.h>

#define ARCH_REQ_XCOMP_PERM	0x1023
#define XFEATURE_LWP		62
#define MSR_LWP_CFG		0xc0000105
#define MSR_LWP_CBADDR		0xc0000106

#define F_VAL	(1u << 1)
#define F_IRE	(1u << 2)
#define F_BRE	(1u << 3)
#define F_INT	(1u << 31)
#define NO_ABS	(1u << 27)
#define NO_COND	(1u << 28)
#define NO_REL	(1u << 29)
#define NREC	256

static struct lwpcb cb __attribute__((aligned(64)));
static struct lwp_rec ring[NREC] __attribute__((aligned(64)));
static uint64_t lwp_cfg;
static uint32_t cpuid_edx;

static void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

/* The loops whose instructions and branches the tests count */
void ire_loop(struct lwpcb *cb, unsigned int n, unsigned long zero);
void br_loop(struct lwpcb *cb, unsigned int n, unsigned long zero);
extern char ire_dec[], ire_jnz[], ire_end[];
extern char br_call[], br_ret_to[], br_dec[], br_jnz[], br_fn[], br_end[];
asm(".text\n"
    /* counted: mov, then n times dec + jnz: 1 + 2n instructions */
    ".globl ire_loop\n"
    "ire_loop:\n"
    "	llwpcb %rdi\n"
    "	mov %esi, %ecx\n"
    ".globl ire_dec\n"
    "ire_dec:\n"
    "	dec %ecx\n"
    ".globl ire_jnz\n"
    "ire_jnz:\n"
    "	jnz ire_dec\n"
    ".globl ire_end\n"
    "ire_end:\n"
    "	llwpcb %rdx\n"
    "	ret\n"
    /* n times: call (relative), ret (absolute), dec, jnz (conditional) */
    ".globl br_loop\n"
    "br_loop:\n"
    "	llwpcb %rdi\n"
    "	mov %esi, %ecx\n"
    ".globl br_call\n"
    "br_call:\n"
    "	call br_fn\n"
    ".globl br_ret_to\n"
    "br_ret_to:\n"
    ".globl br_dec\n"
    "br_dec:\n"
    "	dec %ecx\n"
    ".globl br_jnz\n"
    "br_jnz:\n"
    "	jnz br_call\n"
    ".globl br_end\n"
    "br_end:\n"
    "	llwpcb %rdx\n"
    "	ret\n"
    ".globl br_fn\n"
    "br_fn:\n"
    "	ret\n"
    /* 8 NOPs between two LLWPCBs: the second ends their TB early */
    ".globl nops_llwpcb\n"
    "nops_llwpcb:\n"
    "	llwpcb %rdi\n"
    "	.rept 7\n"
    "	nop\n"
    "	.endr\n"
    ".globl nops_last\n"
    "nops_last:\n"
    "	nop\n"
    "	llwpcb %rsi\n"
    "	ret\n"
    /* XSAVE of component 62 after 10 NOPs of the same block */
    ".globl xsave_mid\n"
    "xsave_mid:\n"
    "	mov $0x40000000, %edx\n"
    "	xor %eax, %eax\n"
    "	xor %ecx, %ecx\n"
    "	llwpcb %rdi\n"
    "	.rept 10\n"
    "	nop\n"
    "	.endr\n"
    "	xsave (%rsi)\n"
    "	llwpcb %rcx\n"
    "	ret\n"
    /* 5 NOPs, XRSTOR of component 62, 7 NOPs */
    ".globl xrstor_mid\n"
    "xrstor_mid:\n"
    "	mov $0x40000000, %edx\n"
    "	xor %eax, %eax\n"
    "	xor %ecx, %ecx\n"
    "	llwpcb %rdi\n"
    "	.rept 5\n"
    "	nop\n"
    "	.endr\n"
    "	xrstor (%rsi)\n"
    "	.rept 7\n"
    "	nop\n"
    "	.endr\n"
    "	llwpcb %rcx\n"
    "	ret\n"
    /*
     * LLWPCB, then pwrite64(fd, buf, 8, LWP_CFG) as the 6th instruction
     * counted; LWP stays on.  Returns what the syscall returns.
     */
    ".globl cfg_syscall\n"
    "cfg_syscall:\n"
    "	llwpcb %rdi\n"
    "	mov %esi, %edi\n"
    "	mov %rdx, %rsi\n"
    "	mov $8, %edx\n"
    "	mov $0xc0000105, %r10d\n"
    "	mov $18, %eax\n"
    ".globl cfg_syscall_insn\n"
    "cfg_syscall_insn:\n"
    "	syscall\n"
    "	ret\n"
    /* 10 NOPs, then an LWPINS: returns EventCounter2 as the LWPCB has it */
    ".globl lwpins_flushed\n"
    "lwpins_flushed:\n"
    "	xor %ecx, %ecx\n"
    "	llwpcb %rdi\n"
    "	.rept 10\n"
    "	nop\n"
    "	.endr\n"
    "	lwpins $0, %ecx, %rcx\n"
    "	mov 140(%rdi), %eax\n"
    "	llwpcb %rcx\n"
    "	ret\n");
void nops_llwpcb(struct lwpcb *cb, unsigned long zero);
extern char nops_last[];
void xsave_mid(struct lwpcb *cb, void *img);
void xrstor_mid(struct lwpcb *cb, void *img);
uint32_t lwpins_flushed(struct lwpcb *cb);
long cfg_syscall(struct lwpcb *cb, int fd, const uint64_t *val);
extern char cfg_syscall_insn[];

static void setup(uint32_t flags, unsigned int nrec, uint32_t interval)
{
	int i;

	__llwpcb(NULL);		/* a running LWP would flush into the new LWPCB */
	memset(&cb, 0, sizeof(cb));
	memset(ring, 0, sizeof(ring));
	cb.flags = flags;
	cb.size = nrec * sizeof(struct lwp_rec);
	cb.base = (uintptr_t)ring;
	for (i = 0; i < 3; i++) {
		cb.ev[i].interval = interval;
		cb.ev[i].counter = interval;
	}
}

static uint32_t effective(uint32_t flags)
{
	return flags & (uint32_t)lwp_cfg & cpuid_edx & 0x8000000eu;
}

static uint8_t core_id(void)
{
	return lwp_cfg >> 32;
}

static unsigned int nrecords(void)
{
	return cb.head / sizeof(struct lwp_rec);
}

/* --- the #UD encodings, as raw bytes --- */
#define UD_FN(name, bytes) \
	static void name(void) { asm volatile(bytes ::: "rax", "memory"); }
UD_FN(ud_l1, ".byte 0x8f, 0xe9, 0x7c, 0x12, 0xc8")	/* SLWPCB, XOP.L = 1 */
UD_FN(ud_pp, ".byte 0x8f, 0xe9, 0x79, 0x12, 0xc8")	/* pp = 01 */
UD_FN(ud_vvvv, ".byte 0x8f, 0xe9, 0x70, 0x12, 0xc8")	/* vvvv = 0001 */
UD_FN(ud_mem, "lea ring(%%rip), %%rax; .byte 0x8f, 0xe9, 0x78, 0x12, 0x08")	/* slwpcb [rax] */
UD_FN(ud_reg9, ".byte 0x8f, 0xe9, 0x78, 0x12, 0xd0")	/* map 9 /2 */
UD_FN(ud_rega, ".byte 0x8f, 0xea, 0x78, 0x12, 0xd0, 0, 0, 0, 0")	/* map 0Ah /2 */
UD_FN(ud_66, ".byte 0x66, 0x8f, 0xe9, 0x78, 0x12, 0xc8")	/* 66 prefix */
UD_FN(ud_lock, ".byte 0xf0, 0x8f, 0xe9, 0x78, 0x12, 0xc8")	/* LOCK */
UD_FN(ud_rep, ".byte 0xf3, 0x8f, 0xe9, 0x78, 0x12, 0xc8")	/* F3 */
UD_FN(ud_rex, ".byte 0x48, 0x8f, 0xe9, 0x78, 0x12, 0xc8")	/* REX */
UD_FN(ud_op13, ".byte 0x8f, 0xe9, 0x78, 0x13, 0xc8")	/* opcode 13h */
UD_FN(ud_map8, ".byte 0x8f, 0xe8, 0x78, 0x12, 0xc8")	/* map 8 */
UD_FN(ud_pop4, ".byte 0x8f, 0x24, 0x24")	/* 8F /4 [rsp]: not XOP */
UD_FN(slwpcb_ok, ".byte 0x8f, 0xe9, 0x78, 0x12, 0xc8")	/* slwpcb eax */

static void test_decode(void)
{
	static const struct {
		void (*fn)(void);
		const char *what;
	} ud[] = {
		{ ud_l1, "XOP.L = 1" }, { ud_pp, "XOP.pp = 01" },
		{ ud_vvvv, "SLWPCB with vvvv != 1111b" },
		{ ud_mem, "SLWPCB with a memory operand" },
		{ ud_reg9, "map 9 opcode 12h /2" }, { ud_rega, "map 0Ah opcode 12h /2" },
		{ ud_66, "a 66 prefix" }, { ud_lock, "a LOCK prefix" },
		{ ud_rep, "an F3 prefix" }, { ud_rex, "a REX prefix" },
		{ ud_op13, "map 9 opcode 13h" }, { ud_map8, "map 8 opcode 12h" },
		{ ud_pop4, "8F /4 with a map_select below 8 (no XOP, no POP)" },
	};
	unsigned int i;
	int sig;

	for (i = 0; i < sizeof(ud) / sizeof(ud[0]); i++) {
		sig = trap(ud[i].fn);
		result(sig == SIGILL, "#UD (SIGILL) for %s (signal %d)", ud[i].what, sig);
	}
	sig = trap(slwpcb_ok);
	result(sig == 0, "the same bytes well-formed (slwpcb %%eax) execute (signal %d)", sig);
}

static void llwpcb_cb(void)
{
	__llwpcb(&cb);
}

static void test_llwpcb(void)
{
	uint32_t flags;
	void *p;
	int sig;

	result(__slwpcb() == NULL, "SLWPCB returns 0 while LWP is off");

	setup(F_VAL, 31, 0);
	cb.size = 1023;		/* rounds down to 992 bytes < 32 records */
	sig = trap(llwpcb_cb);
	result(sig == SIGSEGV, "LLWPCB with a ring below 32 records raises #GP (signal %d)", sig);
	result(__slwpcb() == NULL, "and leaves LWP off");

	setup(0xffffffffu, 32, 100);
	cb.head = 32 * 32 + 64;		/* beyond the ring: becomes 0 */
	cb.ev[0].counter = 0x3fffffb;	/* -5 as 26 bits: becomes 0 */
	cb.ev[0].interval = 7;
	__llwpcb(&cb);
	flags = cb.flags;
	__llwpcb(NULL);		/* before anything else retires instructions */
	pin_u("LLWPCB takes reserved Flags bits and masks them off");
	result(flags == effective(0xffffffffu),
	       "LLWPCB writes the effective Flags back: %#x (expected %#x)", flags,
	       effective(0xffffffffu));
	result(cb.head == 0, "LLWPCB maps a head offset beyond the ring to 0 (got %u)", cb.head);
	result((cb.ev[0].counter & 0x3ffffff) == 0,
	       "LLWPCB makes a negative counter 0 (got %#x)", cb.ev[0].counter);

	setup(F_VAL, 32, 100);
	cb.head = 70;
	__llwpcb(&cb);
	p = __slwpcb();
	result(p == &cb, "SLWPCB returns the LWPCB's address (%p, expected %p)", p, (void *)&cb);
	__llwpcb(NULL);
	result(cb.head == 64, "LLWPCB rounds the head offset down to a record (got %u)", cb.head);
	result(__slwpcb() == NULL, "LLWPCB 0 stops LWP");
}

static void test_lwpins(void)
{
	uint64_t ip;
	uint8_t cf;
	int i, ok;

	setup(F_VAL, 32, 0);
	__llwpcb(&cb);
	asm volatile("lea 1f(%%rip), %[ip]\n"
		     "1: lwpins $0x12345678, %[d1], %[d2]\n"
		     "setc %[cf]"
		     : [ip] "=&r"(ip), [cf] "=r"(cf)
		     : [d1] "r"(0xdeadbeefu), [d2] "r"(0x1122334455667788ull) : "cc", "memory");
	__slwpcb();
	result(cf == 0, "LWPINS into a ring with room returns CF=0");
	result(nrecords() == 1, "LWPINS stores one record (head %u)", cb.head);
	result(ring[0].id == 255 && ring[0].core == core_id() && ring[0].flags == 0x5678 &&
	       ring[0].data1 == 0xdeadbeef && ring[0].ip == ip &&
	       ring[0].data2 == 0x1122334455667788ull && ring[0].data3 == 0,
	       "LWPINS record: id %u core %u flags %#x data1 %#x ip %#llx data2 %#llx data3 %#llx "
	       "(expected 255 %u 0x5678 0xdeadbeef %#llx 0x1122334455667788 0)",
	       ring[0].id, ring[0].core, ring[0].flags, ring[0].data1,
	       (unsigned long long)ring[0].ip, (unsigned long long)ring[0].data2,
	       (unsigned long long)ring[0].data3, core_id(), (unsigned long long)ip);
	/* 32-bit data2: zero-extended */
	asm volatile("lwpins $1, %[d1], %[d2]" :: [d1] "r"(1u), [d2] "r"(0xffffffffu) : "cc", "memory");
	__slwpcb();
	result(ring[1].data2 == 0xffffffffull, "LWPINS with a 32-bit register zero-extends Data2 (%#llx)",
	       (unsigned long long)ring[1].data2);

	/* a full ring: 31 records fit in 32 slots, the rest overwrite the last one */
	setup(F_VAL, 32, 0);
	__llwpcb(&cb);
	ok = 1;
	for (i = 0; i < 40; i++) {
		cf = __lwpins64(i, 0x100 + i, 0);
		if (cf != (i >= 31))
			ok = 0;
	}
	__llwpcb(NULL);
	pin_u("a full ring keeps one slot empty");
	result(ok, "LWPINS returns CF=0 for records 1-31 and CF=1 once the ring is full");
	result(cb.missed == 9, "MissedEvents counts the 9 lost records (got %llu)",
	       (unsigned long long)cb.missed);
	pin_u("a full ring keeps one slot empty");
	result(cb.head == 31 * 32, "the head stays at the last slot (got %u)", cb.head);
	pin_u("a full ring keeps one slot empty; the new record overwrites the last one stored");
	result(ring[30].data1 == 0x100 + 39 && ring[29].data1 == 0x100 + 29,
	       "a record into a full ring overwrites the last one (slot 30 data1 %#x, slot 29 %#x)",
	       ring[30].data1, ring[29].data1);

	/*
	 * No EventId in Flags, only the interrupt: what the lwp perf PMU
	 * loads for a thread with an lwpins event alone
	 */
	setup(F_INT, 32, 0);
	__llwpcb(&cb);
	ok = 1;
	for (i = 0; i < 3; i++)
		ok &= __lwpins64(i, i, 0) == 0;
	__llwpcb(NULL);
	result(ok && nrecords() == 3 && ring[2].id == 255 && ring[2].data1 == 2,
	       "LWPINS stores its records with no EventId enabled (%u records)", nrecords());

	/* LWP off: nothing, CF=0 */
	cf = __lwpins64(1, 2, 0);
	result(cf == 0, "LWPINS with LWP off returns CF=0");
}

static void test_lwpval(void)
{
	uint64_t ips[9];
	uint8_t c1, c0;
	int i, ok;

	setup(F_VAL, 32, 2);	/* a record every 3rd LWPVAL */
	__llwpcb(&cb);
	for (i = 0; i < 9; i++)
		asm volatile("lea 1f(%%rip), %[ip]\n"
			     "1: lwpval $0xabcd, %[d1], %[d2]"
			     : [ip] "=&r"(ips[i]) : [d1] "r"(i), [d2] "r"(0x1000ull + i) : "memory");
	asm volatile("stc\n lwpval $0, %[d1], %[d2]\n setc %[c1]\n"
		     "clc\n lwpval $0, %[d1], %[d2]\n setc %[c0]"
		     : [c1] "=r"(c1), [c0] "=r"(c0) : [d1] "r"(0), [d2] "r"(0ull) : "cc", "memory");
	__llwpcb(NULL);
	result(nrecords() == 3, "LWPVAL with EventInterval1 2 stores every 3rd value: %u records of 11",
	       nrecords());
	ok = nrecords() == 3;
	for (i = 0; ok && i < 3; i++)
		ok = ring[i].id == 1 && ring[i].flags == 0xabcd && ring[i].data1 == 3u * i + 2 &&
		     ring[i].data2 == 0x1000ull + 3 * i + 2 && ring[i].ip == ips[3 * i + 2] &&
		     ring[i].core == core_id();
	result(ok, "LWPVAL records: EventId 1, Flags, Data1, Data2 and the address of the 3rd, 6th, 9th");
	result(c1 == 1 && c0 == 0, "LWPVAL leaves the flags alone (CF %u then %u)", c1, c0);

	setup(F_VAL, 32, 0);	/* EventInterval1 0: every value (lwp/lwpval/ period 1) */
	__llwpcb(&cb);
	for (i = 0; i < 5; i++)
		__lwpval64(0x2000 + i, i, 0);
	__llwpcb(NULL);
	ok = nrecords() == 5;
	for (i = 0; ok && i < 5; i++)
		ok = ring[i].id == 1 && ring[i].data2 == 0x2000ull + i && ring[i].data1 == (uint32_t)i;
	result(ok, "LWPVAL with EventInterval1 0 stores every value (%u records of 5)", nrecords());

	setup(F_INT, 32, 0);	/* EventId 1 not enabled */
	__llwpcb(&cb);
	for (i = 0; i < 5; i++)
		__lwpval64(i, i, 0);
	__llwpcb(NULL);
	result(nrecords() == 0, "LWPVAL does nothing without EventId 1 enabled (%u records)",
	       nrecords());
}

static void test_ire(void)
{
	const unsigned int n = 5000, period = 99;
	unsigned int i, expected = (1 + 2 * n) / period, ok = 1;

	setup(F_IRE, NREC, period - 1);
	ire_loop(&cb, n, 0);
	result(nrecords() == expected,
	       "instructions retired, interval %u over %u instructions: %u records (expected %u)",
	       period - 1, 1 + 2 * n, nrecords(), expected);
	for (i = 0; ok && i < nrecords(); i++) {
		/* instruction number period * (i + 1): 1 is mov, even dec, odd jnz */
		uint64_t want = (period * (i + 1)) % 2 ? (uintptr_t)ire_jnz : (uintptr_t)ire_dec;

		ok = ring[i].id == 2 && ring[i].ip == want && ring[i].core == core_id() &&
		     !ring[i].data1 && !ring[i].data2 && !ring[i].flags;
		if (!ok)
			printf("# record %u: id %u ip %#llx (expected %#llx)\n", i, ring[i].id,
			       (unsigned long long)ring[i].ip, (unsigned long long)want);
	}
	pin_u("no skid: the record names the instruction that overflowed the counter");
	result(ok, "each EventId 2 record names the instruction that overflowed the counter");
	expected = period - 1 - (1 + 2 * n - expected * period);
	pin_u("LLWPCB is counted by neither LWP instance");
	result((cb.ev[1].counter & 0x3ffffff) == expected,
	       "LLWPCB 0 writes the remaining count back: %u (expected %u)",
	       cb.ev[1].counter & 0x3ffffff, expected);

	setup(F_IRE, NREC, 5);	/* raised to the minimum of 16 */
	cb.ev[1].counter = 16;
	ire_loop(&cb, 170, 0);
	pin_u("the minimum EventInterval of EventId 2 is 16");
	result(nrecords() == 341 / 17,
	       "an EventInterval below 16 counts as 16: %u records (expected %u)", nrecords(),
	       341 / 17);

}

/*
 * Both hardware events overflow at the same branch: EventId 2 every 34
 * instructions, EventId 3 every 17 branches, of the loop's dec + jnz.
 * The CPU holds one pending record; neither record may be lost.
 */
static void test_ire_bre_together(void)
{
	unsigned int i, ok;

	setup(F_IRE | F_BRE, NREC, 16);
	cb.ev[1].interval = 33;
	cb.ev[1].counter = 34;		/* the 35th instruction: the 17th jnz */
	ire_loop(&cb, 170, 0);
	ok = nrecords() == 20;
	for (i = 0; ok && i < 20; i++)
		ok = ring[i].id == (i % 2 ? 3 : 2) && ring[i].ip == (uintptr_t)ire_jnz;
	if (!ok)
		for (i = 0; i < nrecords() && i < 4; i++)
			printf("# record %u: id %u ip %#llx\n", i, ring[i].id,
			       (unsigned long long)ring[i].ip);
	pin_u("both records are kept, EventId 2's first");
	result(ok && cb.missed == 0,
	       "instructions and branches retired overflow at one jnz 10 times: %u records "
	       "(expected 20, EventId 2 then 3, each naming the jnz), MissedEvents %llu",
	       nrecords(), (unsigned long long)cb.missed);
}

/*
 * A record of the last instruction before LLWPCB, which ends the TB
 * early in the emulator: it names that instruction, not the LLWPCB.
 */
static void test_before_llwpcb(void)
{
	setup(F_IRE, NREC, 16);
	cb.ev[1].counter = 7;		/* the 8th NOP */
	nops_llwpcb(&cb, 0);
	pin_u("no skid");
	result(nrecords() == 1 && ring[0].id == 2 && ring[0].ip == (uintptr_t)nops_last,
	       "a record at the instruction before an LLWPCB names it: %u records, ip %#llx "
	       "(expected %p)", nrecords(), (unsigned long long)ring[0].ip, nops_last);
}

/*
 * Random: the low bits of each reload are pseudo-random, never below the
 * minimum interval of 16, and not the same sequence for every LWPCB.
 * The loop's records name dec or jnz: the pattern of the two follows the
 * reloads.
 */
static void test_random(void)
{
	static char pattern[2][NREC + 1];
	const unsigned int n = 2000;	/* 4001 instructions */
	unsigned int i, k, nrec[2];

	for (k = 0; k < 2; k++) {
		setup(F_IRE, NREC, 16);	/* reloads from 16 with bits 4:0 random */
		cb.size |= 5u << 28;
		ire_loop(&cb, n, 0);
		nrec[k] = nrecords();
		for (i = 0; i < nrec[k]; i++)
			pattern[k][i] = ring[i].ip == (uintptr_t)ire_jnz ? 'j' : 'd';
		pattern[k][i] = 0;
	}
	pin_u("Random replaces the low bits of a reload, which stays at least 16");
	result(nrec[0] <= (1 + 2 * n) / 17 && nrec[1] <= (1 + 2 * n) / 17 &&
	       nrec[0] >= (1 + 2 * n) / 32 && nrec[1] >= (1 + 2 * n) / 32,
	       "Random 5 on EventInterval 16: %u and %u records for %u instructions "
	       "(periods 17 to 32: %u to %u)", nrec[0], nrec[1], 1 + 2 * n,
	       (1 + 2 * n) / 32, (1 + 2 * n) / 17);
	pin_u("the Random generator runs on across LWPCBs");
	result(nrec[0] != nrec[1] || strcmp(pattern[0], pattern[1]),
	       "Random: two LWPCBs loaded one after the other reload differently");
}

/* EventId 2 records of ire_loop() with @period from its first instruction */
static int ire_records_ok(const struct lwp_rec *r, unsigned int first, unsigned int nslots,
			  unsigned int n, unsigned int period)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct lwp_rec *rec = &r[(first + i) % nslots];
		uint64_t want = (period * (i + 1)) % 2 ? (uintptr_t)ire_jnz : (uintptr_t)ire_dec;

		if (rec->id != 2 || rec->ip != want) {
			printf("# record %u (slot %u): id %u ip %#llx (expected %#llx)\n", i,
			       (first + i) % nslots, rec->id, (unsigned long long)rec->ip,
			       (unsigned long long)want);
			return 0;
		}
	}
	return 1;
}

/*
 * The ring wraps past its end: LWPINS records read by a consumer that
 * moves the tail, and instructions retired records with no consumer.
 */
static void test_wrap(void)
{
	unsigned int i, k, got = 0, ok = 1;

	setup(F_VAL, 32, 0);
	cb.head = cb.tail = 24 * 32;
	__llwpcb(&cb);
	for (k = 0; k < 10; k++) {
		for (i = 0; i < 10; i++)
			__lwpins64(0, 10 * k + i, 0);
		__slwpcb();	/* writes the head to the LWPCB */
		asm volatile("" ::: "memory");
		while (cb.tail != cb.head) {
			ok &= ring[cb.tail / 32].id == 255 && ring[cb.tail / 32].data1 == got;
			got++;
			cb.tail = (cb.tail + 32) % (32 * 32);
		}
		asm volatile("" ::: "memory");
	}
	__llwpcb(NULL);
	result(ok && got == 100 && cb.head == (24 + 100) % 32 * 32 && cb.missed == 0,
	       "100 LWPINS records through a 32-slot ring from slot 24, the tail moved "
	       "after every 10: %u read in order%s, head %u (expected %u), MissedEvents %llu",
	       got, ok ? "" : " (out of order)", cb.head, (24 + 100) % 32 * 32,
	       (unsigned long long)cb.missed);

	setup(F_IRE, 32, 16);
	cb.head = cb.tail = 20 * 32;
	ire_loop(&cb, 170, 0);	/* 341 instructions: 20 records */
	result(cb.head == 8 * 32 && cb.missed == 0 && ire_records_ok(ring, 20, 32, 20, 17),
	       "20 instructions retired records from slot 20 of 32 wrap to slots 0-7 in order: "
	       "head %u (expected 256), MissedEvents %llu", cb.head,
	       (unsigned long long)cb.missed);

	/* a tail beyond the ring: slot 5 */
	setup(F_VAL, 32, 0);
	cb.tail = 32 * 32 + 5 * 32;
	__llwpcb(&cb);
	for (i = 0, ok = 1; i < 8; i++)
		ok &= __lwpins64(0, i, 0) == (i >= 4);
	__llwpcb(NULL);
	pin_u("a tail beyond the ring counts modulo the ring size");
	result(ok && cb.head == 4 * 32 && cb.missed == 4,
	       "a tail of 37 slots in a 32-slot ring is slot 5: 4 records fit, CF=1 after, "
	       "head %u (expected 128), MissedEvents %llu (expected 4)", cb.head,
	       (unsigned long long)cb.missed);
}

/*
 * Record stores into ring pages the kernel has not populated: the first
 * store into each page is a #PF, the kernel maps the page, and the record
 * stays pending until the next user-mode instruction stores it (lwp-spec
 * section 5.6).  No record is lost, none is stored twice.
 */
static void test_fault_retry(void)
{
	const unsigned int n = 4000, period = 17, nslots = 512;
	const unsigned int expected = (1 + 2 * n) / period;	/* 470 records, 4 pages */
	struct rusage before, after;
	struct lwp_rec *r;
	long faults;

	r = mmap(NULL, nslots * sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED) {
		result(0, "mmap of a ring: %s", strerror(errno));
		return;
	}
	setup(F_IRE, nslots, period - 1);
	cb.base = (uintptr_t)r;
	getrusage(RUSAGE_SELF, &before);
	ire_loop(&cb, n, 0);
	getrusage(RUSAGE_SELF, &after);
	faults = after.ru_minflt - before.ru_minflt;
	pin_u("a record whose store faulted is stored by the next user-mode instruction");
	result(faults >= 4 && nrecords() == expected && cb.missed == 0 &&
	       ire_records_ok(r, 0, nslots, expected, period),
	       "records into 4 ring pages not yet populated: %ld page faults, %u records in "
	       "order (expected %u), MissedEvents %llu", faults, nrecords(), expected,
	       (unsigned long long)cb.missed);
	munmap(r, nslots * sizeof(*r));
}

/*
 * LWP_CFG written while LWP runs masks the running instance's events
 * (lwp-spec section 3.2).  The write is a pwrite() on /dev/cpu/0/msr whose
 * SYSCALL overflows EventCounter2: that record is pending at the syscall
 * and must reach the ring when LLWPCB stops LWP.
 */
static void test_cfg_masks(int fd)
{
	uint64_t masked = lwp_cfg & ~(uint64_t)F_IRE;
	volatile unsigned int spin;
	uint32_t flags;
	long ret;

	setup(F_IRE | F_VAL, NREC, 16);
	cb.ev[0].interval = cb.ev[0].counter = 0;	/* every LWPVAL */
	cb.ev[1].counter = 5;		/* the 6th instruction: SYSCALL */
	ret = cfg_syscall(&cb, fd, &masked);
	for (spin = 0; spin < 1000; spin++)
		;
	__lwpval64(0x1234, 7, 0);
	__llwpcb(NULL);
	flags = cb.flags;
	if (pwrite(fd, &lwp_cfg, 8, MSR_LWP_CFG) != 8)
		printf("# could not restore LWP_CFG %#llx: %s\n", (unsigned long long)lwp_cfg,
		       strerror(errno));
	result(ret == 8, "WRMSR LWP_CFG through /dev/cpu/0/msr with LWP running (%ld)", ret);
	result(flags == (effective(F_IRE | F_VAL) & ~F_IRE),
	       "LWP_CFG without EventId 2 masks the running instance's Flags: %#x (expected %#x)",
	       flags, effective(F_IRE | F_VAL) & ~F_IRE);
	result(nrecords() == 2 && ring[0].id == 2 && ring[0].ip == (uintptr_t)cfg_syscall_insn &&
	       ring[1].id == 1 && ring[1].data2 == 0x1234,
	       "then no EventId 2 records but the SYSCALL's, and LWPVAL records: %u records "
	       "(expected 2: EventId 2 at the SYSCALL, EventId 1)", nrecords());

	setup(F_IRE, NREC, 16);
	cb.ev[1].counter = 5;
	ret = cfg_syscall(&cb, fd, &masked);
	__llwpcb(NULL);
	if (pwrite(fd, &lwp_cfg, 8, MSR_LWP_CFG) != 8)
		printf("# could not restore LWP_CFG: %s\n", strerror(errno));
	pin_u("LLWPCB stores a pending record into the old ring");
	result(ret == 8 && nrecords() == 1 && ring[0].id == 2 &&
	       ring[0].ip == (uintptr_t)cfg_syscall_insn,
	       "a record pending while LWP_CFG masks its event reaches the ring at LLWPCB: "
	       "%u records (expected 1, at the SYSCALL)", nrecords());
}

/*
 * WRMSR LWP_CBADDR = 0 stops a running LWP (lwp-spec section 3.3), here
 * from the thread itself on CPU 0.  If the kernel switched tasks between
 * the SYSCALL and the WRMSR, it restores LWP from the task's XSAVE image
 * on the way back, so a try can find LWP on: up to 3 tries.
 */
static void test_cbaddr_off(int fd)
{
	const uint64_t zero = 0;
	int tries, err = 0;
	void *p = &cb;
	uint8_t cf;

	for (tries = 0; tries < 3 && p; tries++) {
		setup(F_VAL, 32, 0);
		__llwpcb(&cb);
		__lwpins64(0, 1, 0);
		__lwpins64(0, 2, 0);
		if (pwrite(fd, &zero, 8, MSR_LWP_CBADDR) != 8)
			err = errno;
		p = __slwpcb();
	}
	result(!err && !p, "WRMSR LWP_CBADDR 0 stops the running LWP: SLWPCB returns %p "
	       "(%d tries, %s)", p, tries, strerror(err));
	cf = __lwpins64(0, 3, 0);
	result(cf == 0 && ring[2].id == 0, "LWPINS after it stores nothing (CF %u)", cf);
	pin_u("WRMSR LWP_CBADDR 0 flushes nothing to the LWPCB");
	result(cb.head == 0 && ring[0].data1 == 1 && ring[1].data1 == 2,
	       "the records stored before it stay, the LWPCB's head is not written (%u)",
	       cb.head);
	__llwpcb(NULL);
}

static void test_msr_paths(void)
{
	int fd = open("/dev/cpu/0/msr", O_RDWR);

	if (fd < 0) {
		skip("LWP_CFG and LWP_CBADDR written while LWP runs", "no /dev/cpu/0/msr");
		return;
	}
	test_cfg_masks(fd);
	test_cbaddr_off(fd);
	close(fd);
}

static void test_unmapped_ring(void)
{
	int status;
	pid_t pid;

	/*
	 * The ring is not mapped: the record store is a user #PF.  LWP keeps
	 * running in the signal handler, where the pending record faults
	 * again, so the process dies of the SIGSEGV.
	 */
	pid = fork();
	if (!pid) {
		signal(SIGSEGV, SIG_DFL);
		setup(F_IRE, NREC, 15);
		cb.base = 0x1000;
		ire_loop(&cb, 100, 0);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	result(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
	       "a record store into an unmapped ring is a user #PF (status %#x)", status);
}

static void test_bre(void)
{
	static const struct {
		uint32_t filters;
		const char *kind;
		char *ip, *target;
	} k[] = {
		{ NO_ABS | NO_REL, "conditional", br_jnz, br_call },
		{ NO_ABS | NO_COND, "relative", br_call, br_fn },
		{ NO_COND | NO_REL, "absolute", br_fn, br_ret_to },
	};
	unsigned int i, j, ok;

	setup(F_BRE, NREC, 16);
	br_loop(&cb, 171, 0);
	pin_u("CALL, RET and JNZ count as branches retired");
	result(nrecords() == 3 * 171 / 17,
	       "branches retired, interval 16, 513 branches: %u records (expected 30)", nrecords());

	for (i = 0; i < 3; i++) {
		setup(F_BRE, NREC, 16);
		cb.filters = k[i].filters;
		br_loop(&cb, 171, 0);
		ok = nrecords() == 10;
		for (j = 0; ok && j < 10; j++)
			ok = ring[j].id == 3 && ring[j].ip == (uintptr_t)k[i].ip &&
			     ring[j].data2 == (uintptr_t)k[i].target && ring[j].flags == 1;
		pin_u("Filters bits 27-29 drop absolute, conditional, relative branches; Flags bit 0 = taken; Data2 = target");
		result(ok, "filters %#x count only %s branches: %u records with address, target "
		       "and taken flag", k[i].filters, k[i].kind, nrecords());
	}

	/* a conditional branch not taken: the target is the next instruction */
	setup(F_BRE, NREC, 16);
	cb.filters = NO_ABS | NO_REL;
	br_loop(&cb, 17, 0);
	pin_u("Data2 = the fall-through of a branch not taken, Flags bit 0 clear");
	result(nrecords() == 1 && ring[0].ip == (uintptr_t)br_jnz &&
	       ring[0].data2 == (uintptr_t)br_end && ring[0].flags == 0,
	       "a branch not taken: the record has the fall-through and taken clear");

	setup(F_BRE, NREC, 16);
	cb.filters = NO_ABS | NO_REL | NO_COND;
	br_loop(&cb, 170, 0);
	pin_u("Filters bits 27-29 drop absolute, conditional, relative branches");
	result(nrecords() == 0, "all branch kinds filtered: no records (%u)", nrecords());
}

static long irq_count(void)
{
	char line[512];
	long total = -1;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line;

		while (*p == ' ')
			p++;
		if (strncmp(p, "LWP:", 4))
			continue;
		p += 4;
		total = 0;
		for (;;) {
			char *end;
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			total += v;
			p = end;
		}
	}
	fclose(f);
	return total;
}

static void test_threshold(void)
{
	long before = irq_count(), after;
	int i;

	if (before < 0) {
		skip("the threshold interrupt fires once when the fill reaches Threshold",
		     "no LWP line in /proc/interrupts");
		return;
	}
	if (!(lwp_cfg & (1ull << 31)) || !((lwp_cfg >> 40) & 0xff)) {
		skip("the threshold interrupt fires once when the fill reaches Threshold",
		     "the kernel did not enable it in LWP_CFG");
		return;
	}
	setup(F_VAL | F_INT, 32, 0);
	cb.threshold = 4 * 32;
	__llwpcb(&cb);
	for (i = 0; i < 10; i++)
		__lwpins64(i, i, 0);
	__llwpcb(NULL);
	after = irq_count();
	result(after - before == 1,
	       "the threshold interrupt fires once when the fill reaches Threshold (%ld)",
	       after - before);

	/* what the flush before the interrupt writes, 10 instructions in */
	setup(F_IRE | F_INT, NREC, 1000);
	cb.threshold = 32;
	i = lwpins_flushed(&cb) & 0x3ffffff;
	pin_u("the flush before the threshold interrupt writes exact counters");
	result(i == 990, "the flush before the threshold interrupt of an LWPINS record writes "
	       "EventCounter2 %d after 10 instructions from 1000 (expected 990)", i);

	setup(F_VAL, 32, 0);	/* Flags[31] clear: no interrupt */
	cb.threshold = 4 * 32;
	before = irq_count();
	__llwpcb(&cb);
	for (i = 0; i < 10; i++)
		__lwpins64(i, i, 0);
	__llwpcb(NULL);
	after = irq_count();
	result(after == before, "no threshold interrupt without Flags[31] (%ld)", after - before);
}

static uint8_t xbuf[2][1024] __attribute__((aligned(64)));

static void xsave62(uint8_t *buf)
{
	asm volatile("xsave (%0)" :: "r"(buf), "a"(0), "d"(1u << 30) : "memory");
}

static void xrstor62(uint8_t *buf)
{
	asm volatile("xrstor (%0)" :: "r"(buf), "a"(0), "d"(1u << 30) : "memory");
}

/* EventCounter2 in an XSAVE image (component 62 at 832, counters at 0x40) */
static uint32_t image_counter2(const uint8_t *img)
{
	uint32_t c;

	memcpy(&c, img + 832 + 0x44, 4);
	return c & 0x3ffffff;
}

/*
 * XSAVE and XRSTOR in user mode, in the middle of what the emulator
 * translates as one block: the saved counter has the instructions before
 * the XSAVE taken off; an instance that XRSTOR loads counts from the
 * instruction after it.
 */
static void test_xsave_mid_block(void)
{
	static uint8_t img[1024] __attribute__((aligned(64)));
	uint32_t saved;

	memset(img, 0, sizeof(img));
	setup(F_IRE, NREC, 1000);
	xsave_mid(&cb, img);
	saved = image_counter2(img);
	pin_u("XSAVE saves exact counters");
	result(saved == 990,
	       "XSAVE after 10 instructions of an LWP instance loaded with EventCounter2 "
	       "1000 saves %u (expected 990)", saved);

	setup(F_IRE, NREC, 500);
	xrstor_mid(&cb, img);
	pin_u("an instance that XRSTOR loads counts from the next instruction; XRSTOR counts for neither");
	result((cb.ev[1].counter & 0x3ffffff) == saved - 7,
	       "XRSTOR of that image, then 7 instructions: the LWPCB gets %u (expected %u)",
	       cb.ev[1].counter & 0x3ffffff, saved - 7);
}

static void test_xsave(void)
{
	uint64_t bv, cbaddr, base;
	uint32_t flags, head, size;

	memset(xbuf, 0, sizeof(xbuf));
	setup(F_VAL, 64, 0);
	__llwpcb(&cb);
	__lwpins64(1, 1, 0);
	__lwpins64(2, 2, 0);
	xsave62(xbuf[0]);
	memcpy(&bv, xbuf[0] + 512, 8);
	memcpy(&cbaddr, xbuf[0] + 832, 8);
	memcpy(&flags, xbuf[0] + 832 + 8, 4);
	memcpy(&head, xbuf[0] + 832 + 12, 4);
	memcpy(&base, xbuf[0] + 832 + 16, 8);
	memcpy(&size, xbuf[0] + 832 + 24, 4);
	result(bv >> 62 & 1, "XSAVE of an active LWP sets XSTATE_BV[62]");
	result(cbaddr == (uintptr_t)&cb && flags == effective(F_VAL) && head == 64 &&
	       base == (uintptr_t)ring && size == 64 * 32,
	       "the XSAVE image holds LWP_CBADDR, Flags, head, base and size "
	       "(%#llx %#x %u %#llx %u)", (unsigned long long)cbaddr, flags, head,
	       (unsigned long long)base, size);
	pin_u("XSAVE leaves LWP running");
	result(__slwpcb() == &cb, "XSAVE leaves LWP running");

	__llwpcb(NULL);
	xsave62(xbuf[1]);
	memcpy(&bv, xbuf[1] + 512, 8);
	result(!(bv >> 62 & 1), "XSAVE with LWP off clears XSTATE_BV[62]");

	xrstor62(xbuf[0]);
	result(__slwpcb() == &cb, "XRSTOR of the image resumes LWP");
	__lwpins64(3, 3, 0);
	__slwpcb();
	result(cb.head == 96 && ring[2].data1 == 3,
	       "the resumed LWP stores at the saved head (head %u)", cb.head);
	xrstor62(xbuf[1]);
	result(__slwpcb() == NULL, "XRSTOR with XSTATE_BV[62] clear stops LWP");
}

static void *other_thread(void *arg)
{
	uint32_t r[4];

	(void)arg;
	cpuid(0x8000001c, 0, r);
	return (void *)(uintptr_t)r[0];
}

static volatile int stop_spin;

static void *spinner(void *arg)
{
	(void)arg;
	while (!stop_spin)
		sched_yield();
	return NULL;
}

static void test_threads(void)
{
	pthread_t t;
	void *eax;
	cpu_set_t set;
	unsigned int n = 1000000, expected;

	pthread_create(&t, NULL, other_thread, NULL);
	pthread_join(t, &eax);
	pin_u("CPUID 8000_001C EAX is 0 in a thread whose XCR0[62] is clear");
	result(eax == NULL,
	       "a thread that never ran an LWP instruction sees CPUID 8000_001C EAX = 0 (%#lx)",
	       (unsigned long)(uintptr_t)eax);

	/* counts stay exact while another thread runs on the same CPU */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	stop_spin = 0;
	pthread_create(&t, NULL, spinner, NULL);
	setup(F_IRE, NREC, 9999);
	expected = (1 + 2 * n) / 10000;
	ire_loop(&cb, n, 0);
	stop_spin = 1;
	pthread_join(t, NULL);
	pin_u("counts are exact across context switches (no skid, no loss)");
	result(nrecords() == expected,
	       "instructions retired stay exact beside a yielding thread on the same CPU: "
	       "%u records (expected %u)", nrecords(), expected);
}

static void test_not_granted(void)
{
	pid_t pid = fork();
	int status;

	if (!pid) {
		uint32_t r[4];

		signal(SIGILL, SIG_DFL);
		cpuid(0x8000001c, 0, r);
		if (r[0])
			_exit(2);
		__slwpcb();
		_exit(0);
	}
	waitpid(pid, &status, 0);
	pin_u("the LWP instructions raise #UD while XCR0[62] is clear");
	result(WIFSIGNALED(status) && WTERMSIG(status) == SIGILL,
	       "a process without the grant: CPUID EAX = 0 and SLWPCB raises SIGILL (status %#x)",
	       status);
}

static int read_cfg(void)
{
	int fd = open("/dev/cpu/0/msr", O_RDONLY);
	int ok;

	if (fd < 0)
		return -1;
	ok = pread(fd, &lwp_cfg, 8, MSR_LWP_CFG) == 8;
	close(fd);
	return ok ? 0 : -1;
}

static int xcr0_lwp(void)
{
	uint32_t lo, hi;

	asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return hi >> 30 & 1;
}

/* Without an LWP-aware kernel, configure CPU 0 as one would */
static void program_cfg(void)
{
	uint64_t cfg = 0x8000000eull;
	int fd = open("/dev/cpu/0/msr", O_RDWR);

	if (fd < 0 || pread(fd, &lwp_cfg, 8, MSR_LWP_CFG) != 8)
		return;
	if (!lwp_cfg && pwrite(fd, &cfg, 8, MSR_LWP_CFG) == 8)
		printf("# LWP_CFG was 0: set it to %#llx\n", (unsigned long long)cfg);
	close(fd);
}

int main(void)
{
	uint32_t r[4];
	cpu_set_t set;
	long err;

	printf("TAP version 13\n");
	cpuid(0x80000001, 0, r);
	if (!(r[2] & (1u << 15))) {
		printf("1..0 # SKIP this CPU has no LWP\n");
		return 0;
	}
	cpuid(0x8000001c, 0, r);
	cpuid_edx = r[3];

	/* stay on CPU 0, whose LWP_CFG gives the records' CoreId */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);

	test_not_granted();
	err = syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_LWP);
	if (err && xcr0_lwp()) {
		/* a test kernel that sets XCR0[62] for every thread */
		printf("# no grant, but XCR0[62] is set: testing the CPU alone\n");
		err = 0;
		program_cfg();
	}
	if (err) {
		printf("# arch_prctl(ARCH_REQ_XCOMP_PERM, 62): %s\n", strerror(errno));
		skip("the LWP instructions, events and XSAVE component",
		     "the kernel does not grant XCR0[62] (no LWP support)");
		printf("1..%d\n", ntest);
		return nfail ? 1 : 0;
	}
	result(1, "arch_prctl(ARCH_REQ_XCOMP_PERM, 62) grants LWP");
	if (read_cfg()) {
		printf("# cannot read LWP_CFG through /dev/cpu/0/msr\n");
		nfail++;
	}

	result(__slwpcb() == NULL, "the first LWP instruction runs (the kernel enables XCR0[62])");
	cpuid(0x8000001c, 0, r);
	result(r[0] == (((uint32_t)lwp_cfg & r[3]) | 1),
	       "CPUID 8000_001C EAX = LWP_CFG & EDX | 1 with XCR0[62] set (%#x, LWP_CFG %#llx)",
	       r[0], (unsigned long long)lwp_cfg);
	cpuid(0xd, 0, r);
	result(r[3] & (1u << 30), "CPUID 0xD.0 EDX[30]: XCR0[62] supported");
	result(r[1] == 960 && r[2] == 960,
	       "CPUID 0xD.0 EBX/ECX: 960-byte XSAVE area with LWP enabled (%u, %u)", r[1], r[2]);
	cpuid(0xd, 62, r);
	result(r[0] == 128 && r[1] == 832 && r[2] == 0 && r[3] == 0,
	       "CPUID 0xD.62: 128 bytes at 832 (%u %u %u %u)", r[0], r[1], r[2], r[3]);

	test_decode();
	test_llwpcb();
	test_lwpins();
	test_lwpval();
	test_ire();
	test_bre();
	test_ire_bre_together();
	test_before_llwpcb();
	test_random();
	test_threshold();
	test_xsave();
	test_xsave_mid_block();
	test_threads();
	test_wrap();
	test_fault_retry();
	test_msr_paths();
	test_unmapped_ring();
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}
