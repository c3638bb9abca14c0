// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem savings: memory a BPF_F_NO_PREALLOC hash map saves against the same map
 * preallocated, measured in the memory cgroup the map is charged to. --lru: LRU hash
 * maps (BPF_F_NO_PREALLOC for them is bpfmem series patch 9).
 *
 * For one map shape (key size, value size, max entries) and a list of
 * occupancies, each case runs in a fresh child memcg /sys/fs/cgroup/bpfmem-savings-N:
 * the process moves into it, creates the map (BTF-less bpf_map_create, so the
 * map's objcg is that cgroup), moves back out, fills the map to the occupancy
 * either from a BPF program (bpf/savings.bpf.c: raw_tp run with BPF_PROG_TEST_RUN,
 * keys i..n inserted in a bpf_loop, the way a tracer inserts) or from userspace
 * (bpf_map_update_elem), then measures after draining the memcg's per-CPU charge
 * stocks (memory.high is set to 0 then back to max, which runs drain_all_stock):
 *   memory   the cgroup's memory.current (its start value is 0, so this is the delta)
 *   kernel   memory.stat "kernel" (lags by up to one stat-flush batch)
 *   memlock  the map's fdinfo memlock
 *   cached/pending  allocator bytes (bpfmem series fdinfo lines; n/a otherwise)
 *   floor    elements x element size + bucket array (sizes from vmlinux BTF:
 *            sizeof(struct htab_elem) + round_up(key, 8) + round_up(value, 8),
 *            and for --lru sizeof(struct bpf_lru_node) where the kernel keeps the
 *            node in front of the element (kernel/proposed: htab_elem has no
 *            lru_node member); roundup_pow_of_two(max_entries) x sizeof(struct bucket))
 * A churn case fills to a steady occupancy and then, on every online CPU at once, deletes
 * the oldest keys and inserts new ones (each CPU deletes keys another CPU
 * inserted); memory is sampled after every round (peak) and after a settle time.
 *
 * JSON (-j): one object per measurement and line:
 * {"mode":"prealloc"|"dynamic","fill":"bpf"|"user"|"churn-peak"|"churn-settled",
 *  "occupancy_pct":F,"elements":N,"memory_bytes":N,"kernel_bytes":N|null,
 *  "memlock_bytes":N,"cached_bytes":N|null,"pending_bytes":N|null,"floor_bytes":N,
 *  "key_size":N,"value_size":N,"max_entries":N,"element_bytes":N,"bucket_bytes":N,
 *  "forced_dynamic":BOOL,"fill_failures":N,"map_type":"hash"|"lru_hash"}
 * forced_dynamic: the kernel series made the "prealloc" map dynamic; fill_failures:
 * inserts that failed because the allocator's per-CPU cache was empty and its
 * refill could not run inside the program (PREEMPT_RT: the refill irq_work is a
 * kthread); they are retried after yielding, so elements is always exact.
 * CSV (--csv, or --csv-file FILE next to the table): the same fields, header line
 * mode,fill,occupancy_pct,elements,memory_bytes,kernel_bytes,memlock_bytes,
 * cached_bytes,pending_bytes,floor_bytes,key_size,value_size,max_entries,
 * element_bytes,bucket_bytes,forced_dynamic,fill_failures (empty = n/a).
 * tools/plot-savings.sh draws it.
 *
 * A kernel that does not charge map memory to memcgs (no kmem accounting: SLOB,
 * !CONFIG_MEMCG_KMEM, cgroup.memory=nokmem) is refused with that reason, exit 1:
 * a map's own cgroup is probed first (check_kmem_accounting()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "cmds.h"
#include "libbpfmem.h"
#include "savings.skel.h"

#define SAVINGS_MAX_KV 1024	/* bpf/savings.bpf.c scratch size */
#define MAX_OCC 16

static struct {
	long key_size, value_size, max_entries;
	double occ[MAX_OCC];
	int n_occ;
	bool fill_bpf, fill_user, churn, json, csv, verbose, lru;
	double churn_occ;
	long churn_rounds;
	double settle;
	const char *csv_file;
} env = {
	.key_size = 40, .value_size = 48, .max_entries = 10240,
	.occ = { 0.1, 1, 10, 50, 100 }, .n_occ = 5,
	.fill_bpf = true, .fill_user = true, .churn = true,
	.churn_occ = 50, .churn_rounds = 16, .settle = 2,
};

struct result {
	const char *mode, *fill;
	double occ;
	long long elements, memory, kernel, memlock, cached, pending, floor;
	int forced;	/* fdinfo "forced_dynamic: 1" (bpfmem series): not preallocated */
	long long fails;	/* failed insert runs/calls that had to be retried */
};

static struct result *results;
static int n_results;
static size_t cap_results;
static long long elem_bytes, bucket_bytes, n_buckets;
static char orig_cg[PATH_MAX];
static int cg_seq;
static int ncpus;	/* online CPUs, ids in cpus[]: BPF_F_TEST_RUN_ON_CPU needs online */
static int *cpus;

enum { OPT_FILL = 256, OPT_CHURN, OPT_NO_CHURN, OPT_ROUNDS, OPT_SETTLE, OPT_LRU, OPT_CSV,
       OPT_CSV_FILE };

#define STR_(x) #x
#define STR(x) STR_(x)
static const struct bpfmem_opt opts[] = {
	{ 'k', "key-size", "B", "key size (default 40; 4.." STR(SAVINGS_MAX_KV) ")" },
	{ 'V', "value-size", "B", "value size (default 48; 4.." STR(SAVINGS_MAX_KV) ")" },
	{ 'e', "entries", "N", "max_entries (default 10240)" },
	{ 'o', "occupancy", "L", "occupancies in % of max_entries (default 0.1,1,10,50,100)" },
	{ OPT_FILL, "fill", "HOW", "bpf (a BPF program inserts, BPF_PROG_TEST_RUN + bpf_loop),\n"
	  "user (bpf_map_update_elem), both (default)" },
	{ OPT_CHURN, "churn", "PCT", "churn case at PCT% steady occupancy on all CPUs (default 50)" },
	{ OPT_NO_CHURN, "no-churn", NULL, "skip the churn case" },
	{ OPT_ROUNDS, "rounds", "N", "churn rounds (default 16; each replaces 1/8 of the keys)" },
	{ OPT_SETTLE, "settle", "S", "seconds to wait after churn before 'settled' (default 2)" },
	{ OPT_LRU, "lru", NULL, "LRU hash maps (BPF_F_NO_PREALLOC needs series patch 9)",
	  .flag = &env.lru },
	{ 'j', "json", NULL, "JSON, one object per measurement:\n"
	  "{mode,fill,occupancy_pct,elements,memory_bytes,kernel_bytes,\n"
	  "memlock_bytes,cached_bytes,pending_bytes,floor_bytes,key_size,\n"
	  "value_size,max_entries,element_bytes,bucket_bytes,\n"
	  "forced_dynamic,fill_failures,map_type} (null = n/a)",
	  .flag = &env.json },
	{ OPT_CSV, "csv", NULL, "CSV (same fields) instead of the table",
	  .flag = &env.csv },
	{ OPT_CSV_FILE, "csv-file", "FILE", "also write the CSV to FILE (for tools/plot-savings.sh)" },
	{},
};

/* the EXAMPLES of -h, which bpfmem-savings(8) lists too (tests/unit/check-man.py) */
static const struct bpfmem_example examples[] = {
	{ "bpfmem savings",
	  "the defaults: key 40 B, value 48 B, 10240 entries, 0.1 to 100 % full, churn" },
	{ "bpfmem savings --lru -k 16 -V 64 -e 65536 -o 1,10,100 --no-churn",
	  "an LRU hash map's cost at three occupancies" },
	{ "bpfmem savings --fill user --churn 80 --rounds 32 -j",
	  "filled from user space, churn at 80 % for 32 rounds, as JSON" },
	{ "bpfmem savings --csv-file savings.csv",
	  "the table, and the CSV for tools/plot-savings.sh" },
	{},
};

static int parse_occ(const char *s);

static int parse_opt(int key, const char *arg, void *ctx)
{
	long v;

	switch (key) {
	case 'k':
		if (bpfmem_parse_long(arg, 4, SAVINGS_MAX_KV, &env.key_size)) {
			bpfmem_err("invalid key size '%s' (4..%d)", arg, SAVINGS_MAX_KV);
			return -EINVAL;
		}
		return 0;
	case 'V':
		if (bpfmem_parse_long(arg, 4, SAVINGS_MAX_KV, &env.value_size)) {
			bpfmem_err("invalid value size '%s' (4..%d)", arg, SAVINGS_MAX_KV);
			return -EINVAL;
		}
		return 0;
	case 'e':
		if (bpfmem_parse_long(arg, 16, 1 << 22, &env.max_entries)) {
			bpfmem_err("invalid max entries '%s' (16..%d)", arg, 1 << 22);
			return -EINVAL;
		}
		return 0;
	case 'o':
		return parse_occ(arg);
	case OPT_FILL:
		if (!strcmp(arg, "bpf")) {
			env.fill_user = false;
		} else if (!strcmp(arg, "user")) {
			env.fill_bpf = false;
		} else if (strcmp(arg, "both")) {
			bpfmem_err("invalid --fill '%s' (bpf|user|both)", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_CHURN:
		if (bpfmem_parse_long(arg, 1, 90, &v)) {
			bpfmem_err("invalid churn occupancy '%s' (1..90 %%)", arg);
			return -EINVAL;
		}
		env.churn_occ = v;
		return 0;
	case OPT_NO_CHURN:
		env.churn = false;
		return 0;
	case OPT_ROUNDS:
		if (bpfmem_parse_long(arg, 1, 10000, &env.churn_rounds)) {
			bpfmem_err("invalid --rounds '%s'", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_SETTLE:
		return bpfmem_parse_seconds(arg, &env.settle);
	case OPT_CSV_FILE:
		env.csv_file = arg;
		return 0;
	}
	return -EINVAL;
}

static const struct bpfmem_cli cli = {
	.usage = "[-k KEY_SIZE] [-V VALUE_SIZE] [-e MAX_ENTRIES] [-o PCT,PCT,...]\n"
		 "                      [--fill bpf|user|both] [--churn PCT|--no-churn] [--rounds N]\n"
		 "                      [--settle S] [--lru] [-j|--csv] [--csv-file FILE] [-v]",
	.doc = "Measure the memory a BPF_F_NO_PREALLOC hash map saves versus a preallocated one,\n"
	       "in a fresh memory cgroup per case (memory.current after draining charge stocks).",
	.opts = opts,
	.examples = examples,
	.parse = parse_opt,
	.verbose = &env.verbose,
};

/* ---- cgroups (tools/lib/cgroup.c), each failure with its error line ---- */

/* @cg: a cgroup by name, "/" or "/bpfmem-savings-PID-N" */
static int move_self(const char *cg)
{
	char dir[PATH_MAX];
	int err;

	bpfmem_cg_dir(dir, sizeof(dir), cg);
	err = bpfmem_cg_join(dir);
	if (err)
		bpfmem_err("cannot move into cgroup %s: %s", cg, strerror(-err));
	return err;
}

static int read_current(const char *dir, long long *v)
{
	if (bpfmem_cg_read(dir, "memory.current", NULL, v)) {
		bpfmem_err("cannot read %s/memory.current (or unknown format)", dir);
		return -EINVAL;
	}
	return 0;
}

/* memory.current of cgroup @cg after draining per-CPU stocks */
static int measure_cg(const char *cg, long long *current, long long *kernel)
{
	char dir[PATH_MAX];
	int err;

	bpfmem_cg_dir(dir, sizeof(dir), cg);
	err = bpfmem_cg_drain(dir);
	if (err) {
		bpfmem_err("cannot write %s/memory.high: %s", dir, strerror(-err));
		return err;
	}
	if (read_current(dir, current))
		return -EINVAL;
	*kernel = -1;
	if (bpfmem_cg_read(dir, "memory.stat", "kernel", kernel) == -EINVAL) {
		bpfmem_err("unknown format of %s/memory.stat", dir);
		return -EINVAL;
	}
	return 0;
}

static int new_cgroup(char *cg, size_t len)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	long long cur;

	snprintf(cg, len, "/bpfmem-savings-%d-%d", getpid(), cg_seq++);
	bpfmem_cg_dir(dir, sizeof(dir), cg);
	if (mkdir(dir, 0755)) {
		bpfmem_err("cannot create cgroup %s: %s", dir, strerror(errno));
		return -errno;
	}
	snprintf(path, sizeof(path), "%s/memory.current", dir);
	if (access(path, R_OK)) {
		bpfmem_err("no memory controller in %s (cgroup v2 with +memory needed)", cg);
		goto fail;
	}
	if (read_current(dir, &cur))
		goto fail;
	if (cur) {
		bpfmem_err("fresh cgroup %s starts at memory.current %lld, not 0", cg, cur);
		goto fail;
	}
	return 0;
fail:
	rmdir(dir);	/* not left behind */
	return -EINVAL;
}

static void remove_cgroup(const char *cg)
{
	char dir[PATH_MAX];
	int err;

	bpfmem_cg_dir(dir, sizeof(dir), cg);
	err = bpfmem_cg_remove(dir);
	if (err)
		bpfmem_warn("warning: cannot remove cgroup %s: %s", dir, strerror(-err));
}

/*
 * Whether this kernel charges BPF map memory to the memcg a map is created in (kmem
 * accounting): a 256 KiB array map made in a fresh cgroup must show in its
 * memory.current. It does not on SLOB or without CONFIG_MEMCG_KMEM (6.1's tinyconfig
 * picks SLOB), nor with cgroup.memory=nokmem: then there is nothing to measure, and
 * every case would print 0.0 KiB.
 */
#define PROBE_BYTES (256 << 10)

static int check_kmem_accounting(void)
{
	long long cur = -1, kern;
	char cg[128];
	int fd, e, err = -1;

	if (new_cgroup(cg, sizeof(cg)))
		return -1;
	if (move_self(cg))
		goto out;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "sav_kmem_probe", 4, 4096,
			    PROBE_BYTES / 4096, NULL);
	e = errno;
	if (move_self(orig_cg)) {
		if (fd >= 0)
			close(fd);
		goto out;
	}
	if (fd < 0) {
		bpfmem_err("cannot create a map: %s", strerror(e));
		goto out;
	}
	if (!measure_cg(cg, &cur, &kern)) {
		if (cur < PROBE_BYTES / 2)
			bpfmem_err("this kernel does not charge BPF map memory to memory cgroups "
				   "(memory.current %lld B with a %d KiB map in it: no kmem "
				   "accounting, e.g. SLOB, CONFIG_MEMCG_KMEM off or "
				   "cgroup.memory=nokmem): nothing to measure", cur, PROBE_BYTES >> 10);
		else
			err = 0;
	}
	close(fd);
out:
	remove_cgroup(cg);
	return err;
}

/* ---- the map and its fills ---- */

static int create_in_cgroup(const char *cg, bool prealloc)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = prealloc ? 0 : BPF_F_NO_PREALLOC);
	int fd, err;

	if (move_self(cg))
		return -1;
	fd = bpf_map_create(env.lru ? BPF_MAP_TYPE_LRU_HASH : BPF_MAP_TYPE_HASH,
			    prealloc ? "sav_prealloc" : "sav_dynamic",
			    env.key_size, env.value_size, env.max_entries, &o);
	err = errno;
	if (move_self(orig_cg)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (fd < 0 && env.lru && !prealloc && err == 524 /* ENOTSUPP */)
		bpfmem_err("this kernel has no LRU hash maps with BPF_F_NO_PREALLOC "
			   "(bpfmem series patch 9)");
	else if (fd < 0)
		bpfmem_err("cannot create the %s map (key %ld, value %ld, %ld entries): %s",
			   prealloc ? "preallocated" : "dynamic", env.key_size, env.value_size,
			   env.max_entries, strerror(err));
	return fd;
}

static struct savings_bpf *load_filler(int map_fd)
{
	struct savings_bpf *skel = savings_bpf__open();
	int err;

	if (!skel) {
		bpfmem_err("cannot open the BPF filler: %s", strerror(errno));
		return NULL;
	}
	err = bpf_map__reuse_fd(skel->maps.target, map_fd);
	if (!err)
		err = savings_bpf__load(skel);
	if (err) {
		bpfmem_err("cannot load the BPF filler: %s", strerror(-err));
		savings_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

/* runs the filler program once: op 0 insert, 1 delete; on @cpu if >= 0; returns the
 * operations done before the first failure
 */
static long long bpf_run(struct savings_bpf *skel, long long start, long long count, int op,
			 int cpu)
{
	__u64 args[3] = { start, count, op };
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = args, .ctx_size_in = sizeof(args));
	int err;

	if (cpu >= 0) {
		o.flags = BPF_F_TEST_RUN_ON_CPU;
		o.cpu = cpu;
	}
	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.fill), &o);
	if (err)
		return -errno;
	return o.retval;
}

#define RETRY_LIMIT 2000	/* consecutive runs without progress: ~2 s */

/*
 * All @count operations from BPF. An insert fails when the allocator's per-CPU
 * cache is empty and its refill (irq_work; a kthread on PREEMPT_RT) could not run
 * during the program: like a tracer, the program then drops the event. Here the
 * rest is retried after yielding, and every failed run is counted in @fails.
 * Deletes never fail transiently. Returns operations done.
 */
static long long bpf_ops(struct savings_bpf *skel, long long start, long long count, int op,
			 int cpu, long long *fails)
{
	long long done = 0, n;
	int idle = 0;

	while (done < count) {
		n = bpf_run(skel, start + done, count - done, op, cpu);
		if (n < 0)
			return done ? done : n;
		done += n;
		if (done == count)
			break;
		if (op != 0)
			break;
		(*fails)++;
		if (n == 0 && ++idle > RETRY_LIMIT)
			break;
		if (n)
			idle = 0;
		bpfmem_sleep(0.001);
	}
	return done;
}

static long long user_fill(int fd, long long count, long long *fails)
{
	unsigned char key[SAVINGS_MAX_KV] = {}, val[SAVINGS_MAX_KV] = {};
	long long i;
	int idle = 0;

	for (i = 0; i < count; i++) {
		__u32 k = i;

		memcpy(key, &k, sizeof(k));
		memcpy(val, &k, sizeof(k));
		if (bpf_map_update_elem(fd, key, val, BPF_ANY)) {
			if (errno != ENOMEM || ++idle > RETRY_LIMIT)
				return i;
			(*fails)++;
			bpfmem_sleep(0.001);
			i--;
			continue;
		}
		idle = 0;
	}
	return i;
}

static long long count_elements(int fd)
{
	long long n = bpfmem_count_keys(fd, env.key_size, LLONG_MAX);

	return n < 0 ? -1 : n;
}

static long long floor_of(long long elements)
{
	return elements * elem_bytes + bucket_bytes;
}

static int add_result(const char *mode, const char *fill, double occ, int fd, const char *cg,
		      long long elements, long long fails)
{
	struct bpfmem_map_info mi;
	struct result *r;

	if (bpfmem_grow(&results, &cap_results, (size_t)n_results + 1, sizeof(*results)))
		return -ENOMEM;
	r = &results[n_results];
	memset(r, 0, sizeof(*r));
	r->mode = mode;
	r->fill = fill;
	r->occ = occ;
	r->elements = elements;
	if (measure_cg(cg, &r->memory, &r->kernel))
		return -EINVAL;
	if (bpfmem_map_fdinfo(fd, &mi)) {
		bpfmem_err("unknown format of the map's fdinfo");
		return -EINVAL;
	}
	r->memlock = mi.memlock;
	r->cached = mi.cached_bytes;
	r->pending = mi.pending_bytes;
	r->floor = floor_of(elements);
	r->forced = mi.forced_dynamic > 0;
	r->fails = fails;
	n_results++;
	return 0;
}

static long long target_of(double occ)
{
	long long n = (long long)(occ / 100.0 * env.max_entries + 0.5);

	return n < 1 ? 1 : n;
}

/* one fill case: fresh cgroup, map, fill to @occ, measure */
static int fill_case(bool prealloc, bool bpf, double occ)
{
	struct savings_bpf *skel = NULL;
	long long n = target_of(occ), done, elems, fails = 0;
	char cg[128];
	int fd, err = -1;

	if (new_cgroup(cg, sizeof(cg)))
		return -1;
	fd = create_in_cgroup(cg, prealloc);
	if (fd < 0)
		goto out_cg;
	if (bpf) {
		skel = load_filler(fd);
		if (!skel)
			goto out;
		done = bpf_ops(skel, 0, n, 0, -1, &fails);
	} else {
		done = user_fill(fd, n, &fails);
	}
	if (done != n) {
		bpfmem_err("%s fill of the %s map stopped at %lld of %lld elements%s",
			   bpf ? "BPF" : "user", prealloc ? "preallocated" : "dynamic",
			   done < 0 ? 0 : done, n, done < 0 ? " (program run failed)" :
			   " (map full or allocation failure)");
		goto out;
	}
	bpfmem_sleep(0.05);	/* let the allocator's refill irq_work run */
	elems = count_elements(fd);
	/* an LRU map may evict before it is full: a CPU takes its free nodes from
	 * the global list in batches, and evicts when the last batch is short
	 */
	if (elems != n && !(env.lru && elems <= n)) {
		bpfmem_err("map holds %lld elements after inserting %lld", elems, n);
		goto out;
	}
	err = add_result(prealloc ? "prealloc" : "dynamic", bpf ? "bpf" : "user", occ, fd, cg,
			 elems, fails);
out:
	savings_bpf__destroy(skel);
	close(fd);
out_cg:
	remove_cgroup(cg);
	return err;
}

/* ---- churn ---- */

struct churn_worker {
	pthread_t th;
	int cpu;
	struct savings_bpf *skel;
	long long del_start, ins_start, batch;
	long long deleted, inserted, fails;
	int err;
};

static pthread_barrier_t bar_start, bar_end;
static volatile int churn_stop;
/*
 * Workers wait at this gate until every one of them was created: the barriers are
 * set up for that number only then, so a failed pthread_create() cannot leave the
 * others blocked in a barrier that never fills (gate_state 2: go home).
 */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_state;

static void gate_set(int state)
{
	pthread_mutex_lock(&gate_lock);
	gate_state = state;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
}

static void *churn_thread(void *arg)
{
	struct churn_worker *w = arg;
	cpu_set_t set;
	int state;

	/* the programs run on w->cpu anyway (BPF_F_TEST_RUN_ON_CPU); this keeps the
	 * syscall side there too
	 */
	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		w->err = -errno;
	pthread_mutex_lock(&gate_lock);
	while (!gate_state)
		pthread_cond_wait(&gate_cond, &gate_lock);
	state = gate_state;
	pthread_mutex_unlock(&gate_lock);
	if (state != 1)
		return NULL;
	for (;;) {
		pthread_barrier_wait(&bar_start);
		if (churn_stop)
			break;
		w->deleted = bpf_ops(w->skel, w->del_start, w->batch, 1, w->cpu, &w->fails);
		w->inserted = bpf_ops(w->skel, w->ins_start, w->batch, 0, w->cpu, &w->fails);
		pthread_barrier_wait(&bar_end);
	}
	return NULL;
}

static int churn_case(bool prealloc)
{
	struct churn_worker *w;
	struct savings_bpf *skel = NULL;
	long long k = target_of(env.churn_occ), batch, lo = 0, peak = -1, peak_kernel = -1;
	long long fails = 0;
	const char *mode = prealloc ? "prealloc" : "dynamic";
	char cg[128];
	long r;
	int fd, c, err = -1;

	batch = k / (8 * ncpus);
	if (batch < 1)
		batch = 1;
	w = calloc(ncpus, sizeof(*w));
	if (!w)
		return -1;
	if (new_cgroup(cg, sizeof(cg)))
		goto out_free;
	fd = create_in_cgroup(cg, prealloc);
	if (fd < 0)
		goto out_cg;
	skel = load_filler(fd);
	if (!skel)
		goto out;
	if (bpf_ops(skel, 0, k, 0, -1, &fails) != k) {
		bpfmem_err("churn: filling the %s map to %lld elements failed", mode, k);
		goto out;
	}
	churn_stop = 0;
	gate_state = 0;
	for (c = 0; c < ncpus; c++) {
		w[c].cpu = cpus[c];
		w[c].skel = skel;
		w[c].batch = batch;
		err = pthread_create(&w[c].th, NULL, churn_thread, &w[c]);
		if (err) {
			bpfmem_err("churn: cannot start the worker for CPU %d: %s", cpus[c],
				   strerror(err));
			gate_set(2);
			while (c > 0)
				pthread_join(w[--c].th, NULL);
			err = -1;
			goto out;
		}
	}
	err = -1;
	pthread_barrier_init(&bar_start, NULL, ncpus + 1);
	pthread_barrier_init(&bar_end, NULL, ncpus + 1);
	gate_set(1);
	for (c = 0; c < ncpus; c++)
		if (w[c].err)	/* not fatal: the runs are on that CPU regardless */
			bpfmem_warn("churn: worker not pinned to CPU %d (its runs still are): %s",
				    w[c].cpu, strerror(-w[c].err));
	for (r = 0; r < env.churn_rounds; r++) {
		long long cur, kern;

		for (c = 0; c < ncpus; c++) {
			/* CPU c deletes a slice another CPU inserted in an earlier round */
			w[c].del_start = lo + ((c + 1) % ncpus) * batch;
			w[c].ins_start = lo + k + c * batch;
		}
		pthread_barrier_wait(&bar_start);
		pthread_barrier_wait(&bar_end);
		lo += ncpus * batch;
		for (c = 0; c < ncpus; c++) {
			if (w[c].deleted != batch || w[c].inserted != batch) {
				bpfmem_err("churn round %ld on CPU %d: %lld of %lld deleted, %lld inserted",
					   r, w[c].cpu, w[c].deleted, batch, w[c].inserted);
				err = -2;
			}
		}
		if (err == -2)
			break;
		if (measure_cg(cg, &cur, &kern))
			break;
		if (cur > peak) {
			peak = cur;
			peak_kernel = kern;
		}
	}
	churn_stop = 1;
	pthread_barrier_wait(&bar_start);
	for (c = 0; c < ncpus; c++)
		pthread_join(w[c].th, NULL);
	pthread_barrier_destroy(&bar_start);
	pthread_barrier_destroy(&bar_end);
	if (err == -2 || r < env.churn_rounds)
		goto out;
	if (count_elements(fd) != k) {
		bpfmem_err("churn: map holds %lld elements, expected %lld", count_elements(fd), k);
		goto out;
	}
	for (c = 0; c < ncpus; c++)
		fails += w[c].fails;
	/* peak: the largest drained memory.current seen after a round */
	if (add_result(mode, "churn-peak", env.churn_occ, fd, cg, k, fails))
		goto out;
	results[n_results - 1].memory = peak;
	results[n_results - 1].kernel = peak_kernel;
	bpfmem_sleep(env.settle);
	err = add_result(mode, "churn-settled", env.churn_occ, fd, cg, k, fails);
out:
	savings_bpf__destroy(skel);
	close(fd);
out_cg:
	remove_cgroup(cg);
out_free:
	free(w);
	return err;
}

/* ---- sizes from BTF ---- */

static bool btf_has_member(const struct btf *btf, int id, const char *name)
{
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_member *m;
	int i;

	if (!t || !btf_is_composite(t))
		return false;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);

		if (n && !strcmp(n, name))
			return true;
		/* lru_node sits in an anonymous union of struct htab_elem */
		if ((!n || !*n) && btf_has_member(btf, btf__resolve_type(btf, m->type), name))
			return true;
	}
	return false;
}

