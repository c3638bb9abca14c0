// SPDX-License-Identifier: GPL-2.0
/*
 * stopwatch [-p PID] CMD [ARGS]: run CMD, then print on stderr
 *   stopwatch status S wall_us W user_us U sys_us Y [pid_cpu_us C]
 * wall time (CLOCK_MONOTONIC), CMD's user and system time (wait4's rusage) and with
 * -p the CPU time (utime + stime of /proc/PID/stat, clock ticks) PID used meanwhile:
 * what busybox's date and time cannot give below 10 ms (scale benchmark, issue 33).
 * Exits with CMD's status.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

/* utime + stime of PID in microseconds, -1 if unreadable */
static long long pid_cpu_us(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n > 0 ? n : 0] = 0;
	p = strrchr(buf, ')');	/* comm may hold spaces */
	/* after ")": state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
	 * cmajflt utime(14) stime(15)
	 */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return -1;
	return (long long)(ut + st) * 1000000 / sysconf(_SC_CLK_TCK);
}

static long long us(const struct timespec *t)
{
	return (long long)t->tv_sec * 1000000 + t->tv_nsec / 1000;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	long long c0 = 0, c1 = 0;
	int pid = 0, c, status;
	pid_t child;

	while ((c = getopt(argc, argv, "+p:")) != -1) {
		if (c != 'p') {
			fprintf(stderr, "usage: stopwatch [-p PID] CMD [ARGS]\n");
			return 2;
		}
		pid = atoi(optarg);
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: stopwatch [-p PID] CMD [ARGS]\n");
		return 2;
	}
	if (pid)
		c0 = pid_cpu_us(pid);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	child = fork();
	if (child < 0) {
		perror("stopwatch: fork");
		return 1;
	}
	if (!child) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "stopwatch: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	if (wait4(child, &status, 0, &ru) < 0) {
		perror("stopwatch: wait4");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (pid)
		c1 = pid_cpu_us(pid);
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	fprintf(stderr, "stopwatch status %d wall_us %lld user_us %lld sys_us %lld", status,
		us(&t1) - us(&t0), (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec,
		(long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec);
	if (pid)
		fprintf(stderr, " pid_cpu_us %lld", c0 < 0 || c1 < 0 ? -1 : c1 - c0);
	fputc('\n', stderr);
	return status;
}
