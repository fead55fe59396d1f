/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP output of the guest's C test programs (lwp-emu, lwp-conformance,
 * lwp-compat32): one line a check, "1..N" at the end (print it with
 * printf("1..%d\n", ntest)), and nfail for the exit status.
 */
#ifndef HARNESS_TAP_H
#define HARNESS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int ntest, nfail;
static const char *u_pin;

/*
 * The next result pins one of the emulator's choices where the public
 * sources leave the hardware's behaviour unknown ([U] in lwp-spec.md): it
 * is marked "# TODO [U] <choice>", so that on real Family 15h a failure
 * there says that the silicon chose differently, not that it is wrong.
 * The emulator must pass it all the same: the harness counts it.
 */
static inline void pin_u(const char *choice)
{
	u_pin = choice;
}

static inline void result(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d ", ok ? "" : "not ", ++ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (u_pin)
		printf(" # TODO [U] %s", u_pin);
	u_pin = NULL;
	printf("\n");
	fflush(stdout);
	if (!ok)
		nfail++;
}

static inline void skip(const char *what, const char *why)
{
	printf("ok %d %s # SKIP %s\n", ++ntest, what, why);
}

#endif