static int kernel_sizes(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	long long he, b;
	int id;

	if (!btf) {
		bpfmem_err("cannot load vmlinux BTF");
		return -ENOENT;
	}
	id = btf__find_by_name_kind(btf, "htab_elem", BTF_KIND_STRUCT);
	he = id > 0 ? btf__resolve_size(btf, id) : -1;
	if (he > 0 && env.lru && !btf_has_member(btf, id, "lru_node")) {
		/* the LRU node is a prefix of the element (kernel/proposed) */
		id = btf__find_by_name_kind(btf, "bpf_lru_node", BTF_KIND_STRUCT);
		he = id > 0 ? he + ((btf__resolve_size(btf, id) + 7) & ~7L) : -1;
	}
	id = btf__find_by_name_kind(btf, "bucket", BTF_KIND_STRUCT);
	b = id > 0 ? btf__resolve_size(btf, id) : -1;
	btf__free(btf);
	if (he <= 0 || b <= 0) {
		bpfmem_err("struct htab_elem / struct bucket not in vmlinux BTF");
		return -ENOENT;
	}
	elem_bytes = he + ((env.key_size + 7) & ~7L) + ((env.value_size + 7) & ~7L);
	n_buckets = 1;
	while (n_buckets < env.max_entries)
		n_buckets <<= 1;
	bucket_bytes = n_buckets * b;
	return 0;
}

