// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem maps: a bpf_map iterator that reports, for every map on the system,
 * the live element count the kernel keeps for hash maps (bpf_map_sum_elem_count(),
 * exact and O(CPUs)) and the cgroup the map's memory is charged to (map->objcg).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "maps.h"

extern s64 bpf_map_sum_elem_count(const struct bpf_map *map) __ksym;

SEC("iter/bpf_map")
int dump_maps(struct bpf_iter__bpf_map *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct bpf_map *map = ctx->map;
	struct maps_rec r = {};
	struct obj_cgroup *objcg;

	if (!map)
		return 0;
	r.id = map->id;
	if (BPF_CORE_READ(map, elem_count)) {
		r.has_count = 1;
		r.count = bpf_map_sum_elem_count(map);
	}
	if (bpf_core_field_exists(map->objcg)) {
		objcg = BPF_CORE_READ(map, objcg);
		if (objcg)
			r.memcg_ino = BPF_CORE_READ(objcg, memcg, css.cgroup, kn, id);
	}
	bpf_seq_write(seq, &r, sizeof(r));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
