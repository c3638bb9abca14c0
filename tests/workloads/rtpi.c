// SPDX-License-Identifier: GPL-2.0
/*
 * rtpi: runs of a tracing program in a task blocked on an rtmutex
 * (tests/bpf/rtpi.bpf.c on rt_mutex_schedule()), for series patch 19's run lock:
 *
 *   rtpi [-d SECONDS] [-l LOOPS]
 *
 * Two holder threads on CPU 1 take a PI mutex each and keep it. On CPU 0, a
 * SCHED_FIFO 10 thread tries the first with a 5 ms timeout in a loop, a SCHED_FIFO
 * 20 thread sleeps 1 ms and tries the second with a 1 ms timeout in a loop: each
 * try blocks in the kernel's PI futex slow path and runs the program, which spins
 * LOOPS bpf_loop iterations (default 10000); the second thread preempts the first
 * inside its run now and then. Its run then finds the program busy on CPU 0 while
 * its own waiter is queued: with patch 19 it must not wait for the run lock (it
 * would block on a second rtmutex and overwrite current->pi_blocked_on) and is
 * skipped; waiting, it would not be counted as missed.
 *
 * Prints "rtpi runs R blocked B misses M tries1 T tries2 T" (blocked: runs that saw
 * pi_blocked_on set; misses: the program's recursion_misses). Exit 1 on a setup
 * error or a try that did not time out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "rtpi.skel.h"
#include "wl-util.h"

static pthread_mutex_t pm[2];
static pthread_barrier_t held;
static volatile int stop, hstop, bad;
static long tries[2];

static void *holder(void *arg)
{
	int i = (int)(long)arg;

	wl_pin_cpu(1);
	pthread_mutex_lock(&pm[i]);
	pthread_barrier_wait(&held);
	while (!hstop)	/* until the waiters are done: none may get it */
		usleep(10000);
	pthread_mutex_unlock(&pm[i]);
	return NULL;
}

static void *waiter(void *arg)
{
	int i = (int)(long)arg, err;
	struct sched_param sp = { .sched_priority = i ? 20 : 10 };
	long timeout_ns = i ? 1000000 : 5000000;
	struct timespec ts;

	wl_pin_cpu(0);
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)) {
		fprintf(stderr, "rtpi: SCHED_FIFO: %s\n", strerror(errno));
		bad = 1;
		return NULL;
	}
	while (!stop) {
		if (i)
			usleep(1000);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += timeout_ns;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		err = pthread_mutex_timedlock(&pm[i], &ts);
		if (err != ETIMEDOUT) {
			fprintf(stderr, "rtpi: try %d: %s\n", i, strerror(err));
			bad = 1;
			if (!err)
				pthread_mutex_unlock(&pm[i]);
			break;
		}
		tries[i]++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t h[2], w[2];
	pthread_mutexattr_t ma;
	struct rtpi_bpf *skel;
	int c, i, secs = 3, loops = 10000;
	long long misses;

	while ((c = getopt(argc, argv, "d:l:h")) != -1) {
		switch (c) {
		case 'd': secs = atoi(optarg); break;
		case 'l': loops = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: rtpi [-d SECONDS] [-l LOOPS]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (secs < 1 || loops < 1) {
		fprintf(stderr, "rtpi: -d and -l want positive numbers\n");
		return 2;
	}
	skel = rtpi_bpf__open();
	if (!skel) {
		fprintf(stderr, "rtpi: cannot open the BPF skeleton\n");
		return 1;
	}
	skel->rodata->tgid = getpid();
	skel->rodata->loops = loops;
	if (rtpi_bpf__load(skel) || rtpi_bpf__attach(skel)) {
		fprintf(stderr, "rtpi: cannot load/attach fentry/rt_mutex_schedule: %s\n",
			strerror(errno));
		return 1;
	}
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_barrier_init(&held, NULL, 3);
	for (i = 0; i < 2; i++) {
		pthread_mutex_init(&pm[i], &ma);
		pthread_create(&h[i], NULL, holder, (void *)(long)i);
	}
	pthread_barrier_wait(&held);
	for (i = 0; i < 2; i++)
		pthread_create(&w[i], NULL, waiter, (void *)(long)i);
	sleep(secs);
	stop = 1;
	for (i = 0; i < 2; i++)
		pthread_join(w[i], NULL);
	hstop = 1;
	for (i = 0; i < 2; i++)
		pthread_join(h[i], NULL);
	misses = wl_prog_misses(bpf_program__fd(skel->progs.on_block));
	printf("rtpi runs %llu blocked %llu misses %lld tries1 %ld tries2 %ld\n",
	       (unsigned long long)skel->bss->runs, (unsigned long long)skel->bss->runs_blocked,
	       misses, tries[0], tries[1]);
	rtpi_bpf__destroy(skel);
	return bad ? 1 : 0;
}
