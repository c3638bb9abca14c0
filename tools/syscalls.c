// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem syscalls: count syscalls, their errors and latency, per syscall or per process,
 * like libbpf-tools syscount, on sparse BPF_F_NO_PREALLOC hash maps.
 *
 * Hooks (--hook, default: the first that works): fentry/fexit on x64_sys_call (6.9+),
 * kprobe/kretprobe on x64_sys_call, the raw_syscalls tracepoints (any kernel >= 6.1).
 * Each interval the aggregate map is read and emptied with lookup_and_delete_batch, so
 * it only ever holds the current interval. exit/exit_group never return: they are
 * counted at entry (syscount does not count them at all). With -L the in-flight map
 * has one entry per traced live thread, reused by each of its syscalls (no allocation
 * per syscall) and deleted when the thread exits.
 *
 * JSON (-j): one object per line and interval:
 *   {"interval":N, "time":"HH:MM:SS", "elapsed_s":S, "final":BOOL,
 *    "hook":"fentry"|"kprobe"|"tracepoint", "by":"syscall"|"process",
 *    "filter":{"pid":N|null, "cgroup":"PATH"|null, "errno":"ENAME"|null, "errors_only":BOOL},
 *    "total":{"count":N, "errors":N, "rows":N},       (rows: before -T)
 *    "rows":[{ "nr":N, "syscall":"NAME"                (per syscall)
 *            | "pid":N, "comm":"COMM",                (per process, -P)
 *              "count":N, "errors":N,
 *              "lat_ns":{"total":N, "avg":N, "max":N, "samples":N},   (-L)
 *              "hist_log2_us":[N, ...] }],            (-H: slot i counts [2^i, 2^(i+1)) us,
 *                                                      slot 0 also < 1 us; trailing zeros cut)
 *    "dropped":N, "inflight_lost":N, "missed":N,      (in this interval)
 *    "stats":{"counts_elements":N, "inflight_elements":N, "inflight_dead":N,
 *             "reaped":N, "no_start":N},              (--stats)
 *    "maps":[{"name":S, "id":N, "max_entries":N, "prealloc":BOOL, "memlock":N,
 *             "elements":N|null, "cached_bytes":N|null, "pending_bytes":N|null}, ...]}
 *   "maps" is read just before the interval's drain (peak of the interval); elements/
 *   cached/pending are null on kernels without the bpfmem series.
 *   filter.cgroup: tasks of that cgroup and of its descendants (a cgroup array and
 *   bpf_current_task_under_cgroup(), like libbpf-tools). Strings are valid UTF-8:
 *   a comm byte that is not (a name cut inside a character) is written as \u00XX.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfmem.h"
#include "../bpf/syscalls.h"
#include "syscalls.skel.h"
#include "syscalls-tables.h"

#define SC_FUNC "x64_sys_call"
#define VAL_NOHIST __builtin_offsetof(struct sc_val, hist)

enum hook { HOOK_AUTO, HOOK_FENTRY, HOOK_KPROBE, HOOK_TP };
static const char *const hook_names[] = { "auto", "fentry", "kprobe", "tracepoint" };

static struct env {
	pid_t pid;
	const char *cgroup;
	bool by_process, errors_only, latency, hist, ms, json, stats, verbose;
	int errno_filter;
	long top;
	double interval, duration;
	long max_entries, max_inflight;
	enum hook hook;
} env = { .top = 10, .max_inflight = 8192 };

