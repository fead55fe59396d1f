// SPDX-License-Identifier: GPL-2.0
/*
 * Injected allocation failures while a program starts under lwp sampling
 * (suite 38-lwp-failinject; needs CONFIG_FAULT_INJECTION, FAILSLAB,
 * FAIL_PAGE_ALLOC, FAULT_INJECTION_DEBUG_FS and
 * FAULT_INJECTION_STACKTRACE_FILTER, as on the debug kernel).
 *
 *   lwp-failinject SCOPE WHO FUNCTION MAX
 *
 * starts a program under an lwp/instructions/ event up to MAX times, the
 * n-th time with the n-th allocation failed (/proc/PID/task/TID/fail-nth,
 * the way syzkaller injects failures; failslab and fail_page_alloc, with
 * sleeping allocations not exempt), counting only allocations made under
 * FUNCTION (the stack trace filter of both; "-" counts every allocation),
 * until a start sees no failure because there are fewer than n.
 *
 *   SCOPE task: a per-task event on the program (enable_on_exec);
 *         cpu:  CPU-wide events on every CPU, opened by this process.
 *   WHO   child:  the failure is set in the child just before it execs
 *                 the program (its set-up on the way to user mode);
 *         opener: in this process, just before perf_event_open();
 *         fork:   in the program, just before it forks a child that
 *                 inherits the event (task scope);
 *         self:   in a program that uses LWP itself, just before its
 *                 first LWP instruction (no event).
 *
 * Each start must end one of these ways: a clean errno (perf_event_open,
 * execve or fork: ENOMEM; the dynamic loader's mmap(): it exits 127); a
 * program killed by an exec that failed past its point of no return (as
 * without profiling); a program that ran and was profiled (its [lwp]
 * area mapped, its samples there); one that ran unprofiled (no [lwp] area,
 * no samples, and a PERF_RECORD_LOST_SAMPLES of its own); for WHO self,
 * SIGSEGV (as for a failed AMX state allocation) or LWP working.  Anything
 * else is printed and fails the run.  The kernel's own reports (KASAN,
 * lockdep, kmemleak, WARN) are the harness's.
 *
 * Prints one line: "SCOPE WHO FUNCTION: S starts, I failures injected:
 * E refused with ENOMEM, P profiled, U unprofiled and counted as lost,
 * K killed, B wrong"; exits 0 when B is 0 and I is not 0.
 *
 *   lwp-failinject target FD ITERS [fork|self]
 *
 * is the program: it reports on FD whether its failure was injected and
 * whether it has an [lwp] area, then runs the loop.
 *
 *   lwp-failinject filter FUNCTION|-
 *
 * sets failslab and fail_page_alloc up as a run does (probability 0, the
 * stack trace filter on FUNCTION, or none for "-"), for failures injected
 * by probability from the suite.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

#include "loop.h"

#define PERIOD		10007
#define ITERS		40000UL
#define RING_PAGES	64
#define MAX_CPUS	64
#define ARCH_REQ_XCOMP_PERM	0x1023
#define XFEATURE_LWP		62
#define FI		"/sys/kernel/debug/"

__attribute__((noinline)) static void target_loop(unsigned long n)
{
	LOOP(n);
}

static void die(const char *what)
{
	fprintf(stderr, "lwp-failinject: %s: %s\n", what, strerror(errno));
	exit(2);
}

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), len = strlen(val), ret;

	if (fd < 0)
		return -1;
	ret = write(fd, val, len) == len ? 0 : -1;
	close(fd);
	return ret;
}

/* current thread's fail-nth: set it, or read what is left of it */
static int set_fail_nth(unsigned int n)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", n);
	return write_file("/proc/thread-self/fail-nth", buf);
}

static long read_fail_nth(void)
{
	char buf[16] = "";
	int fd = open("/proc/thread-self/fail-nth", O_RDONLY);
	long n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1) > 0 ? strtol(buf, NULL, 10) : -1;
	close(fd);
	return n;
}

/* ---- the program ---- */

