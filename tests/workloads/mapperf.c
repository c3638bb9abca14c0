// SPDX-License-Identifier: GPL-2.0
/*
 * mapperf: hash map update+lookup+delete throughput, preallocated vs
 * BPF_F_NO_PREALLOC, one thread per CPU driving bpf/mapperf.bpf.c with
 * BPF_PROG_TEST_RUN on that CPU (like samples/bpf/map_perf_test's HASH_PREALLOC /
 * HASH_KMALLOC cases, without a syscall per operation).
 *
 *   mapperf [-s SECONDS] [-n ITERS_PER_RUN] [-c CPUS] [-w] [-m prealloc|dynamic]
 *
 * Prints one line per mode: "mapperf MODE cpus N iters I secs S ops_per_s X failures F"
 * where one op is one update+lookup+delete. -w (overwrite): one op is an update that
 * replaces one of 64 resident keys per CPU and a lookup that checks the new value;
 * the lines start with "mapperf-overwrite" and end with "enomem N elements E": updates
 * that failed with ENOMEM (not in F) and the map's fdinfo element count afterwards
 * (64 x CPUS when no replacement lost or leaked one). -m: that mode only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "mapperf.skel.h"
#include "wl-util.h"

static volatile int stop;
static int prog_fd;
static unsigned int iters = 100000;

struct worker {
	pthread_t th;
	int cpu;
	unsigned long long runs;
	int err;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = w->cpu);

	/* On its own CPU the program runs in task context; from another one it runs
	 * in the IPI with irqs off, where the allocator's refill irq_work cannot run
	 * until it returns: a dynamic map's updates would fail with ENOMEM once the
	 * per-CPU cache is empty, a cost of the harness, not of the map.
	 */
	if (wl_pin_cpu(w->cpu)) {
		w->err = errno;
		return NULL;
	}
	while (!stop) {
		if (bpf_prog_test_run_opts(prog_fd, &opts)) {
			w->err = errno;
			break;
		}
		w->runs++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = 3, t0, t1;
	int cpus = sysconf(_SC_NPROCESSORS_ONLN), c, i, m;
	struct mapperf_bpf *skel;
	bool overwrite = false;
	int only = -1;	/* -m: 0 prealloc, 1 dynamic */
	struct worker *ws;

	while ((c = getopt(argc, argv, "s:n:c:wm:h")) != -1) {
		switch (c) {
		case 's': secs = atof(optarg); break;
		case 'n': iters = strtoul(optarg, NULL, 0); break;
		case 'c': cpus = atoi(optarg); break;
		case 'w': overwrite = true; break;
		case 'm':
			only = !strcmp(optarg, "dynamic") ? 1 : !strcmp(optarg, "prealloc") ? 0 : -2;
			break;
		default:
			fprintf(stderr, "usage: mapperf [-s SECONDS] [-n ITERS_PER_RUN] [-c CPUS] [-w] "
				"[-m prealloc|dynamic]\n");
			return 2;
		}
	}
	if (secs <= 0 || !iters || cpus < 1 || only == -2) {
		fprintf(stderr, "mapperf: bad arguments\n");
		return 2;
	}
	skel = mapperf_bpf__open();
	if (!skel)
		return 1;
	skel->rodata->iters = iters;
	skel->rodata->overwrite = overwrite;
	if (mapperf_bpf__load(skel)) {
		fprintf(stderr, "mapperf: cannot load BPF programs\n");
		return 1;
	}
	ws = calloc(cpus, sizeof(*ws));
	for (m = 0; m < 2; m++) {
		const char *mode = m ? "dynamic" : "prealloc";
		unsigned long long runs = 0;

		if (only >= 0 && m != only)
			continue;
		prog_fd = bpf_program__fd(m ? skel->progs.run_dynamic : skel->progs.run_prealloc);
		skel->bss->failures = 0;
		skel->bss->enomem = 0;
		stop = 0;
		t0 = now();
		for (i = 0; i < cpus; i++) {
			ws[i] = (struct worker){ .cpu = i };
			pthread_create(&ws[i].th, NULL, work, &ws[i]);
		}
		usleep(secs * 1e6);
		stop = 1;
		for (i = 0; i < cpus; i++) {
			pthread_join(ws[i].th, NULL);
			if (ws[i].err) {
				fprintf(stderr, "mapperf: test run on cpu %d: %s\n", i, strerror(ws[i].err));
				return 1;
			}
			runs += ws[i].runs;
		}
		t1 = now();
		printf("mapperf%s %s cpus %d iters %llu secs %.2f ops_per_s %.0f failures %llu",
		       overwrite ? "-overwrite" : "", mode, cpus, runs * iters, t1 - t0,
		       runs * iters / (t1 - t0), (unsigned long long)skel->bss->failures);
		if (overwrite)
			printf(" enomem %llu elements %lld", (unsigned long long)skel->bss->enomem,
			       wl_fdinfo(bpf_map__fd(m ? skel->maps.dynamic : skel->maps.prealloc),
					 "elements"));
		printf("\n");
	}
	mapperf_bpf__destroy(skel);
	free(ws);
	return 0;
}
