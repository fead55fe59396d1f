// SPDX-License-Identifier: GPL-2.0
/*
 * Fork, exec, thread and migration churn under lwp sampling (suite
 * 37-lwp-churn), and the check that every task's samples are its own.
 *
 *   lwp-churn run REPORT CYCLES THREADS MIGRATIONS [SUID_PROG]
 *
 * runs, all at once: CYCLES children that fork, exec this program (every
 * 50th execs SUID_PROG, a set-user-ID copy of it, when given) and exit, two
 * at a time; a process that creates THREADS threads, ten alive at a time;
 * and a thread that moves between CPU 0 and CPU 1 MIGRATIONS times.  Every
 * task runs churn_loop() for a number of iterations of its own and appends
 * one line to REPORT:
 *
 *   TID LO HI ITERS KIND
 *
 * (LO-HI the address range of churn_loop in that task's process, KIND exec,
 * suid, thread or migrate).  "lwp-churn task REPORT ITERS KIND" is what the
 * exec'ed children run.
 *
 *   lwp-churn check REPORT PERIOD [suid-unprofiled]
 *
 * reads "perf script -F tid,cpu,ip" lines on stdin and checks, for every
 * task of REPORT, that the number of its samples inside churn_loop is its
 * ITERS times the instructions per iteration over PERIOD, within the one
 * period it starts in and the one it ends in (the instructions per
 * iteration: what all tasks' samples give together), and that the
 * migrating thread was sampled on both CPUs.  With suid-unprofiled, the
 * set-user-ID children must have no samples in churn_loop (perf core takes
 * a task's events away at an exec that makes it non-dumpable) and are left
 * out of the ratio.  Exits 0 when every task passes.
 *
 *   lwp-churn probe DATA_PAGES
 *
 * maps a perf ring of 1 + DATA_PAGES pages and then one of a single page,
 * with RLIMIT_MEMLOCK 0, and exits 0 if both fit: with perf_event_mlock_kb
 * set to exactly that, the user has nothing else charged.
 */
// harness-cflags: -pthread
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

#include "loop.h"

/* In a section of its own: the linker gives its bounds */
__attribute__((noinline, section("churn_loop_text")))
static void churn_loop(unsigned long n)
{
	LOOP(n);
}

extern char __start_churn_loop_text[], __stop_churn_loop_text[];

#define UNIT		20000UL
#define CONCURRENT	2
#define THREADS_ALIVE	10
#define SUID_EVERY	50

static const char *report;
static const char *self_exe;

static unsigned long iters_of(unsigned long k)
{
	return UNIT * (1 + k % 5);
}

