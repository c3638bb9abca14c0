// SPDX-License-Identifier: GPL-2.0
/*
 * reclaimfill: fill a BPF_F_NO_PREALLOC hash (or LRU hash) map from user space in a
 * memory cgroup held at its limit, while a sibling task on the same CPU calls
 * getpgid(MAGIC) in a loop and a kprobe program counts those calls.
 *
 *   reclaimfill [-n ENTRIES] [-t hash|lru] [-m high|max] [-s SLACK_KB] [-o]
 *
 * -m high: memory.high a little above what the cgroup uses before the fill: the fill
 *          goes on with reclaim and throttling, no update may fail.
 * -m max:  memory.max a little above it: the map cannot get what it needs, updates
 *          must fail with ENOMEM (after reclaim, without the OOM killer), and the fill
 *          stops after 200 failures in a row.
 * -o:      the fill and the sibling run on CPU 1, and a third task takes CPU 1
 *          offline once the fill is in reclaim (the first ENOMEM at memory.max, a
 *          quarter of the fill under memory.high), times it and brings the CPU
 *          back; the fill goes on until then. A task that sleeps in reclaim with
 *          migration disabled holds the offline up.
 * A syscall update that sleeps in reclaim with bpf_prog_active raised (series patch
 * 8 before its v2) makes the kprobe skip the sibling's calls: counted + misses then
 * still equals the calls, but misses is not 0. An fentry program on
 * try_to_free_mem_cgroup_pages() counts the memcg reclaims of the filling task and
 * those it entered with migration disabled by the map code (series v16).
 *
 * Prints one line of "key value" pairs:
 *   reclaimfill TYPE MODE entries N ok N enomem N other N elements N keys N bad N
 *   calls N counted N misses N ev_high N ev_max N oom_kill N alloc_failures N limit N peak N
 *   reclaims N reclaims_pinned N offline_ms N (-1: no -o; -2: the offline failed)
 * elements: fdinfo; keys: what an iteration finds; bad: keys reported written that
 * cannot be read back with their value; calls: the sibling's getpgid calls; counted:
 * the kprobe's count; misses: the program's recursion_misses; ev_*: memory.events of
 * the cgroup; limit: the memory.high or memory.max set; peak: memory.peak.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "wl-util.h"
#include "reclaimfill.skel.h"

#define MAGIC	0x5eed0000u	/* | our pid & 0xffff: a stray sibling is not counted */
#define MAX_FAIL_RUN	200

struct val {
	__u64 v[8];
};

struct shared {
	volatile int stop;
	volatile int running;
	volatile long calls;
	volatile int go;		/* -o: the fill is in reclaim */
	volatile int offline_done;
	volatile long offline_ms;
};

#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"

/* -o: take CPU 1 offline once the fill is in reclaim, time it, bring it back */
static void offliner(struct shared *sh)
{
	double t0, deadline = bpfmem_mono_s() + 120;
	int err;

	wl_pin_cpu(0);
	while (!sh->go && !sh->stop && bpfmem_mono_s() < deadline)
		usleep(1000);
	t0 = bpfmem_mono_s();
	err = bpfmem_write_file(CPU1_ONLINE, "0");
	if (err) {
		fprintf(stderr, "reclaimfill: cannot take CPU 1 offline: %s\n", strerror(-err));
		sh->offline_ms = -2;
	} else {
		sh->offline_ms = (long)((bpfmem_mono_s() - t0) * 1000);
		usleep(200000);
		err = bpfmem_write_file(CPU1_ONLINE, "1");
		if (err)
			fprintf(stderr, "reclaimfill: cannot bring CPU 1 back: %s\n",
				strerror(-err));
	}
	sh->offline_done = 1;
}

/* fault in the stack the fill may use, while still charged to the parent cgroup */
static void __attribute__((noinline)) touch_stack(void)
{
	volatile char buf[256 * 1024];
	size_t i;

	for (i = 0; i < sizeof(buf); i += 4096)
		buf[i] = 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: reclaimfill [-n ENTRIES] [-t hash|lru] [-m high|max] [-s SLACK_KB] [-o]\n");
}

