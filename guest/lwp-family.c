// SPDX-License-Identifier: GPL-2.0
/*
 * Threads, fork and exec under one "perf record" (suite 30-lwp-perf): the
 * events must follow every task, and each sample must land in the task and
 * the program it was taken in.  The loops are workload.c's (same macro,
 * same flags), so every iteration retires the same instructions:
 *
 *   main thread      main_loop(3N)
 *   2 pthreads       thread_loop(2N) each
 *   child (fork)     child_loop(N), then execvp("workload", N/5): its
 *                    func_a/b/c run 6:3:1 of 2N iterations
 *
 * so the samples of main_loop, the two thread_loops, child_loop and the
 * child's func_a+b+c are in the ratio 3:2:2:1:2.  The child is forked while
 * both threads run.  At the end the main thread prints
 *
 *   lwp-family: pid P threads T1 T2 child C
 *
 * and exits 0 when every piece succeeded.
 *
 *   lwp-family [N]   (default N = 1,000,000, so the child runs "workload 200000")
 */
// harness-cflags: -pthread
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

#include "loop.h"

__attribute__((noinline)) void main_loop(unsigned long n) { LOOP(n); }
__attribute__((noinline)) void thread_loop(unsigned long n) { LOOP(n); }
__attribute__((noinline)) void child_loop(unsigned long n) { LOOP(n); }

static unsigned long unit;
static pid_t thread_tid[2];

static void *thread_main(void *arg)
{
	long idx = (long)arg;

	thread_tid[idx] = gettid();
	thread_loop(2 * unit);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000000;
	char narg[32];
	char *child_argv[] = { "workload", narg, NULL };
	pthread_t th[2];
	pid_t child;
	int i, err, status;

	unit = n;
	/* everything the child needs is ready before the fork: between fork
	 * and exec it only loops and calls execvp (no stdio, no malloc) */
	snprintf(narg, sizeof(narg), "%lu", n / 5);
	fflush(stdout);
	for (i = 0; i < 2; i++) {
		err = pthread_create(&th[i], NULL, thread_main, (void *)(long)i);
		if (err) {
			fprintf(stderr, "lwp-family: pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	child = fork();
	if (child < 0) {
		perror("lwp-family: fork");
		return 1;
	}
	if (child == 0) {
		static const char msg[] = "lwp-family: execvp workload failed\n";
		ssize_t r;

		child_loop(n);
		execvp(child_argv[0], child_argv);
		r = write(2, msg, sizeof(msg) - 1);
		(void)r;
		_exit(127);
	}
	main_loop(3 * n);
	for (i = 0; i < 2; i++) {
		err = pthread_join(th[i], NULL);
		if (err) {
			fprintf(stderr, "lwp-family: pthread_join: %s\n", strerror(err));
			return 1;
		}
	}
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("lwp-family: waitpid");
			return 1;
		}
	}
	printf("lwp-family: pid %d threads %d %d child %d\n",
	       (int)getpid(), (int)thread_tid[0], (int)thread_tid[1], (int)child);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "lwp-family: the child (workload) failed: wait status 0x%x\n", status);
		return 1;
	}
	return 0;
}
