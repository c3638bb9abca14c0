// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem maps: one row per BPF map on the system with its shape, mode
 * (preallocated, dynamic = BPF_F_NO_PREALLOC, forced-dynamic; prealloc-kept: asked
 * for preallocation while kernel.bpf_force_dyn_alloc was on and kept it, because
 * bpf_mem_alloc would cost more when full or the map type is never forced), live elements,
 * memlock, allocator cached and grace-period-pending bytes (with the bpfmem
 * series), owning processes, and the memory cgroup the map is charged to with
 * that cgroup's memory.current and memory.stat items.
 *
 * Sources: bpf_map_get_next_id + bpf_map_get_fd_by_id + bpf_obj_get_info_by_fd;
 * /proc/self/fdinfo of that fd (memlock; series: elements, alloc_* lines); a
 * bpf_map iterator (bpf/maps.bpf.c) for the element count the kernel keeps for
 * hash maps (bpf_map_sum_elem_count(), exact, O(CPUs)) and map->objcg's cgroup;
 * a task_file iterator (bpf/owners.bpf.c) for owners, else /proc/PID/fd + fdinfo;
 * /sys/fs/cgroup for memcg figures;
 * /sys/kernel/debug/bpf/mem_alloc for allocators no map owns (series).
 *
 * Live elements, in order of preference ("elements_source"):
 *   fdinfo   the series' "elements:" line
 *   kfunc    bpf_map_sum_elem_count() from the iterator (hash-type maps)
 *   array    array-type maps: every slot exists, elements = max_entries
 *   iterated other maps with max_entries <= 65536: counted with BPF_MAP_LOOKUP_BATCH
 *            (hash kinds: a syscall per 256 elements), else key by key with
 *            bpf_map_get_next_key; at most max_entries (a map changing while
 *            walked may show a key twice)
 *   budget   such a map past the sample's budget of keys walked (262144 over all
 *            maps, a syscall each): not counted (null in JSON)
 *   n/a      anything else (null in JSON)
 *
 * JSON (-j): one object per line and interval:
 * {"time":UNIX_SECONDS,"series":BOOL,"owners_source":"iterator"|"proc",
 *  "maps":[{"id":N,"name":S,"type":S,"type_id":N,"mode":"prealloc"|"dynamic"|
 *           "forced-dynamic"|"prealloc-kept","flags":N,"key_size":N,"value_size":N,
 *           "max_entries":N,
 *           "elements":N|null,"elements_source":S,"memlock":N,
 *           "cached_bytes":N|null,"pending_bytes":N|null,"cached_objs":N|null,
 *           "pending_objs":N|null,"alloc_failures":N|null,
 *           "owners":[{"pid":N,"comm":S,"cgroup":S|null}],
 *           "memcg":S|null,"memcg_source":"objcg"|"owner"|null}],
 *  "memcgs":[{"path":S,"memory_current":N|null,"kernel":N|null,"percpu":N|null,
 *             "slab_unreclaimable":N|null,"vmalloc":N|null}],
 *  "totals":{"maps":N,"memlock":N,"elements":N,"cached_bytes":N|null,"pending_bytes":N|null},
 *  "allocators":{"allocators":N,"cached_bytes":N,"pending_bytes":N,
 *                "unowned":[{"owner":S,"allocators":N,"cached_bytes":N,"pending_bytes":N}]}|null}
 * "allocators" comes from the debugfs listing (series; totals line, and the
 * allocators with map_id=0 summed per owner); null where the listing is absent.
 * All sizes in bytes. null = not available (kernel without the series, root cgroup).
 * "memcg" is the cgroup the map's memory is charged to (map->objcg, read by the
 * iterator: memcg_source "objcg"; "/" when the map was created in the root cgroup;
 * "unknown" when that cgroup's id is not found under /sys/fs/cgroup, e.g. removed
 * meanwhile, and then absent from "memcgs"), or, without the iterator, the first
 * owner's cgroup (memcg_source "owner"). Strings are valid UTF-8: bytes of a name
 * or comm that are not are written as \u00XX.
 * "owners[].cgroup" is each holder's own cgroup (/proc/PID/cgroup, else the cgroup id
 * the owners' iterator read), which may differ. "owners_source": "iterator" (a
 * task_file iterator: every holder), "proc" (/proc/PID/fd: without vmlinux BTF or
 * when BPFMEM_OWNERS=proc; only the holders this process may ptrace).
 *
 * Prometheus (--prometheus): text exposition format 0.0.4 for a node-exporter
 * textfile collector, the schema of `bpfmem exporter` (tools/collect/prom_schema.c): per-map
 * families bpfmem_map_* labelled id, name, type, mode (fixed for the map's life), its
 * memcg and owners in bpfmem_map_info; bpfmem_memcg_* by memcg; bpfmem_maps_* totals;
 * bpfmem_alloc_* per (owner, map_id); bpfmem_series_present.
 *
 * Privilege: CAP_SYS_ADMIN (listing maps by id), not uid 0. Without vmlinux BTF the
 * iterators cannot load: a one-line note, then elements by key iteration, the memcg
 * from the owners (memcg_source "owner") and the owners from /proc/PID/fd. On a kernel that charges maps to no memcg
 * (no map->objcg: SLOB, !CONFIG_MEMCG_KMEM) "memcg" is null.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cmds.h"
#include "libbpfmem.h"
#include "map_sample.h"
#include "prom_schema.h"

enum sort_key { S_ID, S_NAME, S_TYPE, S_MEMLOCK, S_ELEMENTS, S_CACHED, S_PENDING, S_MAX_ENTRIES };

static struct {
	pid_t pid;
	const char *name;
	long id;
	bool json, prom, verbose;
	int sort;	/* enum sort_key */
	struct bpfmem_interval loop;	/* -i, -n: the first sample at once */
} env = { .id = -1, .loop.at_start = true };

enum { OPT_NAME = 256, OPT_ID, OPT_PROM };

static const struct bpfmem_opt opts[] = {
	{ 'p', "pid", "PID", "only maps PID holds a file descriptor of" },
	{ OPT_NAME, "name", "NAME", "only maps named NAME" },
	{ OPT_ID, "id", "ID", "only the map with id ID" },
	{ 's', "sort", "KEY", "id (default), name, type, memlock, elements, cached, pending,\n"
	  "max_entries (numbers sort largest first)" },
	{ 'j', "json", NULL, "JSON, one object per interval (schema at the top of\n"
	  "tools/maps.c): {time,series,owners_source,maps:[{id,name,type,\n"
	  "type_id,mode,flags,key_size,value_size,max_entries,elements,\n"
	  "elements_source,memlock,cached_bytes,pending_bytes,cached_objs,\n"
	  "pending_objs,alloc_failures,owners:[{pid,comm,cgroup}],memcg,\n"
	  "memcg_source}],memcgs:[{path,memory_current,kernel,percpu,\n"
	  "slab_unreclaimable,vmalloc}],totals:{maps,memlock,elements,\n"
	  "cached_bytes,pending_bytes},allocators:{...}|null}; bytes;\n"
	  "null = n/a",
	  .flag = &env.json },
	{ OPT_PROM, "prometheus", NULL, "Prometheus text exposition format (node-exporter textfile)",
	  .flag = &env.prom },
	{ 'i', "interval", "S", "watch: repeat every S seconds (Ctrl-C ends)" },
	{ 'n', "count", "N", "with -i: stop after N intervals" },
	{},
};

/* the EXAMPLES of -h, which bpfmem-maps(8) lists too (tests/unit/check-man.py) */
static const struct bpfmem_example examples[] = {
	{ "bpfmem maps -s memlock", "every map, largest memlock first" },
	{ "bpfmem maps -s cached -i 5", "most allocator-cached bytes first, every 5 seconds" },
	{ "bpfmem maps --name flows -i 1 -n 10", "the maps named flows, every second, 10 times" },
	{ "bpfmem maps -p $(pidof -s syscount) -j", "the maps one process holds, as JSON" },
	{ "bpfmem maps --prometheus > bpfmem.prom.tmp && mv bpfmem.prom.tmp bpfmem.prom",
	  "a snapshot for node-exporter's textfile collector, replaced whole" },
	{},
};

static int parse_opt(int key, const char *arg, void *ctx)
{
	static const char *const sorts[] = { "id", "name", "type", "memlock", "elements",
					     "cached", "pending", "max_entries" };

	switch (key) {
	case 'p':
		return bpfmem_parse_pid(arg, &env.pid);
	case OPT_NAME:
		env.name = arg;
		return 0;
	case OPT_ID:
		return bpfmem_parse_id(arg, "map", &env.id);
	case 's':
		return bpfmem_parse_choice(arg, sorts, sizeof(sorts) / sizeof(sorts[0]),
					   "sort key", &env.sort);
	case 'i':
	case 'n':
		return bpfmem_interval_opt(&env.loop, key, arg);
	}
	return -EINVAL;
}

#define STR_(x) #x
#define STR(x) STR_(x)
static const struct bpfmem_cli cli = {
	.usage = "[-p PID] [--name NAME] [--id ID] [-s KEY] [-j|--prometheus]\n"
		 "                   [-i SECONDS [-n COUNT]] [-v]",
	.doc = "Per-map memory of every BPF map: shape, mode, live elements, memlock, allocator\n"
	       "cached and pending bytes (bpfmem series), owners and the charged memcg.",
	.epilog = "Elements: fdinfo (series), kfunc (bpf_map_sum_elem_count, hash maps), array\n"
		  "(= max_entries), iterated (keys counted, maps up to "
		  STR(BPFMEM_ITER_MAX_ENTRIES) " entries), budget (not counted: the\n"
		  "sample's keys walked are spent), else n/a.",
	.opts = opts,
	.examples = examples,
	.parse = parse_opt,
	.verbose = &env.verbose,
};

static int cmp_rows(const void *pa, const void *pb)
{
	const struct bpfmem_map_row *a = pa, *b = pb;
	long long x = 0, y = 0;
	int c;

	switch (env.sort) {
	case S_NAME:
		c = strcmp(a->info.name, b->info.name);
		if (c)
			return c;
		break;
	case S_TYPE:
		c = strcmp(bpfmem_map_type_str(a->info.type), bpfmem_map_type_str(b->info.type));
		if (c)
			return c;
		break;
	case S_MEMLOCK: x = a->fdi.memlock; y = b->fdi.memlock; break;
	case S_ELEMENTS: x = a->elements; y = b->elements; break;
	case S_CACHED: x = a->fdi.cached_bytes; y = b->fdi.cached_bytes; break;
	case S_PENDING: x = a->fdi.pending_bytes; y = b->fdi.pending_bytes; break;
	case S_MAX_ENTRIES: x = a->info.max_entries; y = b->info.max_entries; break;
	case S_ID: break;
	}
	if (x != y)
		return x > y ? -1 : 1;
	return a->info.id < b->info.id ? -1 : a->info.id > b->info.id;
}

static int take_sample(struct bpfmem_maps_sample *s)
{
	const struct bpfmem_maps_filter f = { .pid = env.pid, .name = env.name, .id = env.id };
	int err = bpfmem_maps_sample(s, &f);

	if (!err)
		qsort(s->rows, s->n, sizeof(*s->rows), cmp_rows);
	return err;
}

/* ---- output ---- */

static void print_num(long long v, int width)
{
	if (v < 0)
		printf(" %*s", width, "n/a");
	else
		printf(" %*lld", width, v);
}

struct totals {
	long long memlock, elements, cached, pending;
	bool have_alloc;
};

static void sum(const struct bpfmem_maps_sample *s, struct totals *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < s->n; i++) {
		const struct bpfmem_map_row *r = &s->rows[i];

		t->memlock += r->fdi.memlock;
		if (r->elements > 0)
			t->elements += r->elements;
		if (r->fdi.cached_bytes >= 0) {
			t->have_alloc = true;
			t->cached += r->fdi.cached_bytes;
			t->pending += r->fdi.pending_bytes > 0 ? r->fdi.pending_bytes : 0;
		}
	}
	if (!t->have_alloc)
		t->cached = t->pending = -1;
}