/* ---- output ---- */

static void csv_num(FILE *f, long long v)
{
	if (v >= 0)
		fprintf(f, "%lld", v);
}

static void print_csv(FILE *f)
{
	int i;

	fprintf(f, "mode,fill,occupancy_pct,elements,memory_bytes,kernel_bytes,memlock_bytes,"
		"cached_bytes,pending_bytes,floor_bytes,key_size,value_size,max_entries,"
		"element_bytes,bucket_bytes,forced_dynamic,fill_failures\n");
	for (i = 0; i < n_results; i++) {
		const struct result *r = &results[i];

		fprintf(f, "%s,%s,%g,%lld,%lld,", r->mode, r->fill, r->occ, r->elements, r->memory);
		csv_num(f, r->kernel);
		fprintf(f, ",%lld,", r->memlock);
		csv_num(f, r->cached);
		fputc(',', f);
		csv_num(f, r->pending);
		fprintf(f, ",%lld,%ld,%ld,%ld,%lld,%lld,%d,%lld\n", r->floor, env.key_size,
			env.value_size, env.max_entries, elem_bytes, bucket_bytes, r->forced, r->fails);
	}
}

static void print_json(void)
{
	struct jw jw;
	int i;

	jw_init(&jw, stdout);
	for (i = 0; i < n_results; i++) {
		const struct result *r = &results[i];

		jw_start_object(&jw);
		jw_string_field(&jw, "mode", r->mode);
		jw_string_field(&jw, "fill", r->fill);
		jw_float_field(&jw, "occupancy_pct", "%g", r->occ);
		jw_int_field(&jw, "elements", r->elements);
		jw_int_field(&jw, "memory_bytes", r->memory);
		jw_count_field(&jw, "kernel_bytes", r->kernel);
		jw_int_field(&jw, "memlock_bytes", r->memlock);
		jw_count_field(&jw, "cached_bytes", r->cached);
		jw_count_field(&jw, "pending_bytes", r->pending);
		jw_int_field(&jw, "floor_bytes", r->floor);
		jw_int_field(&jw, "key_size", env.key_size);
		jw_int_field(&jw, "value_size", env.value_size);
		jw_int_field(&jw, "max_entries", env.max_entries);
		jw_int_field(&jw, "element_bytes", elem_bytes);
		jw_int_field(&jw, "bucket_bytes", bucket_bytes);
		jw_bool_field(&jw, "forced_dynamic", r->forced);
		jw_int_field(&jw, "fill_failures", r->fails);
		jw_string_field(&jw, "map_type", env.lru ? "lru_hash" : "hash");
		jw_end_object(&jw);
	}
}

