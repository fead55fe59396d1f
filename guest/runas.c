// SPDX-License-Identifier: GPL-2.0
/*
 * runas UID[:GID] PROG [ARGS...]: run PROG as UID:GID (GID defaults to UID)
 * with no supplementary groups, environment and arguments unchanged.  For
 * suites that test perf as an unprivileged user (busybox su goes through
 * /etc/passwd and a shell, and resets HOME).  Must start as root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr, "usage: runas UID[:GID] PROG [ARGS...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long u, g;
	uid_t uid;
	gid_t gid;
	char *end;

	if (argc < 3)
		return usage();
	u = strtoul(argv[1], &end, 10);
	g = u;
	if (end != argv[1] && *end == ':')
		g = strtoul(end + 1, &end, 10);
	if (end == argv[1] || *end || u > 0xfffffffeUL || g > 0xfffffffeUL)
		return usage();
	uid = u;
	gid = g;
	if (setgroups(0, NULL) || setgid(gid) || setuid(uid)) {
		fprintf(stderr, "runas: dropping to %lu:%lu: %s\n", u, g, strerror(errno));
		return 126;
	}
	if (getuid() != uid || geteuid() != uid || getgid() != gid || getegid() != gid ||
	    (uid != 0 && setuid(0) == 0)) {
		fprintf(stderr, "runas: could not drop privileges for good\n");
		return 126;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "runas: %s: %s\n", argv[2], strerror(errno));
	return 127;
}
