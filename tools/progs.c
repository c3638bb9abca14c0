// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem progs: what every BPF program costs, per interval, next to the memory of
 * the maps it uses (as bpftop and Inspektor Gadget's top-ebpf show programs, plus
 * what only the bpfmem series gives: allocator cached bytes of those maps).
 *
 * Run time and run counts come from bpf_prog_info (run_time_ns, run_cnt), which the
 * kernel keeps only while somebody holds BPF_ENABLE_STATS: this command holds it while
 * it runs (the kernel drops it when the command exits). recursion_misses is kept
 * always. Per interval, the deltas: runs, run time, average run time, CPU share of
 * one CPU, misses. A program loaded meanwhile counts from 0.
 *
 * JSON (-j): one object per line.
 *  {"type":"interval","time":"HH:MM:SS","ts":UNIX_SECONDS,"interval_s":S,
 *   "stats_enabled":BOOL,"owners_source":S,"programs":N,"progs":[PROG...]}
 *                                                          sorted by -s, at most -T
 *  PROG = {"id":N,"type":S,"name":S,"runs":N,"run_time_ns":N,"avg_ns":N|null,
 *          "cpu_pct":X,"recursion_misses":N,"runs_total":N,"run_time_ns_total":N,
 *          "recursion_misses_total":N,"rt_nonpreempt":0|1|null,"map_ids":[N...],
 *          "map_memlock":N,"map_cached_bytes":N|null,
 *          "owners":[{"pid":N,"comm":S}]}
 *   (runs/run_time_ns/recursion_misses: in the interval; _total: since the program
 *   was loaded, run counts only while stats were enabled; map_memlock: the sum of
 *   the memlock of its maps, map_cached_bytes: of the allocator cached and pending
 *   bytes, null on a kernel without the bpfmem series; rt_nonpreempt: 1 if the
 *   program runs with preemption disabled on PREEMPT_RT (series patch 20), null on
 *   other kernels; owners: the processes holding a file descriptor of the program, at
 *   most 8, in pid order)
 *  "owners_source" (in each interval object, after "stats_enabled"): "iterator"|"proc",
 *  where the owners came from (tools/collect/owners.h)
 *
 * Privilege: CAP_SYS_ADMIN (programs and maps by id, BPF_ENABLE_STATS), not uid 0.
 * Owners come from a task_file iterator (bpf/owners.bpf.c: vmlinux BTF, CAP_BPF and
 * CAP_PERFMON), else from /proc/PID/fd (the holders this process may ptrace): the
 * rest needs no BTF.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cmds.h"
#include "libbpfmem.h"
#include "map_sample.h"
#include "prog_sample.h"

enum sort_key { S_RUNTIME, S_RUNS, S_MISSES, S_ID };

static struct {
	struct bpfmem_interval loop;	/* -i, -d, -n */
	long top, id;
	int sort;	/* enum sort_key */
	bool json, verbose;
} env = { .loop.interval = 1, .top = 20, .id = -1 };

struct row {
	const struct bpfmem_prog_row *p;
	unsigned long long runs, rt, misses;
	long long memlock, cached;	/* cached: -1 without the series */
};

enum { OPT_ID = 256 };

static const struct bpfmem_opt opts[] = {
	{ 'i', "interval", "S", "print every S seconds (default 1)" },
	{ 'd', "duration", "S", "stop after S seconds (default: until Ctrl-C)" },
	{ 'n', "count", "N", "stop after N intervals" },
	{ 'T', "top", "N", "rows per interval (default 20, 0: all)" },
	{ 's', "sort", "KEY", "runtime (default), runs, misses or id" },
	{ OPT_ID, "id", "ID", "this program only" },
	{ 'j', "json", NULL, "JSON, one object per interval (schema: tools/progs.c):\n"
	  "{\"type\":\"interval\",\"time\",\"ts\",\"interval_s\",\n"
	  "\"stats_enabled\",\"programs\",\"progs\":[{\"id\",\"type\",\n"
	  "\"name\",\"runs\",\"run_time_ns\",\"avg_ns\",\"cpu_pct\",\n"
	  "\"recursion_misses\",\"runs_total\",\"run_time_ns_total\",\n"
	  "\"recursion_misses_total\",\"rt_nonpreempt\",\"map_ids\",\n"
	  "\"map_memlock\",\"map_cached_bytes\",\"owners\":[{\"pid\",\"comm\"}]}],\n"
	  "\"owners_source\"}",
	  .flag = &env.json },
	{},
};

