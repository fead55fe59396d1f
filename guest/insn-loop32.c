// SPDX-License-Identifier: GPL-2.0
/*
 * insn-loop.c as a 32-bit (i386) program, static so that the guest needs no
 * 32-bit libraries: the compat tests of the lwp PMU (suite 39).
 */
// harness-cflags: -m32 -static -pthread
#include "insn-loop.c"
