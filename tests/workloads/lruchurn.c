// SPDX-License-Identifier: GPL-2.0
/*
 * lruchurn: an LRU hash map with BPF_F_NO_PREALLOC (lazy nodes, series patch 11) under
 * concurrent updates and deletes from every online CPU, so that CPUs take free
 * credits from the global list, hand them back and steal them from each other.
 *
 *   lruchurn [-e MAX_ENTRIES] [-s SECONDS] [-N]
 *
 * -N: BPF_F_NO_COMMON_LRU (per-CPU LRU lists). Phases, one line each:
 *   churn:  one thread per online CPU, pinned, random keys in [0, 4 * MAX): update
 *           (60%), delete (30%), lookup; a sampler reads fdinfo lru_nodes meanwhile:
 *           ops, failed updates (by errno), max_lru_nodes seen, samples
 *   empty:  every key deleted: elements, keys an iteration finds, lru_nodes
 *   refill: each thread inserts its share of MAX distinct keys: failed, elements,
 *           keys, lru_nodes
 *   "lruchurn MODE PHASE key value ..." (MODE common or percpu)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "wl-util.h"

#ifndef BPF_F_NO_COMMON_LRU
#define BPF_F_NO_COMMON_LRU (1U << 1)
#endif

static int map_fd, max_entries, ncpu;
static volatile int stop;
static volatile long max_nodes, samples;

struct worker {
	pthread_t t;
	int cpu;
	unsigned int seed;
	long ops, enomem, other;
	int phase;	/* 0 churn, 1 refill */
};

static void *work(void *arg)
{
	struct worker *w = arg;
	__u64 val;
	__u32 key;
	int r, i;

	wl_pin_cpu(w->cpu);
	if (w->phase == 1) {	/* refill: keys cpu, cpu + ncpu, ... below MAX */
		for (i = w->cpu; i < max_entries; i += ncpu) {
			key = i;
			val = i;
			if (bpf_map_update_elem(map_fd, &key, &val, BPF_NOEXIST)) {
				if (errno == ENOMEM)
					w->enomem++;
				else
					w->other++;
			}
			w->ops++;
		}
		return NULL;
	}
	while (!stop) {
		key = rand_r(&w->seed) % (4u * max_entries);
		r = rand_r(&w->seed) % 10;
		val = key;
		if (r < 6) {
			if (bpf_map_update_elem(map_fd, &key, &val, BPF_ANY)) {
				if (errno == ENOMEM)
					w->enomem++;
				else
					w->other++;
			}
		} else if (r < 9) {
			bpf_map_delete_elem(map_fd, &key);	/* ENOENT is fine */
		} else {
			bpf_map_lookup_elem(map_fd, &key, &val);
		}
		w->ops++;
	}
	return NULL;
}

static void *sampler(void *arg)
{
	struct timespec ts = { 0, 5 * 1000 * 1000 };
	long long n;

	while (!stop) {
		n = wl_fdinfo(map_fd, "lru_nodes");
		if (n > max_nodes)
			max_nodes = n;
		samples++;
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static int run_threads(struct worker *w, int phase)
{
	int i;

	for (i = 0; i < ncpu; i++) {
		w[i].phase = phase;
		w[i].ops = w[i].enomem = w[i].other = 0;
		if (pthread_create(&w[i].t, NULL, work, &w[i])) {
			fprintf(stderr, "lruchurn: pthread_create failed\n");
			stop = 1;
			while (--i >= 0)
				pthread_join(w[i].t, NULL);
			return -1;
		}
	}
	return 0;
}

static void join_threads(struct worker *w, long *ops, long *enomem, long *other)
{
	int i;

	*ops = *enomem = *other = 0;
	for (i = 0; i < ncpu; i++) {
		pthread_join(w[i].t, NULL);
		*ops += w[i].ops;
		*enomem += w[i].enomem;
		*other += w[i].other;
	}
}

static void delete_all(void)
{
	__u32 key, next;

	while (!bpf_map_get_next_key(map_fd, NULL, &next)) {
		key = next;
		if (bpf_map_delete_elem(map_fd, &key))
			break;
	}
}

int main(int argc, char **argv)
{
	int c, secs = 5, flags = BPF_F_NO_PREALLOC, i;
	long ops, enomem, other;
	const char *mode = "common";
	struct worker *w;
	pthread_t st;

	max_entries = 4096;
	while ((c = getopt(argc, argv, "e:s:Nh")) != -1) {
		switch (c) {
		case 'e': max_entries = atoi(optarg); break;
		case 's': secs = atoi(optarg); break;
		case 'N': flags |= BPF_F_NO_COMMON_LRU; mode = "percpu"; break;
		default:
			fprintf(stderr, "usage: lruchurn [-e MAX_ENTRIES] [-s SECONDS] [-N]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (max_entries < 1 || secs < 1 || ncpu < 1) {
		fprintf(stderr, "lruchurn: bad arguments\n");
		return 2;
	}
	{
		LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = flags);

		map_fd = bpf_map_create(BPF_MAP_TYPE_LRU_HASH, "lruchurn", sizeof(__u32),
					sizeof(__u64), max_entries, &o);
	}
	if (map_fd < 0) {
		fprintf(stderr, "lruchurn: cannot create a %s LRU map with BPF_F_NO_PREALLOC: %s\n",
			mode, strerror(errno));
		return 1;
	}
	w = calloc(ncpu, sizeof(*w));
	if (!w)
		return 1;
	for (i = 0; i < ncpu; i++) {
		w[i].cpu = i;
		w[i].seed = 0x1234 + i;
	}

	if (pthread_create(&st, NULL, sampler, NULL) || run_threads(w, 0)) {
		fprintf(stderr, "lruchurn: cannot start threads\n");
		return 1;
	}
	sleep(secs);
	stop = 1;
	join_threads(w, &ops, &enomem, &other);
	pthread_join(st, NULL);
	if (wl_fdinfo(map_fd, "lru_nodes") > max_nodes)
		max_nodes = wl_fdinfo(map_fd, "lru_nodes");
	printf("lruchurn %s churn cpus %d max_entries %d ops %ld enomem %ld other %ld "
	       "max_lru_nodes %ld samples %ld elements %lld\n", mode, ncpu, max_entries, ops,
	       enomem, other, max_nodes, samples, wl_fdinfo(map_fd, "elements"));

	delete_all();
	printf("lruchurn %s empty elements %lld keys %ld lru_nodes %lld\n", mode,
	       wl_fdinfo(map_fd, "elements"), wl_count_keys(map_fd),
	       wl_fdinfo(map_fd, "lru_nodes"));

	stop = 0;
	if (run_threads(w, 1))
		return 1;
	join_threads(w, &ops, &enomem, &other);
	printf("lruchurn %s refill inserted %ld enomem %ld other %ld elements %lld keys %ld "
	       "lru_nodes %lld\n", mode, ops, enomem, other, wl_fdinfo(map_fd, "elements"),
	       wl_count_keys(map_fd), wl_fdinfo(map_fd, "lru_nodes"));
	close(map_fd);
	return 0;
}
