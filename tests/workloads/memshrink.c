// SPDX-License-Identifier: GPL-2.0
/*
 * memshrink: fill the bpf_mem_alloc caches of many BPF_F_NO_PREALLOC hash maps from
 * BPF on every CPU (bpf/memshrink.bpf.c), apply memory pressure, and report what the
 * bpf_mem_alloc shrinker gave back: per-CPU cached objects against the low watermark
 * (debugfs bpf/mem_alloc), the memory cgroup's memory.current and kernel memory
 * (memory.stat "kernel"), and the churn speed before and after.
 *
 *   memshrink [-m NMAPS] [-n NKEYS] [-r ROUNDS] [-p drop|reclaim|none|orphan]
 *             [-t TIMEOUT] [-w FILE] [-o CGROUP]
 *
 * -w FILE (with -p none): after the "before" line, wait until FILE exists (up to
 * 600 s) instead of for the caches, then report: the control of a run in
 * another cgroup that applies the pressure meanwhile.
 * -p orphan -o CGROUP: after the "before" line, move to CGROUP (a sibling), remove
 * our own cgroup (the maps live on, charged to its parent from then on) and write
 * the parent's memory.reclaim: the caches of a removed memcg's maps must still be
 * trimmed (memory.current is then the parent's).
 *
 * Run it in the memory cgroup to be measured. Output: "key value..." lines, see main().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "memshrink.skel.h"
#include "wl-util.h"

#define MAX_MAPS 1024
#define MAX_CPUS 64
#define DEBUGFS "/sys/kernel/debug/bpf/mem_alloc"

static unsigned int map_ids[MAX_MAPS];
static int nmaps = 128;

struct state {
	long long cached_objs, cached_bytes, excess, pending_bytes, shrunk;
	long long max_over_low;		/* max over caches of free_cnt - low_wm */
	int caches;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool ours(unsigned int id)
{
	int i;

	for (i = 0; i < nmaps; i++)
		if (map_ids[i] == id)
			return true;
	return false;
}

static const char *field(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	return p ? p + strlen(pat) : NULL;
}

static long long num(const char *line, const char *key)
{
	const char *p = field(line, key);

	return p ? strtoll(p, NULL, 10) : -1;
}

static int read_state(struct state *st)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	memset(st, 0, sizeof(*st));
	st->max_over_low = -1000000;
	f = fopen(DEBUGFS, "r");
	if (!f) {
		fprintf(stderr, "memshrink: %s: %s\n", DEBUGFS, strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		long long low = num(line, "low_wm"), obj = num(line, "obj_bytes");
		const char *p = field(line, "free_cnt");

		if (!ours(num(line, "map_id")) || !p || low < 0 || obj < 0)
			continue;
		/* free_cnt=CPU:N,CPU:N,... */
		while (*p && *p != ' ' && *p != '\n') {
			long long n;

			p = strchr(p, ':');
			if (!p)
				break;
			n = strtoll(p + 1, (char **)&p, 10);
			st->caches++;
			st->cached_objs += n;
			st->cached_bytes += n * obj;
			if (n > low)
				st->excess += n - low;
			if (n - low > st->max_over_low)
				st->max_over_low = n - low;
			if (*p == ',')
				p++;
		}
		st->pending_bytes += num(line, "pending_bytes");
		st->shrunk += num(line, "shrunk_objs");
	}
	free(line);
	fclose(f);
	if (st->caches != nmaps * sysconf(_SC_NPROCESSORS_CONF)) {
		fprintf(stderr, "memshrink: found %d caches of our maps in %s\n", st->caches, DEBUGFS);
		return -1;
	}
	return 0;
}

static int prog_fd;

/*
 * One churn of all maps on every online CPU, @rounds times. Returns ops per second.
 * A CPU that is offline, or goes offline meanwhile (the soak test's hotplug), is
 * skipped.
 */
static double churn(struct memshrink_bpf *skel, int rounds)
{
	int cpus = sysconf(_SC_NPROCESSORS_CONF), cpu, r;
	__u64 ops0 = skel->bss->ops;
	double t0 = now();

	for (r = 0; r < rounds; r++) {
		for (cpu = 0; cpu < cpus; cpu++) {
			LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU,
				    .cpu = cpu);
			cpu_set_t set;

			/*
			 * On its own CPU the program runs in task context with interrupts
			 * enabled, like a tracing program, so the refill irq_work can run
			 * during a burst; on another CPU it would run in an IPI.
			 */
			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				continue;	/* offline */

			if (bpf_prog_test_run_opts(prog_fd, &opts)) {
				if (errno == ENXIO)
					continue;	/* went offline */
				fprintf(stderr, "memshrink: test run on cpu %d: %s\n", cpu,
					strerror(errno));
				return -1;
			}
		}
	}
	return (skel->bss->ops - ops0) / (now() - t0);
}

