// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of bpfmem_wait() (TAP): the interval sleep of the tools, which ends
 * at once on SIGINT also with no time limit (syscalls without -i/-d); and of the
 * interval loop built on it (bpfmem_interval_next()): when reports come, which is the
 * last, Ctrl-C, the readable fd.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <stdbool.h>
#include <sys/wait.h>

#include "libbpfmem.h"
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


/* the reports of @iv: their times from the start into @t (at most 16), how many */
static int run_loop(struct bpfmem_interval *iv, double *t, double work)
{
	double t0 = now();
	int k = 0;

	while (bpfmem_interval_next(iv) > 0 && k < 16) {
		t[k++] = now() - t0;
		while (work > 0 && now() - t0 - t[k - 1] < work)
			;	/* a report that takes time (a signal does not end it) */
	}
	return k;
}

static bool near(double t, double want)
{
	return t >= want - 0.005 && t < want + 0.1;	/* a loaded host is late */
}

static int readable_calls;

static int on_readable_fail(void *arg)
{
	return -5;
}

static int on_readable(void *arg)
{
	char c;

	readable_calls++;
	return read(*(int *)arg, &c, 1) == 1 ? 0 : -5;
}

static void interval_loop(void)
{
	struct bpfmem_interval iv;
	double t[16];
	int k, fds[2];
	pid_t child;

	memset(&iv, 0, sizeof(iv));
	iv.interval = 0.1;
	iv.count = 3;
	k = run_loop(&iv, t, 0);
	CHECK(k == 3 && iv.last && !iv.stopped && near(t[0], 0.1) && near(t[2], 0.3),
	      "-i 0.1 -n 3: three reports, 0.1 s apart, the third the last");

	memset(&iv, 0, sizeof(iv));
	iv.interval = 0.1;
	iv.count = 3;
	iv.at_start = true;
	k = run_loop(&iv, t, 0);
	CHECK(k == 3 && near(t[0], 0) && near(t[1], 0.1) && near(t[2], 0.2),
	      "at_start: the first report at once, then every interval");

	memset(&iv, 0, sizeof(iv));
	iv.at_start = true;
	k = run_loop(&iv, t, 0);
	CHECK(k == 1 && iv.last && near(t[0], 0), "at_start without an interval: one report");

	memset(&iv, 0, sizeof(iv));
	iv.interval = 0.1;
	iv.duration = 0.25;
	k = run_loop(&iv, t, 0);
	CHECK(k == 3 && iv.last && near(t[1], 0.2) && near(t[2], 0.25),
	      "-i 0.1 -d 0.25: reports at 0.1, 0.2 and the last at 0.25");

	memset(&iv, 0, sizeof(iv));
	iv.interval = 0.1;
	iv.duration = 0.3;
	k = run_loop(&iv, t, 0);
	CHECK(k == 3 && iv.last && near(t[2], 0.3), "-i 0.1 -d 0.3: the report at 0.3 is the last");

	memset(&iv, 0, sizeof(iv));
	iv.duration = 0.2;
	k = run_loop(&iv, t, 0);
	CHECK(k == 1 && iv.last && near(t[0], 0.2), "-d 0.2 without -i: one report, at the end");

	memset(&iv, 0, sizeof(iv));
	iv.interval = 0.1;
	iv.count = 4;
	k = run_loop(&iv, t, 0.05);
	CHECK(k == 4 && near(t[3], 0.4), "a report that takes 50 ms does not shift the next ones");

	memset(&iv, 0, sizeof(iv));
	iv.interval = 0.1;
	iv.count = 3;
	k = run_loop(&iv, t, 0.25);
	CHECK(k == 3 && near(t[1], 0.35) && near(t[2], 0.6),
	      "a report late by a whole interval comes at once, the next one an interval later");

	memset(&iv, 0, sizeof(iv));
	iv.interval = 30;
	child = sigint_after(200000);
	k = run_loop(&iv, t, 0);
	waitpid(child, NULL, 0);
	CHECK(k == 1 && iv.last && iv.stopped && near(t[0], 0.2),
	      "Ctrl-C ends the wait at once: the interval so far is the last report");
	bpfmem_exiting = 0;

	memset(&iv, 0, sizeof(iv));
	child = sigint_after(200000);
	k = run_loop(&iv, t, 0);
	waitpid(child, NULL, 0);
	CHECK(k == 1 && iv.last && iv.stopped, "no -i, no -d: one report, at Ctrl-C");
	bpfmem_exiting = 0;

	memset(&iv, 0, sizeof(iv));
	iv.interval = 0.1;
	iv.at_start = true;
	child = sigint_after(50000);
	k = run_loop(&iv, t, 0.2);
	waitpid(child, NULL, 0);
	CHECK(k == 2 && iv.stopped && near(t[1], 0.2),
	      "Ctrl-C during a report: one more report, at once, the last");
	bpfmem_exiting = 0;

	memset(&iv, 0, sizeof(iv));
	if (pipe(fds))
		fds[0] = fds[1] = -1;
	iv.interval = 0.3;
	iv.count = 1;
	iv.fd = fds[0];
	iv.on_ready = on_readable;
	iv.arg = &fds[0];
	child = fork();
	if (child == 0) {
		usleep(100000);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		_exit(0);
	}
	k = run_loop(&iv, t, 0);
	waitpid(child, NULL, 0);
	CHECK(k == 1 && readable_calls == 1 && near(t[0], 0.3),
	      "a readable fd calls on_ready during the wait, the report still at its time");

	memset(&iv, 0, sizeof(iv));
	iv.interval = 0.3;
	iv.fd = fds[0];
	iv.on_ready = on_readable_fail;
	CHECK(write(fds[1], "x", 1) == 1 && bpfmem_interval_next(&iv) == -5,
	      "an error of on_ready ends the loop with it");
	close(fds[0]);
	close(fds[1]);
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

	bpfmem_exiting = 0;
	interval_loop();

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