static void print_text(const struct bpfmem_maps_sample *s)
{
	struct totals t;
	size_t i;

	sum(s, &t);
	if (env.loop.interval) {
		time_t now = time(NULL);
		char ts[32];

		strftime(ts, sizeof(ts), "%H:%M:%S", localtime(&now));
		printf("%s\n", ts);
	}
	printf("%5s %-16s %-16s %-14s %5s %5s %8s %8s %-8s %10s %10s %10s  %-20s %s\n",
	       "ID", "NAME", "TYPE", "MODE", "KEY", "VALUE", "MAXENT", "ELEMS", "(SRC)",
	       "MEMLOCK", "CACHED", "PENDING", "OWNERS", "MEMCG");
	for (i = 0; i < s->n; i++) {
		const struct bpfmem_map_row *r = &s->rows[i];
		char own[64], name[BPFMEM_TEXT_SAFE_LEN(sizeof(r->info.name))];
		/* paths of any length (< PATH_MAX): static, 16 KiB */
		static char memcg[BPFMEM_TEXT_SAFE_LEN(PATH_MAX)];

		/* names from processes and cgroups: \xNN for what a terminal acts on */
		bpfmem_owners_text(own, sizeof(own), r->owners, r->n_owners);
		printf("%5u %-16s %-16s %-14s %5u %5u %8u", r->info.id,
		       r->info.name[0] ? bpfmem_text_safe(name, sizeof(name), r->info.name) : "-",
		       bpfmem_map_type_str(r->info.type), r->mode,
		       r->info.key_size, r->info.value_size, r->info.max_entries);
		print_num(r->elements, 8);
		printf(" %-8s", r->elem_src);
		print_num(r->fdi.memlock, 10);
		print_num(r->fdi.cached_bytes, 10);
		print_num(r->fdi.pending_bytes, 10);
		printf("  %-20s %s\n", own,
		       r->memcg_src ? bpfmem_text_safe(memcg, sizeof(memcg), r->memcg) : "-");
	}
	printf("%5s %-16s %-16s %-14s %5s %5s %8s", "", "TOTAL", "", "", "", "", "");
	print_num(t.elements, 8);
	printf(" %-8s", "");
	print_num(t.memlock, 10);
	print_num(t.cached, 10);
	print_num(t.pending, 10);
	printf("  %zu maps\n", s->n);
	if (s->have_ma) {
		for (i = 0; i < (size_t)s->n_unowned; i++) {
			char what[96], owner[BPFMEM_TEXT_SAFE_LEN(sizeof(s->unowned[i].owner))];

			snprintf(what, sizeof(what), "%s x%lld",
				 bpfmem_text_safe(owner, sizeof(owner), s->unowned[i].owner),
				 s->unowned[i].allocators);
			printf("%5s %-16s %-16s %-14s %5s %5s %8s %8s %-8s %10s %10lld %10lld  %s\n",
			       "", "UNOWNED-ALLOC", what, "", "", "", "", "", "", "",
			       s->unowned[i].cached, s->unowned[i].pending, "(no map)");
		}
		printf("%5s %-16s %-16s %-14s %5s %5s %8s %8s %-8s %10s %10lld %10lld  %lld allocators\n",
		       "", "ALL-ALLOCATORS", "(debugfs total)", "", "", "", "", "", "", "",
		       s->ma.cached_bytes, s->ma.pending_bytes, s->ma.allocators);
	} else if (!s->series)
		printf("allocator caches: n/a: kernel without the series\n");
	else
		printf("allocator caches: n/a: %s not readable (debugfs mounted? listing not in this kernel?)\n",
		       BPFMEM_DEBUGFS_MA);
	if (s->n_memcgs) {
		printf("\n%-40s %12s %12s %12s %12s %12s\n", "MEMCG", "CURRENT", "KERNEL", "PERCPU",
		       "SLAB_UNRECL", "VMALLOC");
		for (i = 0; i < s->n_memcgs; i++) {
			const struct bpfmem_memcg *m = &s->memcgs[i];
			static char path[BPFMEM_TEXT_SAFE_LEN(PATH_MAX)];

			printf("%-40s", bpfmem_text_safe(path, sizeof(path), m->path));
			print_num(m->current, 12);
			print_num(m->kernel, 12);
			print_num(m->percpu, 12);
			print_num(m->slab, 12);
			print_num(m->vmalloc, 12);
			printf("\n");
		}
	}
	fflush(stdout);
}

