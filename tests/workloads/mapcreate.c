// SPDX-License-Identifier: GPL-2.0
/*
 * mapcreate: BPF_MAP_CREATE latency while the bpf_mem_alloc registry is walked
 * (series patch 5's debugfs listing, patch 8's shrinker), for issue 39 finding 6:
 *
 *   mapcreate [-n MAPS] [-r]
 *
 * Creates MAPS (default 10000) BPF_F_NO_PREALLOC hash maps of 16 entries, one at a
 * time, holding them all, and times each BPF_MAP_CREATE. With -r a child reads
 * /sys/kernel/debug/bpf/mem_alloc (a walk over every allocator, cpu and cache) in a
 * loop meanwhile. Prints
 *   "mapcreate maps N reader 0|1 reads R p50_us A p99_us B max_us C total_ms T"
 * Exit 1 on a failed create or a missing listing with -r.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "wl-util.h"

#define LISTING "/sys/kernel/debug/bpf/mem_alloc"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int create_map(void)
{
	union bpf_attr attr = {
		.map_type = BPF_MAP_TYPE_HASH,
		.key_size = 4,
		.value_size = 8,
		.max_entries = 16,
		.map_flags = BPF_F_NO_PREALLOC,
	};

	return wl_sys_bpf(BPF_MAP_CREATE, &attr);
}

int main(int argc, char **argv)
{
	int c, i, n = 10000, reader = 0, fd;
	volatile long *reads;
	struct rlimit rl;
	double *lat, t0, total;
	char buf[65536];
	pid_t pid = -1;

	while ((c = getopt(argc, argv, "n:rh")) != -1) {
		switch (c) {
		case 'n': n = atoi(optarg); break;
		case 'r': reader = 1; break;
		default:
			fprintf(stderr, "usage: mapcreate [-n MAPS] [-r]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (n < 1) {
		fprintf(stderr, "mapcreate: -n wants a positive number\n");
		return 2;
	}
	/* one fd per map: raise the limit, the hard one too (root) */
	rl.rlim_cur = rl.rlim_max = n + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl) && !getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	lat = calloc(n, sizeof(*lat));
	reads = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!lat || reads == MAP_FAILED) {
		fprintf(stderr, "mapcreate: out of memory\n");
		return 1;
	}
	*reads = 0;
	if (reader) {
		if (access(LISTING, R_OK)) {
			fprintf(stderr, "mapcreate: no %s (kernel without the series or no debugfs)\n",
				LISTING);
			return 1;
		}
		pid = fork();
		if (pid < 0) {
			perror("mapcreate: fork");
			return 1;
		}
		if (!pid) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;) {
				int lfd = open(LISTING, O_RDONLY);

				if (lfd < 0)
					_exit(1);
				while (read(lfd, buf, sizeof(buf)) > 0)
					;
				close(lfd);
				(*reads)++;
			}
		}
		while (!*reads)
			usleep(1000);
	}
	t0 = bpfmem_mono_s();
	for (i = 0; i < n; i++) {
		double t = bpfmem_mono_s();

		fd = create_map();
		lat[i] = bpfmem_mono_s() - t;
		if (fd < 0) {
			fprintf(stderr, "mapcreate: map %d: %s\n", i, strerror(errno));
			if (pid > 0)
				kill(pid, SIGKILL);
			return 1;
		}
	}
	total = bpfmem_mono_s() - t0;
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	qsort(lat, n, sizeof(*lat), cmp_double);
	printf("mapcreate maps %d reader %d reads %ld p50_us %.0f p99_us %.0f max_us %.0f total_ms %.0f\n",
	       n, reader, *reads, lat[n / 2] * 1e6, lat[(n * 99) / 100] * 1e6,
	       lat[n - 1] * 1e6, total * 1e3);
	return 0;
}
