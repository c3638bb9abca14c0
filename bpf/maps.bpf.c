// SPDX-License-Identifier: GPL-2.0
/*
 * bpfmem maps: a bpf_map iterator that reports, for every map on the system,
 * the live element count the kernel keeps for hash maps (bpf_map_sum_elem_count(),
 * exact and O(CPUs)) and the cgroup the map's memory is charged to (map->objcg).
 *
 * Loads on every kernel with BTF and the bpf_map iterator (5.8+), as libbpf-tools do:
 *  - the kfunc and map->elem_count are 6.6+: the extern is __weak and its call is
 *    behind bpf_ksym_exists() (libbpf resolves a missing weak kfunc to 0, and the
 *    verifier drops the branch), the field read behind bpf_core_field_exists();
 *  - map->objcg exists where maps are charged to memcgs (CONFIG_MEMCG_KMEM before
 *    6.10, CONFIG_MEMCG after): MAPS_REC_OBJCG tells user space whether a zero
 *    memcg_ino means "the root cgroup" or "this kernel charges maps to no memcg".
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "abi/maps.h"

#ifndef bpf_ksym_exists	/* libbpf 1.2's bpf_helpers.h; Debian 12 has 1.1 */
#define bpf_ksym_exists(sym) ({							\
	_Static_assert(!__builtin_constant_p(!!sym), #sym " should be marked as __weak"); \
	!!sym;									\
})
#endif

extern s64 bpf_map_sum_elem_count(const struct bpf_map *map) __ksym __weak;

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
	if (bpf_core_field_exists(map->elem_count) && bpf_ksym_exists(bpf_map_sum_elem_count) &&
	    BPF_CORE_READ(map, elem_count)) {
		r.flags |= MAPS_REC_COUNT;
		r.count = bpf_map_sum_elem_count(map);
	}
	if (bpf_core_field_exists(map->objcg)) {
		r.flags |= MAPS_REC_OBJCG;
		objcg = BPF_CORE_READ(map, objcg);
		if (objcg)
			r.memcg_ino = BPF_CORE_READ(objcg, memcg, css.cgroup, kn, id);
	}
	bpf_seq_write(seq, &r, sizeof(r));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
