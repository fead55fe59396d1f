// SPDX-License-Identifier: GPL-2.0
/*
 * Conformance tests of the emulated AMD LWP hardware (../shared/lwp-spec.md),
 * independent of the kernel's LWP support: CPUID leaves and the LWP MSRs
 * (through /dev/cpu/N/msr, where a #GP reads as EIO).  Prints TAP.
 */
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "trap.h"

#define MSR_LWP_CFG	0xc0000105
#define MSR_LWP_CBADDR	0xc0000106

static void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

static int msr_fd(int cpu)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	return open(path, O_RDWR);
}

/* 0 or -errno (EIO: the access raised #GP) */
static int rdmsr(int fd, uint32_t msr, uint64_t *val)
{
	return pread(fd, val, 8, msr) == 8 ? 0 : -errno;
}

static int wrmsr(int fd, uint32_t msr, uint64_t val)
{
	return pwrite(fd, &val, 8, msr) == 8 ? 0 : -errno;
}

static int has_lwp(void)
{
	uint32_t r[4];

	cpuid(0x80000000, 0, r);
	if (r[0] < 0x80000001)
		return 0;
	cpuid(0x80000001, 0, r);
	return !!(r[2] & (1u << 15));
}

/* The LWP instructions as bytes: the compiler may not know them */
#define INSN_FN(name, bytes) \
	static void name(void) { asm volatile(bytes ::: "rax", "memory"); }
INSN_FN(llwpcb_eax, "xor %%eax, %%eax; .byte 0x8f, 0xe9, 0x78, 0x12, 0xc0")
INSN_FN(slwpcb_eax, ".byte 0x8f, 0xe9, 0x78, 0x12, 0xc8")
INSN_FN(lwpins_eax, ".byte 0x8f, 0xea, 0x78, 0x12, 0xc0, 0, 0, 0, 0")
INSN_FN(lwpval_eax, ".byte 0x8f, 0xea, 0x78, 0x12, 0xc8, 0, 0, 0, 0")

static void test_no_lwp_insns(void)
{
	static const struct {
		void (*fn)(void);
		const char *name;
	} insn[] = {
		{ llwpcb_eax, "LLWPCB" }, { slwpcb_eax, "SLWPCB" },
		{ lwpins_eax, "LWPINS" }, { lwpval_eax, "LWPVAL" },
	};
	unsigned int i;
	int sig;

	for (i = 0; i < sizeof(insn) / sizeof(insn[0]); i++) {
		sig = trap(insn[i].fn);
		result(sig == SIGILL, "no LWP: %s raises #UD (signal %d)", insn[i].name, sig);
	}
}

static void test_no_lwp(int fd)
{
	uint64_t v;
	uint32_t r[4];
	int err;

	cpuid(0x80000000, 0, r);
	if (r[0] >= 0x8000001c) {
		cpuid(0x8000001c, 0, r);
		result(!r[0] && !r[1] && !r[2] && !r[3],
		       "no LWP: CPUID 8000_001C is all zero (%x %x %x %x)", r[0], r[1], r[2], r[3]);
	} else {
		result(1, "no LWP: CPUID 8000_001C is beyond the extended level");
	}
	if (fd < 0) {
		skip("no LWP: LWP_CFG and LWP_CBADDR raise #GP", "no /dev/cpu/0/msr");
		return;
	}
	err = rdmsr(fd, MSR_LWP_CFG, &v);
	result(err == -EIO, "no LWP: RDMSR LWP_CFG raises #GP (%s)", strerror(-err));
	err = rdmsr(fd, MSR_LWP_CBADDR, &v);
	result(err == -EIO, "no LWP: RDMSR LWP_CBADDR raises #GP (%s)", strerror(-err));
	err = wrmsr(fd, MSR_LWP_CFG, 0);
	result(err == -EIO, "no LWP: WRMSR LWP_CFG raises #GP (%s)", strerror(-err));
}