int main(int argc, char **argv)
{
	long ok = 0, enomem = 0, other = 0, run = 0, bad = 0, slack_kb = 256;
	long long misses;
	const char *tname = "hash", *mode = "high";
	struct reclaimfill_bpf *skel;
	char cg[128], path[192], num[32];
	int c, entries = 50000, fd, i, err, offline = 0, cpu = 0;
	pid_t opid = -1;
	enum bpf_map_type type;
	struct shared *sh;
	struct val *vals;
	__u32 magic;
	int lim;
	__u32 *keys;
	long long cur;
	pid_t pid;

	while ((c = getopt(argc, argv, "n:t:m:s:oh")) != -1) {
		switch (c) {
		case 'n': entries = atoi(optarg); break;
		case 't': tname = optarg; break;
		case 'm': mode = optarg; break;
		case 's': slack_kb = atol(optarg); break;
		case 'o': offline = 1; cpu = 1; break;
		case 'h': usage(); return 0;
		default: usage(); return 2;
		}
	}
	if (entries < 1 || slack_kb < 0 || (strcmp(mode, "high") && strcmp(mode, "max")) ||
	    (strcmp(tname, "hash") && strcmp(tname, "lru"))) {
		usage();
		return 2;
	}
	type = strcmp(tname, "lru") ? BPF_MAP_TYPE_HASH : BPF_MAP_TYPE_LRU_HASH;

	/* everything user space touches during the fill is faulted in before it
	 * joins the cgroup: at memory.max a page fault would meet the OOM killer
	 */
	keys = calloc(entries, sizeof(*keys));
	vals = calloc(entries, sizeof(*vals));
	sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!keys || !vals || sh == MAP_FAILED) {
		fprintf(stderr, "reclaimfill: out of memory\n");
		return 1;
	}
	for (i = 0; i < entries; i++) {
		keys[i] = i * 2654435761u;
		vals[i].v[0] = keys[i] ^ 0xabcdefULL;
		vals[i].v[7] = i;
	}
	memset(sh, 0, 4096);

	skel = reclaimfill_bpf__open();
	if (!skel) {
		fprintf(stderr, "reclaimfill: cannot open the BPF skeleton\n");
		return 1;
	}
	magic = MAGIC | (getpid() & 0xffff);
	skel->rodata->magic = magic;
	skel->rodata->filler = getpid();
	sh->offline_ms = -1;
	if (offline && access(CPU1_ONLINE, W_OK)) {
		fprintf(stderr, "reclaimfill: -o needs a CPU 1 that can go offline (%s)\n",
			CPU1_ONLINE);
		return 1;
	}
	if (reclaimfill_bpf__load(skel) || reclaimfill_bpf__attach(skel)) {
		fprintf(stderr, "reclaimfill: cannot load/attach the kprobe: %s\n", strerror(errno));
		return 1;
	}

	if (offline) {	/* in the root cgroup, on CPU 0 */
		opid = fork();
		if (opid < 0) {
			perror("reclaimfill: fork");
			return 1;
		}
		if (!opid) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			offliner(sh);
			_exit(0);
		}
	}
	wl_pin_cpu(cpu);
	pid = fork();
	if (pid < 0) {
		perror("reclaimfill: fork");
		return 1;
	}
	if (!pid) {	/* the sibling: same CPU, root cgroup */
		long n = 0;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		sh->running = 1;
		while (!sh->stop) {
			syscall(SYS_getpgid, (pid_t)magic);
			n++;
		}
		sh->calls = n;
		_exit(0);
	}
	while (!sh->running)
		sched_yield();

	/* no page fault of ours may meet memory.max (the OOM killer): everything
	 * is faulted in and locked before we join the cgroup
	 */
	touch_stack();
	printf("# reclaimfill: pid %d, magic %#x\n", getpid(), magic);
	fflush(stdout);
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		perror("reclaimfill: mlockall");

	snprintf(cg, sizeof(cg), BPFMEM_CG_ROOT "/bpfmem-reclaimfill-%d", getpid());
	if (mkdir(cg, 0755) && errno != EEXIST) {
		fprintf(stderr, "reclaimfill: mkdir %s: %s\n", cg, strerror(errno));
		goto fail_child;
	}
	err = bpfmem_cg_join(cg);
	if (err) {
		fprintf(stderr, "reclaimfill: cannot join %s: %s\n", cg, strerror(-err));
		goto fail_child;
	}
	snprintf(wl_cgdir, sizeof(wl_cgdir), "%s", cg);
	{
		LIBBPF_OPTS(bpf_map_create_opts, mopts, .map_flags = BPF_F_NO_PREALLOC);

		/* LRU: room for twice the keys, so that nothing is evicted */
		fd = bpf_map_create(type, "reclaimfill", sizeof(__u32), sizeof(struct val),
				    type == BPF_MAP_TYPE_LRU_HASH ? 2 * entries : entries, &mopts);
	}
	if (fd < 0) {
		fprintf(stderr, "reclaimfill: cannot create a %s map with BPF_F_NO_PREALLOC: %s\n",
			tname, strerror(errno));
		goto fail_cg;
	}
	printf("# reclaimfill: %s map, %d entries, memory.%s = memory.current + %ld KiB\n",
	       tname, entries, mode, slack_kb);
	fflush(stdout);

	/* the limit is lifted through the fd that set it: at memory.max, even
	 * opening a file (struct file is charged) would meet the OOM killer
	 */
	snprintf(path, sizeof(path), "%s/memory.%s", cg, mode);
	lim = open(path, O_WRONLY);
	cur = wl_cg_read("memory.current", NULL);
	snprintf(num, sizeof(num), "%lld", cur + slack_kb * 1024);
	if (lim < 0 || cur < 0 || pwrite(lim, num, strlen(num), 0) != (ssize_t)strlen(num)) {
		fprintf(stderr, "reclaimfill: cannot set %s: %s\n", path, strerror(errno));
		goto fail_cg;
	}

	/* -o: go on while the offline is under way (the keys last long enough) */
	for (i = 0; i < entries && (run < MAX_FAIL_RUN || (offline && !sh->offline_done)); i++) {
		if (i == entries / 4)
			sh->go = 1;
		if (!bpf_map_update_elem(fd, &keys[i], &vals[i], BPF_NOEXIST)) {
			ok++;
			run = 0;
			continue;
		}
		sh->go = 1;
		keys[i] = ~0u;	/* not written */
		if (errno == ENOMEM)
			enomem++;
		else
			other++;
		run++;
	}
	for (; i < entries; i++)
		keys[i] = ~0u;
	if (pwrite(lim, "max", 3, 0) != 3)
		fprintf(stderr, "reclaimfill: cannot lift %s: %s\n", path, strerror(errno));
	close(lim);

	sh->stop = 1;
	waitpid(pid, NULL, 0);
	if (opid > 0)
		waitpid(opid, NULL, 0);

	for (i = 0; i < entries; i++) {
		struct val v;

		if (keys[i] == ~0u)
			continue;
		if (bpf_map_lookup_elem(fd, &keys[i], &v) ||
		    v.v[0] != vals[i].v[0] || v.v[7] != vals[i].v[7])
			bad++;
	}
	misses = wl_prog_misses(bpf_program__fd(skel->progs.count_getpgid));
	if (misses < 0)
		fprintf(stderr, "reclaimfill: cannot read the program's info: %s\n",
			strerror(errno));

	printf("reclaimfill %s %s entries %d ok %ld enomem %ld other %ld elements %lld keys %ld "
	       "bad %ld calls %ld counted %llu misses %lld ev_high %lld ev_max %lld "
	       "oom_kill %lld alloc_failures %lld limit %lld peak %lld reclaims %llu "
	       "reclaims_pinned %llu offline_ms %ld\n",
	       tname, mode, entries, ok, enomem, other, wl_fdinfo(fd, "elements"),
	       wl_count_keys(fd), bad, sh->calls, (unsigned long long)skel->bss->calls,
	       misses, wl_cg_read("memory.events", "high"),
	       wl_cg_read("memory.events", "max"), wl_cg_read("memory.events", "oom_kill"),
	       wl_fdinfo(fd, "alloc_failures"), cur + slack_kb * 1024,
	       wl_cg_read("memory.peak", NULL), (unsigned long long)skel->bss->reclaims,
	       (unsigned long long)skel->bss->reclaims_pinned, sh->offline_ms);
	close(fd);
	bpfmem_cg_join(BPFMEM_CG_ROOT);
	bpfmem_cg_remove(cg);
	reclaimfill_bpf__destroy(skel);
	return 0;

fail_cg:
	bpfmem_cg_join(BPFMEM_CG_ROOT);
	bpfmem_cg_remove(cg);
fail_child:
	sh->stop = 1;
	waitpid(pid, NULL, 0);
	if (opid > 0)
		waitpid(opid, NULL, 0);
	return 1;
}