struct row {
	struct sc_key key;
	struct sc_val val;
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: bpfmem syscalls [-p PID | -c CGROUP_PATH] [-P] [-x | -e ERRNO] [-L] [-H] [-m]\n"
"                       [-T N] [-i SECONDS] [-d SECONDS] [-j] [--hook fentry|kprobe|tp]\n"
"                       [--max-entries N] [--max-inflight N] [--stats] [-v] | -l\n"
"Count syscalls, their errors and latency (like syscount), in BPF_F_NO_PREALLOC maps.\n\n"
"  -p, --pid PID          only this process (tgid)\n"
"  -c, --cgroup PATH      only tasks of this cgroup v2 directory and its descendants\n"
"  -P, --process          count per process instead of per syscall\n"
"  -x, --failures         only failed syscalls\n"
"  -e, --errno ERRNO      only syscalls failing with ERRNO (name like ENOENT, or number)\n"
"  -L, --latency          measure latency: total, average, max (sorts by total time)\n"
"  -H, --histogram        also a log2 latency histogram per row (implies -L)\n"
"  -m, --milliseconds     latency in ms (default us)\n"
"  -T, --top N            print the top N rows (default 10, 0 = all)\n"
"  -i, --interval S       print every S seconds (default: once, at the end)\n"
"  -d, --duration S       trace for S seconds (default: until Ctrl-C)\n"
"  -l, --list             list the syscalls known to this build and exit\n"
"  -j, --json             one JSON object per interval (schema at the top of\n"
"                         tools/syscalls.c): interval, time, elapsed_s, final, hook, by,\n"
"                         filter, total{count,errors,rows}, rows[{nr,syscall|pid,comm,\n"
"                         count,errors,lat_ns{total,avg,max,samples},hist_log2_us}],\n"
"                         dropped, inflight_lost, missed, stats, maps[memlock,...]\n"
"      --hook HOOK        fentry|kprobe on " SC_FUNC ", or tp (raw_syscalls tracepoints);\n"
"                         default: fentry if it can attach, else kprobe, else tp\n"
"      --max-entries N    size of the aggregate map (default 512 per syscall, which holds\n"
"                         every syscall number, 4096 with -P); updates beyond it are\n"
"                         counted and reported as dropped\n"
"      --max-inflight N   size of the in-flight (per thread) map (default 8192)\n"
"      --stats            per interval: map element counts, in-flight entries of dead\n"
"                         threads (must be 0), entries removed at thread exit\n"
"  -v, --verbose          libbpf debug output\n"
"  -h, --help             this help\n");
}

static const char *sc_name(__u32 nr, char *buf, size_t len)
{
	if (nr < SYSCALL_NR_MAX && syscall_names[nr])
		return syscall_names[nr];
	snprintf(buf, len, "[%u]", nr);
	return buf;
}