static int has_lwp_area(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[256];
	int found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		found |= strstr(line, "[lwp]") != NULL;
	fclose(f);
	return found;
}

static void slwpcb(void)
{
	asm volatile(".byte 0x8f, 0xe9, 0x78, 0x12, 0xc8" ::: "eax");	/* slwpcb eax */
}

/* System calls that allocate; what is left of fail-nth then */
static long churn_syscalls(void)
{
	size_t psz = sysconf(_SC_PAGESIZE);
	int i, fd, p[2];
	long left;
	char *m;

	for (i = 0; i < 6; i++) {
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			close(fd);
		m = mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED) {
			m[0] = m[psz] = 1;
			munmap(m, 2 * psz);
		}
		if (!pipe(p)) {
			close(p[0]);
			close(p[1]);
		}
	}
	left = read_fail_nth();
	set_fail_nth(0);
	return left;
}

/*
 * Report "INJECTED AREA TID" on @fd (INJECTED: the failure was injected
 * before this point), then run the loop.  fork: then set the failure, fork
 * a child that runs the loop, and report "fork ERRNO TID" for it.  self:
 * ask for LWP, set the failure, run SLWPCB (#UD: the thread's LWP state is
 * allocated).
 */
static int target(int fd, unsigned long iters, const char *mode, unsigned int nth)
{
	long left = read_fail_nth();
	pid_t pid;
	int status;

	set_fail_nth(0);
	/* -1: reading it failed, the failure was injected there */
	dprintf(fd, "%d %d %d\n", left <= 0, has_lwp_area(), gettid());
	if (!mode) {
		/*
		 * Not failed yet: go on counting allocations while it runs,
		 * profiled, and makes system calls that allocate; it takes
		 * their errors in its stride
		 */
		target_loop(iters);
		if (left > 0 && !set_fail_nth(left))
			left = churn_syscalls();
		dprintf(fd, "end %d\n", left <= 0);
		return 0;
	}
	if (!strcmp(mode, "self")) {
		if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_LWP))
			return 3;
		set_fail_nth(nth);
		slwpcb();
		left = read_fail_nth();
		set_fail_nth(0);
		dprintf(fd, "self %d\n", left == 0);
		target_loop(iters);
		return 0;
	}
	set_fail_nth(nth);
	pid = fork();
	if (!pid) {
		target_loop(iters);
		_exit(0);
	}
	left = read_fail_nth();
	set_fail_nth(0);
	dprintf(fd, "fork %d %d %d\n", left <= 0, pid < 0 ? errno : 0, pid);
	if (pid > 0 && (waitpid(pid, &status, 0) != pid || status))
		return 4;
	target_loop(iters);
	return 0;
}

/* ---- the events ---- */

static struct perf_event_attr attr;
static int nr_cpus;

static int lwp_attr(void)
{
	unsigned long long ev;
	unsigned int lo;
	char buf[64];
	FILE *f;
	int type;

	f = fopen("/sys/bus/event_source/devices/lwp/type", "r");
	if (!f || fscanf(f, "%d", &type) != 1)
		return -1;
	fclose(f);
	f = fopen("/sys/bus/event_source/devices/lwp/events/instructions", "r");
	if (!f || !fgets(buf, sizeof(buf), f) || sscanf(buf, "event=%lli", &ev) != 1)
		return -1;
	fclose(f);
	f = fopen("/sys/bus/event_source/devices/lwp/format/event", "r");
	if (!f || fscanf(f, "config:%u", &lo) != 1)
		return -1;
	fclose(f);
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = ev << lo;
	attr.sample_period = PERIOD;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	attr.sample_id_all = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return 0;
}

struct ring {
	int fd;
	struct perf_event_mmap_page *pg;
	char *data;
};

static struct ring rings[MAX_CPUS];
static int nr_rings;

