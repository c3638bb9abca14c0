// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of bpfmem_wait() (TAP): the interval sleep of the tools, which ends
 * at once on SIGINT also with no time limit (syscalls without -i/-d).
 */
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "bpfmem.h"
#include "tap.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* SIGINT to this process from another one after @us microseconds */
static pid_t sigint_after(long us)
{
	pid_t child = fork();

	if (child == 0) {
		usleep(us);
		kill(getppid(), SIGINT);
		_exit(0);
	}
	return child;
}

int main(void)
{
	sigset_t mask;
	double t;
	pid_t child;

	bpfmem_setup_signals();

	t = now();
	bpfmem_wait(0.2);
	t = now() - t;
	CHECK(t >= 0.19 && t < 2 && !bpfmem_exiting, "a timed wait sleeps its time");

	child = sigint_after(200000);
	t = now();
	bpfmem_wait(-1);
	t = now() - t;
	waitpid(child, NULL, 0);
	CHECK(bpfmem_exiting && t < 5, "an unlimited wait (no -i/-d) ends on SIGINT");

	bpfmem_exiting = 0;
	child = sigint_after(200000);
	t = now();
	bpfmem_wait(30);
	t = now() - t;
	waitpid(child, NULL, 0);
	CHECK(bpfmem_exiting && t < 5, "a long timed wait ends on SIGINT");

	t = now();
	bpfmem_wait(-1);
	CHECK(now() - t < 0.5, "no wait at all once exiting");

	sigprocmask(SIG_SETMASK, NULL, &mask);
	CHECK(!sigismember(&mask, SIGINT) && !sigismember(&mask, SIGTERM),
	      "signal mask restored after the wait");

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