static int parse_errno(const char *s)
{
	size_t i;
	long v;

	for (i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
		if (!strcmp(s, errno_names[i].name))
			return errno_names[i].nr;
	if (!bpfmem_parse_long(s, 1, 4095, &v))
		return v;
	return -1;
}

static const char *errno_name(int nr)
{
	size_t i;

	for (i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
		if (errno_names[i].nr == nr)
			return errno_names[i].name;
	return NULL;
}

static void add_row(struct row *r, const struct sc_key *key, const void *val, size_t vsize)
{
	memset(r, 0, sizeof(*r));
	r->key = *key;
	memcpy(&r->val, val, vsize);
}

/* One entry at a time (no batch ops, or a bucket larger than the room left). */
static void drain_each(int fd, size_t vsize, size_t cap, struct sc_key *key, char *val,
		       struct row *rows, size_t *got)
{
	while (*got < cap && !bpf_map_get_next_key(fd, NULL, key)) {
		if (!bpf_map_lookup_and_delete_elem(fd, key, val) ||
		    (!bpf_map_lookup_elem(fd, key, val) && !bpf_map_delete_elem(fd, key)))
			add_row(&rows[(*got)++], key, val, vsize);
	}
}

/*
 * Reads and empties the aggregate map: batch lookup-and-delete, or iterate+delete.
 * Programs keep inserting while it runs, so it may find more than @cap entries: what
 * does not fit stays in the map for the next interval.
 */
static int drain(int fd, size_t vsize, size_t cap, struct row *rows, size_t *nrows)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	struct sc_key *keys = calloc(cap, sizeof(*keys));
	char *vals = calloc(cap, vsize);
	__u32 batch, n, i;
	void *in = NULL;
	size_t got = 0;
	int err = 0;

	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	for (;;) {
		n = cap - got;
		if (!n)
			break;
		err = bpf_map_lookup_and_delete_batch(fd, in, &batch, keys, vals, &n, &opts);
		if (err && errno == ENOSPC) {
			/*
			 * The next bucket holds more entries than the room left (a batch
			 * never splits a bucket): take what fits one by one.
			 */
			err = 0;
			drain_each(fd, vsize, cap, keys, vals, rows, &got);
			break;
		}
		if (err && errno != ENOENT) {
			err = -errno;
			if (in || got)
				goto out;
			/* no batch ops for this map on this kernel: iterate and delete */
			err = 0;
			drain_each(fd, vsize, cap, keys, vals, rows, &got);
			break;
		}
		for (i = 0; i < n; i++)
			add_row(&rows[got++], &keys[i], vals + (size_t)i * vsize, vsize);
		if (err) {	/* ENOENT: that was the last batch */
			err = 0;
			break;
		}
		in = &batch;
	}
out:
	*nrows = got;
	free(keys);
	free(vals);
	return err;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (env.latency && x->val.lat_total != y->val.lat_total)
		return x->val.lat_total < y->val.lat_total ? 1 : -1;
	if (x->val.count != y->val.count)
		return x->val.count < y->val.count ? 1 : -1;
	if (x->key.tgid != y->key.tgid)
		return x->key.tgid < y->key.tgid ? -1 : 1;
	return x->key.nr < y->key.nr ? -1 : x->key.nr > y->key.nr;
}

/* Counts the in-flight entries and those whose thread no longer exists. */
static void inflight_scan(int fd, long long *elements, long long *dead)
{
	__u32 key, next, *prev = NULL;
	char path[64];

	*elements = *dead = 0;
	while (!bpf_map_get_next_key(fd, prev, &next) && *elements < 1000000) {
		(*elements)++;
		snprintf(path, sizeof(path), "/proc/%u", next);
		if (access(path, F_OK))
			(*dead)++;
		key = next;
		prev = &key;
	}
}

static void hist_slots(const struct sc_val *v, unsigned long long *slots)
{
	int i;

	for (i = 0; i < SC_HIST_SLOTS; i++)
		slots[i] = v->hist[i];
}

struct interval {
	long n;
	double elapsed;
	bool final;
	long long dropped, inflight_lost, missed;
	bool have_stats;
	long long counts_elements, inflight_elements, inflight_dead, reaped, no_start;
	bool have_maps;
	struct bpfmem_map_mem maps[3];	/* read before the drain */
};

static void print_text(struct row *rows, size_t nrows, const struct interval *iv)
{
	double div = env.ms ? 1e6 : 1e3;
	const char *unit = env.ms ? "ms" : "us";
	unsigned long long tc = 0, te = 0;
	char tbuf[16], nbuf[24];
	time_t t = time(NULL);
	size_t i, shown;

	for (i = 0; i < nrows; i++) {
		tc += rows[i].val.count;
		te += rows[i].val.errors;
	}
	shown = env.top && (size_t)env.top < nrows ? (size_t)env.top : nrows;
	strftime(tbuf, sizeof(tbuf), "%H:%M:%S", localtime(&t));
	printf("[%s]\n", tbuf);
	if (env.by_process)
		printf("%-7s %-16s", "PID", "COMM");
	else
		printf("%-22s", "SYSCALL");
	printf(" %10s %10s", "COUNT", "ERRORS");
	if (env.latency)
		printf(" %10s(%s) %8s(%s) %8s(%s)", "TOTAL", unit, "AVG", unit, "MAX", unit);
	putchar('\n');
	for (i = 0; i < shown; i++) {
		const struct sc_val *v = &rows[i].val;

		if (env.by_process)
			printf("%-7u %-16.16s", rows[i].key.tgid, v->comm);
		else
			printf("%-22s", sc_name(rows[i].key.nr, nbuf, sizeof(nbuf)));
		printf(" %10llu %10llu", (unsigned long long)v->count,
		       (unsigned long long)v->errors);
		if (env.latency)
			printf(" %14.3f %12.3f %12.3f", v->lat_total / div,
			       v->lat_samples ? v->lat_total / div / v->lat_samples : 0.0,
			       v->lat_max / div);
		putchar('\n');
		if (env.hist && v->lat_samples) {
			unsigned long long slots[SC_HIST_SLOTS];

			hist_slots(v, slots);
			bpfmem_print_log2_hist(stdout, slots, SC_HIST_SLOTS, "usecs");
		}
	}
	if (shown < nrows)
		printf("(%zu more rows; -T 0 shows all)\n", nrows - shown);
	printf("total: %llu syscalls, %llu errors, %zu rows\n", tc, te, nrows);
	if (iv->dropped)
		printf("%lld events dropped (map full)\n", iv->dropped);
	if (iv->missed)
		printf("%lld events missed (the kernel skipped our programs: recursion, or a "
		       "preempted run on the same CPU)\n", iv->missed);
	if (iv->inflight_lost)
		printf("%lld latency samples lost (in-flight map full)\n", iv->inflight_lost);
	if (iv->have_stats)
		printf("stats: counts elements %lld (before drain), inflight elements %lld "
		       "(dead threads %lld), reaped at exit %lld, returns without entry %lld\n",
		       iv->counts_elements, iv->inflight_elements, iv->inflight_dead, iv->reaped,
		       iv->no_start);
	if (iv->final && iv->have_maps) {
		printf("memory of our maps (read before the final drain):\n");
		for (i = 0; i < sizeof(iv->maps) / sizeof(iv->maps[0]); i++) {
			fputs("  ", stdout);
			bpfmem_map_mem_print(stdout, &iv->maps[i]);
		}
	}
	putchar('\n');
	fflush(stdout);
}

static void print_json(struct row *rows, size_t nrows, const struct interval *iv)
{
	unsigned long long tc = 0, te = 0;
	time_t t = time(NULL);
	char tbuf[16], nbuf[24];
	size_t i, shown;
	struct jw jw;

	for (i = 0; i < nrows; i++) {
		tc += rows[i].val.count;
		te += rows[i].val.errors;
	}
	shown = env.top && (size_t)env.top < nrows ? (size_t)env.top : nrows;
	strftime(tbuf, sizeof(tbuf), "%H:%M:%S", localtime(&t));
	jw_init(&jw, stdout);
	jw_start_object(&jw);
	jw_int_field(&jw, "interval", iv->n);
	jw_string_field(&jw, "time", tbuf);
	jw_float_field(&jw, "elapsed_s", "%.3f", iv->elapsed);
	jw_bool_field(&jw, "final", iv->final);
	jw_string_field(&jw, "hook", hook_names[env.hook]);
	jw_string_field(&jw, "by", env.by_process ? "process" : "syscall");
	jw_name(&jw, "filter");
	jw_start_object(&jw);
	jw_name(&jw, "pid");
	if (env.pid)
		jw_int(&jw, env.pid);
	else
		jw_null(&jw);
	jw_string_or_null_field(&jw, "cgroup", env.cgroup);
	jw_name(&jw, "errno");
	if (env.errno_filter) {
		const char *en = errno_name(env.errno_filter);

		if (!en) {
			snprintf(nbuf, sizeof(nbuf), "%d", env.errno_filter);
			en = nbuf;
		}
		jw_string(&jw, en);
	} else {
		jw_null(&jw);
	}
	jw_bool_field(&jw, "errors_only", env.errors_only);
	jw_end_object(&jw);
	jw_name(&jw, "total");
	jw_start_object(&jw);
	jw_uint_field(&jw, "count", tc);
	jw_uint_field(&jw, "errors", te);
	jw_uint_field(&jw, "rows", nrows);
	jw_end_object(&jw);
	jw_name(&jw, "rows");
	jw_start_array(&jw);
	for (i = 0; i < shown; i++) {
		const struct sc_val *v = &rows[i].val;

		jw_start_object(&jw);
		if (env.by_process) {
			jw_uint_field(&jw, "pid", rows[i].key.tgid);
			jw_name(&jw, "comm");
			jw_stringn(&jw, v->comm, sizeof(v->comm));
		} else {
			jw_uint_field(&jw, "nr", rows[i].key.nr);
			jw_string_field(&jw, "syscall", sc_name(rows[i].key.nr, nbuf, sizeof(nbuf)));
		}
		jw_uint_field(&jw, "count", v->count);
		jw_uint_field(&jw, "errors", v->errors);
		if (env.latency) {
			jw_name(&jw, "lat_ns");
			jw_start_object(&jw);
			jw_uint_field(&jw, "total", v->lat_total);
			jw_uint_field(&jw, "avg", v->lat_samples ? v->lat_total / v->lat_samples : 0);
			jw_uint_field(&jw, "max", v->lat_max);
			jw_uint_field(&jw, "samples", v->lat_samples);
			jw_end_object(&jw);
		}
		if (env.hist) {
			unsigned long long slots[SC_HIST_SLOTS];

			hist_slots(v, slots);
			jw_name(&jw, "hist_log2_us");
			bpfmem_json_log2_hist(&jw, slots, SC_HIST_SLOTS);
		}
		jw_end_object(&jw);
	}
	jw_end_array(&jw);
	jw_int_field(&jw, "dropped", iv->dropped);
	jw_int_field(&jw, "inflight_lost", iv->inflight_lost);
	jw_int_field(&jw, "missed", iv->missed);
	if (iv->have_stats) {
		jw_name(&jw, "stats");
		jw_start_object(&jw);
		jw_int_field(&jw, "counts_elements", iv->counts_elements);
		jw_int_field(&jw, "inflight_elements", iv->inflight_elements);
		jw_int_field(&jw, "inflight_dead", iv->inflight_dead);
		jw_int_field(&jw, "reaped", iv->reaped);
		jw_int_field(&jw, "no_start", iv->no_start);
		jw_end_object(&jw);
	}
	jw_name(&jw, "maps");
	jw_start_array(&jw);
	for (i = 0; iv->have_maps && i < sizeof(iv->maps) / sizeof(iv->maps[0]); i++)
		bpfmem_map_mem_json(&jw, &iv->maps[i]);
	jw_end_array(&jw);
	jw_end_object(&jw);
	fflush(stdout);
}

/* Map memory of all our maps, read now (before the interval's drain), printed later. */
static void snapshot_maps(struct syscalls_bpf *skel, struct interval *iv)
{
	bpfmem_map_mem_read(&iv->maps[0], "counts", bpf_map__fd(skel->maps.counts));
	bpfmem_map_mem_read(&iv->maps[1], "inflight", bpf_map__fd(skel->maps.inflight));
	bpfmem_map_mem_read(&iv->maps[2], "stats", bpf_map__fd(skel->maps.stats));
	iv->have_maps = true;
}

static void list_syscalls(void)
{
	int i;

	for (i = 0; i < SYSCALL_NR_MAX; i++)
		if (syscall_names[i])
			printf("%3d %s\n", i, syscall_names[i]);
}

static int nr_of(const char *name)
{
	int i;

	for (i = 0; i < SYSCALL_NR_MAX; i++)
		if (syscall_names[i] && !strcmp(syscall_names[i], name))
			return i;
	return -1;
}

static int parse_args(int argc, char **argv, bool *list)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "cgroup", required_argument, NULL, 'c' },
		{ "process", no_argument, NULL, 'P' },
		{ "failures", no_argument, NULL, 'x' },
		{ "errno", required_argument, NULL, 'e' },
		{ "latency", no_argument, NULL, 'L' },
		{ "histogram", no_argument, NULL, 'H' },
		{ "milliseconds", no_argument, NULL, 'm' },
		{ "top", required_argument, NULL, 'T' },
		{ "interval", required_argument, NULL, 'i' },
		{ "duration", required_argument, NULL, 'd' },
		{ "list", no_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "hook", required_argument, NULL, 1 },
		{ "max-entries", required_argument, NULL, 2 },
		{ "max-inflight", required_argument, NULL, 3 },
		{ "stats", no_argument, NULL, 4 },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	unsigned long long cgid;
	int c;

	while ((c = getopt_long(argc, argv, "p:c:Pxe:LHmT:i:d:ljvh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (bpfmem_parse_pid(optarg, &env.pid))
				return 2;
			break;
		case 'c':
			env.cgroup = optarg;
			break;
		case 'P': env.by_process = true; break;
		case 'x': env.errors_only = true; break;
		case 'e':
			env.errno_filter = parse_errno(optarg);
			if (env.errno_filter < 0) {
				bpfmem_err("invalid errno '%s' (a name like ENOENT, or 1..4095)", optarg);
				return 2;
			}
			break;
		case 'L': env.latency = true; break;
		case 'H': env.hist = env.latency = true; break;
		case 'm': env.ms = true; break;
		case 'T':
			if (bpfmem_parse_long(optarg, 0, INT_MAX, &env.top)) {
				bpfmem_err("invalid -T '%s' (0 = all rows)", optarg);
				return 2;
			}
			break;
		case 'i':
			if (bpfmem_parse_seconds(optarg, &env.interval))
				return 2;
			break;
		case 'd':
			if (bpfmem_parse_seconds(optarg, &env.duration))
				return 2;
			break;
		case 'l': *list = true; break;
		case 'j': env.json = true; break;
		case 1:
			if (!strcmp(optarg, "fentry"))
				env.hook = HOOK_FENTRY;
			else if (!strcmp(optarg, "kprobe"))
				env.hook = HOOK_KPROBE;
			else if (!strcmp(optarg, "tp") || !strcmp(optarg, "tracepoint"))
				env.hook = HOOK_TP;
			else {
				bpfmem_err("invalid --hook '%s' (fentry|kprobe|tp)", optarg);
				return 2;
			}
			break;
		case 2:
			if (bpfmem_parse_long(optarg, 1, 1 << 24, &env.max_entries)) {
				bpfmem_err("invalid --max-entries '%s' (1..16777216)", optarg);
				return 2;
			}
			break;
		case 3:
			if (bpfmem_parse_long(optarg, 1, 1 << 24, &env.max_inflight)) {
				bpfmem_err("invalid --max-inflight '%s' (1..16777216)", optarg);
				return 2;
			}
			break;
		case 4: env.stats = true; break;
		case 'v': env.verbose = true; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return 2;
		}
	}
	if (bpfmem_no_operands(argc, argv))
		return 2;
	if (env.pid && env.cgroup) {
		bpfmem_err("-p and -c are exclusive");
		return 2;
	}
	if (env.errors_only && env.errno_filter) {
		bpfmem_err("-x and -e are exclusive");
		return 2;
	}
	if (env.cgroup && bpfmem_cgroup_id(env.cgroup, &cgid))
		return 2;
	if (!env.max_entries)	/* per syscall: one entry per syscall number at most */
		env.max_entries = env.by_process ? 4096 : (SYSCALL_NR_MAX + 63) / 64 * 64;
	return 0;
}