static int open_ring(struct ring *r, pid_t pid, int cpu)
{
	size_t psz = sysconf(_SC_PAGESIZE);

	r->fd = syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	r->pg = mmap(NULL, (1 + RING_PAGES) * psz, PROT_READ | PROT_WRITE,
		     MAP_SHARED, r->fd, 0);
	if (r->pg == MAP_FAILED) {
		int err = errno;

		close(r->fd);
		return -err;
	}
	r->data = (char *)r->pg + psz;
	return 0;
}

static void close_rings(void)
{
	size_t psz = sysconf(_SC_PAGESIZE);

	while (nr_rings) {
		struct ring *r = &rings[--nr_rings];

		munmap(r->pg, (1 + RING_PAGES) * psz);
		close(r->fd);
	}
}

/* Count @tid's and @tid2's samples and lost samples in every ring */
static void drain(int tid, unsigned long *samples, unsigned long *lost,
		  int tid2, unsigned long *samples2, unsigned long *lost2)
{
	size_t size = RING_PAGES * sysconf(_SC_PAGESIZE);
	int i;

	for (i = 0; i < nr_rings; i++) {
		struct ring *r = &rings[i];
		uint64_t head = __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = r->pg->data_tail;

		while (tail < head) {
			struct perf_event_header h;
			uint64_t rec[8];
			size_t off = tail % size, j;
			int t;

			for (j = 0; j < sizeof(h); j++)
				((char *)&h)[j] = r->data[(off + j) % size];
			for (j = 0; j < sizeof(rec) && j < h.size; j++)
				((char *)rec)[j] = r->data[(off + j) % size];
			if (!h.size)
				break;
			/* SAMPLE: ip, pid/tid; LOST_SAMPLES: lost, pid/tid */
			t = rec[2] >> 32;
			if (h.type == PERF_RECORD_SAMPLE && t > 0) {
				if (t == tid)
					(*samples)++;
				else if (t == tid2)
					(*samples2)++;
			} else if (h.type == PERF_RECORD_LOST_SAMPLES && t > 0) {
				if (t == tid)
					*lost += rec[1];
				else if (t == tid2)
					*lost2 += rec[1];
			}
			tail += h.size;
		}
		__atomic_store_n(&r->pg->data_tail, tail, __ATOMIC_RELEASE);
	}
}

/* ---- the starts ---- */

enum outcome {
	NOT_INJECTED, REFUSED, PROFILED, UNPROFILED, KILLED, WRONG,
	NR_OUTCOMES
};

static const char *scope, *who, *self_exe = "/proc/self/exe";

/* The program's start with the n-th allocation failed */
static enum outcome start(unsigned int n)
{
	int sync[2], rep[2], status, injected = 0, tinj = 0, einj = -1, area = -1, tid = -1;
	int finj = -1, ferr = 0, ftid = -1, sinj = -1, err = 0, i;
	unsigned long samples = 0, lost = 0, fsamples = 0, flost = 0;
	char buf[256], c;
	enum outcome o;
	FILE *f;
	pid_t pid;

	if (pipe(sync) || pipe2(rep, O_CLOEXEC))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		char fd[16], nth[16], iters[16];
		const char *mode = !strcmp(who, "fork") || !strcmp(who, "self") ? who : NULL;