static const struct result *find(const char *mode, const char *fill, double occ)
{
	int i;

	for (i = 0; i < n_results; i++)
		if (!strcmp(results[i].mode, mode) && !strcmp(results[i].fill, fill) &&
		    results[i].occ == occ)
			return &results[i];
	return NULL;
}

static void kib(long long v, int w)
{
	if (v < 0)
		printf(" %*s", w, "n/a");
	else
		printf(" %*.1f", w, v / 1024.0);
}

static void print_table(bool series)
{
	static const char *const fills[] = { "bpf", "user", "churn-peak", "churn-settled" };
	size_t f;
	int i;

	printf("map shape: %s, key %ld B, value %ld B, max_entries %ld; element %lld B, "
	       "%lld buckets = %lld B; %d CPUs\n", env.lru ? "LRU hash" : "hash", env.key_size,
	       env.value_size, env.max_entries, elem_bytes, n_buckets, bucket_bytes, ncpus);
	printf("memory = memcg memory.current of the map's own cgroup (KiB); floor = elements x "
	       "element + buckets\n");
	printf("%-13s %7s %8s %11s %11s %11s %8s %11s %11s %11s\n", "FILL", "OCC%", "ELEMS",
	       "PREALLOC", "DYNAMIC", "FLOOR", "DYN/PRE", "DYN-MEMLOCK", "DYN-CACHED",
	       "DYN-PENDING");
	for (f = 0; f < sizeof(fills) / sizeof(fills[0]); f++) {
		for (i = 0; i < n_results; i++) {
			const struct result *d = &results[i], *p;

			if (strcmp(d->mode, "dynamic") || strcmp(d->fill, fills[f]))
				continue;
			p = find("prealloc", d->fill, d->occ);
			printf("%-13s %7g %8lld", d->fill, d->occ, d->elements);
			kib(p ? p->memory : -1, 11);
			kib(d->memory, 11);
			kib(d->floor, 11);
			if (p && p->memory > 0)
				printf(" %7.1f%%", 100.0 * d->memory / p->memory);
			else
				printf(" %8s", "n/a");
			kib(d->memlock, 11);
			kib(d->cached, 11);
			kib(d->pending, 11);
			printf("\n");
		}
	}
	if (!series)
		printf("allocator cached/pending: n/a: kernel without the series\n");
	for (i = 0; i < n_results; i++)
		if (results[i].fails)
			printf("%s %s fill at %g%%: %lld inserts failed (allocator cache empty, refill "
			       "could not run in the program) and were retried\n", results[i].mode,
			       results[i].fill, results[i].occ, results[i].fails);
	for (i = 0; i < n_results; i++)
		if (results[i].forced) {
			printf("note: the kernel forced the 'preallocated' map dynamic "
			       "(fdinfo forced_dynamic: 1)\n");
			break;
		}
}