static enum hook pick_hook(void)
{
	if (bpfmem_fentry_can_attach(SC_FUNC))
		return HOOK_FENTRY;
	if (bpfmem_kprobe_exists(SC_FUNC))
		return HOOK_KPROBE;
	return HOOK_TP;
}

int cmd_syscalls(int argc, char **argv)
{
	struct syscalls_bpf *skel = NULL;
	struct row *rows = NULL;
	size_t vsize, nrows;
	long long prev_stat[SC_NSTATS] = {}, cur, prev_missed = 0;
	double start, next, end, t;
	bool list = false, last = false;
	int err, counts_fd, stats_fd, i, ret = 1;
	long n = 0;

	if (parse_args(argc, argv, &list))
		return 2;
	if (list) {
		list_syscalls();
		return 0;
	}
	if (bpfmem_loader_init(env.verbose))
		return 1;
	if (env.hook == HOOK_AUTO)
		env.hook = pick_hook();

	skel = syscalls_bpf__open();
	if (!skel) {
		bpfmem_err("cannot open BPF object: %s", strerror(errno));
		return 1;
	}
	skel->rodata->self_tgid = getpid();
	skel->rodata->filter_tgid = env.pid;
	skel->rodata->filter_cg = env.cgroup != NULL;
	skel->rodata->by_process = env.by_process;
	skel->rodata->measure_latency = env.latency;
	skel->rodata->want_hist = env.hist;
	skel->rodata->errors_only = env.errors_only;
	skel->rodata->filter_errno = env.errno_filter;
	skel->rodata->nr_exit = nr_of("exit");
	skel->rodata->nr_exit_group = nr_of("exit_group");

	vsize = env.hist ? sizeof(struct sc_val) : VAL_NOHIST;
	err = bpf_map__set_value_size(skel->maps.counts, vsize);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.counts, env.max_entries);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.inflight, env.max_inflight);
	if (err) {
		bpfmem_err("cannot size the maps: %s", strerror(-err));
		goto out;
	}
	bpf_program__set_autoload(skel->progs.sc_fentry, env.hook == HOOK_FENTRY && env.latency);
	bpf_program__set_autoload(skel->progs.sc_fentry_exit, env.hook == HOOK_FENTRY && !env.latency);
	bpf_program__set_autoload(skel->progs.sc_fentry_exit_group,
				  env.hook == HOOK_FENTRY && !env.latency);
	bpf_program__set_autoload(skel->progs.sc_kprobe_exit, env.hook == HOOK_KPROBE && !env.latency);
	bpf_program__set_autoload(skel->progs.sc_kprobe_exit_group,
				  env.hook == HOOK_KPROBE && !env.latency);
	bpf_program__set_autoload(skel->progs.sc_fexit, env.hook == HOOK_FENTRY);
	bpf_program__set_autoload(skel->progs.sc_kprobe, env.hook == HOOK_KPROBE && env.latency);
	bpf_program__set_autoload(skel->progs.sc_kretprobe, env.hook == HOOK_KPROBE);
	bpf_program__set_autoload(skel->progs.sc_tp_enter, env.hook == HOOK_TP);
	bpf_program__set_autoload(skel->progs.sc_tp_exit, env.hook == HOOK_TP);
	bpf_program__set_autoload(skel->progs.sc_thread_exit, env.latency);
	bpf_program__set_autoattach(skel->progs.sc_thread_exit, false);

	err = syscalls_bpf__load(skel);
	if (err) {
		bpfmem_err("cannot load BPF programs (hook %s): %s%s", hook_names[env.hook],
			   strerror(-err), env.verbose ? "" : " (-v for details)");
		goto out;
	}
	if (env.cgroup) {	/* before attaching: no event of another cgroup is counted */
		int cg_fd = open(env.cgroup, O_RDONLY | O_DIRECTORY), zero = 0;

		err = cg_fd < 0 ? -errno : 0;
		if (!err && bpf_map_update_elem(bpf_map__fd(skel->maps.cgroup_map), &zero, &cg_fd,
						BPF_ANY))
			err = -errno;
		if (cg_fd >= 0)
			close(cg_fd);
		if (err) {
			bpfmem_err("cannot use cgroup %s: %s", env.cgroup, strerror(-err));
			goto out;
		}
	}
	/*
	 * Reap hook first: a thread that enters a syscall after the entry hook is
	 * attached and exits before the reap hook is would leave a dead entry.
	 */
	if (env.latency) {
		skel->links.sc_thread_exit = bpf_program__attach(skel->progs.sc_thread_exit);
		if (!skel->links.sc_thread_exit) {
			err = -errno;
			bpfmem_err("cannot attach sched_process_exit: %s", strerror(-err));
			goto out;
		}
	}
	err = syscalls_bpf__attach(skel);
	if (err) {
		bpfmem_err("cannot attach %s%s: %s", hook_names[env.hook],
			   env.hook == HOOK_TP ? " to raw_syscalls" : " to " SC_FUNC, strerror(-err));
		goto out;
	}
	counts_fd = bpf_map__fd(skel->maps.counts);
	stats_fd = bpf_map__fd(skel->maps.stats);
	rows = calloc(env.max_entries, sizeof(*rows));
	if (!rows) {
		bpfmem_err("out of memory");
		goto out;
	}
	bpfmem_setup_signals();
	fprintf(stderr, "Tracing syscalls (hook %s%s%s)... Hit Ctrl-C to end.\n",
		hook_names[env.hook], env.hook == HOOK_TP ? " on raw_syscalls" : " on " SC_FUNC,
		env.latency ? ", with latency" : "");

	start = bpfmem_mono_s();
	end = env.duration ? start + env.duration : 0;
	while (!last) {
		struct interval iv = {};

		next = env.interval ? bpfmem_mono_s() + env.interval : 0;
		if (end && (!next || next > end))
			next = end;
		for (;;) {
			if (bpfmem_exiting)
				break;
			t = bpfmem_mono_s();
			if (next && t >= next)
				break;
			/* until the interval ends, or (none) a signal; Ctrl-C ends it at once */
			bpfmem_wait(next ? next - t : -1);
		}
		last = bpfmem_exiting || (end && bpfmem_mono_s() >= end - 1e-3);
		iv.n = ++n;
		iv.final = last;
		iv.elapsed = bpfmem_mono_s() - start;
		if (last || env.json)
			snapshot_maps(skel, &iv);
		if (env.stats) {
			iv.have_stats = true;
			iv.counts_elements = bpfmem_count_keys(counts_fd, sizeof(struct sc_key),
							       10000000);
		}
		err = drain(counts_fd, vsize, env.max_entries, rows, &nrows);
		if (err) {
			bpfmem_err("cannot read the aggregate map: %s", strerror(-err));
			goto out;
		}
		for (i = 0; i < SC_NSTATS; i++) {
			cur = bpfmem_percpu_sum(stats_fd, i);
			if (cur < 0) {
				bpfmem_err("cannot read the stats map: %s", strerror(-cur));
				goto out;
			}
			if (i == SC_DROPPED)
				iv.dropped = cur - prev_stat[i];
			else if (i == SC_INFLIGHT_LOST)
				iv.inflight_lost = cur - prev_stat[i];
			else if (i == SC_REAPED)
				iv.reaped = cur;
			else if (i == SC_NO_START)
				iv.no_start = cur;
			prev_stat[i] = cur;
		}
		cur = bpfmem_prog_misses(skel->obj);
		iv.missed = cur - prev_missed;
		prev_missed = cur;
		if (env.stats)
			inflight_scan(bpf_map__fd(skel->maps.inflight), &iv.inflight_elements,
				      &iv.inflight_dead);
		qsort(rows, nrows, sizeof(*rows), cmp_rows);
		if (env.json)
			print_json(rows, nrows, &iv);
		else
			print_text(rows, nrows, &iv);
	}
	ret = 0;
out:
	free(rows);
	syscalls_bpf__destroy(skel);
	return ret;
}
