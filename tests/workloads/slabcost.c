// SPDX-License-Identifier: GPL-2.0
/*
 * slabcost: what the slab allocator itself holds for the bpf_mem_alloc caches, beyond
 * the elements in maps (issue 38: every memory figure of the series was measured on
 * SLUB_TINY, which has no per-CPU slabs and no per-CPU partial lists; full SLUB has
 * both, and they grow with CPUs and with the number of caches).
 *
 *   slabcost [-s SIZES] [-m MAPS] [-n ENTRIES]
 *
 * Creates MAPS (default 4) BPF_F_NO_PREALLOC hash maps for each value size in SIZES
 * (default 24 sizes, 8..2048 B: with the series each size whose element is not a
 * kmalloc size gets its own exact-size cache bpf_ma-N), fills each with ENTRIES
 * (default 2000) elements from user space, then deletes them all, and prints after
 * each phase (created, filled, emptied, emptied+15s) one line per bpf_ma-* or kmalloc-* cache whose
 * object count changed, from /proc/slabinfo, and the totals:
 *   "slabcost PHASE caches N slab_bytes B in_maps_bytes M objs_total T objs_active A"
 * slab_bytes: the caches' slabs (num_slabs << order pages); in_maps_bytes: elements in
 * the maps times their object size. slab_bytes - in_maps_bytes is what bpf_mem_alloc's
 * per-CPU free lists and SLUB's per-CPU and partial slabs hold (none of it in a memcg).
 * Only the caches this program's maps use are summed: bpf_ma-* (the series) and the
 * kmalloc-* sizes of their elements (vanilla).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "wl-util.h"

#define MAX_SIZES 64
#define MAX_CACHES 256

struct cache {
	char name[64];
	long active, objs, objsize, objperslab, pagesperslab, slabs;
};

static int read_slabinfo(struct cache *c, int max)
{
	FILE *f = fopen("/proc/slabinfo", "r");
	char line[512];
	int n = 0;

	if (!f) {
		perror("slabcost: /proc/slabinfo");
		exit(1);
	}
	while (fgets(line, sizeof(line), f) && n < max) {
		struct cache *x = &c[n];
		long tunables[3], sd[3];

		/* name active_objs num_objs objsize objperslab pagesperslab : tunables ... : slabdata active_slabs num_slabs sharedavail */
		if (sscanf(line, "%63s %ld %ld %ld %ld %ld : tunables %ld %ld %ld : slabdata %ld %ld %ld",
			   x->name, &x->active, &x->objs, &x->objsize, &x->objperslab,
			   &x->pagesperslab, &tunables[0], &tunables[1], &tunables[2],
			   &sd[0], &sd[1], &sd[2]) != 12)
			continue;
		if (strncmp(x->name, "bpf_ma-", 7) && strncmp(x->name, "kmalloc-", 8))
			continue;
		x->slabs = sd[1];
		n++;
	}
	fclose(f);
	return n;
}

static long elem_size(int vsize)
{
	/* what one element needs: struct htab_elem (48 B on x86_64), the 4 B key rounded
	 * to 8, the value rounded to 8, and bpf_mem_alloc's 8 B header (LLIST_NODE_SZ) */
	return 48 + 8 + ((vsize + 7) & ~7) + 8;
}

static struct cache base[MAX_CACHES];
static int nbase;