static void die(const char *what)
{
	fprintf(stderr, "lwp-churn: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Append this task's line to the report */
static int report_task(unsigned long iters, const char *kind)
{
	char line[160];
	int fd, len;

	len = snprintf(line, sizeof(line), "%d %lx %lx %lu %s\n", gettid(),
		       (unsigned long)__start_churn_loop_text,
		       (unsigned long)__stop_churn_loop_text, iters, kind);
	fd = open(report, O_WRONLY | O_APPEND);
	if (fd < 0 || write(fd, line, len) != len) {
		fprintf(stderr, "lwp-churn: %s: %s\n", report, strerror(errno));
		return 1;
	}
	close(fd);
	return 0;
}

static int task(unsigned long iters, const char *kind)
{
	churn_loop(iters);
	return report_task(iters, kind);
}

static void *thread_main(void *arg)
{
	return (void *)(long)task((unsigned long)arg, "thread");
}

/* THREADS threads, THREADS_ALIVE at a time, each created as one ends */
static int threads(unsigned long nr)
{
	pthread_t t[THREADS_ALIVE];
	unsigned long k;
	int bad = 0;
	void *ret;

	for (k = 0; k < nr + THREADS_ALIVE; k++) {
		int slot = k % THREADS_ALIVE;

		if (k >= THREADS_ALIVE) {
			pthread_join(t[slot], &ret);
			bad |= ret != NULL;
		}
		if (k < nr && pthread_create(&t[slot], NULL, thread_main,
					     (void *)iters_of(k))) {
			fprintf(stderr, "lwp-churn: pthread_create failed\n");
			return 1;
		}
		if (k >= nr && k - nr + 1 >= THREADS_ALIVE)
			break;
	}
	return bad;
}

/* Move between CPU 0 and 1 @nr times, running the loop on each */
static int migrate(unsigned long nr)
{
	unsigned long k;
	cpu_set_t set;

	for (k = 0; k < nr; k++) {
		CPU_ZERO(&set);
		CPU_SET(k % 2, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("sched_setaffinity");
		churn_loop(UNIT / 4);
	}
	return report_task(nr * (UNIT / 4), "migrate");
}

static pid_t spawn(unsigned long k, const char *suid)
{
	char iters[32];
	const char *prog = suid && k % SUID_EVERY == SUID_EVERY - 1 ? suid : self_exe;
	pid_t pid = fork();

	if (pid)
		return pid;
	snprintf(iters, sizeof(iters), "%lu", iters_of(k));
	execl(prog, prog, "task", report, iters, prog == suid ? "suid" : "exec",
	      (char *)NULL);
	fprintf(stderr, "lwp-churn: exec %s: %s\n", prog, strerror(errno));
	_exit(127);
}

static int run(unsigned long cycles, unsigned long nthreads,
	       unsigned long migrations, const char *suid)
{
	unsigned long started = 0, running = 0, others = 2, failed = 0;
	pid_t thr, mig, pid;
	int status;

	thr = fork();
	if (!thr)
		_exit(threads(nthreads));
	mig = fork();
	if (!mig)
		_exit(migrate(migrations));
	if (thr < 0 || mig < 0)
		die("fork");

	while (running || others || started < cycles) {
		while (started < cycles && running < CONCURRENT) {
			if (spawn(started, suid) < 0)
				die("fork");
			started++;
			running++;
		}
		pid = wait(&status);
		if (pid < 0)
			die("wait");
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "lwp-churn: %s %d: status %#x\n",
				pid == thr ? "thread process" :
				pid == mig ? "migrating process" : "child",
				pid, status);
			failed++;
		}
		if (pid == thr || pid == mig)
			others--;
		else
			running--;
	}
	printf("lwp-churn: %lu exec cycles, %lu threads, %lu migrations, %lu failed\n",
	       cycles, nthreads, migrations, failed);
	return failed ? 1 : 0;
}

/* ---- check ---- */

struct task {
	long tid;
	unsigned long lo, hi, iters;
	char kind[16];
	unsigned long in, out, cpus;
};

static struct task *tasks;
static size_t ntasks;

static int cmp_tid(const void *a, const void *b)
{
	const struct task *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static struct task *find(long tid)
{
	struct task key = { .tid = tid };

	return bsearch(&key, tasks, ntasks, sizeof(*tasks), cmp_tid);
}

static int load(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t cap = 0;
	struct task t;

	if (!f)
		die(path);
	memset(&t, 0, sizeof(t));
	while (fscanf(f, "%ld %lx %lx %lu %15s", &t.tid, &t.lo, &t.hi,
		      &t.iters, t.kind) == 5) {
		if (ntasks == cap) {
			cap = cap ? 2 * cap : 1024;
			tasks = realloc(tasks, cap * sizeof(*tasks));
			if (!tasks)
				die("realloc");
		}
		tasks[ntasks++] = t;
	}
	fclose(f);
	qsort(tasks, ntasks, sizeof(*tasks), cmp_tid);
	return 0;
}

/* One line of perf script -F tid,cpu,ip: "TID [CPU] IP" */
static void sample(char *line)
{
	char *tok, *save;
	long tid = -1, cpu = -1;
	unsigned long ip = 0;
	struct task *t;
	int have_ip = 0;

	for (tok = strtok_r(line, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (tok[0] == '[')
			cpu = strtol(tok + 1, NULL, 10);
		else if (tid < 0)
			tid = strtol(tok, NULL, 10);
		else {
			ip = strtoul(tok, NULL, 16);
			have_ip = 1;
		}
	}
	if (!have_ip || !(t = find(tid)))
		return;
	if (ip >= t->lo && ip < t->hi) {
		t->in++;
		if (cpu >= 0 && cpu < 32)
			t->cpus |= 1UL << cpu;
	} else {
		t->out++;
	}
}

static int check(const char *path, unsigned long period, int suid_unprofiled)
{
	unsigned long in = 0, iters = 0, bad = 0, i;
	char line[512];
	double per, insns;

	load(path);
	while (fgets(line, sizeof(line), stdin))
		sample(line);
	for (i = 0; i < ntasks; i++) {
		struct task *t = &tasks[i];

		if (suid_unprofiled && !strcmp(t->kind, "suid"))
			continue;
		in += t->in;
		iters += t->iters;
	}
	if (!iters || !in) {
		printf("no samples in churn_loop of %zu tasks\n", ntasks);
		return 1;
	}
	/*
	 * The loop retires a whole number of instructions per iteration: what
	 * all tasks' samples give together, rounded.  Each task's samples are
	 * then exact but for the period it started or ended in.
	 */
	insns = (double)in * period / iters;
	per = (unsigned long)(insns + 0.5) / (double)period;
	for (i = 0; i < ntasks; i++) {
		struct task *t = &tasks[i];
		double want = t->iters * per;
		int ok;

		if (suid_unprofiled && !strcmp(t->kind, "suid")) {
			ok = t->in == 0;
			want = 0;
		} else {
			ok = t->in + 2 > want && t->in < want + 2;
			if (!strcmp(t->kind, "migrate"))
				ok = ok && t->cpus == 3;
		}
		if (!ok && bad++ < 20)
			printf("tid %ld (%s, %lu iterations): %lu samples in churn_loop, expected %.1f, %lu outside, cpus %#lx\n",
			       t->tid, t->kind, t->iters, t->in, want, t->out, t->cpus);
	}
	printf("%zu tasks, %lu samples in churn_loop, %.3f instructions per iteration, %lu tasks off\n",
	       ntasks, in, insns, bad);
	return bad ? 1 : 0;
}

/* ---- probe ---- */

static int probe(unsigned long data_pages)
{
	size_t psz = sysconf(_SC_PAGESIZE);
	struct rlimit rl = { 0, 0 };
	struct perf_event_attr a;
	int fd[2], i;

	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		die("setrlimit");
	for (i = 0; i < 2; i++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_DUMMY;
		a.disabled = 1;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		fd[i] = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
		if (fd[i] < 0)
			die("perf_event_open");
		if (mmap(NULL, (1 + (i ? 0 : data_pages)) * psz,
			 PROT_READ | PROT_WRITE, MAP_SHARED, fd[i], 0) == MAP_FAILED) {
			printf("a ring of %lu pages: %s\n", 1 + (i ? 0 : data_pages),
			       strerror(errno));
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	self_exe = "/proc/self/exe";
	if (argc >= 2 && !strcmp(argv[1], "task") && argc == 5) {
		report = argv[2];
		return task(strtoul(argv[3], NULL, 0), argv[4]);
	}
	if (argc >= 6 && argc <= 7 && !strcmp(argv[1], "run")) {
		report = argv[2];
		return run(strtoul(argv[3], NULL, 0), strtoul(argv[4], NULL, 0),
			   strtoul(argv[5], NULL, 0), argc == 7 ? argv[6] : NULL);
	}
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "check"))
		return check(argv[2], strtoul(argv[3], NULL, 0),
			     argc == 5 && !strcmp(argv[4], "suid-unprofiled"));
	if (argc == 3 && !strcmp(argv[1], "probe"))
		return probe(strtoul(argv[2], NULL, 0));
	fprintf(stderr,
		"usage: lwp-churn run REPORT CYCLES THREADS MIGRATIONS [SUID_PROG]\n"
		"       lwp-churn task REPORT ITERS KIND\n"
		"       lwp-churn check REPORT PERIOD [suid-unprofiled] <perf-script-lines\n"
		"       lwp-churn probe DATA_PAGES\n");
	return 2;
}