static int parse_occ(const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL, *end;

	env.n_occ = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		double v;

		errno = 0;
		v = strtod(tok, &end);
		if (errno || end == tok || *end || !(v > 0) || v > 100 || env.n_occ == MAX_OCC) {
			bpfmem_err("invalid occupancy list '%s' (up to %d percentages in (0,100])",
				   s, MAX_OCC);
			free(copy);
			return -EINVAL;
		}
		env.occ[env.n_occ++] = v;
	}
	free(copy);
	if (!env.n_occ) {
		bpfmem_err("empty occupancy list");
		return -EINVAL;
	}
	return 0;
}

static int current_cgroup(void)
{
	if (bpfmem_cg_self(orig_cg, sizeof(orig_cg))) {
		bpfmem_err("cannot find this process' cgroup v2 (/proc/self/cgroup)");
		return -ENOENT;
	}
	return 0;
}

int cmd_savings(int argc, char **argv)
{
	bool series;
	int i, err;

	err = bpfmem_cli_parse(&cli, argc, argv);
	if (err)
		return err < 0 ? 0 : err;
	if (env.json && env.csv) {
		bpfmem_err("-j and --csv are exclusive");
		return 2;
	}
	if (bpfmem_loader_init(env.verbose))
		return 1;
	if (geteuid() != 0) {
		bpfmem_err("no privilege: needs root (BPF and cgroup creation)");
		return 1;
	}
	ncpus = bpfmem_online_cpus(&cpus);
	if (ncpus <= 0) {
		bpfmem_err("cannot read the online CPUs (/sys/devices/system/cpu/online): %s",
			   strerror(ncpus ? -ncpus : EINVAL));
		return 1;
	}
	if (kernel_sizes() || current_cgroup())
		return 1;
	if (access(BPFMEM_CG_ROOT "/cgroup.subtree_control", W_OK)) {
		bpfmem_err("cgroup v2 not mounted at " BPFMEM_CG_ROOT);
		return 1;
	}
	err = bpfmem_write_file(BPFMEM_CG_ROOT "/cgroup.subtree_control", "+memory");
	if (err) {
		bpfmem_err("cannot enable the memory controller in " BPFMEM_CG_ROOT ": %s",
			   strerror(-err));
		return 1;
	}
	if (check_kmem_accounting())
		return 1;
	series = bpfmem_series_present();
	bpfmem_setup_signals();

	for (i = 0; i < env.n_occ && !bpfmem_exiting; i++) {
		int b;

		for (b = 0; b < 2; b++) {
			if ((b == 0 && !env.fill_bpf) || (b == 1 && !env.fill_user))
				continue;
			if (fill_case(true, b == 0, env.occ[i]) ||
			    fill_case(false, b == 0, env.occ[i]))
				return 1;
		}
	}
	if (env.churn && !bpfmem_exiting)
		if (churn_case(true) || churn_case(false))
			return 1;

	if (env.csv_file) {
		FILE *f = fopen(env.csv_file, "w");

		if (!f) {
			bpfmem_err("cannot write %s: %s", env.csv_file, strerror(errno));
			return 1;
		}
		print_csv(f);
		fclose(f);
	}
	if (env.json)
		print_json();
	else if (env.csv)
		print_csv(stdout);
	else
		print_table(series);
	free(results);
	free(cpus);
	return 0;
}
