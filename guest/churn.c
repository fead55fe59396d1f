// SPDX-License-Identifier: GPL-2.0
/*
 * Move a running process between CPUs: pin it to each CPU of the machine in
 * turn, COUNT times, USEC microseconds apart (0: back to back), until it
 * exits.  Every successful pin to another CPU than the last is a migration
 * (the kernel moves a running task at once on sched_setaffinity()).
 *
 *   churn PID [COUNT [USEC]]   (default COUNT = 1000, USEC = 2000)
 *
 * Prints "churn: N migrations" (fewer than COUNT - 1 when PID exited first).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

/* Whether @pid is still running: not gone, not a zombie */
static int alive(pid_t pid)
{
	char path[64], buf[512], *p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

int main(int argc, char **argv)
{
	unsigned long i, count, usec, done = 0;
	int ncpus = get_nprocs();
	cpu_set_t set;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: churn PID [COUNT [USEC]]\n");
		return 2;
	}
	pid = strtol(argv[1], NULL, 0);
	count = argc > 2 ? strtoul(argv[2], NULL, 0) : 1000;
	usec = argc > 3 ? strtoul(argv[3], NULL, 0) : 2000;
	if (ncpus < 2) {
		fprintf(stderr, "churn: one CPU, nowhere to move to\n");
		return 1;
	}
	for (i = 0; i < count && alive(pid); i++) {
		CPU_ZERO(&set);
		CPU_SET(i % ncpus, &set);
		if (sched_setaffinity(pid, sizeof(set), &set)) {
			if (errno == ESRCH)
				break;
			fprintf(stderr, "churn: sched_setaffinity(%d): %s\n", (int)pid, strerror(errno));
			return 1;
		}
		if (i)
			done++;
		if (usec)
			usleep(usec);
	}
	printf("churn: %lu migrations\n", done);
	return 0;
}
