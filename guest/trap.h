/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trap(): run a function that may fault and say which signal it raised,
 * for the guest's C tests of instructions that raise #UD, #GP or #PF.
 */
#ifndef HARNESS_TRAP_H
#define HARNESS_TRAP_H

#include <setjmp.h>
#include <signal.h>

static sigjmp_buf trap_jb;
static volatile int trap_sig;

static void trap_handler(int sig)
{
	trap_sig = sig;
	siglongjmp(trap_jb, 1);
}

/* Run @fn; return the signal it raised (SIGILL, SIGSEGV) or 0 */
static inline int trap(void (*fn)(void))
{
	struct sigaction sa = { .sa_handler = trap_handler }, old_ill, old_segv;

	sigaction(SIGILL, &sa, &old_ill);
	sigaction(SIGSEGV, &sa, &old_segv);
	trap_sig = 0;
	if (!sigsetjmp(trap_jb, 1))
		fn();
	sigaction(SIGILL, &old_ill, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	return trap_sig;
}

#endif