		close(sync[1]);
		if (read(sync[0], &c, 1) != 1)
			_exit(120);
		snprintf(fd, sizeof(fd), "%d", 100);
		snprintf(nth, sizeof(nth), "%u", n);
		snprintf(iters, sizeof(iters), "%lu", ITERS);
		if (dup2(rep[1], 100) != 100)
			_exit(121);
		if (!strcmp(who, "child") && set_fail_nth(n))
			_exit(122);
		execl(self_exe, self_exe, "target", fd, iters, mode ? mode : "-", nth,
		      (char *)NULL);
		err = errno;
		set_fail_nth(0);
		dprintf(100, "exec %d\n", err);
		_exit(123);
	}
	close(sync[0]);
	close(rep[1]);

	if (!strcmp(who, "opener"))
		set_fail_nth(n);
	/*
	 * Per task: one event per CPU, as perf record has them (perf core
	 * refuses to mmap an inherited event of every CPU)
	 */
	attr.enable_on_exec = !strcmp(scope, "task");
	attr.disabled = attr.enable_on_exec;
	attr.inherit = attr.enable_on_exec && !strcmp(who, "fork");
	for (i = 0; i < nr_cpus && !err && strcmp(who, "self"); i++) {
		err = open_ring(&rings[nr_rings], attr.enable_on_exec ? pid : -1, i);
		if (!err)
			nr_rings++;
	}
	if (!strcmp(who, "opener")) {
		injected = read_fail_nth() <= 0;
		set_fail_nth(0);
	}
	if (err) {
		/* perf_event_open() or the ring's mmap() refused */
		close_rings();
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		close(sync[1]);
		close(rep[0]);
		if (injected && err == -ENOMEM)
			return REFUSED;
		printf("n %u: perf_event_open/mmap: %s (%s)\n", n, strerror(-err),
		       injected ? "injected" : "not injected");
		return WRONG;
	}
	if (write(sync[1], "g", 1) != 1)
		die("write");
	close(sync[1]);
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");

	f = fdopen(rep[0], "r");
	while (f && fgets(buf, sizeof(buf), f)) {
		if (sscanf(buf, "exec %d", &err) == 1)
			continue;
		if (sscanf(buf, "fork %d %d %d", &finj, &ferr, &ftid) == 3)
			continue;
		if (sscanf(buf, "self %d", &sinj) == 1)
			continue;
		if (sscanf(buf, "end %d", &einj) == 1)
			continue;
		if (sscanf(buf, "%d %d %d", &tinj, &area, &tid) != 3)
			printf("n %u: report line '%s'\n", n, buf);
	}
	if (f)
		fclose(f);
	drain(tid, &samples, &lost, ftid, &fsamples, &flost);
	close_rings();

	if (err)	/* execve() failed: its errno is exec's own */
		return REFUSED;
	if (!strcmp(who, "self")) {
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV && sinj == -1)
			return KILLED;
		if (WIFEXITED(status) && !WEXITSTATUS(status) && sinj == 0)
			return NOT_INJECTED;
		/* the allocator absorbed the failure (a fallback that worked) */
		if (WIFEXITED(status) && !WEXITSTATUS(status) && sinj == 1)
			return PROFILED;
		printf("n %u: self: status %#x, injected %d\n", n, status, sinj);
		return WRONG;
	}
	if (!strcmp(who, "child"))
		injected = tinj || einj == 1;
	/*
	 * The program did not get to main(): exec failed after its point of
	 * no return (SIGKILL, SIGSEGV), or the dynamic loader could not map
	 * a library (ENOMEM from mmap(): it exits 127)
	 */
	if (!strcmp(who, "child") && tid < 0) {
		if (WIFSIGNALED(status) &&
		    (WTERMSIG(status) == SIGKILL || WTERMSIG(status) == SIGSEGV))
			return KILLED;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			return REFUSED;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) || tid < 0) {
		printf("n %u: program: status %#x, tid %d\n", n, status, tid);
		return WRONG;
	}
	if (!strcmp(who, "fork")) {
		injected = finj == 1;
		if (ferr) {
			if (ferr == ENOMEM && injected)
				return REFUSED;
			printf("n %u: fork: %s\n", n, strerror(ferr));
			return WRONG;
		}
		/* the child of the program, with its inherited event */
		samples = fsamples;
		lost = flost;
	}
	/*
	 * Profiled; a sample it lost on the way (seen once in a CPU-wide
	 * sweep with every allocation counted) is counted, not silent
	 */
	if (samples && (area != 0 || !strcmp(who, "fork")) && (!lost || injected))
		o = PROFILED;
	else if (!samples && lost && !area)
		o = UNPROFILED;
	else
		o = WRONG;
	if (!injected && o != PROFILED)
		o = WRONG;
	if (o == WRONG)
		printf("n %u: %s: [lwp] area %d, %lu samples, %lu lost\n", n,
		       injected ? "injected" : "not injected", area, samples, lost);
	return injected ? o : NOT_INJECTED;
}

