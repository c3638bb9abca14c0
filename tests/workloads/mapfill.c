// SPDX-License-Identifier: GPL-2.0
/*
 * mapfill: fill fresh hash maps from user space, one update at a time and with
 * BPF_MAP_UPDATE_BATCH, and count the updates that failed (by errno). With
 * BPF_F_NO_PREALLOC an update takes its element from the bpf_mem_alloc per-CPU cache;
 * on kernels without the bpfmem series a burst of updates empties it faster than it is
 * refilled and some fail with ENOMEM.
 *
 *   mapfill [-n ENTRIES] [-b BATCH] [-t hash|percpu|lru] [-m MAX_ENTRIES] [-P] [-F]
 *
 * -t lru: an LRU hash map (with BPF_F_NO_PREALLOC: the series' lazy LRU), created
 * with room to spare (2 x ENTRIES + 128 per CPU unless -m says otherwise) so that
 * nothing is evicted: every key reported written must read back.
 * -m below ENTRIES (hash and percpu): the updates past max_entries fail with E2BIG,
 * counted in failures.
 * -P: preallocated maps (the baseline; with kernel.bpf_force_dyn_alloc=1 a hash
 * map is forced to bpf_mem_alloc, which "forced" reports). -F: once a map exists, this task asks for
 * injected allocation failures (/proc/self/make-it-fail; failslab/fail_page_alloc
 * with task-filter, tests/guest/faults.sh) until its updates are done.
 * Prints, per method:
 *   "mapfill TYPE METHOD entries N ok N failures N enomem N elements N bad N secs S
 *    forced F"
 * where elements is what a full iteration of the map finds afterwards, bad the
 * keys reported written that cannot be read back with their value, and forced the
 * map's fdinfo forced_dynamic (-1 on a kernel without the series).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "wl-util.h"

struct val {
	__u64 v[8];
};

/* The file is opened once, before any failure is asked for: with make-it-fail
 * set, opening it (struct file, path lookup) may itself fail. A write that
 * meets an injected failure is retried.
 */
static void make_it_fail(int on)
{
	static int fd = -1;
	int i;

	if (fd < 0)
		fd = open("/proc/self/make-it-fail", O_WRONLY);
	for (i = 0; fd >= 0 && i < 100; i++) {
		if (pwrite(fd, on ? "1" : "0", 1, 0) == 1)
			return;
		if (errno != ENOMEM && errno != EINTR)
			break;
	}
	perror("mapfill: /proc/self/make-it-fail");
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int c, entries = 100000, batch = 1000, max = 0, ncpus = libbpf_num_possible_cpus();
	enum bpf_map_type type = BPF_MAP_TYPE_HASH;
	const char *tname = "hash";
	bool prealloc = false, inject = false;
	unsigned char *written;
	size_t vsize;
	__u32 *keys;
	void *vals;
	int m;

	while ((c = getopt(argc, argv, "n:b:t:m:PFh")) != -1) {
		switch (c) {
		case 'n': entries = atoi(optarg); break;
		case 'b': batch = atoi(optarg); break;
		case 't':
			tname = optarg;
			if (!strcmp(optarg, "percpu"))
				type = BPF_MAP_TYPE_PERCPU_HASH;
			else if (!strcmp(optarg, "lru"))
				type = BPF_MAP_TYPE_LRU_HASH;
			else if (strcmp(optarg, "hash"))
				entries = -1;
			break;
		case 'm': max = atoi(optarg); if (max < 1) max = -1; break;
		case 'P': prealloc = true; break;
		case 'F': inject = true; break;
		default:
			fprintf(stderr, "usage: mapfill [-n ENTRIES] [-b BATCH] [-t hash|percpu|lru] "
				"[-m MAX_ENTRIES] [-P] [-F]\n");
			return 2;
		}
	}
	if (!max)
		max = type == BPF_MAP_TYPE_LRU_HASH ? entries * 2 + 128 * ncpus : entries;
	/* a hash map smaller than ENTRIES fails the rest with E2BIG; an LRU map would evict */
	if (entries < 1 || batch < 1 || ncpus < 1 || max < 1 ||
	    (max < entries && type == BPF_MAP_TYPE_LRU_HASH)) {
		fprintf(stderr, "mapfill: bad arguments\n");
		return 2;
	}
	vsize = sizeof(struct val) * (type == BPF_MAP_TYPE_PERCPU_HASH ? ncpus : 1);
	keys = calloc(entries, sizeof(*keys));
	vals = calloc(entries, vsize);
	written = calloc(entries, 1);
	if (!keys || !vals || !written) {
		fprintf(stderr, "mapfill: out of memory\n");
		return 1;
	}
	for (c = 0; c < entries; c++) {
		keys[c] = c * 2654435761u;
		*(__u32 *)(vals + (size_t)c * vsize) = keys[c] ^ 0x5a5a5a5a;
	}

	for (m = 0; m < 2; m++) {
		LIBBPF_OPTS(bpf_map_create_opts, mopts,
			    .map_flags = prealloc ? 0 : BPF_F_NO_PREALLOC);
		long ok = 0, fail = 0, enomem = 0, bad = 0;
		void *v = malloc(vsize);
		double t0;
		int fd, i;

		fd = bpf_map_create(type, "mapfill", sizeof(__u32), sizeof(struct val), max,
				    &mopts);
		if (fd < 0) {
			fprintf(stderr, "mapfill: cannot create map: %s\n", strerror(errno));
			return 1;
		}
		if (!v) {
			fprintf(stderr, "mapfill: out of memory\n");
			return 1;
		}
		memset(written, 0, entries);
		if (inject)
			make_it_fail(1);
		t0 = now();
		if (m == 0) {
			for (i = 0; i < entries; i++) {
				if (!bpf_map_update_elem(fd, &keys[i], vals + (size_t)i * vsize,
							 BPF_NOEXIST)) {
					ok++;
					written[i] = 1;
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
					memset(written + i, 1, n);
					ok += n;
					i += n;
					continue;
				}
				/* n: how many went in before the failing one; skip that one */
				memset(written + i, 1, n);
				ok += n;
				fail++;
				enomem += errno == ENOMEM;
				i += n + 1;
			}
		}
		t0 = now() - t0;
		if (inject)
			make_it_fail(0);
		for (i = 0; i < entries; i++) {
			if (!written[i])
				continue;
			if (bpf_map_lookup_elem(fd, &keys[i], v) ||
			    *(__u32 *)v != (keys[i] ^ 0x5a5a5a5a))
				bad++;
		}
		printf("mapfill %s%s %s entries %d ok %ld failures %ld enomem %ld elements %ld "
		       "bad %ld secs %.2f forced %lld\n", tname, prealloc ? "-prealloc" : "",
		       m ? "batch" : "single", entries, ok, fail, enomem, wl_count_keys(fd), bad, t0,
		       wl_fdinfo(fd, "forced_dynamic"));
		fflush(stdout);
		free(v);
		close(fd);
	}
	return 0;
}
