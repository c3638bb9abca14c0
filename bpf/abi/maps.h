/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between bpf/maps.bpf.c and tools/collect/map_sample.c: one record per BPF map. */
#ifndef BPFMEM_MAPS_H
#define BPFMEM_MAPS_H

/* maps_rec.flags */
#define MAPS_REC_COUNT	1	/* count is exact: map->elem_count summed (6.6+ hash maps) */
#define MAPS_REC_OBJCG	2	/* the kernel has map->objcg (memcg accounting of maps):
				 * memcg_ino is the map's memcg, 0 = none (root) */

struct maps_rec {
	__u32 id;
	__u32 flags;		/* MAPS_REC_* */
	__s64 count;		/* bpf_map_sum_elem_count() */
	__u64 memcg_ino;	/* cgroup id (kernfs ino) of map->objcg's memcg, 0 = none/root */
};

#endif
