// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus schema of a map sample (map_sample.h), one writer for
 * `bpfmem maps --prometheus` and `bpfmem exporter` (text format 0.0.4, or OpenMetrics
 * 1.0 through the same struct bpfmem_prom of tools/lib/prom_text.c). It needs no BPF:
 * tests/unit/test_prom.c builds it into the host unit test:
 *
 *   bpfmem_build_info{version,libbpf} 1     the version of bpfmem (meson's project
 *                                           version) and of the libbpf linked in
 *                                           (bpfmem_prom_build_info(), written first)
 *   bpfmem_series_present                   1 if the kernel carries the bpfmem series
 *   bpfmem_maps_listed, bpfmem_maps_memlock_bytes     maps listed, their memlock sum
 *   bpfmem_map_info{id,name,type,mode,memcg,memcg_source,owner,owner_pids} 1
 *   bpfmem_map_<X>{id,name,type,mode}       memlock_bytes, elements, max_entries,
 *                                           utilisation_ratio, key_size_bytes,
 *                                           value_size_bytes, preallocated,
 *                                           owner_processes, alloc_cached_bytes,
 *                                           alloc_pending_bytes, alloc_failures_total
 *   bpfmem_memcg_<X>{memcg}                 memory_current_bytes, kernel_bytes,
 *                                           percpu_bytes, slab_unreclaimable_bytes,
 *                                           vmalloc_bytes
 *   bpfmem_alloc_allocators                 allocators (debugfs listing, series)
 *   bpfmem_alloc_<X>{owner,map_id}          allocs_total, frees_total, failures_total,
 *                                           refills_total, refill_objects_total,
 *                                           trimmed_objects_total, cached_bytes,
 *                                           pending_bytes (lines summed per key)
 *
 * Identity labels are what a map keeps for its life (id, name, type, and mode, fixed
 * at creation): a series is one map from its creation to its end, and a counter of it
 * never resets while the map lives. What can change while it lives (the processes
 * holding it; its memcg's path, or the owners' guess at it) is in bpfmem_map_info,
 * value 1, for joins: bpfmem_map_memlock_bytes * on(id) group_left(memcg)
 * bpfmem_map_info. memcg_source: "objcg" (the kernel's charge), "owner" (first owner's
 * cgroup, without the iterator), "" (not known). A series whose value this kernel does
 * not give (n/a) is left out. Label values are escaped and valid UTF-8 (prom_text.c).
 */
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpfobj.h"
#include "prom_schema.h"

void bpfmem_prom_build_info(struct bpfmem_prom *w)
{
	const char *lv = libbpf_version_string();	/* "v1.1" */

	bpfmem_prom_family(w, "bpfmem_build_info", "info", "bpfmem's version and the libbpf it was built with.");
	bpfmem_prom_sample(w, 1, "version", BPFMEM_PROJECT_VERSION, "libbpf",
			   lv[0] == 'v' ? lv + 1 : lv, NULL);
}

static void map_labels_id(const struct bpfmem_map_row *r, char *id, size_t len)
{
	snprintf(id, len, "%u", r->info.id);
}

/* distinct owner comms, and the pids, comma-separated */
static void owners_of(const struct bpfmem_map_row *r, char *comms, size_t clen, char *pids,
		      size_t plen)
{
	size_t co = 0, po = 0;
	int k, j;

	comms[0] = pids[0] = '\0';
	for (k = 0; k < r->n_owners; k++) {
		if (po < plen)
			po += snprintf(pids + po, plen - po, "%s%d", k ? "," : "",
				       r->owners[k].pid);
		for (j = 0; j < k; j++)
			if (!strcmp(r->owners[j].comm, r->owners[k].comm))
				break;
		if (j < k || co >= clen)
			continue;
		co += snprintf(comms + co, clen - co, "%s%s", co ? "," : "", r->owners[k].comm);
	}
}

#define MAP_LABELS(r, id) "id", id, "name", (r)->info.name, "type",			\
	bpfmem_map_type_str((r)->info.type), "mode", (r)->mode

enum { M_MEMLOCK, M_ELEMS, M_MAXENT, M_UTIL, M_KEY, M_VAL, M_PREALLOC, M_OWNERS, M_CACHED,
       M_PENDING, M_FAIL, NR_M };

