// SPDX-License-Identifier: GPL-2.0
/*
 * mapfill: fill fresh hash maps from user space, one update at a time and with
 * BPF_MAP_UPDATE_BATCH, and count the updates that failed (by errno). With
 * BPF_F_NO_PREALLOC an update takes its element from the bpf_mem_alloc per-CPU cache;
 * on kernels without the bpfmem series a burst of updates empties it faster than it is
 * refilled and some fail with ENOMEM.
 *
 *   mapfill [-n ENTRIES] [-b BATCH] [-t hash|percpu] [-P]
 *
 * -P: preallocated maps (the baseline). Prints, per method:
 *   "mapfill TYPE METHOD entries N ok N failures N enomem N elements N secs S"
 * where elements is what a full iteration of the map finds afterwards.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#define WL_BPF_ITER
#include "wl-util.h"

struct val {
	__u64 v[8];
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int c, entries = 100000, batch = 1000, ncpus = libbpf_num_possible_cpus();
	enum bpf_map_type type = BPF_MAP_TYPE_HASH;
	const char *tname = "hash";
	bool prealloc = false;
	size_t vsize;
	__u32 *keys;
	void *vals;
	int m;

	while ((c = getopt(argc, argv, "n:b:t:Ph")) != -1) {
		switch (c) {
		case 'n': entries = atoi(optarg); break;
		case 'b': batch = atoi(optarg); break;
		case 't':
			tname = optarg;
			if (!strcmp(optarg, "percpu"))
				type = BPF_MAP_TYPE_PERCPU_HASH;
			else if (strcmp(optarg, "hash"))
				entries = -1;
			break;
		case 'P': prealloc = true; break;
		default:
			fprintf(stderr, "usage: mapfill [-n ENTRIES] [-b BATCH] [-t hash|percpu] [-P]\n");
			return 2;
		}
	}
	if (entries < 1 || batch < 1 || ncpus < 1) {
		fprintf(stderr, "mapfill: bad arguments\n");
		return 2;
	}
	vsize = sizeof(struct val) * (type == BPF_MAP_TYPE_PERCPU_HASH ? ncpus : 1);
	keys = calloc(entries, sizeof(*keys));
	vals = calloc(entries, vsize);
	if (!keys || !vals) {
		fprintf(stderr, "mapfill: out of memory\n");
		return 1;
	}
	for (c = 0; c < entries; c++)
		keys[c] = c * 2654435761u;

	for (m = 0; m < 2; m++) {
		LIBBPF_OPTS(bpf_map_create_opts, mopts,
			    .map_flags = prealloc ? 0 : BPF_F_NO_PREALLOC);
		long ok = 0, fail = 0, enomem = 0;
		double t0;
		int fd, i;

		fd = bpf_map_create(type, "mapfill", sizeof(__u32), sizeof(struct val), entries,
				    &mopts);
		if (fd < 0) {
			fprintf(stderr, "mapfill: cannot create map: %s\n", strerror(errno));
			return 1;
		}
		t0 = now();
		if (m == 0) {
			for (i = 0; i < entries; i++) {
				if (!bpf_map_update_elem(fd, &keys[i], vals + (size_t)i * vsize,
							 BPF_NOEXIST)) {
					ok++;
					continue;
				}
				fail++;
				enomem += errno == ENOMEM;
			}
		} else {
			for (i = 0; i < entries; ) {
				LIBBPF_OPTS(bpf_map_batch_opts, bopts);
				__u32 n = entries - i < batch ? entries - i : batch;

				if (!bpf_map_update_batch(fd, &keys[i], vals + (size_t)i * vsize,
							  &n, &bopts)) {
					ok += n;
					i += n;
					continue;
				}
				/* n: how many went in before the failing one; skip that one */
				ok += n;
				fail++;
				enomem += errno == ENOMEM;
				i += n + 1;
			}
		}
		printf("mapfill %s%s %s entries %d ok %ld failures %ld enomem %ld elements %ld "
		       "secs %.2f\n", tname, prealloc ? "-prealloc" : "", m ? "batch" : "single",
		       entries, ok, fail, enomem, wl_count_keys(fd), now() - t0);
		close(fd);
	}
	return 0;
}