/* the EXAMPLES of -h, which bpfmem-progs(8) lists too (tests/unit/check-man.py) */
static const struct bpfmem_example examples[] = {
	{ "bpfmem progs -d 10", "the 20 programs that ran longest in each second, for 10 seconds" },
	{ "bpfmem progs -s misses -T 0 -n 1 -i 5",
	  "every program over 5 seconds, most missed runs first" },
	{ "bpfmem progs -s runs -T 5 -i 10", "the 5 programs run most often, every 10 seconds" },
	{ "bpfmem progs --id 42 -j", "one program, as JSON, every second" },
	{},
};

static int parse_opt(int key, const char *arg, void *ctx)
{
	static const char *const sorts[] = { "runtime", "runs", "misses", "id" };

	switch (key) {
	case 'i':
	case 'd':
	case 'n':
		return bpfmem_interval_opt(&env.loop, key, arg);
	case 'T':
		if (bpfmem_parse_long(arg, 0, INT_MAX, &env.top)) {
			bpfmem_err("invalid -T '%s'", arg);
			return -EINVAL;
		}
		return 0;
	case 's':
		return bpfmem_parse_choice(arg, sorts, sizeof(sorts) / sizeof(sorts[0]),
					   "sort key", &env.sort);
	case OPT_ID:
		return bpfmem_parse_id(arg, "program", &env.id);
	}
	return -EINVAL;
}

static const struct bpfmem_cli cli = {
	.usage = "[-i SECONDS] [-d SECONDS | -n COUNT] [-T N]\n"
		 "                    [-s runtime|runs|misses|id] [--id ID] [-j] [-v]",
	.doc = "Run time, runs and recursion misses of every BPF program per interval, with the\n"
	       "memory of the maps each one uses. Holds BPF_ENABLE_STATS while it runs.",
	.opts = opts,
	.examples = examples,
	.parse = parse_opt,
	.verbose = &env.verbose,
};

/* the previous sample of a program, by id (both samples are in id order) */
static const struct bpfmem_prog_row *find_prev(const struct bpfmem_progs_sample *prev, __u32 id)
{
	return bpfmem_find_id(prev->rows, prev->n, sizeof(*prev->rows),
			      offsetof(struct bpfmem_prog_row, info.id), id);
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	unsigned long long u, v;

	switch (env.sort) {
	case S_RUNS: u = x->runs; v = y->runs; break;
	case S_MISSES: u = x->misses; v = y->misses; break;
	case S_ID: return x->p->info.id < y->p->info.id ? -1 : 1;
	default: u = x->rt; v = y->rt; break;
	}
	if (u != v)
		return u > v ? -1 : 1;
	return x->p->info.id < y->p->info.id ? -1 : 1;
}