static void render_maps(struct bpfmem_prom *w, const struct bpfmem_maps_sample *s)
{
	static const struct {
		const char *name, *type, *help;
	} fam[NR_M] = {
		[M_MEMLOCK] = { "bpfmem_map_memlock_bytes", "gauge", "Memory the kernel accounts to the map (fdinfo memlock)." },
		[M_ELEMS] = { "bpfmem_map_elements", "gauge", "Live elements in the map, where known (fdinfo, bpf_map_sum_elem_count, arrays, key iteration)." },
		[M_MAXENT] = { "bpfmem_map_max_entries", "gauge", "Maximum number of entries of the map." },
		[M_UTIL] = { "bpfmem_map_utilisation_ratio", "gauge", "Elements divided by max_entries: 1 is a full map." },
		[M_KEY] = { "bpfmem_map_key_size_bytes", "gauge", "Key size of the map." },
		[M_VAL] = { "bpfmem_map_value_size_bytes", "gauge", "Value size of the map." },
		[M_PREALLOC] = { "bpfmem_map_preallocated", "gauge", "1 if the map preallocates its elements." },
		[M_OWNERS] = { "bpfmem_map_owner_processes", "gauge", "Processes holding a file descriptor of the map." },
		[M_CACHED] = { "bpfmem_map_alloc_cached_bytes", "gauge", "Bytes in the free caches of the map's bpf_mem_alloc (bpfmem series)." },
		[M_PENDING] = { "bpfmem_map_alloc_pending_bytes", "gauge", "Bytes freed by the map waiting for an RCU grace period (bpfmem series)." },
		[M_FAIL] = { "bpfmem_map_alloc_failures_total", "counter", "Failed element allocations of the map (bpfmem series)." },
	};
	char id[16], comms[8 * 20], pids[8 * 12];
	size_t i;
	int f;

	bpfmem_prom_family(w, "bpfmem_map_info", "info", "1 for each map, with what may change while it lives: the memcg it is charged to and the processes holding it.");
	for (i = 0; i < s->n; i++) {
		const struct bpfmem_map_row *r = &s->rows[i];

		map_labels_id(r, id, sizeof(id));
		owners_of(r, comms, sizeof(comms), pids, sizeof(pids));
		bpfmem_prom_sample(w, 1, MAP_LABELS(r, id),
				   "memcg", r->memcg_src ? r->memcg : "",
				   "memcg_source", r->memcg_src ? r->memcg_src : "",
				   "owner", comms, "owner_pids", pids, NULL);
	}
	for (f = 0; f < NR_M; f++) {
		bpfmem_prom_family(w, fam[f].name, fam[f].type, fam[f].help);
		for (i = 0; i < s->n; i++) {
			const struct bpfmem_map_row *r = &s->rows[i];
			double v;

			switch (f) {
			case M_MEMLOCK: v = r->fdi.memlock; break;
			case M_ELEMS: v = r->elements; break;
			case M_MAXENT: v = r->info.max_entries; break;
			case M_UTIL:
				v = r->elements >= 0 && r->info.max_entries ?
				    (double)r->elements / r->info.max_entries : -1;
				break;
			case M_KEY: v = r->info.key_size; break;
			case M_VAL: v = r->info.value_size; break;
			case M_PREALLOC: v = !strncmp(r->mode, "prealloc", 8); break;
			case M_OWNERS: v = r->n_owners; break;
			case M_CACHED: v = r->fdi.cached_bytes; break;
			case M_PENDING: v = r->fdi.pending_bytes; break;
			default: v = r->fdi.alloc_failures; break;
			}
			if (v < 0)	/* not known for this map or kernel: no series */
				continue;
			map_labels_id(r, id, sizeof(id));
			bpfmem_prom_sample(w, v, MAP_LABELS(r, id), NULL);
		}
	}
}