static void report(const char *phase, long in_maps_bytes)
{
	struct cache now[MAX_CACHES];
	long slab_bytes = 0, objs = 0, active = 0;
	int n = read_slabinfo(now, MAX_CACHES), i, j, caches = 0;
	long page = sysconf(_SC_PAGESIZE);

	for (i = 0; i < n; i++) {
		long objs0 = 0, slabs0 = 0, active0 = 0;

		for (j = 0; j < nbase; j++)
			if (!strcmp(base[j].name, now[i].name)) {
				objs0 = base[j].objs;
				slabs0 = base[j].slabs;
				active0 = base[j].active;
			}
		/* new caches (bpf_ma-*) count whole; kmalloc-* only by what changed */
		if (now[i].objs == objs0 && now[i].slabs == slabs0 && objs0)
			continue;
		caches++;
		slab_bytes += (now[i].slabs - slabs0) * now[i].pagesperslab * page;
		objs += now[i].objs - objs0;
		active += now[i].active - active0;
		printf("  %-20s objsize %5ld objs %+7ld active %+7ld slabs %+5ld x %ld pages\n",
		       now[i].name, now[i].objsize, now[i].objs - objs0,
		       now[i].active - active0, now[i].slabs - slabs0, now[i].pagesperslab);
	}
	printf("slabcost %s caches %d slab_bytes %ld in_maps_bytes %ld objs_total %ld objs_active %ld\n",
	       phase, caches, slab_bytes, in_maps_bytes, objs, active);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int sizes[MAX_SIZES], nsizes = 0, maps = 4, entries = 2000, c, i, j, k;
	const char *spec = "8,16,24,40,56,72,88,104,120,136,152,168,200,232,264,328,392,456,"
			   "520,648,776,1032,1544,2048";
	int *fds;
	char *val;
	long in_maps = 0;

	while ((c = getopt(argc, argv, "s:m:n:h")) != -1) {
		switch (c) {
		case 's': spec = optarg; break;
		case 'm': maps = atoi(optarg); break;
		case 'n': entries = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: slabcost [-s SIZE,...] [-m MAPS] [-n ENTRIES]\n");
			return 2;
		}
	}
	for (const char *p = spec; *p && nsizes < MAX_SIZES; ) {
		sizes[nsizes] = atoi(p);
		if (sizes[nsizes] < 1 || sizes[nsizes] > 65536) {
			fprintf(stderr, "slabcost: bad size list '%s'\n", spec);
			return 2;
		}
		nsizes++;
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
	}
	if (maps < 1 || entries < 1 || !nsizes) {
		fprintf(stderr, "slabcost: bad arguments\n");
		return 2;
	}
	fds = calloc((size_t)nsizes * maps, sizeof(*fds));
	val = calloc(1, 65536);
	if (!fds || !val) {
		fprintf(stderr, "slabcost: out of memory\n");
		return 1;
	}
	nbase = read_slabinfo(base, MAX_CACHES);
	printf("slabcost cpus %d sizes %d maps %d entries %d\n", libbpf_num_possible_cpus(),
	       nsizes, maps, entries);
	for (i = 0; i < nsizes; i++)
		for (j = 0; j < maps; j++) {
			LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_NO_PREALLOC);
			int fd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, 4, sizes[i], entries, &o);

			if (fd < 0) {
				fprintf(stderr, "slabcost: map create (value %d): %s\n", sizes[i],
					strerror(errno));
				return 1;
			}
			fds[i * maps + j] = fd;
		}
	report("created", 0);
	for (i = 0; i < nsizes; i++)
		for (j = 0; j < maps; j++)
			for (k = 0; k < entries; k++) {
				__u32 key = k;

				if (bpf_map_update_elem(fds[i * maps + j], &key, val, BPF_NOEXIST)) {
					fprintf(stderr, "slabcost: update (value %d, key %d): %s\n",
						sizes[i], k, strerror(errno));
					return 1;
				}
				in_maps += elem_size(sizes[i]);
			}
	report("filled", in_maps);
	for (i = 0; i < nsizes; i++)
		for (j = 0; j < maps; j++)
			for (k = 0; k < entries; k++) {
				__u32 key = k;

				bpf_map_delete_elem(fds[i * maps + j], &key);
			}
	/* the free lists trim from irq_work and give objects back after RCU grace periods
	 * (RCU Tasks Trace, then RCU), which take seconds under TCG */
	sleep(1);
	report("emptied", 0);
	sleep(14);
	report("emptied+15s", 0);
	return 0;
}