static void print_interval(const struct bpfmem_progs_sample *cur,
			   const struct bpfmem_progs_sample *prev,
			   const struct bpfmem_maps_sample *maps, double secs, bool stats)
{
	struct row *rows = calloc(cur->n + 1, sizeof(*rows));
	size_t i, n = 0, shown;
	time_t t = time(NULL);
	char ts[16];
	__u32 k;
	int o;

	if (!rows) {
		bpfmem_err("out of memory");
		return;
	}
	for (i = 0; i < cur->n; i++) {
		const struct bpfmem_prog_row *p = &cur->rows[i], *q;
		struct row *r = &rows[n];

		if (env.id >= 0 && p->info.id != env.id)
			continue;
		q = find_prev(prev, p->info.id);
		r->p = p;
		/* counters only grow; a program that was not there counts from 0 */
		r->runs = p->info.run_cnt - (q ? q->info.run_cnt : 0);
		r->rt = p->info.run_time_ns - (q ? q->info.run_time_ns : 0);
		r->misses = p->info.recursion_misses - (q ? q->info.recursion_misses : 0);
		r->cached = maps->have_ma || maps->series ? 0 : -1;
		for (k = 0; k < p->n_maps; k++) {
			const struct bpfmem_map_row *m = bpfmem_maps_find(maps, p->map_ids[k]);

			if (!m)
				continue;
			r->memlock += m->fdi.memlock;
			if (r->cached >= 0 && m->fdi.cached_bytes >= 0)
				r->cached += m->fdi.cached_bytes +
					     (m->fdi.pending_bytes > 0 ? m->fdi.pending_bytes : 0);
		}
		n++;
	}
	qsort(rows, n, sizeof(*rows), row_cmp);
	shown = env.top && (size_t)env.top < n ? (size_t)env.top : n;
	strftime(ts, sizeof(ts), "%H:%M:%S", localtime(&t));

	if (env.json) {
		struct jw jw;

		jw_init(&jw, stdout);
		jw_start_object(&jw);
		jw_string_field(&jw, "type", "interval");
		jw_string_field(&jw, "time", ts);
		jw_int_field(&jw, "ts", (long long)t);
		jw_float_field(&jw, "interval_s", "%.3f", secs);
		jw_bool_field(&jw, "stats_enabled", stats);
		jw_string_or_null_field(&jw, "owners_source", cur->owners_source);
		jw_uint_field(&jw, "programs", n);
		jw_name(&jw, "progs");
		jw_start_array(&jw);
		for (i = 0; i < shown; i++) {
			const struct row *r = &rows[i];
			const struct bpf_prog_info *in = &r->p->info;
			const char *type = libbpf_bpf_prog_type_str(in->type);

			jw_start_object(&jw);
			jw_uint_field(&jw, "id", in->id);
			jw_string_field(&jw, "type", type ? type : "unknown");
			jw_string_field(&jw, "name", in->name);
			jw_uint_field(&jw, "runs", r->runs);
			jw_uint_field(&jw, "run_time_ns", r->rt);
			jw_name(&jw, "avg_ns");
			if (r->runs)
				jw_uint(&jw, r->rt / r->runs);
			else
				jw_null(&jw);
			jw_float_field(&jw, "cpu_pct", "%.3f", secs > 0 ? r->rt / (secs * 1e7) : 0.0);
			jw_uint_field(&jw, "recursion_misses", r->misses);
			jw_uint_field(&jw, "runs_total", in->run_cnt);
			jw_uint_field(&jw, "run_time_ns_total", in->run_time_ns);
			jw_uint_field(&jw, "recursion_misses_total", in->recursion_misses);
			jw_count_field(&jw, "rt_nonpreempt", r->p->rt_nonpreempt);
			jw_name(&jw, "map_ids");
			jw_start_array(&jw);
			for (k = 0; k < r->p->n_maps; k++)
				jw_uint(&jw, r->p->map_ids[k]);
			jw_end_array(&jw);
			jw_int_field(&jw, "map_memlock", r->memlock);
			jw_count_field(&jw, "map_cached_bytes", r->cached);
			jw_name(&jw, "owners");
			jw_start_array(&jw);
			for (o = 0; o < r->p->n_owners && o < BPFMEM_PROG_MAX_OWNERS; o++) {
				jw_start_object(&jw);
				jw_int_field(&jw, "pid", r->p->owners[o].pid);
				jw_string_field(&jw, "comm", r->p->owners[o].comm);
				jw_end_object(&jw);
			}
			jw_end_array(&jw);
			jw_end_object(&jw);
		}
		jw_end_array(&jw);
		jw_end_object(&jw);
	} else {
		printf("\n%s %zu programs%s\n", ts, n,
		       stats ? "" : " (run time and counts off: BPF_ENABLE_STATS refused)");
		printf("%6s %-14s %-16s %10s %10s %6s %8s %5s %10s %10s  %s\n", "ID", "TYPE",
		       "NAME", "RUNS", "AVG_NS", "CPU%", "MISSES", "MAPS", "MAP_MEM", "MAP_CACHED",
		       "OWNERS");
		for (i = 0; i < shown; i++) {
			const struct row *r = &rows[i];
			const struct bpf_prog_info *in = &r->p->info;
			const char *type = libbpf_bpf_prog_type_str(in->type);
			char avg[24] = "-", cached[24] = "-", own[64];
			char name[BPFMEM_TEXT_SAFE_LEN(sizeof(in->name))];

			if (r->runs)
				snprintf(avg, sizeof(avg), "%llu", r->rt / r->runs);
			if (r->cached >= 0)
				snprintf(cached, sizeof(cached), "%lld", r->cached);
			o = r->p->n_owners < BPFMEM_PROG_MAX_OWNERS ? r->p->n_owners :
								      BPFMEM_PROG_MAX_OWNERS;
			bpfmem_owners_text(own, sizeof(own), r->p->owners, o);
			printf("%6u %-14.14s %-16s %10llu %10s %6.2f %8llu %5u %10lld %10s  %s\n",
			       in->id,
			       type ? type : "unknown",
			       in->name[0] ? bpfmem_text_safe(name, sizeof(name), in->name) : "-",
			       r->runs, avg,
			       secs > 0 ? r->rt / (secs * 1e7) : 0.0, r->misses, r->p->n_maps,
			       r->memlock, cached, own);
		}
	}
	fflush(stdout);
	free(rows);
}

