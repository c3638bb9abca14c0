// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem savings: memory a BPF_F_NO_PREALLOC hash map saves against the same map
 * preallocated, measured in the memory cgroup the map is charged to. --lru: LRU hash
 * maps (BPF_F_NO_PREALLOC for them is bpfmem series patch 11).
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
 * a map's own cgroup is probed first (sav_check_kmem_accounting()).
 *
 * This file is the command and its measurement (options, the maps and their fills,
 * sizes from BTF); tools/savings/ the rest: cgroup.c the cgroup plumbing, churn.c the
 * churn case, print.c the table, CSV and JSON printers, savings.h what they share.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "cmds.h"
#include "libbpfmem.h"
#include "savings.skel.h"
#include "savings/savings.h"

#define SAVINGS_MAX_KV 1024	/* bpf/savings.bpf.c scratch size */

struct savings_env sav_env = {
	.key_size = 40, .value_size = 48, .max_entries = 10240,
	.occ = { 0.1, 1, 10, 50, 100 }, .n_occ = 5,
	.fill_bpf = true, .fill_user = true, .churn = true,
	.churn_occ = 50, .churn_rounds = 16, .settle = 2,
};

struct result *sav_results;
int sav_n_results;
static size_t cap_results;
long long sav_elem_bytes, sav_bucket_bytes, sav_n_buckets;
int sav_ncpus;
int *sav_cpus;

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
	{ OPT_LRU, "lru", NULL, "LRU hash maps (BPF_F_NO_PREALLOC needs series patch 11)",
	  .flag = &sav_env.lru },
	{ 'j', "json", NULL, "JSON, one object per measurement:\n"
	  "{mode,fill,occupancy_pct,elements,memory_bytes,kernel_bytes,\n"
	  "memlock_bytes,cached_bytes,pending_bytes,floor_bytes,key_size,\n"
	  "value_size,max_entries,element_bytes,bucket_bytes,\n"
	  "forced_dynamic,fill_failures,map_type} (null = n/a)",
	  .flag = &sav_env.json },
	{ OPT_CSV, "csv", NULL, "CSV (same fields) instead of the table",
	  .flag = &sav_env.csv },
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
		if (bpfmem_parse_long(arg, 4, SAVINGS_MAX_KV, &sav_env.key_size)) {
			bpfmem_err("invalid key size '%s' (4..%d)", arg, SAVINGS_MAX_KV);
			return -EINVAL;
		}
		return 0;
	case 'V':
		if (bpfmem_parse_long(arg, 4, SAVINGS_MAX_KV, &sav_env.value_size)) {
			bpfmem_err("invalid value size '%s' (4..%d)", arg, SAVINGS_MAX_KV);
			return -EINVAL;
		}
		return 0;
	case 'e':
		if (bpfmem_parse_long(arg, 16, 1 << 22, &sav_env.max_entries)) {
			bpfmem_err("invalid max entries '%s' (16..%d)", arg, 1 << 22);
			return -EINVAL;
		}
		return 0;
	case 'o':
		return parse_occ(arg);
	case OPT_FILL:
		if (!strcmp(arg, "bpf")) {
			sav_env.fill_user = false;
		} else if (!strcmp(arg, "user")) {
			sav_env.fill_bpf = false;
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
		sav_env.churn_occ = v;
		return 0;
	case OPT_NO_CHURN:
		sav_env.churn = false;
		return 0;
	case OPT_ROUNDS:
		if (bpfmem_parse_long(arg, 1, 10000, &sav_env.churn_rounds)) {
			bpfmem_err("invalid --rounds '%s'", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_SETTLE:
		return bpfmem_parse_seconds(arg, &sav_env.settle);
	case OPT_CSV_FILE:
		sav_env.csv_file = arg;
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
	.verbose = &sav_env.verbose,
};

/* ---- the map and its fills ---- */

int sav_create_in_cgroup(const char *cg, bool prealloc)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = prealloc ? 0 : BPF_F_NO_PREALLOC);
	int fd, err;

	if (sav_move_self(cg))
		return -1;
	fd = bpf_map_create(sav_env.lru ? BPF_MAP_TYPE_LRU_HASH : BPF_MAP_TYPE_HASH,
			    prealloc ? "sav_prealloc" : "sav_dynamic",
			    sav_env.key_size, sav_env.value_size, sav_env.max_entries, &o);
	err = errno;
	if (sav_move_self(sav_orig_cg)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (fd < 0 && sav_env.lru && !prealloc && err == 524 /* ENOTSUPP */)
		bpfmem_err("this kernel has no LRU hash maps with BPF_F_NO_PREALLOC "
			   "(bpfmem series patch 11)");
	else if (fd < 0)
		bpfmem_err("cannot create the %s map (key %ld, value %ld, %ld entries): %s",
			   prealloc ? "preallocated" : "dynamic", sav_env.key_size, sav_env.value_size,
			   sav_env.max_entries, strerror(err));
	return fd;
}

struct savings_bpf *sav_load_filler(int map_fd)
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
long long sav_bpf_ops(struct savings_bpf *skel, long long start, long long count, int op,
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

long long sav_count_elements(int fd)
{
	long long n = bpfmem_count_keys(fd, sav_env.key_size, LLONG_MAX);

	return n < 0 ? -1 : n;
}

static long long floor_of(long long elements)
{
	return elements * sav_elem_bytes + sav_bucket_bytes;
}

int sav_add_result(const char *mode, const char *fill, double occ, int fd, const char *cg,
	       long long elements, long long fails)
{
	struct bpfmem_map_info mi;
	struct result *r;

	if (bpfmem_grow(&sav_results, &cap_results, (size_t)sav_n_results + 1, sizeof(*sav_results)))
		return -ENOMEM;
	r = &sav_results[sav_n_results];
	memset(r, 0, sizeof(*r));
	r->mode = mode;
	r->fill = fill;
	r->occ = occ;
	r->elements = elements;
	if (sav_measure_cg(cg, &r->memory, &r->kernel))
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
	sav_n_results++;
	return 0;
}

long long sav_target_of(double occ)
{
	long long n = (long long)(occ / 100.0 * sav_env.max_entries + 0.5);

	return n < 1 ? 1 : n;
}

/* one fill case: fresh cgroup, map, fill to @occ, measure */
static int fill_case(bool prealloc, bool bpf, double occ)
{
	struct savings_bpf *skel = NULL;
	long long n = sav_target_of(occ), done, elems, fails = 0;
	char cg[128];
	int fd, err = -1;

	if (sav_new_cgroup(cg, sizeof(cg)))
		return -1;
	fd = sav_create_in_cgroup(cg, prealloc);
	if (fd < 0)
		goto out_cg;
	if (bpf) {
		skel = sav_load_filler(fd);
		if (!skel)
			goto out;
		done = sav_bpf_ops(skel, 0, n, 0, -1, &fails);
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
	elems = sav_count_elements(fd);
	/* an LRU map may evict before it is full: a CPU takes its free nodes from
	 * the global list in batches, and evicts when the last batch is short
	 */
	if (elems != n && !(sav_env.lru && elems <= n)) {
		bpfmem_err("map holds %lld elements after inserting %lld", elems, n);
		goto out;
	}
	err = sav_add_result(prealloc ? "prealloc" : "dynamic", bpf ? "bpf" : "user", occ, fd, cg,
			 elems, fails);
out:
	savings_bpf__destroy(skel);
	close(fd);
out_cg:
	sav_remove_cgroup(cg);
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
	if (he > 0 && sav_env.lru && !btf_has_member(btf, id, "lru_node")) {
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
	sav_elem_bytes = he + ((sav_env.key_size + 7) & ~7L) + ((sav_env.value_size + 7) & ~7L);
	sav_n_buckets = 1;
	while (sav_n_buckets < sav_env.max_entries)
		sav_n_buckets <<= 1;
	sav_bucket_bytes = sav_n_buckets * b;
	return 0;
}

static int parse_occ(const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL, *end;

	sav_env.n_occ = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		double v;

		errno = 0;
		v = strtod(tok, &end);
		if (errno || end == tok || *end || !(v > 0) || v > 100 || sav_env.n_occ == MAX_OCC) {
			bpfmem_err("invalid occupancy list '%s' (up to %d percentages in (0,100])",
				   s, MAX_OCC);
			free(copy);
			return -EINVAL;
		}
		sav_env.occ[sav_env.n_occ++] = v;
	}
	free(copy);
	if (!sav_env.n_occ) {
		bpfmem_err("empty occupancy list");
		return -EINVAL;
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
	if (sav_env.json && sav_env.csv) {
		bpfmem_err("-j and --csv are exclusive");
		return 2;
	}
	if (bpfmem_loader_init(sav_env.verbose))
		return 1;
	if (geteuid() != 0) {
		bpfmem_err("no privilege: needs root (BPF and cgroup creation)");
		return 1;
	}
	sav_ncpus = bpfmem_online_cpus(&sav_cpus);
	if (sav_ncpus <= 0) {
		bpfmem_err("cannot read the online CPUs (/sys/devices/system/cpu/online): %s",
			   strerror(sav_ncpus ? -sav_ncpus : EINVAL));
		return 1;
	}
	if (kernel_sizes() || sav_current_cgroup())
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
	if (sav_check_kmem_accounting())
		return 1;
	series = bpfmem_series_present();
	bpfmem_setup_signals();

	for (i = 0; i < sav_env.n_occ && !bpfmem_exiting; i++) {
		int b;

		for (b = 0; b < 2; b++) {
			if ((b == 0 && !sav_env.fill_bpf) || (b == 1 && !sav_env.fill_user))
				continue;
			if (fill_case(true, b == 0, sav_env.occ[i]) ||
			    fill_case(false, b == 0, sav_env.occ[i]))
				return 1;
		}
	}
	if (sav_env.churn && !bpfmem_exiting)
		if (sav_churn_case(true) || sav_churn_case(false))
			return 1;

	if (sav_env.csv_file) {
		FILE *f = fopen(sav_env.csv_file, "w");

		if (!f) {
			bpfmem_err("cannot write %s: %s", sav_env.csv_file, strerror(errno));
			return 1;
		}
		sav_print_csv(f);
		fclose(f);
	}
	if (sav_env.json)
		sav_print_json();
	else if (sav_env.csv)
		sav_print_csv(stdout);
	else
		sav_print_table(series);
	free(sav_results);
	free(sav_cpus);
	return 0;
}