static void render_memcgs(struct bpfmem_prom *w, const struct bpfmem_maps_sample *s)
{
	static const char *const fam[][2] = {
		{ "bpfmem_memcg_memory_current_bytes", "memory.current of a memcg BPF maps are charged to." },
		{ "bpfmem_memcg_kernel_bytes", "memory.stat kernel of the memcg." },
		{ "bpfmem_memcg_percpu_bytes", "memory.stat percpu of the memcg." },
		{ "bpfmem_memcg_slab_unreclaimable_bytes", "memory.stat slab_unreclaimable of the memcg." },
		{ "bpfmem_memcg_vmalloc_bytes", "memory.stat vmalloc of the memcg." },
	};
	size_t i;
	int f;

	for (f = 0; f < 5; f++) {
		bpfmem_prom_family(w, fam[f][0], "gauge", fam[f][1]);
		for (i = 0; i < s->n_memcgs; i++) {
			const struct bpfmem_memcg *m = &s->memcgs[i];
			long long v = f == 0 ? m->current : f == 1 ? m->kernel : f == 2 ? m->percpu :
				      f == 3 ? m->slab : m->vmalloc;

			if (v >= 0)
				bpfmem_prom_sample(w, v, "memcg", m->path, NULL);
		}
	}
}

static void render_allocators(struct bpfmem_prom *w, const struct bpfmem_maps_sample *s)
{
	static const char *const fam[][2] = {
		{ "bpfmem_alloc_allocs_total", "Objects handed out by bpf_mem_alloc allocators." },
		{ "bpfmem_alloc_frees_total", "Objects freed to bpf_mem_alloc allocators." },
		{ "bpfmem_alloc_failures_total", "Failed bpf_mem_alloc allocations." },
		{ "bpfmem_alloc_refills_total", "Refill runs of bpf_mem_alloc caches below their low watermark." },
		{ "bpfmem_alloc_refill_objects_total", "Objects added to bpf_mem_alloc free lists by refills." },
		{ "bpfmem_alloc_trimmed_objects_total", "Objects trimmed from bpf_mem_alloc caches (above the high watermark or by the shrinker)." },
		{ "bpfmem_alloc_cached_bytes", "Bytes in bpf_mem_alloc free caches." },
		{ "bpfmem_alloc_pending_bytes", "Bytes in bpf_mem_alloc waiting for an RCU grace period." },
	};
	int f, i;

	if (!s->have_ma)
		return;
	bpfmem_prom_family(w, "bpfmem_alloc_allocators", "gauge", "bpf_mem_alloc allocators (debugfs listing).");
	bpfmem_prom_sample(w, s->ma.allocators, NULL);
	for (f = 0; f < 8; f++) {
		bpfmem_prom_family(w, fam[f][0], f < 6 ? "counter" : "gauge", fam[f][1]);
		for (i = 0; i < s->n_ma_groups; i++) {
			const struct bpfmem_ma_group *g = &s->ma_groups[i];
			long long v = f == 0 ? g->allocs : f == 1 ? g->frees : f == 2 ? g->alloc_failures :
				      f == 3 ? g->refill_runs : f == 4 ? g->refill_objs :
				      f == 5 ? g->trimmed_objs : f == 6 ? g->cached_bytes : g->pending_bytes;
			char id[16];

			snprintf(id, sizeof(id), "%u", g->map_id);
			bpfmem_prom_sample(w, v, "owner", g->owner, "map_id", id, NULL);
		}
	}
}

void bpfmem_prom_maps(struct bpfmem_prom *w, const struct bpfmem_maps_sample *s)
{
	long long memlock = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		memlock += s->rows[i].fdi.memlock > 0 ? s->rows[i].fdi.memlock : 0;
	bpfmem_prom_family(w, "bpfmem_series_present", "gauge", "1 if the kernel carries the bpfmem series.");
	bpfmem_prom_sample(w, s->series, NULL);
	bpfmem_prom_family(w, "bpfmem_maps_listed", "gauge", "BPF maps listed.");
	bpfmem_prom_sample(w, s->n, NULL);
	bpfmem_prom_family(w, "bpfmem_maps_memlock_bytes", "gauge", "Sum of the memlock of the maps listed.");
	bpfmem_prom_sample(w, memlock, NULL);
	render_maps(w, s);
	render_memcgs(w, s);
	render_allocators(w, s);
}