static void print_state(const char *tag, const struct state *st)
{
	printf("%s caches %d cached_objs %lld cached_bytes %lld excess_objs %lld "
	       "max_over_low %lld pending_bytes %lld shrunk_objs %lld\n", tag, st->caches,
	       st->cached_objs, st->cached_bytes, st->excess, st->max_over_low,
	       st->pending_bytes, st->shrunk);
}

int main(int argc, char **argv)
{
	long long cur0, cur1, kmem0, kmem1, trimmed;
	const char *pressure = "drop", *waitfile = NULL, *movedir = NULL;
	struct memshrink_bpf *skel;
	struct state before, after;
	int c, i, nkeys = 48, rounds = 5, timeout = 20, outer_fd, warm;
	unsigned long long fail0, fail1, fail2, ops_per_round;
	double speed0, speed1, t;

	while ((c = getopt(argc, argv, "m:n:r:p:t:w:o:h")) != -1) {
		switch (c) {
		case 'm': nmaps = atoi(optarg); break;
		case 'n': nkeys = atoi(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		case 'p': pressure = optarg; break;
		case 't': timeout = atoi(optarg); break;
		case 'w': waitfile = optarg; break;
		case 'o': movedir = optarg; break;
		default:
			fprintf(stderr, "usage: memshrink [-m NMAPS] [-n NKEYS] [-r ROUNDS] "
				"[-p drop|reclaim|none|orphan] [-t TIMEOUT] [-w FILE] [-o CGROUP]\n");
			return 2;
		}
	}
	if (nmaps < 1 || nmaps > MAX_MAPS || nkeys < 1 || nkeys > 4096 || rounds < 1 ||
	    (strcmp(pressure, "drop") && strcmp(pressure, "reclaim") && strcmp(pressure, "none") &&
	     strcmp(pressure, "orphan")) || !strcmp(pressure, "orphan") != !!movedir) {
		fprintf(stderr, "memshrink: bad arguments\n");
		return 2;
	}
	if (wl_find_cgroup()) {
		fprintf(stderr, "memshrink: cannot find my cgroup\n");
		return 1;
	}

	skel = memshrink_bpf__open();
	if (!skel)
		return 1;
	skel->rodata->nmaps = nmaps;
	skel->rodata->nkeys = nkeys;
	if (memshrink_bpf__load(skel)) {
		fprintf(stderr, "memshrink: cannot load BPF programs\n");
		return 1;
	}
	prog_fd = bpf_program__fd(skel->progs.churn);
	outer_fd = bpf_map__fd(skel->maps.outer);
	for (i = 0; i < nmaps; i++) {
		LIBBPF_OPTS(bpf_map_create_opts, mopts, .map_flags = BPF_F_NO_PREALLOC);
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);
		char name[24];
		int fd;

		snprintf(name, sizeof(name), "shrink%d", i);
		fd = bpf_map_create(BPF_MAP_TYPE_HASH, name, 4, 192, 4096, &mopts);
		if (fd < 0 || bpf_map_update_elem(outer_fd, &i, &fd, BPF_ANY) ||
		    bpf_obj_get_info_by_fd(fd, &info, &len)) {
			fprintf(stderr, "memshrink: map %d: %s\n", i, strerror(errno));
			return 1;
		}
		map_ids[i] = info.id;
		/* the outer map holds it */
		close(fd);
	}

	/* warm up, then measure */
	if (churn(skel, 1) < 0)
		return 1;
	ops_per_round = skel->bss->ops;
	skel->bss->failures = 0;
	speed0 = churn(skel, rounds);
	if (speed0 < 0)
		return 1;
	fail0 = skel->bss->failures;
	/* let the last trims and refills settle, and their grace periods end */
	t = now();
	do {
		usleep(100000);
		if (read_state(&before))
			return 1;
	} while (before.pending_bytes > 0 && now() - t < timeout);
	sleep(2);
	cur0 = wl_cg_read("memory.current", NULL);
	kmem0 = wl_cg_read("memory.stat", "kernel");
	print_state("before", &before);
	fflush(stdout);	/* -w: the run that applies the pressure waits for this line */

	if (!strcmp(pressure, "drop")) {
		int err = bpfmem_write_file("/proc/sys/vm/drop_caches", "2");

		if (err) {
			fprintf(stderr, "memshrink: drop_caches: %s\n", strerror(-err));
			return 1;
		}
	} else if (!strcmp(pressure, "reclaim") || !strcmp(pressure, "orphan")) {
		char path[sizeof(wl_cgdir) + 32], pid[24];
		int err;

		if (movedir) {
			snprintf(path, sizeof(path), "%s/cgroup.procs", movedir);
			snprintf(pid, sizeof(pid), "%d", getpid());
			err = bpfmem_write_file(path, pid);
			if (!err && rmdir(wl_cgdir))
				err = -errno;
			if (err) {
				fprintf(stderr, "memshrink: leaving %s: %s\n", wl_cgdir, strerror(-err));
				return 1;
			}
			*strrchr(wl_cgdir, '/') = '\0';
			/* rmdir returns before the memcg goes offline (after an RCU
			 * grace period, from a worker): reclaim meanwhile would still
			 * find it online, with its own shrinker bits
			 */
			sleep(2);
		}
		snprintf(path, sizeof(path), "%s/memory.reclaim", wl_cgdir);
		/* -EAGAIN: it reclaimed less than asked, which is expected here */
		err = bpfmem_write_file(path, "64M");
		if (err && err != -EAGAIN) {
			fprintf(stderr, "memshrink: %s: %s\n", path, strerror(-err));
			return 1;
		}
	}

	/* trims run in irq_work, the objects reach slab after a grace period */
	t = now();
	if (waitfile) {
		while (access(waitfile, F_OK) && now() - t < 600)
			usleep(100000);
		if (read_state(&after))
			return 1;
	} else {
		do {
			usleep(100000);
			if (read_state(&after))
				return 1;
		} while ((after.max_over_low > 0 || after.pending_bytes > 0) &&
			 now() - t < timeout);
	}
	printf("waited %.1f\n", now() - t);
	/* memcg statistics are flushed lazily: memory.stat may lag memory.current
	 * (exact) until a flush, every 2 s from a worker that a loaded guest can run
	 * late; give it up to 10 s more to show at least half of what the shrinker
	 * trimmed (the test then checks the fall itself)
	 */
	sleep(2);
	cur1 = wl_cg_read("memory.current", NULL);
	kmem1 = wl_cg_read("memory.stat", "kernel");
	trimmed = before.cached_bytes - after.cached_bytes;
	for (i = 0; i < 20 && trimmed > 0 && kmem0 - kmem1 < trimmed / 2; i++) {
		usleep(500000);
		kmem1 = wl_cg_read("memory.stat", "kernel");
	}
	printf("stat_wait %.1f\n", i * 0.5);
	print_state("after", &after);
	printf("memcg %s current_before %lld current_after %lld kmem_before %lld kmem_after %lld\n",
	       wl_cgdir, cur0, cur1, kmem0, kmem1);
	printf("trimmed_bytes %lld\n", trimmed);

	/*
	 * The first churns refill the caches from slab; then measure. A raw_tp
	 * test run keeps preemption disabled (get_cpu()), so on PREEMPT_RT,
	 * where the refill irq_work runs in a kthread, a cache is refilled only
	 * between runs: a burst larger than its default band fails in part
	 * until its band has widened again (patch "widen the band"). Churn until
	 * one round has no failure (at most 20 rounds) and report how many.
	 */
	fail1 = skel->bss->failures;
	for (warm = 0; warm < 20; warm++) {
		fail2 = skel->bss->failures;
		if (churn(skel, 1) < 0)
			return 1;
		if (skel->bss->failures == fail2)
			break;
	}
	fail2 = skel->bss->failures;
	speed1 = churn(skel, rounds);
	if (speed1 < 0)
		return 1;
	/* failures: updates that found the per-CPU cache empty (any-context path) */
	printf("speed before_ops_per_s %.0f after_ops_per_s %.0f ops_per_round %llu "
	       "failures_before %llu failures_refill %llu refill_rounds %d failures_after %llu\n",
	       speed0, speed1, (unsigned long long)ops_per_round, fail0, fail2 - fail1, warm < 20 ? warm + 1 : warm,
	       (unsigned long long)skel->bss->failures - fail2);
	memshrink_bpf__destroy(skel);
	return 0;
}