int cmd_progs(int argc, char **argv)
{
	static const struct bpfmem_maps_filter all = { .id = -1, .tolerant = true,
							 .fdinfo_only = true };
	struct bpfmem_progs_sample a = {}, b = {}, *cur = &a, *prev = &b, *tmp;
	struct bpfmem_maps_sample maps = {};
	double last;
	int err, stats_fd, ret;

	ret = bpfmem_cli_parse(&cli, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (env.loop.duration && env.loop.count) {
		bpfmem_err("-d and -n are exclusive");
		return 2;
	}
	bpfmem_setup_signals();
	if (bpfmem_collector_init(env.verbose, "programs"))
		return 1;
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0)
		bpfmem_warn("BPF_ENABLE_STATS refused (%s): run time and counts stay 0",
			    strerror(errno));
	maps.series = bpfmem_series_present();
	a.fdinfo = b.fdinfo = env.json;	/* rt_nonpreempt: JSON only */
	err = bpfmem_progs_sample(prev);
	if (err) {
		bpfmem_err("cannot list BPF programs: %s", strerror(-err));
		ret = 1;
		goto out;
	}
	last = bpfmem_mono_s();
	if (env.id >= 0 && !find_prev(prev, env.id)) {
		bpfmem_err("no BPF program with id %ld", env.id);
		ret = 1;
		goto out;
	}
	/* the owners from the next sample on: the first, the counters' base, is taken
	 * as soon as stats are on, not after the owners' iterator loads. Map memory comes
	 * from fdinfo: the map iterator only adds element counts, which progs does not
	 * show, so it is not loaded.
	 */
	bpfmem_owners_open(env.verbose, false);
	a.owners = b.owners = true;
	if (!env.json)
		printf("Tracing the cost of BPF programs... Ctrl-C to end.\n");
	fflush(stdout);
	/* every -i (-n times, until -d, or until Ctrl-C: the interval so far, exit 0) */
	while (bpfmem_interval_next(&env.loop) > 0) {
		double now = bpfmem_mono_s();

		err = bpfmem_progs_sample(cur);
		if (!err)
			err = bpfmem_maps_sample(&maps, &all);
		if (err) {
			bpfmem_err("cannot sample: %s", strerror(-err));
			ret = 1;
			break;
		}
		print_interval(cur, prev, &maps, now - last, stats_fd >= 0);
		tmp = prev;
		prev = cur;
		cur = tmp;
		last = now;
	}
out:
	if (stats_fd >= 0)
		close(stats_fd);
	bpfmem_progs_free(&a);
	bpfmem_progs_free(&b);
	bpfmem_maps_free(&maps);
	bpfmem_maps_close();
	return ret;
}