/* Both attributes: fail sleeping allocations too, only under [lo, hi) */
static int setup(unsigned long lo, unsigned long hi)
{
	static const char *const dirs[] = { FI "failslab/", FI "fail_page_alloc/" };
	char path[128], val[32];
	int i, ret = 0;

	for (i = 0; i < 2; i++) {
#define SET(name, v) do {						\
		snprintf(path, sizeof(path), "%s%s", dirs[i], name);	\
		ret |= write_file(path, v);				\
	} while (0)
		SET("probability", "0");
		SET("verbose", "0");
		SET("ignore-gfp-wait", "N");
		SET("stacktrace-depth", "32");
		snprintf(val, sizeof(val), "%lu", lo);
		SET("require-start", val);
		snprintf(val, sizeof(val), "%lu", hi);
		SET("require-end", val);
		if (i == 1) {
			SET("ignore-gfp-highmem", "N");
			SET("min-order", "0");
		}
#undef SET
	}
	return ret;
}

/* [start, end) of @func's text from /proc/kallsyms: to the next symbol */
static int func_range(const char *func, unsigned long *lo, unsigned long *hi)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	unsigned long addr, best = ULONG_MAX;
	char type, name[256], line[512];

	if (!f)
		return -1;
	*lo = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %255s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, func) && (type == 't' || type == 'T'))
			*lo = addr;
	}
	rewind(f);
	while (*lo && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %255s", &addr, &type, name) == 3 &&
		    addr > *lo && addr < best)
			best = addr;
	}
	fclose(f);
	*hi = best;
	return *lo && best != ULONG_MAX ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned long count[NR_OUTCOMES] = { 0 }, lo = 0, hi = ULONG_MAX, max, n;
	unsigned long injected;
	enum outcome o;

	if (argc == 3 && !strcmp(argv[1], "filter")) {
		if (strcmp(argv[2], "-") && func_range(argv[2], &lo, &hi)) {
			fprintf(stderr, "lwp-failinject: %s: not in /proc/kallsyms\n", argv[2]);
			return 2;
		}
		return setup(lo, hi) ? 1 : 0;
	}
	if (argc == 6 && !strcmp(argv[1], "target"))
		return target(atoi(argv[2]), strtoul(argv[3], NULL, 0),
			      strcmp(argv[4], "-") ? argv[4] : NULL,
			      strtoul(argv[5], NULL, 0));
	if (argc != 5) {
		fprintf(stderr, "usage: lwp-failinject task|cpu child|opener|fork|self FUNCTION|- MAX\n");
		return 2;
	}
	scope = argv[1];
	who = argv[2];
	max = strtoul(argv[4], NULL, 0);
	if (strcmp(argv[3], "-") && func_range(argv[3], &lo, &hi)) {
		fprintf(stderr, "lwp-failinject: %s: not in /proc/kallsyms\n", argv[3]);
		return 2;
	}
	if (setup(lo, hi))
		die("the fault injection attributes in " FI);
	if (lwp_attr())
		die("the lwp PMU in sysfs");
	nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (nr_cpus > MAX_CPUS)
		nr_cpus = MAX_CPUS;

	for (n = 1; n <= max; n++) {
		o = start(n);
		count[o]++;
		if (o == NOT_INJECTED)
			break;
	}
	setup(0, ULONG_MAX);
	injected = count[REFUSED] + count[PROFILED] + count[UNPROFILED] +
		   count[KILLED] + count[WRONG];
	printf("%s %s %s: %lu starts, %lu failures injected: %lu refused with ENOMEM, %lu profiled, %lu unprofiled and counted as lost, %lu killed, %lu wrong%s\n",
	       scope, who, argv[3], n > max ? max : n, injected,
	       count[REFUSED], count[PROFILED], count[UNPROFILED],
	       count[KILLED], count[WRONG],
	       n > max ? " (stopped at MAX)" : "");
	return count[WRONG] || !injected ? 1 : 0;
}