static void print_json(const struct bpfmem_maps_sample *s)
{
	struct totals t;
	struct jw jw;
	size_t i;
	int k;

	sum(s, &t);
	jw_init(&jw, stdout);
	jw_start_object(&jw);
	jw_int_field(&jw, "time", (long long)time(NULL));
	jw_bool_field(&jw, "series", s->series);
	jw_string_or_null_field(&jw, "owners_source", s->owners_source);
	jw_name(&jw, "maps");
	jw_start_array(&jw);
	for (i = 0; i < s->n; i++) {
		const struct bpfmem_map_row *r = &s->rows[i];

		jw_start_object(&jw);
		jw_uint_field(&jw, "id", r->info.id);
		jw_string_field(&jw, "name", r->info.name);
		jw_string_field(&jw, "type", bpfmem_map_type_str(r->info.type));
		jw_uint_field(&jw, "type_id", r->info.type);
		jw_string_field(&jw, "mode", r->mode);
		jw_uint_field(&jw, "flags", r->info.map_flags);
		jw_uint_field(&jw, "key_size", r->info.key_size);
		jw_uint_field(&jw, "value_size", r->info.value_size);
		jw_uint_field(&jw, "max_entries", r->info.max_entries);
		jw_count_field(&jw, "elements", r->elements);
		jw_string_field(&jw, "elements_source", r->elem_src);
		jw_int_field(&jw, "memlock", r->fdi.memlock);
		jw_count_field(&jw, "cached_bytes", r->fdi.cached_bytes);
		jw_count_field(&jw, "pending_bytes", r->fdi.pending_bytes);
		jw_count_field(&jw, "cached_objs", r->fdi.cached_objs);
		jw_count_field(&jw, "pending_objs", r->fdi.pending_objs);
		jw_count_field(&jw, "alloc_failures", r->fdi.alloc_failures);
		jw_name(&jw, "owners");
		jw_start_array(&jw);
		for (k = 0; k < r->n_owners; k++) {
			jw_start_object(&jw);
			jw_int_field(&jw, "pid", r->owners[k].pid);
			jw_string_field(&jw, "comm", r->owners[k].comm);
			jw_string_or_null_field(&jw, "cgroup", r->owners[k].cgroup[0] ?
						r->owners[k].cgroup : NULL);
			jw_end_object(&jw);
		}
		jw_end_array(&jw);
		jw_string_or_null_field(&jw, "memcg", r->memcg_src ? r->memcg : NULL);
		jw_string_or_null_field(&jw, "memcg_source", r->memcg_src);
		jw_end_object(&jw);
	}
	jw_end_array(&jw);
	jw_name(&jw, "memcgs");
	jw_start_array(&jw);
	for (i = 0; i < s->n_memcgs; i++) {
		const struct bpfmem_memcg *m = &s->memcgs[i];

		jw_start_object(&jw);
		jw_string_field(&jw, "path", m->path);
		jw_count_field(&jw, "memory_current", m->current);
		jw_count_field(&jw, "kernel", m->kernel);
		jw_count_field(&jw, "percpu", m->percpu);
		jw_count_field(&jw, "slab_unreclaimable", m->slab);
		jw_count_field(&jw, "vmalloc", m->vmalloc);
		jw_end_object(&jw);
	}
	jw_end_array(&jw);
	jw_name(&jw, "totals");
	jw_start_object(&jw);
	jw_uint_field(&jw, "maps", s->n);
	jw_int_field(&jw, "memlock", t.memlock);
	jw_int_field(&jw, "elements", t.elements);
	jw_count_field(&jw, "cached_bytes", t.cached);
	jw_count_field(&jw, "pending_bytes", t.pending);
	jw_end_object(&jw);
	jw_name(&jw, "allocators");
	if (s->have_ma) {
		jw_start_object(&jw);
		jw_int_field(&jw, "allocators", s->ma.allocators);
		jw_int_field(&jw, "cached_bytes", s->ma.cached_bytes);
		jw_int_field(&jw, "pending_bytes", s->ma.pending_bytes);
		jw_name(&jw, "unowned");
		jw_start_array(&jw);
		for (i = 0; i < (size_t)s->n_unowned; i++) {
			jw_start_object(&jw);
			jw_string_field(&jw, "owner", s->unowned[i].owner);
			jw_int_field(&jw, "allocators", s->unowned[i].allocators);
			jw_int_field(&jw, "cached_bytes", s->unowned[i].cached);
			jw_int_field(&jw, "pending_bytes", s->unowned[i].pending);
			jw_end_object(&jw);
		}
		jw_end_array(&jw);
		jw_end_object(&jw);
	} else {
		jw_null(&jw);
	}
	jw_end_object(&jw);
	fflush(stdout);
}

