/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One sample of every BPF map on the system (shape, mode, elements, memlock, the
 * series' allocator figures, owners, charged memcg and that memcg's figures, the
 * debugfs allocator listing): collected by tools/lib/mapscan.c for `bpfmem maps`
 * and `bpfmem exporter`. Sources and the "elements" order: top of tools/maps.c.
 */
#ifndef BPFMEM_MAPSCAN_H
#define BPFMEM_MAPSCAN_H

#include <bpf/bpf.h>
#include "bpfmem.h"

#define BPFMEM_MAP_MAX_OWNERS 8
#define BPFMEM_ITER_MAX_ENTRIES 65536	/* keys counted up to this many entries */
#define BPFMEM_MEMCG_UNKNOWN "unknown"	/* never a path: those start with '/' */

struct bpfmem_map_owner {
	pid_t pid;
	char comm[20];
	char cgroup[128];	/* the owner's cgroup v2 path, "" if unknown */
};

struct bpfmem_map_row {
	struct bpf_map_info info;
	struct bpfmem_map_info fdi;
	bool fdi_ok;
	long long elements;
	const char *elem_src;
	const char *mode;
	int n_owners;
	struct bpfmem_map_owner owners[BPFMEM_MAP_MAX_OWNERS];
	char memcg[256];
	const char *memcg_src;
};

struct bpfmem_memcg {
	char path[256];
	long long current, kernel, percpu, slab, vmalloc;	/* -1: n/a */
};

struct bpfmem_maps_sample {
	struct bpfmem_map_row *rows;
	size_t n;
	struct bpfmem_memcg *memcgs;
	size_t n_memcgs;
	bool series;
	bool have_ma;
	struct bpfmem_ma_totals ma;
	/* allocators no map owns (map_id 0), summed per owner */
	struct bpfmem_unowned {
		char owner[64];
		long long allocators, cached, pending;
	} *unowned;
	int n_unowned;
	/* every line of the debugfs listing (have_ma) */
	struct bpfmem_ma_line *ma_lines;
	int n_ma_lines;
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
};

/* Loads the bpf_map iterator; without it (error returned, not fatal) elements come
 * from key iteration and the memcg from the owners.
 */
int bpfmem_maps_open(void);
void bpfmem_maps_close(void);
/* Fills @s (buffers reused across calls); 0 or -errno after an error line. */
int bpfmem_maps_sample(struct bpfmem_maps_sample *s, const struct bpfmem_maps_filter *f);
void bpfmem_maps_free(struct bpfmem_maps_sample *s);
const char *bpfmem_map_type_str(int type);

#endif
