/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between bpf/maps.bpf.c and tools/maps.c: one record per BPF map. */
#ifndef BPFMEM_MAPS_H
#define BPFMEM_MAPS_H

struct maps_rec {
	__u32 id;
	__u32 has_count;	/* map->elem_count exists (hash maps): count is exact */
	__s64 count;		/* bpf_map_sum_elem_count() */
	__u64 memcg_ino;	/* cgroup id (kernfs ino) of map->objcg's memcg, 0 = none/root */
};

#endif