/* the schema shared with the exporter (tools/collect/prom_schema.c) */
static int print_prom(const struct bpfmem_maps_sample *s)
{
	struct bpfmem_buf b = {};
	struct bpfmem_prom w = { .b = &b };
	int err = 0;

	bpfmem_prom_build_info(&w);
	bpfmem_prom_maps(&w, s);
	bpfmem_prom_end(&w);
	if (b.oom)
		err = -ENOMEM;
	else if (fwrite(b.p, 1, b.len, stdout) != b.len || fflush(stdout))
		err = -errno;
	bpfmem_buf_free(&b);
	if (err)
		bpfmem_err("cannot write the exposition: %s", strerror(-err));
	return err;
}

static int print_sample(const struct bpfmem_maps_sample *s)
{
	if (env.json)
		print_json(s);
	else if (env.prom)
		return print_prom(s);
	else
		print_text(s);
	return 0;
}

int cmd_maps(int argc, char **argv)
{
	struct bpfmem_maps_sample s = {};
	int ret;

	ret = bpfmem_cli_parse(&cli, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (env.json && env.prom) {
		bpfmem_err("-j and --prometheus are exclusive");
		return 2;
	}
	if (env.loop.count && !env.loop.interval) {
		bpfmem_err("-n needs -i");
		return 2;
	}
	bpfmem_setup_signals();	/* early: a Ctrl-C during startup still ends cleanly */
	if (bpfmem_collector_init(env.verbose, "maps"))
		return 1;
	s.series = bpfmem_series_present();
	bpfmem_maps_open(env.verbose);	/* or a note, and the collection does without */

	/* once, or every -i (-n times, or until Ctrl-C: a last sample, then exit 0) */
	while (bpfmem_interval_next(&env.loop) > 0) {
		/* text: a blank line between samples, none before the one of a Ctrl-C */
		if (env.loop.n > 1 && !env.loop.stopped && !env.json && !env.prom)
			printf("\n");
		if (take_sample(&s) || print_sample(&s)) {
			ret = 1;
			break;
		}
	}
	bpfmem_maps_close();
	bpfmem_maps_free(&s);
	return ret;
}