static void test_cpuid(void)
{
	uint32_t r[4], xcr0_lo = 0, xcr0_hi = 0;

	cpuid(0x80000000, 0, r);
	result(r[0] >= 0x8000001c, "CPUID 8000_0000: extended level %#x reaches 8000_001C", r[0]);
	cpuid(0x8000001c, 0, r);
	pin_u("the FX-8150's CPUID 8000_001C (Bulldozer/Piledriver profile)");
	result(r[1] == 0x80032013, "CPUID 8000_001C EBX = 0x80032013 (got %#x)", r[1]);
	pin_u("the FX-8150's CPUID 8000_001C (Bulldozer/Piledriver profile)");
	result(r[2] == 0x00010200, "CPUID 8000_001C ECX = 0x00010200 (got %#x)", r[2]);
	pin_u("the FX-8150's CPUID 8000_001C (Bulldozer/Piledriver profile)");
	result(r[3] == 0x8000000f, "CPUID 8000_001C EDX = 0x8000000f (got %#x)", r[3]);
	asm volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
	if (!(xcr0_hi & (1u << 30))) {
		pin_u("CPUID 8000_001C EAX is 0 while XCR0[62] is clear");
		result(r[0] == 0, "CPUID 8000_001C EAX = 0 while XCR0.LWP is clear (got %#x)", r[0]);
	} else {
		skip("CPUID 8000_001C EAX = 0 while XCR0.LWP is clear", "the kernel set XCR0.LWP");
	}
}

static void test_msrs(int fd)
{
	uint64_t saved, v;
	int err;

	if (fd < 0) {
		skip("LWP_CFG and LWP_CBADDR", "no /dev/cpu/0/msr (CONFIG_X86_MSR)");
		return;
	}
	err = rdmsr(fd, MSR_LWP_CFG, &saved);
	result(!err, "RDMSR LWP_CFG works (%#llx)", (unsigned long long)saved);
	if (err)
		return;

	/* every feature EDX offers, CoreId 0x5a, vector 0xef */
	err = wrmsr(fd, MSR_LWP_CFG, 0xef5a8000000eULL);
	result(!err, "WRMSR LWP_CFG with the offered features, CoreId and vector works");
	err = rdmsr(fd, MSR_LWP_CFG, &v);
	result(!err && v == 0xef5a8000000eULL,
	       "LWP_CFG reads back 0xef5a8000000e (got %#llx)", (unsigned long long)v);

	/* bit 0 and bits 63:48 are ignored */
	err = wrmsr(fd, MSR_LWP_CFG, 0xffff000000000001ULL | 0x12340000000aULL);
	err = err ?: rdmsr(fd, MSR_LWP_CFG, &v);
	result(!err && v == 0x12340000000aULL,
	       "LWP_CFG ignores bit 0 and bits 63:48 (got %#llx)", (unsigned long long)v);

	/* enabling what EDX lacks faults: DME (bit 4), Cont (29), PTSC (30) */
	err = wrmsr(fd, MSR_LWP_CFG, 1u << 4);
	pin_u("LWP_CFG takes only the events CPUID offers (no EventId 4)");
	result(err == -EIO, "WRMSR LWP_CFG enabling EventId 4 raises #GP (%s)", strerror(-err));
	err = wrmsr(fd, MSR_LWP_CFG, 1u << 29);
	pin_u("no continuous mode (Bulldozer profile)");
	result(err == -EIO, "WRMSR LWP_CFG enabling continuous mode raises #GP (%s)", strerror(-err));
	err = wrmsr(fd, MSR_LWP_CFG, 1u << 30);
	pin_u("no PTSC (Bulldozer profile)");
	result(err == -EIO, "WRMSR LWP_CFG enabling PTSC raises #GP (%s)", strerror(-err));
	err = rdmsr(fd, MSR_LWP_CFG, &v);
	result(!err && v == 0x12340000000aULL,
	       "a faulting WRMSR leaves LWP_CFG unchanged (got %#llx)", (unsigned long long)v);

	result(!wrmsr(fd, MSR_LWP_CFG, saved), "LWP_CFG restored to %#llx",
	       (unsigned long long)saved);

	err = rdmsr(fd, MSR_LWP_CBADDR, &v);
	result(!err && v == 0, "LWP_CBADDR reads 0 while LWP is off (got %#llx, %s)",
	       (unsigned long long)v, strerror(-err));
	err = wrmsr(fd, MSR_LWP_CBADDR, 0);
	result(!err, "WRMSR LWP_CBADDR = 0 works (%s)", strerror(-err));
	err = wrmsr(fd, MSR_LWP_CBADDR, 0x10000);
	result(err == -EIO, "WRMSR LWP_CBADDR = non-zero raises #GP (%s)", strerror(-err));
}

int main(void)
{
	int fd = msr_fd(0);

	printf("TAP version 13\n");
	if (!has_lwp()) {
		printf("# this CPU has no LWP (CPUID 8000_0001 ECX[15] = 0)\n");
		test_no_lwp(fd);
		test_no_lwp_insns();
	} else {
		test_cpuid();
		test_msrs(fd);
	}
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}
