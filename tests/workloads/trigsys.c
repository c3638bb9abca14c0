// SPDX-License-Identifier: GPL-2.0
/*
 * trigsys: the cost of a tracing program's run in task context (tests/bpf/trigsys.bpf.c
 * on __x64_sys_getpgid), for issue 30's finding 5 (patch 19's run lock):
 *
 *   trigsys [-d SECONDS] [-r ROUNDS] [-t THREADS]
 *
 * The programs are loaded once; each round attaches them one at a time and measures, in
 * turn, getpgid() calls per second with no program (none), an
 * fentry program that qualifies for a non-preemptible run on the series and asks for it
 * (count, BPF_F_RT_NONPREEMPT where kernel.bpf_rt_nonpreempt exists), one
 * that does not and takes the run lock (lock), and a kprobe (kprobe), each for SECONDS
 * (default 2) on THREADS threads (default 1) pinned to CPU 0 (two threads share the CPU
 * and preempt each other: a run can find the lock held). Prints a line per case,
 * "trigsys ROUND MODE calls_per_s R calls C hits H misses M", then per mode
 * "trigsys-median MODE calls_per_s R ns_per_call N overhead_ns O" (O: against none).
 * Exit 1 when a program's hits plus misses differ from the calls (a run lost).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "trigsys.skel.h"
#include "wl-util.h"

#define MODES 4
static const char *const modes[MODES] = { "none", "count", "lock", "kprobe" };
static volatile int stop;

struct worker {
	pthread_t th;
	long calls;
};

static void *work(void *arg)
{
	struct worker *w = arg;

	wl_pin_cpu(0);
	while (!stop) {
		syscall(SYS_getpgid, 0);
		w->calls++;
	}
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct bpf_program *progs[MODES] = {};
	struct trigsys_bpf *skel;
	double secs = 2, rate[MODES][64];
	int c, rounds = 3, threads = 1, r, m, t, bad = 0;

	while ((c = getopt(argc, argv, "d:r:t:h")) != -1) {
		if (c == 'd')
			secs = atof(optarg);
		else if (c == 'r')
			rounds = atoi(optarg);
		else if (c == 't')
			threads = atoi(optarg);
		else {
			fprintf(stderr, "usage: trigsys [-d SECONDS] [-r ROUNDS] [-t THREADS]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (!(secs > 0) || rounds < 1 || rounds > 64 || threads < 1 || threads > 16) {
		fprintf(stderr, "trigsys: bad arguments\n");
		return 2;
	}
	skel = trigsys_bpf__open();
	if (!skel) {
		fprintf(stderr, "trigsys: cannot open the programs: %s\n", strerror(errno));
		return 1;
	}
	/* count runs non-preemptible on the series' PREEMPT_RT: it asks (patch 20) */
	if (wl_rt_nonpreempt(skel->obj) < 0 || trigsys_bpf__load(skel)) {
		fprintf(stderr, "trigsys: cannot load the programs: %s\n", strerror(errno));
		trigsys_bpf__destroy(skel);
		return 1;
	}
	progs[1] = skel->progs.count;
	progs[2] = skel->progs.lock;
	progs[3] = skel->progs.kprobe;
	for (r = 0; r < rounds; r++) {
		for (m = 0; m < MODES; m++) {
			struct bpf_link *link = NULL;
			struct worker w[16] = {};
			long long misses = 0;
			long calls = 0;
			double t0, t1;
			__u64 hits;

			if (m) {
				link = bpf_program__attach(progs[m]);
				if (!link) {
					fprintf(stderr, "trigsys: cannot attach %s: %s\n", modes[m],
						strerror(errno));
					trigsys_bpf__destroy(skel);
					return 1;
				}
				misses = -wl_prog_misses(bpf_program__fd(progs[m]));
			}
			skel->bss->hits = 0;
			stop = 0;
			t0 = now();
			for (t = 0; t < threads; t++)
				pthread_create(&w[t].th, NULL, work, &w[t]);
			usleep(secs * 1e6);
			stop = 1;
			for (t = 0; t < threads; t++) {
				pthread_join(w[t].th, NULL);
				calls += w[t].calls;
			}
			t1 = now();
			hits = skel->bss->hits;
			bpf_link__destroy(link);
			rate[m][r] = calls / (t1 - t0);
			if (m) {
				misses += wl_prog_misses(bpf_program__fd(progs[m]));
				if ((long long)hits + misses < calls || hits > (__u64)calls + 1000) {
					fprintf(stderr, "trigsys: %s: %llu hits + %lld misses for %ld calls\n",
						modes[m], (unsigned long long)hits, misses, calls);
					bad = 1;
				}
			}
			printf("trigsys %d %s calls_per_s %.0f calls %ld hits %llu misses %lld\n", r,
			       modes[m], rate[m][r], calls, (unsigned long long)hits, misses);
			fflush(stdout);
		}
	}
	trigsys_bpf__destroy(skel);
	{
		double base = 0;

		for (m = 0; m < MODES; m++) {
			double med;

			qsort(rate[m], rounds, sizeof(double), cmp_double);
			med = rounds % 2 ? rate[m][rounds / 2] :
			      (rate[m][rounds / 2 - 1] + rate[m][rounds / 2]) / 2;
			if (!m)
				base = 1e9 / med;
			printf("trigsys-median %s calls_per_s %.0f ns_per_call %.0f overhead_ns %.0f\n",
			       modes[m], med, 1e9 / med, 1e9 / med - base);
		}
	}
	return bad;
}
