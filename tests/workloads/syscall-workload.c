// SPDX-License-Identifier: GPL-2.0
/*
 * syscall-workload: makes an exact, known set of syscalls for `bpfmem syscalls` tests.
 * Raw syscall() everywhere, so libc cannot substitute or cache anything.
 *
 *   syscall-workload [-s] [-g N] [-o N] [-n N] [-t MS]   basic mix (default 1000/500/20/5)
 *   syscall-workload [-s] -m N                           50 distinct syscalls, N calls each
 *   syscall-workload [-s] -f N                           N short-lived child processes
 *   syscall-workload -T N                                N more threads, idle until killed
 *   syscall-workload -u UID CMD [ARG...]                 run CMD as UID (privilege tests)
 *
 * -s: print "pid N", then wait for SIGUSR1 before starting (attach the tracer first).
 * The basic mix: N getppid, N openat of a missing path (ENOENT), N nanosleep of MS ms.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define MISSING "/nonexistent/bpfmem-syscall-workload"

static long num(const char *s)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (!*s || *end || v < 0) {
		fprintf(stderr, "syscall-workload: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

/* 50 distinct syscalls that are cheap and harmless (bad fds, missing paths, getters). */
static void many(long n)
{
	char buf[4096];
	struct timespec ts;
	struct rlimit rl;
	long i;

	for (i = 0; i < n; i++) {
		syscall(SYS_read, -1, buf, 0);
		syscall(SYS_close, -1);
		syscall(SYS_fstat, -1, buf);
		syscall(SYS_lseek, -1, 0, SEEK_SET);
		syscall(SYS_ioctl, -1, 0, 0);
		syscall(SYS_pread64, -1, buf, 1, 0);
		syscall(SYS_pwrite64, -1, buf, 1, 0);
		syscall(SYS_readv, -1, NULL, 0);
		syscall(SYS_writev, -1, NULL, 0);
		syscall(SYS_access, MISSING, F_OK);
		syscall(SYS_sched_yield);
		syscall(SYS_dup, -1);
		syscall(SYS_getpid);
		syscall(SYS_getppid);
		syscall(SYS_getuid);
		syscall(SYS_getgid);
		syscall(SYS_geteuid);
		syscall(SYS_getegid);
		syscall(SYS_getpgrp);
		syscall(SYS_getsid, 0);
		syscall(SYS_gettid);
		syscall(SYS_umask, 022);
		syscall(SYS_uname, buf);
		syscall(SYS_getcwd, buf, sizeof(buf));
		syscall(SYS_getrlimit, RLIMIT_NOFILE, &rl);
		syscall(SYS_getrusage, RUSAGE_SELF, buf);
		syscall(SYS_times, buf);
		syscall(SYS_getpriority, PRIO_PROCESS, 0);
		syscall(SYS_sched_getscheduler, 0);
		syscall(SYS_sched_getparam, 0, buf);
		syscall(SYS_getgroups, 0, NULL);
		syscall(SYS_getpgid, 0);
		syscall(SYS_fcntl, -1, F_GETFD);
		syscall(SYS_flock, -1, 0);
		syscall(SYS_fsync, -1);
		syscall(SYS_fdatasync, -1);
		syscall(SYS_ftruncate, -1, 0);
		syscall(SYS_getdents64, -1, buf, sizeof(buf));
		syscall(SYS_fchdir, -1);
		syscall(SYS_fchmod, -1, 0);
		syscall(SYS_fchown, -1, 0, 0);
		syscall(SYS_chdir, MISSING);
		syscall(SYS_rmdir, MISSING);
		syscall(SYS_unlink, MISSING);
		syscall(SYS_readlink, MISSING, buf, sizeof(buf));
		syscall(SYS_stat, MISSING, buf);
		syscall(SYS_statfs, MISSING, buf);
		syscall(SYS_fstatfs, -1, buf);
		syscall(SYS_sched_get_priority_max, 0);
		syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	}
}

static void churn(long n)
{
	long i;

	for (i = 0; i < n; i++) {
		pid_t p = fork();

		if (p < 0) {
			perror("syscall-workload: fork");
			exit(1);
		}
		if (p == 0) {
			syscall(SYS_getppid);
			syscall(SYS_openat, AT_FDCWD, MISSING, O_RDONLY);
			syscall(SYS_exit_group, 0);
		}
		/* every 16th: reap later, so several children are alive at once */
		if (i % 16 == 15)
			while (waitpid(-1, NULL, 0) > 0)
				;
	}
	while (waitpid(-1, NULL, 0) > 0)
		;
}

static void *idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* @n threads (small stacks) that wait for the end: "threads N", then killed */
static int idle_threads(long n)
{
	pthread_attr_t attr;
	pthread_t th;
	long i;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN > 65536 ? PTHREAD_STACK_MIN : 65536);
	for (i = 0; i < n; i++)
		if (pthread_create(&th, &attr, idle, NULL)) {
			fprintf(stderr, "syscall-workload: thread %ld: cannot create\n", i);
			return 1;
		}
	printf("threads %ld\n", n);
	fflush(stdout);
	for (;;)
		pause();
	return 0;
}

int main(int argc, char **argv)
{
	long getppids = 1000, opens = 500, sleeps = 20, sleep_ms = 5, many_n = -1, forks = -1;
	bool wait_sig = false;
	struct timespec ts;
	sigset_t set;
	long i;
	int c;

	while ((c = getopt(argc, argv, "+sg:o:n:t:m:f:u:T:h")) != -1) {
		switch (c) {
		case 'T': return idle_threads(num(optarg));
		case 's': wait_sig = true; break;
		case 'g': getppids = num(optarg); break;
		case 'o': opens = num(optarg); break;
		case 'n': sleeps = num(optarg); break;
		case 't': sleep_ms = num(optarg); break;
		case 'm': many_n = num(optarg); break;
		case 'f': forks = num(optarg); break;
		case 'u':
			if (optind >= argc) {
				fprintf(stderr, "syscall-workload: -u UID needs a command\n");
				return 2;
			}
			if (setgid(num(optarg)) || setuid(num(optarg))) {
				perror("syscall-workload: setuid");
				return 1;
			}
			execvp(argv[optind], argv + optind);
			perror("syscall-workload: exec");
			return 127;
		case 'h':
			printf("usage: syscall-workload [-s] [-g N] [-o N] [-n N] [-t MS] | -m N | -f N "
			       "| -T N | -u UID CMD...\n");
			return 0;
		default:
			return 2;
		}
	}
	if (wait_sig) {
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
	}
	printf("pid %d\n", getpid());
	fflush(stdout);
	if (wait_sig)
		sigwaitinfo(&set, NULL);

	if (many_n >= 0) {
		many(many_n);
	} else if (forks >= 0) {
		churn(forks);
	} else {
		for (i = 0; i < getppids; i++)
			syscall(SYS_getppid);
		for (i = 0; i < opens; i++)
			syscall(SYS_openat, AT_FDCWD, MISSING, O_RDONLY);
		ts.tv_sec = sleep_ms / 1000;
		ts.tv_nsec = (sleep_ms % 1000) * 1000000L;
		for (i = 0; i < sleeps; i++)
			syscall(SYS_nanosleep, &ts, NULL);
	}
	printf("done\n");
	fflush(stdout);
	return 0;
}
