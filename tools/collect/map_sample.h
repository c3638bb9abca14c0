/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One sample of every BPF map on the system (shape, mode, elements, memlock, the
 * series' allocator figures, owners, charged memcg and that memcg's figures, the
 * debugfs allocator listing): collected by tools/collect/map_sample.c for `bpfmem
 * maps`, `bpfmem progs` (the memory of a program's maps) and `bpfmem exporter`.
 * Sources and the "elements" order: top of tools/maps.c.
 */
#ifndef BPFMEM_MAP_SAMPLE_H
#define BPFMEM_MAP_SAMPLE_H

#include <bpf/bpf.h>
#include <stdbool.h>
#include <sys/types.h>

#include "alloc_listing.h"
#include "fdinfo.h"
#include "owners.h"

#define BPFMEM_MAP_MAX_OWNERS 8
#define BPFMEM_ITER_MAX_ENTRIES 65536	/* keys counted up to this many entries */
/* keys walked per sample at most (one syscall each), over all maps; the maps past it
 * get elements null, elements_source "budget"
 */
#define BPFMEM_ITER_KEY_BUDGET (4 * BPFMEM_ITER_MAX_ENTRIES)
#define BPFMEM_MEMCG_UNKNOWN "unknown"	/* never a path: those start with '/' */

struct bpfmem_map_row {
	struct bpf_map_info info;
	struct bpfmem_map_info fdi;
	bool fdi_ok;
	long long elements;
	const char *elem_src;
	const char *mode;
	int n_owners;
	struct bpfmem_owner owners[BPFMEM_MAP_MAX_OWNERS];
	/* the whole path (never cut: a cut at a '/' names the parent), "/", or
	 * BPFMEM_MEMCG_UNKNOWN; the sample's, valid until its next call; with memcg_src
	 */
	const char *memcg;
	const char *memcg_src;
};

struct bpfmem_memcg {
	const char *path;	/* a row's memcg */
	long long current, kernel, percpu, slab, vmalloc;	/* -1: n/a */
};

struct bpfmem_maps_sample {
	struct bpfmem_map_row *rows;	/* in map id order (callers may sort them) */
	size_t n, cap_rows;
	struct bpfmem_memcg *memcgs;	/* in path order */
	size_t n_memcgs, cap_memcgs;
	bool series;
	bool have_ma;
	/* the owners' source (owners.h: "iterator", "proc"), NULL when not read */
	const char *owners_source;
	struct bpfmem_ma_totals ma;
	/* allocators no map owns (map_id 0), summed per owner */
	struct bpfmem_unowned {
		char owner[64];
		long long allocators, cached, pending;
	} *unowned;
	int n_unowned;
	size_t cap_unowned;
	/* every line of the debugfs listing (have_ma) */
	struct bpfmem_ma_line *ma_lines;
	int n_ma_lines;
	/* the lines summed per (owner, map id), in that order (have_ma) */
	struct bpfmem_ma_group *ma_groups;
	int n_ma_groups;
	/* the rows' memcg paths copied for this sample */
	char **strs;
	size_t n_strs, cap_strs;
	/* tolerant sampling: objects that could not be read, by kind */
	long long err_maps, err_memcgs, err_listing;
};

struct bpfmem_maps_filter {
	pid_t pid;		/* 0: any */
	const char *name;	/* NULL: any */
	long id;		/* < 0: any */
	/* a map, memcg or listing that cannot be read is skipped and counted in
	 * err_* instead of failing the sample with an error line
	 */
	bool tolerant;
	/* only what the kernel gives per map at once (info, fdinfo): no element counts by
	 * key iteration, no owners, no memcgs (bpfmem progs: memory of a program's maps)
	 */
	bool fdinfo_only;
};

/*
 * Loads the bpf_map iterator (needs vmlinux BTF); without it (-errno returned, not
 * fatal) elements come from key iteration and the memcg from the owners, which a
 * one-line note says (pointing to -v unless @verbose). Then the owners' iterator
 * (bpfmem_owners_open(), its own note). libbpf's own lines are the caller's to show
 * (bpfmem_libbpf_logging_quiet()).
 */
int bpfmem_maps_open(bool verbose);
void bpfmem_maps_close(void);
/* Fills @s (buffers reused across calls); 0 or -errno after an error line. */
int bpfmem_maps_sample(struct bpfmem_maps_sample *s, const struct bpfmem_maps_filter *f);
void bpfmem_maps_free(struct bpfmem_maps_sample *s);
/* The map row of @id in a sample in id order (as bpfmem_maps_sample() leaves it). */
const struct bpfmem_map_row *bpfmem_maps_find(const struct bpfmem_maps_sample *s,
					      unsigned int id);

#endif
