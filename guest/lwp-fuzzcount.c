// SPDX-License-Identifier: GPL-2.0
/*
 * A preload library, not a program (make fuzz): LD_PRELOAD'ed into trinity,
 * it counts the perf_event_open calls trinity makes through libc's
 * syscall(), how many of them asked for the lwp PMU's type and how many of
 * those opened an event.  The counts live in a shared file, $FUZZCOUNT
 * (created by the caller, at least 4096 bytes), so that every child trinity
 * forks adds to them.  Trinity makes its 32-bit calls with int $0x80, not
 * through syscall(): those are not counted.
 */
// harness-cflags: -shared -fPIC
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { CALLS, LWP_CALLS, LWP_OPENED, NCOUNTS };

static unsigned long *counts;
static long lwp_type = -1;
static long (*real_syscall)(long, ...);

__attribute__((constructor)) static void fuzzcount_init(void)
{
	const char *path = getenv("FUZZCOUNT");
	FILE *f;
	int fd;

	real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	f = fopen("/sys/bus/event_source/devices/lwp/type", "r");
	if (f) {
		if (fscanf(f, "%ld", &lwp_type) != 1)
			lwp_type = -1;
		fclose(f);
	}
	if (!path)
		return;
	fd = open(path, O_RDWR);
	if (fd < 0)
		return;
	counts = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (counts == MAP_FAILED)
		counts = NULL;
	close(fd);
}

static pid_t pipe_pid;
static int pipe_fd[2];

/*
 * The attr's type, or -1 where the pointer does not point at readable
 * memory: the kernel reads it into a pipe of this process's own (trinity's
 * children share nothing but what they inherit) and says EFAULT instead of
 * a fault.
 */
static long attr_type(unsigned long addr)
{
	pid_t me = getpid();
	__u32 type;

	if (pipe_pid != me) {
		if (pipe2(pipe_fd, O_CLOEXEC | O_NONBLOCK))
			return -1;
		pipe_pid = me;
	}
	if (write(pipe_fd[1], (void *)addr, sizeof(type)) != sizeof(type))
		return -1;
	if (read(pipe_fd[0], &type, sizeof(type)) != sizeof(type))
		return -1;
	return type;
}

long syscall(long nr, ...)
{
	unsigned long a[6];
	long type = -1, ret;
	va_list ap;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);

	if (nr == __NR_perf_event_open && counts) {
		/* before the call: a racing munmap cannot change what was asked */
		type = attr_type(a[0]);
		__atomic_fetch_add(&counts[CALLS], 1, __ATOMIC_RELAXED);
		if (type >= 0 && type == lwp_type)
			__atomic_fetch_add(&counts[LWP_CALLS], 1, __ATOMIC_RELAXED);
	}
	ret = real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (nr == __NR_perf_event_open && counts && ret >= 0 &&
	    type >= 0 && type == lwp_type)
		__atomic_fetch_add(&counts[LWP_OPENED], 1, __ATOMIC_RELAXED);
	return ret;
}
