/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LWP control block and event record, as the guest programs that drive
 * LWP from user space see them (lwp-conformance, lwp-compat32, lwp-selfmon,
 * lwp-speed).  The same layout in 64-bit and 32-bit programs.
 */
#ifndef HARNESS_LWP_H
#define HARNESS_LWP_H

#include <stdint.h>

struct lwpcb {
	uint32_t flags;
	uint32_t size;		/* BufferSize, Random in 31:28 */
	uint64_t base;		/* BufferBase */
	uint32_t head;		/* BufferHeadOffset */
	uint32_t rsvd0;
	uint64_t missed;	/* MissedEvents */
	uint32_t threshold;
	uint32_t filters;
	uint64_t base_ip, limit_ip, rsvd1;
	uint32_t tail;		/* BufferTailOffset */
	uint32_t rsvd2;
	uint8_t rsvd3[56];
	struct {
		uint32_t interval;	/* EventInterval */
		uint32_t counter;	/* EventCounter */
	} ev[3];	/* EventIds 1-3 at LwpEventOffset 128: CPUID 8000_001C EBX of
			 * the FX-8150 and of the emulator */
};

struct lwp_rec {
	uint8_t id, core;	/* EventId, CoreId */
	uint16_t flags;
	uint32_t data1;
	uint64_t ip, data2, data3;
};

_Static_assert(sizeof(struct lwpcb) == 152, "the LWPCB is 19 quadwords");
_Static_assert(__builtin_offsetof(struct lwpcb, ev) == 128, "EventId 1 at offset 128");
_Static_assert(sizeof(struct lwp_rec) == 32, "records are 32 bytes");

#endif
