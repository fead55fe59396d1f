// SPDX-License-Identifier: GPL-2.0
/*
 * Context-switch benchmark for make bench: a parent and a child bounce one
 * byte through two pipes N times, so on one CPU every round trip is two
 * context switches.  bench_marker() is called right before and right after
 * the bounces; the host's insncount plugin counts guest instructions only
 * between those two calls.  It sits alone at a fixed address (see
 * harness-cflags below) so the plugin can find it.
 *
 *   pingpong [N]   (default 20000)
 *   pingpong loop N   a compute loop between the markers instead (the cost
 *                     of sampling it, make bench)
 */
// harness-cflags: -static -no-pie -Wl,--section-start=.benchmark=0x30000000
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline, section(".benchmark"))) void bench_marker(void)
{
	asm volatile("" ::: "memory");
}

/* pingpong loop N: N iterations of a 5-instruction loop between the markers */
static int loop(long n)
{
	unsigned long x = 1;
	long i;

	bench_marker();
	for (i = 0; i < n; i++) {
		x = x * 2862933555777941757UL + 3037000493UL;
		asm volatile("" : "+r"(x));
	}
	bench_marker();
	printf("pingpong: loop=%ld x=%lu\n", n, x);
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 0) : 20000, i;
	int ab[2], ba[2], status;
	struct rusage self, child;
	char c = 0;
	pid_t pid;

	if (argc > 2 && !strcmp(argv[1], "loop"))
		return loop(strtol(argv[2], NULL, 0));
	if (pipe(ab) || pipe(ba))
		return perror("pipe"), 1;
	pid = fork();
	if (pid < 0)
		return perror("fork"), 1;
	if (pid == 0) {
		for (i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	bench_marker();
	for (i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return perror("pingpong"), 1;
	bench_marker();
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return fprintf(stderr, "pingpong: child failed\n"), 1;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &child);
	printf("pingpong: rounds=%ld switches=%ld\n", n,
	       self.ru_nvcsw + self.ru_nivcsw + child.ru_nvcsw + child.ru_nivcsw);
	return 0;
}
